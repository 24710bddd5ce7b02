/**
 * Where the Snappy kernel's wasm comes from: sluice's own hand-written module
 * (lib/codecs/wasm/snappy.wat, block decoder + CRC-32C, ~1 kB), assembled by
 * the repository's `node scripts/build-wasm-kernels.mjs`.
 *
 * Portable default: the bytes embedded as base64 (lib/codecs/wasm/gen/snappy.b64.ts). A
 * runtime build replaces this module (esbuild.config.mjs `wasmSourcePlugin`), e.g. for
 * workerd with `import module from './gen/snappy.wasm'` (workerd refuses to compile bytes),
 * for browsers with `fetch(new URL('./gen/snappy.wasm', import.meta.url))`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function snappyWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/snappy.b64.js')
  return bytesFromBase64(base64)
}
