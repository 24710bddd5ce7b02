/**
 * Where the deflate family's encoder engine's wasm comes from:
 * lib/codecs/wasm/zlibng-deflate.wasm, zlib-ng 2.2.4's deflate built by
 * the repository's scripts/build-engines.mjs (recorded in engines.json).
 *
 * Portable default: the bytes embedded as base64 by the repository's `node scripts/extract-wasm.mjs`
 * (lib/codecs/wasm/gen/zlibng-deflate.b64.ts). The package's builds replace this module
 * (esbuild.config.mjs `wasmSourcePlugin`) so that the one `.wasm` file is fetched, read
 * or imported instead, as for zstd's and brotli's engines.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function zlibngDeflateWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/zlibng-deflate.b64.js')
  return bytesFromBase64(base64)
}
