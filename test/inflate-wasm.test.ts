// The deflate family on engine 'wasm' (lib/codecs/inflate-wasm.ts + wasm/inflate.wat),
// with node:zlib as the oracle and the js engine as the reference for verdicts and
// error offsets: all levels on text and binary with pseudo-random splits and rooms,
// 1-byte steps, exact ends (gzip multi-member, trailing data), truncation at every
// length, every single-byte corruption, random dynamic/fixed blocks, exact error
// offsets, and several decoders interleaved on the one shared instance.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import zlib from 'node:zlib'
import { join } from 'node:path'
import type { Decoder, Format } from '../lib/codec.js'
import type { CodecModule } from '../lib/registry.js'
import { Status, statusName } from '../lib/status.js'
import { loadDeflateWasm } from '../lib/codecs/deflate-wasm.js'
import { deflate as jsDeflate, deflateRaw as jsDeflateRaw, gzip as jsGzip } from '../lib/codecs/gzip.js'
import { binarySlice, filesCorpus, randomBytes, samples } from './_corpus.js'
import { decodeSpans, type Decoded } from './_span.js'
import { root } from './_fixtures.js'

const wasm = await loadDeflateWasm()
const formats = ['gzip', 'deflate', 'deflate-raw'] as const
type F = (typeof formats)[number]
const modules: Record<F, CodecModule> = { gzip: wasm.gzip, deflate: wasm.deflate, 'deflate-raw': wasm.deflateRaw }
const jsModules: Record<F, CodecModule> = { gzip: jsGzip, deflate: jsDeflate, 'deflate-raw': jsDeflateRaw }

const zEncode = (f: Format, data: Uint8Array, level: number): Uint8Array =>
  new Uint8Array(f === 'gzip' ? zlib.gzipSync(data, { level }) : f === 'deflate' ? zlib.deflateSync(data, { level }) : zlib.deflateRawSync(data, { level }))
const zDecode = (f: Format, data: Uint8Array, opts: zlib.ZlibOptions = {}): Buffer =>
  f === 'gzip' ? zlib.gunzipSync(data, opts) : f === 'deflate' ? zlib.inflateSync(data, opts) : zlib.inflateRawSync(data, opts)
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))
const joinParts = (parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0

/** Decodes with the contract checked on every call (test/_span.ts); NeedMoreData consumes all. */
const decode = (codec: Decoder, input: Uint8Array, split: () => number, room: () => number): Decoded => decodeSpans(codec, input, { split, room, consumesAll: true })

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
const whole = (input: Uint8Array, room = 1 << 20): Decoded => decode(modules['deflate-raw'].createDecoder({}), input, fixed(input.length || 1), fixed(room))

test('node:zlib output at levels 0-9, text and binary, one shot and pseudo-random splits and rooms', () => {
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
          const r = decode(modules[f].createDecoder({}), comp, split, room)
          assert.is(r.status, Status.Done, `${f} ${name} level ${level} ${how}: ${statusName(r.status)} ${r.failure?.message}`)
          assert.is(r.consumed, comp.length, `${f} ${name} level ${level} ${how}`)
          assert.ok(same(r.out, data), `${f} ${name} level ${level} ${how}: output differs`)
        }
      }
    }
  }
})

test('samples: 1-byte input splits and 1-byte destinations, exact-fit destinations', () => {
  for (const [name, data] of samples().slice(0, 5)) {
    for (const f of formats) {
      const comp = zEncode(f, data, 6)
      for (const [split, room] of [[1, 1 << 16], [1 << 20, 1], [1, 1], [7, 300], [4096, 259]]) {
        const r = decode(modules[f].createDecoder({}), comp, fixed(split), fixed(room))
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

test('empty destination makes no false progress and loses nothing', () => {
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

test('Done at the exact end: trailing bytes and the next gzip member stay unconsumed', () => {
  const data = filesCorpus(join(root, 'lib'), 10_000, /\.ts$/)
  const junk = new Uint8Array([0x1f, 0x8b, 0xde, 0xad, 0xbe, 0xef])
  for (const f of formats) {
    for (const level of [0, 1, 6, 9]) {
      const comp = zEncode(f, data, level)
      for (const split of [1, 2, 3, 64, comp.length + junk.length]) {
        const codec = modules[f].createDecoder({})
        const r = decode(codec, concat(comp, junk), fixed(split), fixed(1 << 16))
        assert.is(r.status, Status.Done, `${f} split ${split}`)
        assert.is(r.consumed, comp.length, `${f} level ${level} split ${split}: consumed ${r.consumed} of ${comp.length}`)
        assert.ok(same(r.out, data))
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
      const r = decode(codec, rest, fixed(split), fixed(5000))
      assert.is(r.status, Status.Done, `split ${split}`)
      assert.ok(same(r.out, expected), `split ${split}`)
      rest = rest.subarray(r.consumed)
    }
    assert.is(rest.length, 0)
  }
})

test('truncation at every length: NeedMoreData, all consumed, output a prefix', () => {
  const data = filesCorpus(join(root, 'lib'), 3_000, /\.ts$/)
  for (const f of formats) {
    for (const level of [0, 1, 9]) {
      const comp = zEncode(f, data, level)
      for (let k = 0; k < comp.length; k++) {
        const cut = comp.subarray(0, k)
        for (const split of k % 7 === 0 ? [1, cut.length || 1] : [cut.length || 1]) {
          const r = decode(modules[f].createDecoder({}), cut, fixed(split), fixed(1 << 16))
          assert.is(r.status, Status.NeedMoreData, `${f} level ${level} cut at ${k} of ${comp.length}: ${statusName(r.status)} ${r.failure?.message}`)
          assert.is(r.consumed, k)
          assert.ok(same(r.out, data.subarray(0, r.out.length)), `${f} cut at ${k}: output is not a prefix`)
        }
      }
    }
  }
})

test('corrupt headers and blocks: InvalidData with code and the exact offset', () => {
  const data = filesCorpus(join(root, 'lib'), 3_000, /\.ts$/)
  const g = zEncode('gzip', data, 6)
  const cases: Array<[string, F, Uint8Array, string, number]> = [
    ['block type 3', 'deflate-raw', new Uint8Array([0x07]), 'INVALID_DATA', 0],
    ['stored length', 'deflate-raw', new Uint8Array([0x01, 5, 0, 5, 0]), 'INVALID_DATA', 3],
    ['stored length, early', 'deflate-raw', new Uint8Array([0x01, 5, 0, 5]), 'INVALID_DATA', 3],
    ['too many literal/length codes', 'deflate-raw', new Uint8Array([0xf5]), 'INVALID_DATA', 0],
    ['too many distance codes', 'deflate-raw', new Uint8Array([0x05 | (29 << 3), 31]), 'INVALID_DATA', 1],
    ['distance too far', 'deflate-raw', new Uint8Array([0x03, 0x02, 0x00]), 'INVALID_DATA', 1],
    ['gzip body corrupt', 'gzip', concat(g.subarray(0, 10), new Uint8Array([0xff]), g.subarray(11)), 'INVALID_DATA', 10],
    ['gzip CRC-32', 'gzip', concat(g.subarray(0, g.length - 8), new Uint8Array([g[g.length - 8]! ^ 1]), g.subarray(g.length - 7)), 'CHECKSUM_MISMATCH', g.length - 8],
  ]
  for (const [name, f, bytes, code, offset] of cases) {
    for (const split of [1, 2, bytes.length]) {
      const r = decode(modules[f].createDecoder({}), bytes, fixed(split), fixed(1 << 16))
      assert.is(r.status, Status.InvalidData, `${name}: ${statusName(r.status)}`)
      assert.is(r.failure!.code, code, name)
      assert.is(r.failure!.offset, offset, `${name}: ${r.failure!.message}`)
      // The js engine says the same.
      const j = decode(jsModules[f].createDecoder({}), bytes, fixed(split), fixed(1 << 16))
      assert.is(j.failure!.offset, offset, `${name} (js)`)
    }
  }
  // Stays InvalidData until reset.
  const codec = modules['deflate-raw'].createDecoder({})
  assert.is(codec.transform(new Uint8Array([0x07]), new Uint8Array(10), false), Status.InvalidData)
  assert.is(codec.transform(zEncode('deflate-raw', data, 6), new Uint8Array(10), false), Status.InvalidData)
  codec.reset()
  assert.is(decode(codec, zEncode('deflate-raw', data, 6), fixed(1000), fixed(1 << 16)).status, Status.Done)
})

test('every single-byte corruption: same verdict and output as node:zlib and the js engine', () => {
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
          const r = decode(modules[f].createDecoder({}), bad, fixed(k % 3 === 0 ? 5 : bad.length), fixed(1 << 16))
          const j = decode(jsModules[f].createDecoder({}), bad, fixed(bad.length), fixed(1 << 16))
          assert.is(statusName(r.status), statusName(j.status), `${f} byte ${k} ^ ${flip}: js ${j.failure?.message}, wasm ${r.failure?.message}`)
          assert.is(r.consumed, j.consumed, `${f} byte ${k} ^ ${flip}: consumed`)
          if (expected) {
            assert.is(r.status, Status.Done, `${f} byte ${k} ^ ${flip}: zlib accepts, we say ${statusName(r.status)} ${r.failure?.message}`)
            assert.ok(same(r.out, expected))
          } else {
            assert.ok(r.status !== Status.Done || r.consumed < bad.length, `${f} byte ${k} ^ ${flip}: zlib rejects, we say Done`)
            if (r.status === Status.InvalidData) assert.ok(r.failure!.offset >= 0 && r.failure!.offset <= bad.length)
          }
        }
      }
    }
  }
})

test('differential fuzz: random dynamic and fixed blocks decode as node:zlib and the js engine do', () => {
  const next = sizes(0x2545f491, 0xffffffff)
  let agreedInvalid = 0
  for (let k = 0; k < 4000; k++) {
    const bytes = new Uint8Array(8 + (next() % 300))
    for (let j = 0; j < bytes.length; j++) bytes[j] = next() & 0xff
    // BFINAL = 1 with BTYPE = 10 (dynamic) or 01 (fixed).
    bytes[0] = (bytes[0]! & ~7) | (k % 2 ? 5 : 3)
    let expected: Buffer | null = null
    try {
      expected = zlib.inflateRawSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
    } catch {}
    const split = k % 3 === 0 ? 1 : bytes.length
    const room = k % 5 === 0 ? 1 : 1 << 16
    const r = decode(modules['deflate-raw'].createDecoder({}), bytes, fixed(split), fixed(room))
    const j = decode(jsModules['deflate-raw'].createDecoder({}), bytes, fixed(split), fixed(room))
    assert.is(statusName(r.status), statusName(j.status), `case ${k}: js ${j.failure?.message}; wasm ${r.failure?.message}`)
    assert.is(r.consumed, j.consumed, `case ${k}: consumed`)
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

test('stored blocks, empty blocks, long matches and distance 32768 through the window', () => {
  // Stored: level 0 over 300 KB (several 64 KiB stored blocks), decoded with small rooms.
  const bin = binarySlice(5_000_000, 300_000)
  const r0 = decode(modules['deflate-raw'].createDecoder({}), zEncode('deflate-raw', bin, 0), fixed(10_000), fixed(3_333))
  assert.is(r0.status, Status.Done)
  assert.ok(same(r0.out, bin))
  // A 40 KB random block repeated: matches at distances near 32768 that cross calls.
  const unit = randomBytes(32_768, 99)
  const data = concat(unit, unit, unit, randomBytes(1000, 5), unit)
  const comp = zEncode('deflate-raw', data, 9)
  for (const [split, room] of [[13, 999], [1 << 20, 1 << 20], [4096, 65536]]) {
    const r = decode(modules['deflate-raw'].createDecoder({}), comp, fixed(split), fixed(room))
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
  const rz = decode(modules.gzip.createDecoder({}), zEncode('gzip', zeros, 6), fixed(65536), fixed(256 << 10))
  assert.is(rz.status, Status.Done)
  assert.ok(same(rz.out, zeros))
})

test('decoders interleaved on the shared instance keep their own history and tables', () => {
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
  const again = decode(modules.gzip.createDecoder({}), comps[0]!, fixed(65536), fixed(65536))
  assert.is(again.status, Status.Done)
  assert.ok(same(again.out, inputs[0]!))
})

test('gzip CRC-32 computed in wasm: mismatches in CRC and ISIZE are caught at their byte', () => {
  const data = binarySlice(1_000_000, 300_000)
  const g = zEncode('gzip', data, 6)
  for (const at of [g.length - 8, g.length - 5, g.length - 1]) {
    const bad = new Uint8Array(g)
    bad[at]! ^= 1
    for (const split of [1, 4096, bad.length]) {
      const r = decode(modules.gzip.createDecoder({}), bad, fixed(split), fixed(65536))
      assert.is(r.status, Status.InvalidData)
      assert.is(r.failure!.code, 'CHECKSUM_MISMATCH')
      assert.is(r.failure!.offset, at)
    }
  }
  const z = zEncode('deflate', data, 6)
  const bad = new Uint8Array(z)
  bad[z.length - 1]! ^= 1
  const r = decode(modules.deflate.createDecoder({}), bad, fixed(4096), fixed(65536))
  assert.is(r.failure!.code, 'CHECKSUM_MISMATCH')
})

test.run()
