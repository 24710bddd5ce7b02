// encodeResponse() and the Node middleware against real clients: loopback node:http
// servers (one answering through encodeResponse via toNodeListener, one through the
// Express-style compression() middleware), fetched by curl --compressed (Debian's curl
// decodes zstd, br, gzip and deflate), Node's fetch and headless Chromium (which decodes
// zstd and br natively). Each client is forced to each coding (Accept-Encoding where it
// can be set, a server offering only that coding where it cannot) and sends its own or
// a browser-like Accept-Encoding; the decoded bodies must be byte-identical.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { encodeResponse, type ContentCoding } from '../adapters/fetch/index.js'
import { compression, toNodeListener } from '../adapters/node/index.js'
import { binarySlice, filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { BROWSER_ACCEPT, chromiumFetch, curl, HAS_CHROMIUM, HAS_CURL, HAS_ZSTD, listen, nodeFetch, sha256, type Fetched, type Loopback } from './_http.js'

if (!HAS_CURL) console.log('# skipped: curl cases: curl is not installed (apt-get install -y curl)')
if (!HAS_CHROMIUM) console.log('# skipped: Chromium cases: /usr/bin/chromium is not installed (apt-get install -y chromium)')
if (!HAS_ZSTD) console.log("# skipped: zstd through Node's fetch: Node 20's fetch does not decode zstd and the zstd CLI is not installed")

const CODINGS: ContentCoding[] = ['zstd', 'br', 'gzip', 'deflate']

const bodies: Record<string, { type: string; data: Uint8Array; chunks?: number }> = {
  text: { type: 'text/plain; charset=utf-8', data: filesCorpus(join(root, 'lib'), 300_000) },
  json: { type: 'application/json', data: new Uint8Array(readFileSync(join(root, 'package-lock.json'))) },
  binary: { type: 'application/octet-stream', data: binarySlice(1_000_000, 400_000) },
  // Written in 97 pieces of uneven sizes, as a handler streaming its output would.
  streamed: { type: 'text/html; charset=utf-8', data: filesCorpus(join(root, 'streams'), 250_000), chunks: 97 },
  small: { type: 'text/plain', data: new TextEncoder().encode('short body, below minBytes\n') },
}

const PAGE = new TextEncoder().encode('<!doctype html><title>sluice</title>')

function pieces(data: Uint8Array, n: number): Uint8Array[] {
  const out: Uint8Array[] = []
  let at = 0
  for (let i = 0; i < n && at < data.length; i++) {
    const size = i === n - 1 ? data.length - at : Math.max(1, Math.floor(((i % 7) + 1) * (data.length / n / 4)))
    out.push(data.subarray(at, at + size))
    at += size
  }
  if (at < data.length) out.push(data.subarray(at))
  return out
}

/** `/body/<name>?only=<coding>`: the server offers only that coding. */
function route(url: URL): { name: string; only: ContentCoding[] | undefined } | null {
  const m = /^\/body\/(\w+)$/.exec(url.pathname)
  if (!m || !(m[1]! in bodies)) return null
  const only = url.searchParams.get('only') as ContentCoding | null
  return { name: m[1]!, only: only ? [only] : undefined }
}

/** Upstreams of /endless cancelled so far (the client went away). */
let endlessCancelled = 0

/** The fetch-style server: handler Responses through encodeResponse. */
const fetchServer = () =>
  listen(
    toNodeListener((request) => {
      const url = new URL(request.url)
      if (url.pathname === '/broken') {
        // An upstream that fails after 200 KB.
        let sent = 0
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ < 4) controller.enqueue(bodies.binary!.data.slice(0, 50_000))
            else controller.error(new Error('upstream failed'))
          },
        })
        return encodeResponse(request, new Response(body, { headers: { 'content-type': 'text/plain' } }), { encodings: url.searchParams.has('only') ? [url.searchParams.get('only') as ContentCoding] : undefined })
      }
      if (url.pathname === '/endless') {
        let k = 0
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            await new Promise((r) => setTimeout(r, 1))
            controller.enqueue(new TextEncoder().encode(`data: ${k++} ${'x'.repeat(2000)}\n\n`))
          },
          cancel() {
            endlessCancelled++
          },
        })
        return encodeResponse(request, new Response(body, { headers: { 'content-type': 'text/event-stream' } }))
      }
      if (url.pathname === '/page') return new Response(PAGE, { headers: { 'content-type': 'text/html' } })
      const r = route(url)
      if (!r) return new Response('not found', { status: 404 })
      const b = bodies[r.name]!
      let body: BodyInit
      const headers: Record<string, string> = { 'content-type': b.type }
      if (b.chunks) {
        const parts = pieces(b.data, b.chunks)
        body = new ReadableStream<Uint8Array>({
          pull(controller) {
            const p = parts.shift()
            if (p) controller.enqueue(p.slice())
            else controller.close()
          },
        })
      } else {
        body = b.data.slice()
        headers['content-length'] = String(b.data.length)
      }
      return encodeResponse(request, new Response(body, { headers }), { encodings: r.only })
    }),
  )

/** The Express-style server: handlers writing to ServerResponse behind compression(). */
function middlewareServer(): Promise<Loopback> {
  const middlewares = new Map<string, ReturnType<typeof compression>>()
  const mw = (only: ContentCoding[] | undefined) => {
    const key = only?.join() ?? ''
    let m = middlewares.get(key)
    if (!m) middlewares.set(key, (m = compression({ encodings: only })))
    return m
  }
  return listen((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const r = route(url)
    mw(r?.only)(req, res, () => {
      if (url.pathname === '/page') {
        res.setHeader('content-type', 'text/html')
        res.end(PAGE)
        return
      }
      if (!r) {
        res.statusCode = 404
        res.end('not found')
        return
      }
      const b = bodies[r.name]!
      res.setHeader('content-type', b.type)
      if (!b.chunks) {
        res.end(Buffer.from(b.data))
        return
      }
      const parts = pieces(b.data, b.chunks)
      const next = () => {
        for (;;) {
          const p = parts.shift()
          if (!p) {
            res.end()
            return
          }
          if (!res.write(Buffer.from(p))) {
            res.once('drain', next)
            return
          }
        }
      }
      next()
    })
  })
}

function check(got: Fetched, name: string, want: string | null, what: string): void {
  const data = bodies[name]!.data
  assert.is(got.status, 200, `${what}: status`)
  assert.is(got.encoding, want, `${what}: Content-Encoding`)
  assert.is(got.body.length, data.length, `${what}: decoded length`)
  assert.ok(Buffer.compare(got.body, data) === 0, `${what}: decoded bytes differ`)
}

const servers: Array<[string, () => Promise<Loopback>]> = [
  ['encodeResponse', fetchServer],
  ['compression() middleware', middlewareServer],
]

for (const [serverName, start] of servers) {
  ;(HAS_CURL ? test : test.skip)(`${serverName} + curl --compressed: each coding forced, and curl's own header`, async () => {
    const s = await start()
    try {
      for (const name of Object.keys(bodies)) {
        for (const coding of CODINGS) {
          const want = name === 'small' ? null : coding
          check(await curl(`${s.url}/body/${name}`, coding), name, want, `curl ${coding} ${name}`)
        }
        // curl 7.88's own Accept-Encoding is "deflate, gzip, br, zstd": all weigh 1, server order.
        check(await curl(`${s.url}/body/${name}`), name, name === 'small' ? null : 'zstd', `curl default ${name}`)
        check(await curl(`${s.url}/body/${name}`, BROWSER_ACCEPT), name, name === 'small' ? null : 'zstd', `curl browser-like ${name}`)
        check(await curl(`${s.url}/body/${name}`, 'identity'), name, null, `curl identity ${name}`)
      }
    } finally {
      await s.close()
    }
  })

  test(`${serverName} + Node's fetch: each coding forced, browser-like and its own header`, async () => {
    const s = await start()
    try {
      for (const name of Object.keys(bodies)) {
        for (const coding of CODINGS) {
          if (coding === 'zstd' && !HAS_ZSTD) continue
          check(await nodeFetch(`${s.url}/body/${name}`, coding), name, name === 'small' ? null : coding, `fetch ${coding} ${name}`)
        }
        if (HAS_ZSTD) check(await nodeFetch(`${s.url}/body/${name}`, BROWSER_ACCEPT), name, name === 'small' ? null : 'zstd', `fetch browser-like ${name}`)
        // Node 20's fetch sends "gzip, deflate" (undici), so gzip by the server's order.
        const own = await nodeFetch(`${s.url}/body/${name}`)
        check(own, name, own.encoding, `fetch default ${name}`)
        if (name !== 'small') assert.ok(own.encoding !== null, 'its own header gets a coding')
      }
    } finally {
      await s.close()
    }
  })

  ;(HAS_CHROMIUM ? test : test.skip)(`${serverName} + headless Chromium: each coding (the server offering only it) and its own header`, async () => {
    const s = await start()
    try {
      const paths: string[] = []
      const expected: Array<[string, string | null]> = []
      for (const name of Object.keys(bodies)) {
        for (const coding of CODINGS) {
          paths.push(`/body/${name}?only=${coding}`)
          expected.push([name, name === 'small' ? null : coding])
        }
        paths.push(`/body/${name}`)
        // Chromium's own header lists zstd (Chromium >= 123): the server's first choice.
        expected.push([name, name === 'small' ? null : 'zstd'])
      }
      const results = await chromiumFetch(s.url, '/page', paths)
      results.forEach((r, i) => {
        const [name, want] = expected[i]!
        const data = bodies[name]!.data
        assert.is(r.status, 200, `${r.path}: status`)
        assert.is(r.encoding, want, `${r.path}: Content-Encoding`)
        assert.is(r.length, data.length, `${r.path}: length`)
        assert.is(r.sha256, sha256(data), `${r.path}: bytes`)
      })
    } finally {
      await s.close()
    }
  })
}

test('encodeResponse over HTTP: an upstream that fails midway aborts the transfer (curl and fetch see an error, never a clean end)', async () => {
  const s = await fetchServer()
  try {
    for (const coding of CODINGS) {
      if (HAS_CURL) {
        let failed = false
        try {
          await curl(`${s.url}/broken?only=${coding}`, coding)
        } catch (error) {
          failed = true
          assert.match(String((error as Error).message), /curl/)
        }
        assert.ok(failed, `curl ${coding}: the transfer must fail`)
      }
      let rejected = false
      try {
        const r = await fetch(`${s.url}/broken?only=${coding}`, { headers: { 'accept-encoding': coding } })
        assert.is(r.headers.get('content-encoding'), coding)
        await r.arrayBuffer()
      } catch {
        rejected = true
      }
      assert.ok(rejected, `fetch ${coding}: the body must error`)
    }
  } finally {
    await s.close()
  }
})

test('encodeResponse over HTTP: a client that goes away cancels the upstream', async () => {
  const s = await fetchServer()
  try {
    const { request } = await import('node:http')
    for (let i = 0; i < 20; i++) {
      const before = endlessCancelled
      await new Promise<void>((resolve, reject) => {
        const req = request(`${s.url}/endless`, { headers: { 'accept-encoding': CODINGS[i % 2 === 0 ? 2 : 0]! } }, (res) => {
          assert.ok(res.headers['content-encoding'])
          res.once('data', () => {
            req.destroy()
            resolve()
          })
        })
        req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)))
        req.end()
      })
      for (let wait = 0; wait < 200 && endlessCancelled === before; wait++) await new Promise((r) => setTimeout(r, 10))
      assert.is(endlessCancelled, before + 1, `request ${i}: the upstream was cancelled`)
    }
  } finally {
    await s.close()
  }
})

test.run()
