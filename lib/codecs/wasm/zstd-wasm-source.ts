/**
 * Where the zstd engine's wasm comes from: lib/codecs/wasm/zstd.wasm, libzstd 1.5.7 built
 * by scripts/build-engines.mjs (recorded in engines.json).
 *
 * Portable default: the bytes embedded as base64 by `node scripts/extract-wasm.mjs`
 * (lib/codecs/wasm/gen/zstd.b64.ts). A runtime build replaces this module, e.g. for
 * workerd with `import module from './gen/zstd.wasm'` (an imported
 * `WebAssembly.Module`: workerd refuses to compile bytes), for browsers with
 * `fetch(new URL('./gen/zstd.wasm', import.meta.url))`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function zstdWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/zstd.b64.js')
  return bytesFromBase64(base64)
}
