/**
 * Where the marker inflate kernel's wasm comes from: sluice's own hand-written module
 * (lib/codecs/wasm/inflate-markers.wat, deflate codes into 16-bit symbols for parallel
 * decoding, ~1.5 kB), assembled by the repository's `node scripts/build-wasm-kernels.mjs`.
 *
 * Portable default: the bytes embedded as base64 (lib/codecs/wasm/gen/inflate-markers.b64.ts).
 * A runtime build replaces this module (esbuild.config.mjs `wasmSourcePlugin`), as it
 * does lib/codecs/wasm/inflate-wasm-source.ts.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function inflateMarkersWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/inflate-markers.b64.js')
  return bytesFromBase64(base64)
}
