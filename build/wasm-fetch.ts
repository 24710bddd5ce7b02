/**
 * Browsers' way to an engine's `.wasm` file: the `default` target of each large engine's
 * `#wasm/<engine>` import (esbuild.config.mjs writes those modules), which hands this a
 * thunk building `new URL('./<engine>.wasm', import.meta.url)`: the pattern Vite,
 * webpack 5 and Parcel recognise and rewrite to the file they emit. The response goes to
 * `instantiateStreaming`, which compiles while the bytes download.
 *
 * No `node:` module is reachable from here: browser bundlers must never see one.
 */
import { SHIPPED_AT, unavailable } from './wasm-files.js'

/** What to do when a browser cannot fetch the file (docs/bundling.md). */
const BROWSER_FIX =
  `Serve ${SHIPPED_AT}FILE at that URL: Vite, webpack 5 and Parcel do so on their own ` +
  '(they follow new URL(..., import.meta.url)); with esbuild (--format=esm --splitting) or Rollup, copy ' +
  `${SHIPPED_AT}*.wasm beside the bundle (the guide: docs/bundling.md in the sluice repository).`

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
