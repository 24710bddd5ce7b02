/**
 * Node's, Deno's and Bun's way to an engine's `.wasm` file: the `node` target of each
 * large engine's `#wasm/<engine>` import (esbuild.config.mjs writes those modules), which
 * hands this `new URL('./<engine>.wasm', import.meta.url)`, beside the package's files.
 * A `file:` URL is read from disk (`node:fs`, which all three provide); any other URL
 * (the package served over HTTP, e.g. Deno importing it from a CDN) is fetched.
 */
import { SHIPPED_AT, unavailable } from './wasm-files.js'

/** What to do when Node, Deno or Bun cannot read the file. */
const READ_FIX =
  `The file ships in ${SHIPPED_AT}. Bundling sluice into a server app moves import.meta.url: ` +
  'keep sluice external (esbuild --packages=external), or copy that file to the path above.'

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
