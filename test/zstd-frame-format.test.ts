// The zstd frame walker (lib/codecs/zstd-frame-format.ts): finds where a frame ends from its
// headers alone, in any pieces (the node engine relies on it: node:zlib does not say);
// reports each part (header, blocks, checksum) as the CLI and zstdFrames() list them and
// as the wasm decoder feeds libzstd one part at a time; refuses a bad first byte at once.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { FramePart, parseFrameHeader, ZstdFrameWalker } from '../lib/codecs/zstd-frame-format.js'
import { readU32LE } from '../lib/endian.js'
import { encodeWhole as encode } from '../lib/whole-buffer.js'
import { binarySlice, filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { tryCli } from './_cli.js'

/** Scans `bytes` in pieces of `piece` bytes; returns the end offset, or -2 / -1. */
function frameEnd(bytes: Uint8Array, piece: number): { end: number; scanner: ZstdFrameWalker } {
  const scanner = new ZstdFrameWalker()
  for (let at = 0; at < bytes.length; at += piece) {
    const r = scanner.scan(bytes, at, Math.min(bytes.length, at + piece))
    if (r === -2) return { end: -2, scanner }
    if (r >= 0) return { end: r, scanner }
  }
  return { end: -1, scanner }
}

const cli = (data: Uint8Array, args: string[]): Uint8Array | null => tryCli('zstd', ['-c', ...args, '-'], data, 'pipe')

test('a header with every optional field (window, 4-byte dictionary ID, 8-byte content size) is scanned', () => {
  // Descriptor 0xc7: 8-byte Frame_Content_Size, Window_Descriptor, checksum, 4-byte
  // Dictionary_ID (RFC 8878 section 3.1.1.1.1); then one empty last raw block and the checksum.
  const frame = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0xc7, 0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 9, 9, 9, 9, 0xee])
  for (const piece of [1, 5, frame.length]) {
    const { end } = frameEnd(frame, piece)
    assert.is(end, frame.length - 1, `pieces of ${piece}`)
  }
})

test('finds the exact end of frames of every shape, in any pieces', async () => {
  const data = new Uint8Array([...filesCorpus(join(root, 'lib'), 300_000, /\.ts$/), ...binarySlice(0, 200_000)])
  const frames: [string, Uint8Array][] = [
    ['ours, level 3', await encode('zstd', data)],
    ['ours, no checksum', await encode('zstd', data, { level: 1, checksum: false })],
    ['ours, empty input', await encode('zstd', new Uint8Array(0))],
    ['ours, 1 byte', await encode('zstd', new Uint8Array([7]))],
    ['ours, zeros (RLE blocks)', await encode('zstd', new Uint8Array(1 << 20))],
    ['skippable', new Uint8Array([0x50, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5])],
  ]
  for (const args of [['-1'], ['-19', '--no-check'], ['--long=25', '-3']]) {
    const f = cli(data, args)
    if (f) frames.push([`zstd CLI ${args.join(' ')} from a pipe (no content size)`, f])
  }
  const stored = cli(binarySlice(1 << 22, 300_000).map((_, i) => (i * 2654435761) >>> 24), ['--no-compress-literals', '-1'])
  if (stored) frames.push(['zstd CLI, random bytes (raw blocks)', stored])
  if (frames.length < 8) console.log('# zstd CLI not installed: its frames were not scanned')
  for (const [name, frame] of frames) {
    const followed = new Uint8Array([...frame, 0x28, 0xb5, 0x2f, 0xfd, 9])
    for (const piece of [followed.length, 1, 2, 3, 1000, 65536]) {
      const { end, scanner } = frameEnd(followed, piece)
      assert.is(end, frame.length, `${name}, pieces of ${piece}`)
      assert.ok(scanner.ended)
      assert.is(scanner.scanned, frame.length)
    }
    // Every proper prefix is incomplete, never ended.
    for (const cut of [0, 1, 4, 5, frame.length >> 1, frame.length - 1]) {
      if (cut >= frame.length) continue
      assert.is(frameEnd(frame.subarray(0, cut), 7).end, -1, `${name} cut at ${cut}`)
    }
  }
})

test('reset() starts the next frame; bad magic, reserved bits and block types are invalid with their offsets', async () => {
  const frame = await encode('zstd', new TextEncoder().encode('abc'.repeat(10_000)))
  const s = new ZstdFrameWalker()
  assert.is(s.scan(frame, 0, frame.length), frame.length)
  s.reset()
  assert.is(s.scan(frame, 0, frame.length), frame.length)

  const cases: [string, (b: Uint8Array) => void, number][] = [
    ['magic', (b) => void (b[0] = 0x29), 0],
    ['reserved descriptor bit', (b) => void (b[4]! |= 0x08), 4],
  ]
  for (const [name, mutate, offset] of cases) {
    const bad = frame.slice()
    mutate(bad)
    const { end, scanner } = frameEnd(bad, 1)
    assert.is(end, -2, name)
    assert.is(scanner.error!.offset, offset, name)
    assert.match(scanner.error!.message, name === 'magic' ? /magic/ : /reserved/)
  }
  // A block of the reserved type 3, right after a minimal header (single segment, 1-byte size).
  const reservedBlock = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x03, 0x07, 0x00, 0x00])
  const r = frameEnd(reservedBlock, 2)
  assert.is(r.end, -2)
  assert.is(r.scanner.error!.offset, 6)
  // Hostile sizes cost nothing: a skippable frame claiming 4 GiB just waits for bytes.
  const huge = new Uint8Array([0x5f, 0x2a, 0x4d, 0x18, 0xff, 0xff, 0xff, 0xff, 1, 2, 3])
  assert.is(frameEnd(huge, 3).end, -1)
})

/** The parts of `frame` read by hand (RFC 8878 section 3.1.1): [start, end) of each, and the checksum. */
function layout(frame: Uint8Array): { parts: [number, number, number][]; checksum: number } {
  const header = parseFrameHeader(frame, 4)
  const parts: [number, number, number][] = [[FramePart.Header, 0, 4 + header.length]]
  let p = 4 + header.length
  for (;;) {
    const h = frame[p]! | (frame[p + 1]! << 8) | (frame[p + 2]! << 16)
    const end = p + 3 + (((h >> 1) & 3) === 1 ? 1 : h >>> 3)
    parts.push([FramePart.Block, p, end])
    p = end
    if (h & 1) break
  }
  if (header.checksum) parts.push([FramePart.Checksum, p, p + 4])
  return { parts, checksum: header.checksum ? readU32LE(frame, p) : -1 }
}

test('step() stops at the end of each part; blocks and the stored checksum are read', async () => {
  const data = new Uint8Array([...filesCorpus(join(root, 'lib'), 600_000, /\.ts$/)])
  for (const frame of [await encode('zstd', data), await encode('zstd', data, { checksum: false }), await encode('zstd', new Uint8Array(0))]) {
    const { parts, checksum } = layout(frame)
    for (const piece of [1, 3, 1000, frame.length]) {
      const w = new ZstdFrameWalker()
      const seen: [number, number, number][] = []
      let i = 0
      while (!w.ended) {
        const stop = w.step(frame, i, Math.min(frame.length, i + piece))
        assert.ok(stop > i || w.ended, 'progress')
        i = stop
        // Once a part's fields are read, its extent is known; record it when complete.
        if (w.measured && w.scanned === w.end) seen.push([w.part, w.start, w.end])
      }
      assert.is(i, frame.length)
      assert.equal(seen, parts, `pieces of ${piece}`)
      assert.is(w.blocks, parts.length - 1 - (checksum >= 0 ? 1 : 0))
      assert.is(w.checksum, checksum)
    }
    const w = new ZstdFrameWalker()
    w.step(frame, 0, frame.length)
    assert.equal(w.header, parseFrameHeader(frame, 4), 'the header, read whole')
  }
  // A skippable frame: one part, its data counted, never read.
  const skip = new Uint8Array([0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 7, 7, 7])
  const w = new ZstdFrameWalker()
  assert.is(w.scan(skip, 0, skip.length), skip.length)
  assert.equal([w.part, w.skippable, w.end, w.header], [FramePart.Skippable, 0x184d2a5a, 11, null])
})

test('limit(): an engine fed from any position never gets input spanning two parts', async () => {
  const frame = await encode('zstd', new Uint8Array([...filesCorpus(join(root, 'lib'), 400_000, /\.ts$/)]))
  const { parts } = layout(frame)
  const partAt = (pos: number) => parts.findIndex(([, start, end]) => pos >= start && pos < end)
  for (const [piece, step] of [[frame.length, 7919], [5000, 1], [100_000, 65536]] as const) {
    // An engine that reads at most `step` bytes a call, from input given in pieces of `piece`.
    const w = new ZstdFrameWalker()
    let pos = 0
    while (pos < frame.length) {
      const srcEnd = Math.min(frame.length, pos + piece)
      const end = w.limit(frame, pos, srcEnd, pos)
      assert.ok(end > pos, `progress at ${pos}`)
      assert.is(partAt(end - 1), partAt(pos), `[${pos}, ${end}) lies in one part`)
      assert.ok(end === srcEnd || parts.some(([, , e]) => e === end), 'it stops at the end of a part or of the input')
      pos = Math.min(end, pos + step)
    }
    assert.ok(w.ended)
    assert.is(w.limit(frame, pos, frame.length, pos), pos, 'nothing past the end')
  }
})

test('bytes that can no longer start a frame are refused at once, not waited on', () => {
  for (const [bytes, fine] of [[[0x28, 0xb5], true], [[0x5e, 0x2a, 0x4d], true], [[0x28, 0xb6], false], [[0x61], false], [[0x5e, 0x2a, 0x4e], false]] as const) {
    const w = new ZstdFrameWalker()
    const r = w.scan(Uint8Array.from(bytes), 0, bytes.length)
    assert.is(r, fine ? -1 : -2, bytes.join(' '))
    if (!fine) assert.is(w.error!.offset, 0)
  }
})

test.run()
