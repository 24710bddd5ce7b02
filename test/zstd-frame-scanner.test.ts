// The zstd frame scanner (lib/codecs/zstd-frame.ts): finds where a frame ends from its
// headers alone, in any pieces; the node engine relies on it (node:zlib does not say).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { ZstdFrameScanner } from '../lib/codecs/zstd-frame.js'
import { encodeWhole as encode } from '../lib/whole-buffer.js'
import { binarySlice, filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { tryCli } from './_cli.js'

/** Scans `bytes` in pieces of `piece` bytes; returns the end offset, or -2 / -1. */
function frameEnd(bytes: Uint8Array, piece: number): { end: number; scanner: ZstdFrameScanner } {
  const scanner = new ZstdFrameScanner()
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
  const s = new ZstdFrameScanner()
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

test.run()
