// The parts random access into deflate streams runs on (issue 31), on both indexable
// engines: the block observer of the inflaters (every block start reported once, at its
// exact bit, whatever the input splits), the index built while decoding through the
// machine (the same output as the plain decoder; a point at the first block and every
// `spacing` bytes; empty windows at member starts), and decoding resumed at every point
// from its window and bit (InflaterAt) giving the content from there. Compressed by
// node:zlib and by our encoders, gzip, zlib and raw deflate, single and multi-member.
import zlib from 'node:zlib'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Machine } from '../lib/machine.js'
import { Status } from '../lib/status.js'
import { createIndexingDecoder } from '../lib/gzip-index/indexing-decoder.js'
import { inflateWindow, loadIndexParts, type IndexEngine } from '../lib/gzip-index/engines.js'
import { InflaterAt } from '../lib/gzip-index/inflate-at.js'
import type { GzipIndex, GzipIndexFormat } from '../lib/gzip-index/gzip-index.js'
import type { BlockObserver } from '../lib/codecs/inflate-observer.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { concatBytes } from './_bytes.js'

const ENGINES: readonly IndexEngine[] = ['wasm', 'js']
const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 3_000_000, /\.d\.ts$/)
/** Text, then incompressible bytes (stored blocks), then text again. */
const mixed = concatBytes([text.subarray(0, 700_000), randomBytes(200_000), text.subarray(700_000, 1_500_000)])

function equal(a: Uint8Array, b: Uint8Array, what: string): void {
  assert.is(a.length, b.length, `${what}: length`)
  if (Buffer.compare(a, b) !== 0) {
    let i = 0
    while (a[i] === b[i]) i++
    assert.unreachable(`${what}: differs at ${i}`)
  }
}

const compressors: Record<GzipIndexFormat, (b: Uint8Array, level?: number) => Uint8Array> = {
  gzip: (b, level = 6) => zlib.gzipSync(b, { level }),
  deflate: (b, level = 6) => zlib.deflateSync(b, { level }),
  'deflate-raw': (b, level = 6) => zlib.deflateRawSync(b, { level }),
}

/** Decodes `input` through the machine with an indexing decoder, in `chunk`-byte pieces. */
async function indexByDecoding(format: GzipIndexFormat, input: Uint8Array, engine: IndexEngine, spacing: number, chunk = 65536): Promise<{ out: Uint8Array; index: GzipIndex }> {
  const decoder = await createIndexingDecoder(format, { engine, spacing })
  const machine = new Machine(decoder, { format, mode: 'decode', blockSize: 256 * 1024, maxOutputBytes: Infinity, concatenated: format === 'gzip' })
  const outs: Uint8Array[] = []
  for (let at = 0; at < input.length; at += chunk) {
    machine.push(input.subarray(at, at + chunk))
    for (let o; (o = machine.next()); ) outs.push(o.slice())
  }
  machine.end()
  for (let o; (o = machine.next()); ) outs.push(o.slice())
  const index = decoder.finish(input.length)
  decoder.dispose()
  return { out: concatBytes(outs), index }
}

/** Resumes at every point of `index` and checks up to `check` bytes of content from there. */
async function resumeEverywhere(index: GzipIndex, input: Uint8Array, content: Uint8Array, engine: IndexEngine, check = 100_000): Promise<void> {
  const parts = await loadIndexParts(engine)
  const windows = parts.decoder('deflate-raw', parts.body('deflate-raw'))
  const at = new InflaterAt(parts.body('deflate-raw'))
  const window = new Uint8Array(32768)
  for (let i = 0; i < index.points.length; i++) {
    const p = index.points[i]!
    at.start(p.compressedBitOffset, inflateWindow(windows, p, i, window))
    const want = content.subarray(p.uncompressedOffset, p.uncompressedOffset + check)
    const dst = new Uint8Array(want.length)
    const status = at.transform(input.subarray(at.startByte), dst, true)
    assert.ok(status === Status.Done || status === Status.DestinationTooSmall, `point ${i}: status ${status} ${at.failure?.message ?? ''}`)
    // A point in an earlier member ends at that member's end: compare what came.
    equal(dst.subarray(0, at.written), want.subarray(0, at.written), `${engine} point ${i} at ${p.uncompressedOffset}`)
  }
  windows.dispose()
  at.dispose()
}

for (const engine of ENGINES) {
  for (const format of ['gzip', 'deflate', 'deflate-raw'] as const) {
    test(`${engine} ${format}: the index built while decoding resumes at every point`, async () => {
      const input = compressors[format](mixed)
      const { out, index } = await indexByDecoding(format, input, engine, 256 * 1024)
      equal(out, mixed, 'decoded')
      assert.is(index.format, format)
      assert.is(index.uncompressedSize, mixed.length)
      assert.is(index.compressedSize, input.length)
      const first = index.points[0]!
      assert.is(first.uncompressedOffset, 0)
      assert.is(first.windowSize, 0)
      // The first block follows the header: 10 bytes of gzip, 2 of zlib, none for raw.
      assert.is(first.compressedBitOffset, { gzip: 80, deflate: 16, 'deflate-raw': 0 }[format])
      for (let i = 1; i < index.points.length; i++) {
        const p = index.points[i]!
        assert.ok(p.uncompressedOffset - index.points[i - 1]!.uncompressedOffset >= 256 * 1024, 'spacing kept')
        assert.is(p.windowSize, 32768)
      }
      assert.ok(index.points.length >= 5, `${index.points.length} points`)
      await resumeEverywhere(index, input, mixed, engine)
    })
  }

  test(`${engine}: input split anywhere gives the same index`, async () => {
    const input = compressors.gzip(mixed.subarray(600_000, 1_000_000), 1)
    const points = (index: GzipIndex) => index.points.map((p) => [p.uncompressedOffset, p.compressedBitOffset, p.windowSize])
    const reference = points((await indexByDecoding('gzip', input, engine, 50_000, input.length)).index)
    assert.ok(reference.length >= 5, `${reference.length} points`)
    for (const chunk of [1, 7, 4096]) assert.equal(points((await indexByDecoding('gzip', input, engine, 50_000, chunk)).index), reference, `chunks of ${chunk}`)
  })

  test(`${engine}: members each start with an empty window where a point falls on them`, async () => {
    // Members of 300 KB; spacing 1 byte: every block start is a point.
    const members = [0, 1, 2, 3].map((k) => zlib.gzipSync(mixed.subarray(k * 300_000, (k + 1) * 300_000)))
    const input = concatBytes(members)
    const { out, index } = await indexByDecoding('gzip', input, engine, 1)
    equal(out, mixed.subarray(0, 1_200_000), 'decoded')
    let memberAt = 0
    for (let k = 0; k < members.length; k++) {
      const p = index.points.find((q) => q.uncompressedOffset === k * 300_000 && q.compressedBitOffset === (memberAt + 10) * 8)
      assert.ok(p, `point at member ${k}`)
      assert.is(p!.windowSize, 0, `member ${k} needs no window`)
      memberAt += members[k]!.length
    }
    await resumeEverywhere(index, input, mixed.subarray(0, 1_200_000), engine, 5000)
  })

  test(`${engine}: the observer is told each block start once, at its bit`, async () => {
    // Blocks of every kind: stored (level 0), fixed (tiny input at level 1), dynamic.
    const input = concatBytes([zlib.deflateRawSync(text.subarray(0, 200_000), { level: 6, finishFlush: zlib.constants.Z_SYNC_FLUSH })])
    const reference: Array<[number, number]> = []
    const parts = await loadIndexParts(engine)
    const collect = (into: Array<[number, number]>): BlockObserver => ({ block: (bit, out) => void into.push([bit, out]) })
    const whole = parts.body('deflate-raw')
    whole.observer = collect(reference)
    whole.reset()
    whole.run(input, 0, new Uint8Array(300_000), 0, 0, false)
    assert.ok(reference.length >= 3, `${reference.length} blocks`)
    for (const step of [1, 3, 1000]) {
      const seen: Array<[number, number]> = []
      const body = parts.body('deflate-raw')
      body.observer = collect(seen)
      body.reset()
      const dst = new Uint8Array(300_000)
      let i = 0
      let o = 0
      while (i < input.length) {
        const end = Math.min(input.length, i + step)
        body.run(input.subarray(0, end), i, dst, o, 0, false)
        i = body.inPos
        o = body.outPos
        if (body.inPos < end) break
      }
      assert.equal(seen, reference, `input in steps of ${step}`)
      body.dispose?.()
    }
    whole.dispose?.()
  })
}

test('skipBits: resuming inside a byte at every bit position of one block start', async () => {
  // Fixed-code blocks of a few bytes each: block starts fall on every bit of a byte.
  const pieces: Uint8Array[] = []
  const stream = zlib.createDeflateRaw({ level: 1 })
  stream.on('data', (b: Buffer) => pieces.push(new Uint8Array(b)))
  for (let k = 0; k < 64; k++) {
    stream.write(Buffer.from(`line ${k} ${'x'.repeat(k % 7)}\n`))
    await new Promise<void>((resolve) => stream.flush(zlib.constants.Z_PARTIAL_FLUSH, () => resolve()))
  }
  const ended = new Promise<void>((resolve) => stream.on('end', resolve))
  stream.end()
  await ended
  const input = concatBytes(pieces)
  const content = new Uint8Array(zlib.inflateRawSync(input))
  for (const engine of ENGINES) {
    const { index } = await indexByDecoding('deflate-raw', input, engine, 1)
    const bits = new Set(index.points.map((p) => p.compressedBitOffset % 8))
    assert.ok(bits.size >= 6, `${engine}: block starts at ${bits.size} different bit positions`)
    await resumeEverywhere(index, input, content, engine)
  }
})

test.run()
