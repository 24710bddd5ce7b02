// How the brotli encoder ends its stream (lib/codecs/brotli.ts): the last of the input
// goes to brotli with BROTLI_OPERATION_FINISH in the same call, so the output is the
// bytes node:zlib's one-shot `brotliCompressSync` writes at the same quality, window and
// size hint (Node 20 bundles brotli 1.1.0, as our build is). Finishing afterwards with
// no input wrote an empty last meta-block where the input ends just after brotli closed
// one (one byte more, or the same length with other bytes), and tuned a one-block input
// as not the last. The sizes are the ones where that happens: multiples of brotli's
// input block and of its largest meta-block at each quality and window (encode.c
// ComputeLgBlock, MaxMetablockSize). Streams hold the last byte of each chunk back for
// the same reason; flush() must still write everything given so far.
import { join } from 'node:path'
import zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Encoder } from '../lib/codec.js'
import { loadBrotli } from '../lib/codecs/brotli.js'
import { Status, statusName } from '../lib/status.js'
import { encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { brotliEncode } from '../streams/index.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { chunked, read } from './_streams.js'
import { concatBytes } from './_bytes.js'
import { encodeSpans, drainCalls } from './_span.js'
import { boundaries, lgblock } from './_brotli-sizes.js'

const brotli = await loadBrotli()
const text = filesCorpus(join(root, 'node_modules', 'typescript', 'lib'), 2 ** 20, /\.d\.ts$/)
const P = zlib.constants

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0
const zlibEncode = (data: Uint8Array, quality: number, lgwin: number, sizeHint = data.length, dictionary?: Uint8Array): Uint8Array =>
  new Uint8Array(
    zlib.brotliCompressSync(data, {
      params: { [P.BROTLI_PARAM_QUALITY]: quality, [P.BROTLI_PARAM_LGWIN]: lgwin, [P.BROTLI_PARAM_SIZE_HINT]: sizeHint },
      ...(dictionary ? { dictionary } : {}),
    } as zlib.BrotliOptions),
  )

/**
 * Qualities with the windows at which our build writes node:zlib's bytes. Quality 9 at
 * windows up to 16 (hasher H42) picks other, equally valid, matches in our wasm32 build
 * than node:zlib's 64-bit one whatever the ending (brotli's match scores depend on the
 * word size: hash.h BROTLI_SCORE_BASE counts sizeof(size_t)), so it is checked at 22
 * only; 0 and 1 compress each engine call's input at once (256 KiB at most), so they
 * are compared up to that size.
 */
const matrix: Array<[quality: number, lgwin: number, most: number]> = []
for (const quality of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]) {
  for (const lgwin of [10, 16, 22]) {
    if (quality === 9 && lgwin <= 16) continue
    matrix.push([quality, lgwin, quality <= 1 || quality >= 10 ? 2 ** 18 : 2 ** 20])
  }
}

function spans(encoder: Encoder, data: Uint8Array, split?: number, room?: number): Uint8Array {
  const out = encodeSpans(encoder, data, { split, room })
  encoder.dispose()
  return out
}

test('one-shot: the bytes of node:zlib brotliCompressSync at every quality, window and boundary size', () => {
  for (const [quality, lgwin, most] of matrix) {
    for (const n of boundaries(quality, lgwin, most)) {
      const data = text.subarray(0, n)
      const ours = spans(brotli.createEncoder({ level: quality, lgwin }), data)
      const theirs = zlibEncode(data, quality, lgwin)
      assert.ok(same(ours, theirs), `quality ${quality} lgwin ${lgwin}, ${n} bytes: ours ${ours.length} bytes, node:zlib ${theirs.length}`)
    }
  }
})

test('one-shot through encode() (the machine): node:zlib\'s bytes at 16 MiB, two of the largest meta-blocks at lgwin 22', async () => {
  // 16 MiB of text, quality 4: brotli closes a meta-block at each 8 MiB.
  const large = filesCorpus(join(root, 'node_modules'), 16 * 2 ** 20, /\.(js|ts|md)$/)
  assert.is(large.length, 16 * 2 ** 20)
  const ours = await oneShotEncode('brotli', large, { level: 4 })
  const theirs = zlibEncode(large, 4, 22)
  assert.ok(same(ours, theirs), `ours ${ours.length} bytes, node:zlib ${theirs.length}`)
})

test('DestinationTooSmall while finishing: small rooms and pieces give the same bytes; the finish resumes with no more input', () => {
  // Sizes where finishing after the input wrote other bytes (quality 4: one byte more).
  for (const [quality, lgwin, n] of [[5, 10, 2 ** 17], [4, 10, 2 ** 17], [2, 10, 2 ** 16], [11, 16, 2 ** 18], [1, 16, 2 ** 16]] as const) {
    const data = text.subarray(0, n)
    const reference = zlibEncode(data, quality, lgwin)
    // Quality 1 compresses each call's input at once, so its pieces are all the input.
    for (const [split, room] of quality <= 1 ? [[n, 1], [n, 7]] : [[n, 1], [n, 7], [n, 4096], [n - 1, 3]]) {
      const ours = spans(brotli.createEncoder({ level: quality, lgwin }), data, split, room)
      // The first call's input is the size hint.
      const expected = split === n ? reference : zlibEncode(data, quality, lgwin, split)
      assert.ok(same(ours, expected), `quality ${quality} lgwin ${lgwin}, ${n} bytes in ${split}-byte pieces, ${room}-byte rooms: ${ours.length} vs ${expected.length}`)
    }
    // The last call takes part of the input and stops: the rest comes with `final` again,
    // then nothing but room.
    const encoder = brotli.createEncoder({ level: quality, lgwin })
    const room = new Uint8Array(64)
    const parts: Uint8Array[] = []
    let src = data
    let status: Status
    let calls = 0
    do {
      status = encoder.transform(src, room, true)
      parts.push(room.slice(0, encoder.written))
      src = src.subarray(encoder.consumed)
      calls++
    } while (status === Status.DestinationTooSmall)
    assert.is(statusName(status), 'Done')
    assert.is(src.length, 0)
    assert.ok(calls > 2)
    assert.ok(same(concatBytes(parts), reference), `quality ${quality}: resumed finish`)
    // After Done, more input is refused; nothing more is written.
    assert.is(encoder.transform(new Uint8Array(0), room, true), Status.Done)
    assert.is(encoder.written, 0)
    encoder.dispose()
  }
})

test('streaming: chunks whose last one ends the input on a boundary, then the end with no input: node:zlib\'s bytes at the same size hint', async () => {
  for (const [quality, lgwin] of [[2, 10], [4, 10], [5, 16], [6, 16], [11, 10], [7, 22]] as const) {
    for (const n of boundaries(quality, lgwin, quality >= 10 ? 2 ** 18 : 2 ** 20)) {
      const data = text.subarray(0, n)
      for (const piece of [1000, 2 ** lgblock(quality, lgwin)]) {
        // The encoder is created with the first chunk, whose length is its size hint.
        const ours = await read(chunked(data, piece).pipeThrough(brotliEncode({ level: quality, lgwin })))
        const theirs = zlibEncode(data, quality, lgwin, Math.min(piece, n))
        assert.ok(same(ours, theirs), `quality ${quality} lgwin ${lgwin}, ${n} bytes in ${piece}-byte chunks: ours ${ours.length} bytes, node:zlib ${theirs.length}`)
      }
    }
  }
})

test('span level: 1-byte chunks, then final with no input; empty input; a 1-byte input', () => {
  const data = text.subarray(0, 2 ** 14)
  for (const quality of [0, 3, 5]) {
    const encoder = brotli.createEncoder({ level: quality, lgwin: 10 })
    const dst = new Uint8Array(2 ** 16)
    const parts: Uint8Array[] = []
    for (let i = 0; i < data.length; i++) {
      assert.is(encoder.transform(data.subarray(i, i + 1), dst, false), Status.Done)
      assert.is(encoder.consumed, 1)
      parts.push(dst.slice(0, encoder.written))
    }
    assert.is(encoder.transform(new Uint8Array(0), dst, true), Status.Done)
    parts.push(dst.slice(0, encoder.written))
    encoder.dispose()
    const ours = concatBytes(parts)
    assert.ok(same(new Uint8Array(zlib.brotliDecompressSync(ours)), data), `quality ${quality} round trip`)
    // From quality 2 up the split does not change the bytes.
    if (quality >= 2) assert.ok(same(ours, zlibEncode(data, quality, 10, 1)), `quality ${quality}: node:zlib's bytes at size hint 1`)
  }
  for (const quality of [0, 5, 11]) {
    for (const data of [new Uint8Array(0), Uint8Array.of(42)]) {
      assert.ok(same(spans(brotli.createEncoder({ level: quality }), data), zlibEncode(data, quality, 22)), `quality ${quality}, ${data.length} bytes`)
    }
  }
})

test('flush() after each chunk: the output so far decodes to all the input so far (the byte held back included)', () => {
  for (const quality of [0, 2, 5, 11]) {
    for (const piece of [1, 777, 2 ** 16]) {
      if (quality === 11 && piece === 1) continue
      const data = text.subarray(0, piece === 1 ? 2 ** 15 : 3 * 2 ** 16)
      const encoder = brotli.createEncoder({ level: quality, lgwin: 16 })
      const dst = new Uint8Array(5)
      const parts: Uint8Array[] = []
      const drain = (run: () => Status): void => drainCalls(encoder, dst, parts, run)
      for (let at = 0; at < data.length; at += piece) {
        let src = data.subarray(at, Math.min(data.length, at + piece))
        drain(() => {
          const status = encoder.transform(src, dst, false)
          src = src.subarray(encoder.consumed)
          return status
        })
        // Check the sync point at a few places only (decoding each is quadratic).
        if (piece !== 1 || at % 4099 === 0) {
          drain(() => encoder.flush(dst))
          const prefix = concatBytes(parts)
          const got = zlib.brotliDecompressSync(prefix, { finishFlush: P.BROTLI_OPERATION_FLUSH })
          assert.ok(same(new Uint8Array(got), data.subarray(0, Math.min(data.length, at + piece))), `quality ${quality}, ${piece}-byte chunks: flushed at ${at + piece}`)
        }
      }
      drain(() => encoder.transform(new Uint8Array(0), dst, true))
      encoder.dispose()
      assert.ok(same(new Uint8Array(zlib.brotliDecompressSync(concatBytes(parts))), data), `quality ${quality}, ${piece}-byte chunks: whole stream`)
    }
  }
})

test("streams with flush: 'write': every chunk's output decodes on its own; the whole stream round-trips", async () => {
  const data = text.subarray(0, 2 ** 17)
  for (const quality of [1, 5]) {
    const ours = await read(chunked(data, 2 ** 14).pipeThrough(brotliEncode({ level: quality, lgwin: 16, flush: 'write' })))
    assert.ok(same(new Uint8Array(zlib.brotliDecompressSync(ours)), data), `quality ${quality}`)
  }
})

test('a raw dictionary: one-shot and streamed bytes agree at boundary sizes and decode only with it', async () => {
  const dictionary = text.subarray(2 ** 19, 2 ** 19 + 2 ** 15)
  for (const [quality, lgwin] of [[5, 10], [6, 16], [11, 10]] as const) {
    for (const n of boundaries(quality, lgwin, quality === 11 ? 2 ** 17 : 2 ** 18)) {
      const data = text.subarray(0, n)
      const ours = spans(brotli.createEncoder({ level: quality, lgwin, dictionary }), data)
      const streamed = await read(chunked(data, n).pipeThrough(brotliEncode({ level: quality, lgwin, dictionary })))
      assert.ok(same(streamed, ours), `quality ${quality} lgwin ${lgwin}, ${n} bytes: stream and one-shot`)
      const decoder = brotli.createDecoder({ dictionary })
      const out = new Uint8Array(n + 1)
      assert.is(decoder.transform(ours, out, true), Status.Done)
      assert.ok(same(out.subarray(0, decoder.written), data))
      decoder.dispose()
    }
  }
})

test.run()
