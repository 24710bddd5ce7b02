// The deflate family (gzip, zlib, raw deflate) on the js engine, with node:zlib as the
// oracle in both directions, on real files; streaming splits, truncation, corruption,
// checksums and multi-member gzip.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import zlib from 'node:zlib'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Decoder, Encoder, Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import type { CodecModule } from '../lib/registry.js'
import { Status, statusName } from '../lib/status.js'
import { crc32, adler32 } from '../lib/codecs/checksum.js'
import { deflate, deflateRaw, gzip } from '../lib/codecs/gzip.js'
import { decodeSpans, encodeSpans, type Decoded } from './_span.js'
import { binarySlice, filesCorpus, randomBytes, samples } from './_corpus.js'
import { root } from './_fixtures.js'

const modules: Record<'gzip' | 'deflate' | 'deflate-raw', CodecModule> = { gzip, deflate, 'deflate-raw': deflateRaw }
const formats = ['gzip', 'deflate', 'deflate-raw'] as const

/** node:zlib one-shot compressors and decompressors per format. */
const zEncode = (f: Format, data: Uint8Array, level: number): Uint8Array =>
  f === 'gzip' ? zlib.gzipSync(data, { level }) : f === 'deflate' ? zlib.deflateSync(data, { level }) : zlib.deflateRawSync(data, { level })
const zDecode = (f: Format, data: Uint8Array, opts: zlib.ZlibOptions = {}): Buffer =>
  f === 'gzip' ? zlib.gunzipSync(data, opts) : f === 'deflate' ? zlib.inflateSync(data, opts) : zlib.inflateRawSync(data, opts)

const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0

/** Decodes with the contract checked on every call (test/_span.ts); NeedMoreData consumes all. */
const decode = (codec: Decoder, input: Uint8Array, split?: number, room?: number): Decoded => decodeSpans(codec, input, { split, room, consumesAll: true })
const encode = (codec: Encoder, input: Uint8Array, split?: number, room?: number, flushEach = false): Uint8Array => encodeSpans(codec, input, { split, room, flushEach })

const corpora = (): Array<[string, Uint8Array]> => [
  ...samples(),
  ['project sources (lib/codecs)', filesCorpus(join(root, 'lib/codecs'), 400_000, /\.ts$/)],
  ['node_modules .js 1 MB', filesCorpus(join(root, 'node_modules/typescript/lib'), 1_000_000, /\.js$/)],
  ['node binary first 1 MB', binarySlice(0, 1_000_000)],
]

test('node:zlib output at levels 0, 1, 6, 9 decodes to the original, one shot', () => {
  for (const [name, data] of corpora()) {
    for (const f of formats) {
      for (const level of [0, 1, 6, 9]) {
        const comp = zEncode(f, data, level)
        const r = decode(modules[f].createDecoder({}), comp)
        assert.is(r.status, Status.Done, `${f} ${name} level ${level}: ${statusName(r.status)} ${r.failure?.message}`)
        assert.is(r.consumed, comp.length)
        assert.ok(same(r.out, data), `${f} ${name} level ${level}: output differs`)
      }
    }
  }
})

test('our output at levels 0-9 decodes with node:zlib', () => {
  for (const [name, data] of corpora()) {
    for (const f of formats) {
      // All levels on the small samples; the 1 MB corpora at two (time budget).
      for (const level of data.length > 500_000 ? [1, 6] : [0, 1, 6, 9]) {
        const comp = encode(modules[f].createEncoder({ level }), data)
        assert.ok(same(zDecode(f, comp), data), `${f} ${name} level ${level}`)
        // And our own decoder agrees.
        const r = decode(modules[f].createDecoder({}), comp)
        assert.is(r.status, Status.Done)
        assert.ok(same(r.out, data))
      }
    }
  }
})

test('default level is 6; bad levels throw INVALID_OPTION', () => {
  const data = filesCorpus(join(root, 'lib'), 100_000, /\.ts$/)
  assert.ok(same(encode(gzip.createEncoder({}), data), encode(gzip.createEncoder({ level: 6 }), data)))
  for (const level of [-1, 10, 1.5, '6', null]) {
    try {
      gzip.createEncoder({ level })
      assert.unreachable(`level ${String(level)} accepted`)
    } catch (e) {
      assert.instance(e, CodecError)
      assert.is((e as CodecError).code, 'INVALID_OPTION')
    }
  }
})

test('1-byte input splits and 1-byte destinations decode exactly', () => {
  const text = filesCorpus(join(root, 'lib'), 20_000, /\.ts$/)
  const bin = binarySlice(3_000_000, 12_000)
  for (const f of formats) {
    for (const [data, level] of [[text, 6], [text, 1], [bin, 9], [text, 0]] as const) {
      const comp = zEncode(f, data, level)
      for (const [split, room] of [[1, 1 << 16], [1 << 20, 1], [1, 1], [7, 300], [4096, 259]]) {
        const r = decode(modules[f].createDecoder({}), comp, split, room)
        assert.is(r.status, Status.Done, `${f} level ${level} split ${split} room ${room}: ${statusName(r.status)} ${r.failure?.message}`)
        assert.is(r.consumed, comp.length)
        assert.ok(same(r.out, data), `${f} split ${split} room ${room}`)
      }
    }
  }
})

test('pseudo-random splits and rooms over 1 MB of text and binary', () => {
  let seed = 12345
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) >>> 0
    return 1 + (seed % n)
  }
  for (const data of [filesCorpus(join(root, 'node_modules/typescript/lib'), 1_000_000, /\.d\.ts$/), binarySlice(1_000_000, 1_000_000)]) {
    const comp = zlib.gzipSync(data)
    for (let k = 0; k < 4; k++) {
      const r = decode(gzip.createDecoder({}), comp, rnd(70_000), rnd(200_000))
      assert.is(r.status, Status.Done)
      assert.ok(same(r.out, data))
    }
  }
})

test('encoder: 1-byte splits, 1-byte destinations, sync flush after every piece', () => {
  const data = filesCorpus(join(root, 'lib'), 30_000, /\.ts$/)
  for (const f of formats) {
    for (const [split, room, flushEach] of [[1, 1 << 16, false], [1 << 20, 1, false], [997, 1, true], [5000, 333, true]] as const) {
      const comp = encode(modules[f].createEncoder({ level: 6 }), data, split, room, flushEach)
      assert.ok(same(zDecode(f, comp), data), `${f} split ${split} room ${room}`)
    }
  }
})

test('encoder flush: output so far decodes to all input so far', () => {
  const data = filesCorpus(join(root, 'lib'), 50_000, /\.ts$/)
  for (const f of formats) {
    const enc = modules[f].createEncoder({ level: 6 })
    const dst = new Uint8Array(1 << 20)
    const parts: Uint8Array[] = []
    assert.is(enc.transform(data.subarray(0, 30_000), dst, false), Status.Done)
    parts.push(dst.slice(0, enc.written))
    assert.is(enc.flush(dst), Status.Done)
    parts.push(dst.slice(0, enc.written))
    const partial = zDecode(f, concat(...parts), { finishFlush: zlib.constants.Z_SYNC_FLUSH })
    assert.ok(same(partial, data.subarray(0, 30_000)), `${f}: flushed output decodes to ${partial.length} bytes`)
    // Our decoder says NeedMoreData after the flushed part, with all of it output.
    const r = decode(modules[f].createDecoder({}), concat(...parts))
    assert.is(r.status, Status.NeedMoreData)
    assert.ok(same(r.out, data.subarray(0, 30_000)))
    assert.is(enc.transform(data.subarray(30_000), dst, true), Status.Done)
    parts.push(dst.slice(0, enc.written))
    assert.ok(same(zDecode(f, concat(...parts)), data))
  }
})

/** A gzip member with every optional header field (RFC 1952 section 2.3). */
function gzipWithHeaders(data: Uint8Array, level: number, opts: { extra?: Uint8Array; name?: string; comment?: string; hcrc?: boolean }): Uint8Array {
  let flags = 0
  const parts: Uint8Array[] = []
  if (opts.extra) flags |= 4
  if (opts.name !== undefined) flags |= 8
  if (opts.comment !== undefined) flags |= 16
  if (opts.hcrc) flags |= 2
  parts.push(new Uint8Array([0x1f, 0x8b, 8, flags, 1, 2, 3, 4, 0, 3]))
  if (opts.extra) parts.push(new Uint8Array([opts.extra.length & 0xff, opts.extra.length >> 8]), opts.extra)
  if (opts.name !== undefined) parts.push(new TextEncoder().encode(opts.name), new Uint8Array([0]))
  if (opts.comment !== undefined) parts.push(new TextEncoder().encode(opts.comment), new Uint8Array([0]))
  if (opts.hcrc) {
    const c = crc32(concat(...parts))
    parts.push(new Uint8Array([c & 0xff, (c >>> 8) & 0xff]))
  }
  parts.push(zlib.deflateRawSync(data, { level }))
  const t = Buffer.alloc(8)
  t.writeUInt32LE(zlib.crc32(data), 0)
  t.writeUInt32LE(data.length >>> 0, 4)
  parts.push(t)
  return concat(...parts)
}

test('gzip FEXTRA, FNAME, FCOMMENT, FHCRC parse (node:zlib agrees), at every split', () => {
  const data = filesCorpus(join(root, 'lib'), 5_000, /\.ts$/)
  const variants = [
    { name: 'file.txt' },
    { name: '', comment: 'a comment' },
    { extra: randomBytes(300), name: 'n', comment: 'c', hcrc: true },
    { hcrc: true },
  ]
  for (const v of variants) {
    for (const level of [1, 6, 9]) {
      const comp = gzipWithHeaders(data, level, v)
      assert.ok(same(zlib.gunzipSync(comp), data), 'node:zlib accepts the crafted member')
      for (const split of [1, 3, comp.length]) {
        const r = decode(gzip.createDecoder({}), comp, split)
        assert.is(r.status, Status.Done, `${JSON.stringify(v)} split ${split}: ${r.failure?.message}`)
        assert.ok(same(r.out, data))
      }
    }
  }
  // A wrong header CRC is a checksum mismatch at the FHCRC bytes.
  const comp = gzipWithHeaders(data, 6, { name: 'x', hcrc: true })
  comp[12] ^= 0xff
  assert.throws(() => zlib.gunzipSync(comp))
  const r = decode(gzip.createDecoder({}), comp)
  assert.is(r.status, Status.InvalidData)
  assert.is(r.failure!.code, 'CHECKSUM_MISMATCH')
  assert.is(r.failure!.offset, 12)
})

test('Done latches at the end of one stream; trailing bytes stay unconsumed', () => {
  const data = filesCorpus(join(root, 'lib'), 10_000, /\.ts$/)
  const junk = new Uint8Array([0x1f, 0x8b, 0xde, 0xad, 0xbe, 0xef])
  for (const f of formats) {
    for (const level of [0, 6]) {
      const comp = zEncode(f, data, level)
      for (const split of [1, 2, comp.length + junk.length]) {
        const codec = modules[f].createDecoder({})
        const r = decode(codec, concat(comp, junk), split)
        assert.is(r.status, Status.Done, `${f} split ${split}`)
        assert.is(r.consumed, comp.length, `${f} level ${level} split ${split}: consumed ${r.consumed} of ${comp.length}`)
        assert.ok(same(r.out, data))
        // Latched: more calls consume and write nothing.
        assert.is(codec.transform(junk, new Uint8Array(10), true), Status.Done)
        assert.is(codec.consumed, 0)
        assert.is(codec.written, 0)
      }
    }
  }
})

test('exact-fit destination returns Done, empty destination never loses data', () => {
  const data = filesCorpus(join(root, 'lib'), 10_000, /\.ts$/)
  for (const f of formats) {
    const comp = zEncode(f, data, 6)
    const codec = modules[f].createDecoder({})
    const dst = new Uint8Array(data.length)
    assert.is(codec.transform(comp, new Uint8Array(0), true), Status.DestinationTooSmall)
    const rest = comp.subarray(codec.consumed)
    assert.is(codec.transform(rest, dst, true), Status.Done)
    assert.is(codec.written, data.length)
    assert.ok(same(dst, data))
  }
})

test('multi-member gzip: Done after member 1, member 2 after reset()', () => {
  const a = filesCorpus(join(root, 'lib'), 7_000, /\.ts$/)
  const b = binarySlice(2_000_000, 9_000)
  const m1 = zlib.gzipSync(a)
  const m2 = gzipWithHeaders(b, 9, { name: 'second' })
  const both = concat(m1, m2)
  for (const split of [1, 100, both.length]) {
    const codec = gzip.createDecoder({})
    const r1 = decode(codec, both, split)
    assert.is(r1.status, Status.Done)
    assert.is(r1.consumed, m1.length)
    assert.ok(same(r1.out, a))
    codec.reset()
    const r2 = decode(codec, both.subarray(r1.consumed), split)
    assert.is(r2.status, Status.Done)
    assert.is(r2.consumed, m2.length)
    assert.ok(same(r2.out, b))
  }
  assert.ok(same(zlib.gunzipSync(both), concat(a, b)))
})

test('truncation at every length -> NeedMoreData with a correct prefix of the output', () => {
  const data = filesCorpus(join(root, 'lib'), 3_000, /\.ts$/)
  for (const f of formats) {
    for (const level of [0, 1, 9]) {
      const comp = f === 'gzip' ? gzipWithHeaders(data, level, { name: 'n', comment: 'c', extra: new Uint8Array(5), hcrc: true }) : zEncode(f, data, level)
      for (let k = 0; k < comp.length; k++) {
        const cut = comp.subarray(0, k)
        for (const split of k % 7 === 0 ? [1, cut.length || 1] : [cut.length || 1]) {
          const r = decode(modules[f].createDecoder({}), cut, split)
          assert.is(r.status, Status.NeedMoreData, `${f} level ${level} cut at ${k} of ${comp.length}: ${statusName(r.status)} ${r.failure?.message}`)
          assert.is(r.consumed, k)
          assert.ok(same(r.out, data.subarray(0, r.out.length)), `${f} cut at ${k}: output is not a prefix`)
        }
      }
    }
  }
})

test('corrupt headers and blocks -> InvalidData with code, message and offset', () => {
  const data = filesCorpus(join(root, 'lib'), 3_000, /\.ts$/)
  const g = zlib.gzipSync(data)
  const z = zlib.deflateSync(data)
  const cases: Array<[string, (typeof formats)[number], Uint8Array, string, number]> = [
    ['gzip bad magic', 'gzip', new Uint8Array([0x1f, 0x8c]), 'INVALID_DATA', 1],
    ['gzip not gzip', 'gzip', new Uint8Array([0x00]), 'INVALID_DATA', 0],
    ['gzip CM 7', 'gzip', new Uint8Array([0x1f, 0x8b, 7]), 'INVALID_DATA', 2],
    ['gzip reserved flags', 'gzip', new Uint8Array([0x1f, 0x8b, 8, 0x20]), 'INVALID_DATA', 3],
    ['zlib CM 7', 'deflate', new Uint8Array([0x77]), 'INVALID_DATA', 0],
    ['zlib window bits 16', 'deflate', new Uint8Array([0x88]), 'INVALID_DATA', 0],
    ['zlib FCHECK', 'deflate', new Uint8Array([0x78, 0x9d]), 'INVALID_DATA', 1],
    ['zlib FDICT', 'deflate', new Uint8Array([0x78, 0xbb]), 'UNSUPPORTED', 1],
    // BFINAL=1 BTYPE=3
    ['block type 3', 'deflate-raw', new Uint8Array([0x07]), 'INVALID_DATA', 0],
    // Stored block, LEN=5, NLEN=5 (should be ~5).
    ['stored length', 'deflate-raw', new Uint8Array([0x01, 5, 0, 5, 0]), 'INVALID_DATA', 3],
    // Judged at NLEN's first byte, without waiting for the second.
    ['stored length, early', 'deflate-raw', new Uint8Array([0x01, 5, 0, 5]), 'INVALID_DATA', 3],
    // Dynamic block with HLIT = 30 (287 codes): judged from the first byte alone.
    ['too many literal/length codes', 'deflate-raw', new Uint8Array([0xf5]), 'INVALID_DATA', 0],
    // HLIT = 29 (fine), HDIST = 31 (32 codes).
    ['too many distance codes', 'deflate-raw', new Uint8Array([0x05 | (29 << 3), 31]), 'INVALID_DATA', 1],
    // Fixed block: length 3 (symbol 257 = 0000001), distance code 0 (00000) = 1 back, nothing decoded yet.
    ['distance too far', 'deflate-raw', new Uint8Array([0x03, 0x02, 0x00]), 'INVALID_DATA', 1],
    ['gzip body corrupt', 'gzip', concat(g.subarray(0, 10), new Uint8Array([0xff]), g.subarray(11)), 'INVALID_DATA', 10],
  ]
  for (const [name, f, bytes, code, offset] of cases) {
    // node:zlib rejects them too once it has a whole header (we reject at the first bad byte).
    const padded = concat(bytes, new Uint8Array(16))
    assert.throws(() => zDecode(f, padded, { finishFlush: zlib.constants.Z_SYNC_FLUSH }), undefined, `node:zlib accepts ${name}`)
    for (const split of [1, bytes.length]) {
      const r = decode(modules[f].createDecoder({}), bytes, split)
      assert.is(r.status, Status.InvalidData, `${name}: ${statusName(r.status)}`)
      assert.is(r.failure!.code, code, name)
      assert.is(r.failure!.offset, offset, `${name}: ${r.failure!.message}`)
      assert.ok(r.failure!.message.length > 10)
    }
  }
  // Stays InvalidData until reset.
  const codec = deflate.createDecoder({})
  assert.is(codec.transform(new Uint8Array([0x78, 0x9d]), new Uint8Array(10), false), Status.InvalidData)
  assert.is(codec.transform(z, new Uint8Array(10), false), Status.InvalidData)
  codec.reset()
  assert.is(decode(codec, z).status, Status.Done)
})

test('checksum mismatches: CRC-32, ISIZE, Adler-32', () => {
  const data = filesCorpus(join(root, 'lib'), 8_000, /\.ts$/)
  const g = zlib.gzipSync(data)
  const z = zlib.deflateSync(data)
  for (const [f, comp, at, what] of [
    ['gzip', g, g.length - 8, 'CRC-32'],
    ['gzip', g, g.length - 5, 'CRC-32'],
    ['gzip', g, g.length - 1, 'ISIZE'],
    ['deflate', z, z.length - 4, 'Adler-32'],
    ['deflate', z, z.length - 1, 'Adler-32'],
  ] as const) {
    const bad = new Uint8Array(comp)
    bad[at] ^= 1
    assert.throws(() => zDecode(f, bad))
    for (const split of [1, bad.length]) {
      const r = decode(modules[f].createDecoder({}), bad, split)
      assert.is(r.status, Status.InvalidData)
      assert.is(r.failure!.code, 'CHECKSUM_MISMATCH')
      assert.is(r.failure!.offset, at)
      assert.match(r.failure!.message, what)
    }
  }
  // The checksums themselves match node:zlib.
  const bin = binarySlice(0, 300_000)
  assert.is(crc32(bin), zlib.crc32(bin))
  assert.is(crc32(bin.subarray(1000), crc32(bin.subarray(0, 1000))), zlib.crc32(bin))
  const zb = zlib.deflateSync(bin)
  assert.is(adler32(bin), zb.readUInt32BE(zb.length - 4))
})

test('every single-byte corruption: same verdict and output as node:zlib', () => {
  const data = filesCorpus(join(root, 'lib'), 1_500, /\.ts$/)
  for (const f of formats) {
    for (const level of [1, 9]) {
      const comp = zEncode(f, data, level)
      for (let k = 0; k < comp.length; k++) {
        for (const flip of [0x01, 0xff]) {
          const bad = new Uint8Array(comp)
          bad[k] ^= flip
          let expected: Buffer | null = null
          try {
            expected = zDecode(f, bad)
          } catch {}
          const r = decode(modules[f].createDecoder({}), bad)
          if (expected) {
            // node:zlib accepts; gzip/zlib with valid checksum, or raw deflate.
            assert.is(r.status, Status.Done, `${f} byte ${k} ^ ${flip}: zlib accepts, we say ${statusName(r.status)} ${r.failure?.message}`)
            assert.ok(same(r.out, expected))
          } else {
            assert.ok(r.status !== Status.Done || r.consumed < bad.length, `${f} byte ${k} ^ ${flip}: zlib rejects, we say Done`)
            // Corruption shows where the data stops making sense: at or after the bad byte
            // (a changed code table may only fail later), within the stream.
            if (r.status === Status.InvalidData) assert.ok(r.failure!.offset >= Math.min(k, 0) && r.failure!.offset <= bad.length, `offset ${r.failure!.offset} for byte ${k}`)
          }
        }
      }
    }
  }
})

test('differential fuzz: random dynamic and fixed blocks decode exactly as node:zlib does', () => {
  // Random bytes after a forced "final dynamic block" header exercise the table
  // builder (over-subscribed, incomplete, long codes through subtables) and the
  // decoders on garbage. node:zlib with Z_SYNC_FLUSH returns what it could decode.
  let seed = 0x2545f491
  const next = (): number => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return seed >>> 0
  }
  let agreedInvalid = 0
  for (let k = 0; k < 3000; k++) {
    const bytes = new Uint8Array(8 + (next() % 200))
    for (let j = 0; j < bytes.length; j++) bytes[j] = next() & 0xff
    // BFINAL = 1 with BTYPE = 10 (dynamic) or 01 (fixed).
    bytes[0] = (bytes[0]! & ~7) | (k % 2 ? 5 : 3)
    let expected: Buffer | null = null
    try {
      expected = zlib.inflateRawSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
    } catch {}
    const r = decode(deflateRaw.createDecoder({}), bytes, k % 3 === 0 ? 1 : bytes.length, k % 5 === 0 ? 1 : 1 << 16)
    if (expected === null) {
      assert.is(r.status, Status.InvalidData, `case ${k}: zlib rejects, we say ${statusName(r.status)}`)
      agreedInvalid++
    } else {
      assert.ok(r.status === Status.Done || r.status === Status.NeedMoreData, `case ${k}: zlib accepts, we say ${statusName(r.status)}: ${r.failure?.message}`)
      assert.ok(same(r.out, expected), `case ${k}: ${r.out.length} bytes vs zlib's ${expected.length}`)
    }
  }
  assert.ok(agreedInvalid > 100)
})

test('real files from node_modules and the project decode like node:zlib', () => {
  const files = [
    join(root, 'node_modules/typescript/lib/lib.dom.d.ts'),
    join(root, 'node_modules/fflate/esm/index.mjs'),
    join(root, 'package-lock.json'),
    join(root, 'node_modules/@bokuweb/zstd-wasm/dist/web/zstd.wasm'),
  ]
  for (const file of files) {
    let data: Uint8Array
    try {
      data = new Uint8Array(readFileSync(file))
    } catch {
      continue
    }
    const comp = zlib.gzipSync(data)
    const r = decode(gzip.createDecoder({}), comp, 65_536, 65_536)
    assert.is(r.status, Status.Done, file)
    assert.ok(same(r.out, data), file)
  }
})

test.run()
