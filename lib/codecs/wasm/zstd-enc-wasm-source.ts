/**
 * Where the zstd encoder engine's wasm comes from: lib/codecs/wasm/zstd-enc.wasm,
 * libzstd 1.5.7's encoder built by the repository's scripts/build-engines.mjs (recorded in engines.json).
 *
 * Portable default: the bytes embedded as base64 by the repository's `node scripts/extract-wasm.mjs`
 * (lib/codecs/wasm/gen/zstd-enc.b64.ts). A runtime build replaces this module, e.g. for
 * workerd with `import module from './gen/zstd-enc.wasm'` (an imported
 * `WebAssembly.Module`: workerd refuses to compile bytes), for browsers with
 * `fetch(new URL('./gen/zstd-enc.wasm', import.meta.url))`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function zstdEncoderWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/zstd-enc.b64.js')
  return bytesFromBase64(base64)
}
