// Preset dictionaries of the deflate family (the `dictionary` option): zlib's FDICT and
// DICTID (RFC 1950 section 2.2) and raw deflate's preset window, on every engine (js,
// wasm, node), with node:zlib as the peer in both directions, on real small documents
// (package.json files from node_modules, bench/corpus.ts packageDocuments).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import zlib from 'node:zlib'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Decoder, Encoder, Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import type { CodecModule } from '../lib/registry.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { Status, statusName } from '../lib/status.js'
import { adler32 } from '../lib/codecs/checksum.js'
import { deflate as jsDeflate, deflateRaw as jsDeflateRaw, gzip as jsGzip } from '../lib/codecs/deflate-js.js'
import { loadDeflateWasm } from '../lib/codecs/deflate-wasm.js'
import { nodeCodec } from '../adapters/node/engine.js'
import { nodeDecode, nodeEncode } from '../adapters/node/index.js'
import { decodeWhole as oneShotDecode, encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { CompressionStream, DecompressionStream, deflateDecode, deflateEncode, deflateRawDecode, deflateRawEncode, gzipDecode, gzipEncode, lz4Encode } from '../streams/index.js'
import { packageDocuments } from '../bench/corpus.js'
import { concatBytes } from './_bytes.js'
import { decodeSpans, encodeSpans, type Decoded } from './_span.js'
import { thrown, rejection } from './_caught.js'

// The wasm engine as the registry loads it: the inflate kernel decodes, zlib-ng encodes.
const wasm = await loadDeflateWasm()
type F = 'deflate' | 'deflate-raw'
const dictFormats: readonly F[] = ['deflate', 'deflate-raw']
const engines: Record<'js' | 'wasm' | 'node', Record<F | 'gzip', CodecModule>> = {
  js: { gzip: jsGzip, deflate: jsDeflate, 'deflate-raw': jsDeflateRaw },
  wasm: { gzip: wasm.gzip, deflate: wasm.deflate, 'deflate-raw': wasm.deflateRaw },
  node: { gzip: nodeCodec('gzip'), deflate: nodeCodec('deflate'), 'deflate-raw': nodeCodec('deflate-raw') },
}
const engineNames = Object.keys(engines) as Array<keyof typeof engines>

// Real documents: every 10th package.json makes the dictionary, the others are the inputs.
const docs = packageDocuments()
const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
const inputs = docs.filter((_, k) => k % 10 !== 0)
/** A dictionary of other documents, for "wrong dictionary" cases. */
const otherDictionary = concatBytes(inputs.slice(0, 8).map((d) => d.bytes))
/** A few inputs for the slower loops. */
const some = inputs.filter((_, k) => k % 13 === 0)

const zEncode = (f: F, data: Uint8Array, options: zlib.ZlibOptions): Uint8Array =>
  new Uint8Array(f === 'deflate' ? zlib.deflateSync(data, options) : zlib.deflateRawSync(data, options))
const zDecode = (f: F, data: Uint8Array, options: zlib.ZlibOptions): Buffer => (f === 'deflate' ? zlib.inflateSync(data, options) : zlib.inflateRawSync(data, options))
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0
const decode = (codec: Decoder, input: Uint8Array, split?: number, room?: number): Decoded => decodeSpans(codec, input, { split, room, consumesAll: true })
const encode = (codec: Encoder, input: Uint8Array, split?: number, room?: number, flushEach = false): Uint8Array => encodeSpans(codec, input, { split, room, flushEach })
const codeOf = (e: unknown): string => (e as { code?: string }).code ?? String(e)

test('the documents are real and the dictionary is made of other ones', () => {
  assert.ok(inputs.length >= 40, `${inputs.length} package.json files of 1-50 KB`)
  assert.ok(dictionary.length > 4_000 && dictionary.length < 64_000, `dictionary ${dictionary.length} bytes`)
})

test('node:zlib -> ours: zlib and raw preset dictionaries, every engine, splits and rooms', () => {
  for (const f of dictFormats) {
    for (const { name, bytes } of some) {
      for (const level of [1, 6, 9]) {
        const comp = zEncode(f, bytes, { level, dictionary })
        for (const engine of engineNames) {
          for (const [split, room] of [[comp.length, 1 << 16], [1, 1 << 16], [7, 1], [comp.length, 3]]) {
            const codec = engines[engine][f].createDecoder({ dictionary })
            const r = decode(codec, comp, split, room)
            codec.dispose()
            assert.is(r.status, Status.Done, `${f} ${engine} ${name} level ${level} split ${split}: ${statusName(r.status)} ${r.failure?.message}`)
            assert.is(r.consumed, comp.length)
            assert.ok(same(r.out, bytes), `${f} ${engine} ${name} level ${level} split ${split} room ${room}`)
          }
        }
      }
    }
  }
})

test('ours -> node:zlib: every engine encodes with the dictionary; zlib writes FDICT and DICTID', () => {
  const id = adler32(dictionary)
  for (const f of dictFormats) {
    for (const engine of engineNames) {
      for (const { name, bytes } of some) {
        for (const level of [0, 1, 6, 9]) {
          for (const [split, room, flushEach] of [[bytes.length, 1 << 16, false], [97, 5, true], [1, 1 << 16, false]] as const) {
            const enc = engines[engine][f].createEncoder({ level, dictionary })
            const comp = encode(enc, bytes, split, room, flushEach)
            enc.dispose()
            const what = `${f} ${engine} ${name} level ${level} split ${split}`
            assert.ok(same(zDecode(f, comp, { dictionary }), bytes), what)
            if (f === 'deflate') {
              assert.ok(comp[1]! & 0x20, `${what}: FDICT`)
              assert.is(((comp[2]! << 24) | (comp[3]! << 16) | (comp[4]! << 8) | comp[5]!) >>> 0, id, `${what}: DICTID`)
            }
            // Our decoders (all engines) agree.
            for (const other of engineNames) assert.ok(same(decode(engines[other][f].createDecoder({ dictionary }), comp).out, bytes), `${what} -> ${other}`)
          }
        }
      }
    }
  }
})

test('a dictionary makes small similar documents smaller (every engine and format)', () => {
  for (const f of dictFormats) {
    for (const engine of engineNames) {
      let without = 0
      let withDict = 0
      for (const { bytes } of inputs) {
        without += encode(engines[engine][f].createEncoder({ level: 6 }), bytes).length
        withDict += encode(engines[engine][f].createEncoder({ level: 6, dictionary }), bytes).length
      }
      // Measured 0.60-0.62 on this corpus (bench/dictionary-sizes.ts); 0.8 leaves room
      // for other versions of the packages while still failing if the window is unused.
      assert.ok(withDict < without * 0.8, `${f} ${engine}: ${withDict} with vs ${without} without`)
    }
  }
})

test('zlib: FDICT without a dictionary is UNSUPPORTED naming DICTID; a wrong one is CHECKSUM_MISMATCH at DICTID', () => {
  const bytes = some[0]!.bytes
  const comp = zEncode('deflate', bytes, { dictionary })
  const id = adler32(dictionary).toString(16).padStart(8, '0')
  assert.throws(() => zlib.inflateSync(comp), /dictionary/i, 'node:zlib refuses it without a dictionary too')
  assert.throws(() => zlib.inflateSync(comp, { dictionary: otherDictionary }), /dictionary/i, 'and with a wrong one')
  for (const engine of engineNames) {
    for (const split of [comp.length, 1]) {
      const missing = decode(engines[engine].deflate.createDecoder({}), comp, split)
      assert.is(missing.status, Status.InvalidData, `${engine} split ${split}`)
      assert.is(missing.failure!.code, 'UNSUPPORTED')
      assert.is(missing.failure!.offset, 1)
      assert.ok(missing.failure!.message.includes(split === 1 ? 'DICTID follows' : `DICTID 0x${id}`), missing.failure!.message)
      assert.is(missing.out.length, 0)
      const wrong = decode(engines[engine].deflate.createDecoder({ dictionary: otherDictionary }), comp, split)
      assert.is(wrong.status, Status.InvalidData, `${engine} split ${split}`)
      assert.is(wrong.failure!.code, 'CHECKSUM_MISMATCH')
      assert.is(wrong.failure!.offset, 2, wrong.failure!.message)
      assert.ok(wrong.failure!.message.includes(adler32(otherDictionary).toString(16).padStart(8, '0')), wrong.failure!.message)
      if (split > 1) assert.ok(wrong.failure!.message.includes(id), wrong.failure!.message)
      // Judged at the first byte that differs: the stream offset is DICTID's all the same.
      const cut = decode(engines[engine].deflate.createDecoder({ dictionary: otherDictionary }), comp.subarray(0, 3), 1)
      assert.is(cut.status, Status.InvalidData, 'refused before the rest of DICTID arrives')
    }
  }
  // Through the stream surfaces: a CodecError (a TypeError with that cause from DecompressionStream).
  return (async () => {
    const e = (await rejection(oneShotDecode('deflate', comp))) as CodecError
    assert.instance(e, CodecError)
    assert.is(e.code, 'UNSUPPORTED')
    const w = (await rejection(oneShotDecode('deflate', comp, { dictionary: otherDictionary }))) as CodecError
    assert.is(w.code, 'CHECKSUM_MISMATCH')
    assert.is(w.offset, 2)
    const t = await rejection(new Response(new Blob([comp as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate', { dictionary: otherDictionary }))).arrayBuffer())
    assert.instance(t, TypeError)
    assert.is(codeOf(t), 'CHECKSUM_MISMATCH')
  })()
})

test('zlib: a dictionary given for a stream without FDICT is not used (as in zlib)', () => {
  const bytes = some[1]!.bytes
  const plain = zEncode('deflate', bytes, {})
  assert.ok(same(zlib.inflateSync(plain, { dictionary }), bytes))
  for (const engine of engineNames) {
    const r = decode(engines[engine].deflate.createDecoder({ dictionary }), plain)
    assert.is(r.status, Status.Done, engine)
    assert.ok(same(r.out, bytes), engine)
  }
  // A raw stream whose first match reaches before its start is refused without a
  // dictionary, and not silently decoded from a dictionary meant for another stream.
  const primed = zEncode('deflate-raw', bytes, { dictionary })
  for (const engine of engineNames) {
    const r = decode(engines[engine]['deflate-raw'].createDecoder({}), primed)
    assert.is(r.status, Status.InvalidData, `${engine}: ${statusName(r.status)}`)
    assert.throws(() => zlib.inflateRawSync(primed))
  }
})

test('raw deflate with a wrong dictionary: every engine gives what node:zlib gives, byte for byte', () => {
  let differed = 0
  for (const { name, bytes } of some) {
    const comp = zEncode('deflate-raw', bytes, { dictionary })
    let expected: Buffer | null = null
    try {
      expected = zlib.inflateRawSync(comp, { dictionary: otherDictionary })
    } catch {
      expected = null
    }
    for (const engine of engineNames) {
      const r = decode(engines[engine]['deflate-raw'].createDecoder({ dictionary: otherDictionary }), comp, 5)
      if (expected === null) {
        assert.is(r.status, Status.InvalidData, `${engine} ${name}: node:zlib refuses it`)
      } else {
        assert.is(r.status, Status.Done, `${engine} ${name}`)
        assert.ok(same(r.out, expected), `${engine} ${name}: same bytes as node:zlib`)
      }
    }
    if (expected === null || !same(expected, bytes)) differed++
  }
  assert.ok(differed > 0, 'a wrong dictionary changes the output')
})

test('only the last 32 KiB of a longer dictionary matter; DICTID covers all of it', () => {
  // 100 KB of other documents, then the real dictionary at its end.
  const long = concatBytes([...inputs.slice(10, 60).map((d) => d.bytes), dictionary])
  assert.ok(long.length > 3 * 32768, `${long.length} bytes`)
  const tail = long.subarray(long.length - 32768)
  for (const { name, bytes } of some) {
    for (const engine of engineNames) {
      const withLong = encode(engines[engine]['deflate-raw'].createEncoder({ dictionary: long }), bytes)
      const withTail = encode(engines[engine]['deflate-raw'].createEncoder({ dictionary: tail }), bytes)
      assert.ok(same(withLong, withTail), `${engine} ${name}: the same raw output`)
      assert.ok(same(zlib.inflateRawSync(withLong, { dictionary: long }), bytes))
    }
    const comp = zEncode('deflate-raw', bytes, { dictionary: long })
    const z = zEncode('deflate', bytes, { dictionary: long })
    for (const engine of engineNames) {
      assert.ok(same(decode(engines[engine]['deflate-raw'].createDecoder({ dictionary: tail }), comp).out, bytes), `${engine} ${name}: raw, tail only`)
      assert.ok(same(decode(engines[engine].deflate.createDecoder({ dictionary: long }), z).out, bytes), `${engine} ${name}: zlib, long`)
      // DICTID is the Adler-32 of the whole dictionary (RFC 1950 section 2.2), as zlib computes it.
      assert.is(decode(engines[engine].deflate.createDecoder({ dictionary: tail }), z).failure?.code, 'CHECKSUM_MISMATCH')
    }
  }
})

test('an empty dictionary changes nothing; a stream naming it (DICTID 1) decodes with it', () => {
  const empty = new Uint8Array(0)
  const bytes = some[2]!.bytes
  for (const f of dictFormats) {
    for (const engine of engineNames) {
      const a = encode(engines[engine][f].createEncoder({}), bytes)
      const b = encode(engines[engine][f].createEncoder({ dictionary: empty }), bytes)
      assert.ok(same(a, b), `${f} ${engine}: no FDICT for an empty dictionary, as node:zlib`)
      assert.ok(same(decode(engines[engine][f].createDecoder({ dictionary: empty }), a).out, bytes))
    }
  }
  // zlib header with FDICT (78 BB: 0x78bb % 31 === 0), DICTID = Adler-32 of nothing = 1.
  assert.is(0x78bb % 31, 0)
  const body = zEncode('deflate-raw', bytes, {})
  const a = adler32(bytes)
  const named = concatBytes([new Uint8Array([0x78, 0xbb, 0, 0, 0, 1]), body, new Uint8Array([a >>> 24, a >>> 16, a >>> 8, a])])
  for (const engine of engineNames) {
    assert.ok(same(decode(engines[engine].deflate.createDecoder({ dictionary: empty }), named).out, bytes), engine)
    assert.is(decode(engines[engine].deflate.createDecoder({}), named).failure?.code, 'UNSUPPORTED')
  }
})

test('reset() primes again; wasm decoders with different dictionaries interleave', () => {
  const [x, y] = [some[0]!.bytes, some[1]!.bytes]
  for (const f of dictFormats) {
    for (const engine of engineNames) {
      const dec = engines[engine][f].createDecoder({ dictionary })
      const enc = engines[engine][f].createEncoder({ dictionary })
      for (const bytes of [x, y, x]) {
        const comp = encode(enc, bytes)
        assert.ok(same(decode(dec, comp).out, bytes), `${f} ${engine} after reset`)
        enc.reset()
        dec.reset()
      }
      dec.dispose()
      enc.dispose()
    }
    // Two wasm decoders share one kernel: each keeps its own primed history.
    const cx = zEncode(f, x, { dictionary })
    const cy = zEncode(f, y, { dictionary: otherDictionary })
    const dx = engines.wasm[f].createDecoder({ dictionary })
    const dy = engines.wasm[f].createDecoder({ dictionary: otherDictionary })
    const outs: Uint8Array[][] = [[], []]
    const dst = new Uint8Array(300)
    let ix = 0
    let iy = 0
    let sx: Status = Status.NeedMoreData
    let sy: Status = Status.NeedMoreData
    while (sx !== Status.Done || sy !== Status.Done) {
      for (const [k, d, comp] of [[0, dx, cx], [1, dy, cy]] as const) {
        const at = k === 0 ? ix : iy
        if ((k === 0 ? sx : sy) === Status.Done) continue
        const s = d.transform(comp.subarray(at, at + 50), dst, at + 50 >= comp.length)
        assert.ok(s !== Status.InvalidData, `${f}: ${d.failure?.message}`)
        outs[k]!.push(dst.slice(0, d.written))
        if (k === 0) (ix += d.consumed), (sx = s)
        else (iy += d.consumed), (sy = s)
      }
    }
    assert.ok(same(concatBytes(outs[0]!), x), `${f}: first decoder`)
    assert.ok(same(concatBytes(outs[1]!), y), `${f}: second decoder`)
  }
})

test('gzip and formats without dictionaries refuse one with INVALID_OPTION; so do non-BufferSources', async () => {
  const d = { dictionary }
  for (const engine of engineNames) {
    assert.is(codeOf(thrown(() => engines[engine].gzip.createDecoder(d))), 'INVALID_OPTION', engine)
    assert.is(codeOf(thrown(() => engines[engine].gzip.createEncoder(d))), 'INVALID_OPTION', engine)
  }
  const e = thrown(() => gzipDecode(d)) as CodecError
  assert.is(e.code, 'INVALID_OPTION')
  assert.match(e.message, /RFC 1952/)
  assert.is(codeOf(thrown(() => gzipEncode(d))), 'INVALID_OPTION')
  assert.is(codeOf(thrown(() => nodeEncode('gzip', d))), 'INVALID_OPTION')
  assert.is(codeOf(await rejection(oneShotEncode('gzip', new Uint8Array(1), d))), 'INVALID_OPTION')
  assert.is(codeOf(await rejection(createDecoder('gzip', d))), 'INVALID_OPTION')
  const t = thrown(() => new CompressionStream('gzip', d))
  assert.instance(t, TypeError)
  assert.is(codeOf(t), 'INVALID_OPTION')
  assert.instance(thrown(() => new DecompressionStream('gzip', d)), TypeError)
  // Not taken by LZ4 either: never silently ignored.
  assert.is(codeOf(thrown(() => lz4Encode(d))), 'INVALID_OPTION')
  assert.is(codeOf(await rejection(createEncoder('lz4', d))), 'INVALID_OPTION')
  for (const bad of ['dictionary text', 42, null, [1, 2, 3], {}]) {
    assert.is(codeOf(thrown(() => deflateDecode({ dictionary: bad as never }))), 'INVALID_OPTION', String(bad))
    assert.is(codeOf(thrown(() => jsDeflateRaw.createEncoder({ dictionary: bad }))), 'INVALID_OPTION', String(bad))
  }
})

test('any BufferSource is taken, copied when the codec or stream is created', async () => {
  const bytes = some[3]!.bytes
  const expected = zEncode('deflate', bytes, { dictionary })
  const buffer = dictionary.slice().buffer
  const shared = new SharedArrayBuffer(dictionary.length)
  new Uint8Array(shared).set(dictionary)
  const padded = new Uint8Array(dictionary.length + 3)
  padded.set(dictionary, 3)
  const forms: Array<[string, unknown]> = [
    ['ArrayBuffer', buffer],
    ['DataView', new DataView(buffer)],
    ['Uint16Array', new Uint16Array(buffer, 0, dictionary.length >> 1)],
    ['offset view', padded.subarray(3)],
    ['SharedArrayBuffer', shared],
    ['Buffer', Buffer.from(dictionary)],
  ]
  for (const [name, value] of forms) {
    const view = ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new Uint8Array(value as ArrayBuffer)
    const r = decode(jsDeflate.createDecoder({ dictionary: value }), zEncode('deflate', bytes, { dictionary: view }))
    assert.is(r.status, Status.Done, name)
    assert.ok(same(r.out, bytes), name)
  }
  // Changing the caller's bytes after creation changes nothing.
  const mine = dictionary.slice()
  const dec = jsDeflate.createDecoder({ dictionary: mine })
  const stream = deflateDecode({ dictionary: mine })
  mine.fill(0)
  assert.ok(same(decode(dec, expected).out, bytes))
  const out = new Uint8Array(await new Response(new Blob([expected as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream)).arrayBuffer())
  assert.ok(same(out, bytes))
})

test('streams, one-shot, CompressionStream options and the Node adapter, each engine, both ways with node:zlib', async () => {
  const bytes = concatBytes(some.slice(0, 3).map((d) => d.bytes))
  const read = async (readable: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(readable).arrayBuffer())
  const chunked = (data: Uint8Array, n: number) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < data.length; i += n) c.enqueue(data.slice(i, i + n))
        c.close()
      },
    })
  for (const f of dictFormats) {
    const peer = zEncode(f, bytes, { dictionary })
    const [enc, dec] = f === 'deflate' ? [deflateEncode, deflateDecode] : [deflateRawEncode, deflateRawDecode]
    for (const engine of engineNames) {
      const what = `${f} ${engine}`
      // Factories.
      const streamed = await read(chunked(bytes, 333).pipeThrough(enc({ engine, dictionary, chunkSize: 64 })))
      assert.ok(same(zDecode(f, streamed, { dictionary }), bytes), `${what}: stream encode`)
      assert.ok(same(await read(chunked(peer, 7).pipeThrough(dec({ engine, dictionary, chunkSize: 64 }))), bytes), `${what}: stream decode`)
      // One-shot.
      const once = await oneShotEncode(f, bytes, { engine, dictionary })
      assert.ok(same(zDecode(f, once, { dictionary }), bytes), `${what}: encode()`)
      assert.ok(same(await oneShotDecode(f, peer, { engine, dictionary }), bytes), `${what}: decode()`)
      // Span codecs from the registry.
      const span = await createDecoder(f, { engine, dictionary })
      assert.ok(same(decode(span, peer).out, bytes), `${what}: createDecoder`)
      span.dispose()
      // Node adapter.
      const parts: Buffer[] = []
      await pipeline(Readable.from([Buffer.from(bytes)]), nodeEncode(f, { engine, dictionary }), async function* (source) {
        for await (const c of source) parts.push(c as Buffer)
      })
      assert.ok(same(zDecode(f, Buffer.concat(parts), { dictionary }), bytes), `${what}: nodeEncode`)
      const back: Buffer[] = []
      await pipeline(Readable.from([Buffer.from(peer)]), nodeDecode(f, { engine, dictionary }), async function* (source) {
        for await (const c of source) back.push(c as Buffer)
      })
      assert.ok(same(Buffer.concat(back), bytes), `${what}: nodeDecode`)
    }
    // CompressionStream / DecompressionStream (default engine).
    const cs = await read(chunked(bytes, 1000).pipeThrough(new CompressionStream(f, { dictionary })))
    assert.ok(same(zDecode(f, cs, { dictionary }), bytes), `${f}: CompressionStream`)
    assert.ok(same(await read(chunked(peer, 100).pipeThrough(new DecompressionStream(f, { dictionary }))), bytes), `${f}: DecompressionStream`)
    assert.ok((await read(chunked(bytes, 1000).pipeThrough(new CompressionStream(f)))).length > cs.length, `${f}: smaller with the dictionary`)
  }
})

test.run()
