/**
 * Where the brotli-dec engine's wasm comes from: lib/codecs/wasm/brotli-dec.wasm, brotli 1.1.0's decoder built
 * by the repository's scripts/build-engines.mjs (recorded in engines.json).
 *
 * Portable default: the bytes embedded as base64 by the repository's `node scripts/extract-wasm.mjs`
 * (lib/codecs/wasm/gen/brotli-dec.b64.ts). A runtime build replaces this module, e.g. for
 * workerd with `import module from './gen/brotli-dec.wasm'` (an imported
 * `WebAssembly.Module`: workerd refuses to compile bytes), for browsers with
 * `fetch(new URL('./gen/brotli-dec.wasm', import.meta.url))`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function brotliDecoderWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/brotli-dec.b64.js')
  return bytesFromBase64(base64)
}
