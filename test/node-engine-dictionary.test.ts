// Dictionaries on `engine: 'node'` (adapters/node/engine.ts), both ways: zstd raw and
// trained dictionaries (node:zlib zstd, Node >= 22.15), and brotli raw dictionaries
// passed through to node:zlib where the running Node honours them (Node 20 and 22
// accept the option and ignore it, so the engine refuses one there; Node 26 honours
// it). Our wasm engine is the peer: node engine encode -> wasm decode, wasm encode ->
// node engine decode, node -> node, at the span level (1-byte pieces, small rooms,
// reset() reuse) and through the streams; node:zlib's own one-shot calls write the same
// bytes as the node engine. Whether a Node honours a brotli dictionary is checked here
// independently of the engine's own probe. Runs in CI under Node 20, 22 and 26
// (.ci/run); cases a Node cannot run skip with the reason.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { parseFrameHeader } from '../lib/codecs/zstd-frame-format.js'
import { decodeWhole as oneShotDecode, encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { nodeCodec } from '../adapters/node/engine.js'
import { brotliDecode, brotliEncode, zstdDecode, zstdEncode } from '../streams/index.js'
import { packageDocuments } from '../bench/corpus.js'
import { chunked, read } from './_streams.js'
import { concatBytes } from './_bytes.js'
import { decodeSpans, encodeSpans } from './_span.js'
import { rejection, thrown } from './_caught.js'
import { requireCli } from './_cli.js'

type Options = Record<string, unknown>
const z = zlib as unknown as Record<string, ((data: Uint8Array, options?: object) => Buffer) | undefined>
const P = zlib.constants as Record<string, number>
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0

const docs = packageDocuments(200)
// Every 10th document makes the dictionary, the others are inputs: no input is inside it.
const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
const inputs = docs.filter((_, k) => k % 10 !== 0).map((d) => d.bytes)
const some = inputs.filter((_, k) => k % 15 === 0)
const other = concatBytes(inputs.slice(0, 6))

/** What node:zlib itself does with a brotli dictionary, checked apart from the engine's probe. */
function zlibUsesBrotliDictionary(): boolean {
  const sample = inputs[0]!
  const encoded = zlib.brotliCompressSync(sample, { dictionary, params: { [P.BROTLI_PARAM_QUALITY!]: 9 } } as zlib.BrotliOptions)
  // Without the dictionary, the same input at the same quality: a Node that ignores the
  // option writes these very bytes.
  const plain = zlib.brotliCompressSync(sample, { params: { [P.BROTLI_PARAM_QUALITY!]: 9 } })
  if (same(encoded, plain)) return false
  assert.ok(same(zlib.brotliDecompressSync(encoded, { dictionary } as zlib.BrotliOptions), sample), 'node:zlib decodes its own stream with the dictionary')
  return true
}
const brotliHonoured = zlibUsesBrotliDictionary()
const hasZstd = typeof z.zstdCompressSync === 'function'
if (!brotliHonoured) console.log(`# skipped: brotli dictionary round trips on engine 'node': Node ${process.versions.node}'s zlib ignores a brotli dictionary (the engine refuses one, checked below)`)
if (!hasZstd) console.log(`# skipped: zstd dictionaries on engine 'node': node:zlib has no zstd in Node ${process.versions.node} (needs 22.15)`)
const brotliTest = brotliHonoured ? test : test.skip
const zstdTest = hasZstd ? test : test.skip

// A dictionary trained by the zstd CLI (RFC 8878 section 5: magic 37 A4 30 EC, an ID).
const scratch = mkdtempSync(join(tmpdir(), 'sluice-node-engine-dict-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))
const trained = (() => {
  if (!hasZstd || !requireCli('zstd', "zstd trained-dictionary cases on engine 'node' (zstd --train)")) return null
  const paths = docs.map((d, k) => {
    const path = join(scratch, `${k}.json`)
    writeFileSync(path, d.bytes)
    return path
  })
  const out = join(scratch, 'dict')
  const r = spawnSync('zstd', ['-q', '--train', ...paths, '-o', out, '--maxdict=16384', '--dictID=777'])
  return r.status === 0 ? new Uint8Array(readFileSync(out)) : null
})()
const trainedTest = trained ? test : test.skip

/** node:zlib's one-shot compression with the dictionary, at our default levels. */
function zlibEncode(format: 'brotli' | 'zstd', data: Uint8Array, dict: Uint8Array, level: number): Uint8Array {
  if (format === 'brotli') return new Uint8Array(zlib.brotliCompressSync(data, { dictionary: dict, params: { [P.BROTLI_PARAM_QUALITY!]: level } } as zlib.BrotliOptions))
  // With the content checksum, which the node engine writes by default (as the wasm engine).
  return new Uint8Array(z.zstdCompressSync!(data, { dictionary: dict, params: { [P.ZSTD_c_compressionLevel!]: level, [P.ZSTD_c_checksumFlag!]: 1 } }))
}

/**
 * One format and dictionary, every way round: the node engine's bytes are node:zlib's
 * and decode with the wasm engine; the wasm engine's decode with the node engine; spans
 * in 1-byte pieces and 5-byte rooms; reset() reuse keeps the dictionary.
 */
async function bothWays(format: 'brotli' | 'zstd', dict: Uint8Array, levels: number[]): Promise<void> {
  const node = nodeCodec(format)
  for (const level of levels) {
    for (const bytes of some) {
      const label = `${format} level ${level}, ${bytes.length} bytes`
      const ours = await oneShotEncode(format, bytes, { engine: 'node', level, dictionary: dict })
      assert.ok(same(ours, zlibEncode(format, bytes, dict, level)), `${label}: node engine = node:zlib one-shot`)
      assert.ok(ours.length < zlibEncode(format, bytes, new Uint8Array(0), level).length, `${label}: smaller with the dictionary`)
      assert.ok(same(await oneShotDecode(format, ours, { engine: 'wasm', dictionary: dict }), bytes), `${label}: node -> wasm`)
      const wasm = await oneShotEncode(format, bytes, { engine: 'wasm', level, dictionary: dict })
      assert.ok(same(await oneShotDecode(format, wasm, { engine: 'node', dictionary: dict }), bytes), `${label}: wasm -> node`)
      assert.ok(same(await oneShotDecode(format, ours, { engine: 'node', dictionary: dict }), bytes), `${label}: node -> node`)
    }
  }
  // Spans: 1-byte input pieces and 5-byte rooms, with reset() between two inputs.
  const encoder = node.createEncoder({ level: levels[0], dictionary: dict })
  const decoder = node.createDecoder({ dictionary: dict })
  for (const bytes of some.slice(0, 2)) {
    const encoded = encodeSpans(encoder, bytes, { split: 1, room: 5 })
    assert.ok(same(await oneShotDecode(format, encoded, { engine: 'wasm', dictionary: dict }), bytes), `${format} spans: node -> wasm after reset()`)
    const r = decodeSpans(decoder, encoded, { split: 1, room: 5, consumesAll: true })
    assert.is(r.failure, null)
    assert.is(r.consumed, encoded.length)
    assert.ok(same(r.out, bytes), `${format} spans: node -> node after reset()`)
    encoder.reset()
    decoder.reset()
  }
  encoder.dispose()
  decoder.dispose()
}

/** The streams on engine 'node' with the dictionary, both ways, 1000-byte chunks. */
async function streams(format: 'brotli' | 'zstd', dict: Uint8Array): Promise<void> {
  const [encode, decode] = format === 'brotli' ? [brotliEncode, brotliDecode] : [zstdEncode, zstdDecode]
  const data = concatBytes(some)
  const encoded = await read(chunked(data, 1000).pipeThrough(encode({ engine: 'node', dictionary: dict })))
  assert.ok(same(await oneShotDecode(format, encoded, { engine: 'wasm', dictionary: dict }), data), `${format} stream: node -> wasm`)
  const wasm = await oneShotEncode(format, data, { engine: 'wasm', dictionary: dict })
  assert.ok(same(await read(chunked(wasm, 1000).pipeThrough(decode({ engine: 'node', dictionary: dict }))), data), `${format} stream: wasm -> node`)
}

/** Without the dictionary, or with another, the node engine's decoder fails (or, for brotli, cannot give the input back). */
async function needsIt(format: Format, encoded: Uint8Array, bytes: Uint8Array, expected: string[]): Promise<void> {
  for (const options of [{}, { dictionary: other }] as Options[]) {
    let out: Uint8Array | null = null
    try {
      out = await oneShotDecode(format, encoded, { engine: 'node', ...options })
    } catch (e) {
      assert.instance(e, CodecError)
      assert.ok(expected.includes((e as CodecError).code), `${format} ${options.dictionary ? 'another' : 'no'} dictionary: ${(e as CodecError).code} ${(e as Error).message}`)
    }
    if (out) assert.not.ok(same(out, bytes), `${format}: decoded without its dictionary`)
  }
}

/**
 * reset() keeps the dictionary (Node 22's zstd handles forget theirs at a reset): the
 * encoder writes the same bytes after it, the decoder decodes the next frame with it.
 */
function keepsItOverReset(format: 'brotli' | 'zstd', dict: Uint8Array, level: number): void {
  const node = nodeCodec(format)
  const bytes = some[2]!
  const encoder = node.createEncoder({ level, dictionary: dict })
  const first = encodeSpans(encoder, bytes)
  for (let k = 0; k < 2; k++) {
    encoder.reset()
    const again = encodeSpans(encoder, bytes)
    assert.ok(same(again, first), `${format}: ${again.length} bytes after reset(), ${first.length} before`)
  }
  encoder.dispose()
  const decoder = node.createDecoder({ dictionary: dict })
  for (let k = 0; k < 3; k++) {
    if (k > 0) decoder.reset()
    const r = decodeSpans(decoder, first, { consumesAll: true })
    assert.is(r.failure, null, `${format} decode ${k}: ${r.failure?.message}`)
    assert.ok(same(r.out, bytes), `${format} decode after ${k} reset()s`)
  }
  decoder.dispose()
}

test("brotli: the engine's probe agrees with what node:zlib does; where it ignores a dictionary one is refused, never ignored", async () => {
  const node = nodeCodec('brotli')
  if (brotliHonoured) {
    node.createEncoder({ dictionary }).dispose()
    node.createDecoder({ dictionary }).dispose()
    return
  }
  for (const make of [() => node.createEncoder({ dictionary }), () => node.createDecoder({ dictionary })]) {
    const e = thrown(make) as CodecError
    assert.instance(e, CodecError)
    assert.is(e.code, 'UNSUPPORTED')
    assert.match(e.message, /does not honour a brotli dictionary/)
  }
  // One call at a time: a second promise made before the first is awaited could reject
  // with no handler yet (an unhandled rejection ends the process in Node).
  for (const call of [() => oneShotEncode('brotli', some[0]!, { engine: 'node', dictionary }), () => createDecoder('brotli', { engine: 'node', dictionary })]) {
    assert.is(((await rejection(call())) as CodecError).code, 'UNSUPPORTED')
  }
  // An empty dictionary is no dictionary, taken on every Node.
  node.createEncoder({ dictionary: new Uint8Array(0) }).dispose()
})

brotliTest('brotli raw dictionary: node:zlib\'s bytes, both ways with the wasm engine, spans, reset()', async () => {
  // Brotli 1.1.0 refers into a raw dictionary from quality 5 up.
  await bothWays('brotli', dictionary, [5, 9, 11])
})

brotliTest('brotli: reset() keeps the dictionary, encoder and decoder', () => keepsItOverReset('brotli', dictionary, 9))

brotliTest('brotli raw dictionary: the streams on engine \'node\', both ways', () => streams('brotli', dictionary))

brotliTest('brotli: a stream made with a dictionary does not decode without it or with another', async () => {
  const bytes = some[1]!
  const encoded = await oneShotEncode('brotli', bytes, { engine: 'node', level: 9, dictionary })
  await needsIt('brotli', encoded, bytes, ['INVALID_DATA'])
})

test("zstd: without node:zlib zstd (Node < 22.15) a dictionary on engine 'node' is ENGINE_UNAVAILABLE, never ignored", async () => {
  if (hasZstd) return // the cases below run instead
  for (const call of [() => oneShotEncode('zstd', some[0]!, { engine: 'node', dictionary }), () => createDecoder('zstd', { engine: 'node', dictionary })]) {
    assert.is(((await rejection(call())) as CodecError).code, 'ENGINE_UNAVAILABLE')
  }
})

zstdTest('zstd raw dictionary: node:zlib\'s bytes, both ways with the wasm engine, spans, reset()', async () => {
  await bothWays('zstd', dictionary, [3, 19])
})

zstdTest('zstd: reset() keeps the dictionary, encoder and decoder (raw and trained)', () => {
  keepsItOverReset('zstd', dictionary, 3)
  if (trained) keepsItOverReset('zstd', trained, 3)
})

zstdTest('zstd raw dictionary: the streams on engine \'node\', both ways', () => streams('zstd', dictionary))

trainedTest('zstd trained dictionary (zstd --train): its ID in every frame; node:zlib\'s bytes, both ways, spans, reset()', async () => {
  const dict = trained!
  const frame = await oneShotEncode('zstd', some[0]!, { engine: 'node', dictionary: dict })
  assert.is(parseFrameHeader(frame, 4).dictionaryId, 777)
  await bothWays('zstd', dict, [3, 19])
  await streams('zstd', dict)
})

zstdTest('zstd: a frame made with a dictionary does not decode without it or with another', async () => {
  const bytes = some[1]!
  await needsIt('zstd', await oneShotEncode('zstd', bytes, { engine: 'node', dictionary }), bytes, ['INVALID_DATA', 'UNSUPPORTED'])
  if (trained) await needsIt('zstd', await oneShotEncode('zstd', bytes, { engine: 'node', dictionary: trained }), bytes, ['INVALID_DATA', 'UNSUPPORTED'])
  // An encoder made with a dictionary is refused nowhere; createEncoder goes through the registry too.
  ;(await createEncoder('zstd', { engine: 'node', dictionary })).dispose()
})

test.run()
