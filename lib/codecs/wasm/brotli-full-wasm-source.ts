/**
 * Where the brotli-full engine's wasm comes from: brotli-wasm 3.0 (web build): Rust brotli encoder and decoder via wasm-bindgen.
 *
 * Portable default: the bytes embedded as base64 by `node scripts/extract-wasm.mjs`
 * (lib/codecs/wasm/gen/brotli-full.b64.ts). A runtime build replaces this module, e.g. for
 * workerd with `import module from './gen/brotli-full.wasm'` (an imported
 * `WebAssembly.Module`: workerd refuses to compile bytes), for browsers with
 * `fetch(new URL('./gen/brotli-full.wasm', import.meta.url))`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function brotliFullWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/brotli-full.b64.js')
  return bytesFromBase64(base64)
}
