// sluice/hono's compress(): through hono's own app.request(), beside hono/compress on the
// same app (same headers where both compress), and on a running server (hono's Node
// adapter on 127.0.0.1) fetched by curl --compressed, Node's fetch and headless
// Chromium. Server-sent events from hono's streamSSE() reach the client one by one:
// each event is decoded (node:zlib's streaming decoders) before the next is written.
import { request as httpRequest } from 'node:http'
import * as zlib from 'node:zlib'
import { getRequestListener } from '@hono/node-server'
import { Hono } from 'hono'
import { compress as honoCompress } from 'hono/compress'
import { streamSSE } from 'hono/streaming'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { compress } from '../adapters/hono/index.js'
import { decodeResponse, prepareDictionary, type ContentCoding } from '../adapters/fetch/index.js'
import { runCli } from './_cli.js'
import { filesCorpus, releasePair } from './_corpus.js'
import { root } from './_fixtures.js'
import { BROWSER_ACCEPT, chromiumFetch, curl, HAS_CHROMIUM, HAS_CURL, HAS_ZSTD, listen, nodeFetch, sha256 } from './_http.js'

const CODINGS: ContentCoding[] = ['zstd', 'br', 'gzip', 'deflate']
const text = new TextDecoder().decode(filesCorpus(root + '/adapters', 150_000))
const json = JSON.stringify({ rows: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 3 === 0 })) })

function decodeHttp(coding: string | null, body: Uint8Array): Uint8Array {
  if (coding === null) return body
  if (coding === 'gzip') return zlib.gunzipSync(body)
  if (coding === 'deflate') return zlib.inflateSync(body)
  if (coding === 'br') return zlib.brotliDecompressSync(body)
  throw new Error(`no decoder for ${coding} here`)
}

function app(middleware = compress()) {
  const a = new Hono()
  a.use(middleware)
  a.get('/text', (c) => c.text(text))
  a.get('/json', (c) => c.json(JSON.parse(json)))
  a.get('/etag', (c) => {
    c.header('ETag', '"v1"')
    c.header('Vary', 'Origin')
    return c.text(text)
  })
  // hono's c.text() sets no Content-Length; a length is known where the handler gives it.
  a.get('/small', (c) => c.body('tiny', 200, { 'Content-Type': 'text/plain', 'Content-Length': '4' }))
  a.get('/sized', (c) => c.body(text, 200, { 'Content-Type': 'text/plain', 'Content-Length': String(new TextEncoder().encode(text).length) }))
  a.get('/png', (c) => c.body(text, 200, { 'Content-Type': 'image/png' }))
  a.get('/page', (c) => c.html('<!doctype html><title>hono</title>'))
  return a
}

test('app.request(): each coding by Accept-Encoding; bodies byte-identical; headers', async () => {
  const a = app()
  for (const coding of CODINGS) {
    for (const path of ['/text', '/json']) {
      const res = await a.request(path, { headers: { 'Accept-Encoding': coding } })
      assert.is(res.headers.get('content-encoding'), coding, `${path} ${coding}`)
      assert.is(res.headers.get('content-length'), null)
      assert.is(res.headers.get('vary'), 'Accept-Encoding')
      const body = new Uint8Array(await res.arrayBuffer())
      if (coding === 'zstd') {
        if (!HAS_ZSTD) continue
        assert.is(new TextDecoder().decode(runCli('zstd', ['-d', '-c', '-q'], body)), path === '/text' ? text : json)
      } else {
        assert.is(new TextDecoder().decode(decodeHttp(coding, body)), path === '/text' ? text : json)
      }
    }
  }
  const browser = await a.request('/text', { headers: { 'Accept-Encoding': BROWSER_ACCEPT } })
  assert.is(browser.headers.get('content-encoding'), 'zstd')
  assert.is((await a.request('/text')).headers.get('content-encoding'), null, 'no Accept-Encoding: not encoded')
  assert.is((await a.request('/small', { headers: { 'Accept-Encoding': 'gzip' } })).headers.get('content-encoding'), null, 'below the threshold')
  assert.is((await a.request('/png', { headers: { 'Accept-Encoding': 'gzip' } })).headers.get('content-encoding'), null, 'images are not compressed')
})

test('a body that ends within minBytes is left alone without Content-Length; longer streams are compressed', async () => {
  const a = new Hono()
  a.use(compress())
  a.get('/twenty', () => new Response('twenty bytes of text', { headers: { 'content-type': 'text/plain' } }))
  a.get('/chunked-small', () => new Response(new Blob(['twenty ', 'bytes ', 'of text']).stream(), { headers: { 'content-type': 'text/plain' } }))
  a.get('/chunked-large', () => new Response(new Blob([text.slice(0, 500), text.slice(500)]).stream(), { headers: { 'content-type': 'text/plain' } }))
  for (const path of ['/twenty', '/chunked-small']) {
    const res = await a.request(path, { headers: { 'Accept-Encoding': 'gzip' } })
    assert.is(res.headers.get('content-encoding'), null, path)
    assert.is(await res.text(), 'twenty bytes of text')
  }
  const large = await a.request('/chunked-large', { headers: { 'Accept-Encoding': 'gzip' } })
  assert.is(large.headers.get('content-encoding'), 'gzip')
  assert.is(new TextDecoder().decode(decodeHttp('gzip', new Uint8Array(await large.arrayBuffer()))), text, 'the bytes read ahead are replayed in order')
})

test('a drop-in for hono/compress: its options, and the same headers where both compress', async () => {
  for (const path of ['/text', '/json', '/etag']) {
    const ours = await app(compress({ encoding: 'gzip' })).request(path, { headers: { 'Accept-Encoding': 'gzip, deflate' } })
    const theirs = await app(honoCompress({ encoding: 'gzip' })).request(path, { headers: { 'Accept-Encoding': 'gzip, deflate' } })
    for (const h of ['content-encoding', 'content-length', 'vary', 'etag', 'content-type']) {
      assert.is(ours.headers.get(h), theirs.headers.get(h), `${path}: ${h}`)
    }
    assert.is(zlib.gunzipSync(new Uint8Array(await ours.arrayBuffer())).toString(), zlib.gunzipSync(new Uint8Array(await theirs.arrayBuffer())).toString())
  }
  const etag = await app().request('/etag', { headers: { 'Accept-Encoding': 'br' } })
  assert.is(etag.headers.get('etag'), 'W/"v1"')
  assert.is(etag.headers.get('vary'), 'Origin, Accept-Encoding')
  // threshold and contentTypeFilter as in hono/compress.
  const big = await app(compress({ threshold: 1_000_000 })).request('/sized', { headers: { 'Accept-Encoding': 'gzip' } })
  assert.is(big.headers.get('content-encoding'), null)
  const theirsBig = await app(honoCompress({ threshold: 1_000_000 })).request('/sized', { headers: { 'Accept-Encoding': 'gzip' } })
  assert.is(theirsBig.headers.get('content-encoding'), null)
  const onlyJson = app(compress({ contentTypeFilter: /^application\/json/ }))
  assert.is((await onlyJson.request('/text', { headers: { 'Accept-Encoding': 'gzip' } })).headers.get('content-encoding'), null)
  assert.is((await onlyJson.request('/json', { headers: { 'Accept-Encoding': 'gzip' } })).headers.get('content-encoding'), 'gzip')
  const fn = app(compress({ contentTypeFilter: (t) => t.startsWith('image/') }))
  assert.is((await fn.request('/png', { headers: { 'Accept-Encoding': 'zstd' } })).headers.get('content-encoding'), 'zstd')
})

/** An SSE app whose handler writes event k only once the client has seen event k-1. */
function sseApp(options: Parameters<typeof compress>[0], seen: (k: number) => Promise<void>, count: number) {
  const a = new Hono()
  a.use(compress(options))
  a.get('/events', (c) =>
    streamSSE(c, async (stream) => {
      for (let k = 0; k < count; k++) {
        await stream.writeSSE({ id: String(k), event: 'tick', data: JSON.stringify({ k, pad: 'x'.repeat(k * 50) }) })
        // A deadline against a hang, not a measurement: without flushing, event k never
        // reaches the client and this wait would last forever.
        let timer: NodeJS.Timeout | undefined
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 30_000)))
        const got = await Promise.race([seen(k).then(() => 'seen' as const), late])
        clearTimeout(timer)
        if (got === 'late') {
          await stream.writeSSE({ event: 'error', data: `event ${k} did not reach the client` })
          return
        }
      }
    }),
  )
  return a
}

for (const [coding, options] of [
  ['gzip', {}],
  ['deflate', {}],
  ['br', { engines: { br: 'node' } }],
] as const) {
  test(`SSE behind compress() on a running server: each event decodes (${coding}) before the next is written`, async () => {
    const count = 8
    const waiters: Array<() => void> = []
    const arrived: Array<Promise<void>> = Array.from({ length: count }, (_, k) => new Promise<void>((resolve) => (waiters[k] = resolve)))
    const s = await listen(getRequestListener(sseApp(options, (k) => arrived[k]!, count).fetch))
    try {
      const decoded = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(`${s.url}/events`, { headers: { 'accept-encoding': coding } }, (res) => {
          try {
            assert.is(res.headers['content-encoding'], coding)
            assert.match(String(res.headers['content-type']), /text\/event-stream/)
          } catch (e) {
            reject(e)
            return
          }
          const decoder = coding === 'gzip' ? zlib.createGunzip() : coding === 'deflate' ? zlib.createInflate() : zlib.createBrotliDecompress()
          let all = ''
          decoder.on('data', (chunk: Buffer) => {
            all += chunk.toString()
            for (let k = 0; k < count; k++) if (all.includes(`data: {"k":${k},`) && all.includes(`id: ${k}\n\n`)) waiters[k]!()
          })
          decoder.on('end', () => resolve(all))
          decoder.on('error', reject)
          res.pipe(decoder)
        })
        req.on('error', reject)
        req.end()
      })
      for (let k = 0; k < count; k++) assert.ok(decoded.includes(`event: tick\ndata: {"k":${k},"pad":"${'x'.repeat(k * 50)}"}\nid: ${k}\n\n`), `event ${k}`)
    } finally {
      await s.close()
    }
  })
}

test('SSE to a br-only client: brotli, flushed per event (BROTLI_OPERATION_FLUSH)', async () => {
  const a = sseApp({}, async () => {}, 3)
  const res = await a.request('/events', { headers: { 'Accept-Encoding': 'br' } })
  assert.is(res.headers.get('content-encoding'), 'br')
  assert.match(zlib.brotliDecompressSync(new Uint8Array(await res.arrayBuffer())).toString(), /id: 2/)
  const zstd = await a.request('/events', { headers: { 'Accept-Encoding': BROWSER_ACCEPT } })
  assert.is(zstd.headers.get('content-encoding'), 'zstd')
  await zstd.arrayBuffer()
})

test('a running hono server: curl --compressed and Node fetch, each coding forced', async () => {
  const s = await listen(getRequestListener(app().fetch))
  try {
    for (const coding of CODINGS) {
      for (const [path, body] of [['/text', text], ['/json', json]] as const) {
        if (HAS_CURL) {
          const got = await curl(`${s.url}${path}`, coding)
          assert.is(got.encoding, coding, `curl ${coding} ${path}`)
          assert.is(new TextDecoder().decode(got.body), body, `curl ${coding} ${path}`)
        }
        if (coding !== 'zstd' || HAS_ZSTD) {
          const got = await nodeFetch(`${s.url}${path}`, coding)
          assert.is(got.encoding, coding, `fetch ${coding} ${path}`)
          assert.is(new TextDecoder().decode(got.body), body, `fetch ${coding} ${path}`)
        }
      }
    }
  } finally {
    await s.close()
  }
})

;(HAS_CHROMIUM ? test : test.skip)('a running hono server: headless Chromium, each coding (compress({ encoding })) and its own header', async () => {
  const a = new Hono()
  for (const coding of [...CODINGS, 'all'] as const) {
    const sub = new Hono()
    sub.use(coding === 'all' ? compress() : compress({ encoding: coding }))
    sub.get('/text', (c) => c.text(text))
    sub.get('/json', (c) => c.json(JSON.parse(json)))
    a.route(`/${coding}`, sub)
  }
  a.get('/page', (c) => c.html('<!doctype html><title>hono</title>'))
  const s = await listen(getRequestListener(a.fetch))
  try {
    const paths = [...CODINGS, 'all'].flatMap((c) => [`/${c}/text`, `/${c}/json`])
    const results = await chromiumFetch(s.url, '/page', paths)
    for (const r of results) {
      const [, coding, what] = r.path.split('/')
      const body = new TextEncoder().encode(what === 'text' ? text : json)
      assert.is(r.encoding, coding === 'all' ? 'zstd' : coding, `${r.path}: Content-Encoding`)
      assert.is(r.sha256, sha256(body), `${r.path}: bytes`)
    }
  } finally {
    await s.close()
  }
})

const release = releasePair('lib.es5.d.ts')
if (!release) console.log('# skipped: hono dictionary case: the older TypeScript release (a dependency of @arethetypeswrong/cli) is not in node_modules')

test('compress({ dictionaries }): dcz and dcb deltas for a request naming the dictionary, the usual codings otherwise', async () => {
  if (!release) return
  const dictionary = await prepareDictionary(release.dictionary)
  const a = new Hono()
  a.use(compress({ dictionaries: [dictionary] }))
  a.get('/app.js', (c) => c.body(release.body.slice().buffer, 200, { 'Content-Type': 'application/javascript' }))
  for (const [accept, expected] of [
    ['gzip, br, zstd, dcb, dcz', 'dcz'],
    ['gzip, br, dcb', 'dcb'],
  ] as const) {
    const res = await a.request('/app.js', { headers: { 'Accept-Encoding': accept, 'Available-Dictionary': dictionary.hash } })
    assert.is(res.headers.get('content-encoding'), expected, accept)
    assert.is(res.headers.get('vary'), 'Accept-Encoding, Available-Dictionary')
    const encoded = new Uint8Array(await res.clone().arrayBuffer())
    assert.ok(encoded.length * 20 < release.body.length, `${expected}: ${encoded.length} bytes for ${release.body.length}`)
    const decoded = new Uint8Array(await decodeResponse(res, { dictionaries: [release.dictionary] }).arrayBuffer())
    assert.ok(Buffer.compare(decoded, release.body) === 0, `${expected} decodes to the body`)
  }
  // Another hash, or none: the usual negotiation, still varying on the dictionary header.
  for (const headers of [{ 'Accept-Encoding': 'br, dcz' } as Record<string, string>, { 'Accept-Encoding': 'br, dcz', 'Available-Dictionary': ':' + Buffer.alloc(32, 7).toString('base64') + ':' }]) {
    const res = await a.request('/app.js', { headers })
    assert.is(res.headers.get('content-encoding'), 'br')
    assert.is(res.headers.get('vary'), 'Accept-Encoding, Available-Dictionary')
    assert.ok(Buffer.compare(zlib.brotliDecompressSync(new Uint8Array(await res.arrayBuffer())), release.body) === 0)
  }
})

test.run()
