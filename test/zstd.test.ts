// zstd span codecs against the reference `zstd` CLI (Debian package `zstd`) both ways,
// on real files: the project's sources, node_modules files, a slice of the node binary.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Decoder, Encoder } from '../lib/codec.js'
import { loadZstd } from '../lib/codecs/zstd.js'
const zstd = await loadZstd()
import { loadZstdDecoderEngine, loadZstdEncoderEngine } from '../lib/codecs/wasm/zstd-engine.js'
import { parseFrameHeader } from '../lib/codecs/zstd-frame-format.js'
import { CodecError } from '../lib/errors.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { Status, statusName } from '../lib/status.js'
import { root } from './_fixtures.js'
import { filesCorpus } from './_corpus.js'
import { concatBytes as concat } from './_bytes.js'

import { requireCli, runCli } from './_cli.js'

const cliTest = requireCli('zstd') ? test : test.skip

/**
 * Runs the zstd CLI. Compression reads a file, so the CLI knows the size and writes it
 * in the header unless told `--no-content-size`; `stdin: true` streams the input (no
 * content size either).
 */
function cli(args: string[], input: Uint8Array, stdin = args.includes('-d')): Uint8Array {
  return runCli('zstd', ['-q', ...args], input, stdin ? 'stdin' : 'file')
}

const bytes = (path: string): Uint8Array => new Uint8Array(readFileSync(path))
/** The zstd codec's own source files (some 49 KB of TypeScript, as zstd.ts alone was before it was split by job). */
const source = concat(['zstd.ts', 'zstd-decode.ts', 'zstd-encode.ts', 'zstd-dictionary.ts', 'zstd-heap.ts'].map((f) => bytes(join(root, 'lib', 'codecs', f))))
const small = bytes(join(root, 'lib', 'status.ts'))
const dts = bytes(join(root, 'node_modules', 'typescript', 'lib', 'lib.dom.d.ts'))
const binary = bytes(process.execPath).subarray(0, 3 * 2 ** 20)

/** 11 MiB of node_modules JavaScript, concatenated. */
const large = filesCorpus(join(root, 'node_modules', 'typescript', 'lib'), 11 * 2 ** 20, /\.js$/)

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0
}

interface DecodeResult {
  output: Uint8Array
  /** Status at the end: Done when all input formed complete frames. */
  status: Status
  failure: Decoder['failure']
  frames: number
  contentSizes: number[]
}

/**
 * A driver like the stream's: feeds `split`-byte pieces (re-presenting unconsumed bytes),
 * gives `room` bytes of output per call, resets after each frame when bytes follow.
 */
function decode(decoder: Decoder, input: Uint8Array, split = input.length, room = 1 << 16): DecodeResult {
  const parts: Uint8Array[] = []
  const dst = new Uint8Array(room)
  let start = 0 // first unconsumed byte
  let end = Math.min(split, input.length) // bytes made available so far
  let frames = 0
  const contentSizes: number[] = []
  for (let guard = 0; guard < 1e8; guard++) {
    const final = end === input.length
    const status = decoder.transform(input.subarray(start, end), dst, final)
    assert.ok(decoder.consumed >= 0 && decoder.consumed <= end - start, `consumed ${decoder.consumed} of ${end - start}`)
    assert.ok(decoder.written >= 0 && decoder.written <= dst.length)
    parts.push(dst.slice(0, decoder.written))
    start += decoder.consumed
    if (status === Status.InvalidData) return { output: concat(parts), status, failure: decoder.failure, frames, contentSizes }
    if (status === Status.Done) {
      frames++
      contentSizes.push(decoder.contentSize ?? -1)
      if (start === input.length) return { output: concat(parts), status, failure: null, frames, contentSizes }
      decoder.reset()
      continue
    }
    if (status === Status.NeedMoreData) {
      if (final) return { output: concat(parts), status, failure: null, frames, contentSizes }
      end = Math.min(end + split, input.length)
    }
  }
  throw new Error('decoder loops')
}

/** Encodes with `split`-byte input pieces and `room`-byte output per call. */
function encode(encoder: Encoder, input: Uint8Array, split = input.length, room = 1 << 16): Uint8Array {
  const parts: Uint8Array[] = []
  const dst = new Uint8Array(room)
  let start = 0
  for (;;) {
    const end = Math.min(start + split, input.length)
    const final = end === input.length
    let piece = input.subarray(start, end)
    for (;;) {
      const status = encoder.transform(piece, dst, final)
      parts.push(dst.slice(0, encoder.written))
      piece = piece.subarray(encoder.consumed)
      if (status === Status.Done) break
      assert.is(statusName(status), 'DestinationTooSmall', encoder.failure?.message)
    }
    start = end
    if (final) return concat(parts)
  }
}

const roundtripFiles: [string, Uint8Array][] = [
  ['project source', source],
  ['lib.dom.d.ts', dts],
  ['node binary slice', binary],
  ['empty', new Uint8Array(0)],
  ['1 byte', new Uint8Array([42])],
]

cliTest('decodes CLI frames of real files: with and without content size, with and without checksum', () => {
  const decoder = zstd.createDecoder({})
  for (const [name, data] of roundtripFiles) {
    // Level 19 only on the small inputs: the CLI runs at a few MB/s there.
    const levels = data.length < 100000 ? [['-19'], ['-19', '--no-check']] : [['-9']]
    for (const args of [['-3'], ['-1', '--no-check'], ['-3', '--no-content-size'], ...levels]) {
      const frame = cli(['-c', ...args], data)
      decoder.reset()
      const r = decode(decoder, frame, frame.length, 1 << 16)
      assert.is(statusName(r.status), 'Done', `${name} ${args.join(' ')}: ${r.failure?.message}`)
      assert.ok(equalBytes(r.output, data), `${name} ${args.join(' ')}: output differs`)
      assert.is(r.contentSizes[0], args.includes('--no-content-size') ? -1 : data.length, `${name} ${args.join(' ')} contentSize`)
    }
  }
  decoder.dispose()
})

cliTest('decodes a stdin-streamed frame (no content size) of > 10 MiB in 64 KiB pieces; the zstddec trap', () => {
  const frame = cli(['-3', '-c'], large, true)
  const r = decode(zstd.createDecoder({}), frame, 65536, 65536)
  assert.is(statusName(r.status), 'Done')
  assert.is(r.output.length, large.length)
  assert.ok(equalBytes(r.output, large))
  assert.equal(r.contentSizes, [-1])
})

cliTest('encodes > 10 MiB in 64 KiB pieces; the CLI decodes it and sees a checksum', () => {
  const frame = encode(zstd.createEncoder({}), large, 65536, 65536)
  assert.ok(equalBytes(cli(['-d', '-c'], frame), large))
  assert.ok((frame[4]! & 4) !== 0, 'Content_Checksum_flag set by default')
  assert.ok(frame.length < large.length / 3, `ratio ${large.length / frame.length}`)
})

cliTest('encodes real files at levels 1, 3 (default), 19, with and without checksum; CLI round trip', () => {
  for (const [name, data] of roundtripFiles) {
    const levels = data.length < 100000 ? [{ level: 19, checksum: false }] : [{ level: 9, checksum: false }]
    for (const options of [{}, { level: 1 }, ...levels] as { level?: number; checksum?: boolean }[]) {
      const frame = encode(zstd.createEncoder(options), data)
      assert.ok(equalBytes(cli(['-d', '-c'], frame), data), `${name} ${JSON.stringify(options)}`)
      const descriptor = frame[4]!
      assert.is((descriptor & 4) !== 0, options.checksum !== false, `${name} checksum flag`)
      // The whole input came in one final call: the content size is in the header.
      const r = decode(zstd.createDecoder({}), frame)
      assert.equal(r.contentSizes, [data.length], `${name} contentSize`)
      assert.ok(equalBytes(r.output, data))
    }
  }
})

cliTest('content size is written when known: contentSize option or one large final call', () => {
  for (const size of [0, 1, 255, 256, 65791, 65792, binary.length]) {
    const data = binary.subarray(0, size)
    // In pieces with the contentSize option.
    const pieces = encode(zstd.createEncoder({ contentSize: size }), data, 40000, 1000)
    // One final call larger than the staging buffer.
    const whole = encode(zstd.createEncoder({}), data, data.length, 1 << 20)
    for (const frame of [pieces, whole]) {
      const r = decode(zstd.createDecoder({}), frame)
      assert.equal(r.contentSizes, [size], `size ${size}`)
      assert.ok(equalBytes(r.output, data))
      assert.ok(equalBytes(cli(['-d', '-c'], frame), data))
    }
  }
  // Streaming without a known size: no Frame_Content_Size field.
  const streamed = encode(zstd.createEncoder({}), source, 1000)
  assert.equal(decode(zstd.createDecoder({}), streamed).contentSizes, [-1])
})

test('contentSize that does not match the input fails instead of writing a bad frame', () => {
  const encoder = zstd.createEncoder({ contentSize: 10 })
  assert.is(encoder.transform(source.subarray(0, 5), new Uint8Array(100), false), Status.Done)
  assert.is(encoder.transform(source.subarray(5, 8), new Uint8Array(100), true), Status.InvalidData)
  assert.is(encoder.failure?.code, 'INVALID_OPTION')
  const longer = zstd.createEncoder({ contentSize: 3 })
  assert.is(longer.transform(source.subarray(0, 5), new Uint8Array(100), false), Status.InvalidData)
})

cliTest('1-byte input splits and 1-byte output, both ways', () => {
  const data = small
  const frame = cli(['-3', '-c'], data)
  const r = decode(zstd.createDecoder({}), frame, 1, 1)
  assert.is(statusName(r.status), 'Done')
  assert.ok(equalBytes(r.output, data))
  assert.equal(r.contentSizes, [data.length])
  const ours = encode(zstd.createEncoder({}), data, 1, 1)
  assert.ok(equalBytes(cli(['-d', '-c'], ours), data))
  const ours2 = encode(zstd.createEncoder({ contentSize: data.length }), data, 7, 1)
  assert.ok(equalBytes(cli(['-d', '-c'], ours2), data))
})

cliTest('concatenated and skippable frames: Done at each end, trailing bytes unconsumed; the @bokuweb trap', () => {
  const a = cli(['-3', '-c'], source)
  const b = cli(['-1', '-c'], small, true) // streamed: no content size
  const skippable = new Uint8Array([0x5e, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5])
  const emptySkippable = new Uint8Array([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0])
  const all = concat([a, skippable, b, emptySkippable, a])
  for (const [split, room] of [[all.length, 1 << 16], [3, 5], [1, 1]] as const) {
    const r = decode(zstd.createDecoder({}), all, split, room)
    assert.is(statusName(r.status), 'Done', r.failure?.message)
    assert.is(r.frames, 5)
    assert.ok(equalBytes(r.output, concat([source, small, source])))
    assert.equal(r.contentSizes, [source.length, 0, -1, 0, source.length])
  }
  // The first Done leaves the next frame's bytes unconsumed.
  const d = zstd.createDecoder({})
  assert.is(d.transform(all, new Uint8Array(source.length), false), Status.Done)
  assert.is(d.consumed, a.length)
  // Latched until reset().
  assert.is(d.transform(all.subarray(a.length), new Uint8Array(10), false), Status.Done)
  assert.is(d.consumed, 0)
  assert.is(d.written, 0)
  // The CLI agrees about the concatenation.
  assert.ok(equalBytes(cli(['-d', '-c'], all), concat([source, small, source])))
})

cliTest('truncation at every length gives NeedMoreData and a correct prefix, never garbage', () => {
  const frame = cli(['-3', '-c'], small)
  const decoder = zstd.createDecoder({})
  for (let n = 0; n < frame.length; n++) {
    decoder.reset()
    const r = decode(decoder, frame.subarray(0, n), 1 + (n % 5), 1 + (n % 7))
    assert.is(statusName(r.status), 'NeedMoreData', `prefix ${n}: ${r.failure?.message}`)
    assert.ok(equalBytes(r.output, small.subarray(0, r.output.length)), `prefix ${n}: wrong bytes`)
  }
  // A long frame cut in the middle of a block.
  const big = cli(['-3', '-c'], dts)
  const r = decode(zstd.createDecoder({}), big.subarray(0, big.length >>> 1), 4096, 4096)
  assert.is(statusName(r.status), 'NeedMoreData')
  assert.ok(r.output.length > 0 && equalBytes(r.output, dts.subarray(0, r.output.length)))
})

cliTest('corruption with a checksum is never silent: every flipped byte gives InvalidData or NeedMoreData', () => {
  const data = source
  const frame = cli(['-3', '-c'], data)
  const decoder = zstd.createDecoder({})
  let invalid = 0
  let tried = 0
  for (let at = 0; at < frame.length; at += at < 64 ? 1 : 3) {
    tried++
    const bad = frame.slice()
    bad[at]! ^= 1 << (at % 8)
    decoder.reset()
    const r = decode(decoder, bad)
    if (r.status === Status.Done) assert.ok(equalBytes(r.output, data), `flip at ${at}: Done with wrong output`)
    if (r.status === Status.InvalidData) {
      invalid++
      assert.ok(r.failure !== null && r.failure.message.length > 0)
      assert.ok(['INVALID_DATA', 'CHECKSUM_MISMATCH', 'UNSUPPORTED', 'LIMIT_EXCEEDED'].includes(r.failure.code), r.failure.code)
      assert.ok(r.failure.offset >= 0 && r.failure.offset <= bad.length)
    }
  }
  assert.ok(invalid > tried * 0.9, `${invalid} of ${tried} flips detected`)
  // A wrong checksum is named as such.
  const bad = frame.slice()
  bad[bad.length - 1]! ^= 0xff
  const r = decode(zstd.createDecoder({}), bad)
  assert.is(r.failure?.code, 'CHECKSUM_MISMATCH')
  // InvalidData is final until reset().
  const d = zstd.createDecoder({})
  assert.is(d.transform(bad, new Uint8Array(data.length), true), Status.InvalidData)
  assert.is(d.transform(frame, new Uint8Array(data.length), true), Status.InvalidData)
  d.reset()
  assert.is(d.transform(frame, new Uint8Array(data.length), true), Status.Done)
})

cliTest('a whole frame into room for all of it: one call, trailing bytes left; when it does not decode, the same failure as streaming', () => {
  for (const data of [small, source, binary]) {
    const frame = cli(['-3', '-c'], data)
    const size = data.length
    // Room for the content and the whole frame present (libzstd's single-pass path).
    const d = zstd.createDecoder({})
    const all = concat([frame, frame.subarray(0, 7)])
    assert.is(statusName(d.transform(all, new Uint8Array(size + 10), false)), 'Done')
    assert.is(d.consumed, frame.length)
    assert.is(d.written, size)
    // No room at all: nothing consumed, room asked for; then all of it.
    d.reset()
    const dst = new Uint8Array(size)
    assert.is(statusName(d.transform(frame, new Uint8Array(0), true)), 'DestinationTooSmall')
    assert.is(d.consumed, 0)
    assert.is(statusName(d.transform(frame, dst, true)), 'Done')
    assert.ok(equalBytes(dst, data))
    // One byte less room, or the frame not all there: the streaming path.
    d.reset()
    assert.is(statusName(d.transform(frame, new Uint8Array(size - 1), true)), 'DestinationTooSmall')
    assert.is(d.written, size - 1)
    d.reset()
    assert.is(statusName(d.transform(frame.subarray(0, frame.length >> 1), dst.fill(0), false)), 'NeedMoreData')
    assert.ok(d.written < size && equalBytes(dst.subarray(0, d.written), data.subarray(0, d.written)))
    // A wrong checksum, and a corrupt block: the failures streaming with little room gives.
    const badSum = frame.slice()
    badSum[badSum.length - 1]! ^= 0xff
    // A byte flipped in the middle of the frame: the first from there that streaming
    // refuses (a flip in bits the format leaves unused, or in a literal the checksum
    // would catch, can decode; which bytes those are depends on the data, which is this
    // repository's own source).
    let badBlock = frame
    for (let at = frame.length >> 1; badBlock === frame && at < frame.length - 4; at++) {
      const bad = frame.slice()
      bad[at]! ^= 0x55
      if (decode(zstd.createDecoder({}), bad, bad.length, 1000).status === Status.InvalidData) badBlock = bad
    }
    assert.ok(badBlock !== frame, 'a flip that streaming refuses')
    for (const [what, bad] of [['checksum', badSum], ['block', badBlock]] as const) {
      const streamed = decode(zstd.createDecoder({}), bad, bad.length, 1000)
      assert.is(streamed.status, Status.InvalidData, `${what}: ${streamed.failure?.message}`)
      const whole = zstd.createDecoder({})
      const out = new Uint8Array(size)
      assert.is(whole.transform(bad, out, true), Status.InvalidData, what)
      assert.is(whole.failure?.code, streamed.failure!.code, `${what}: ${whole.failure?.message}`)
      // (A corrupt block can decode to wrong bytes that only the checksum catches.)
      if (what === 'checksum') assert.ok(equalBytes(out.subarray(0, whole.written), data.subarray(0, whole.written)), what)
      // The decoder is usable again after reset(), on the single-pass path.
      whole.reset()
      assert.is(whole.transform(frame, out, true), Status.Done)
      assert.ok(equalBytes(out, data))
    }
  }
  // Over the 8 MiB the single pass may take: streamed, in the same one call.
  const bigFrame = cli(['-3', '-c'], large)
  const bigOut = new Uint8Array(large.length)
  const big = zstd.createDecoder({})
  assert.is(statusName(big.transform(bigFrame, bigOut, true)), 'Done')
  assert.is(big.consumed, bigFrame.length)
  assert.ok(equalBytes(bigOut, large))
  // An empty frame with no room: Done.
  const empty = cli(['-3', '-c'], new Uint8Array(0))
  const d = zstd.createDecoder({})
  assert.is(statusName(d.transform(empty, new Uint8Array(0), true)), 'Done')
  assert.is(d.consumed, empty.length)
})

test('bytes that cannot start a frame fail at once, not NeedMoreData', () => {
  for (const junk of [[0], [0x28, 0xb5, 0x2f, 0x00], [0x51, 0x2a, 0x4c], [0x28, 0xb5, 0x2f, 0xfd, 0x08]]) {
    const d = zstd.createDecoder({})
    assert.is(statusName(d.transform(new Uint8Array(junk), new Uint8Array(10), false)), 'InvalidData', junk.join(','))
    assert.is(d.failure?.code, 'INVALID_DATA')
  }
  const d = zstd.createDecoder({})
  assert.is(d.transform(new Uint8Array([0x28, 0xb5]), new Uint8Array(10), false), Status.NeedMoreData)
  assert.is(d.consumed, 0)
})

cliTest('windows: 2^27 decodes by default; maxWindowLog refuses larger ones before allocating', async () => {
  // --long=27 asks for a 128 MiB window; the frame header says so even for small input
  // when the size is unknown (streamed from stdin).
  const data = concat([dts, dts])
  const frame = cli(['-3', '-c', '--long=27'], data, true)
  const r = decode(zstd.createDecoder({}), frame, 1 << 16)
  assert.is(statusName(r.status), 'Done', r.failure?.message)
  assert.ok(equalBytes(r.output, data))
  const engine = await loadZstdDecoderEngine()
  const before = engine.exports.memory.buffer.byteLength
  const limited = decode(zstd.createDecoder({ maxWindowLog: 20 }), frame)
  assert.is(limited.failure?.code, 'LIMIT_EXCEEDED')
  assert.match(limited.failure!.message, /134217728 bytes exceeds the limit 2\^20 = 1048576/)
  assert.is(engine.exports.memory.buffer.byteLength, before, 'no wasm memory growth for a refused window')
  // A 2^28 window is past the default limit (libzstd's ZSTD_WINDOWLOG_LIMIT_DEFAULT).
  const huge = cli(['-3', '-c', '--long=28'], small, true)
  assert.is(decode(zstd.createDecoder({}), huge).failure?.code, 'LIMIT_EXCEEDED')
})

cliTest('maxOutputBytes stops a frame past the limit, with or without content size', () => {
  for (const args of [['-3'], ['-3', '--no-content-size']]) {
    const frame = cli(['-c', ...args], dts)
    const r = decode(zstd.createDecoder({ maxOutputBytes: 100000 }), frame)
    assert.is(r.failure?.code, 'LIMIT_EXCEEDED', args.join(' '))
    assert.ok(r.output.length <= 100000)
    const exact = decode(zstd.createDecoder({ maxOutputBytes: dts.length }), frame)
    assert.is(statusName(exact.status), 'Done', args.join(' '))
  }
})

test('flush() makes everything so far decodable', () => {
  const encoder = zstd.createEncoder({})
  const out: Uint8Array[] = []
  const dst = new Uint8Array(1 << 16)
  const half = source.length >>> 1
  assert.is(encoder.transform(source.subarray(0, half), dst, false), Status.Done)
  out.push(dst.slice(0, encoder.written))
  let status: Status
  do {
    status = encoder.flush(dst.subarray(0, 7))
    out.push(dst.slice(0, encoder.written))
  } while (status === Status.DestinationTooSmall)
  assert.is(status, Status.Done)
  const r = decode(zstd.createDecoder({}), concat(out))
  assert.is(statusName(r.status), 'NeedMoreData')
  assert.ok(equalBytes(r.output, source.subarray(0, half)))
  assert.is(encoder.transform(source.subarray(half), dst, true), Status.Done)
  out.push(dst.slice(0, encoder.written))
  assert.ok(equalBytes(decode(zstd.createDecoder({}), concat(out)).output, source))
})

test('reset() reuse and dispose(): no wasm memory growth over many frames; dispose idempotent', async () => {
  const engines = [await loadZstdDecoderEngine(), await loadZstdEncoderEngine()]
  const memory = (): number[] => engines.map((e) => e.exports.memory.buffer.byteLength)
  const decoder = zstd.createDecoder({})
  const encoder = zstd.createEncoder({ level: 5 })
  const sample = dts.subarray(0, 700000)
  const cycle = (): void => {
    encoder.reset()
    const frame = encode(encoder, sample, 50000, 30000)
    decoder.reset()
    const half = decode(decoder, frame.subarray(0, frame.length >>> 1), 10000, 10000)
    assert.is(half.status, Status.NeedMoreData)
    decoder.reset() // mid-frame reset
    assert.ok(equalBytes(decode(decoder, frame, 20000, 20000).output, sample))
  }
  for (let i = 0; i < 3; i++) cycle()
  const before = memory()
  for (let i = 0; i < 12; i++) cycle()
  assert.equal(memory(), before)
  decoder.dispose()
  decoder.dispose()
  encoder.dispose()
  encoder.dispose()
  assert.throws(() => decoder.transform(new Uint8Array(1), new Uint8Array(1), false), (e: unknown) => e instanceof CodecError)
})

test('a decoder left idle after a frame with a large window does not keep the window', async () => {
  // zstd-decode.ts keeps a decoder's libzstd context between frames only when the frame's
  // buffers were small (KEEP_BUFFERS_MAX, 1 MiB): here a 3 MiB single-segment window.
  const memory = (await loadZstdDecoderEngine()).exports.memory
  const content = large.subarray(0, 3 << 20)
  const frame = encode(zstd.createEncoder({ level: 1, windowLog: 22 }), content, content.length, 1 << 22)
  assert.ok(parseFrameHeader(frame, 4).windowSize >= 3 << 20)
  const streamed = (d: Decoder): Uint8Array => decode(d, frame, 1 << 16, 1 << 16).output
  // Warm-up: one decoder's window, allocated and freed.
  const first = zstd.createDecoder({})
  assert.ok(equalBytes(streamed(first), content))
  first.dispose()
  const before = memory.buffer.byteLength
  const idle = Array.from({ length: 4 }, () => zstd.createDecoder({}))
  for (const d of idle) assert.ok(equalBytes(streamed(d), content))
  const grown = memory.buffer.byteLength - before
  assert.ok(grown < 3 << 20, `four idle decoders: the heap grew ${grown} bytes`)
  for (const d of idle) d.dispose()
})

test('options are checked at construction', () => {
  const bad: Record<string, unknown>[] = [{ level: 0 }, { level: 20 }, { level: 2.5 }, { checksum: 'yes' }, { contentSize: -1 }, { contentSize: 1.5 }, { windowLog: 31 }, { long: 1 }, { frameSize: 1024 }, { seekable: 'yes' }, { seekable: true, frameSize: 0 }, { seekable: true, frameSize: 2 ** 30 + 1 }, { seekable: { checksum: true } }, { seekable: { checksums: true }, checksum: false }, { seekable: true, contentSize: 5 }]
  for (const options of bad) {
    assert.throws(() => zstd.createEncoder(options), (e: unknown) => e instanceof CodecError && e.code === 'INVALID_OPTION', JSON.stringify(options))
  }
  for (const options of [{ maxWindowLog: 9 }, { maxWindowLog: 32 }, { maxWindowLog: '20' }, { maxOutputBytes: -1 }]) {
    assert.throws(() => zstd.createDecoder(options), (e: unknown) => e instanceof CodecError && e.code === 'INVALID_OPTION', JSON.stringify(options))
  }
})

cliTest('through the registry (lazy load of the wasm engine)', async () => {
  const encoder = await createEncoder('zstd', { level: 3 })
  const frame = encode(encoder, source)
  const decoder = await createDecoder('zstd')
  assert.ok(equalBytes(decode(decoder, frame).output, source))
  assert.ok(equalBytes(cli(['-d', '-c'], frame), source))
})

test.run()
