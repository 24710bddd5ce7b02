// LZ4: xxHash32, raw blocks and frames. Oracles: the reference `lz4` CLI (Debian
// package `lz4`) both ways, lz4js and lz4-napi as peers.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Decoder, Encoder } from '../lib/codec.js'
import { lz4, lz4Block } from '../lib/codecs/lz4.js'
import { loadLz4Wasm } from '../lib/codecs/lz4-wasm.js'
const { lz4: lz4Wasm, lz4Block: lz4BlockWasm } = await loadLz4Wasm()
// Levels 3 to 12 compress with LZ4 HC, which the modules load on first use.
for (const m of [lz4, lz4Wasm]) await m.prepare!('encode', { level: 9 })
import type { CodecModule } from '../lib/registry.js'
import { createHashTable, decodeBlock, encodeBlock, maxCompressedSize } from '../lib/codecs/lz4-block.js'
import { Xxh32, xxh32 } from '../lib/codecs/xxhash32.js'
import { inspectLz4 } from '../lib/inspect/codecs.js'
import { Status, statusName, type Status as S } from '../lib/status.js'
import { binarySlice, randomBytes, samples } from './_corpus.js'
import { requireCli, runCli } from './_cli.js'

const require = createRequire(import.meta.url)
const lz4js = require('lz4js') as { compress(d: Uint8Array): Uint8Array; decompress(d: Uint8Array, max?: number): Uint8Array }
const napi = require('lz4-napi') as { compressFrameSync(d: Buffer): Buffer; uncompressSync(d: Buffer): Buffer; compressSync(d: Buffer): Buffer }

const cliTest = requireCli('lz4') ? test : test.skip

/** Runs the lz4 CLI on `input` written to a file (so `--content-size` knows the size). */
const lz4cli = (args: string[], input: Uint8Array): Uint8Array => runCli('lz4', [...args, '-c'], input, 'file')
/** The lz4 CLI's decoding of `frame` (read from stdin). */
const lz4cliDecode = (frame: Uint8Array): Uint8Array => runCli('lz4', ['-d', '-c', '-q'], frame)

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return concatList(parts)
}

function concatList(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts))
}

interface Run {
  status: S
  out: Uint8Array
  /** Input bytes consumed in total. */
  consumed: number
  codec: Decoder | Encoder
}

/**
 * Drives a codec over `input` in pieces of `split` bytes with destinations of `room`
 * bytes, passing unconsumed bytes again with the next piece (as the stream driver
 * does). Stops at Done, InvalidData, or NeedMoreData at the end of the input.
 */
function drive(codec: Decoder | Encoder, input: Uint8Array, split = input.length || 1, room = 1 << 20): Run {
  const out: Uint8Array[] = []
  const dst = new Uint8Array(room)
  let pos = 0
  let src: Uint8Array = new Uint8Array(0)
  let consumed = 0
  const encoding = 'flush' in codec
  for (let guard = 0; ; guard++) {
    if (guard > 50_000_000) throw new Error('no progress')
    const final = pos >= input.length
    const status = codec.transform(src, dst, final)
    assert.ok(codec.consumed <= src.length && codec.written <= dst.length)
    out.push(dst.slice(0, codec.written))
    consumed += codec.consumed
    src = src.subarray(codec.consumed)
    // Decoders end at Done; encoders at Done with final (without, Done asks for input).
    if (status === Status.Done && (!encoding || final)) return { status, out: concatList(out), consumed, codec }
    if (status === Status.InvalidData) return { status, out: concatList(out), consumed, codec }
    if (status === Status.DestinationTooSmall) continue
    // NeedMoreData (decoder) or Done (encoder, not final): append the next piece.
    if (pos >= input.length) return { status, out: concatList(out), consumed, codec }
    const piece = input.subarray(pos, pos + split)
    pos += piece.length
    src = src.length ? concat(src, piece) : piece
  }
}

/** The decoder engines: every decoder case runs on each (the frame encoders write the same bytes; see the wasm engine tests). */
const engines: Array<{ name: string; frame: CodecModule; block: CodecModule }> = [
  { name: 'js', frame: lz4, block: lz4Block },
  { name: 'wasm', frame: lz4Wasm, block: lz4BlockWasm },
]

const decode = (frame: Uint8Array, split?: number, room?: number, options: Record<string, unknown> = {}): Run => drive(lz4.createDecoder(options), frame, split, room)
const encode = (data: Uint8Array, options: Record<string, unknown> = {}, split?: number, room?: number): Uint8Array => {
  const r = drive(lz4.createEncoder(options), data, split, room)
  assert.is(statusName(r.status), 'Done')
  return r.out
}

function expectDecodesWith(mod: CodecModule, frame: Uint8Array, data: Uint8Array, label: string, split?: number, room?: number): void {
  const r = drive(mod.createDecoder({}), frame, split, room)
  assert.is(statusName(r.status), 'Done', `${label}: ${JSON.stringify(r.codec.failure)}`)
  assert.ok(equalBytes(r.out, data), `${label}: output differs (${r.out.length} vs ${data.length} bytes)`)
  assert.is(r.consumed, frame.length, `${label}: consumed`)
}

const expectDecodes = (frame: Uint8Array, data: Uint8Array, label: string, split?: number, room?: number): void => expectDecodesWith(lz4, frame, data, label, split, room)

/** Builds a frame header with a valid header checksum. */
function header(flg: number, bd: number, contentSize?: number, dictId?: number): Uint8Array {
  const d: number[] = [flg, bd]
  if (contentSize !== undefined) for (let i = 0; i < 8; i++) d.push(Math.floor(contentSize / 2 ** (8 * i)) & 0xff)
  if (dictId !== undefined) for (let i = 0; i < 4; i++) d.push((dictId >>> (8 * i)) & 0xff)
  const hc = (xxh32(new Uint8Array(d)) >>> 8) & 0xff
  return new Uint8Array([0x04, 0x22, 0x4d, 0x18, ...d, hc])
}

const le32 = (v: number): Uint8Array => new Uint8Array([v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff])
const readU32 = (b: Uint8Array, at: number): number => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0

const corpus = samples()
const text = corpus.find(([n]) => n.startsWith('node_modules text'))![1]
const source = corpus.find(([n]) => n === 'project source')![1]

// --- xxHash32 ---

test('xxh32 known values and streaming equals one-shot', () => {
  // Reference values from the xxHash test suite (seed 0).
  assert.is(xxh32(new Uint8Array(0)), 0x02cc5d05)
  assert.is(xxh32(new TextEncoder().encode('abc')), 0x32d153ff)
  assert.is(xxh32(new TextEncoder().encode('Nobody inspects the spammish repetition')), 0xe2293b2f)
  const data = binarySlice(1_000_000, 100_003)
  const whole = xxh32(data)
  for (const step of [1, 3, 15, 16, 17, 4096]) {
    const h = new Xxh32()
    for (let i = 0; i < data.length; i += step) h.update(data, i, Math.min(data.length, i + step))
    assert.is(h.digest(), whole, `step ${step}`)
  }
  // Non-zero seed: one-shot and streaming agree.
  const h = new Xxh32(12345)
  h.update(data, 0, 7)
  h.update(data, 7, 1000)
  assert.is(h.digest(), xxh32(data, 0, 1000, 12345))
})

test('xxh32 state saved and restored (through a structured clone, as to a worker) goes on where it stopped', () => {
  const data = binarySlice(2_000_000, 50_021)
  for (const seed of [0, 7]) {
    const whole = xxh32(data, 0, data.length, seed)
    // Cuts inside and at stripe boundaries, and a piece under one stripe.
    for (const cuts of [[5], [16, 17, 30], [4096, 4100, 30_000], [1, 2, 3, 50_000]]) {
      let h = new Xxh32(seed)
      let from = 0
      for (const to of [...cuts, data.length]) {
        h.update(data, from, to)
        h = Xxh32.restore(structuredClone(h.save()))
        from = to
      }
      assert.is(h.digest(), whole, `seed ${seed}, cuts ${cuts.join()}`)
    }
    // Under 16 bytes in all: the digest's short form survives a restore too.
    const short = new Xxh32(seed)
    short.update(data, 0, 9)
    assert.is(Xxh32.restore(short.save()).digest(), xxh32(data, 0, 9, seed))
  }
})

// --- raw blocks ---

test('encodeBlock/decodeBlock round trip; output fits maxCompressedSize', () => {
  const table = createHashTable()
  for (const [name, data] of corpus) {
    const c = new Uint8Array(maxCompressedSize(data.length))
    const n = encodeBlock(data, 0, data.length, c, 0, c.length, table)
    assert.ok(n > 0 && n <= c.length, name)
    const out = new Uint8Array(data.length)
    assert.is(decodeBlock(c, 0, n, out, 0, out.length), data.length, name)
    assert.ok(equalBytes(out, data), name)
    // Too little room: -1, never a write past dstEnd.
    if (data.length > 100) {
      const small = new Uint8Array(n + 8)
      assert.is(encodeBlock(data, 0, data.length, small, 0, n - 1, table), -1, name)
      assert.ok(small.subarray(n - 1).every((b) => b === 0), `${name}: wrote past dstEnd`)
    }
  }
})

test('raw blocks: lz4-napi decodes ours and we decode its blocks', () => {
  const table = createHashTable()
  for (const [name, data] of corpus) {
    if (data.length === 0) continue
    const c = new Uint8Array(4 + maxCompressedSize(data.length))
    const n = encodeBlock(data, 0, data.length, c, 4, c.length, table)
    c.set(le32(data.length), 0) // lz4-napi (lz4_flex) prepends the decoded size
    assert.ok(equalBytes(napi.uncompressSync(Buffer.from(c.subarray(0, 4 + n))), data), `napi decodes ours: ${name}`)
    const theirs = napi.compressSync(Buffer.from(data))
    const out = new Uint8Array(data.length)
    assert.is(decodeBlock(theirs, 4, theirs.length, out, 0, out.length), data.length, name)
    assert.ok(equalBytes(out, data), `we decode napi's: ${name}`)
  }
})

test('decodeBlock rejects corrupt blocks without writing past dstEnd', () => {
  const out = new Uint8Array(64)
  assert.ok(decodeBlock(new Uint8Array(0), 0, 0, out, 0, 64) < 0, 'empty block')
  // Token 0x10 + 'a' + offset 0: offset 0 is invalid.
  assert.ok(decodeBlock(new Uint8Array([0x10, 0x61, 0, 0, 0x00]), 0, 5, out, 0, 64) < 0, 'offset 0')
  // Offset 2 with one byte of history.
  assert.ok(decodeBlock(new Uint8Array([0x10, 0x61, 2, 0, 0x00]), 0, 5, out, 0, 64) < 0, 'offset before start')
  // Match output beyond dstEnd.
  assert.ok(decodeBlock(new Uint8Array([0x1f, 0x61, 1, 0, 200, 0x00]), 0, 6, out, 0, 64) < 0, 'output overrun')
  // Block ending after a match.
  assert.ok(decodeBlock(new Uint8Array([0x10, 0x61, 1, 0]), 0, 4, out, 0, 64) < 0, 'ends after match')
  // Literal length running past the input.
  assert.ok(decodeBlock(new Uint8Array([0xf0, 255, 255]), 0, 3, out, 0, 64) < 0, 'literal length past input')
  // Valid: 'a' then match offset 1 length 4, then 5 literals.
  const ok = new Uint8Array([0x10, 0x61, 1, 0, 0x50, 1, 2, 3, 4, 5])
  assert.is(decodeBlock(ok, 0, ok.length, out, 0, 64), 10)
  assert.equal([...out.subarray(0, 10)], [0x61, 0x61, 0x61, 0x61, 0x61, 1, 2, 3, 4, 5])
})

cliTest('our frames decode with lz4 -d (all samples, option sets)', () => {
  const optionSets: Record<string, unknown>[] = [
    {},
    { blockSize: 4194304 },
    { blockSize: 262144, blockChecksum: true },
    { contentChecksum: false },
    { level: 9, blockSize: 1048576 },
  ]
  for (const [name, data] of corpus) {
    for (const opts of optionSets) {
      const frame = encode(data, { ...opts, contentSize: data.length })
      const back = lz4cliDecode(frame)
      assert.ok(equalBytes(back, data), `${name} ${JSON.stringify(opts)}`)
      if (Object.keys(opts).length > 0) continue
      const noSize = encode(data, opts)
      const back2 = lz4cliDecode(noSize)
      assert.ok(equalBytes(back2, data), `${name} ${JSON.stringify(opts)} without content size`)
    }
  }
})

cliTest('streaming encoder: 1-byte input splits, 1-byte dst, flush mid-stream', () => {
  const data = source.subarray(0, 20_000)
  const frames = [encode(data, {}, 1, 1 << 20), encode(data, { blockChecksum: true }, 4096, 1), encode(data, {}, 70_000, 7)]
  for (const f of frames) {
    assert.ok(equalBytes(lz4cliDecode(f), data))
    expectDecodes(f, data, 'ours')
  }
  // flush: the output so far decodes to exactly the input so far.
  const enc = lz4.createEncoder({})
  const dst = new Uint8Array(100_000)
  assert.is(enc.transform(data.subarray(0, 5000), dst, false), Status.Done)
  let produced = enc.written
  assert.is(enc.flush(dst.subarray(produced)), Status.Done)
  produced += enc.written
  const prefix = dst.slice(0, produced)
  const r = decode(prefix)
  assert.is(statusName(r.status), 'NeedMoreData')
  assert.ok(equalBytes(r.out, data.subarray(0, 5000)))
  assert.is(enc.transform(data.subarray(5000), dst.subarray(produced), true), Status.Done)
  produced += enc.written
  expectDecodes(dst.slice(0, produced), data, 'flushed frame')
  // flush into a 1-byte dst: DestinationTooSmall until all is out.
  const enc2 = lz4.createEncoder({})
  const parts: number[] = []
  const one = new Uint8Array(1)
  let s: S
  let rest = data.subarray(0, 3000)
  do {
    s = enc2.transform(rest, one, false)
    rest = rest.subarray(enc2.consumed)
    if (enc2.written) parts.push(one[0]!)
  } while (s === Status.DestinationTooSmall)
  assert.is(rest.length, 0)
  do {
    s = enc2.flush(one)
    if (enc2.written) parts.push(one[0]!)
  } while (s === Status.DestinationTooSmall)
  const r2 = decode(new Uint8Array(parts))
  assert.ok(equalBytes(r2.out, data.subarray(0, 3000)))
})

test('encoder options and contentSize enforcement', () => {
  assert.throws(() => lz4.createEncoder({ blockSize: 100000 }), /blockSize/)
  assert.throws(() => lz4.createEncoder({ blockIndependence: false }), /linked/)
  assert.throws(() => lz4.createEncoder({ blockChecksum: 'yes' }), /boolean/)
  assert.throws(() => lz4.createEncoder({ contentSize: -1 }), /contentSize/)
  assert.throws(() => lz4.createEncoder({ level: 13 }), /level/)
  const data = source.subarray(0, 1000)
  const short = drive(lz4.createEncoder({ contentSize: 1001 }), data)
  assert.is(statusName(short.status), 'InvalidData')
  const long = drive(lz4.createEncoder({ contentSize: 999 }), data)
  assert.is(statusName(long.status), 'InvalidData')
})

const cliFlags = [['-1'], ['-9'], ['-BD'], ['-BX'], ['--content-size'], ['-B4'], ['-B5'], ['-B6'], ['-B7'], ['--no-frame-crc'], ['-B4', '-BD'], ['-B4', '-BD', '-BX', '--content-size', '-9']]

test('random and mutated blocks never throw and never write past dstEnd', () => {
  const base = new Uint8Array(maxCompressedSize(5000))
  const plain = text.subarray(0, 5000)
  const n = encodeBlock(plain, 0, plain.length, base, 0, base.length, createHashTable())
  let seed = 1
  const rand = (k: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed % k
  }
  const dst = new Uint8Array(6000)
  for (let i = 0; i < 3000; i++) {
    const block = i % 2 ? randomBytes(1 + rand(300), i + 1) : base.slice(0, n)
    if (i % 2 === 0) for (let k = 0; k < 1 + rand(4); k++) block[rand(n)] = rand(256)
    const room = rand(5500)
    dst.fill(0xee)
    const r = decodeBlock(block, 0, block.length, dst, 100, 100 + room)
    assert.ok(r <= room)
    assert.ok(dst.subarray(100 + room).every((b) => b === 0xee), `wrote past dstEnd (case ${i})`)
    assert.ok(dst.subarray(0, 100).every((b) => b === 0xee), `wrote before dstStart (case ${i})`)
  }
  // Garbage after a valid header, fed in odd pieces: some status, no throw.
  for (let i = 0; i < 200; i++) decode(concat(header(0x40 | (i & 0x3c), 0x40 | ((4 + (i & 3)) << 4)), randomBytes(2000, i + 7)), 1 + (i % 97), 1 + (i % 50))
})

// --- the frame format module (lib/codecs/lz4-frame-format.ts), as the CLI's inspect reads frames ---

test('frame walk: what the decoder checks, the frames read before a problem kept (inspect)', () => {
  const a = encode(text.subarray(0, 200_000), { contentSize: 200_000, blockChecksum: true })
  const b = encode(source.subarray(0, 70_000))
  const skip = new Uint8Array([0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3])
  const good = concat(a, skip, b)
  const whole = inspectLz4(good)
  assert.is(whole.error, undefined)
  assert.equal(whole.frames.map((f) => [f.offset, f.type, f.compressedSize]), [[0, 'lz4', a.length], [a.length, 'skippable', 11], [a.length + 11, 'lz4', b.length]])
  assert.is(whole.frames[0]!.contentSize, 200_000)
  assert.is(whole.frames[0]!.blocks, 4)
  assert.is(whole.frames[0]!.contentChecksum, readU32(a, a.length - 4).toString(16).padStart(8, '0'))
  assert.is(whole.frames[2]!.flags!.blockChecksum, false)
  assert.is(whole.decompressedSize, null)
  // Each problem the decoder reports (its message) at the decoder's offset, after the frames before it.
  const second = a.length + 11
  const cases: Array<[string, (x: Uint8Array) => void, RegExp, number]> = [
    ['header checksum', (x) => (x[second + 6] ^= 1), /header checksum \d+ does not match/, second + 6],
    ['reserved bits', (x) => (x[second + 5] |= 1), /reserved bits/, second + 4],
    ['block size over the maximum', (x) => x.set(le32(65537), second + 7), /block size 65537 exceeds the frame's maximum 65536/, second + 7],
    ['bad magic', (x) => (x[second] = 0), /bad magic/, second],
  ]
  for (const [label, spoil, message, offset] of cases) {
    const bad = good.slice()
    spoil(bad)
    const info = inspectLz4(bad)
    assert.equal(info.frames.map((f) => f.offset).slice(0, 2), [0, a.length], label)
    assert.match(info.error ?? '', message, label)
    assert.ok(info.error!.endsWith(`at byte ${offset}`), `${label}: ${info.error}`)
    const r = drive(lz4.createDecoder({}), bad.subarray(second))
    assert.is(statusName(r.status), 'InvalidData', label)
    assert.match(r.codec.failure!.message, message, `${label}: the decoder says the same`)
    assert.is(r.codec.failure!.offset + second, offset, `${label}: at the same byte`)
  }
  for (const cut of [second + 3, second + 9, good.length - 1]) {
    const info = inspectLz4(good.subarray(0, cut))
    assert.match(info.error ?? '', /^truncated|runs past the end/, `cut at ${cut}: ${info.error}`)
  }
})

// --- decoders: every case below runs on each engine ---

for (const engine of engines) {
  const decode = (frame: Uint8Array, split?: number, room?: number, options: Record<string, unknown> = {}): Run => drive(engine.frame.createDecoder(options), frame, split, room)
  const expectDecodes = (frame: Uint8Array, data: Uint8Array, label: string, split?: number, room?: number): void => expectDecodesWith(engine.frame, frame, data, label, split, room)
  // Raw block decoders of the engine (encoders are TypeScript in both).
  const lz4Block = engine.block

  test(`${engine.name}: lz4Block module: outputSize required, exact size, 1-byte dst, mismatch`, () => {
    assert.throws(() => lz4Block.createDecoder({}), /outputSize/)
    const data = text.subarray(0, 50_000)
    const enc = drive(lz4Block.createEncoder({}), data, 7000, 999)
    assert.is(statusName(enc.status), 'Done')
    const block = enc.out
    const exact = drive(lz4Block.createDecoder({ outputSize: data.length }), block)
    assert.ok(equalBytes(exact.out, data))
    const tiny = drive(lz4Block.createDecoder({ outputSize: data.length }), block, 1000, 1)
    assert.ok(equalBytes(tiny.out, data))
    const wrong = drive(lz4Block.createDecoder({ outputSize: data.length + 1 }), block)
    assert.is(statusName(wrong.status), 'InvalidData')
    const wrong2 = drive(lz4Block.createDecoder({ outputSize: data.length - 1 }), block)
    assert.is(statusName(wrong2.status), 'InvalidData')
    // Empty input, outputSize 0 (an empty Arrow buffer).
    assert.is(statusName(drive(lz4Block.createDecoder({ outputSize: 0 }), new Uint8Array(0)).status), 'Done')
    // A hostile outputSize far beyond what the input can hold fails before allocating.
    const huge = lz4Block.createDecoder({ outputSize: 2 ** 31, maxOutputBytes: Infinity })
    assert.is(statusName(huge.transform(new Uint8Array([0]), new Uint8Array(10), true)), 'InvalidData')
  })

  cliTest(`${engine.name}: raw block extracted from an lz4 -9 frame decodes with lz4Block`, () => {
    const data = text.subarray(0, 200_000)
    const frame = lz4cli(['-9', '-B7', '--no-frame-crc'], data)
    // magic 4 + FLG + BD + HC = 7, then one compressed block.
    const size = frame[7]! | (frame[8]! << 8) | (frame[9]! << 16) | (frame[10]! << 24)
    assert.ok(size > 0 && size < 0x80000000, 'one compressed block')
    const r = drive(lz4Block.createDecoder({ outputSize: data.length }), frame.subarray(11, 11 + size))
    assert.ok(equalBytes(r.out, data))
  })

  // --- frames: the reference encoder against our decoder ---

  cliTest(`${engine.name}: lz4 CLI frames decode (all samples, -1/-9/-BD/-BX/--content-size/-B4..7/--no-frame-crc)`, () => {
    const big = binarySlice(0, 3_000_000)
    const bigFlags = [['-1'], ['-B4', '-BD'], ['-B5', '-BX', '--content-size']]
    for (const [name, data] of [...corpus, ['node binary 3 MB', big] as [string, Uint8Array]]) {
      for (const flags of data === big ? bigFlags : cliFlags) {
        const frame = lz4cli(flags, data)
        expectDecodes(frame, data, `${name} ${flags.join(' ')}`)
        // Streaming: pieces and destinations of odd sizes.
        expectDecodes(frame, data, `${name} ${flags.join(' ')} split 4099/65521`, 4099, 65521)
      }
    }
  })

  cliTest(`${engine.name}: 1-byte input splits and 1-byte dst (independent and linked blocks)`, () => {
    const data = text.subarray(0, 150_000)
    for (const flags of [['-B4'], ['-B4', '-BD', '-BX', '--content-size'], ['-B5', '-BD']]) {
      const frame = lz4cli(flags, data)
      expectDecodes(frame, data, `${flags.join(' ')} split 1`, 1, 1 << 20)
      expectDecodes(frame, data, `${flags.join(' ')} dst 1`, frame.length, 1)
      expectDecodes(frame, data, `${flags.join(' ')} split 1 dst 3`, 1, 3)
    }
  })

  cliTest(`${engine.name}: linked blocks: matches reach into output given to earlier calls`, () => {
    // Repetitive input (the same 40 KB twice, then again) in 64 KiB linked blocks: many
    // matches cross block boundaries. Destinations of 10000 bytes put the previous
    // block's bytes in earlier dsts.
    const unit = text.subarray(0, 40_000)
    const data = concat(unit, randomBytes(30_000), unit, unit, randomBytes(5000), unit)
    const frame = lz4cli(['-B4', '-BD'], data)
    const independent = lz4cli(['-B4'], data)
    assert.ok(frame.length < independent.length, 'linked frame is smaller (matches cross blocks)')
    for (const [split, room] of [[frame.length, 10_000], [5000, 65536], [65536 + 11, 70_000], [333, 1 << 20], [frame.length, 65535]]) {
      expectDecodes(frame, data, `linked split ${split} room ${room}`, split, room)
    }
  })

  cliTest(`${engine.name}: concatenated and skippable frames: Done at each end, rest unconsumed`, () => {
    const a = source.subarray(0, 3000)
    const b = text.subarray(0, 5000)
    const fa = lz4cli(['-BX'], a)
    const fb = encode(b)
    const skip = concat(le32(0x184d2a57), le32(5), new Uint8Array([1, 2, 3, 4, 5]))
    const stream = concat(fa, skip, fb)
    const dec = engine.frame.createDecoder({})
    const dst = new Uint8Array(20_000)
    assert.is(dec.transform(stream, dst, true), Status.Done)
    assert.is(dec.consumed, fa.length)
    assert.ok(equalBytes(dst.subarray(0, dec.written), a))
    // Done latches until reset.
    assert.is(dec.transform(stream.subarray(fa.length), dst, true), Status.Done)
    assert.is(dec.consumed, 0)
    dec.reset()
    assert.is(dec.transform(stream.subarray(fa.length), dst, true), Status.Done)
    assert.is(dec.consumed, skip.length)
    assert.is(dec.written, 0)
    dec.reset()
    assert.is(dec.transform(stream.subarray(fa.length + skip.length), dst, true), Status.Done)
    assert.ok(equalBytes(dst.subarray(0, dec.written), b))
    // A skippable frame fed 1 byte at a time.
    const r = decode(concat(skip, fb), 1, 16)
    assert.is(statusName(r.status), 'Done')
    assert.is(r.consumed, skip.length)
    // The CLI itself accepts the whole stream.
    assert.ok(equalBytes(lz4cliDecode(stream), concat(a, b)))
  })

  test(`${engine.name}: contentSize is exposed once the header is read; exact-size dst allocates no block buffers`, () => {
    const data = text.subarray(0, 200_000)
    const frame = encode(data, { contentSize: data.length })
    const dec = engine.frame.createDecoder({}) as Decoder & Record<string, unknown>
    assert.is(dec.contentSize, -1)
    assert.is(dec.transform(frame.subarray(0, 10), new Uint8Array(0), false), Status.NeedMoreData)
    assert.is(dec.contentSize, -1)
    // magic 4 + FLG + BD + content size 8 + HC = 15 bytes of header.
    dec.transform(frame.subarray(10, 15), new Uint8Array(0), false)
    assert.is(dec.contentSize, data.length)
    // Exact-size decodes, reused through reset(), with and without a declared size.
    const frames = [frame, encode(data), encode(data, { blockSize: 4194304 }), encode(data.subarray(0, 100), { blockSize: 4194304 })]
    for (const f of frames) {
      const want = f === frames[3] ? data.subarray(0, 100) : data
      const dst = new Uint8Array(want.length)
      for (let i = 0; i < 3; i++) {
        dec.reset()
        assert.is(dec.transform(f, dst, true), Status.Done)
        assert.is(dec.written, want.length)
        assert.ok(equalBytes(dst, want))
      }
      assert.is(dec.blockIn, null, 'no input block buffer')
      assert.is((dec.staged as Record<string, unknown>).buffer, null, 'no output block buffer')
      assert.is((dec.kernel as Record<string, unknown>).history ?? null, null, 'no history')
    }
  })

  test(`${engine.name}: one decoder reused for thousands of small frames`, () => {
    const dec = engine.frame.createDecoder({})
    const dst = new Uint8Array(2000)
    const frames: Array<[Uint8Array, Uint8Array]> = []
    for (let i = 0; i < 50; i++) {
      const d = text.subarray(i * 997, i * 997 + (i * 37) % 2000)
      frames.push([encode(d, { contentSize: d.length }), d])
    }
    for (let k = 0; k < 3000; k++) {
      const [f, d] = frames[k % frames.length]!
      dec.reset()
      assert.is(dec.transform(f, dst.subarray(0, d.length), true), Status.Done)
      if (k < frames.length) assert.ok(equalBytes(dst.subarray(0, d.length), d))
    }
  })

  // --- corrupt, truncated and hostile input ---

  test(`${engine.name}: truncation at every length: NeedMoreData, never Done or InvalidData`, () => {
    const data = source.subarray(0, 700)
    const frames = [encode(data, { blockChecksum: true, contentSize: data.length }), encode(concat(data, randomBytes(300)), { blockChecksum: true })]
    for (const frame of frames) {
      for (let n = 0; n < frame.length; n++) {
        const dec = engine.frame.createDecoder({})
        const s = dec.transform(frame.subarray(0, n), new Uint8Array(4096), true)
        assert.is(statusName(s), 'NeedMoreData', `truncated at ${n} of ${frame.length}`)
        assert.is(dec.consumed, n, `every usable byte consumed at ${n}`)
      }
    }
  })

  test(`${engine.name}: bit flips with checksums: InvalidData or NeedMoreData, never wrong output`, () => {
    const data = source.subarray(0, 400)
    const frames = [encode(concat(data, randomBytes(100)), { blockChecksum: true, contentSize: 500 }), encode(data, { contentChecksum: true })]
    for (const frame of frames) {
      for (let bit = 0; bit < frame.length * 8; bit++) {
        const bad = frame.slice()
        bad[bit >>> 3]! ^= 1 << (bit & 7)
        const r = decode(bad, bad.length, 4096)
        if (r.status === Status.Done) {
          const original = decode(frame).out
          assert.ok(equalBytes(r.out, original), `bit ${bit}: Done with different output`)
        } else {
          assert.ok(r.status === Status.InvalidData || r.status === Status.NeedMoreData, `bit ${bit}: ${statusName(r.status)}`)
        }
      }
    }
    // Without checksums: no throw, some status, always terminates.
    const plain = encode(data, { contentChecksum: false })
    for (let bit = 0; bit < plain.length * 8; bit++) {
      const bad = plain.slice()
      bad[bit >>> 3]! ^= 1 << (bit & 7)
      decode(bad, 64, 100)
    }
  })

  test(`${engine.name}: checksum mismatches carry CHECKSUM_MISMATCH`, () => {
    const data = source.subarray(0, 3000)
    const frame = encode(data, { blockChecksum: true })
    const badBlockSum = frame.slice()
    badBlockSum[frame.length - 9]! ^= 0x40 // inside the last block checksum
    const r1 = decode(badBlockSum)
    assert.is(statusName(r1.status), 'InvalidData')
    assert.is(r1.codec.failure!.code, 'CHECKSUM_MISMATCH')
    const badContentSum = frame.slice()
    badContentSum[frame.length - 1]! ^= 1
    const r2 = decode(badContentSum, 1, 10)
    assert.is(r2.codec.failure!.code, 'CHECKSUM_MISMATCH')
    assert.is(r2.codec.failure!.offset, frame.length - 4)
    const badHeader = frame.slice()
    badHeader[6]! ^= 1
    assert.is(decode(badHeader).codec.failure!.code, 'CHECKSUM_MISMATCH')
    // Stored (uncompressed) block with a bad checksum, streamed 1 byte at a time.
    const raw = encode(randomBytes(1000), { blockChecksum: true, contentChecksum: false })
    const badRaw = raw.slice()
    badRaw[raw.length - 5]! ^= 0x80
    assert.is(decode(badRaw, 1, 1).codec.failure!.code, 'CHECKSUM_MISMATCH')
  })

  test(`${engine.name}: hostile block size field: InvalidData before any allocation, with the numbers`, () => {
    for (const size of [0x7fffffff, 65537, 0xffffffff]) {
      const frame = concat(header(0x60, 0x40), le32(size))
      const dec = engine.frame.createDecoder({}) as Decoder & Record<string, unknown>
      assert.is(dec.transform(frame, new Uint8Array(100), false), Status.InvalidData)
      assert.is(dec.failure!.code, 'INVALID_DATA')
      assert.match(dec.failure!.message, `block size ${size & 0x7fffffff} exceeds the frame's maximum 65536`)
      assert.is(dec.failure!.offset, 7)
      assert.is(dec.blockIn, null)
    }
    // Exactly the maximum is fine (a stored 64 KiB block).
    const ok = concat(header(0x60, 0x40), le32(0x80010000), randomBytes(65536), le32(0))
    assert.is(statusName(decode(ok).status), 'Done')
  })

  test(`${engine.name}: content size mismatch, descriptor errors, dictionary ID, legacy frames`, () => {
    const data = source.subarray(0, 2000)
    const body = encode(data, { contentChecksum: false }).subarray(7) // blocks + end mark
    for (const declared of [1999, 2001, 0]) {
      const r = decode(concat(header(0x68, 0x40, declared), body))
      assert.is(statusName(r.status), 'InvalidData', `declared ${declared}`)
      assert.match(r.codec.failure!.message, /content size|declares/)
    }
    assert.is(statusName(decode(concat(header(0x68, 0x40, 2000), body)).status), 'Done')
    const cases: Array<[Uint8Array, string]> = [
      [header(0x00, 0x40), 'INVALID_DATA'], // version 00
      [header(0x80, 0x40), 'INVALID_DATA'], // version 10
      [header(0x62, 0x40), 'INVALID_DATA'], // FLG reserved bit 1
      [header(0x60, 0xc0), 'INVALID_DATA'], // BD reserved bit 7
      [header(0x60, 0x41), 'INVALID_DATA'], // BD reserved low bits
      [header(0x60, 0x30), 'INVALID_DATA'], // block max id 3
      [header(0x61, 0x40, undefined, 77), 'UNSUPPORTED'], // dictionary ID
      [new Uint8Array([0x02, 0x21, 0x4c, 0x18]), 'UNSUPPORTED'], // legacy frame
      [new Uint8Array([0x04, 0x22, 0x4d, 0x19]), 'INVALID_DATA'], // bad magic
    ]
    for (const [bytes, code] of cases) {
      const r = decode(bytes, 1, 10)
      assert.is(statusName(r.status), 'InvalidData', [...bytes].join(' '))
      assert.is(r.codec.failure!.code, code, [...bytes].join(' '))
    }
    // A declared content size beyond maxOutputBytes fails at the header.
    const big = decode(header(0x68, 0x40, 1e9), undefined, undefined, { maxOutputBytes: 1e6 })
    assert.is(big.codec.failure!.code, 'LIMIT_EXCEEDED')
    // InvalidData latches until reset.
    const dec = engine.frame.createDecoder({})
    assert.is(dec.transform(header(0x00, 0x40), new Uint8Array(10), true), Status.InvalidData)
    assert.is(dec.transform(encode(data), new Uint8Array(10), true), Status.InvalidData)
    dec.reset()
    assert.is(dec.transform(encode(data), new Uint8Array(4000), true), Status.Done)
  })

  test(`${engine.name}: empty stored block (0x80000000) is a block, not the end mark`, () => {
    const frame = concat(header(0x70, 0x40), le32(0x80000000), le32(xxh32(new Uint8Array(0))), le32(0x80000003), new Uint8Array([7, 8, 9]), le32(xxh32(new Uint8Array([7, 8, 9]))), le32(0))
    const r = decode(frame, 1, 1)
    assert.is(statusName(r.status), 'Done')
    assert.equal([...r.out], [7, 8, 9])
  })

  test(`${engine.name}: lz4js frames decode; lz4js decodes our frames`, () => {
    for (const [name, data] of corpus) {
      const theirs = lz4js.compress(data)
      expectDecodes(theirs, data, `lz4js frame: ${name}`)
      if (data.length > 0) assert.ok(equalBytes(lz4js.decompress(encode(data), data.length), data), `lz4js decodes ours: ${name}`)
    }
  })

  test(`${engine.name}: lz4js frame of 16 MB of the node binary: decodes exactly (the CLI rejects it)`, () => {
    // lz4js ends some blocks with a match closer than 12 bytes to the end, which the
    // block format allows decoders to reject ("End of block conditions") and the
    // reference CLI does; we decode it (our decoder only enforces memory safety), and
    // the output must still be exact.
    const data = binarySlice(0, 16 << 20)
    const frame = lz4js.compress(data)
    const dst = new Uint8Array(data.length)
    const dec = engine.frame.createDecoder({})
    assert.is(dec.transform(frame, dst, true), Status.Done)
    assert.ok(equalBytes(dst, data))
  })

  test(`${engine.name}: lz4-napi frames decode`, () => {
    for (const [name, data] of corpus) expectDecodes(napi.compressFrameSync(Buffer.from(data)), data, `lz4-napi: ${name}`)
  })
}

// --- the wasm kernel itself (lib/codecs/wasm/lz4.wat), called directly ---

interface KernelExports {
  memory: WebAssembly.Memory
  decode(src: number, srcEnd: number, dst: number, dstEnd: number, dictStart: number): number
  xxh32_reset(state: number, seed: number): number
  xxh32_update(state: number, p: number, length: number): number
  xxh32_digest(state: number): number
  xxh32(p: number, length: number, seed: number): number
  compress(src: number, srcEnd: number, dst: number, dstEnd: number, table: number, hashLog: number): number
}
const kernelModule = new WebAssembly.Module(readFileSync(new URL('../lib/codecs/wasm/gen/lz4.wasm', import.meta.url)))
const newKernel = (pages: number): KernelExports => {
  const x = new WebAssembly.Instance(kernelModule, {}).exports as unknown as KernelExports
  x.memory.grow(pages - 1)
  return x
}

test('wasm kernel: same result as decodeBlock on valid, mutated and random blocks; writes only [dst, dstEnd + 32)', () => {
  const x = newKernel(4)
  const mem = new Uint8Array(x.memory.buffer)
  const SRC = 0x100
  const HIST = 1000
  const DST = 0x20000
  const SLACK = 32
  const history = text.subarray(100_000, 100_000 + HIST)
  const plain = concat(text.subarray(100_500, 100_700), text.subarray(0, 5000))
  const base = new Uint8Array(maxCompressedSize(plain.length))
  const n = encodeBlock(plain, 0, plain.length, base, 0, base.length, createHashTable())
  const canary = Buffer.alloc(mem.length, 0xee)
  const untouched = (from: number, to: number): boolean => Buffer.compare(Buffer.from(mem.buffer, from, to - from), canary.subarray(0, to - from)) === 0
  let seed = 7
  const rand = (k: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return (seed >>> 8) % k
  }
  const ts = new Uint8Array(HIST + 6000)
  let decoded = 0
  for (let i = 0; i < 3000; i++) {
    const block = i % 3 === 2 ? randomBytes(1 + rand(300), i + 1) : base.slice(0, n)
    if (i % 3 === 1) for (let k = 0; k < 1 + rand(4); k++) block[rand(n)] = rand(256)
    const room = i % 3 === 0 ? plain.length : rand(5500)
    const withHistory = i % 2 === 0
    mem.fill(0xee)
    mem.set(block, SRC)
    mem.set(history, DST - HIST)
    ts.set(history, 0)
    const r = x.decode(SRC, SRC + block.length, DST, DST + room, withHistory ? DST - HIST : DST)
    const t = decodeBlock(block, 0, block.length, ts, HIST, HIST + room, withHistory ? 0 : HIST)
    assert.is(r, t, `case ${i}: wasm ${r}, TypeScript ${t}`)
    if (r >= 0) {
      decoded++
      assert.ok(equalBytes(mem.subarray(DST, DST + r), ts.subarray(HIST, HIST + r)), `case ${i}: output differs`)
    }
    assert.ok(untouched(0, SRC) && untouched(SRC + block.length, DST - HIST), `case ${i}: wrote before the history`)
    assert.ok(equalBytes(mem.subarray(DST - HIST, DST), history), `case ${i}: wrote into the history`)
    assert.ok(untouched(DST + room + SLACK, mem.length), `case ${i}: wrote past dstEnd + ${SLACK}`)
  }
  assert.ok(decoded >= 1000, `${decoded} cases decoded`)
})

test('wasm kernel: ranges outside memory or out of order return -4 (never trap)', () => {
  const x = newKernel(1)
  const size = x.memory.buffer.byteLength
  const decodes: Array<[number, number, number, number, number]> = [
    [0, size, 100, 200, 100], // srcEnd without room for the 32-byte slack
    [100, 200, 300, size - 31, 300], // dstEnd likewise
    [200, 100, 300, 400, 300], // src > srcEnd
    [100, 200, 400, 300, 400], // dst > dstEnd
    [100, 200, 300, 400, 350], // dictStart > dst
    [-1, 10, 300, 400, 300],
    [100, -1, 300, 400, 300],
    [100, 200, -64, -1, -64],
    [0x7fffffff, 0x7fffffff, 0, 10, 0],
  ]
  for (const args of decodes) assert.is(x.decode(...args), -4, args.join(' '))
  assert.is(x.decode(100, 100, 300, 400, 300), -1, 'empty block')
  assert.is(x.xxh32_reset(size - 47, 0), -4)
  assert.is(x.xxh32_reset(-1, 0), -4)
  assert.is(x.xxh32_reset(0, 0), 0)
  assert.is(x.xxh32_update(0, size - 10, 11), -4)
  assert.is(x.xxh32_update(0, 100, -1), -4)
  assert.is(x.xxh32_update(0, -5, 10), -4)
  assert.is(x.xxh32(size - 10, 11, 0), 0)
  assert.is(x.xxh32_digest(-48), 0)
  // A state whose stripe length was corrupted is refused, not trusted as a length.
  new DataView(x.memory.buffer).setUint32(28, 99, true)
  assert.is(x.xxh32_update(0, 100, 5), -4)
})

test('wasm kernel: xxh32 one-shot and streaming equal the TypeScript xxHash32', () => {
  const x = newKernel(4)
  const mem = new Uint8Array(x.memory.buffer)
  const data = binarySlice(2_000_000, 100_003)
  const P = 1024
  mem.set(data, P)
  for (let n = 0; n <= 40; n++) assert.is(x.xxh32(P, n, 0) >>> 0, xxh32(data, 0, n), `length ${n}`)
  assert.is(x.xxh32(P, data.length, 0) >>> 0, xxh32(data))
  assert.is(x.xxh32(P + 3, 1000, 12345) >>> 0, xxh32(data, 3, 1003, 12345))
  for (const step of [1, 3, 15, 16, 17, 4096]) {
    for (const seed of [0, 12345]) {
      x.xxh32_reset(0, seed)
      for (let i = 0; i < data.length; i += step) assert.is(x.xxh32_update(0, P + i, Math.min(step, data.length - i)), 0)
      assert.is(x.xxh32_digest(0) >>> 0, xxh32(data, 0, data.length, seed), `step ${step} seed ${seed}`)
    }
  }
  x.xxh32_reset(0, 0)
  x.xxh32_update(0, P, 5)
  assert.is(x.xxh32_digest(0) >>> 0, xxh32(data, 0, 5))
})

// --- the wasm engine: one shared instance under interleaved use ---

cliTest('wasm engine: interleaved linked frames, checksummed frames and raw blocks decode exactly', () => {
  const dataA = concat(text.subarray(0, 150_000), randomBytes(20_000), text.subarray(0, 90_000))
  const dataB = concat(binarySlice(300_000, 200_000), text.subarray(50_000, 120_000))
  // Incompressible 64 KiB (a stored block), then 60000 of its bytes again (offset 60000,
  // within the 64 KiB window): a block whose matches reach into the stored block.
  const random = randomBytes(65536, 5)
  const dataC = concat(random, random.subarray(5536), text.subarray(0, 1000))
  const frames = [lz4cli(['-B4', '-BD'], dataA), lz4cli(['-B4', '-BD', '-BX', '--content-size'], dataB), encode(dataA, { blockChecksum: true }), lz4cli(['-B4', '-BD'], dataC)]
  const wants = [dataA, dataB, dataA, dataC]
  assert.ok(frames[3]!.length < 70_000, 'the second copy is matched against the stored block')
  assert.ok((frames[3]![7 + 3]! & 0x80) !== 0, 'the first block is stored')
  const decoders = frames.map(() => lz4Wasm.createDecoder({}))
  const outs: Uint8Array[][] = frames.map(() => [])
  const pos = frames.map(() => 0)
  const done = frames.map(() => false)
  const rawData = source.subarray(0, 3000)
  const rawBlock = drive(lz4Block.createEncoder({}), rawData).out
  const dst = new Uint8Array(7001)
  for (let round = 0; done.includes(false); round++) {
    assert.ok(round < 10_000, 'no progress')
    for (let k = 0; k < frames.length; k++) {
      if (done[k]) continue
      const src = frames[k]!.subarray(pos[k], pos[k]! + 5003 + 1000 * k)
      const s = decoders[k]!.transform(src, dst, pos[k]! + src.length >= frames[k]!.length)
      assert.ok(s !== Status.InvalidData, `frame ${k}: ${JSON.stringify(decoders[k]!.failure)}`)
      outs[k]!.push(dst.slice(0, decoders[k]!.written))
      pos[k]! += decoders[k]!.consumed
      if (s === Status.Done) done[k] = true
      // A raw block between frame calls takes the shared memory.
      const raw = drive(lz4BlockWasm.createDecoder({ outputSize: rawData.length }), rawBlock)
      assert.ok(equalBytes(raw.out, rawData), 'raw block')
    }
  }
  for (let k = 0; k < frames.length; k++) assert.ok(equalBytes(concatList(outs[k]!), wants[k]!), `frame ${k}`)
  for (const d of decoders) d.dispose()
})

test('wasm engine: a raw block larger than the shared instance takes (and reuses) a second one', () => {
  const data = binarySlice(0, 12 << 20)
  const block = new Uint8Array(maxCompressedSize(data.length))
  const n = encodeBlock(data, 0, data.length, block, 0, block.length, createHashTable())
  assert.ok(n + data.length > 16 * 1024 * 1024, 'over SHARED_LIMIT')
  const dst = new Uint8Array(data.length)
  for (let i = 0; i < 2; i++) {
    const dec = lz4BlockWasm.createDecoder({ outputSize: data.length })
    assert.is(dec.transform(block.subarray(0, n), dst, true), Status.Done)
    assert.ok(equalBytes(dst, data))
    dst.fill(0)
  }
  // The frame engine still works on the shared instance afterwards.
  expectDecodesWith(lz4Wasm, encode(text.subarray(0, 100_000)), text.subarray(0, 100_000), 'frame after a large raw block')
})

test('wasm engine: garbage after a valid header, in odd pieces: a status, never a throw', () => {
  for (let i = 0; i < 300; i++) {
    const r = drive(lz4Wasm.createDecoder({}), concat(header(0x40 | (i & 0x3c), 0x40 | ((4 + (i & 3)) << 4)), randomBytes(2000 + i * 50, i + 7)), 1 + (i % 97), 1 + (i % 50))
    assert.ok(r.status === Status.InvalidData || r.status === Status.NeedMoreData || r.status === Status.Done)
  }
})

test('wasm kernel: compress writes the same bytes as encodeBlock; stays inside its ranges + 16 bytes of slack', () => {
  const x = newKernel(40)
  const mem = new Uint8Array(x.memory.buffer)
  const TABLE = 0x100
  const SRC = TABLE + (4 << 16) + 64
  const SLACK = 16
  let seed = 11
  const rand = (k: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return (seed >>> 8) % k
  }
  /** Short runs of a few symbols, copied from up to 300 bytes back: many overlapping matches. */
  const synthetic = (n: number): Uint8Array => {
    const a = new Uint8Array(n)
    const symbols = 1 + rand(6)
    for (let i = 0; i < n; i++) a[i] = i > 300 && rand(10) < 7 ? a[i - 1 - rand(300)]! : rand(symbols)
    return a
  }
  const inputs: Uint8Array[] = [new Uint8Array(0), new Uint8Array(200_000), new Uint8Array(70_000).fill(7), randomBytes(70_000, 3)]
  for (const size of [1, 5, 12, 13, 14, 15, 16, 17, 31, 100, 1000, 65_536, 65_537, 300_000]) inputs.push(text.subarray(0, size), text.subarray(text.length - size), binarySlice(1_000_000, size))
  for (let i = 0; i < 60; i++) inputs.push(synthetic(rand(150_000)))
  let compressed = 0
  for (const data of inputs) {
    for (const hashLog of [8, 13, 16]) {
      const table = createHashTable(hashLog)
      for (const room of [maxCompressedSize(data.length), Math.max(0, data.length - 1), data.length >>> 2]) {
        const want = new Uint8Array(room)
        const n = encodeBlock(data, 0, data.length, want, 0, room, table)
        const DST = SRC + data.length + SLACK
        mem.fill(0xee, 0, DST + room + 4096)
        mem.set(data, SRC)
        const r = x.compress(SRC, SRC + data.length, DST, DST + room, TABLE, hashLog)
        const label = `${data.length} bytes, hashLog ${hashLog}, room ${room}`
        assert.is(r, n, `${label}: wasm ${r}, TypeScript ${n}`)
        if (n > 0) {
          compressed++
          assert.ok(equalBytes(mem.subarray(DST, DST + n), want.subarray(0, n)), `${label}: output differs`)
        }
        assert.ok(mem.subarray(0, TABLE).every((b) => b === 0xee), `${label}: wrote before the table`)
        assert.ok(mem.subarray(TABLE + (4 << hashLog), SRC).every((b) => b === 0xee), `${label}: wrote past the table`)
        assert.ok(equalBytes(mem.subarray(SRC, SRC + data.length), data), `${label}: wrote into the input`)
        assert.ok(mem.subarray(DST + room + SLACK, DST + room + 4096).every((b) => b === 0xee), `${label}: wrote past dstEnd + ${SLACK}`)
      }
    }
  }
  assert.ok(compressed >= 150, `${compressed} cases compressed`)
  // Bad ranges and table sizes are refused, never a trap.
  const size = x.memory.buffer.byteLength
  assert.is(x.compress(SRC, SRC + 100, SRC + 200, SRC + 300, TABLE, 7), -4, 'hashLog 7')
  assert.is(x.compress(SRC, SRC + 100, SRC + 200, SRC + 300, TABLE, 17), -4, 'hashLog 17')
  assert.is(x.compress(SRC, SRC + 100, SRC + 200, SRC + 300, size - 100, 13), -4, 'table outside memory')
  assert.is(x.compress(SRC + 100, SRC, SRC + 200, SRC + 300, TABLE, 13), -4, 'src > srcEnd')
  assert.is(x.compress(SRC, SRC + 100, SRC + 300, SRC + 200, TABLE, 13), -4, 'dst > dstEnd')
  assert.is(x.compress(SRC, size - 31, SRC + 200, SRC + 300, TABLE, 13), -4, 'srcEnd without slack')
  assert.is(x.compress(SRC, SRC + 100, SRC + 200, size - 31, TABLE, 13), -4, 'dstEnd without slack')
  assert.is(x.compress(-1, SRC, SRC + 200, SRC + 300, TABLE, 13), -4, 'negative src')
})

test('wasm engine: frame encoders write the same bytes as the TypeScript one, also interleaved on the shared instance', () => {
  const data = concat(text.subarray(0, 300_000), randomBytes(70_000, 9), binarySlice(500_000, 200_000), new Uint8Array(100_000))
  const optionSets: Array<Record<string, unknown>> = [{}, { blockChecksum: true }, { contentChecksum: false }, { level: 3, blockSize: 262144 }, { blockSize: 4194304, contentSize: data.length }]
  for (const options of optionSets) {
    const want = drive(lz4.createEncoder(options), data).out
    for (const [split, room] of [[data.length, 1 << 20], [65536, 65536], [10_007, 3001]] as const) {
      const got = drive(lz4Wasm.createEncoder(options), data, split, room)
      assert.is(statusName(got.status), 'Done')
      assert.ok(equalBytes(got.out, want), `${JSON.stringify(options)} split ${split} room ${room}: frames differ`)
    }
  }
  // Three encoders take turns on the shared instance, a block at a time: each keeps its
  // own content hash (and one is reset mid-way and starts a new frame).
  const inputs = [text.subarray(0, 400_000), binarySlice(0, 300_000), source.subarray(0, 200_000)]
  const wants = inputs.map((d) => encode(d))
  const encoders = inputs.map(() => lz4Wasm.createEncoder({}))
  const outs: Uint8Array[][] = inputs.map(() => [])
  const pos = inputs.map(() => 0)
  const dst = new Uint8Array(80_000)
  let restarted = false
  for (let active = inputs.length; active > 0; ) {
    active = 0
    for (let k = 0; k < inputs.length; k++) {
      if (pos[k]! > inputs[k]!.length) continue
      const piece = inputs[k]!.subarray(pos[k], pos[k]! + 65536)
      const final = pos[k]! + 65536 >= inputs[k]!.length
      for (let s = encoders[k]!.transform(piece, dst, final), first = true; ; s = encoders[k]!.transform(piece.subarray(0, 0), dst, final), first = false) {
        assert.ok(s !== Status.InvalidData)
        if (first) assert.is(encoders[k]!.consumed, piece.length)
        outs[k]!.push(dst.slice(0, encoders[k]!.written))
        if (s !== Status.DestinationTooSmall) break
      }
      pos[k] = final ? Infinity : pos[k]! + 65536
      if (k === 1 && !restarted && pos[k]! >= 131072) {
        // Restart encoder 1 mid-frame: the output so far is dropped.
        restarted = true
        encoders[k]!.reset()
        outs[k] = []
        pos[k] = 0
      }
      active++
    }
  }
  for (let k = 0; k < inputs.length; k++) assert.ok(equalBytes(concatList(outs[k]!), wants[k]!), `encoder ${k}`)
  for (const e of encoders) e.dispose()
})

cliTest('wasm engine: the lz4 CLI decodes frames from the wasm encoder', () => {
  const data = concat(text.subarray(0, 200_000), randomBytes(70_000, 4), binarySlice(0, 100_000))
  for (const options of [{}, { blockChecksum: true, contentSize: data.length }, { blockSize: 4194304 }]) {
    const frame = drive(lz4Wasm.createEncoder(options), data).out
    assert.ok(equalBytes(lz4cliDecode(frame), data), JSON.stringify(options))
  }
})

test.run()
