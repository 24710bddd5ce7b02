/**
 * What a user sees when an engine's `.wasm` file cannot be loaded: a `CodecError` with
 * code `ENGINE_UNAVAILABLE` naming the file, the URL tried and the fix. Shared by the
 * two ways the package's one build loads a file (esbuild.config.mjs generates each
 * engine's `#wasm/<engine>` modules around them):
 *
 * - build/wasm-fetch.ts, `fetchWasm`: browsers (the `default` condition);
 * - build/wasm-read.ts, `readWasm`: Node, Deno and Bun (the `node` condition).
 *
 * workerd needs neither: there each engine is an imported `WebAssembly.Module`.
 */
import { CodecError } from '../lib/errors.js'

/** Where the files ship in the package (beside the modules that load them), for the fixes the errors suggest. */
export const SHIPPED_AT = 'node_modules/sluice/dist/esm/wasm/'

/** The error for `file`, which could not be loaded from `url`. */
export function unavailable(format: string, file: string, url: string, reason: string, fix: string, cause?: unknown): CodecError {
  return new CodecError('ENGINE_UNAVAILABLE', format, `could not load the engine's WebAssembly ${file} from ${url}: ${reason}. ${fix.replace('FILE', file)}`, -1, cause === undefined ? undefined : { cause })
}
