/**
 * Where the zstd-full engine's wasm comes from: @oneidentity/zstd-js 1.0 (wasm build): full libzstd with the streaming compressor.
 *
 * Portable default: the bytes embedded as base64 by `node scripts/extract-wasm.mjs`
 * (lib/codecs/wasm/gen/zstd-full.b64.ts). A runtime build replaces this module, e.g. for
 * workerd with `import module from './gen/zstd-full.wasm'` (an imported
 * `WebAssembly.Module`: workerd refuses to compile bytes), for browsers with
 * `fetch(new URL('./gen/zstd-full.wasm', import.meta.url))`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function zstdFullWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/zstd-full.b64.js')
  return bytesFromBase64(base64)
}
