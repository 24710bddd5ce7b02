// RFC 9842 end to end in headless Chromium (Debian's, driven by playwright-core): a page
// on http://localhost fetches a dictionary served with `Use-As-Dictionary:
// match="/data/*"`, then /data/... resources. The server checks that those requests
// carry Available-Dictionary (the dictionary's SHA-256) and dcb and dcz in
// Accept-Encoding, and answers with our dcz, our dcb, encodeResponse's own choice
// (through toNodeListener and through the compression() middleware), and plain zstd
// and br for the sizes without the dictionary. Chromium decodes each natively; the
// SHA-256 the page computes must be the server's. Real documents: lib.es5.d.ts of
// TypeScript 5.6 as the dictionary, of TypeScript 5.9 as the body.
//
// No flags: Chromium 130 and newer enable dictionary transport by default, on secure
// contexts only; http://localhost (like 127.0.0.1) is a potentially trustworthy origin
// (W3C Secure Contexts section 3.1), so plain HTTP on loopback qualifies. The
// dictionary must be fresh in the HTTP cache (RFC 9842 section 2.2.1): it is served
// with `Cache-Control: max-age`, and fetched without `cache: 'no-store'`.
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { encodeResponse, prepareDictionary, useAsDictionary, type EncodeResponseOptions } from '../adapters/fetch/index.js'
import { compression, toNodeListener } from '../adapters/node/index.js'
import { releasePair } from './_corpus.js'
import { chromiumEvaluate, HAS_CHROMIUM, listen, PAGE_FETCH, sha256, type BrowserResult } from './_http.js'

const pair = releasePair('lib.es5.d.ts')
if (!HAS_CHROMIUM) console.log('# skipped: Chromium dictionary transport: /usr/bin/chromium is not installed (apt-get install -y chromium)')
else if (!pair) console.log('# skipped: Chromium dictionary transport: the older TypeScript release (a dependency of @arethetypeswrong/cli) is not in node_modules')

const PAGE = '<!doctype html><title>sluice dictionaries</title>'

/** What the server saw of one /data/ request, and how many body bytes it sent. */
interface Seen {
  acceptEncoding: string | null
  availableDictionary: string | null
  dictionaryId: string | null
  contentEncoding: string | null
  sentBytes: number
}

/** A pass-through that counts the bytes sent. */
function counted(response: Response, seen: Seen): Response {
  if (response.body === null) return response
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen.sentBytes += chunk.length
        controller.enqueue(chunk)
      },
    }),
  )
  return new Response(body, { status: response.status, headers: response.headers })
}

test('Chromium sends Available-Dictionary and decodes our dcz, dcb and encodeResponse choice natively', async () => {
  if (!HAS_CHROMIUM || !pair) return
  const dictionary = await prepareDictionary({ bytes: pair.dictionary, id: 'lib.es5 5.6' })
  const seen = new Map<string, Seen>()
  const modes: Record<string, EncodeResponseOptions> = {
    dcz: { dictionaries: [dictionary], encodings: ['dcz'] },
    dcb: { dictionaries: [dictionary], encodings: ['dcb'] },
    auto: { dictionaries: [dictionary] },
    // Without the dictionary, for the sizes.
    zstd: { encodings: ['zstd'] },
    br: { encodings: ['br'] },
  }
  const fetchListener = toNodeListener(async (request) => {
    const url = new URL(request.url)
    if (url.pathname === '/page') return new Response(PAGE, { headers: { 'content-type': 'text/html' } })
    if (url.pathname === '/dictionary.d.ts') {
      const headers = {
        'content-type': 'application/typescript',
        'use-as-dictionary': useAsDictionary({ match: '/data/*', id: dictionary.id }),
        'cache-control': 'max-age=3600',
      }
      // The dictionary itself goes out zstd-encoded; Chromium stores (and hashes) the decoded bytes.
      return encodeResponse(request, new Response(pair.dictionary.slice(), { headers }))
    }
    // Answers whether this request named a dictionary (the page waits for that).
    if (url.pathname === '/data/ready') return new Response(request.headers.has('available-dictionary') ? 'yes' : 'no', { headers: { 'cache-control': 'no-store' } })
    const mode = /^\/data\/(\w+)\/lib\.es5\.d\.ts$/.exec(url.pathname)?.[1]
    if (mode === undefined || !(mode in modes)) return new Response('not found', { status: 404 })
    const s: Seen = {
      acceptEncoding: request.headers.get('accept-encoding'),
      availableDictionary: request.headers.get('available-dictionary'),
      dictionaryId: request.headers.get('dictionary-id'),
      contentEncoding: null,
      sentBytes: 0,
    }
    seen.set(mode, s)
    const encoded = await encodeResponse(request, new Response(pair.body.slice(), { headers: { 'content-type': 'application/typescript', 'cache-control': 'no-store' } }), modes[mode])
    s.contentEncoding = encoded.headers.get('content-encoding')
    return counted(encoded, s)
  })
  // The Express-style path: /data/middleware/ through compression() with the dictionary.
  const middleware = compression({ dictionaries: [dictionary] })
  const server = await listen((req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/data/middleware/')) return fetchListener(req, res)
    const s: Seen = {
      acceptEncoding: req.headers['accept-encoding'] ?? null,
      availableDictionary: (req.headers['available-dictionary'] as string | undefined) ?? null,
      dictionaryId: (req.headers['dictionary-id'] as string | undefined) ?? null,
      contentEncoding: null,
      sentBytes: 0,
    }
    seen.set('middleware', s)
    middleware(req, res, () => {
      res.setHeader('content-type', 'application/typescript')
      res.setHeader('cache-control', 'no-store')
      res.end(Buffer.from(pair.body), () => (s.contentEncoding = (res.getHeader('content-encoding') as string | undefined) ?? null))
    })
  })
  // Loopback under the name localhost (see the top of the file).
  const base = server.url.replace('127.0.0.1', 'localhost')
  try {
    const paths = [...Object.keys(modes), 'middleware'].map((mode) => `/data/${mode}/lib.es5.d.ts`)
    const results = await chromiumEvaluate<{ dictionary: BrowserResult & { ready: number }; data: BrowserResult[] }>(
      base,
      '/page',
      `(async (paths) => {
        ${PAGE_FETCH}
        // Fetched through the HTTP cache. Chromium stores it after the body has been
        // read, asynchronously: wait until a request under /data/ names it.
        const dictionary = await fetched('/dictionary.d.ts', {})
        let ready = 0
        for (let i = 0; i < 100; i++) {
          if ((await (await fetch('/data/ready', { cache: 'no-store' })).text()) === 'yes') {
            ready = i + 1
            break
          }
          await new Promise((r) => setTimeout(r, 50))
        }
        dictionary.ready = ready
        const data = []
        for (const path of paths) data.push(await fetched(path))
        return { dictionary, data }
      })(${JSON.stringify(paths)})`,
    )
    assert.is(results.dictionary.sha256, sha256(pair.dictionary), 'the dictionary as Chromium read it')
    assert.ok(results.dictionary.ready > 0, 'Chromium never sent Available-Dictionary for /data/ready')
    const expectedHash = `:${createHash('sha256').update(pair.dictionary).digest('base64')}:`
    const expectedEncoding: Record<string, string> = { dcz: 'dcz', dcb: 'dcb', auto: 'dcz', zstd: 'zstd', br: 'br', middleware: 'dcz' }
    for (const result of results.data) {
      const mode = result.path.split('/')[2]!
      const s = seen.get(mode)
      assert.ok(s, `${mode}: the server saw the request`)
      assert.is(s!.availableDictionary, expectedHash, `${mode}: Available-Dictionary`)
      assert.is(s!.dictionaryId, '"lib.es5 5.6"', `${mode}: Dictionary-ID`)
      const accepted = s!.acceptEncoding!.split(',').map((t) => t.trim())
      assert.ok(accepted.includes('dcb') && accepted.includes('dcz'), `${mode}: Accept-Encoding ${s!.acceptEncoding}`)
      assert.is(s!.contentEncoding, expectedEncoding[mode], `${mode}: Content-Encoding sent`)
      assert.is(result.status, 200, mode)
      assert.is(result.encoding, expectedEncoding[mode], `${mode}: Content-Encoding seen by the page`)
      assert.is(result.length, pair.body.length, `${mode}: decoded length`)
      assert.is(result.sha256, sha256(pair.body), `${mode}: decoded by Chromium to the same bytes`)
    }
    // 218 KB: dcz about 2.6 KB against zstd's 19 KB, dcb about 1.4 KB against br's 18 KB.
    const sent = (mode: string) => seen.get(mode)!.sentBytes
    assert.ok(sent('dcz') * 4 < sent('zstd'), `dcz ${sent('dcz')} bytes vs zstd ${sent('zstd')}`)
    assert.ok(sent('dcb') * 4 < sent('br'), `dcb ${sent('dcb')} bytes vs br ${sent('br')}`)
    assert.is(sent('auto'), sent('dcz'), 'encodeResponse chose dcz')
    console.log(`# dictionary in use after ${results.dictionary.ready} polls; ${pair.name} ${pair.body.length} bytes sent to Chromium: dcz ${sent('dcz')}, dcb ${sent('dcb')}, zstd ${sent('zstd')}, br ${sent('br')}`)
  } finally {
    await server.close()
  }
})

test.run()
