// brotli span codecs against the reference `brotli` CLI (Debian package `brotli`) and
// node:zlib, both ways, on real files.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Decoder, Encoder } from '../lib/codec.js'
import { loadBrotli } from '../lib/codecs/brotli.js'
const brotli = await loadBrotli()
import { loadBrotliEngines } from '../lib/codecs/wasm/brotli-engine.js'
import { CodecError } from '../lib/errors.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { Status, statusName } from '../lib/status.js'
import { root } from './_fixtures.js'
import { filesCorpus } from './_corpus.js'
import { decodeSpans, encodeSpans } from './_span.js'
import { concatBytes as concat } from './_bytes.js'

import { requireCli, runCli } from './_cli.js'

const cliTest = requireCli('brotli') ? test : test.skip

/** The brotli CLI on `input` written to a file. */
const cli = (args: string[], input: Uint8Array): Uint8Array => runCli('brotli', [...args, '-c'], input, 'file')

const nodeEncode = (data: Uint8Array, quality: number, lgwin = 22): Uint8Array =>
  new Uint8Array(zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_LGWIN]: lgwin, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length } }))
const nodeDecode = (data: Uint8Array): Uint8Array => new Uint8Array(zlib.brotliDecompressSync(data))

const bytes = (path: string): Uint8Array => new Uint8Array(readFileSync(path))
const source = bytes(join(root, 'lib', 'codecs', 'brotli.ts'))
const small = bytes(join(root, 'lib', 'status.ts'))
const dts = bytes(join(root, 'node_modules', 'typescript', 'lib', 'lib.dom.d.ts'))
const binary = bytes(process.execPath).subarray(0, 2 * 2 ** 20)

/** 11 MiB of node_modules JavaScript, concatenated. */
const large = filesCorpus(join(root, 'node_modules', 'typescript', 'lib'), 11 * 2 ** 20, /\.js$/)

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0

/** Drives a codec by hand with the contract checked on every call (test/_span.ts). */
const decode = (decoder: Decoder, input: Uint8Array, split = input.length, room = 1 << 16) => decodeSpans(decoder, input, { split, room })
const encode = (encoder: Encoder, input: Uint8Array, split = input.length, room = 1 << 16): Uint8Array => encodeSpans(encoder, input, { split, room })

const files: [string, Uint8Array][] = [
  ['project source', source],
  ['lib.dom.d.ts', dts],
  ['node binary slice', binary],
  ['empty', new Uint8Array(0)],
  ['1 byte', new Uint8Array([42])],
]

cliTest('decodes brotli CLI and node:zlib streams of real files (qualities 0, 5, 11; lgwin 10, 16, 24)', () => {
  const decoder = brotli.createDecoder({})
  for (const [name, data] of files) {
    const heavy = data.length > 100000
    const streams: [string, Uint8Array][] = [
      ['cli -q 5', cli(['-q', '5'], data)],
      ['cli -q 0 -w 10', cli(['-q', '0', '-w', '10'], data)],
      ['cli -q 9 -w 24', cli(['-q', heavy ? '6' : '9', '-w', '24'], data)],
      ['node q5', nodeEncode(data, 5)],
      ['node q11 lgwin 16', nodeEncode(data, heavy ? 4 : 11, 16)],
    ]
    for (const [how, stream] of streams) {
      decoder.reset()
      const r = decode(decoder, stream)
      assert.is(statusName(r.status), 'Done', `${name} ${how}: ${r.failure?.message}`)
      assert.ok(equalBytes(r.out, data), `${name} ${how}`)
      assert.is(r.consumed, stream.length)
    }
  }
  decoder.dispose()
})

cliTest('encodes real files at qualities 0, 5 (default), 11; CLI and node:zlib decode them', () => {
  for (const [name, data] of files) {
    const qualities = data.length > 100000 ? [{}, { level: 0 }, { level: 9 }] : [{}, { level: 0 }, { level: 11 }]
    for (const options of qualities as { level?: number }[]) {
      const stream = encode(brotli.createEncoder(options), data)
      assert.ok(equalBytes(cli(['-d'], stream), data), `${name} ${JSON.stringify(options)} cli`)
      assert.ok(equalBytes(nodeDecode(stream), data), `${name} ${JSON.stringify(options)} node`)
    }
  }
})

cliTest('> 10 MiB both ways in 64 KiB pieces', () => {
  const ours = encode(brotli.createEncoder({}), large, 65536, 65536)
  assert.ok(equalBytes(nodeDecode(ours), large))
  const reference = nodeEncode(large, 5)
  // Same quality and window as node:zlib: the ratio is of the same order.
  assert.ok(ours.length < reference.length * 1.25, `ours ${ours.length} vs node:zlib ${reference.length}`)
  const r = decode(brotli.createDecoder({}), reference, 65536, 65536)
  assert.is(statusName(r.status), 'Done')
  assert.ok(equalBytes(r.out, large))
})

test('1-byte input splits and 1-byte output, both ways', () => {
  const stream = nodeEncode(small, 5)
  const r = decode(brotli.createDecoder({}), stream, 1, 1)
  assert.is(statusName(r.status), 'Done')
  assert.ok(equalBytes(r.out, small))
  const ours = encode(brotli.createEncoder({}), small, 1, 1)
  assert.ok(equalBytes(nodeDecode(ours), small))
  const ours2 = encode(brotli.createEncoder({ level: 11 }), small, 3, 1)
  assert.ok(equalBytes(nodeDecode(ours2), small))
})

test('Done leaves trailing bytes unconsumed and latches until reset()', () => {
  const stream = nodeEncode(source, 5)
  const withTail = concat([stream, new Uint8Array([1, 2, 3])])
  const d = brotli.createDecoder({})
  assert.is(d.transform(withTail, new Uint8Array(source.length), false), Status.Done)
  assert.is(d.consumed, stream.length)
  assert.is(d.transform(withTail.subarray(stream.length), new Uint8Array(10), false), Status.Done)
  assert.is(d.consumed, 0)
  assert.is(brotli.traits.concatenable, false)
  d.reset()
  assert.is(d.transform(stream, new Uint8Array(source.length), true), Status.Done)
})

test('truncation at every length gives NeedMoreData and a correct prefix', () => {
  const stream = nodeEncode(small, 5)
  const decoder = brotli.createDecoder({})
  for (let n = 0; n < stream.length; n++) {
    decoder.reset()
    const r = decode(decoder, stream.subarray(0, n), 1 + (n % 5), 1 + (n % 7))
    assert.is(statusName(r.status), 'NeedMoreData', `prefix ${n}: ${r.failure?.message}`)
    assert.ok(equalBytes(r.out, small.subarray(0, r.out.length)), `prefix ${n}`)
  }
})

test('corruption: InvalidData with a message (brotli has no checksum, so some flips decode to other bytes)', () => {
  const stream = nodeEncode(source, 5)
  const decoder = brotli.createDecoder({})
  let invalid = 0
  for (let at = 0; at < stream.length; at += 3) {
    const bad = stream.slice()
    bad[at]! ^= 1 << (at % 8)
    decoder.reset()
    const r = decode(decoder, bad)
    assert.ok(r.status !== Status.DestinationTooSmall)
    if (r.status === Status.InvalidData) {
      invalid++
      assert.is(r.failure?.code, 'INVALID_DATA')
      assert.ok(r.failure!.message.length > 10)
    }
  }
  // Measured: about a third of single-bit flips are detected; the rest decode to other
  // bytes or look truncated, which RFC 7932 cannot tell (it has no checksum).
  assert.ok(invalid > stream.length / 3 / 5, `${invalid} of ${Math.ceil(stream.length / 3)} flips detected`)
  // InvalidData is final until reset().
  const junk = new Uint8Array([0xff, 0xff, 0xff, 0xff])
  const d = brotli.createDecoder({})
  assert.is(d.transform(junk, new Uint8Array(10), true), Status.InvalidData)
  assert.is(d.transform(stream, new Uint8Array(source.length), true), Status.InvalidData)
  d.reset()
  assert.is(d.transform(stream, new Uint8Array(source.length), true), Status.Done)
})

test('maxOutputBytes', () => {
  const stream = nodeEncode(dts, 5)
  const r = decode(brotli.createDecoder({ maxOutputBytes: 100000 }), stream)
  assert.is(r.failure?.code, 'LIMIT_EXCEEDED')
  assert.ok(r.out.length <= 100000)
  assert.ok(equalBytes(r.out, dts.subarray(0, r.out.length)))
  assert.is(statusName(decode(brotli.createDecoder({ maxOutputBytes: dts.length }), stream).status), 'Done')
})

test('options: quality 0..11 and lgwin 10..24 are checked; every lgwin reaches the stream header', () => {
  for (const options of [{ level: -1 }, { level: 12 }, { level: 1.5 }, { lgwin: 9 }, { lgwin: 25 }, { lgwin: 18.5 }]) {
    assert.throws(() => brotli.createEncoder(options), (e: unknown) => e instanceof CodecError && e.code === 'INVALID_OPTION', JSON.stringify(options))
  }
  for (const lgwin of [10, 15, 16, 17, 18, 22, 24]) {
    const stream = encode(brotli.createEncoder({ lgwin, level: 5 }), dts)
    assert.ok(equalBytes(nodeDecode(stream), dts), `lgwin ${lgwin}`)
    // RFC 7932 §9.1: bit 0 clear is WBITS 16; else 3 bits n, n > 0 is 17 + n; else 3 more bits m: 0 is 17, 2..7 is 8 + m.
    const first = stream[0]!
    const n = (first >> 1) & 7
    const m = (first >> 4) & 7
    const declared = (first & 1) === 0 ? 16 : n !== 0 ? 17 + n : m === 0 ? 17 : 8 + m
    assert.is(declared, lgwin, `lgwin ${lgwin}: header declares ${declared}`)
  }
})

test('one-shot encode passes its input size as brotli\'s size hint: node:zlib\'s one-shot bytes', () => {
  // node:zlib hands brotli the whole input in one call, and brotli derives its size hint
  // from it (larger tables, another match finder from 1 MiB on); the codec calls the
  // engine in 256 KiB steps, so it must pass the hint itself to get the same stream.
  const input = large.subarray(0, 4 * 2 ** 20)
  const ours = encode(brotli.createEncoder({ level: 5 }), input, input.length, 1 << 20)
  const native = new Uint8Array(zlib.brotliCompressSync(input, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }))
  // With the hint, and the last input passed with FINISH (test/brotli-finish.test.ts), the same bytes.
  assert.ok(equalBytes(ours, native), `ours ${ours.length} bytes, node:zlib ${native.length}`)
  assert.ok(equalBytes(nodeDecode(ours), input))
})

test('flush(): what was given so far decodes without the rest of the stream (BROTLI_OPERATION_FLUSH)', () => {
  const encoder = brotli.createEncoder({ level: 5 })
  assert.is(encoder.flush(new Uint8Array(16)), Status.Done) // nothing given yet
  const cut = 20000
  assert.is(encoder.transform(dts.subarray(0, cut), new Uint8Array(1 << 20), false), Status.Done)
  // A tiny destination: the flush returns DestinationTooSmall until all is out.
  const flushed: Uint8Array[] = []
  const room = new Uint8Array(7)
  let status: Status
  let rounds = 0
  do {
    status = encoder.flush(room)
    flushed.push(room.slice(0, encoder.written))
    rounds++
  } while (status === Status.DestinationTooSmall)
  assert.is(status, Status.Done)
  assert.ok(rounds > 1)
  const prefix = concat(flushed)
  const decoder = brotli.createDecoder({})
  const out = new Uint8Array(cut + 100)
  assert.is(decoder.transform(prefix, out, false), Status.NeedMoreData)
  assert.is(decoder.consumed, prefix.length)
  assert.ok(equalBytes(out.subarray(0, decoder.written), dts.subarray(0, cut)), 'the flushed prefix decodes to the input so far')
  // The stream goes on and ends as usual.
  const rest = encode(encoder, dts.subarray(cut))
  assert.ok(equalBytes(nodeDecode(concat([prefix, rest])), dts))
})

test('reset() reuse and dispose(): no wasm memory growth; dispose idempotent', async () => {
  const decoder = brotli.createDecoder({})
  const encoder = brotli.createEncoder({})
  const cycle = (): void => {
    encoder.reset()
    const stream = encode(encoder, dts, 50000, 30000)
    decoder.reset()
    assert.is(decode(decoder, stream.subarray(0, stream.length >>> 1), 10000, 10000).status, Status.NeedMoreData)
    decoder.reset() // mid-stream
    assert.ok(equalBytes(decode(decoder, stream, 20000, 20000).out, dts))
  }
  const [decoderEngine, encoderEngine] = await loadBrotliEngines()
  for (let i = 0; i < 3; i++) cycle()
  const before = [decoderEngine.memorySize(), encoderEngine.memorySize()]
  for (let i = 0; i < 15; i++) cycle()
  assert.equal([decoderEngine.memorySize(), encoderEngine.memorySize()], before)
  decoder.dispose()
  decoder.dispose()
  encoder.dispose()
  encoder.dispose()
  assert.throws(() => encoder.transform(new Uint8Array(1), new Uint8Array(1), false), (e: unknown) => e instanceof CodecError)
})

test('through the registry (lazy load of the wasm engines)', async () => {
  const encoder = await createEncoder('brotli', { level: 4 })
  const stream = encode(encoder, source)
  const decoder = await createDecoder('brotli')
  assert.ok(equalBytes(decode(decoder, stream).out, source))
  assert.ok(equalBytes(nodeDecode(stream), source))
})

test.run()
