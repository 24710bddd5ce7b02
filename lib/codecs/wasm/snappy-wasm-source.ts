/**
 * Where the Snappy kernel's wasm comes from: sluice's own hand-written module
 * (lib/codecs/wasm/snappy.wat, block decoder + CRC-32C, ~1 kB), assembled by
 * the repository's `node scripts/build-wasm-kernels.mjs`.
 *
 * The `#wasm/snappy` import's portable default (the repository's package.json maps
 * `#wasm/*` here, for tsx and the tests): the bytes embedded as base64
 * (lib/codecs/wasm/gen/snappy.b64.ts). The package's build keeps it for every runtime
 * but workerd, which refuses to compile bytes and imports `snappy.wasm` as a module
 * instead (esbuild.config.mjs `runtimeImports`).
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function snappyWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/snappy.b64.js')
  return bytesFromBase64(base64)
}
