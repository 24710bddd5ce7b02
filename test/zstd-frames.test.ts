// zstdFrames(): every frame of a stream with its header fields, without decoding, against
// what the zstd CLI (Debian package zstd) wrote and what `zstd -lv` reports; skippable
// frames, dictionary IDs, frames without content size; truncated and corrupt input. The
// CLI's `inspect` reads the same walk, keeping the frames read before an error.
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError, encode, zstdFrames } from '../index.js'
import { readU32LE, writeU32LE } from '../lib/endian.js'
import { inspectZstd } from '../lib/inspect/codecs.js'
import { concatBytes } from './_bytes.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { rejection } from './_caught.js'
import { requireCli, runCli } from './_cli.js'

const cliTest = requireCli('zstd', 'zstdFrames against zstd -lv') ? test : test.skip
const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 1_000_000, /\.d\.ts$/)

function skippable(magic: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + payload.length)
  writeU32LE(out, 0, magic)
  writeU32LE(out, 4, payload.length)
  out.set(payload, 8)
  return out
}

cliTest('frames of CLI streams: sizes, content sizes, windows, checksums, skippable frames', async () => {
  const a = runCli('zstd', ['-q', '-c', '-3'], text, 'file')
  const b = runCli('zstd', ['-q', '-c', '--no-check', '-19'], text.subarray(0, 5000), 'stdin')
  const c = runCli('zstd', ['-q', '-c', '-1'], randomBytes(400_000), 'file')
  const skip = skippable(0x184d2a53, new Uint8Array(1000).fill(7))
  const stream = concatBytes([a, skip, b, c])
  const frames = await zstdFrames(stream)
  assert.equal(
    frames.map((f) => [f.offset, f.compressedSize]),
    [[0, a.length], [a.length, skip.length], [a.length + skip.length, b.length], [a.length + skip.length + b.length, c.length]],
  )
  assert.is(frames[0]!.contentSize, text.length)
  assert.ok(frames[0]!.checksum)
  assert.is(frames[1]!.skippable, 0x184d2a53)
  assert.is(frames[2]!.contentSize, undefined, 'streamed: no content size')
  assert.not.ok(frames[2]!.checksum)
  assert.is(frames[3]!.contentSize, 400_000)
  // The CLI's own listing of the same stream.
  const listing = new TextDecoder().decode(runCli('zstd', ['-lv'], stream, 'file'))
  assert.match(listing, /# Zstandard Frames: 3/)
  assert.match(listing, /# Skippable Frames: 1/)
  // Through a range source read in small windows: the same frames.
  let reads = 0
  const source = { size: stream.length, read: async (o: number, l: number) => (reads++, stream.slice(o, o + l)) }
  assert.equal(await zstdFrames(source, { chunkSize: 4096 }), frames)
  assert.ok(reads > 1)
})

test('dictionary IDs and our own frames', async () => {
  // A frame header naming a Dictionary_ID (zstdFrames reads headers only, decodes nothing).
  const frame = await encode('zstd', text.subarray(0, 1000))
  const withId = new Uint8Array(frame.length + 4)
  withId.set(frame.subarray(0, 4))
  // Descriptor: keep the content-size and checksum bits, set Dictionary_ID_flag 3 (4 bytes).
  withId[4] = frame[4]! | 3
  const header = frame[4]! & 0x20 ? 1 : 2 // single segment: no window byte
  withId.set(frame.subarray(5, 5 + header - 1), 5)
  writeU32LE(withId, 4 + header, 123456)
  withId.set(frame.subarray(4 + header), 8 + header)
  const [f] = await zstdFrames(withId)
  assert.is(f!.dictionaryId, 123456)
  assert.is(f!.compressedSize, withId.length)
  assert.is(f!.contentSize, 1000)
})

test('truncated and corrupt streams are CodecErrors with offsets', async () => {
  const frame = await encode('zstd', text.subarray(0, 300_000))
  const cut = (await rejection(zstdFrames(frame.subarray(0, frame.length - 3)))) as CodecError
  assert.instance(cut, CodecError)
  assert.is(cut.code, 'TRUNCATED')
  const junk = (await rejection(zstdFrames(concatBytes([frame, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])])))) as CodecError
  assert.is(junk.code, 'INVALID_DATA')
  assert.is(junk.offset, frame.length)
  const reserved = frame.slice()
  reserved[4]! |= 0x08
  assert.is(((await rejection(zstdFrames(reserved))) as CodecError).code, 'INVALID_DATA')
  const longSkip = skippable(0x184d2a50, new Uint8Array(10)).subarray(0, 12)
  assert.is(((await rejection(zstdFrames(longSkip))) as CodecError).code, 'TRUNCATED')
  assert.equal(await zstdFrames(new Uint8Array(0)), [])
  assert.is(((await rejection(zstdFrames(concatBytes([frame, frame]), { maxFrames: 1 }))) as CodecError).code, 'LIMIT_EXCEEDED')
})

test('inspect keeps the frames read before corrupt or cut framing, and says what is wrong where', async () => {
  const frame = await encode('zstd', text.subarray(0, 300_000))
  const whole = await inspectZstd(concatBytes([frame, frame]))
  assert.is(whole.error, undefined)
  assert.equal(whole.frames.map((f) => [f.offset, f.compressedSize, f.contentSize]), [[0, frame.length, 300_000], [frame.length, frame.length, 300_000]])
  assert.is(whole.frames[0]!.checksum, readU32LE(frame, frame.length - 4).toString(16).padStart(8, '0'))
  assert.ok(whole.frames[0]!.blocks! >= 3, 'three 128 KiB blocks at least')
  const cut = await inspectZstd(concatBytes([frame, frame]).subarray(0, 2 * frame.length - 3))
  assert.is(cut.frames.length, 1)
  assert.match(cut.error!, new RegExp(`ends inside the content checksum of the frame at ${frame.length} .*at byte ${2 * frame.length - 4}`))
  const junk = await inspectZstd(concatBytes([frame, new Uint8Array([1, 2, 3, 4])]))
  assert.is(junk.frames.length, 1)
  assert.match(junk.error!, new RegExp(`cannot start a zstd frame .*at byte ${frame.length}`))
  // From an offset (dcz's header before the stream): offsets are in the whole file.
  const after = await inspectZstd(concatBytes([new Uint8Array(40), frame]), 40)
  assert.equal([after.frames[0]!.offset, after.compressedSize, after.error], [40, frame.length, undefined])
})

test.run()
