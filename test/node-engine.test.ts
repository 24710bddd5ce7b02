// The opt-in node engine (adapters/node/engine.ts): span codecs over node:zlib's native
// handles, checked against node:zlib one-shot and against the js engine.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import zlib from 'node:zlib'
import { join } from 'node:path'
import type { Decoder, Encoder, Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { loadCodec, type CodecModule } from '../lib/registry.js'
import { Status, statusName } from '../lib/status.js'
import { deflate, deflateRaw, gzip } from '../lib/codecs/deflate-js.js'
import { nodeCodec } from '../adapters/node/engine.js'
import { decodeSpans, encodeSpans } from './_span.js'
import { binarySlice, filesCorpus, samples } from './_corpus.js'
import { root } from './_fixtures.js'
import { tryCli } from './_cli.js'

const deflateFormats = ['gzip', 'deflate', 'deflate-raw'] as const
const js: Record<(typeof deflateFormats)[number], CodecModule> = { gzip, deflate, 'deflate-raw': deflateRaw }
const node = (f: Format): CodecModule => nodeCodec(f)

const zEncode = (f: Format, data: Uint8Array, level: number): Uint8Array =>
  f === 'gzip'
    ? zlib.gzipSync(data, { level })
    : f === 'deflate'
      ? zlib.deflateSync(data, { level })
      : f === 'deflate-raw'
        ? zlib.deflateRawSync(data, { level })
        : zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: level } })
const zDecode = (f: Format, data: Uint8Array): Buffer =>
  f === 'gzip' ? zlib.gunzipSync(data) : f === 'deflate' ? zlib.inflateSync(data) : f === 'deflate-raw' ? zlib.inflateRawSync(data) : zlib.brotliDecompressSync(data)

const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0

/** Drives a codec by hand with the contract checked on every call (test/_span.ts). */
const decode = (codec: Decoder, input: Uint8Array, split?: number, room?: number) => decodeSpans(codec, input, { split, room, consumesAll: true })
const encode = (codec: Encoder, input: Uint8Array, split?: number, room?: number, flushEach = false): Uint8Array => encodeSpans(codec, input, { split, room, flushEach })

test('decode: node:zlib one-shot output, levels 1/6/9, every sample; same as the js engine', () => {
  for (const [name, data] of samples()) {
    for (const f of [...deflateFormats, 'brotli'] as const) {
      for (const level of [1, 6, 9]) {
        const comp = zEncode(f, data, level)
        const codec = node(f).createDecoder({})
        const r = decode(codec, comp)
        codec.dispose()
        assert.is(r.status, Status.Done, `${f} ${name} ${level}: ${statusName(r.status)} ${r.failure?.message}`)
        assert.is(r.consumed, comp.length)
        assert.ok(same(r.out, data), `${f} ${name} level ${level}`)
        if (f !== 'brotli') assert.ok(same(decode(js[f].createDecoder({}), comp).out, r.out))
      }
    }
  }
})

test('decode: 1-byte splits and 1-byte destinations', () => {
  const data = filesCorpus(join(root, 'lib'), 6_000, /\.ts$/)
  for (const f of [...deflateFormats, 'brotli'] as const) {
    const comp = zEncode(f, data, 6)
    for (const [split, room] of [[1, 1 << 16], [1 << 20, 1], [1, 1], [13, 100]]) {
      const codec = node(f).createDecoder({})
      const r = decode(codec, comp, split, room)
      codec.dispose()
      assert.is(r.status, Status.Done, `${f} split ${split} room ${room}: ${statusName(r.status)}`)
      assert.is(r.consumed, comp.length)
      assert.ok(same(r.out, data))
    }
  }
})

test('decode: Done with trailing bytes unconsumed; multi-member gzip after reset()', () => {
  const data = filesCorpus(join(root, 'lib'), 9_000, /\.ts$/)
  const junk = new Uint8Array([1, 2, 3, 0x1f, 0x8b])
  for (const f of [...deflateFormats, 'brotli'] as const) {
    const comp = zEncode(f, data, 6)
    for (const split of [1, comp.length + junk.length]) {
      const codec = node(f).createDecoder({})
      const r = decode(codec, concat(comp, junk), split)
      assert.is(r.status, Status.Done, f)
      assert.is(r.consumed, comp.length, `${f} split ${split}`)
      assert.ok(same(r.out, data))
      assert.is(codec.transform(junk, new Uint8Array(8), true), Status.Done)
      assert.is(codec.consumed, 0)
      codec.dispose()
    }
  }
  const b = binarySlice(5_000_000, 20_000)
  const both = concat(zlib.gzipSync(data), zlib.gzipSync(b))
  const codec = node('gzip').createDecoder({})
  const r1 = decode(codec, both)
  assert.is(r1.status, Status.Done)
  assert.ok(same(r1.out, data))
  codec.reset()
  const r2 = decode(codec, both.subarray(r1.consumed))
  assert.is(r2.status, Status.Done)
  assert.ok(same(r2.out, b))
  codec.dispose()
})

test('decode: truncation at every length -> NeedMoreData with a correct prefix', () => {
  const data = filesCorpus(join(root, 'lib'), 2_000, /\.ts$/)
  for (const f of [...deflateFormats, 'brotli'] as const) {
    const comp = zEncode(f, data, 9)
    const codec = node(f).createDecoder({})
    for (let k = 0; k < comp.length; k++) {
      codec.reset()
      const r = decode(codec, comp.subarray(0, k), k % 5 === 0 ? 1 : k || 1)
      assert.is(r.status, Status.NeedMoreData, `${f} cut at ${k}: ${statusName(r.status)} ${r.failure?.message}`)
      assert.ok(same(r.out, data.subarray(0, r.out.length)))
    }
    codec.dispose()
  }
})

test('decode: corrupt data and checksum mismatches -> InvalidData', () => {
  const data = filesCorpus(join(root, 'lib'), 5_000, /\.ts$/)
  for (const f of [...deflateFormats, 'brotli'] as const) {
    const comp = zEncode(f, data, 6)
    const positions = f === 'brotli' ? [7, 20] : f === 'deflate-raw' ? [0] : [comp.length - 1, f === 'gzip' ? 10 : 2]
    for (const at of positions) {
      const bad = new Uint8Array(comp)
      bad[at] ^= f === 'deflate-raw' || at === 10 || at === 2 ? 0x06 : 0x01
      assert.throws(() => zDecode(f, bad), undefined, `node:zlib accepts ${f} byte ${at}`)
      const codec = node(f).createDecoder({})
      const r = decode(codec, bad)
      codec.dispose()
      assert.is(r.status, Status.InvalidData, `${f} byte ${at}: ${statusName(r.status)}`)
      assert.ok(r.failure!.offset >= 0 && r.failure!.offset <= at, `${f}: offset ${r.failure!.offset} for byte ${at}`)
      if (at === comp.length - 1) assert.is(r.failure!.code, 'CHECKSUM_MISMATCH')
    }
  }
  // Headers: the same parser as the js engine.
  const codec = node('deflate').createDecoder({})
  assert.is(codec.transform(new Uint8Array([0x78, 0xbb]), new Uint8Array(4), false), Status.InvalidData)
  assert.is(codec.failure!.code, 'UNSUPPORTED')
  codec.dispose()
})

test('encode: node engine output decodes with node:zlib and the js engine; flush and 1-byte dst', () => {
  const data = filesCorpus(join(root, 'lib'), 60_000, /\.ts$/)
  for (const f of [...deflateFormats, 'brotli'] as const) {
    for (const [split, room, flushEach] of [[data.length, 1 << 20, false], [997, 1, true], [1, 4096, false], [10_000, 77, true]] as const) {
      const enc = node(f).createEncoder({ level: f === 'brotli' ? 5 : 6 })
      const comp = encode(enc, data, split, room, flushEach)
      enc.dispose()
      assert.ok(same(zDecode(f, comp), data), `${f} split ${split} room ${room}`)
      if (f !== 'brotli') {
        const r = decode(js[f].createDecoder({}), comp)
        assert.is(r.status, Status.Done)
        assert.ok(same(r.out, data))
      }
    }
  }
  // Levels are checked like the js engine's.
  try {
    node('gzip').createEncoder({ level: 12 })
    assert.unreachable()
  } catch (e) {
    assert.is((e as CodecError).code, 'INVALID_OPTION')
  }
})

test('encode: flush makes everything so far decodable', () => {
  const data = filesCorpus(join(root, 'lib'), 40_000, /\.ts$/)
  const enc = node('gzip').createEncoder({})
  const dst = new Uint8Array(1 << 20)
  assert.is(enc.transform(data.subarray(0, 25_000), dst, false), Status.Done)
  const a = dst.slice(0, enc.written)
  assert.is(enc.flush(dst), Status.Done)
  const b = dst.slice(0, enc.written)
  const r = decode(gzip.createDecoder({}), concat(a, b))
  assert.is(r.status, Status.NeedMoreData)
  assert.ok(same(r.out, data.subarray(0, 25_000)))
  enc.dispose()
})

test('registry loads the node engine; zstd needs Node >= 22.15', async () => {
  const mod = await loadCodec('gzip', 'node')
  const data = binarySlice(0, 50_000)
  const codec = mod.createDecoder({})
  assert.ok(same(decode(codec, zlib.gzipSync(data)).out, data))
  codec.dispose()
  const hasZstd = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function'
  if (!hasZstd) {
    try {
      nodeCodec('zstd')
      assert.unreachable('zstd on a Node without it')
    } catch (e) {
      assert.instance(e, CodecError)
      assert.is((e as CodecError).code, 'ENGINE_UNAVAILABLE')
      assert.match((e as CodecError).message, /22\.15/)
    }
    await loadCodec('zstd', 'node').then(
      () => assert.unreachable(),
      (e: CodecError) => assert.is(e.code, 'ENGINE_UNAVAILABLE'),
    )
    console.log(`# skipped: zstd round trip needs Node >= 22.15 (this is ${process.versions.node})`)
    return
  }
  const zmod = nodeCodec('zstd')
  const text = filesCorpus(join(root, 'lib'), 100_000, /\.ts$/)
  const enc = zmod.createEncoder({ level: 3 })
  const comp = encode(enc, text, 7_000, 999, true)
  enc.dispose()
  // The frames it encodes decode exactly with both engines, in any pieces.
  const wasm = await loadCodec('zstd', 'wasm', 'decode')
  for (const mod of [wasm, zmod]) {
    for (const [split, room] of [[comp.length, 1 << 20], [1_000, 5_000], [1, 1 << 16], [7, 1]]) {
      const dec = mod.createDecoder({})
      // (The wasm decoder may leave a header's first bytes unconsumed until more arrive.)
      const r = decodeSpans(dec, concat(comp, new Uint8Array([9, 9])), { split, room, consumesAll: mod === zmod })
      dec.dispose()
      assert.is(r.status, Status.Done, `split ${split} room ${room}: ${statusName(r.status)} ${r.failure?.message}`)
      assert.is(r.consumed, comp.length)
      assert.ok(same(r.out, text))
    }
  }
})

/** zstd frames made by the reference CLI, when the Debian package is installed. */
const zstdCli = (data: Uint8Array, args: string[]): Uint8Array | null => tryCli('zstd', [...args, '-c'], data)

const nodeHasZstd = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function'

test('zstd decode (Node >= 22.15): frames of every shape end exactly where their headers say', async () => {
  if (!nodeHasZstd) {
    console.log(`# skipped: needs node:zlib zstd (Node >= 22.15; this is ${process.versions.node})`)
    return
  }
  const wasm = await loadCodec('zstd', 'wasm', 'encode')
  const data = concat(filesCorpus(join(root, 'lib'), 150_000, /\.ts$/), binarySlice(0, 100_000))
  const frames: [string, Uint8Array][] = [
    ['wasm, content size + checksum', await encodeWith(wasm.createEncoder({ level: 3 }), data)],
    ['wasm, no checksum', await encodeWith(wasm.createEncoder({ level: 1, checksum: false }), data)],
    ['empty', await encodeWith(wasm.createEncoder({}), new Uint8Array(0))],
  ]
  const cli: [string, string[]][] = [['cli -3', ['-3']], ['cli --no-check -19', ['--no-check', '-19']], ['cli long window', ['--long=24', '-1']]]
  for (const [name, args] of cli) {
    const f = zstdCli(data, args)
    if (f) frames.push([name, f])
    else console.log(`# ${name}: zstd CLI not installed, case skipped`)
  }
  // Streamed input has no content size: the CLI reading a pipe writes such frames.
  const piped = tryCli('zstd', ['-c', '-'], data, 'pipe')
  if (piped) frames.push(['cli from a pipe (no content size)', piped])
  const skippable = new Uint8Array([0x5e, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 7, 7, 7])
  for (const [name, frame] of frames) {
    const expected = name === 'empty' ? new Uint8Array(0) : data
    for (const [split, room] of [[frame.length, 1 << 20], [1, 1 << 16], [4_096, 100], [333, 10_000]]) {
      const dec = nodeCodec('zstd').createDecoder({})
      const r = decode(dec, concat(frame, new Uint8Array([0x28, 0xb5])), split, room)
      dec.dispose()
      assert.is(r.status, Status.Done, `${name} split ${split} room ${room}: ${statusName(r.status)} ${r.failure?.message}`)
      assert.is(r.consumed, frame.length, name)
      assert.ok(same(r.out, expected), name)
    }
    // Concatenated with a skippable frame in between: each is its own Done, after reset().
    const dec = nodeCodec('zstd').createDecoder({})
    let input = concat(frame, skippable, frame)
    const outs: Uint8Array[] = []
    for (let i = 0; i < 3; i++) {
      const r = decode(dec, input, 500)
      assert.is(r.status, Status.Done, `${name}: frame ${i}`)
      outs.push(r.out)
      input = input.subarray(r.consumed)
      dec.reset()
    }
    dec.dispose()
    assert.is(input.length, 0)
    assert.ok(same(outs[0]!, expected) && outs[1]!.length === 0 && same(outs[2]!, expected), name)
    // Truncated anywhere: NeedMoreData, never Done.
    for (const cut of [1, 4, 6, frame.length >> 1, frame.length - 1]) {
      if (cut >= frame.length) continue
      const d = nodeCodec('zstd').createDecoder({})
      const r = decode(d, frame.subarray(0, cut), 97)
      d.dispose()
      assert.is(r.status, Status.NeedMoreData, `${name} cut at ${cut}: ${statusName(r.status)}`)
    }
  }
})

test('zstd with a dictionary (Node >= 22.15): the dictionary and the level hold over reset(), decoder and encoder', async () => {
  if (!nodeHasZstd) {
    console.log(`# skipped: needs node:zlib zstd (Node >= 22.15; this is ${process.versions.node})`)
    return
  }
  let dec: Decoder
  try {
    dec = nodeCodec('zstd').createDecoder({ dictionary: new Uint8Array(64).fill(1) })
  } catch (e) {
    console.log(`# skipped: ${(e as Error).message}`)
    return
  }
  dec.dispose()
  const dictionary = filesCorpus(join(root, 'lib/codecs'), 16_000, /\.ts$/)
  const data = concat(dictionary.subarray(3000, 5000), dictionary.subarray(9000, 12000))
  const wasm = await loadCodec('zstd', 'wasm')
  const frame = encode(wasm.createEncoder({ dictionary }), data)
  // Decoder: the same frame before and after each reset() (one-shot decode() resets once).
  dec = nodeCodec('zstd').createDecoder({ dictionary })
  for (let k = 0; k < 3; k++) {
    const r = decode(dec, frame)
    assert.is(r.status, Status.Done, `decode ${k}: ${r.failure?.message}`)
    assert.ok(same(r.out, data), `decode ${k}`)
    dec.reset()
  }
  dec.dispose()
  // Encoder: every frame after reset() is as small as the first (dictionary and level kept).
  const enc = nodeCodec('zstd').createEncoder({ dictionary, level: 19 })
  const first = encode(enc, data)
  for (let k = 0; k < 2; k++) {
    enc.reset()
    const again = encode(enc, data)
    assert.ok(same(again, first), `frame ${k + 2}: ${again.length} bytes, the first ${first.length}`)
  }
  enc.dispose()
  const check = wasm.createDecoder({ dictionary })
  assert.ok(same(decode(check, first).out, data))
  check.dispose()
})

test('zstd encode (Node >= 22.15): the content checksum is written by default, as on the wasm engine; checksum: false leaves it out', () => {
  if (!nodeHasZstd) {
    console.log(`# skipped: needs node:zlib zstd (Node >= 22.15; this is ${process.versions.node})`)
    return
  }
  const data = filesCorpus(join(root, 'lib'), 20_000, /\.ts$/)
  // Frame_Header_Descriptor bit 2: Content_Checksum_flag (RFC 8878 section 3.1.1.1.1).
  const flag = (frame: Uint8Array) => (frame[4]! >> 2) & 1
  assert.is(flag(encode(nodeCodec('zstd').createEncoder({}), data)), 1)
  assert.is(flag(encode(nodeCodec('zstd').createEncoder({ checksum: true }), data)), 1)
  assert.is(flag(encode(nodeCodec('zstd').createEncoder({ checksum: false }), data)), 0)
  assert.throws(() => nodeCodec('zstd').createEncoder({ checksum: 'yes' }), (e: unknown) => (e as CodecError).code === 'INVALID_OPTION')
})

test('zstd decode (Node >= 22.15): bad magic, reserved bits, corrupt checksum are InvalidData', async () => {
  if (!nodeHasZstd) {
    console.log(`# skipped: needs node:zlib zstd (Node >= 22.15; this is ${process.versions.node})`)
    return
  }
  const wasm = await loadCodec('zstd', 'wasm', 'encode')
  const data = filesCorpus(join(root, 'lib'), 40_000, /\.ts$/)
  const frame = await encodeWith(wasm.createEncoder({ level: 3 }), data)
  const cases: [string, Uint8Array, number | null][] = []
  const badMagic = frame.slice()
  badMagic[1] = 0
  cases.push(['bad magic', badMagic, 0])
  const reserved = frame.slice()
  reserved[4]! |= 0x08
  cases.push(['reserved descriptor bit', reserved, 4])
  const checksum = frame.slice()
  checksum[checksum.length - 1]! ^= 0xff
  cases.push(['checksum', checksum, null])
  const body = frame.slice()
  body.fill(0xff, 20, 60)
  cases.push(['corrupt block', body, null])
  for (const [name, bytes, offset] of cases) {
    for (const split of [bytes.length, 3]) {
      const d = nodeCodec('zstd').createDecoder({})
      const r = decode(d, bytes, split)
      d.dispose()
      assert.is(r.status, Status.InvalidData, `${name}: ${statusName(r.status)}`)
      if (offset !== null) assert.is(r.failure!.offset, offset, name)
    }
  }
  // The window limit is the native decoder's: a frame needing 2^24 bytes with maxWindowLog 20.
  const long = zstdCli(concat(data, data, data), ['--long=24', '-1'])
  if (long) {
    const d = nodeCodec('zstd').createDecoder({ maxWindowLog: 20 })
    assert.is(decode(d, long).status, Status.InvalidData)
    d.dispose()
  }
  assert.throws(() => nodeCodec('zstd').createDecoder({ maxWindowLog: 99 }), (e: CodecError) => e.code === 'INVALID_OPTION')
})

test('zstd encode (Node >= 22.15): a frame that fills the destination exactly is not followed by an empty frame', () => {
  if (!nodeHasZstd) {
    console.log(`# skipped: needs node:zlib zstd (Node >= 22.15; this is ${process.versions.node})`)
    return
  }
  // A finishing step after the end of a frame starts another (9 bytes, empty): the
  // encoder must know from the frame's headers that it has ended.
  const data = filesCorpus(join(root, 'lib'), 40_000, /\.ts$/)
  const zstdCompressSync = (zlib as unknown as { zstdCompressSync: (d: Uint8Array, o: object) => Buffer }).zstdCompressSync
  // With the content checksum, which the node engine writes by default.
  const checksummed = { params: { [(zlib.constants as Record<string, number>).ZSTD_c_checksumFlag!]: 1 } }
  const zstdSync = (d: Uint8Array) => zstdCompressSync(d, checksummed)
  const reference = new Uint8Array(zstdSync(data))
  for (const room of [reference.length, reference.length - 1, 1]) {
    const codec = nodeCodec('zstd').createEncoder({ level: 3 })
    const out = encode(codec, data, data.length, room)
    codec.dispose()
    assert.is(out.length, reference.length, `${room}-byte destinations`)
    assert.ok(same(out, reference), `${room}-byte destinations: node:zlib's bytes`)
  }
  // And an empty input: the whole frame in a destination of its size.
  const empty = new Uint8Array(zstdSync(new Uint8Array(0)))
  const codec = nodeCodec('zstd').createEncoder({ level: 3 })
  assert.ok(same(encode(codec, new Uint8Array(0), 1, empty.length), empty), 'empty input')
  codec.dispose()
})

/** Encodes all of `data` with a span encoder (one call per 64 KiB destination). */
async function encodeWith(codec: Encoder, data: Uint8Array): Promise<Uint8Array> {
  const out = encode(codec, data, 1 << 16)
  codec.dispose()
  return out
}

/** The window bits a brotli stream declares in its first bits (RFC 7932 section 9.1). */
function brotliWindowBits(first: number, second: number): number {
  const bits = first | (second << 8)
  if ((bits & 1) === 0) return 16
  const n = (bits >> 1) & 7
  if (n !== 0) return 17 + n
  const m = (bits >> 4) & 7
  return m === 0 ? 17 : 8 + m
}

test('brotli encode: lgwin reaches the native encoder (the stream declares it) and round-trips', () => {
  const data = filesCorpus(join(root, 'lib'), 200_000, /\.ts$/)
  for (const lgwin of [10, 16, 18, 22, 24]) {
    const enc = node('brotli').createEncoder({ level: 5, lgwin })
    const comp = encode(enc, data, 30_000, 1 << 16, true)
    enc.dispose()
    assert.is(brotliWindowBits(comp[0]!, comp[1]!), lgwin, `lgwin ${lgwin}`)
    assert.ok(same(zlib.brotliDecompressSync(comp), data))
  }
  for (const bad of [9, 25, 1.5, '22']) {
    assert.throws(() => node('brotli').createEncoder({ lgwin: bad }), (e: CodecError) => e.code === 'INVALID_OPTION' && /lgwin/.test(e.message))
  }
})

test('use after dispose throws instead of reaching a native CHECK', () => {
  const codec = node('deflate-raw').createDecoder({})
  codec.dispose()
  codec.dispose()
  assert.throws(() => codec.transform(new Uint8Array([1]), new Uint8Array(1), false), (e: unknown) => e instanceof CodecError)
})

test.run()
