/**
 * Where the LZ4 kernel's wasm comes from: sluice's own hand-written module
 * (lib/codecs/wasm/lz4.wat, block decoder + xxHash32, ~2 kB), assembled by
 * the repository's `node scripts/build-wasm-kernels.mjs`.
 *
 * The `#wasm/lz4` import's portable default (the repository's package.json maps
 * `#wasm/*` here, for tsx and the tests): the bytes embedded as base64
 * (lib/codecs/wasm/gen/lz4.b64.ts). The package's build keeps it for every runtime but
 * workerd, which refuses to compile bytes and imports `lz4.wasm` as a module instead
 * (esbuild.config.mjs `runtimeImports`).
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function lz4Wasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/lz4.b64.js')
  return bytesFromBase64(base64)
}
