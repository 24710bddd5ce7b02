/**
 * Where the LZ4 HC kernel's wasm comes from: sluice's own hand-written module
 * (lib/codecs/wasm/lz4hc.wat, the block compressor of LZ4 levels 3 to 12, ~4 kB),
 * assembled by the repository's `node scripts/build-wasm-kernels.mjs`.
 *
 * The `#wasm/lz4hc` import's portable default (the repository's package.json maps
 * `#wasm/*` here, for tsx and the tests): the bytes embedded as base64
 * (lib/codecs/wasm/gen/lz4hc.b64.ts). The package's build keeps it for every runtime but
 * workerd, which refuses to compile bytes and imports `lz4hc.wasm` as a module instead
 * (esbuild.config.mjs `runtimeImports`).
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function lz4hcWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/lz4hc.b64.js')
  return bytesFromBase64(base64)
}
