// Where a zstd CodecError points is a property of the input, not of how it was split:
// the same corrupt frame (a byte flipped in a block or a block header, a wrong
// dictionary, a wrong checksum, a cut) gives the same code at the same offset whole, in
// 1000-byte and in 1-byte pieces, with much or little output room, through the span
// decoder, decode() and the decoding stream. libzstd does not advance its input on an
// error, so zstd-decode.ts feeds it one part of the frame at a time (RFC 8878 section 3.1.1:
// the header, each block, the checksum) and places an error at the start of the part
// that failed: a block's 3-byte header, or the Content_Checksum for a mismatch.
//
// The layout the offsets are checked against is read here from the block headers by
// hand (section 3.1.1.2), apart from lib/codecs/zstd-frame-format.ts.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError } from '../lib/errors.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { Status } from '../lib/status.js'
import { parseFrameHeader } from '../lib/codecs/zstd-frame-format.js'
import { decodeWhole as oneShotDecode, encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { decodeStream } from '../streams/index.js'
import { packageDocuments } from '../bench/corpus.js'
import { concatBytes } from './_bytes.js'
import { root } from './_fixtures.js'
import { chunked, read } from './_streams.js'
import { decodeSpans, encodeSpans } from './_span.js'

const docs = packageDocuments(1_000, 50_000).map((d) => d.bytes)
const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0))
const others = concatBytes(docs.filter((_, k) => k % 10 !== 0))
const small = others.subarray(0, 30_000)
/** Some 370 KB: the documents and TypeScript's lib.es5.d.ts, for a frame of several full blocks. */
const input = concatBytes([others, new Uint8Array(readFileSync(join(root, 'node_modules', 'typescript', 'lib', 'lib.es5.d.ts')))])

/** Frame offsets of each block's header, whether it is compressed, and of the checksum (-1 without). */
interface Layout {
  blocks: Array<{ start: number; end: number; compressed: boolean }>
  checksum: number
}

function layout(frame: Uint8Array): Layout {
  const header = parseFrameHeader(frame, 4)
  const blocks: Layout['blocks'] = []
  let p = 4 + header.length
  for (;;) {
    const h = frame[p]! | (frame[p + 1]! << 8) | (frame[p + 2]! << 16)
    const type = (h >> 1) & 3
    const end = p + 3 + (type === 1 ? 1 : h >>> 3)
    blocks.push({ start: p, end, compressed: type === 2 })
    p = end
    if (h & 1) break
  }
  const checksum = header.checksum ? p : -1
  assert.is(p + (header.checksum ? 4 : 0), frame.length, 'the layout covers the frame')
  return { blocks, checksum }
}

type Outcome = { code: string; offset: number } | { done: number }
const show = (o: Outcome): string => ('code' in o ? `${o.code} at ${o.offset}` : `${o.done} bytes decoded`)

/** The span decoder's verdict, NeedMoreData at the end being the driver's TRUNCATED at what was consumed. */
async function span(bytes: Uint8Array, options: Record<string, unknown>, split: number, room: number): Promise<Outcome> {
  const decoder = await createDecoder('zstd', options)
  const r = decodeSpans(decoder, bytes, { split, room })
  decoder.dispose()
  if (r.status === Status.InvalidData) return { code: r.failure!.code, offset: r.failure!.offset }
  if (r.status === Status.NeedMoreData) return { code: 'TRUNCATED', offset: r.consumed }
  return { done: r.out.length }
}

async function settle(run: () => Promise<Uint8Array>): Promise<Outcome> {
  try {
    return { done: (await run()).length }
  } catch (e) {
    if (e instanceof CodecError) return { code: e.code, offset: e.offset }
    throw e
  }
}

/**
 * The outcome of `bytes` on every split and surface, checked to be one and the same;
 * 1-byte pieces for inputs up to `oneByteMax`. `spans: false` for several frames (the
 * span decoder stops at the end of the first).
 */
async function outcome(bytes: Uint8Array, options: Record<string, unknown>, what: string, oneByteMax = 50_000, spans = true): Promise<Outcome> {
  const seen: Array<[string, Outcome]> = []
  const splits = [bytes.length, 1000, ...(bytes.length <= oneByteMax ? [1] : []), 4096 + 17]
  for (const split of spans ? splits : []) {
    // Room for all of it (the whole-frame path when the input is whole), a little, and
    // room that ends inside blocks.
    for (const room of [1 << 20, 1000, 77_777]) seen.push([`span, ${split}-byte pieces, room ${room}`, await span(bytes, options, split, room)])
  }
  seen.push(['decode()', await settle(() => oneShotDecode('zstd', bytes, options))])
  for (const n of [...(bytes.length <= oneByteMax ? [1] : []), 1000, 65536]) seen.push([`decodeStream, ${n}-byte chunks`, await settle(() => read(chunked(bytes, n).pipeThrough(decodeStream('zstd', options))))])
  const [first, ...rest] = seen
  for (const [surface, o] of rest) assert.is(show(o), show(first![1]), `${what}: ${surface} vs ${first![0]}`)
  return first![1]
}

const errorAt = (o: Outcome): { code: string; offset: number } => {
  assert.ok('code' in o, show(o))
  return o as { code: string; offset: number }
}

const frames = {
  // One-shot: blocks of up to 128 KiB content (RFC 8878 section 3.1.1.2.4).
  large: await oneShotEncode('zstd', input),
  // A flush after every 3000 bytes: many small blocks.
  flushed: encodeSpans(await createEncoder('zstd', { level: 3 }), small, { split: 3000, flushEach: true }),
  dictionary: await oneShotEncode('zstd', small, { dictionary }),
}

test('the frames have the layout the cases need: several blocks, compressed ones, a checksum', () => {
  for (const [name, frame] of Object.entries(frames)) {
    const l = layout(frame)
    assert.ok(l.checksum > 0, `${name}: checksum`)
    assert.ok(l.blocks.filter((b) => b.compressed).length >= (name === 'dictionary' ? 1 : 3), `${name}: ${l.blocks.length} blocks`)
  }
})

test('a byte flipped in a block: one code and offset on every split and surface, at a block header or the checksum, never before the block', async () => {
  let inBlock = 0
  let cases = 0
  for (const [name, frame] of Object.entries(frames)) {
    const l = layout(frame)
    const options = name === 'dictionary' ? { dictionary } : {}
    const starts = new Set(l.blocks.map((b) => b.start))
    for (const block of l.blocks.filter((b) => b.compressed).slice(0, 6)) {
      for (const at of [block.start + 3, (block.start + block.end) >> 1, block.end - 1]) {
        const bad = frame.slice()
        bad[at]! ^= 0x10
        const o = await outcome(bad, options, `${name}, byte ${at} of the block at ${block.start}`)
        if (!('code' in o)) continue // (a flip may change nothing the format checks, and the checksum would)
        cases++
        if (o.code === 'CHECKSUM_MISMATCH') assert.is(o.offset, l.checksum, `${name}, byte ${at}: ${show(o)}`)
        else {
          assert.ok(starts.has(o.offset) && o.offset >= block.start, `${name}, byte ${at} of the block at ${block.start}: ${show(o)}`)
          if (o.offset === block.start) inBlock++
        }
      }
    }
  }
  console.log(`# ${cases} flipped bytes found; ${inBlock} placed at the block they are in, the others at a later block or the checksum`)
  assert.ok(cases > 20 && inBlock > cases / 2, `${inBlock} of ${cases}`)
})

test('a block header changed: the same verdict on every split, at that block or later', async () => {
  for (const [name, frame] of Object.entries(frames)) {
    const l = layout(frame)
    const options = name === 'dictionary' ? { dictionary } : {}
    for (const block of l.blocks.slice(0, 4)) {
      // The block type (bits 1-2) and a bit of the size (bit 3 and bit 12).
      for (const [at, bit] of [[block.start, 0x04], [block.start, 0x08], [block.start + 1, 0x10]] as const) {
        const bad = frame.slice()
        bad[at]! ^= bit
        const o = await outcome(bad, options, `${name}, block header at ${block.start} ^ ${bit} at ${at}`)
        if ('code' in o && o.code !== 'TRUNCATED') assert.ok(o.offset >= block.start, `${name}, header at ${block.start}: ${show(o)}`)
      }
    }
  }
})

test('a wrong checksum: CHECKSUM_MISMATCH at the Content_Checksum on every split and surface', async () => {
  for (const [name, frame] of Object.entries(frames)) {
    const options = name === 'dictionary' ? { dictionary } : {}
    for (const k of [0, 3]) {
      const bad = frame.slice()
      bad[frame.length - 4 + k]! ^= 0x01
      const o = errorAt(await outcome(bad, options, `${name}, checksum byte ${k}`))
      assert.is(o.code, 'CHECKSUM_MISMATCH')
      assert.is(o.offset, frame.length - 4)
    }
  }
})

test('a wrong raw dictionary: the same code and offset on every split (the checksum, or the block libzstd refused)', async () => {
  const frame = frames.dictionary
  const l = layout(frame)
  let mismatches = 0
  for (let k = 0; k < 12; k++) {
    const wrong = dictionary.slice()
    for (let i = k; i < wrong.length; i += 50 + k) wrong[i]! ^= 0x20
    const o = errorAt(await outcome(frame, { dictionary: wrong }, `dictionary changed, pattern ${k}`))
    if (o.code === 'CHECKSUM_MISMATCH') {
      mismatches++
      assert.is(o.offset, l.checksum)
    } else assert.ok(l.blocks.some((b) => b.start === o.offset), show(o))
  }
  assert.ok(mismatches > 0)
})

test('a frame cut anywhere: TRUNCATED at the cut (at the frame, inside its header) on every split, never output passed off as whole', async () => {
  for (const [name, frame] of Object.entries(frames)) {
    const options = name === 'dictionary' ? { dictionary } : {}
    const l = layout(frame)
    const cuts = new Set([5, 9, l.blocks[0]!.start + 1, l.blocks[0]!.start + 3, l.blocks[1]?.start ?? 20, frame.length >> 1, l.checksum, frame.length - 1])
    for (const n of cuts) {
      const o = errorAt(await outcome(frame.subarray(0, n), options, `${name} cut at ${n}`))
      // The decoder consumes a frame header only once it is whole (zstd-decode.ts readHeader).
      assert.is(show(o), `TRUNCATED at ${n < l.blocks[0]!.start ? 0 : n}`, `${name} cut at ${n}`)
    }
  }
})

test('an error in a later frame of a concatenated stream: placed in that frame, the same on every split', async () => {
  const good = frames.flushed
  const bad = frames.large.slice()
  const l = layout(bad)
  const block = l.blocks[1]!
  bad[(block.start + block.end) >> 1]! ^= 0x10
  const alone = errorAt(await outcome(bad, {}, 'the bad frame alone', 0))
  const stream = concatBytes([good, good, bad])
  const o = errorAt(await outcome(stream, {}, 'the bad frame third', 0, false))
  assert.is(o.code, alone.code)
  assert.is(o.offset, 2 * good.length + alone.offset)
})

test.run()
