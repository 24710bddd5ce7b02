// decodeResponse()/decodeBody(): Content-Encoding decoding, against a real local HTTP
// server (node:http on 127.0.0.1, fetched with Node's own fetch, i.e. undici) and
// against Responses built by hand. Bodies are real files encoded by node:zlib and the
// reference `zstd` CLI (Debian package `zstd`; missing -> its cases are skipped).
//
// What Node 20's fetch (undici) does itself, as observed and asserted below: it decodes
// gzip, x-gzip, deflate (zlib and raw) and br, keeping Content-Encoding and
// Content-Length; it knows neither zstd nor identity, and when any listed coding is
// unknown to it, it decodes none of them; more than 5 codings make fetch() reject.
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import * as zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { decodeBody, decodeResponse, MAX_CONTENT_ENCODINGS, parseContentEncoding } from '../adapters/fetch/index.js'
import { CodecError } from '../lib/errors.js'
import { binarySlice } from './_corpus.js'
import { root } from './_fixtures.js'
import { rejection as rejects, thrown as throws } from './_caught.js'

import { requireCli, runCli } from './_cli.js'

const HAS_ZSTD = requireCli('zstd', 'zstd cases')
const zstdTest = HAS_ZSTD ? test : test.skip
const HAS_BROTLI = existsSync(join(root, 'lib/codecs/brotli.ts'))
if (!HAS_BROTLI) console.log('# skipped: decoding br: lib/codecs/brotli.ts is not there yet')
const brTest = HAS_BROTLI ? test : test.skip
const zstdBrTest = HAS_BROTLI && HAS_ZSTD ? test : test.skip

const zstd = (b: Uint8Array, args: string[] = []): Uint8Array => runCli('zstd', ['-q', '-c', ...args], b)
const gzip = (b: Uint8Array): Uint8Array => new Uint8Array(zlib.gzipSync(b))
const deflate = (b: Uint8Array): Uint8Array => new Uint8Array(zlib.deflateSync(b))
const deflateRaw = (b: Uint8Array): Uint8Array => new Uint8Array(zlib.deflateRawSync(b))
const br = (b: Uint8Array): Uint8Array => new Uint8Array(zlib.brotliCompressSync(b))
/** `encode` applied `times` times. */
function repeat(times: number, encode: (b: Uint8Array) => Uint8Array, data: Uint8Array): Uint8Array {
  let out = data
  for (let i = 0; i < times; i++) out = encode(out)
  return out
}

const text = new Uint8Array(readFileSync(join(root, 'streams/codec-stream.ts')))
const json = new Uint8Array(readFileSync(join(root, 'package.json')))
const binary = binarySlice(2_000_000, 200_000)
const samples: Array<[string, Uint8Array]> = [['source', text], ['package.json', json], ['node binary', binary]]

function equal(a: Uint8Array, b: Uint8Array, what: string): void {
  assert.is(a.length, b.length, `${what}: length`)
  assert.ok(Buffer.compare(a, b) === 0, `${what}: bytes differ`)
}

async function bytesOf(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer())
}


/** A Response built by hand, in chunks of `chunk` bytes. */
function handMade(body: Uint8Array, encoding: string, chunk = 1 << 20, init: ResponseInit = {}): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < body.length; i += chunk) c.enqueue(body.slice(i, i + chunk))
      c.close()
    },
  })
  const headers = new Headers(init.headers)
  headers.set('content-encoding', encoding)
  headers.set('content-length', String(body.length))
  return new Response(stream, { ...init, headers })
}

// ---------------------------------------------------------------------------------
// The local server: each path serves one encoded body with its Content-Encoding.

type Route = { encoding: string; body: Uint8Array; status?: number; statusText?: string }
const routes = new Map<string, Route>()
let server: Server
let base = ''

test.before(async () => {
  server = createServer((req, res) => {
    const route = routes.get(req.url ?? '')
    if (!route) {
      res.writeHead(404, { 'content-length': '0' }).end()
      return
    }
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream', 'x-sample': 'kept' }
    if (route.encoding) headers['content-encoding'] = route.encoding
    if (route.status === 204) {
      res.writeHead(204, headers).end()
      return
    }
    headers['content-length'] = String(route.body.length)
    res.writeHead(route.status ?? 200, route.statusText ?? 'OK', headers)
    res.end(req.method === 'HEAD' ? undefined : route.body)
  })
  // Node's fetch keeps a connection for the next request; the server must not close it
  // under the client meanwhile. With Node's 5 s keep-alive timeout, a gap of about 5 s
  // between two requests (a loaded machine, CLIs run in between) raced the client's
  // reuse of the socket: ECONNRESET, 'fetch failed'. The connections end with the suite.
  server.keepAliveTimeout = 0
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

test.after(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())))
})

/** Serves `route` at a fresh path (`label` only names it in the URL). */
function serve(label: string, route: Route): string {
  const path = `/${routes.size}-${encodeURIComponent(label)}`
  routes.set(path, route)
  return base + path
}

/** The raw body as fetch hands it over (no decodeResponse), to assert what undici did. */
async function fetched(url: string): Promise<{ response: Response; raw: Uint8Array }> {
  const first = await fetch(url)
  assert.is(first.status, 200, url)
  const raw = await bytesOf(first)
  return { response: await fetch(url), raw }
}

// ---------------------------------------------------------------------------------
// Through Node's fetch.

test('fetch, gzip / x-gzip / deflate (zlib and raw) / 5 × gzip: undici decoded them; passed through', async () => {
  for (const [name, data] of samples) {
    const cases: Array<[string, string, Uint8Array]> = [
      ['gzip', 'gzip', gzip(data)],
      ['x-gzip', 'x-gzip', gzip(data)],
      ['GZip (case)', 'GZip', gzip(data)],
      ['deflate zlib', 'deflate', deflate(data)],
      ['deflate raw', 'deflate', deflateRaw(data)],
      ['5 × gzip', 'gzip, gzip, gzip, gzip, gzip', repeat(5, gzip, data)],
    ]
    for (const [label, encoding, body] of cases) {
      const url = serve(`/${label}/${name}`, { encoding, body })
      const { response, raw } = await fetched(url)
      equal(raw, data, `${label} ${name}: undici decodes it`)
      assert.is(response.headers.get('content-encoding'), encoding, 'undici keeps the header')
      const decoded = decodeResponse(response)
      assert.is(decoded.headers.get('content-encoding'), null)
      assert.is(decoded.headers.get('content-length'), null)
      assert.is(decoded.headers.get('x-sample'), 'kept')
      equal(await bytesOf(decoded), data, `${label} ${name}`)
    }
    // undici does not know 'identity' either, so with it listed nothing is decoded.
    const url = serve(`identity, gzip/${name}`, { encoding: 'identity, gzip', body: gzip(data) })
    const { response, raw } = await fetched(url)
    equal(raw, gzip(data), `identity, gzip ${name}: undici leaves it`)
    equal(await bytesOf(decodeResponse(response)), data, `identity, gzip ${name}`)
  }
})

zstdTest('fetch, zstd: undici leaves it; decoded here (whole binary, text, package.json)', async () => {
  for (const [name, data] of samples) {
    const body = zstd(data)
    const url = serve(`/zstd/${name}`, { encoding: 'zstd', body })
    const { response, raw } = await fetched(url)
    equal(raw, body, 'undici does not decode zstd on Node 20')
    equal(await bytesOf(decodeResponse(response)), data, `zstd ${name}`)
  }
})

zstdTest('fetch, stacks with zstd: undici decodes none of the layers; all decoded here, last listed first', async () => {
  const cases: Array<[string, Uint8Array]> = [
    ['gzip, zstd', zstd(gzip(text))],
    ['zstd, gzip', gzip(zstd(text))],
    ['deflate, zstd', zstd(deflate(text))],
    ['deflate, zstd, gzip', gzip(zstd(deflateRaw(text)))],
    ['zstd, identity, x-gzip', gzip(zstd(text))],
    ['zstd, zstd, zstd, zstd, zstd', repeat(5, zstd, text)],
  ]
  for (const [encoding, body] of cases) {
    const url = serve(`/stack/${encoding}`, { encoding, body })
    const { response, raw } = await fetched(url)
    equal(raw, body, `${encoding}: undici leaves the whole stack`)
    equal(await bytesOf(decodeResponse(response)), text, encoding)
  }
})

test('fetch, br: undici decoded it; skip: [\'br\'] passes it, without skip the brotli decoder rejects the plain text', async () => {
  const url = serve('/br', { encoding: 'br', body: br(text) })
  const { response, raw } = await fetched(url)
  equal(raw, text, 'undici decodes br')
  equal(await bytesOf(decodeResponse(response, { skip: ['br'] })), text, 'skip br')
  // Stacked: 'gzip, br' is all decoded by undici; gzip's missing magic is seen.
  const url2 = serve('/gzip-br', { encoding: 'gzip, br', body: br(gzip(text)) })
  equal(await bytesOf(decodeResponse(await fetch(url2), { skip: ['BR'] })), text, 'gzip, br with skip')
  const error = await rejects(bytesOf(decodeResponse(await fetch(url))))
  assert.ok(error instanceof Error, 'without skip: an error, not wrong bytes')
})

zstdBrTest('fetch, \'br, zstd\': undici decodes neither; both decoded here', async () => {
  const url = serve('/br-zstd', { encoding: 'br, zstd', body: zstd(br(binary)) })
  const { response, raw } = await fetched(url)
  assert.is(raw.length, zstd(br(binary)).length)
  equal(await bytesOf(decodeResponse(response)), binary, 'br, zstd')
})

test('fetch, 6 codings: Node\'s fetch rejects; a hand-made Response errors here before reading', async () => {
  const encoding = 'gzip, gzip, gzip, gzip, gzip, gzip'
  const body = repeat(6, gzip, text)
  const url = serve('/six', { encoding, body })
  const fetchError = (await rejects(fetch(url))) as Error
  assert.match(String((fetchError.cause as Error | undefined)?.message ?? fetchError.message), /too many content-encodings/)
  const response = handMade(body, encoding)
  const error = throws(() => decodeResponse(response)) as CodecError
  assert.instance(error, CodecError)
  assert.is(error.code, 'LIMIT_EXCEEDED')
  assert.match(error.message, /6 content codings/)
  assert.is(response.bodyUsed, false)
  assert.is(MAX_CONTENT_ENCODINGS, 5)
  // identity counts as a listed coding, as in undici.
  assert.is((throws(() => decodeBody(handMade(gzip(text), 'identity, identity, identity, identity, identity, gzip'))) as CodecError).code, 'LIMIT_EXCEEDED')
})

test('fetch, unknown coding: undici passes the body; UNSUPPORTED here before any body is read', async () => {
  const url = serve('/unknown', { encoding: 'gzip, compress', body: gzip(text) })
  const { response, raw } = await fetched(url)
  equal(raw, gzip(text), 'undici decodes nothing when a coding is unknown')
  const error = throws(() => decodeResponse(response)) as CodecError
  assert.instance(error, CodecError)
  assert.is(error.code, 'UNSUPPORTED')
  assert.match(error.message, /'compress'/)
  assert.is(response.bodyUsed, false)
  assert.is(response.body!.locked, false)
  await response.body!.cancel()
})

test('fetch, HEAD and 204: returned as they are; status and statusText kept', async () => {
  const url = serve('/head', { encoding: 'gzip', body: gzip(text) })
  const head = await fetch(url, { method: 'HEAD' })
  assert.is(decodeResponse(head), head)
  const url204 = serve('/204', { encoding: 'gzip', body: new Uint8Array(0), status: 204 })
  const empty = await fetch(url204)
  assert.is(decodeResponse(empty), empty)
  const url201 = serve('/201', { encoding: 'gzip', body: gzip(json), status: 201, statusText: 'Made Here' })
  const made = decodeResponse(await fetch(url201))
  assert.is(made.status, 201)
  assert.is(made.statusText, 'Made Here')
  assert.is(made.headers.get('content-type'), 'application/octet-stream')
  equal(await bytesOf(made), json, '201')
})

// ---------------------------------------------------------------------------------
// Hand-made Responses: exact control over what is still encoded.

test('hand-made: gzip, x-gzip, deflate (zlib and raw), 1-byte and 1000-byte chunks', async () => {
  for (const [name, data] of samples) {
    const cases: Array<[string, Uint8Array]> = [
      ['gzip', gzip(data)],
      ['X-GZIP', gzip(data)],
      ['deflate', deflate(data)],
      ['deflate', deflateRaw(data)],
      ['deflate', new Uint8Array(zlib.deflateRawSync(data, { level: 0 }))], // stored blocks
      ['deflate', new Uint8Array(zlib.deflateSync(data, { level: 1, windowBits: 9 }))],
    ]
    for (const [encoding, body] of cases) {
      equal(await bytesOf(decodeResponse(handMade(body, encoding, 1000))), data, `${encoding} ${name}`)
    }
  }
  equal(await bytesOf(decodeResponse(handMade(deflateRaw(json), 'deflate', 1))), json, 'raw deflate, 1-byte chunks')
  equal(await bytesOf(decodeResponse(handMade(deflate(json), 'deflate', 1))), json, 'zlib, 1-byte chunks')
  equal(await bytesOf(decodeResponse(handMade(gzip(json), 'gzip', 1))), json, 'gzip, 1-byte chunks')
})

zstdTest('hand-made: zstd (with a skippable frame first), stacks, 1-byte chunks', async () => {
  const skip = new Uint8Array([0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4])
  const withSkip = new Uint8Array([...skip, ...zstd(json)])
  equal(await bytesOf(decodeResponse(handMade(withSkip, 'zstd', 1))), json, 'skippable + zstd, 1-byte chunks')
  equal(await bytesOf(decodeResponse(handMade(zstd(binary), 'zstd', 4096))), binary, 'zstd binary')
  equal(await bytesOf(decodeResponse(handMade(gzip(zstd(deflate(text))), 'deflate, zstd, gzip', 333))), text, 'three layers')
  equal(await bytesOf(decodeResponse(handMade(gzip(zstd(deflate(text))), ' Deflate ,, ZSTD,gzip ', 333))), text, 'spacing, case, empty element')
})

zstdTest('already decoded: a layer without its magic passes, and so do the inner layers', async () => {
  // 'deflate, zstd, gzip' where the runtime undid all three: the body is plain.
  equal(await bytesOf(decodeResponse(handMade(text, 'deflate, zstd, gzip', 500))), text, 'plain body, all layers')
  // 'zstd' on a plain body (a runtime with zstd support).
  equal(await bytesOf(decodeResponse(handMade(binary, 'zstd'))), binary, 'plain zstd')
  // 'br, gzip' with gzip undone: br, inner and without a magic number, is taken as undone too.
  equal(await bytesOf(decodeResponse(handMade(json, 'br, gzip'))), json, 'br inside an undone gzip')
  // deflate on plain content of many kinds: not zlib, not raw deflate.
  for (const [name, data] of samples) {
    equal(await bytesOf(decodeResponse(handMade(data, 'deflate', 100))), data, `plain ${name} as deflate`)
  }
  for (const s of ['OK', '{}', '[1,2,3]', '<!doctype html>', 'x', '\u0000\u0001']) {
    const data = new TextEncoder().encode(s)
    equal(await bytesOf(decodeResponse(handMade(data, 'deflate'))), data, `plain ${JSON.stringify(s)} as deflate`)
    equal(await bytesOf(decodeResponse(handMade(data, 'gzip'))), data, `plain ${JSON.stringify(s)} as gzip`)
  }
  // An empty body with a coding: empty.
  equal(await bytesOf(decodeResponse(handMade(new Uint8Array(0), 'gzip, br'))), new Uint8Array(0), 'empty body')
})

zstdTest('zstd windows over 8 MiB are refused (RFC 9659 §3); maxWindowLog lifts it', async () => {
  const wide = zstd(binary, ['--long=25']) // frame header asks for a 32 MiB window
  const error = (await rejects(bytesOf(decodeResponse(handMade(wide, 'zstd'))))) as CodecError
  assert.instance(error, CodecError)
  assert.is(error.code, 'LIMIT_EXCEEDED')
  assert.is(error.format, 'zstd')
  equal(await bytesOf(decodeResponse(handMade(wide, 'zstd'), { maxWindowLog: 25 })), binary, 'maxWindowLog 25')
})

brTest('hand-made: br, and br inside gzip', async () => {
  equal(await bytesOf(decodeResponse(handMade(br(binary), 'br', 7000))), binary, 'br binary')
  equal(await bytesOf(decodeResponse(handMade(gzip(br(text)), 'br, gzip', 1))), text, 'br, gzip in 1-byte chunks')
})

test('maxOutputBytes: per layer and on the final output', async () => {
  // A gzip bomb: 32 MiB of zeros in ~32 KB.
  const zeros = new Uint8Array(32 << 20)
  const bomb = gzip(zeros)
  const one = (await rejects(bytesOf(decodeResponse(handMade(bomb, 'gzip'), { maxOutputBytes: 1 << 20 })))) as CodecError
  assert.instance(one, CodecError)
  assert.is(one.code, 'LIMIT_EXCEEDED')
  // Nested: the outer layer is small (the inner bomb is ~32 KB), the inner one is not.
  const nested = (await rejects(bytesOf(decodeResponse(handMade(gzip(bomb), 'gzip, gzip'), { maxOutputBytes: 1 << 20 })))) as CodecError
  assert.is(nested.code, 'LIMIT_EXCEEDED')
  // Already decoded by the runtime: the passed-through body is bounded too.
  const plain = (await rejects(bytesOf(decodeResponse(handMade(binary, 'gzip'), { maxOutputBytes: 100_000 })))) as CodecError
  assert.is(plain.code, 'LIMIT_EXCEEDED')
  // Exactly at the limit is fine.
  equal(await bytesOf(decodeResponse(handMade(gzip(text), 'gzip'), { maxOutputBytes: text.length })), text, 'at the limit')
})

test('signal aborts the decoding body; cancel reaches the source', async () => {
  let cancelled: unknown = null
  const bomb = gzip(new Uint8Array(16 << 20))
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bomb.slice(0, 1000))
    },
    pull(c) {
      // Hands out the rest slowly, one small chunk per pull, and never closes.
      c.enqueue(bomb.slice(1000, 2000))
    },
    cancel(reason) {
      cancelled = reason
    },
  })
  const controller = new AbortController()
  const response = new Response(source, { headers: { 'content-encoding': 'gzip' } })
  const reader = decodeResponse(response, { signal: controller.signal }).body!.getReader()
  await reader.read()
  const reason = new Error('user aborted')
  controller.abort(reason)
  assert.is(await rejects(reader.read()), reason)
  for (let i = 0; i < 20 && cancelled === null; i++) await new Promise((r) => setImmediate(r))
  assert.is(cancelled, reason, 'the response body was cancelled with the reason')
})

test('parseContentEncoding and bad input', () => {
  assert.equal(parseContentEncoding('gzip, ZSTD ,, br'), ['gzip', 'zstd', 'br'])
  assert.equal(parseContentEncoding(null), [])
  assert.is((throws(() => decodeBody(handMade(text, 'gzip'), { skip: 'br' as unknown as string[] })) as CodecError).code, 'INVALID_OPTION')
  assert.is((throws(() => decodeBody(handMade(text, 'gzip'), { maxOutputBytes: -5 })) as CodecError).code, 'INVALID_OPTION')
  const used = new Response('x', { headers: { 'content-encoding': 'gzip' } })
  void used.text()
  assert.is((throws(() => decodeResponse(used)) as CodecError).code, 'INVALID_OPTION')
  // No Content-Encoding: the same Response.
  const plain = new Response('x')
  assert.is(decodeResponse(plain), plain)
})

test.run()
