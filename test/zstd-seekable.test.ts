// The zstd seekable format: writing (one-shot, WHATWG stream, Node stream: the same
// bytes), reading any range through openZstdSeekable (reads counted), the seek table's
// checksums, and hostile tables refused before anything is allocated for them. The zstd
// CLI (Debian package zstd) reads every archive we write as a plain stream.
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError, decode, encode, openZstdSeekable, zstdEncode, zstdFrames, type RangeSource } from '../index.js'
import { nodeEncode } from '../adapters/node/index.js'
import { xxh64, xxh64Low32 } from '../lib/codecs/xxhash64.js'
import { readU32LE, writeU32LE } from '../lib/endian.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { rejection } from './_caught.js'
import { requireCli, runCli } from './_cli.js'
import { concatBytes } from './_bytes.js'

const cliTest = requireCli('zstd', 'zstd CLI reads seekable archives') ? test : test.skip

/** 1.5 MB of real text and 300 KB of incompressible bytes: frames of both kinds. */
const content = concatBytes([filesCorpus(join(root, 'node_modules/typescript/lib'), 1_500_000, /\.d\.ts$/), randomBytes(300_000)])

function equal(a: Uint8Array, b: Uint8Array, what: string): void {
  assert.is(a.length, b.length, `${what}: length`)
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) assert.unreachable(`${what}: differs at ${i}`)
}

/** A range source over `bytes` that records every read. */
function counting(bytes: Uint8Array): RangeSource & { reads: [number, number][] } {
  const reads: [number, number][] = []
  return {
    size: bytes.length,
    reads,
    read: async (offset, length) => {
      reads.push([offset, length])
      return bytes.slice(offset, offset + length)
    },
  }
}

async function codecError(promise: Promise<unknown>): Promise<CodecError> {
  const e = await rejection(promise)
  if (!(e instanceof CodecError)) throw new Error(`expected a CodecError, got ${String(e)}`, { cause: e })
  return e
}

async function streamBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(part)
  return concatBytes(parts)
}

const FRAME = 256 * 1024

test('one-shot, WHATWG stream and Node stream write the same archive', async () => {
  const oneShot = await encode('zstd', content, { seekable: true, frameSize: FRAME })
  // Written in uneven pieces: frames are cut by input bytes, not by writes.
  const pieces = [content.subarray(0, 1000), content.subarray(1000, 700_001), content.subarray(700_001)]
  const web = await streamBytes(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const p of pieces) controller.enqueue(p)
        controller.close()
      },
    }).pipeThrough(zstdEncode({ seekable: true, frameSize: FRAME })),
  )
  const chunks: Buffer[] = []
  await pipeline(Readable.from(pieces.map((p) => Buffer.from(p))), nodeEncode('zstd', { seekable: true, frameSize: FRAME }), async function* (source) {
    for await (const c of source) chunks.push(c as Buffer)
  })
  equal(web, oneShot, 'WHATWG stream')
  equal(new Uint8Array(Buffer.concat(chunks)), oneShot, 'Node stream')
  equal(await decode('zstd', oneShot), content, 'decoded whole')
})

test('frames: content size in every header, the seek table last; zstdFrames agrees with the table', async () => {
  const archive = await encode('zstd', content, { seekable: { checksums: true }, frameSize: FRAME })
  const listed = await zstdFrames(archive)
  const frames = Math.ceil(content.length / FRAME)
  assert.is(listed.length, frames + 1)
  const table = listed[frames]!
  assert.is(table.skippable, 0x184d2a5e)
  assert.is(table.offset + table.compressedSize, archive.length)
  const reader = await openZstdSeekable(archive)
  assert.is(reader.size, content.length)
  assert.is(reader.frames.length, frames)
  for (let i = 0; i < frames; i++) {
    const f = reader.frames[i]!
    assert.is(listed[i]!.offset, f.compressedOffset)
    assert.is(listed[i]!.compressedSize, f.compressedSize)
    assert.is(listed[i]!.contentSize, f.size, `frame ${i} header content size`)
    assert.ok(listed[i]!.checksum)
    assert.is(f.offset, i * FRAME)
    // The table's checksum is the low half of the XXH64 of the frame's content.
    assert.is(f.checksum, xxh64Low32(content.subarray(f.offset, f.offset + f.size)), `frame ${i} checksum`)
  }
})

cliTest('the zstd CLI decodes every archive whole', async () => {
  for (const options of [{ seekable: true }, { seekable: { checksums: true }, frameSize: 100_000, level: 9 }, { seekable: true, frameSize: 1 }]) {
    const input = options.frameSize === 1 ? content.subarray(0, 3000) : content
    const archive = await encode('zstd', input, options)
    equal(runCli('zstd', ['-d', '-c'], archive), input, JSON.stringify(options))
  }
  // No input: only the seek table (zero frames), which the CLI reads as empty.
  const empty = await encode('zstd', new Uint8Array(0), { seekable: true })
  assert.is(empty.length, 17)
  assert.is(runCli('zstd', ['-d', '-c'], empty).length, 0)
  assert.is((await openZstdSeekable(empty)).size, 0)
})

test('read and stream any range; one read for the table, one per run of uncached frames', async () => {
  const archive = await encode('zstd', content, { seekable: true, frameSize: FRAME })
  const source = counting(archive)
  const reader = await openZstdSeekable(source, { cacheFrames: 2 })
  assert.is(source.reads.length, 1, 'the table in the tail read')
  let seed = 12345
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)
  for (let k = 0; k < 40; k++) {
    const offset = next() % content.length
    const length = next() % Math.min(FRAME * 3, content.length - offset + 1)
    equal(await reader.read(offset, length), content.subarray(offset, offset + length), `read(${offset}, ${length})`)
  }
  equal(await reader.read(content.length, 0), new Uint8Array(0), 'empty read at the end')
  // A range over three frames none of which is cached: one read.
  const fresh = counting(archive)
  const r2 = await openZstdSeekable(fresh, { cacheFrames: 0 })
  equal(await r2.read(FRAME - 10, FRAME + 20), content.subarray(FRAME - 10, 2 * FRAME + 10), 'three frames')
  assert.is(fresh.reads.length, 2, 'table + one coalesced read')
  const f = r2.frames
  assert.equal(fresh.reads[1], [f[0]!.compressedOffset, f[2]!.compressedOffset + f[2]!.compressedSize])
  // maxGroupBytes splits the run.
  const split = counting(archive)
  const r3 = await openZstdSeekable(split, { maxGroupBytes: FRAME, cacheFrames: 0 })
  await r3.read(0, 3 * FRAME)
  assert.is(split.reads.length, 4)
  // Cached frames are not fetched again.
  const cached = counting(archive)
  const r4 = await openZstdSeekable(cached)
  await r4.read(10, 100)
  await r4.read(2000, 100)
  assert.is(cached.reads.length, 2)
  // stream(): whole and partial, and returns copies (the cache is not the caller's).
  equal(await streamBytes(reader.stream()), content, 'stream()')
  equal(await streamBytes(reader.stream(5 * FRAME + 3, 1000)), content.subarray(5 * FRAME + 3, 5 * FRAME + 1003), 'stream(offset, length)')
  const first = await reader.read(0, 10)
  first.fill(0)
  equal(await reader.read(0, 10), content.subarray(0, 10), 'a read result is a copy')
})

test('ranges past the end and bad arguments are INVALID_OPTION', async () => {
  const reader = await openZstdSeekable(await encode('zstd', content.subarray(0, 5000), { seekable: true }))
  for (const [o, l] of [[0, 5001], [4999, 2], [5001, 0], [-1, 1], [0.5, 1], [0, NaN]] as const) {
    assert.is((await codecError(reader.read(o, l))).code, 'INVALID_OPTION', `read(${o}, ${l})`)
  }
  assert.throws(() => reader.stream(6000), (e: unknown) => e instanceof CodecError && e.code === 'INVALID_OPTION')
  reader.close()
  assert.is((await codecError(reader.read(0, 1))).code, 'INVALID_OPTION', 'after close()')
})

test('a plain zstd stream is UNSUPPORTED, with how to make a seekable one', async () => {
  const plain = await encode('zstd', content.subarray(0, 100_000))
  const e = await codecError(openZstdSeekable(plain))
  assert.is(e.code, 'UNSUPPORTED')
  assert.match(e.message, /seekable: true/)
  assert.is((await codecError(openZstdSeekable(new Uint8Array(3)))).code, 'UNSUPPORTED')
})

test('flush() ends a frame early; frames of any size read back', async () => {
  const enc = zstdEncode({ seekable: true, frameSize: FRAME })
  const writer = enc.writable.getWriter()
  const out = streamBytes(enc.readable)
  await writer.write(content.subarray(0, 1000))
  await enc.flush()
  await writer.write(content.subarray(1000, 400_000))
  await writer.close()
  const archive = await out
  const reader = await openZstdSeekable(archive)
  assert.equal(reader.frames.map((f) => f.size), [1000, FRAME, 400_000 - 1000 - FRAME])
  equal(await reader.read(900, 300), content.subarray(900, 1200), 'across the flushed frame')
})

test('checksums: a corrupted frame or table checksum is CHECKSUM_MISMATCH at the frame', async () => {
  const archive = await encode('zstd', content, { seekable: { checksums: true }, frameSize: FRAME })
  const reader = await openZstdSeekable(archive)
  const f1 = reader.frames[1]!
  // The table's entry for frame 1: 8-byte skippable header, 12 bytes per entry.
  const tableAt = archive.length - (8 + 12 * reader.frames.length + 9)
  const badTable = archive.slice()
  writeU32LE(badTable, tableAt + 8 + 12 + 8, (f1.checksum! ^ 1) >>> 0)
  const e = await codecError((await openZstdSeekable(badTable)).read(f1.offset, 10))
  assert.is(e.code, 'CHECKSUM_MISMATCH')
  assert.is(e.offset, f1.compressedOffset)
  equal(await (await openZstdSeekable(badTable, { checksums: false })).read(f1.offset, 10), content.subarray(f1.offset, f1.offset + 10), 'checksums: false')
  // Frames without their own checksum: the table's is checked against XXH64 of the content.
  const bare = await encode('zstd', content, { seekable: true, frameSize: FRAME, checksum: false })
  const r = await openZstdSeekable(bare)
  assert.is(r.frames[0]!.checksum, undefined)
  assert.not.ok((await zstdFrames(bare))[0]!.checksum)
})

test('XXH64 against known values and the zstd frames it checks', async () => {
  // xxHash's reference values for seed 0.
  assert.equal(xxh64(new Uint8Array(0)), [0xef46db37, 0x51d8e999])
  assert.equal(xxh64(new TextEncoder().encode('a')), [0xd24ec4f1, 0xa98c6e5b])
  // libzstd's Content_Checksum (the frame's last 4 bytes) for lengths around each branch.
  for (const n of [1, 3, 4, 7, 8, 31, 32, 33, 63, 64, 100, 4097]) {
    const data = content.subarray(n, 2 * n)
    const frame = await encode('zstd', data)
    assert.is(xxh64Low32(data), readU32LE(frame, frame.length - 4), `length ${n}`)
  }
})

test('hostile seek tables are CodecErrors before allocation', async () => {
  const archive = await encode('zstd', content.subarray(0, 300_000), { seekable: true, frameSize: 100_000 })
  const n = archive.length
  const footer = n - 9
  const tableAt = n - (8 + 8 * 3 + 9)
  const with_ = (edit: (b: Uint8Array) => void): Uint8Array => {
    const b = archive.slice()
    edit(b)
    return b
  }
  const cases: Array<[string, Uint8Array, string, RegExp, object?]> = [
    ['reserved descriptor bits', with_((b) => (b[footer + 4] = 0x04)), 'INVALID_DATA', /reserved bits/],
    ['frame count past the archive', with_((b) => writeU32LE(b, footer, 100_000)), 'INVALID_DATA', /more than the archive/],
    ['frame count past maxFrames', with_((b) => writeU32LE(b, footer, 5000)), 'LIMIT_EXCEEDED', /maxFrames 1000/, { maxFrames: 1000 }],
    ['the default maxFrames', with_((b) => writeU32LE(b, footer, 0xffffffff)), 'LIMIT_EXCEEDED', /maxFrames 1048576/],
    ['sizes that do not add up', with_((b) => writeU32LE(b, tableAt + 8, readU32LE(b, tableAt + 8) - 1)), 'INVALID_DATA', /do not add up/],
    ['an offset past the table', with_((b) => writeU32LE(b, tableAt + 8, 0xfffffff0)), 'INVALID_DATA', /past the seek table/],
    ['a frame of 0 bytes', with_((b) => writeU32LE(b, tableAt + 8, 0)), 'INVALID_DATA', /compressed size of 0/],
    ['a frame over maxFrameSize', with_((b) => writeU32LE(b, tableAt + 12, 0x40000000)), 'LIMIT_EXCEEDED', /maxFrameSize 67108864/],
    ['a wrong skippable magic', with_((b) => (b[tableAt] = 0x50)), 'INVALID_DATA', /skippable magic/],
    ['a wrong Frame_Size', with_((b) => writeU32LE(b, tableAt + 4, 7)), 'INVALID_DATA', /Frame_Size 7/],
  ]
  for (const [what, bytes, code, message, options] of cases) {
    const e = await codecError(openZstdSeekable(bytes, options))
    assert.is(e.code, code, what)
    assert.match(e.message, message, what)
  }
  // Entries that add up but lie about content: found when the frame is decoded.
  const lying = with_((b) => writeU32LE(b, tableAt + 12, 99_999))
  const e = await codecError((await openZstdSeekable(lying)).read(0, 10))
  assert.is(e.code, 'INVALID_DATA')
  assert.match(e.message, /frame 0 decodes to more than the 99999 bytes/)
  const swapped = with_((b) => {
    // Frames 0 and 1 swap their compressed sizes: frame 0 then runs into frame 1.
    const a = readU32LE(b, tableAt + 8)
    writeU32LE(b, tableAt + 8, readU32LE(b, tableAt + 16))
    writeU32LE(b, tableAt + 16, a)
  })
  const s = await codecError((await openZstdSeekable(swapped)).read(0, 300_000))
  assert.is(s.code, 'INVALID_DATA')
  // A corrupt frame's error is placed in the archive.
  const reader = await openZstdSeekable(archive)
  const f2 = reader.frames[2]!
  const corrupt = with_((b) => b.fill(0xff, f2.compressedOffset + 20, f2.compressedOffset + 40))
  const c = await codecError((await openZstdSeekable(corrupt)).read(f2.offset, 1))
  assert.ok(c.offset >= f2.compressedOffset && c.offset < f2.compressedOffset + f2.compressedSize, `offset ${c.offset} in frame 2`)
  assert.match(c.message, /^zstd: frame 2: /)
})

// The seek table has no checksum of its own (the format defines none), so a mutated entry
// of a frame that a read does not touch cannot be seen: the content offsets after it
// shift. What holds: every frame a read returns bytes from was decoded whole and matched
// its entry (size, checksum), so the bytes are that frame's content.
test('fuzzed seek tables: each open and read either returns the covering frames\' bytes or a CodecError', async () => {
  const data = content.subarray(0, 200_000)
  const archive = await encode('zstd', data, { seekable: { checksums: true }, frameSize: 30_000 })
  const tableSize = 8 + 12 * 7 + 9
  let seed = 99
  const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0)
  let errors = 0
  for (let k = 0; k < 400; k++) {
    const b = archive.slice()
    // 1 to 4 random byte edits in the seek table (or the last frame's end).
    for (let m = 1 + (next() % 4); m > 0; m--) b[b.length - 1 - (next() % (tableSize + 8))] = next() & 0xff
    try {
      const reader = await openZstdSeekable(b)
      const offset = next() % (reader.size + 1)
      const length = next() % (reader.size - offset + 1)
      const got = await reader.read(offset, length)
      if (length > 0) {
        // The first covering frame, where its content really starts (frames of 30,000 bytes).
        const i = reader.frames.findIndex((f) => f.offset <= offset && offset < f.offset + f.size)
        const start = i * 30_000 + offset - reader.frames[i]!.offset
        equal(got, data.subarray(start, start + length), `mutation ${k}`)
      }
    } catch (e) {
      if (!(e instanceof CodecError)) throw e
      errors++
    }
  }
  assert.ok(errors > 300, `${errors} of 400 mutated tables refused`)
})

test.run()
