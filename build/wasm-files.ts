/**
 * How the package's builds obtain an engine's one `.wasm` file (esbuild.config.mjs,
 * `wasmSourcePlugin`, replaces each large engine's `lib/codecs/wasm/*-wasm-source.ts`
 * with a call to one of these). The file ships once, in `dist/browser/`, beside the
 * browser chunks that fetch it; the other builds reach over to it.
 *
 * - `fetchWasm`: browsers. `new URL('./x.wasm', import.meta.url)` stays in the caller,
 *   where Vite, webpack 5 and Parcel recognise it and emit the file.
 * - `readWasm`: Node, Deno, Bun (ESM and CommonJS builds). A `file:` URL is read from
 *   disk (`node:fs`, which all three provide); any other URL (an ESM build served over
 *   HTTP, e.g. Deno importing from a CDN) is fetched.
 *
 * A failure names the file, the URL tried and the fix, as a `CodecError` with code
 * `ENGINE_UNAVAILABLE`.
 */
import { CodecError } from '../lib/errors.js'

/** What to do when a browser cannot fetch the file (docs/bundling.md). */
const BROWSER_FIX =
  'Serve node_modules/sluice/dist/browser/FILE at that URL: Vite, webpack 5 and Parcel do so on their own ' +
  '(they follow new URL(..., import.meta.url)); with esbuild (--format=esm --splitting) or Rollup, copy ' +
  'node_modules/sluice/dist/browser/*.wasm beside the bundle (the guide: docs/bundling.md in the sluice repository).'

/** What to do when Node, Deno or Bun cannot read the file. */
const READ_FIX =
  'The file ships in node_modules/sluice/dist/browser/. Bundling sluice into a server app moves import.meta.url ' +
  'and __dirname: keep sluice external (esbuild --packages=external), or copy that file to the path above.'

function unavailable(format: string, file: string, url: string, reason: string, fix: string, cause?: unknown): CodecError {
  return new CodecError('ENGINE_UNAVAILABLE', format, `could not load the engine's WebAssembly ${file} from ${url}: ${reason}. ${fix.replace('FILE', file)}`, -1, cause === undefined ? undefined : { cause })
}

/**
 * Fetches `file` from the URL `locate()` builds. A thunk, so that a build without
 * `import.meta.url` (a classic script or IIFE bundle) is reported as such.
 */
export async function fetchWasm(format: string, file: string, locate: () => URL): Promise<Response> {
  let url: URL
  try {
    url = locate()
  } catch (cause) {
    throw unavailable(format, file, `./${file}`, 'import.meta.url is not available, so the URL cannot be resolved (a classic script or IIFE bundle? build ESM)', BROWSER_FIX, cause)
  }
  let response: Response
  try {
    response = await fetch(url)
  } catch (cause) {
    throw unavailable(format, file, url.href, `fetch failed (${(cause as Error)?.message ?? cause}); a Content-Security-Policy must allow this URL in connect-src`, BROWSER_FIX, cause)
  }
  if (!response.ok) throw unavailable(format, file, url.href, `HTTP ${response.status}`, BROWSER_FIX)
  return response
}

/** Reads `file` at `url`: from disk for `file:` URLs, else with fetch. */
export async function readWasm(format: string, file: string, url: URL): Promise<Uint8Array | Response> {
  if (url.protocol !== 'file:') {
    const response = await fetch(url).catch((cause: unknown) => {
      throw unavailable(format, file, url.href, `fetch failed (${(cause as Error)?.message ?? cause})`, READ_FIX, cause)
    })
    if (!response.ok) throw unavailable(format, file, url.href, `HTTP ${response.status}`, READ_FIX)
    return response
  }
  const { readFile } = await import('node:fs/promises')
  try {
    return await readFile(url)
  } catch (cause) {
    throw unavailable(format, file, url.href, (cause as Error)?.message ?? String(cause), READ_FIX, cause)
  }
}
