// The brotli `dictionary` option (raw content, a prefix the stream refers back into) on
// every surface, on real small documents (bench/corpus.ts packageDocuments). The
// `brotli` CLI 1.0.9 has no dictionary option, so the peer is our own engine both ways
// and, where the running Node's zlib honours `dictionary` for brotli, node:zlib.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import zlib from 'node:zlib'
import { CodecError } from '../lib/errors.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { Status } from '../lib/status.js'
import { nodeDecode, nodeEncode } from '../adapters/node/index.js'
import { decodeWhole as oneShotDecode, encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { brotliDecode, brotliEncode, CompressionStream, DecompressionStream } from '../streams/index.js'
import { packageDocuments } from '../bench/corpus.js'
import { chunked, nodeRun, read } from './_streams.js'
import { concatBytes } from './_bytes.js'
import { decodeSpans, encodeSpans } from './_span.js'
import { rejection } from './_caught.js'

const docs = packageDocuments(200)
const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
const inputs = docs.filter((_, k) => k % 10 !== 0).map((d) => d.bytes)
const some = inputs.filter((_, k) => k % 11 === 0)
const otherDictionary = concatBytes(inputs.slice(0, 6))

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0

/**
 * Whether node:zlib uses a brotli `dictionary`: Node 20 accepts the option and ignores
 * it, so an encode against the input itself is checked to need the dictionary.
 */
const zlibHonours = (() => {
  const sample = inputs[0]!
  try {
    const encoded = zlib.brotliCompressSync(sample, { dictionary: sample } as zlib.BrotliOptions)
    const withIt = zlib.brotliDecompressSync(encoded, { dictionary: sample } as zlib.BrotliOptions)
    let alone: Buffer | null = null
    try {
      alone = zlib.brotliDecompressSync(encoded)
    } catch {
      alone = null
    }
    return same(withIt, sample) && (alone === null || !same(alone, sample))
  } catch {
    return false
  }
})()
if (!zlibHonours) console.log(`# skipped: node:zlib peer cases: Node ${process.versions.node}'s zlib ignores a brotli dictionary`)
const zlibTest = zlibHonours ? test : test.skip

test('the documents are real', () => {
  assert.ok(inputs.length >= 60, `${inputs.length} package.json files`)
  assert.ok(dictionary.length > 4_000, `dictionary ${dictionary.length} bytes`)
})

test('round trips at every quality: spans, splits and rooms; smaller from quality 5 up', async () => {
  const bytes = concatBytes(some.slice(0, 3))
  for (let level = 0; level <= 11; level++) {
    const encoder = await createEncoder('brotli', { level, dictionary })
    const encoded = encodeSpans(encoder, bytes, { split: 333, room: 100 })
    encoder.dispose()
    const decoder = await createDecoder('brotli', { dictionary })
    for (const split of [1, 50, 1 << 20]) {
      decoder.reset()
      const got = decodeSpans(decoder, encoded, { split, room: 77 })
      assert.is(got.status, Status.Done, `level ${level} split ${split}`)
      assert.ok(same(got.out, bytes), `level ${level} split ${split}`)
    }
    decoder.dispose()
    const plain = await oneShotEncode('brotli', bytes, { level })
    if (level >= 5) assert.ok(encoded.length < plain.length * 0.9, `level ${level}: ${encoded.length} with, ${plain.length} without`)
  }
})

test('every surface: encode/decode, factories, CompressionStream, Node adapter, reset', async () => {
  for (const bytes of some) {
    const frames: Array<[string, Uint8Array]> = [
      ['encode()', await oneShotEncode('brotli', bytes, { dictionary })],
      ['brotliEncode', await read(chunked(bytes, 333).pipeThrough(brotliEncode({ dictionary, chunkSize: 64 })))],
      ['CompressionStream', await read(chunked(bytes, 1000).pipeThrough(new CompressionStream('brotli', { dictionary })))],
      ['nodeEncode', await nodeRun(nodeEncode('brotli', { dictionary }), bytes)],
    ]
    for (const [what, frame] of frames) {
      assert.ok(same(await oneShotDecode('brotli', frame, { dictionary }), bytes), `${what} -> decode()`)
      assert.ok(same(await read(chunked(frame, 10).pipeThrough(brotliDecode({ dictionary }))), bytes), `${what} -> brotliDecode`)
      assert.ok(same(await read(chunked(frame, 10).pipeThrough(new DecompressionStream('brotli', { dictionary }))), bytes), `${what} -> DecompressionStream`)
      assert.ok(same(await nodeRun(nodeDecode('brotli', { dictionary }), frame), bytes), `${what} -> nodeDecode`)
    }
  }
  // The encoder prepares the dictionary again after reset().
  const encoder = await createEncoder('brotli', { dictionary })
  for (const bytes of some.slice(0, 3)) {
    encoder.reset()
    assert.ok(same(await oneShotDecode('brotli', encodeSpans(encoder, bytes, { split: 100 }), { dictionary }), bytes))
  }
  encoder.dispose()
})

test('a stream encoded with a dictionary fails with another or none', async () => {
  const bytes = some[1]!
  const encoded = await oneShotEncode('brotli', bytes, { dictionary })
  for (const options of [{ dictionary: otherDictionary }, {}]) {
    let out: Uint8Array | null = null
    let error: unknown = null
    try {
      out = await oneShotDecode('brotli', encoded, options)
    } catch (e) {
      error = e
    }
    // Brotli has no checksum: a reference into the wrong bytes may decode to other text.
    if (error) assert.instance(error, CodecError)
    else assert.ok(!same(out!, bytes), 'not the input')
  }
  const none = (await rejection(oneShotDecode('brotli', encoded))) as CodecError
  assert.instance(none, CodecError)
})

zlibTest('node:zlib peer both ways', async () => {
  for (const bytes of some) {
    const peer = new Uint8Array(zlib.brotliCompressSync(bytes, { dictionary } as zlib.BrotliOptions))
    assert.ok(same(await oneShotDecode('brotli', peer, { dictionary }), bytes), 'node:zlib -> ours')
    const ours = await oneShotEncode('brotli', bytes, { dictionary, level: 9 })
    assert.ok(same(zlib.brotliDecompressSync(ours, { dictionary } as zlib.BrotliOptions), bytes), 'ours -> node:zlib')
  }
})

test.run()
