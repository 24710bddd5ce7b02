/**
 * An example Cloudflare Worker: a decoding proxy. It fetches a compressed body from an
 * upstream and returns it decoded, streaming (nothing is buffered whole, and
 * `maxOutputBytes` stops decompression bombs), and compressed again for the client in
 * the best coding its `Accept-Encoding` allows (zstd, br, gzip, deflate: `encodeResponse`):
 *
 * - files compressed as files: `*.zst` (zstd) and `*.lz4` (LZ4 frame), e.g. an Arrow
 *   IPC stream `table.arrow.zst` or `data.json.lz4`: decoded by the extension, served
 *   with the type of the inner name;
 * - bodies sent with `Content-Encoding` (zstd, gzip, deflate, br): decoded with
 *   `decodeResponse`, which skips layers the Workers runtime decoded itself.
 *
 * Deploy with wrangler (it resolves sluice's `#wasm/<engine>` imports with the `workerd`
 * condition: every engine's wasm is imported as a module, since Workers refuse to
 * compile WebAssembly from bytes at run time):
 *
 *     # wrangler.toml
 *     name = "decode-proxy"
 *     main = "worker.ts"
 *     compatibility_date = "2025-09-01"
 *     [vars]
 *     UPSTREAM = "https://data.example.com/"
 *     MAX_OUTPUT_BYTES = "268435456"
 */
// @ts-ignore: resolved through the package's `exports` to dist/
import { lz4Decode, zstdDecode } from 'sluice'
// @ts-ignore: resolved through the package's `exports` to dist/
import { decodeResponse, encodeResponse } from 'sluice/fetch'

export interface Env {
  /** Base URL the request path is resolved against. */
  UPSTREAM: string
  /** Most bytes a decoded body may have (default 256 MiB). */
  MAX_OUTPUT_BYTES?: string
}

/** Media types by the name under the compression suffix. */
const types: Record<string, string> = {
  arrow: 'application/vnd.apache.arrow.stream',
  arrows: 'application/vnd.apache.arrow.stream',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
}

export default {
  /** Every answer is compressed for the client as its Accept-Encoding allows. */
  async fetch(request: Request, env: Env): Promise<Response> {
    return await encodeResponse(request, await proxy(request, env))
  },
}

/** The decoding proxy: the upstream's body, decoded. */
async function proxy(request: Request, env: Env): Promise<Response> {
  const url = new URL(request.url)
  const maxOutputBytes = Number(env.MAX_OUTPUT_BYTES ?? 256 * 1024 * 1024)
  const upstream = await fetch(new URL(url.pathname.slice(1) + url.search, env.UPSTREAM))
  if (!upstream.ok || upstream.body === null) return new Response(`upstream answered ${upstream.status}\n`, { status: 502 })

  const suffix = /\.(zst|lz4)$/.exec(url.pathname)?.[1]
  if (suffix) {
    const inner = url.pathname.slice(0, -suffix.length - 1)
    const type = types[/\.(\w+)$/.exec(inner)?.[1] ?? ''] ?? 'application/octet-stream'
    // A file that is also sent with a Content-Encoding is first decoded from that.
    const body = decodeResponse(upstream, { maxOutputBytes }).body!
    const decoder = suffix === 'zst' ? zstdDecode({ maxOutputBytes }) : lz4Decode({ maxOutputBytes })
    return new Response(body.pipeThrough(decoder), { headers: { 'content-type': type, 'x-decoded-from': suffix } })
  }
  return decodeResponse(upstream, { maxOutputBytes })
}
