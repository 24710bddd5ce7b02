/**
 * Where the brotli-enc engine's wasm comes from: lib/codecs/wasm/brotli-enc.wasm, brotli 1.1.0's encoder built
 * by the repository's scripts/build-engines.mjs (recorded in engines.json).
 *
 * Portable default: the bytes embedded as base64 by the repository's `node scripts/extract-wasm.mjs`
 * (lib/codecs/wasm/gen/brotli-enc.b64.ts). A runtime build replaces this module, e.g. for
 * workerd with `import module from './gen/brotli-enc.wasm'` (an imported
 * `WebAssembly.Module`: workerd refuses to compile bytes), for browsers with
 * `fetch(new URL('./gen/brotli-enc.wasm', import.meta.url))`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function brotliEncoderWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/brotli-enc.b64.js')
  return bytesFromBase64(base64)
}
