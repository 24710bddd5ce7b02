// encodeResponse() and its negotiation (RFC 9110 §12.5.3), on Requests and Responses
// built by hand: which coding is chosen, what is left alone, the headers, streaming and
// flushing, bad upstreams and clients that go away. Encoded bodies are decoded with
// node:zlib and the reference `zstd` CLI (missing -> those cases use our decoder only).
// The real clients (curl, Node's fetch, Chromium) are in encode-response-clients.test.ts.
import * as zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { encodeResponse, isCompressible, negotiate, parseAcceptEncoding, type ContentCoding } from '../adapters/fetch/index.js'
import { CodecError } from '../lib/errors.js'
import { rejection } from './_caught.js'
import { concatBytes } from './_bytes.js'
import { cliOutput, hasCli, runCli } from './_cli.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'

const HAS_ZSTD = hasCli('zstd')
if (!HAS_ZSTD) console.log('# skipped: zstd bodies are checked with our decoder only: the zstd CLI is not installed (apt-get install -y zstd)')

const text = new Uint8Array(filesCorpus(root + '/lib', 200_000))
const ORDER: ContentCoding[] = ['zstd', 'br', 'gzip', 'deflate']

/** Decodes an HTTP body with decoders that are not ours. */
function decodeHttp(coding: string | null, body: Uint8Array): Uint8Array {
  switch (coding) {
    case null:
      return body
    case 'gzip':
      return zlib.gunzipSync(body)
    case 'deflate':
      return zlib.inflateSync(body)
    case 'br':
      return zlib.brotliDecompressSync(body)
    case 'zstd': {
      if (!HAS_ZSTD) throw new Error('no zstd CLI')
      return runCli('zstd', ['-d', '-c', '-q'], body)
    }
    default:
      throw new Error(`unexpected coding ${coding}`)
  }
}

const req = (headers: Record<string, string> = {}, method = 'GET') => new Request('http://127.0.0.1/x', { method, headers })
const res = (body: BodyInit | null = text, headers: Record<string, string> = { 'content-type': 'text/plain' }, status = 200) => new Response(body, { status, headers })
const bytesOf = async (r: Response) => new Uint8Array(await r.arrayBuffer())

test('negotiate: q-values, *, identity, q=0, server order on ties (RFC 9110 §12.5.3)', () => {
  const table: Array<[string | null, ContentCoding | null]> = [
    [null, null], // no field: sent as is
    ['', null], // empty: no coding wanted
    ['gzip, deflate, br, zstd', 'zstd'], // Chromium's header: all weigh 1, server order
    ['gzip, deflate, br', 'br'], // Node 20's fetch
    ['gzip;q=1.0, identity; q=0.5, *;q=0', 'gzip'], // RFC 9110 example
    ['br;q=0.5, gzip;q=0.8', 'gzip'], // the higher weight wins over server order
    ['*', 'zstd'],
    ['*;q=0.5, gzip', 'gzip'],
    ['*, zstd;q=0', 'br'], // explicit q=0 excludes even with *
    ['gzip;q=0, deflate;q=0', null],
    ['identity', null],
    ['gzip;q=0.5, identity', null], // the client prefers no coding
    ['GZIP', 'gzip'], // case-insensitive
    ['x-gzip', 'gzip'], // §8.4.1.3
    ['compress, sdch', null], // codings not offered
    ['gzip;q=2, deflate', 'deflate'], // a weight outside the grammar drops the element
    ['gzip;q=0.001', 'gzip'],
    [', ,gzip,', 'gzip'], // empty list elements
    ['br;q=0.9, br;q=0.1, gzip;q=0.5', 'br'],
  ]
  for (const [header, want] of table) assert.is(negotiate(header, ORDER), want, JSON.stringify(header))
  assert.is(negotiate('gzip, br', ['gzip', 'br']), 'gzip', 'the server order decides ties')
  assert.equal(parseAcceptEncoding('gzip;q=0.5;level=1, br'), [{ coding: 'gzip', q: 0.5 }, { coding: 'br', q: 1 }])
})

for (const coding of ORDER) {
  ;(coding === 'zstd' && !HAS_ZSTD ? test.skip : test)(`encodeResponse: ${coding} when asked for; body byte-identical; headers`, async () => {
    const out = await encodeResponse(req({ 'accept-encoding': coding }), res(text, { 'content-type': 'text/plain', 'content-length': String(text.length), etag: '"abc"', vary: 'Origin' }))
    assert.is(out.headers.get('content-encoding'), coding)
    assert.is(out.headers.get('content-length'), null)
    assert.is(out.headers.get('etag'), 'W/"abc"')
    assert.is(out.headers.get('vary'), 'Origin, Accept-Encoding')
    assert.is(out.headers.get('content-type'), 'text/plain')
    const body = await bytesOf(out)
    assert.ok(body.length < text.length / 2, `${coding} compresses`)
    assert.is(Buffer.compare(decodeHttp(coding, body), text), 0)
  })
}

test('encodeResponse leaves alone what it must not or need not encode', async () => {
  const ae = { 'accept-encoding': 'gzip' }
  const cases: Array<[string, Request, Response]> = [
    ['encoded already', req(ae), res(text, { 'content-encoding': 'br' })],
    ['no-transform', req(ae), res(text, { 'cache-control': 'public, no-transform' })],
    ['204', req(ae), new Response(null, { status: 204 })],
    ['304', req(ae), new Response(null, { status: 304, headers: { etag: '"x"' } })],
    ['HEAD', req(ae, 'HEAD'), res()],
    ['206', req(ae), res(text, { 'content-range': 'bytes 0-9/100' }, 206)],
    ['Range request', req({ ...ae, range: 'bytes=0-99' }), res()],
    ['short', req(ae), res('hello', { 'content-type': 'text/plain', 'content-length': '5' })],
    ['image', req(ae), res(text, { 'content-type': 'image/png' })],
    ['video', req(ae), res(text, { 'content-type': 'video/mp4' })],
    ['font', req(ae), res(text, { 'content-type': 'font/woff2' })],
    ['archive', req(ae), res(text, { 'content-type': 'application/zip' })],
  ]
  for (const [name, request, response] of cases) assert.is(await encodeResponse(request, response), response, name)
  // The predicates.
  assert.ok(isCompressible('image/svg+xml; charset=utf-8'))
  assert.ok(isCompressible('application/json'))
  assert.ok(isCompressible(null))
  assert.not.ok(isCompressible('audio/ogg'))
  assert.not.ok(isCompressible('application/x-7z-compressed'))
  const mine = await encodeResponse(req(ae), res(text, { 'content-type': 'image/png' }), { compressible: (t) => t === 'image/png' })
  assert.is(mine.headers.get('content-encoding'), 'gzip')
  assert.is((await encodeResponse(req(ae), res('hello', { 'content-length': '5' }), { minBytes: 0 })).headers.get('content-encoding'), 'gzip')
})

/** A body of `parts` (each a chunk), of unknown length; `reads()` counts the chunks taken. */
function parts(chunks: Uint8Array[]) {
  let i = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!)
      else controller.close()
    },
  }, { highWaterMark: 0 })
  return { stream, reads: () => i }
}

test('small bodies: one that ends within minBytes is sent as it is, with or without Content-Length', async () => {
  const ae = { 'accept-encoding': 'gzip, br, zstd' }
  const twenty = Buffer.from('twenty bytes of text')
  // The case: a Response made from a string has no Content-Length header.
  const cases: Array<[string, () => Response, Uint8Array]> = [
    ['a string, no Content-Length', () => new Response(twenty.toString(), { headers: { 'content-type': 'text/plain' } }), twenty],
    ['a string with Content-Length', () => res(twenty.toString(), { 'content-type': 'text/plain', 'content-length': '20' }), twenty],
    ['a stream of 3 chunks, no Content-Length', () => res(parts([text.subarray(0, 300), text.subarray(300, 600), text.subarray(600, 1000)]).stream), text.subarray(0, 1000)],
    ['a stream of minBytes - 1', () => res(parts([text.subarray(0, 1023)]).stream), text.subarray(0, 1023)],
    ['an empty stream', () => res(parts([]).stream), new Uint8Array(0)],
  ]
  for (const [name, make, bytes] of cases) {
    const out = await encodeResponse(req(ae), make())
    assert.is(out.headers.get('content-encoding'), null, name)
    assert.is(out.headers.get('content-length'), String(bytes.length), name)
    assert.is(out.headers.get('vary'), null, `${name}: not eligible, as a known short length never was`)
    assert.is(Buffer.compare(await bytesOf(out), bytes), 0, name)
  }
  // At minBytes and above, or with minBytes 0, it is encoded, its bytes all there.
  for (const [name, chunks, options] of [
    ['exactly minBytes', [text.subarray(0, 1024)], {}],
    ['past minBytes in the second chunk', [text.subarray(0, 1000), text.subarray(1000, 5000)], {}],
    ['minBytes 0', [text.subarray(0, 20)], { minBytes: 0 }],
    ['minBytes 10', [text.subarray(0, 5), text.subarray(5, 20)], { minBytes: 10 }],
  ] as const) {
    const body = parts(chunks.map((c) => c.slice()))
    const out = await encodeResponse(req(ae), res(body.stream), options)
    assert.is(out.headers.get('content-encoding'), HAS_ZSTD ? 'zstd' : 'br', name)
    assert.is(out.headers.get('content-length'), null, name)
    const decoded = HAS_ZSTD ? cliOutput('zstd', ['-d', '-c', '-q'], await bytesOf(out)) : zlib.brotliDecompressSync(await bytesOf(out))
    assert.is(Buffer.compare(Buffer.from(decoded), concatBytes([...chunks])), 0, name)
  }
  // The read-ahead stops at minBytes: a long body is not read to its end before the
  // response is returned.
  const long = parts(Array.from({ length: 100 }, (_, k) => text.subarray(k * 600, k * 600 + 600)))
  const out = await encodeResponse(req(ae), res(long.stream))
  assert.is(long.reads(), 2, 'two 600-byte chunks pass minBytes (1024)')
  await out.body!.cancel()
  // Event streams and flush: 'write' are never read ahead: the response comes at once,
  // before the source has written anything.
  for (const [type, options] of [['text/event-stream', {}], ['text/plain', { flush: 'write' }]] as const) {
    const silent = new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => {}) })
    const live = await encodeResponse(req(ae), res(silent, { 'content-type': type }), options)
    assert.ok(live.headers.get('content-encoding') !== null, type)
    await live.body!.cancel()
  }
})

test('small bodies: an upstream that fails during the read-ahead fails the encoded body', async () => {
  let sent = 0
  const upstream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ === 0) controller.enqueue(text.subarray(0, 100))
      else controller.error(new Error('upstream broke early'))
    },
  }, { highWaterMark: 0 })
  const out = await encodeResponse(req({ 'accept-encoding': 'gzip' }), res(upstream))
  assert.is(out.headers.get('content-encoding'), 'gzip')
  assert.match(String(((await rejection(out.arrayBuffer())) as Error).message), /upstream broke early/)
})

test('eligible but not encoded (no acceptable coding): Vary is still added; Vary * and an existing Accept-Encoding kept', async () => {
  const plain = await encodeResponse(req({ 'accept-encoding': 'identity' }), res(text, { vary: 'Cookie' }))
  assert.is(plain.headers.get('content-encoding'), null)
  assert.is(plain.headers.get('vary'), 'Cookie, Accept-Encoding')
  assert.is(Buffer.compare(await bytesOf(plain), text), 0)
  assert.is((await encodeResponse(req({ 'accept-encoding': 'gzip' }), res(text, { vary: '*' }))).headers.get('vary'), '*')
  assert.is((await encodeResponse(req({ 'accept-encoding': 'gzip' }), res(text, { vary: 'accept-encoding, Origin' }))).headers.get('vary'), 'accept-encoding, Origin')
  assert.is((await encodeResponse(req(), res())).headers.get('vary'), 'Accept-Encoding')
  const weak = await encodeResponse(req({ 'accept-encoding': 'gzip' }), res(text, { etag: 'W/"v1"' }))
  assert.is(weak.headers.get('etag'), 'W/"v1"')
})

test('options: encodings and their order, levels, checks', async () => {
  const both = 'gzip, br'
  assert.is((await encodeResponse(req({ 'accept-encoding': both }), res(), { encodings: ['gzip', 'br'] })).headers.get('content-encoding'), 'gzip')
  assert.is((await encodeResponse(req({ 'accept-encoding': 'zstd' }), res(), { encodings: ['gzip'] })).headers.get('content-encoding'), null)
  const fast = await bytesOf(await encodeResponse(req({ 'accept-encoding': 'gzip' }), res(), { levels: { gzip: 1 } }))
  const best = await bytesOf(await encodeResponse(req({ 'accept-encoding': 'gzip' }), res(), { levels: { gzip: 9 } }))
  assert.ok(best.length < fast.length, `level 9 (${best.length}) smaller than level 1 (${fast.length})`)
  assert.is(Buffer.compare(zlib.gunzipSync(best), text), 0)
  const bad: Array<Record<string, unknown>> = [{ encodings: ['lzma'] }, { levels: { gzip: 42 } }, { minBytes: -1 }, { compressible: 'yes' }, { flush: 'often' }, { engines: { zstd: 'js' } }]
  for (const options of bad) {
    assert.is(((await rejection(encodeResponse(req(), res(), options as never))) as CodecError).code, 'INVALID_OPTION', JSON.stringify(options))
  }
})

/** A body whose source writes `events` one by one, each after the previous one was read. */
function eventSource(events: string[]) {
  let i = 0
  let pulls = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++
      if (i < events.length) controller.enqueue(new TextEncoder().encode(events[i++]!))
      else controller.close()
    },
  }, { highWaterMark: 0 })
  return { stream, pulls: () => pulls }
}

test('text/event-stream is flushed per event: each decodes from the bytes out so far, brotli included', async () => {
  const events = Array.from({ length: 5 }, (_, k) => `id: ${k}\nevent: tick\ndata: ${'{"n":' + k + '}'.repeat(k * 20)}\n\n`)
  for (const [accept, want] of [['gzip, deflate, br, zstd', HAS_ZSTD ? 'zstd' : null], ['br, gzip', 'br'], ['br', 'br'], ['gzip', 'gzip'], ['deflate', 'deflate']] as const) {
    if (want === null) continue
    const { stream } = eventSource(events)
    const out = await encodeResponse(req({ 'accept-encoding': accept }), res(stream, { 'content-type': 'text/event-stream' }))
    assert.is(out.headers.get('content-encoding'), want, accept)
    if (want === null) continue
    const reader = out.body!.getReader()
    const got: Uint8Array[] = []
    for (let k = 0; k < events.length; k++) {
      // Each read ends with the event's sync point: read until the event decodes whole.
      const expected = events.slice(0, k + 1).join('')
      for (let reads = 0; reads < 20; reads++) {
        const r = await reader.read()
        assert.not.ok(r.done, 'the stream is still open')
        got.push(r.value!)
        const all = concatBytes(got)
        let decoded = ''
        if (want === 'zstd') decoded = new TextDecoder().decode(cliOutput('zstd', ['-d', '-c', '-q'], all))
        else if (want === 'gzip') decoded = zlib.gunzipSync(all, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString()
        else if (want === 'br') decoded = zlib.brotliDecompressSync(all, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }).toString()
        else decoded = zlib.inflateSync(all, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString()
        if (decoded.length >= expected.length) {
          assert.is(decoded, expected)
          break
        }
      }
    }
    await reader.cancel()
  }
  // brotli with engine 'node' flushes too.
  const { stream } = eventSource(events)
  const withNode = await encodeResponse(req({ 'accept-encoding': 'br' }), res(stream, { 'content-type': 'text/event-stream' }), { engines: { br: 'node' } })
  assert.is(withNode.headers.get('content-encoding'), 'br')
  assert.is(zlib.brotliDecompressSync(await bytesOf(withNode)).toString(), events.join(''))
})

test('streamed bodies stay streamed: the upstream is read only as the client reads', async () => {
  const chunks = Array.from({ length: 200 }, (_, k) => text.subarray(k * 1000, k * 1000 + 1000))
  let pulls = 0
  const upstream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulls < chunks.length) controller.enqueue(chunks[pulls++]!)
      else controller.close()
    },
  }, { highWaterMark: 0 })
  const out = await encodeResponse(req({ 'accept-encoding': 'gzip' }), res(upstream))
  const reader = out.body!.getReader()
  const first = await reader.read()
  assert.not.ok(first.done)
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
  assert.ok(pulls < chunks.length, `only part of the upstream was read before the client read on (${pulls} of ${chunks.length})`)
  const rest: Uint8Array[] = [first.value!]
  for (;;) {
    const r = await reader.read()
    if (r.done) break
    rest.push(r.value)
  }
  assert.is(Buffer.compare(zlib.gunzipSync(concatBytes(rest)), concatBytes(chunks)), 0)
})

test('an upstream that errors midway errors the encoded body (never a clean end)', async () => {
  for (const coding of ORDER) {
    let sent = 0
    const upstream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 3) controller.enqueue(text.subarray(0, 10_000))
        else controller.error(new Error('upstream broke'))
      },
    })
    const out = await encodeResponse(req({ 'accept-encoding': coding }), res(upstream))
    assert.is(out.headers.get('content-encoding'), coding)
    try {
      await out.arrayBuffer()
      assert.unreachable(`${coding}: the body should error`)
    } catch (error) {
      assert.match(String((error as Error).message), /upstream broke/, coding)
    }
  }
})

const gc = (globalThis as { gc?: () => void }).gc
const settle = async () => {
  for (let i = 0; i < 5; i++) {
    gc?.()
    await new Promise((r) => setTimeout(r, 10))
  }
}
const used = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers

test('a client that goes away cancels the upstream and frees the encoder: 10,000 cycles without growth', async () => {
  const cycles = Number(process.env.LIFECYCLE_CYCLES ?? 10_000)
  let cancelled = 0
  const cycle = async (k: number) => {
    // A live upstream: a few chunks, then it waits for data that comes later.
    let sent = 0
    const upstream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 4) return new Promise<void>(() => {})
        controller.enqueue(text.subarray(sent * 4096, ++sent * 4096))
        return undefined
      },
      cancel() {
        cancelled++
      },
    })
    const out = await encodeResponse(req({ 'accept-encoding': ORDER[k % ORDER.length]! }), res(upstream))
    const reader = out.body!.getReader()
    // The client asks for data, the encoder takes input (brotli may hold all of it back
    // for a while), and the client goes away.
    const read = reader.read()
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))
    await reader.cancel(new Error('client went away'))
    await read
  }
  for (let k = 0; k < 200; k++) await cycle(k) // warm-up: engines loaded, pools filled
  await settle()
  const before = used()
  const rss0 = process.memoryUsage().rss
  for (let k = 0; k < cycles; k++) await cycle(k)
  await settle()
  const grown = used() - before
  const rssGrown = process.memoryUsage().rss - rss0
  assert.is(cancelled, cycles + 200, 'every upstream was cancelled')
  console.log(`# ${cycles} cancelled responses: heap+buffers ${(grown / 2 ** 20).toFixed(1)} MiB, rss ${(rssGrown / 2 ** 20).toFixed(1)} MiB`)
  assert.ok(grown < 16 * 2 ** 20, `heap and buffers grew by ${grown} bytes`)
  assert.ok(rssGrown < 64 * 2 ** 20, `rss grew by ${rssGrown} bytes`)
})

test('bad input: not a Request/Response, a used body', async () => {
  assert.is(((await rejection(encodeResponse({} as Request, res()))) as CodecError).code, 'INVALID_OPTION')
  assert.is(((await rejection(encodeResponse(req(), {} as Response))) as CodecError).code, 'INVALID_OPTION')
  const used = res()
  await used.arrayBuffer()
  assert.is(((await rejection(encodeResponse(req({ 'accept-encoding': 'gzip' }), used))) as CodecError).code, 'INVALID_OPTION')
})

test.run()
