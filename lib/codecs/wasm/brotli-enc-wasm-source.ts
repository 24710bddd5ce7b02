/**
 * Where the brotli-enc engine's wasm comes from: lib/codecs/wasm/brotli-enc.wasm, brotli 1.1.0's encoder built
 * by the repository's scripts/build-engines.mjs (recorded in engines.json).
 *
 * The `#wasm/brotli-enc` import's portable default (the repository's package.json maps
 * `#wasm/*` here, for tsx and the tests): the bytes embedded as base64 by the
 * repository's `node scripts/extract-wasm.mjs` (lib/codecs/wasm/gen/brotli-enc.b64.ts).
 * The package's build maps `#wasm/brotli-enc` by condition to a loader of its one
 * `brotli-enc.wasm` file instead (esbuild.config.mjs `runtimeImports`): workerd imports
 * it as a module (it refuses to compile bytes), Node, Deno and Bun read it from disk,
 * browsers fetch it from `new URL('./brotli-enc.wasm', import.meta.url)`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function brotliEncoderWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/brotli-enc.b64.js')
  return bytesFromBase64(base64)
}
