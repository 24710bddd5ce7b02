// decodeResponse() with RFC 9842's dcz and dcb content codings: the dictionary found by
// the SHA-256 in the body's header, from an array or an async lookup; a missing
// dictionary is an error naming the hash; a body the runtime already decoded passes.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createHash } from 'node:crypto'
import { CodecError } from '../lib/errors.js'
import { encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { decodeResponse } from '../adapters/fetch/index.js'
import { packageDocuments } from '../bench/corpus.js'
import { concatBytes } from './_bytes.js'
import { rejection, thrown } from './_caught.js'

const docs = packageDocuments(200)
const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
const other = concatBytes(docs.filter((_, k) => k % 10 === 1).map((d) => d.bytes))
const text = docs[5]!.bytes
const hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex')
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0

/** A response whose body arrives in `piece`-byte chunks. */
function response(body: Uint8Array, encoding: string, piece = 7): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < body.length; i += piece) c.enqueue(body.slice(i, i + piece))
      c.close()
    },
  })
  return new Response(stream, { headers: { 'content-encoding': encoding, 'content-length': String(body.length) } })
}
const bytesOf = async (r: Response) => new Uint8Array(await r.arrayBuffer())

test('dcz and dcb bodies decode with the dictionary from an array or a lookup', async () => {
  for (const coding of ['dcz', 'dcb'] as const) {
    const body = await oneShotEncode(coding, text, { dictionary })
    const fromArray = decodeResponse(response(body, coding), { dictionaries: [other, dictionary] })
    assert.is(fromArray.headers.get('content-encoding'), null)
    assert.ok(same(await bytesOf(fromArray), text), `${coding}: array`)
    const asked: string[] = []
    const lookup = async (hash: Uint8Array) => {
      asked.push(Buffer.from(hash).toString('hex'))
      return Buffer.from(hash).toString('hex') === hex(dictionary) ? dictionary.buffer : undefined
    }
    assert.ok(same(await bytesOf(decodeResponse(response(body, coding, 1), { dictionaries: lookup })), text), `${coding}: lookup`)
    assert.equal(asked, [hex(dictionary)])
    // Layered under gzip.
    const gz = await oneShotEncode('gzip', body)
    assert.ok(same(await bytesOf(decodeResponse(response(gz, `${coding}, gzip`), { dictionaries: [dictionary] })), text), `${coding}, gzip`)
  }
})

test('a missing dictionary is UNSUPPORTED naming the hash; a truncated header TRUNCATED', async () => {
  for (const coding of ['dcz', 'dcb'] as const) {
    const body = await oneShotEncode(coding, text, { dictionary })
    for (const dictionaries of [undefined, [other], () => undefined]) {
      const e = (await rejection(bytesOf(decodeResponse(response(body, coding), { dictionaries })))) as CodecError
      assert.instance(e, CodecError)
      assert.is(e.code, 'UNSUPPORTED')
      assert.ok(e.message.includes(hex(dictionary)), e.message)
    }
    const e = (await rejection(bytesOf(decodeResponse(response(body.subarray(0, 20), coding), { dictionaries: [dictionary] })))) as CodecError
    assert.is(e.code, 'TRUNCATED')
  }
})

test('a body without the magic was decoded by the runtime and passes through', async () => {
  for (const coding of ['dcz', 'dcb']) {
    assert.ok(same(await bytesOf(decodeResponse(response(text, coding), { dictionaries: [dictionary] })), text), coding)
  }
})

test('a bad dictionaries option throws before the body is read', () => {
  for (const bad of ['x', 42, [1, 2], { length: 1 }]) {
    const e = thrown(() => decodeResponse(response(new Uint8Array(50), 'dcz'), { dictionaries: bad as never })) as CodecError
    assert.is(e.code, 'INVALID_OPTION', String(bad))
  }
})

test.run()
