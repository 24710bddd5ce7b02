// decompress() with dictionaries: RFC 9842's dcz (5E 2A 4D 18 20 00 00 00 + SHA-256, a
// zstd skippable frame) and dcb (FF 44 43 42 + SHA-256) detected and decoded with the
// dictionary their header names (`dictionary`, or `dictionaries` as an array or a
// lookup); without it an UNSUPPORTED error naming the format and the hash; zstd streams
// starting with other skippable frames still zstd; a dictionary given for gzip or LZ4
// input not in the way; zlib FDICT and zstd dictionary frames decoded with it.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import { basicMutations } from './_mutations.js'
import { createHash } from 'node:crypto'
import * as zlib from 'node:zlib'
import { CodecError } from '../lib/errors.js'
import { encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { detectFormat } from '../lib/detect.js'
import { decompress } from '../streams/decompress.js'
import { packageDocuments } from '../bench/corpus.js'
import { concatBytes } from './_bytes.js'
import { rejection, thrown } from './_caught.js'
import { chunked, read } from './_streams.js'

const docs = packageDocuments(200)
const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
const other = concatBytes(docs.filter((_, k) => k % 10 === 1).map((d) => d.bytes))
const text = concatBytes(docs.filter((_, k) => k % 10 === 5).slice(0, 4).map((d) => d.bytes))
const hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex')
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0
const transports = ['dcz', 'dcb'] as const
const through = (bytes: Uint8Array, n: number, options: Parameters<typeof decompress>[0]) => read(chunked(bytes, n).pipeThrough(decompress(options) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>))

/** A skippable frame (RFC 8878 section 3.1.2) with magic nibble `nibble` and `size` bytes of payload. */
const skippable = (nibble: number, size: number): Uint8Array => {
  const b = new Uint8Array(8 + size).fill(0xab)
  b.set([0x50 | nibble, 0x2a, 0x4d, 0x18, size & 0xff, (size >> 8) & 0xff, 0, 0])
  return b
}

const encoded = {
  dcz: await oneShotEncode('dcz', text, { dictionary }),
  dcb: await oneShotEncode('dcb', text, { dictionary }),
}

test('detectFormat: dcz and dcb once the whole header is in; TRUNCATED inside it; other skippable frames are zstd', () => {
  for (const f of transports) {
    const header = encoded[f].subarray(0, f === 'dcz' ? 40 : 36)
    assert.is(detectFormat(header, false), f)
    assert.is(detectFormat(encoded[f], true), f)
    for (let n = 1; n < header.length; n++) {
      assert.is(detectFormat(header.subarray(0, n), false), null, `${f}: ${n} bytes, more to come`)
      // dcz's first 4 to 7 bytes are a skippable frame cut short: zstd reports it.
      assert.is(detectFormat(header.subarray(0, n), true), f === 'dcz' && n >= 4 && n < 8 ? 'zstd' : 'truncated', `${f}: ${n} bytes, ended`)
    }
  }
  // A zstd stream starting with a skippable frame of another magic or size: zstd.
  assert.is(detectFormat(concatBytes([skippable(0x0, 32), Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd)]), false), 'zstd')
  assert.is(detectFormat(concatBytes([skippable(0xe, 12), Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd)]), false), 'zstd')
  assert.is(detectFormat(concatBytes([skippable(0xf, 32), Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd)]), false), 'zstd')
  // FF alone may still become dcb; FF then anything else is not.
  assert.is(detectFormat(Uint8Array.of(0xff), false), null)
  assert.is(detectFormat(Uint8Array.of(0xff, 0x44, 0x43, 0x00), false), 'unknown')
})

test('dcz and dcb decode with the dictionary, an array of dictionaries or a lookup, whole and in 1-byte chunks', async () => {
  for (const f of transports) {
    for (const n of [1, 7, 1 << 16]) {
      assert.ok(same(await through(encoded[f], n, { dictionary }), text), `${f}, dictionary, ${n}-byte chunks`)
      assert.ok(same(await through(encoded[f], n, { dictionaries: [other, dictionary] }), text), `${f}, array, ${n}-byte chunks`)
    }
    const asked: string[] = []
    const lookup = async (hash: Uint8Array) => {
      asked.push(Buffer.from(hash).toString('hex'))
      return Buffer.from(hash).toString('hex') === hex(dictionary) ? dictionary.buffer : undefined
    }
    assert.ok(same(await through(encoded[f], 3, { dictionaries: lookup }), text), `${f}, lookup`)
    assert.equal(asked, [hex(dictionary)])
    // dictionaries without it, dictionary with it: the dictionary is used.
    assert.ok(same(await through(encoded[f], 100, { dictionaries: [other], dictionary }), text), `${f}, fallback to dictionary`)
    // The format forced, with dictionaries: the hash looked up all the same.
    assert.ok(same(await through(encoded[f], 5, { format: f, dictionaries: [dictionary] }), text), `${f} forced, array`)
    assert.ok(same(await through(encoded[f], 5, { format: f, dictionary }), text), `${f} forced, dictionary`)
  }
})

test('without the dictionary: UNSUPPORTED naming the format and the hash, on both sides', async () => {
  for (const f of transports) {
    for (const options of [{}, { dictionaries: [other] }, { dictionaries: () => undefined }, { passthrough: true }, { format: f, dictionaries: [other] }]) {
      const pair = decompress(options)
      const writer = pair.writable.getWriter()
      const write = writer.write(encoded[f] as Uint8Array<ArrayBuffer>)
      const e = (await rejection(pair.readable.getReader().read())) as CodecError
      assert.instance(e, CodecError)
      assert.is(e.code, 'UNSUPPORTED', `${f} ${JSON.stringify(options)}`)
      assert.ok(e.message.includes(f) && e.message.includes(hex(dictionary)), e.message)
      assert.is(await rejection(write), e)
    }
    // The wrong dictionary: the decoder refuses it by the hash, at its first differing byte.
    const e = (await rejection(through(encoded[f], 10, { dictionary: other }))) as CodecError
    assert.is(e.code, 'CHECKSUM_MISMATCH')
    let first = 0
    while (hex(dictionary).slice(first * 2, first * 2 + 2) === hex(other).slice(first * 2, first * 2 + 2)) first++
    assert.is(e.offset, (f === 'dcz' ? 8 : 4) + first)
  }
})

test('a header cut short: TRUNCATED at its end; the header alone: the decoder reports the truncation', async () => {
  for (const f of transports) {
    const length = f === 'dcz' ? 40 : 36
    for (const n of [f === 'dcz' ? 8 : 4, 20, length - 1]) {
      for (const options of [{ dictionary }, { format: f, dictionaries: [dictionary] }]) {
        const e = (await rejection(through(encoded[f].subarray(0, n), 3, options))) as CodecError
        assert.is(e.code, 'TRUNCATED', `${f}, ${n} bytes, ${Object.keys(options).join(' ')}`)
        assert.is(e.offset, n)
      }
    }
    const e = (await rejection(through(encoded[f].subarray(0, length), 3, { dictionary }))) as CodecError
    assert.is(e.code, 'TRUNCATED')
    assert.is(e.format, f)
    // Forced, with dictionaries, and not that format at all.
    const wrong = (await rejection(through(text, 100, { format: f, dictionaries: [dictionary] }))) as CodecError
    assert.is(wrong.code, 'INVALID_DATA')
  }
})

test('zstd streams with other skippable frames first still decode; so does one that looks like dcz when zstd is forced', async () => {
  const frame = await oneShotEncode('zstd', text)
  for (const lead of [skippable(0x0, 32), skippable(0xe, 12), skippable(0xf, 32), concatBytes([skippable(0x1, 0), skippable(0x2, 5)])]) {
    for (const options of [{}, { dictionary }]) {
      assert.ok(same(await through(concatBytes([lead, frame]), 1, options), text), `lead ${lead.length} bytes, ${Object.keys(options).join('')}`)
    }
  }
  // Exactly dcz's frame (magic 0x184D2A5E, 32 bytes) is dcz; format: 'zstd' reads it as zstd.
  const lookalike = concatBytes([skippable(0xe, 32), frame])
  assert.is(((await rejection(through(lookalike, 100, {}))) as CodecError).code, 'UNSUPPORTED')
  assert.ok(same(await through(lookalike, 100, { format: 'zstd' }), text))
})

test('a dictionary given: gzip and LZ4 input decode without it; zlib FDICT and zstd frames with it', async () => {
  const gzip = new Uint8Array(zlib.gzipSync(text))
  const lz4 = await oneShotEncode('lz4', text)
  for (const input of [gzip, lz4]) assert.ok(same(await through(input, 50, { dictionary }), text))
  const fdict = new Uint8Array(zlib.deflateSync(text, { dictionary }))
  assert.ok(same(await through(fdict, 50, { dictionary }), text), 'zlib FDICT')
  assert.is(((await rejection(through(fdict, 50, {}))) as CodecError).code, 'UNSUPPORTED', 'zlib FDICT without it')
  const prefixed = await oneShotEncode('zstd', text, { dictionary })
  assert.ok(same(await through(prefixed, 50, { dictionary }), text), 'zstd, raw-content prefix')
  // Unrelated zlib and zstd streams decode with a dictionary given all the same.
  assert.ok(same(await through(new Uint8Array(zlib.deflateSync(text)), 50, { dictionary }), text), 'zlib without FDICT')
  assert.ok(same(await through(await oneShotEncode('zstd', text), 50, { dictionary }), text), 'zstd without a dictionary')
})

test('mutated dcz/dcb input through decompress(): the original or a CodecError; never other bytes for dcz (its frame checksum)', async () => {
  const counts: Record<string, number> = {}
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...transports), fc.oneof(...basicMutations), fc.integer({ min: 1, max: 300 }), fc.boolean(), async (f, mutation, n, byList) => {
      const bad = mutation.apply(encoded[f])
      let out: Uint8Array
      try {
        out = await through(bad, n, byList ? { dictionaries: [other, dictionary] } : { dictionary })
      } catch (e) {
        if (!(e instanceof CodecError)) throw e
        counts[e.code] = (counts[e.code] ?? 0) + 1
        return true
      }
      const verdict = same(out, text) ? 'intact' : 'different'
      counts[`${f} ${verdict}`] = (counts[`${f} ${verdict}`] ?? 0) + 1
      return verdict === 'intact' || f === 'dcb'
    }),
    { numRuns: 600, seed: 0xdc2 },
  )
  console.log(`# decompress, 600 mutated dcz/dcb inputs: ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')}`)
})

test('bad dictionary options throw at construction', () => {
  for (const bad of ['x', 42, [1, 2], { length: 1 }]) {
    const e = thrown(() => decompress({ dictionaries: bad as never })) as CodecError
    assert.is(e.code, 'INVALID_OPTION', String(bad))
  }
  for (const bad of ['x', 42, null, [1, 2]]) {
    const e = thrown(() => decompress({ dictionary: bad as never })) as CodecError
    assert.is(e.code, 'INVALID_OPTION', String(bad))
  }
})

test.run()
