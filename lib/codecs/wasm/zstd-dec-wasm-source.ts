/**
 * Where the zstd decoder engine's wasm comes from: lib/codecs/wasm/zstd-dec.wasm,
 * libzstd 1.5.7's decoder built by the repository's scripts/build-engines.mjs (recorded in engines.json).
 *
 * The `#wasm/zstd-dec` import's portable default (the repository's package.json maps
 * `#wasm/*` here, for tsx and the tests): the bytes embedded as base64 by the
 * repository's `node scripts/extract-wasm.mjs` (lib/codecs/wasm/gen/zstd-dec.b64.ts).
 * The package's build maps `#wasm/zstd-dec` by condition to a loader of its one
 * `zstd-dec.wasm` file instead (esbuild.config.mjs `runtimeImports`): workerd imports it
 * as a module (it refuses to compile bytes), Node, Deno and Bun read it from disk,
 * browsers fetch it from `new URL('./zstd-dec.wasm', import.meta.url)`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function zstdDecoderWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/zstd-dec.b64.js')
  return bytesFromBase64(base64)
}
