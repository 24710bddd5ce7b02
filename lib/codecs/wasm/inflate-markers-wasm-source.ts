/**
 * Where the marker inflate kernel's wasm comes from: sluice's own hand-written module
 * (lib/codecs/wasm/inflate-markers.wat, deflate codes into 16-bit symbols for parallel
 * decoding, ~1.5 kB), assembled by the repository's `node scripts/build-wasm-kernels.mjs`.
 *
 * The `#wasm/inflate-markers` import's portable default (the repository's package.json
 * maps `#wasm/*` here, for tsx and the tests): the bytes embedded as base64
 * (lib/codecs/wasm/gen/inflate-markers.b64.ts). The package's build keeps it for every
 * runtime but workerd, which refuses to compile bytes and imports `inflate-markers.wasm`
 * as a module instead (esbuild.config.mjs `runtimeImports`).
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function inflateMarkersWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/inflate-markers.b64.js')
  return bytesFromBase64(base64)
}
