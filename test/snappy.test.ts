// Snappy: CRC-32C, raw blocks ('snappy-raw') and the framing format ('snappy') as span
// codecs. Oracles: python-snappy (Debian's python3-snappy with python3-crc32c) and npm
// `snappy`'s frame codec both ways for the framing format; snappyjs, hysnappy and npm
// `snappy` for raw blocks.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import type { CodecModule } from '../lib/codec.js'
import { crc32c, maskCrc } from '../lib/codecs/crc32c.js'
import { snappy as jsSnappy, snappyRaw as jsSnappyRaw } from '../lib/codecs/snappy.js'
import { loadSnappyWasm } from '../lib/codecs/snappy-wasm.js'
import { mostSnappyDecoded, readPreamble } from '../lib/codecs/snappy-block.js'
import { jsSnappyKernel } from '../lib/codecs/snappy-kernel.js'
import { createSnappyTable, encodeBlock, maxCompressedLength, writeVarint } from '../lib/codecs/snappy-block.js'
import { STREAM_IDENTIFIER } from '../lib/codecs/snappy-frame-format.js'
import { Status, statusName } from '../lib/status.js'
import { CodecError } from '../lib/errors.js'
import { concatBytes } from './_bytes.js'
import { randomBytes, samples } from './_corpus.js'
import { basicMutations, plainData } from './_mutations.js'
import { decodeSpans, encodeStream, step } from './_span.js'

const require = createRequire(import.meta.url)
const snappyjs = require('snappyjs') as { compress(d: Uint8Array): Uint8Array; uncompress(d: Uint8Array): Uint8Array }
const napi = require('snappy') as {
  compressSync(d: Uint8Array): Buffer
  uncompressSync(d: Uint8Array, o?: { asBuffer: boolean }): Buffer
  Compressor: new () => { update(c: Uint8Array): Buffer; finish(): Promise<Buffer> }
  Decompressor: new () => { update(c: Uint8Array): Buffer; finish(): Promise<Buffer> }
}
const hysnappy = (await import('hysnappy')) as { snappyUncompress(i: Uint8Array, n: number): Uint8Array; snappyCompress(i: Uint8Array): Uint8Array }

const enc = (s: string): Uint8Array => new TextEncoder().encode(s)
const equal = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))

/** Encodes all of `data` with `mod` in one call (big destination). */
function encodeAll(mod: CodecModule, data: Uint8Array, split = data.length || 1): Uint8Array {
  const r = encodeStream(mod.createEncoder({}), data, { split, room: 1 << 20 })
  assert.is(statusName(r.status), 'Done')
  return r.out
}

/** Decodes `data` with `mod`; returns the result (status Done expected by callers that want it). */
function decodeAll(mod: CodecModule, data: Uint8Array, options: Record<string, unknown> = {}, span: Parameters<typeof decodeSpans>[2] = {}) {
  return decodeSpans(mod.createDecoder(options), data, span)
}

function decodesTo(mod: CodecModule, data: Uint8Array, expected: Uint8Array, span: Parameters<typeof decodeSpans>[2] = {}): void {
  const r = decodeAll(mod, data, {}, span)
  assert.is(statusName(r.status), 'Done', r.failure?.message)
  assert.ok(equal(r.out, expected), `decoded ${r.out.length} bytes, expected ${expected.length}`)
}

/** A framing-format chunk: type, 3-byte length, body. */
function chunk(type: number, body: Uint8Array): Uint8Array {
  return concatBytes([Uint8Array.of(type, body.length & 0xff, (body.length >> 8) & 0xff, body.length >> 16), body])
}
const u32 = (v: number): Uint8Array => Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24)
/** A compressed data chunk for `data` (its real block and checksum, or `block` instead). */
function compressedChunk(data: Uint8Array, block = rawBlock(data), crc = maskCrc(crc32c(data))): Uint8Array {
  return chunk(0x00, concatBytes([u32(crc), block]))
}
function rawBlock(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(maxCompressedLength(data.length))
  return out.slice(0, encodeBlock(data, 0, data.length, out, 0, createSnappyTable()))
}

const corpus = samples()
const text = corpus.find(([n]) => n.startsWith('node_modules text'))![1]

test('CRC-32C: the check value and RFC 3720 B.4 vectors; masking as framing_format.txt section 3', () => {
  assert.is(crc32c(enc('123456789')), 0xe3069283)
  assert.is(crc32c(new Uint8Array(32)), 0x8a9136aa)
  assert.is(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43)
  assert.is(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e)
  // Incremental equals one-shot.
  const whole = crc32c(text)
  assert.is(crc32c(text, crc32c(text, 0, 0, 1001), 1001), whole)
  assert.is(maskCrc(0), 0xa282ead8)
  const c = 0x12345678
  assert.is(maskCrc(c), ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0)
})

/**
 * python-snappy through Debian's python3. Debian's python3-snappy computes CRC-32C with
 * its own C helper, which fails on Debian's Python 3.11 ("PY_SSIZE_T_CLEAN macro must be
 * defined"); python3-crc32c's `crc32c.crc32c` is put in its place.
 */
function python(mode: 'compress' | 'decompress', input: Uint8Array): Uint8Array {
  const call = mode === 'compress' ? 's.StreamCompressor().add_chunk(d)' : 's.StreamDecompressor().decompress(d)'
  const code = `import sys, crc32c, snappy.snappy as s\ns._crc32c = crc32c.crc32c\nd = sys.stdin.buffer.read()\nsys.stdout.buffer.write(${call})`
  const r = spawnSync('/usr/bin/python3', ['-c', code], { input, maxBuffer: 1 << 28 })
  if (r.error || r.status !== 0) throw new Error(`python-snappy ${mode} failed: ${r.error?.message ?? r.stderr.toString()}`)
  return new Uint8Array(r.stdout)
}
const pythonReason = ((): string | null => {
  const r = spawnSync('/usr/bin/python3', ['-c', 'import snappy, crc32c'])
  return r.error ? '/usr/bin/python3 not found' : r.status !== 0 ? 'python3-snappy or python3-crc32c is not installed (Debian packages)' : null
})()
if (pythonReason) console.log(`skipping python-snappy interop: ${pythonReason}`)
const pyTest = pythonReason ? test.skip : test

const engines: Array<[string, CodecModule, CodecModule]> = [['js', jsSnappy, jsSnappyRaw]]
const wasm = await loadSnappyWasm()
engines.push(['wasm', wasm.snappy, wasm.snappyRaw])

for (const [engine, snappy, snappyRaw] of engines) {
  test(`${engine}: snappy-raw: round trips, and agrees with snappyjs, hysnappy and npm snappy both ways`, () => {
    for (const [name, data] of corpus) {
      const ours = encodeAll(snappyRaw, data)
      assert.ok(ours.length <= maxCompressedLength(data.length), name)
      decodesTo(snappyRaw, ours, data)
      assert.ok(equal(snappyjs.uncompress(ours), data), `snappyjs decodes ours: ${name}`)
      assert.ok(equal(hysnappy.snappyUncompress(ours, data.length), data), `hysnappy decodes ours: ${name}`)
      assert.ok(equal(napi.uncompressSync(ours, { asBuffer: true }), data), `npm snappy decodes ours: ${name}`)
      for (const [peer, theirs] of [
        ['snappyjs', snappyjs.compress(data)],
        ['hysnappy', hysnappy.snappyCompress(data)],
        ['npm snappy', napi.compressSync(data)],
      ] as const) {
        decodesTo(snappyRaw, theirs, data)
        decodesTo(snappyRaw, theirs, data, { split: 7, room: 1000 })
        void peer
      }
    }
  })

  test(`${engine}: snappy-raw contract: 1-byte splits, 1-byte and empty destinations, exact fit, the Done latch`, () => {
    const data = text.subarray(0, 20_000)
    const block = encodeAll(snappyRaw, data)
    decodesTo(snappyRaw, block, data, { split: 1, room: 1 })
    decodesTo(snappyRaw, block, data, { split: 1, room: 1 << 20 })
    decodesTo(snappyRaw, block, data, { split: () => Math.floor(Math.random() * 40), room: () => Math.floor(Math.random() * 300) })
    // Exact fit: all of the output in one call, Done at once.
    const d = snappyRaw.createDecoder({})
    const out = new Uint8Array(data.length)
    assert.is(statusName(step(d, block, out, true)), 'Done')
    assert.is(d.written, data.length)
    assert.is(d.consumed, block.length)
    assert.ok(equal(out, data))
    // The latch: Done again, nothing consumed or written; trailing bytes are left.
    assert.is(statusName(step(d, Uint8Array.of(1, 2, 3), out, true)), 'Done')
    assert.is(d.consumed, 0)
    d.reset()
    const trailing = concatBytes([block, Uint8Array.of(0xde, 0xad)])
    assert.is(statusName(step(d, trailing, new Uint8Array(data.length + 10), true)), 'Done')
    assert.is(d.consumed, block.length)
    d.reset()
    const streamed = decodeSpans(d, trailing, { split: 5, room: 100 })
    assert.is(statusName(streamed.status), 'Done')
    assert.is(streamed.consumed, block.length)
    // Empty destination: no progress asked for, nothing written, never Done early.
    d.reset()
    const s0 = step(d, block, new Uint8Array(0), false)
    assert.is(d.written, 0)
    assert.ok(s0 === Status.DestinationTooSmall || s0 === Status.NeedMoreData, statusName(s0))
    // Empty chunks change nothing.
    d.reset()
    assert.is(statusName(step(d, new Uint8Array(0), out, false)), 'NeedMoreData')
    assert.is(statusName(step(d, block, out, true)), 'Done')
    // An empty block: the preamble 0 alone.
    decodesTo(snappyRaw, Uint8Array.of(0), new Uint8Array(0))
    assert.ok(equal(encodeAll(snappyRaw, new Uint8Array(0)), Uint8Array.of(0)))
    // Encoder in pieces equals one shot.
    assert.ok(equal(encodeStream(snappyRaw.createEncoder({}), data, { split: 1000, room: 17 }).out, encodeAll(snappyRaw, data)))
  })

  test(`${engine}: snappy-raw hostile: lying preambles are refused before allocation, bad offsets and overruns fail`, () => {
    const fails = (bytes: Uint8Array, code: string, options: Record<string, unknown> = {}, split?: number): void => {
      for (const s of split ? [undefined, split] : [undefined]) {
        const r = decodeAll(snappyRaw, bytes, options, { split: s })
        assert.is(statusName(r.status), 'InvalidData', `${code}: got ${statusName(r.status)}`)
        assert.is(r.failure!.code, code, r.failure!.message)
      }
    }
    // 2^32 - 1 declared by 5 bytes, then one literal byte: far more than 2 bytes can decode to.
    fails(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x41), 'LIMIT_EXCEEDED')
    fails(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x01, 0x00, 0x41), 'INVALID_DATA') // 2^28 from 2 bytes
    fails(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x10), 'INVALID_DATA') // >= 2^32
    fails(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 'INVALID_DATA') // 6-byte varint
    fails(Uint8Array.of(100, 0x00, 0x41), 'LIMIT_EXCEEDED', { maxOutputBytes: 99 })
    // Streamed, the lie is caught by the elements: the output ends before the declared size.
    const lying = decodeAll(snappyRaw, Uint8Array.of(0x80, 0x80, 0x04, 0x00, 0x41), {}, { split: 1 })
    assert.is(statusName(lying.status), 'NeedMoreData') // truncated: the driver says so
    // Copy before the start: 4 bytes at offset 1 as the first element.
    fails(Uint8Array.of(4, 0x01 | (0 << 2), 0x01), 'INVALID_DATA', {}, 1)
    // Offset 0.
    fails(Uint8Array.of(5, 0x00, 0x41, 0x01, 0x00), 'INVALID_DATA', {}, 1)
    // 4-byte offset far back.
    fails(Uint8Array.of(6, 0x00, 0x41, 0x03 | (3 << 2), 0xff, 0xff, 0xff, 0x7f), 'INVALID_DATA', {}, 1)
    // A literal longer than the declared size.
    fails(Uint8Array.of(2, 0x08, 0x41, 0x42, 0x43), 'INVALID_DATA', {}, 1)
    // A copy past the declared size.
    fails(Uint8Array.of(3, 0x00, 0x41, 0x01 | (4 << 2), 0x01), 'INVALID_DATA', {}, 1)
  })

  test(`${engine}: snappy-raw fuzz: mutated blocks decode to the original, fail, or stop short; never throw or overrun`, () => {
    fc.assert(
      fc.property(plainData, fc.oneof(...basicMutations), fc.integer({ min: 1, max: 50 }), (data, mutation, split) => {
        const bad = mutation.apply(encodeAll(snappyRaw, data))
        for (const span of [{}, { split, room: 33 }]) {
          const r = decodeAll(snappyRaw, bad, { maxOutputBytes: 1 << 20 }, span)
          if (r.status === Status.InvalidData) assert.ok(['INVALID_DATA', 'LIMIT_EXCEEDED'].includes(r.failure!.code))
          if (r.status === Status.Done) assert.ok(r.consumed <= bad.length)
        }
      }),
      { numRuns: 400 },
    )
  })

  pyTest(`${engine}: snappy framing: python-snappy decodes ours and we decode python-snappy`, () => {
    for (const [name, data] of corpus) {
      const ours = encodeAll(snappy, data, 10_000)
      assert.ok(equal(python('decompress', ours), data), `python-snappy decodes ours: ${name}`)
      const theirs = python('compress', data)
      decodesTo(snappy, theirs, data)
      decodesTo(snappy, theirs, data, { split: 4096, room: 999 })
    }
  })

  test(`${engine}: snappy framing: npm snappy frame codec decodes ours and we decode its frames`, async () => {
    for (const [name, data] of corpus) {
      const ours = encodeAll(snappy, data)
      const d = new napi.Decompressor()
      const got = concatBytes([d.update(ours), await d.finish()])
      assert.ok(equal(got, data), `npm snappy decodes ours: ${name}`)
      const c = new napi.Compressor()
      const theirs = concatBytes([c.update(data), await c.finish()])
      decodesTo(snappy, theirs, data)
    }
  })

  test(`${engine}: snappy framing contract: splits, destinations, flush, concatenated streams, skippable and padding chunks`, () => {
    const data = concatBytes([text.subarray(0, 150_000), randomBytes(70_000)])
    const stream = encodeAll(snappy, data)
    assert.ok(equal(stream.subarray(0, 10), STREAM_IDENTIFIER))
    decodesTo(snappy, stream, data)
    decodesTo(snappy, stream, data, { split: 1, room: 1 })
    decodesTo(snappy, stream, data, { split: () => Math.floor(Math.random() * 3000), room: () => Math.floor(Math.random() * 70_000) })
    // Encoder: byte pieces and tiny destinations give the same stream.
    assert.ok(equal(encodeStream(snappy.createEncoder({}), data, { split: 1, room: 1 }).out, stream))
    assert.ok(equal(encodeAll(snappy, new Uint8Array(0)), STREAM_IDENTIFIER))
    decodesTo(snappy, STREAM_IDENTIFIER, new Uint8Array(0))
    // Flush: every flushed prefix decodes on its own.
    const e = snappy.createEncoder({})
    const dst = new Uint8Array(1 << 20)
    assert.is(statusName(e.transform(data.subarray(0, 1000), dst, false)), 'Done')
    assert.is(e.written, 10) // the identifier; the data waits for a full chunk
    assert.is(statusName(e.flush(dst.subarray(10))), 'Done')
    decodesTo(snappy, dst.slice(0, 10 + e.written), data.subarray(0, 1000))
    // Done latch: only at the end of the input, with final.
    const dec = snappy.createDecoder({})
    assert.is(statusName(step(dec, stream, new Uint8Array(data.length), false)), 'NeedMoreData')
    assert.is(dec.written, data.length)
    assert.is(statusName(step(dec, new Uint8Array(0), new Uint8Array(10), true)), 'Done')
    assert.is(statusName(step(dec, stream, new Uint8Array(10), true)), 'Done')
    assert.is(dec.consumed, 0)
    // Two streams back to back, padding and skippable chunks between chunks.
    const small = text.subarray(0, 5000)
    const joined = concatBytes([encodeAll(snappy, small), chunk(0xfe, new Uint8Array(300)), chunk(0x80, enc('skip me')), chunk(0xfd, new Uint8Array(0)), encodeAll(snappy, small)])
    decodesTo(snappy, joined, concatBytes([small, small]), { split: 1 })
    // Hand-made chunks: uncompressed data, and an empty compressed chunk.
    const hand = concatBytes([STREAM_IDENTIFIER, chunk(0x01, concatBytes([u32(maskCrc(crc32c(small))), small])), compressedChunk(new Uint8Array(0))])
    decodesTo(snappy, hand, small, { split: 3 })
    // Truncated: NeedMoreData at the end (the driver's truncation), never Done.
    for (const cut of [5, 13, 20, stream.length - 1]) assert.is(statusName(decodeAll(snappy, stream.subarray(0, cut)).status), 'NeedMoreData', `cut at ${cut}`)
  })

  test(`${engine}: snappy framing hostile: checksums, reserved chunks, identifiers, oversized chunks, limits`, () => {
    const fails = (bytes: Uint8Array, code: string, options: Record<string, unknown> = {}): void => {
      for (const split of [undefined, 1]) {
        const r = decodeAll(snappy, bytes, options, { split })
        assert.is(statusName(r.status), 'InvalidData', `${code}: got ${statusName(r.status)}`)
        assert.is(r.failure!.code, code, r.failure!.message)
      }
    }
    const data = text.subarray(0, 3000)
    fails(concatBytes([STREAM_IDENTIFIER, compressedChunk(data, rawBlock(data), maskCrc(crc32c(data)) ^ 1)]), 'CHECKSUM_MISMATCH')
    fails(concatBytes([STREAM_IDENTIFIER, compressedChunk(data, rawBlock(data), crc32c(data))]), 'CHECKSUM_MISMATCH') // unmasked
    fails(concatBytes([STREAM_IDENTIFIER, chunk(0x01, concatBytes([u32(0), data]))]), 'CHECKSUM_MISMATCH')
    // Reserved unskippable types fail on their first byte.
    for (const type of [0x02, 0x40, 0x7f]) fails(concatBytes([STREAM_IDENTIFIER, Uint8Array.of(type)]), 'INVALID_DATA')
    // No identifier first, a wrong one, a wrong second one.
    fails(compressedChunk(data), 'INVALID_DATA')
    fails(Uint8Array.of(0xfe), 'INVALID_DATA')
    fails(concatBytes([STREAM_IDENTIFIER.subarray(0, 4), enc('sNaPpy')]), 'INVALID_DATA')
    fails(concatBytes([STREAM_IDENTIFIER, compressedChunk(data), chunk(0xff, enc('SNAPPY'))]), 'INVALID_DATA')
    fails(concatBytes([STREAM_IDENTIFIER, chunk(0xff, enc('sNaPpY!'))]), 'INVALID_DATA')
    // Oversized chunks are refused from their 4-byte header.
    fails(concatBytes([STREAM_IDENTIFIER, Uint8Array.of(0x01, 0x05, 0x00, 0x01)]), 'LIMIT_EXCEEDED') // 65541 > 4 + 65536
    fails(concatBytes([STREAM_IDENTIFIER, Uint8Array.of(0x00, 0xff, 0xff, 0xff)]), 'LIMIT_EXCEEDED')
    fails(concatBytes([STREAM_IDENTIFIER, Uint8Array.of(0x00, 0x03, 0x00, 0x00)]), 'INVALID_DATA') // no room for the checksum
    // A compressed chunk declaring more than 65536 bytes of data (a valid raw block otherwise).
    const big = new Uint8Array(65537)
    fails(concatBytes([STREAM_IDENTIFIER, compressedChunk(big)]), 'INVALID_DATA')
    // A block lying about its size inside a chunk, and one with trailing elements.
    const block = rawBlock(data)
    const longer = concatBytes([Uint8Array.of(0xc0, 0x17), block.subarray(2)]) // 3008 declared for 3000
    assert.is(block[0], 0xb8) // 3000 = 0xb8 0x17
    fails(concatBytes([STREAM_IDENTIFIER, compressedChunk(data, longer)]), 'INVALID_DATA')
    fails(concatBytes([STREAM_IDENTIFIER, compressedChunk(data, concatBytes([block, Uint8Array.of(0x00, 0x41)]))]), 'INVALID_DATA')
    // maxOutputBytes counts all chunks.
    fails(concatBytes([STREAM_IDENTIFIER, compressedChunk(data), compressedChunk(data)]), 'LIMIT_EXCEEDED', { maxOutputBytes: 5000 })
  })

  test(`${engine}: snappy framing fuzz: mutated streams decode to the original, fail or stop short; never throw`, () => {
    fc.assert(
      fc.property(plainData, fc.oneof(...basicMutations), fc.integer({ min: 1, max: 50 }), (data, mutation, split) => {
        const good = encodeAll(snappy, data)
        const bad = mutation.apply(good)
        for (const span of [{}, { split, room: 33 }]) {
          const r = decodeAll(snappy, bad, { maxOutputBytes: 1 << 20 }, span)
          if (r.status === Status.InvalidData) assert.ok(['INVALID_DATA', 'LIMIT_EXCEEDED', 'CHECKSUM_MISMATCH'].includes(r.failure!.code))
          // Every chunk is checksummed: what decodes without error is a prefix of the data (or the data).
          else assert.ok(equal(r.out, data.subarray(0, r.out.length)) || mutation.kind === 'junk after the end' || mutation.kind === 'insertion', mutation.kind)
        }
      }),
      { numRuns: 400 },
    )
  })
}

test('the wasm kernel and the TypeScript decoder agree on mutated blocks (result or error code)', () => {
  const js = jsSnappyKernel()
  fc.assert(
    fc.property(plainData, fc.oneof(...basicMutations), (data, mutation) => {
      const bad = mutation.apply(rawBlock(data))
      const p = { length: 0, size: 0 }
      if (readPreamble(bad, 0, bad.length, p) !== 0 || p.length > mostSnappyDecoded(bad.length)) return
      const a = new Uint8Array(p.length)
      const b = new Uint8Array(p.length)
      const ra = js.decodeInto(bad, p.size, bad.length, a, 0, p.length)
      const rb = wasm.kernel.decodeInto(bad, p.size, bad.length, b, 0, p.length)
      assert.is(rb, ra, mutation.kind)
      if (ra === p.length) assert.ok(equal(a, b))
    }),
    { numRuns: 1000 },
  )
  // The wasm CRC-32C equals the TypeScript one at every length around its 8-byte steps.
  for (let n = 0; n < 40; n++) assert.is(wasm.kernel.crc32c(text, 3, 3 + n), crc32c(text, 0, 3, 3 + n))
  assert.is(wasm.kernel.crc32c(text, 0, text.length), crc32c(text))
})

test('the wasm compressor: valid, deterministic blocks at fragment and literal boundaries; python-snappy decodes them', () => {
  const js = jsSnappyKernel()
  // Inputs that cross the 64 KiB fragments, the 15-byte margin and the literal length
  // classes: random (literals only), runs (long copies), and repeats at offsets beyond
  // the 1-byte-offset copies' 2047.
  const inputs: Array<[string, Uint8Array]> = []
  for (const n of [0, 1, 14, 15, 16, 17, 60, 61, 256, 257, 65535, 65536, 65537, 131073]) {
    const random = new Uint8Array(n)
    for (let i = 0; i < n; i++) random[i] = (Math.imul(i + 1, 2654435761) >>> 24) & 0xff
    const far = new Uint8Array(n)
    for (let i = 0; i < n; i++) far[i] = i < 3000 ? random[i]! : far[i - 3000 + (i % 7 === 0 ? 1 : 0)]!
    inputs.push([`random ${n}`, random], [`runs ${n}`, new Uint8Array(n).fill(7)], [`far repeats ${n}`, far], [`text ${n}`, text.subarray(0, n)])
  }
  // Larger than the 1 MiB pieces the kernel stages at a time.
  const big = new Uint8Array(2_500_000)
  for (let i = 0; i < big.length; i += text.length) big.set(text.subarray(0, Math.min(text.length, big.length - i)), i)
  inputs.push(['text 2.5 MB', big])
  for (const [name, data] of [...inputs, ...corpus]) {
    const bound = maxCompressedLength(data.length)
    const a = new Uint8Array(bound + 3)
    const end = wasm.kernel.encodeInto(data, 0, data.length, a, 3, true)
    assert.ok(end > 3 && end <= bound + 3, name)
    assert.is(wasm.kernel.checksum, crc32c(data), `checksum ${name}`)
    const block = a.subarray(3, end)
    // Deterministic: the same bytes again, and here the TypeScript encoder's too (the
    // same algorithm; the contract only asks for valid blocks).
    const again = new Uint8Array(bound)
    assert.ok(equal(again.subarray(0, wasm.kernel.encodeInto(data, 0, data.length, again, 0)), block), `deterministic ${name}`)
    const tsBlock = new Uint8Array(bound)
    assert.ok(equal(tsBlock.subarray(0, js.encodeInto(data, 0, data.length, tsBlock, 0)), block), `same as TypeScript ${name}`)
    const out = new Uint8Array(data.length)
    const p = { length: 0, size: 0 }
    assert.is(readPreamble(block, 0, block.length, p), 0)
    assert.is(p.length, data.length)
    assert.is(js.decodeInto(block, p.size, block.length, out, 0, data.length), data.length, name)
    assert.ok(equal(out, data), name)
    assert.ok(equal(snappyjs.uncompress(block), data), `snappyjs ${name}`)
  }
  if (!pythonReason) {
    const data = corpus.find(([n]) => n.startsWith('node binary'))![1]
    const a = new Uint8Array(maxCompressedLength(data.length))
    const block = a.subarray(0, wasm.kernel.encodeInto(data, 0, data.length, a, 0))
    const r = spawnSync('/usr/bin/python3', ['-c', 'import sys, snappy\nsys.stdout.buffer.write(snappy.uncompress(sys.stdin.buffer.read()))'], { input: block, maxBuffer: 1 << 28 })
    assert.is(r.status, 0, r.stderr?.toString())
    assert.ok(equal(new Uint8Array(r.stdout), data), 'python-snappy decodes a wasm raw block')
  }
})

test('through the format table: snappyDecode/snappyEncode, encode/decode, the web classes, decompress() detection', async () => {
  const sluice = await import('../index.js')
  const data = text.subarray(0, 200_000)
  const read = async (s: ReadableStream<Uint8Array>): Promise<Uint8Array> => new Uint8Array(await new Response(s).arrayBuffer())
  const source = () => new Blob([data as Uint8Array<ArrayBuffer>]).stream()
  for (const engine of ['js', 'wasm'] as const) {
    for (const format of ['snappy', 'snappy-raw'] as const) {
      const packed = await sluice.encode(format, data, { engine })
      assert.ok(equal(await sluice.decode(format, packed, { engine }), data), `${format} ${engine}`)
    }
    const framed = await read(source().pipeThrough(sluice.snappyEncode({ engine })))
    assert.ok(equal(framed.subarray(0, 10), STREAM_IDENTIFIER))
    assert.ok(equal(await read(new Blob([framed as Uint8Array<ArrayBuffer>]).stream().pipeThrough(sluice.snappyDecode({ engine }))), data))
  }
  const web = await read(source().pipeThrough(new sluice.CompressionStream('snappy')))
  assert.ok(equal(await read(new Blob([web as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new sluice.DecompressionStream('snappy'))), data))
  // decompress() recognises the stream identifier, also when it arrives a byte at a time.
  const bytewise = new ReadableStream<BufferSource>({
    start(c) {
      for (let i = 0; i < web.length; i += i < 20 ? 1 : 4096) c.enqueue((web as Uint8Array<ArrayBuffer>).subarray(i, i < 20 ? i + 1 : i + 4096))
      c.close()
    },
  })
  assert.ok(equal(await read(bytewise.pipeThrough(sluice.decompress())), data))
  // Limits and corruption surface as CodecErrors from the streams too.
  const bad = web.slice()
  bad[bad.length - 3]! ^= 1
  const err = await read(new Blob([bad as Uint8Array<ArrayBuffer>]).stream().pipeThrough(sluice.snappyDecode())).catch((e: unknown) => e)
  assert.ok(err instanceof CodecError && ['CHECKSUM_MISMATCH', 'INVALID_DATA'].includes(err.code), String(err))
  const big = await sluice.decode('snappy', web, { maxOutputBytes: 1000 }).catch((e: unknown) => e)
  assert.ok(big instanceof CodecError && big.code === 'LIMIT_EXCEEDED', String(big))
  const raw = await sluice.encode('snappy-raw', data)
  const lie = await sluice.decode('snappy-raw', raw, { maxOutputBytes: 1000 }).catch((e: unknown) => e)
  assert.ok(lie instanceof CodecError && lie.code === 'LIMIT_EXCEEDED', String(lie))
})

test.run()
