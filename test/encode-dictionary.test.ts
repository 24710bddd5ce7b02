// encodeResponse() and compression() with the dictionaries option (RFC 9842): dcz and
// dcb chosen when Available-Dictionary names a dictionary the server has and
// Accept-Encoding allows them (same q-value rules as the other codings, the server's
// order otherwise), the Vary on every eligible response, the fall-back to the usual
// codings for malformed or unknown hashes, flushing, and real clients on loopback:
// Node's fetch (which leaves dcz/dcb alone) decoded by decodeResponse, and curl's raw
// body decoded by the zstd CLI with the dictionary. Real documents: two releases of a
// TypeScript library file.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { availableDictionary, decodeResponse, encodeResponse, prepareDictionary, type ServerDictionary } from '../adapters/fetch/index.js'
import { compression, toNodeListener } from '../adapters/node/index.js'
import { CodecError } from '../lib/errors.js'
import { rejection, thrown } from './_caught.js'
import { runCli } from './_cli.js'
import { releasePair } from './_corpus.js'
import { curlRaw, HAS_CURL, HAS_ZSTD, listen, sha256 } from './_http.js'

const pair = releasePair('lib.es5.d.ts')
const small = releasePair('lib.dom.iterable.d.ts')
if (!pair || !small) console.log('# skipped: dictionary encoding: the older TypeScript release (a dependency of @arethetypeswrong/cli) is not in node_modules')
if (!HAS_CURL || !HAS_ZSTD) console.log('# skipped: curl + zstd -D case: curl or the zstd CLI is not installed (apt-get install -y curl zstd)')

const CHROME_ACCEPT = 'gzip, deflate, br, zstd, dcb, dcz'
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0
const bytesOf = async (r: Response) => new Uint8Array(await r.arrayBuffer())
const req = (headers: Record<string, string> = {}, method = 'GET') => new Request('http://127.0.0.1/data/x', { method, headers })
const res = (body: BodyInit | null, headers: Record<string, string> = { 'content-type': 'application/javascript' }) => new Response(body, { headers })

async function invalid(fn: () => unknown, pattern: RegExp): Promise<void> {
  let e: unknown
  try {
    await fn()
    e = new Error('expected a failure')
  } catch (error) {
    e = error
  }
  assert.instance(e, CodecError)
  assert.is((e as CodecError).code, 'INVALID_OPTION')
  assert.match((e as CodecError).message, pattern)
}

test('prepareDictionary hashes and copies once; its hash is the Available-Dictionary form', async () => {
  const bytes = new TextEncoder().encode('a small dictionary')
  const d = await prepareDictionary(bytes)
  assert.is(Buffer.from(d.sha256).toString('hex'), sha256(bytes))
  assert.is(d.hash, availableDictionary(d.sha256))
  assert.is(d.id, '')
  assert.ok(Object.isFrozen(d))
  bytes[0] = 0x41
  assert.is(d.bytes[0], 'a'.charCodeAt(0), 'a copy, not the caller memory')
  const withId = await prepareDictionary({ bytes: bytes.buffer, id: 'v1' })
  assert.is(withId.id, 'v1')
  assert.is(Buffer.from(withId.sha256).toString('hex'), sha256(bytes))
  for (const [bad, pattern] of [
    ['text', /ArrayBuffer, an ArrayBufferView or \{ bytes, id \}/],
    [{ bytes: 'text' }, /ArrayBuffer, an ArrayBufferView or \{ bytes, id \}/],
    [{ bytes, id: 'caf\u00e9' }, /id has U\+00E9/],
    [{ bytes, id: 'i'.repeat(1025) }, /1025 characters/],
  ] as const) {
    const e = await rejection(prepareDictionary(bad as never))
    assert.instance(e, CodecError)
    assert.match((e as CodecError).message, pattern)
  }
})

test('options: dictionaries are prepared ones or bytes; dcz/dcb need them; dictionaries need dcz or dcb', async () => {
  const d = await prepareDictionary(new Uint8Array(100))
  const r = () => req({ 'accept-encoding': CHROME_ACCEPT })
  await invalid(() => encodeResponse(r(), res('x'), { dictionaries: ['text'] as never }), /dictionaries\[0\] is neither a BufferSource nor a dictionary made by prepareDictionary/)
  await invalid(() => encodeResponse(r(), res('x'), { dictionaries: d as never }), /array of dictionaries \(prepareDictionary results or BufferSources\), or a lookup/)
  await invalid(() => encodeResponse(r(), res('x'), { encodings: ['dcz', 'zstd'] }), /encodings lists dcz, which need the dictionaries option/)
  await invalid(() => encodeResponse(r(), res('x'), { encodings: ['zstd', 'br'], dictionaries: [d] }), /neither dcz nor dcb/)
  await invalid(() => encodeResponse(r(), res('x'), { dictionaries: [d], levels: { dcb: 12 } }), /level/)
  invalid(() => compression({ dictionaries: ['x'] as never }), /is neither a BufferSource nor a dictionary made by prepareDictionary/)
})

test('one way to pass dictionaries: raw bytes (hashed once), prepared ones and lookups, on both sides', async () => {
  if (!pair) return
  const prepared = await prepareDictionary(pair.dictionary)
  const raw = pair.dictionary.slice()
  const ask = req({ 'available-dictionary': prepared.hash, 'accept-encoding': CHROME_ACCEPT })
  for (const dictionaries of [[raw], [raw.buffer], () => raw, () => prepared] as const) {
    const encoded = await encodeResponse(ask.clone(), res(pair.body.slice()), { dictionaries: dictionaries as never })
    assert.is(encoded.headers.get('content-encoding'), 'dcz', 'raw bytes are found by the hash the request names')
    const body = await bytesOf(encoded)
    // The decoder takes the same forms: raw bytes, a prepared dictionary, a lookup.
    for (const back of [[raw], [prepared], () => prepared, () => raw] as const) {
      const decoded = await bytesOf(decodeResponse(new Response(body, { headers: { 'content-encoding': 'dcz' } }), { dictionaries: back as never }))
      assert.ok(same(decoded, pair.body))
    }
  }
  // Node's compression() took only prepared ones before; raw bytes are accepted at setup now.
  assert.type(compression({ dictionaries: [raw] }), 'function')
})

test('negotiation: dcz/dcb only for a known Available-Dictionary, by q-value then server order', async () => {
  if (!pair) return
  const d = await prepareDictionary(pair.dictionary)
  const other = await prepareDictionary(small!.dictionary)
  const options = { dictionaries: [other, d], minBytes: 0 }
  const coding = async (headers: Record<string, string>, extra: Record<string, unknown> = {}) => (await encodeResponse(req(headers), res('body'), { ...options, ...extra })).headers.get('content-encoding')
  const ad = { 'available-dictionary': d.hash }
  const table: Array<[Record<string, string>, string | null, string]> = [
    [{ ...ad, 'accept-encoding': CHROME_ACCEPT }, 'dcz', 'the default order puts dcz first'],
    [{ 'available-dictionary': other.hash, 'accept-encoding': CHROME_ACCEPT }, 'dcz', 'any of the dictionaries'],
    [{ ...ad, 'accept-encoding': 'gzip, br, dcb' }, 'dcb', 'only dcb accepted'],
    [{ ...ad, 'accept-encoding': 'zstd, dcz;q=0.5, dcb' }, 'dcb', 'a higher weight wins over the order'],
    [{ ...ad, 'accept-encoding': 'zstd, dcz;q=0, dcb;q=0' }, 'zstd', 'q=0 refuses'],
    [{ ...ad, 'accept-encoding': 'zstd;q=1, dcz;q=0.9' }, 'zstd', 'the client prefers plain zstd'],
    [{ ...ad, 'accept-encoding': '*' }, 'dcz', '* covers dcz'],
    [{ ...ad, 'accept-encoding': 'gzip, deflate, br, zstd' }, 'zstd', 'no dictionary coding accepted'],
    [{ 'accept-encoding': CHROME_ACCEPT }, 'zstd', 'no Available-Dictionary'],
    [{ 'available-dictionary': availableDictionary(new Uint8Array(32)), 'accept-encoding': CHROME_ACCEPT }, 'zstd', 'a hash the server does not have'],
    [{ 'available-dictionary': d.hash.slice(0, -6) + ':', 'accept-encoding': CHROME_ACCEPT }, 'zstd', 'malformed: 30 bytes'],
    [{ 'available-dictionary': d.hash.slice(1, -1), 'accept-encoding': CHROME_ACCEPT }, 'zstd', 'malformed: no colons'],
    [{ 'available-dictionary': `${d.hash}, ${other.hash}`, 'accept-encoding': CHROME_ACCEPT }, 'zstd', 'malformed: two hashes'],
    [{ ...ad }, null, 'no Accept-Encoding'],
  ]
  for (const [headers, expected, why] of table) assert.is(await coding(headers), expected, why)
  assert.is(await coding({ ...ad, 'accept-encoding': CHROME_ACCEPT }, { encodings: ['dcb', 'dcz', 'zstd'] }), 'dcb', 'the server order, configured')
  assert.is(await coding({ ...ad, 'accept-encoding': 'dcz' }, { encodings: ['dcb', 'br'] }), null, 'dcz not offered')
})

test('Vary: accept-encoding and available-dictionary on every eligible response, merged', async () => {
  const d = await prepareDictionary(new TextEncoder().encode('dictionary '.repeat(20)))
  const options = { dictionaries: [d], minBytes: 0 }
  const vary = async (headers: Record<string, string>, responseHeaders: Record<string, string> = { 'content-type': 'text/plain' }, method = 'GET') =>
    (await encodeResponse(req(headers, method), res('some body', responseHeaders), options)).headers.get('vary')
  const ad = { 'available-dictionary': d.hash }
  assert.is(await vary({ ...ad, 'accept-encoding': CHROME_ACCEPT }), 'Accept-Encoding, Available-Dictionary', 'dcz')
  assert.is(await vary({ 'accept-encoding': 'gzip' }), 'Accept-Encoding, Available-Dictionary', 'gzip: another request would get dcz')
  assert.is(await vary({}), 'Accept-Encoding, Available-Dictionary', 'not encoded')
  assert.is(await vary(ad, { 'content-type': 'text/plain', vary: 'Origin' }), 'Origin, Accept-Encoding, Available-Dictionary')
  assert.is(await vary(ad, { 'content-type': 'text/plain', vary: 'accept-encoding' }), 'accept-encoding, Available-Dictionary')
  assert.is(await vary(ad, { 'content-type': 'text/plain', vary: 'Available-Dictionary, Accept-Encoding' }), 'Available-Dictionary, Accept-Encoding')
  assert.is(await vary(ad, { 'content-type': 'text/plain', vary: '*' }), '*')
  // Left alone: not eligible, so no Vary added.
  assert.is(await vary(ad, { 'content-type': 'image/png' }), null)
  assert.is(await vary({ ...ad, 'accept-encoding': CHROME_ACCEPT }, { 'content-type': 'text/plain' }, 'HEAD'), null)
  // Without dictionaries, as before.
  assert.is((await encodeResponse(req({ 'accept-encoding': 'gzip' }), res('body'), { minBytes: 0 })).headers.get('vary'), 'Accept-Encoding')
})

test('dcz and dcb bodies: the RFC 9842 header, decoded to the same bytes, much smaller than without the dictionary', async () => {
  if (!pair || !small) return
  for (const p of [pair, small]) {
    const d = await prepareDictionary(p.dictionary)
    const sizes: Record<string, number> = {}
    for (const coding of ['dcz', 'dcb', 'zstd', 'br'] as const) {
      const r = await encodeResponse(req({ 'available-dictionary': d.hash, 'accept-encoding': coding, etag: '"x"' }), res(p.body.slice(), { 'content-type': 'application/javascript', etag: '"v2"' }), { dictionaries: [d], encodings: [coding, 'dcz'] })
      assert.is(r.headers.get('content-encoding'), coding)
      assert.is(r.headers.get('etag'), 'W/"v2"')
      const encoded = await bytesOf(r)
      sizes[coding] = encoded.length
      if (coding === 'dcz') {
        assert.equal([...encoded.subarray(0, 8)], [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0, 0, 0])
        assert.ok(same(encoded.subarray(8, 40), d.sha256), 'dcz header names the dictionary')
      }
      if (coding === 'dcb') {
        assert.equal([...encoded.subarray(0, 4)], [0xff, 0x44, 0x43, 0x42])
        assert.ok(same(encoded.subarray(4, 36), d.sha256), 'dcb header names the dictionary')
      }
      const decoded = await bytesOf(decodeResponse(new Response(encoded, { headers: { 'content-encoding': coding } }), { dictionaries: [p.dictionary] }))
      assert.ok(same(decoded, p.body), `${p.name} ${coding} round trip`)
    }
    // lib.es5.d.ts: 218 KB; dcz ~2.6 KB vs zstd ~19 KB, dcb ~1.4 KB vs br ~18 KB.
    assert.ok(sizes.dcz! * 2.5 < sizes.zstd!, `${p.name}: dcz ${sizes.dcz} vs zstd ${sizes.zstd}`)
    assert.ok(sizes.dcb! * 2.5 < sizes.br!, `${p.name}: dcb ${sizes.dcb} vs br ${sizes.br}`)
  }
})

test('a lookup: gets the hash and Dictionary-ID; only a dictionary with that hash is used', async () => {
  if (!pair) return
  const d = await prepareDictionary({ bytes: pair.dictionary, id: 'es5-old' })
  const wrong = await prepareDictionary(small!.dictionary)
  const asked: Array<[string, string | null]> = []
  let answer: ServerDictionary | undefined = d
  const lookup = (hash: Uint8Array, id: string | null) => {
    asked.push([Buffer.from(hash).toString('hex'), id])
    return answer
  }
  const r = (headers: Record<string, string>) => encodeResponse(req({ 'accept-encoding': CHROME_ACCEPT, ...headers }), res(pair.body.slice()), { dictionaries: lookup })
  const first = await r({ 'available-dictionary': d.hash, 'dictionary-id': '"es5-old"' })
  assert.is(first.headers.get('content-encoding'), 'dcz')
  assert.ok(same(await bytesOf(decodeResponse(first, { dictionaries: [pair.dictionary] })), pair.body))
  assert.equal(asked, [[Buffer.from(d.sha256).toString('hex'), 'es5-old']])
  // A malformed Dictionary-ID reaches the lookup as null; a malformed hash never does.
  asked.length = 0
  await (await r({ 'available-dictionary': d.hash, 'dictionary-id': 'es5-old' })).body?.cancel()
  await (await r({ 'available-dictionary': 'es5-old' })).body?.cancel()
  assert.equal(asked, [[Buffer.from(d.sha256).toString('hex'), null]])
  // A lookup answering with another dictionary: not used (RFC 9842 section 2.1.3).
  answer = wrong
  const second = await r({ 'available-dictionary': d.hash })
  assert.is(second.headers.get('content-encoding'), 'zstd')
  await second.body?.cancel()
  answer = undefined
  assert.is((await r({ 'available-dictionary': d.hash })).headers.get('content-encoding'), 'zstd')
  answer = { bytes: 'x' } as never
  await invalid(() => r({ 'available-dictionary': d.hash }), /returned neither a dictionary \(prepareDictionary's or a BufferSource\) nor undefined for SHA-256 [0-9a-f]{64}/)
})

test('flush: a text/event-stream body in dcz and dcb reaches the client event by event', async () => {
  const dictionary = new TextEncoder().encode('event: tick\ndata: {"status":"ok","sequence":}\n\n'.repeat(20))
  const d = await prepareDictionary(dictionary)
  for (const coding of ['dcz', 'dcb'] as const) {
    let pulls = 0
    const upstream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++
        if (pulls <= 3) controller.enqueue(new TextEncoder().encode(`event: tick\ndata: {"status":"ok","sequence":${pulls}}\n\n`))
        // Then nothing more until the client has read the third event.
      },
    })
    const r = await encodeResponse(req({ 'available-dictionary': d.hash, 'accept-encoding': coding }), res(upstream, { 'content-type': 'text/event-stream' }), { dictionaries: [d], encodings: [coding] })
    assert.is(r.headers.get('content-encoding'), coding)
    const reader = decodeResponse(r, { dictionaries: [dictionary] }).body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    while (!text.includes('"sequence":3}')) {
      const { value, done } = await reader.read()
      assert.not.ok(done, `${coding}: the stream ended before the third event`)
      text += value
    }
    assert.is(text, [1, 2, 3].map((k) => `event: tick\ndata: {"status":"ok","sequence":${k}}\n\n`).join(''), coding)
    await reader.cancel()
  }
})

test('loopback: Node fetch and curl get dcz/dcb from encodeResponse and from compression()', async () => {
  if (!pair) return
  const d = await prepareDictionary(pair.dictionary)
  const options = { dictionaries: [d] }
  const fetchServer = await listen(
    toNodeListener((request) => {
      const only = new URL(request.url).searchParams.get('only')
      return encodeResponse(request, res(pair.body.slice()), only ? { ...options, encodings: [only as 'dcz'] } : options)
    }),
  )
  const mw = compression(options)
  const mwDcb = compression({ ...options, encodings: ['dcb'] })
  const middlewareServer = await listen((req: IncomingMessage, res: ServerResponse) => {
    ;(req.url?.includes('only=dcb') ? mwDcb : mw)(req, res, () => {
      res.setHeader('content-type', 'application/javascript')
      res.end(Buffer.from(pair.body))
    })
  })
  const dir = mkdtempSync(join(tmpdir(), 'sluice-dict-'))
  try {
    writeFileSync(join(dir, 'dict'), pair.dictionary)
    for (const s of [fetchServer, middlewareServer]) {
      for (const [query, expected] of [['', 'dcz'], ['?only=dcb', 'dcb']] as const) {
        // Node 20's fetch does not know dcz/dcb: it leaves the body as sent.
        const response = await fetch(`${s.url}/data/x${query}`, { headers: { 'accept-encoding': CHROME_ACCEPT, 'available-dictionary': d.hash } })
        assert.is(response.headers.get('content-encoding'), expected)
        assert.is(response.headers.get('vary'), 'Accept-Encoding, Available-Dictionary')
        const decoded = await bytesOf(decodeResponse(response, { dictionaries: [pair.dictionary] }))
        assert.ok(same(decoded, pair.body), `${s.url}${query}: Node fetch + decodeResponse`)
      }
      const plain = await fetch(`${s.url}/data/x`, { headers: { 'accept-encoding': 'gzip, br', 'available-dictionary': d.hash } })
      assert.is(plain.headers.get('content-encoding'), 'br')
      assert.ok(same(await bytesOf(plain), pair.body), 'br, decoded by Node fetch')
      if (HAS_CURL && HAS_ZSTD) {
        // A dcz body is a skippable frame and a zstd frame with the dictionary as raw
        // content: the reference CLI decodes it with -D.
        const got = await curlRaw(`${s.url}/data/x`, { 'accept-encoding': 'dcz', 'available-dictionary': d.hash })
        assert.is(got.encoding, 'dcz')
        assert.ok(same(runCli('zstd', ['-d', '-c', '-q', '-D', join(dir, 'dict')], got.body), pair.body), `${s.url}: curl + zstd -D`)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await fetchServer.close()
    await middlewareServer.close()
  }
})

test.run()
