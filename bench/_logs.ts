// Inputs and a server shared by the random-access benches (zstd-seekable.ts,
// gzip-index.ts): log lines from a seeded generator, and a loopback node:http server
// that serves one file statically, honouring Range, counting its requests.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** `n` bytes of log lines from a seeded generator (timestamps, hosts, paths, statuses, request ids). */
export function logText(n: number): Uint8Array {
  const out = new Uint8Array(n)
  const enc = new TextEncoder()
  const words = ['GET', 'POST', '/api/v1/items', '/static/app.js', '/login', '200', '404', '500', 'ok', 'timeout', 'retry', 'cache hit', 'cache miss']
  let x = 0x2545f491
  const rnd = (k: number) => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % k
  }
  let at = 0
  while (at < n) {
    const line = enc.encode(
      `2026-12-02T${String(rnd(24)).padStart(2, '0')}:${String(rnd(60)).padStart(2, '0')}:${String(rnd(60)).padStart(2, '0')}.${String(rnd(1000)).padStart(3, '0')}Z host-${rnd(40)} ${words[rnd(5)]} ${words[2 + rnd(3)]} ${words[5 + rnd(3)]} ${rnd(2000)} ms ${words[8 + rnd(5)]} req=${rnd(2 ** 31).toString(16)}\n`,
    )
    out.set(line.subarray(0, Math.min(line.length, n - at)), at)
    at += line.length
  }
  return out
}

/** A loopback server of `body` (HEAD, GET with or without Range), its URL and its request count. */
export async function serveRanges(body: Uint8Array, path: string, type: string): Promise<{ url: string; requests(): number; close(): void }> {
  let requests = 0
  const server = createServer((req, res) => {
    requests++
    const headers = { 'accept-ranges': 'bytes', etag: '"bench"', 'content-type': type }
    if (req.method === 'HEAD') return void res.writeHead(200, { ...headers, 'content-length': body.length }).end()
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')
    if (!m) return void res.writeHead(200, { ...headers, 'content-length': body.length }).end(body)
    const start = Number(m[1])
    const end = Math.min(Number(m[2]), body.length - 1)
    res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${body.length}`, 'content-length': end - start + 1 })
    res.end(body.subarray(start, end + 1))
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${path}`,
    requests: () => requests,
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}
