/**
 * Where the inflate kernel's wasm comes from: sluice's own hand-written module
 * (lib/codecs/wasm/inflate.wat, deflate codes + CRC-32, ~2 kB), assembled by
 * the repository's `node scripts/build-wasm-kernels.mjs`.
 *
 * Portable default: the bytes embedded as base64 (lib/codecs/wasm/gen/inflate.b64.ts). A
 * runtime build replaces this module (esbuild.config.mjs `wasmSourcePlugin`), e.g. for
 * workerd with `import module from './gen/inflate.wasm'` (workerd refuses to compile
 * bytes), for browsers with `fetch(new URL('./gen/inflate.wasm', import.meta.url))`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function inflateWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/inflate.b64.js')
  return bytesFromBase64(base64)
}
