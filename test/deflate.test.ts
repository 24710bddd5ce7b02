// The deflate family (gzip, zlib, raw deflate) on each of its portable engines, 'js'
// (lib/codecs/inflate.ts, fflate encodes) and 'wasm' (lib/codecs/inflate-wasm.ts + wasm/inflate.wat, zlib-ng encodes),
// every case run once per engine: node:zlib as the oracle in both directions, on real
// files; all levels on text and binary with pseudo-random splits and rooms, 1-byte
// steps, exact ends (gzip multi-member, trailing data), truncation at every length,
// every single-byte corruption, random dynamic/fixed blocks, exact error offsets and
// checksums, several decoders interleaved; verdicts and offsets also compared with the
// other engine. (Both engines encode with the same TypeScript encoder, lib/registry.ts.)
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
import { loadDeflateWasm } from '../lib/codecs/deflate-wasm.js'
import { deflate as jsDeflate, deflateRaw as jsDeflateRaw, gzip as jsGzip } from '../lib/codecs/deflate-js.js'
import { decodeSpans, encodeSpans, type Decoded } from './_span.js'
import { binarySlice, filesCorpus, randomBytes, samples } from './_corpus.js'
import { root } from './_fixtures.js'

const formats = ['gzip', 'deflate', 'deflate-raw'] as const
type F = (typeof formats)[number]
// The wasm engine as the registry loads it: the inflate kernel decodes, zlib-ng encodes.
const wasm = await loadDeflateWasm()
/** The deflate family's portable engines (enginesOf in lib/formats.ts lists 'node' too: test/node-engine.test.ts). */
const engines: Record<'js' | 'wasm', Record<F, CodecModule>> = {
  js: { gzip: jsGzip, deflate: jsDeflate, 'deflate-raw': jsDeflateRaw },
  wasm: { gzip: wasm.gzip, deflate: wasm.deflate, 'deflate-raw': wasm.deflateRaw },
}

/** node:zlib one-shot compressors and decompressors per format. */
const zEncode = (f: Format, data: Uint8Array, level: number): Uint8Array =>
  new Uint8Array(f === 'gzip' ? zlib.gzipSync(data, { level }) : f === 'deflate' ? zlib.deflateSync(data, { level }) : zlib.deflateRawSync(data, { level }))
const zDecode = (f: Format, data: Uint8Array, opts: zlib.ZlibOptions = {}): Buffer =>
  f === 'gzip' ? zlib.gunzipSync(data, opts) : f === 'deflate' ? zlib.inflateSync(data, opts) : zlib.inflateRawSync(data, opts)

const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))
const joinParts = (parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0

/** Decodes with the contract checked on every call (test/_span.ts); NeedMoreData consumes all. */
const decode = (codec: Decoder, input: Uint8Array, split?: number, room?: number): Decoded => decodeSpans(codec, input, { split, room, consumesAll: true })
/** The same with sizes drawn per call. */
const decodeBy = (codec: Decoder, input: Uint8Array, split: () => number, room: () => number): Decoded => decodeSpans(codec, input, { split, room, consumesAll: true })
const encode = (codec: Encoder, input: Uint8Array, split?: number, room?: number, flushEach = false): Uint8Array => encodeSpans(codec, input, { split, room, flushEach })

const fixed = (n: number) => () => n
/** Deterministic pseudo-random sizes in [1, n]. */
function sizes(seed: number, n: number): () => number {
  let s = seed >>> 0 || 1
  return () => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return 1 + ((s >>> 0) % n)
  }
}

const corpora = (): Array<[string, Uint8Array]> => [
  ...samples(),
  ['project sources (lib/codecs)', filesCorpus(join(root, 'lib/codecs'), 400_000, /\.ts$/)],
  ['node_modules .js 1 MB', filesCorpus(join(root, 'node_modules/typescript/lib'), 1_000_000, /\.js$/)],
  ['node binary first 1 MB', binarySlice(0, 1_000_000)],
]

for (const engine of ['js', 'wasm'] as const) {
  const modules = engines[engine]
  const otherName = engine === 'js' ? 'wasm' : 'js'
  const other = engines[otherName]
  const { gzip, deflate, 'deflate-raw': deflateRaw } = modules
  const whole = (input: Uint8Array, room = 1 << 20): Decoded => decodeBy(modules['deflate-raw'].createDecoder({}), input, fixed(input.length || 1), fixed(room))

  test(`${engine}: node:zlib output at levels 0, 1, 6, 9 decodes to the original, one shot`, () => {
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

  test(`${engine}: our output at levels 0-9 decodes with node:zlib`, () => {
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

  test(`${engine}: default level is 6; bad levels throw INVALID_OPTION`, () => {
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

  test(`${engine}: 1-byte input splits and 1-byte destinations decode exactly`, () => {
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

  test(`${engine}: pseudo-random splits and rooms over 1 MB of text and binary`, () => {
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

  test(`${engine}: encoder: 1-byte splits, 1-byte destinations, sync flush after every piece`, () => {
    const data = filesCorpus(join(root, 'lib'), 30_000, /\.ts$/)
    for (const f of formats) {
      for (const [split, room, flushEach] of [[1, 1 << 16, false], [1 << 20, 1, false], [997, 1, true], [5000, 333, true]] as const) {
        const comp = encode(modules[f].createEncoder({ level: 6 }), data, split, room, flushEach)
        assert.ok(same(zDecode(f, comp), data), `${f} split ${split} room ${room}`)
      }
    }
  })

  test(`${engine}: encoder flush: output so far decodes to all input so far`, () => {
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

  test(`${engine}: gzip FEXTRA, FNAME, FCOMMENT, FHCRC parse (node:zlib agrees), at every split`, () => {
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

  test(`${engine}: exact-fit destination returns Done, empty destination never loses data`, () => {
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

  test(`${engine}: multi-member gzip: Done after member 1, member 2 after reset()`, () => {
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

  test(`${engine}: truncation at every length -> NeedMoreData with a correct prefix of the output`, () => {
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

  test(`${engine}: corrupt headers and blocks -> InvalidData with code, message and offset`, () => {
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
      ['gzip CRC-32', 'gzip', concat(g.subarray(0, g.length - 8), new Uint8Array([g[g.length - 8]! ^ 1]), g.subarray(g.length - 7)), 'CHECKSUM_MISMATCH', g.length - 8],
    ]
    for (const [name, f, bytes, code, offset] of cases) {
      // node:zlib rejects them too once it has a whole header (we reject at the first bad byte).
      const padded = concat(bytes, new Uint8Array(16))
      assert.throws(() => zDecode(f, padded, { finishFlush: zlib.constants.Z_SYNC_FLUSH }), undefined, `node:zlib accepts ${name}`)
      for (const split of [1, 2, bytes.length]) {
        const r = decode(modules[f].createDecoder({}), bytes, split)
        assert.is(r.status, Status.InvalidData, `${name}: ${statusName(r.status)}`)
        assert.is(r.failure!.code, code, name)
        assert.is(r.failure!.offset, offset, `${name}: ${r.failure!.message}`)
        assert.ok(r.failure!.message.length > 10)
        // The other engine says the same.
        const j = decode(other[f].createDecoder({}), bytes, split)
        assert.is(j.failure?.offset, offset, `${name} (${otherName})`)
      }
    }
    // Stays InvalidData until reset.
    const codec = deflate.createDecoder({})
    assert.is(codec.transform(new Uint8Array([0x78, 0x9d]), new Uint8Array(10), false), Status.InvalidData)
    assert.is(codec.transform(z, new Uint8Array(10), false), Status.InvalidData)
    codec.reset()
    assert.is(decode(codec, z).status, Status.Done)
    const raw = deflateRaw.createDecoder({})
    assert.is(raw.transform(new Uint8Array([0x07]), new Uint8Array(10), false), Status.InvalidData)
    assert.is(raw.transform(zEncode('deflate-raw', data, 6), new Uint8Array(10), false), Status.InvalidData)
    raw.reset()
    assert.is(decode(raw, zEncode('deflate-raw', data, 6)).status, Status.Done)
  })

  test(`${engine}: checksum mismatches: CRC-32, ISIZE, Adler-32`, () => {
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

  test(`${engine}: real files from node_modules and the project decode like node:zlib`, () => {
    const files = [
      join(root, 'node_modules/typescript/lib/lib.dom.d.ts'),
      join(root, 'node_modules/fflate/esm/index.mjs'),
      join(root, 'package-lock.json'),
      // A binary file of the repository itself (compiled WebAssembly).
      join(root, 'lib/codecs/wasm/zstd-dec.wasm'),
    ]
    for (const file of files) {
      let data: Uint8Array
      try {
        data = new Uint8Array(readFileSync(file))
      } catch (e) {
        console.log(`# skipped: ${engine}: ${file} (${(e as Error).message.split('\n')[0]})`)
        continue
      }
      const comp = zlib.gzipSync(data)
      const r = decode(gzip.createDecoder({}), comp, 65_536, 65_536)
      assert.is(r.status, Status.Done, file)
      assert.ok(same(r.out, data), file)
    }
  })

  test(`${engine}: node:zlib output at levels 0-9, text and binary, one shot and pseudo-random splits and rooms`, () => {
    const corpora: Array<[string, Uint8Array]> = [
      ['text 400 KB', filesCorpus(join(root, 'node_modules/typescript/lib'), 400_000, /\.d\.ts$/)],
      ['binary 400 KB', binarySlice(2_000_000, 400_000)],
      ['random 50 KB', randomBytes(50_000, 7)],
    ]
    let k = 0
    for (const [name, data] of corpora) {
      for (const f of formats) {
        for (let level = 0; level <= 9; level++) {
          const comp = zEncode(f, data, level)
          const runs: Array<[string, () => number, () => number]> = [
            ['one shot', fixed(comp.length), fixed(data.length)],
            ['random', sizes(++k * 7919, 70_000), sizes(k * 104729, 300_000)],
          ]
          // Small pieces at a few levels (time budget).
          if (level % 4 === 1) runs.push(['small random', sizes(++k * 7919, 300), sizes(k * 104729, 700)])
          for (const [how, split, room] of runs) {
            const r = decodeBy(modules[f].createDecoder({}), comp, split, room)
            assert.is(r.status, Status.Done, `${f} ${name} level ${level} ${how}: ${statusName(r.status)} ${r.failure?.message}`)
            assert.is(r.consumed, comp.length, `${f} ${name} level ${level} ${how}`)
            assert.ok(same(r.out, data), `${f} ${name} level ${level} ${how}: output differs`)
          }
        }
      }
    }
  })

  test(`${engine}: samples: 1-byte input splits and 1-byte destinations, exact-fit destinations`, () => {
    for (const [name, data] of samples().slice(0, 5)) {
      for (const f of formats) {
        const comp = zEncode(f, data, 6)
        for (const [split, room] of [[1, 1 << 16], [1 << 20, 1], [1, 1], [7, 300], [4096, 259]]) {
          const r = decodeBy(modules[f].createDecoder({}), comp, fixed(split), fixed(room))
          assert.is(r.status, Status.Done, `${f} ${name} split ${split} room ${room}: ${statusName(r.status)} ${r.failure?.message}`)
          assert.is(r.consumed, comp.length)
          assert.ok(same(r.out, data), `${f} ${name} split ${split} room ${room}`)
        }
        // Exact fit: Done in one call with everything written.
        const dec = modules[f].createDecoder({})
        const dst = new Uint8Array(data.length)
        assert.is(statusName(dec.transform(comp, dst, true)), 'Done', `${f} ${name} exact fit`)
        assert.is(dec.written, data.length)
        assert.is(dec.consumed, comp.length)
        assert.ok(same(dst, data))
      }
    }
  })

  test(`${engine}: empty destination makes no false progress and loses nothing`, () => {
    const data = filesCorpus(join(root, 'lib'), 10_000, /\.ts$/)
    for (const f of formats) {
      const comp = zEncode(f, data, 6)
      const codec = modules[f].createDecoder({})
      assert.is(statusName(codec.transform(comp, new Uint8Array(0), true)), 'DestinationTooSmall')
      assert.is(codec.written, 0)
      const rest = comp.subarray(codec.consumed)
      const dst = new Uint8Array(data.length)
      assert.is(statusName(codec.transform(rest, dst, true)), 'Done')
      assert.is(codec.written, data.length)
      assert.is(codec.consumed, rest.length)
      assert.ok(same(dst, data))
    }
  })

  test(`${engine}: Done at the exact end: trailing bytes and the next gzip member stay unconsumed`, () => {
    const data = filesCorpus(join(root, 'lib'), 10_000, /\.ts$/)
    const junk = new Uint8Array([0x1f, 0x8b, 0xde, 0xad, 0xbe, 0xef])
    for (const f of formats) {
      for (const level of [0, 1, 6, 9]) {
        const comp = zEncode(f, data, level)
        for (const split of [1, 2, 3, 64, comp.length + junk.length]) {
          const codec = modules[f].createDecoder({})
          const r = decodeBy(codec, concat(comp, junk), fixed(split), fixed(1 << 16))
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
    const a = filesCorpus(join(root, 'lib'), 7_000, /\.ts$/)
    const b = binarySlice(2_000_000, 90_000)
    const both = concat(zEncode('gzip', a, 6), zEncode('gzip', b, 9), zEncode('gzip', new Uint8Array(0), 6))
    for (const split of [1, 100, 65536, both.length]) {
      const codec = modules.gzip.createDecoder({})
      let rest = both
      for (const expected of [a, b, new Uint8Array(0)]) {
        codec.reset()
        const r = decodeBy(codec, rest, fixed(split), fixed(5000))
        assert.is(r.status, Status.Done, `split ${split}`)
        assert.ok(same(r.out, expected), `split ${split}`)
        rest = rest.subarray(r.consumed)
      }
      assert.is(rest.length, 0)
    }
  })

  test(`${engine}: truncation at every length: NeedMoreData, all consumed, output a prefix`, () => {
    const data = filesCorpus(join(root, 'lib'), 3_000, /\.ts$/)
    for (const f of formats) {
      for (const level of [0, 1, 9]) {
        const comp = zEncode(f, data, level)
        for (let k = 0; k < comp.length; k++) {
          const cut = comp.subarray(0, k)
          for (const split of k % 7 === 0 ? [1, cut.length || 1] : [cut.length || 1]) {
            const r = decodeBy(modules[f].createDecoder({}), cut, fixed(split), fixed(1 << 16))
            assert.is(r.status, Status.NeedMoreData, `${f} level ${level} cut at ${k} of ${comp.length}: ${statusName(r.status)} ${r.failure?.message}`)
            assert.is(r.consumed, k)
            assert.ok(same(r.out, data.subarray(0, r.out.length)), `${f} cut at ${k}: output is not a prefix`)
          }
        }
      }
    }
  })

  test(`${engine}: every single-byte corruption: same verdict and output as node:zlib and the other engine`, () => {
    const data = filesCorpus(join(root, 'lib'), 1_500, /\.ts$/)
    for (const f of formats) {
      for (const level of [1, 9]) {
        const comp = zEncode(f, data, level)
        for (let k = 0; k < comp.length; k++) {
          for (const flip of [0x01, 0xff]) {
            const bad = new Uint8Array(comp)
            bad[k]! ^= flip
            let expected: Buffer | null = null
            try {
              expected = zDecode(f, bad)
            } catch {}
            const r = decodeBy(modules[f].createDecoder({}), bad, fixed(k % 3 === 0 ? 5 : bad.length), fixed(1 << 16))
            const j = decodeBy(other[f].createDecoder({}), bad, fixed(bad.length), fixed(1 << 16))
            assert.is(statusName(r.status), statusName(j.status), `${f} byte ${k} ^ ${flip}: ${otherName} ${j.failure?.message}, ${engine} ${r.failure?.message}`)
            assert.is(r.consumed, j.consumed, `${f} byte ${k} ^ ${flip}: consumed`)
            if (expected) {
              assert.is(r.status, Status.Done, `${f} byte ${k} ^ ${flip}: zlib accepts, we say ${statusName(r.status)} ${r.failure?.message}`)
              assert.ok(same(r.out, expected))
            } else {
              assert.ok(r.status !== Status.Done || r.consumed < bad.length, `${f} byte ${k} ^ ${flip}: zlib rejects, we say Done`)
              if (r.status === Status.InvalidData) assert.ok(r.failure!.offset >= k && r.failure!.offset <= bad.length, `offset ${r.failure!.offset} for byte ${k}`)
            }
          }
        }
      }
    }
  })

  test(`${engine}: differential fuzz: random dynamic and fixed blocks decode as node:zlib and the other engine do`, () => {
    // Random bytes after a forced "final dynamic block" header exercise the table
    // builder (over-subscribed, incomplete, long codes through subtables) and the
    // decoders on garbage. node:zlib with Z_SYNC_FLUSH returns what it could decode.
    // Two series: 3,000 inputs of 8-207 bytes, 4,000 of 8-307 (different generators).
    const series: Array<[count: number, spread: number, next: () => number]> = [
      [3000, 200, sizes(0x9e3779b9, 0xffffffff)],
      [4000, 300, sizes(0x2545f491, 0xffffffff)],
    ]
    let agreedInvalid = 0
    for (const [count, spread, next] of series) {
      for (let k = 0; k < count; k++) {
        const bytes = new Uint8Array(8 + (next() % spread))
        for (let j = 0; j < bytes.length; j++) bytes[j] = next() & 0xff
        // BFINAL = 1 with BTYPE = 10 (dynamic) or 01 (fixed).
        bytes[0] = (bytes[0]! & ~7) | (k % 2 ? 5 : 3)
        let expected: Buffer | null = null
        try {
          expected = zlib.inflateRawSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
        } catch {}
        const split = k % 3 === 0 ? 1 : bytes.length
        const room = k % 5 === 0 ? 1 : 1 << 16
        const r = decodeBy(modules['deflate-raw'].createDecoder({}), bytes, fixed(split), fixed(room))
        const j = decodeBy(other['deflate-raw'].createDecoder({}), bytes, fixed(split), fixed(room))
        assert.is(statusName(r.status), statusName(j.status), `case ${k}: ${otherName} ${j.failure?.message}; ${engine} ${r.failure?.message}`)
        assert.is(r.consumed, j.consumed, `case ${k}: consumed`)
        if (expected === null) {
          assert.is(r.status, Status.InvalidData, `case ${k}: zlib rejects, we say ${statusName(r.status)}`)
          agreedInvalid++
        } else {
          assert.ok(r.status === Status.Done || r.status === Status.NeedMoreData, `case ${k}: zlib accepts, we say ${statusName(r.status)}: ${r.failure?.message}`)
          assert.ok(same(r.out, expected), `case ${k}: ${r.out.length} bytes vs zlib's ${expected.length}`)
        }
      }
    }
    assert.ok(agreedInvalid > 200)
  })

  test(`${engine}: stored blocks, empty blocks, long matches and distance 32768 through the window`, () => {
    // Stored: level 0 over 300 KB (several 64 KiB stored blocks), decoded with small rooms.
    const bin = binarySlice(5_000_000, 300_000)
    const r0 = decodeBy(modules['deflate-raw'].createDecoder({}), zEncode('deflate-raw', bin, 0), fixed(10_000), fixed(3_333))
    assert.is(r0.status, Status.Done)
    assert.ok(same(r0.out, bin))
    // A 40 KB random block repeated: matches at distances near 32768 that cross calls.
    const unit = randomBytes(32_768, 99)
    const data = concat(unit, unit, unit, randomBytes(1000, 5), unit)
    const comp = zEncode('deflate-raw', data, 9)
    for (const [split, room] of [[13, 999], [1 << 20, 1 << 20], [4096, 65536]]) {
      const r = decodeBy(modules['deflate-raw'].createDecoder({}), comp, fixed(split), fixed(room))
      assert.is(r.status, Status.Done)
      assert.ok(same(r.out, data), `split ${split} room ${room}`)
    }
    // Runs (distance 1), short periods (2..7) and long matches of 258.
    const runs = new Uint8Array(200_000)
    for (let i = 0; i < runs.length; i++) runs[i] = i < 50_000 ? 7 : i < 100_000 ? i % 3 : i < 150_000 ? (i % 7) * 31 : (i * 2654435761) >>> 24
    for (const level of [1, 6, 9]) {
      const r = whole(zEncode('deflate-raw', runs, level))
      assert.is(r.status, Status.Done)
      assert.ok(same(r.out, runs), `runs level ${level}`)
    }
    // 20 MB of zeros: many window slides, 1 output byte per 1000 input bits.
    const zeros = new Uint8Array(20 << 20)
    const rz = decodeBy(modules.gzip.createDecoder({}), zEncode('gzip', zeros, 6), fixed(65536), fixed(256 << 10))
    assert.is(rz.status, Status.Done)
    assert.ok(same(rz.out, zeros))
  })

  test(`${engine}: decoders interleaved (on the wasm engine: one shared instance) keep their own history and tables`, () => {
    const inputs = [
      filesCorpus(join(root, 'node_modules/typescript/lib'), 400_000, /\.d\.ts$/),
      binarySlice(7_000_000, 300_000),
      concat(randomBytes(40_000, 3), randomBytes(40_000, 3)),
      filesCorpus(join(root, 'lib'), 100_000, /\.ts$/),
    ]
    const fs: F[] = ['gzip', 'deflate', 'deflate-raw', 'gzip']
    const comps = inputs.map((d, k) => zEncode(fs[k]!, d, [1, 6, 9, 0][k]!))
    const decoders = fs.map((f) => modules[f].createDecoder({}))
    const pos = comps.map(() => 0)
    const outs: Uint8Array[][] = comps.map(() => [])
    const done = comps.map(() => false)
    const split = sizes(77, 5000)
    const room = sizes(78, 9000)
    while (done.some((d) => !d)) {
      for (let k = 0; k < comps.length; k++) {
        if (done[k]) continue
        const end = Math.min(comps[k]!.length, pos[k]! + split())
        const dst = new Uint8Array(room())
        const s = decoders[k]!.transform(comps[k]!.subarray(pos[k]!, end), dst, end === comps[k]!.length)
        pos[k]! += decoders[k]!.consumed
        outs[k]!.push(dst.slice(0, decoders[k]!.written))
        assert.ok(s !== Status.InvalidData, `${fs[k]}: ${decoders[k]!.failure?.message}`)
        if (s === Status.Done) done[k] = true
        else if (s === Status.NeedMoreData) assert.ok(end < comps[k]!.length, `${fs[k]} truncated`)
      }
    }
    for (let k = 0; k < comps.length; k++) {
      assert.is(pos[k], comps[k]!.length)
      assert.ok(same(joinParts(outs[k]!), inputs[k]!), `${fs[k]} ${k}`)
      decoders[k]!.dispose()
    }
    // A disposed decoder's successor starts clean.
    const again = decodeBy(modules.gzip.createDecoder({}), comps[0]!, fixed(65536), fixed(65536))
    assert.is(again.status, Status.Done)
    assert.ok(same(again.out, inputs[0]!))
  })

  test(`${engine}: gzip CRC-32 (in the wasm kernel on that engine): mismatches in CRC and ISIZE are caught at their byte`, () => {
    const data = binarySlice(1_000_000, 300_000)
    const g = zEncode('gzip', data, 6)
    for (const at of [g.length - 8, g.length - 5, g.length - 1]) {
      const bad = new Uint8Array(g)
      bad[at]! ^= 1
      for (const split of [1, 4096, bad.length]) {
        const r = decodeBy(modules.gzip.createDecoder({}), bad, fixed(split), fixed(65536))
        assert.is(r.status, Status.InvalidData)
        assert.is(r.failure!.code, 'CHECKSUM_MISMATCH')
        assert.is(r.failure!.offset, at)
      }
    }
    const z = zEncode('deflate', data, 6)
    const bad = new Uint8Array(z)
    bad[z.length - 1]! ^= 1
    const r = decodeBy(modules.deflate.createDecoder({}), bad, fixed(4096), fixed(65536))
    assert.is(r.failure!.code, 'CHECKSUM_MISMATCH')
  })
}

test.run()
