// How brotli on `engine: 'node'` (adapters/node/engine.ts) ends its stream: the last of
// the input reaches node:zlib's native encoder with BROTLI_OPERATION_FINISH, so one-shot
// and streamed output are the bytes of node:zlib's own one-shot `brotliCompressSync` at
// the same quality and window, also on the sizes where brotli closes a meta-block just
// as the input ends (test/_brotli-sizes.ts); there, finishing after the last chunk with
// no input wrote an empty last meta-block. Streams hold each chunk's last byte back for
// it, and flush() still writes everything given so far. Runs in CI under Node 20, 22
// and 26 (.ci/run).
import { join } from 'node:path'
import zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { nodeCodec } from '../adapters/node/engine.js'
import { Status } from '../lib/status.js'
import { brotliEncode } from '../streams/index.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { chunked, read } from './_streams.js'
import { concatBytes } from './_bytes.js'
import { encodeSpans, drainCalls } from './_span.js'
import { boundaries, lgblock } from './_brotli-sizes.js'

const brotli = nodeCodec('brotli')
const text = filesCorpus(join(root, 'node_modules', 'typescript', 'lib'), 2 ** 20, /\.d\.ts$/)
const P = zlib.constants

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0
// No size hint: brotli derives one from the input it is handed, as it does for the
// node engine's calls (under 1 MiB, where the hint changes nothing, for the streams).
const zlibEncode = (data: Uint8Array, quality: number, lgwin: number): Uint8Array =>
  new Uint8Array(zlib.brotliCompressSync(data, { params: { [P.BROTLI_PARAM_QUALITY]: quality, [P.BROTLI_PARAM_LGWIN]: lgwin } }))

test('one-shot: node:zlib brotliCompressSync\'s bytes at boundary sizes, also into small rooms', () => {
  for (const quality of [0, 1, 2, 4, 5, 9, 11]) {
    for (const lgwin of [10, 16, 22]) {
      for (const n of boundaries(quality, lgwin, quality >= 10 ? 2 ** 17 : 2 ** 20)) {
        const data = text.subarray(0, n)
        const theirs = zlibEncode(data, quality, lgwin)
        for (const room of [1 << 20, 7]) {
          if (room < 1000 && n > 2 ** 17) continue
          const encoder = brotli.createEncoder({ level: quality, lgwin })
          const ours = encodeSpans(encoder, data, { room })
          encoder.dispose()
          assert.ok(same(ours, theirs), `quality ${quality} lgwin ${lgwin}, ${n} bytes, ${room}-byte rooms: ours ${ours.length} bytes, node:zlib ${theirs.length}`)
        }
      }
    }
  }
})

test('streaming: chunks whose last one ends the input on a boundary, then the end with no input', async () => {
  for (const [quality, lgwin] of [[2, 10], [4, 10], [5, 16], [6, 16], [9, 16], [11, 10]] as const) {
    for (const n of boundaries(quality, lgwin, quality >= 10 ? 2 ** 17 : 2 ** 19)) {
      const data = text.subarray(0, n)
      for (const piece of [1000, 2 ** lgblock(quality, lgwin)]) {
        const ours = await read(chunked(data, piece).pipeThrough(brotliEncode({ engine: 'node', level: quality, lgwin })))
        const theirs = zlibEncode(data, quality, lgwin)
        assert.ok(same(ours, theirs), `quality ${quality} lgwin ${lgwin}, ${n} bytes in ${piece}-byte chunks: ours ${ours.length} bytes, node:zlib ${theirs.length}`)
      }
    }
  }
})

test('span level: the finish with no input after 1-byte chunks, into 3-byte rooms', () => {
  const data = text.subarray(0, 2 ** 15)
  for (const quality of [1, 5]) {
    const encoder = brotli.createEncoder({ level: quality, lgwin: 10 })
    const dst = new Uint8Array(3)
    const parts: Uint8Array[] = []
    const drain = (run: () => Status): void => drainCalls(encoder, dst, parts, run)
    for (let i = 0; i < data.length; i++) {
      let src = data.subarray(i, i + 1)
      drain(() => {
        const status = encoder.transform(src, dst, false)
        src = src.subarray(encoder.consumed)
        return status
      })
    }
    drain(() => encoder.transform(new Uint8Array(0), dst, true))
    encoder.dispose()
    const ours = concatBytes(parts)
    assert.ok(same(new Uint8Array(zlib.brotliDecompressSync(ours)), data), `quality ${quality} round trip`)
    if (quality >= 2) assert.ok(same(ours, zlibEncode(data, quality, 10)), `quality ${quality}: node:zlib's bytes`)
  }
})

test('flush() after each chunk: the output so far decodes to all the input so far (the byte held back included)', () => {
  const data = text.subarray(0, 3 * 2 ** 16)
  for (const quality of [0, 5, 11]) {
    for (const piece of [777, 2 ** 16]) {
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
        drain(() => encoder.flush(dst))
        const got = zlib.brotliDecompressSync(concatBytes(parts), { finishFlush: P.BROTLI_OPERATION_FLUSH })
        assert.ok(same(new Uint8Array(got), data.subarray(0, Math.min(data.length, at + piece))), `quality ${quality}, ${piece}-byte chunks: flushed at ${at + piece}`)
      }
      drain(() => encoder.transform(new Uint8Array(0), dst, true))
      encoder.dispose()
      assert.ok(same(new Uint8Array(zlib.brotliDecompressSync(concatBytes(parts))), data), `quality ${quality}, ${piece}-byte chunks: whole stream`)
    }
  }
})

test.run()
