/**
 * Where the deflate family's encoder engine's wasm comes from:
 * lib/codecs/wasm/zlibng-deflate.wasm, zlib-ng 2.2.4's deflate built by
 * the repository's scripts/build-engines.mjs (recorded in engines.json).
 *
 * The `#wasm/zlibng-deflate` import's portable default (the repository's package.json
 * maps `#wasm/*` here, for tsx and the tests): the bytes embedded as base64 by the
 * repository's `node scripts/extract-wasm.mjs`
 * (lib/codecs/wasm/gen/zlibng-deflate.b64.ts). The package's build maps
 * `#wasm/zlibng-deflate` by condition to a loader of its one `zlibng-deflate.wasm` file
 * instead (esbuild.config.mjs `runtimeImports`): workerd imports it as a module (it
 * refuses to compile bytes), Node, Deno and Bun read it from disk, browsers fetch it
 * from `new URL('./zlibng-deflate.wasm', import.meta.url)`.
 */
import { bytesFromBase64, type WasmSource } from './instantiate.js'

export async function zlibngDeflateWasm(): Promise<WasmSource> {
  const { default: base64 } = await import('./gen/zlibng-deflate.b64.js')
  return bytesFromBase64(base64)
}
