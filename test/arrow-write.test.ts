import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  Bool, CompressionType, Vector, Dictionary, Field, Float64, Int32, List, makeData, RecordBatch, RecordBatchFileWriter,
  RecordBatchStreamWriter, Schema, Struct, Table, tableFromIPC, Utf8, vectorFromArray, Binary,
} from 'apache-arrow'
import { CodecError } from '../lib/errors.js'
import { Status } from '../lib/status.js'
import { loadCodec } from '../lib/registry.js'
import { IpcFramer } from '../lib/arrow/framing.js'
import { decodeBodyBuffers, readInt64 } from '../lib/arrow/body.js'
import type { RecordBatchDesc } from '../lib/arrow/metadata.js'
import { arrowDecode, readArrow } from '../adapters/arrow/read.js'
import { arrowEncode, arrowEncodeFile } from '../adapters/arrow/write.js'
import { chunked, collect, diffTables, registerPeerCodecs } from './arrow-oracle.js'
import { concatBytes as concat } from './_bytes.js'

await registerPeerCodecs()

/** Deterministic pseudo-random bytes (xorshift32): incompressible test data. */
function noise(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n)
  let x = seed
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

async function encodeStream(chunks: (RecordBatch | Table)[], options?: Parameters<typeof arrowEncode>[0]): Promise<Uint8Array> {
  const source = new ReadableStream<RecordBatch | Table>({ start(c) { for (const x of chunks) c.enqueue(x); c.close() } })
  return concat(await collect(source.pipeThrough(arrowEncode(options))))
}

// --- Test tables -----------------------------------------------------------------

const colorType = new Dictionary(new Utf8(), new Int32(), 0)
const colors = vectorFromArray(['red', 'green', 'blue'], new Utf8())

function mixedTable(rows: number, seed = 0): Table {
  const ints = Array.from({ length: rows }, (_, i) => (i % 7 === 3 ? null : (i * 2654435761 + seed) | 0))
  const strs = Array.from({ length: rows }, (_, i) => (i % 5 === 1 ? null : `value-${i % 97}-${'x'.repeat(i % 13)}`))
  const lists = Array.from({ length: rows }, (_, i) => (i % 11 === 0 ? null : Array.from({ length: i % 4 }, (_, k) => i + k)))
  const structs = Array.from({ length: rows }, (_, i) => (i % 9 === 2 ? null : { a: i / 3, b: i % 2 === 0 }))
  const dictIndices = Int32Array.from({ length: rows }, (_, i) => i % 3)
  const dictValidity = Uint8Array.from({ length: (rows + 7) >> 3 }, (_, k) => Array.from({ length: 8 }, (_, b) => ((k * 8 + b) % 6 === 5 ? 0 : 1 << b)).reduce((x, y) => x | y, 0))
  const dictNulls = Array.from({ length: rows }, (_, i) => i % 6 === 5).filter(Boolean).length
  const bin = Array.from({ length: rows }, (_, i) => (i % 3 === 0 ? new Uint8Array(0) : noise(i % 40, i + 1)))
  return new Table({
    ints: vectorFromArray(ints, new Int32()),
    strs: vectorFromArray(strs, new Utf8()),
    lists: vectorFromArray(lists, new List(new Field('item', new Int32(), true))),
    structs: vectorFromArray(structs, new Struct([new Field('a', new Float64(), true), new Field('b', new Bool(), true)])),
    // One dictionary (id 0) shared by every batch, as a stream of one table has.
    dict: new Vector([makeData({ type: colorType, length: rows, nullCount: dictNulls, nullBitmap: dictValidity, data: dictIndices, dictionary: colors })]),
    bin: vectorFromArray(bin, new Binary()),
  })
}

/** Two batches sharing dictionary 0; the second's dictionary grew by one chunk (a delta). */
function deltaBatches(): RecordBatch[] {
  const type = new Dictionary(new Utf8(), new Int32(), 0)
  const d1 = vectorFromArray(['x', 'y'], new Utf8())
  const d2 = d1.concat(vectorFromArray(['z', 'w'], new Utf8()))
  const schema = new Schema([new Field('d', type, true)])
  const batch = (indices: number[], dictionary: typeof d1) => {
    const child = makeData({ type, length: indices.length, nullCount: 0, data: Int32Array.from(indices), dictionary })
    return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: indices.length, nullCount: 0, children: [child] }))
  }
  return [batch([0, 1, 1, 0], d1), batch([3, 2, 0, 1, 2], d2)]
}

const tables: [string, () => Table | RecordBatch[]][] = [
  ['mixed types with nulls, 3 batches', () => new Table([...mixedTable(300).batches, ...mixedTable(17, 5).batches, ...mixedTable(1000, 9).batches])],
  ['an empty batch between batches', () => new Table([...mixedTable(10).batches, mixedTable(10).batches[0]!.slice(0, 0), ...mixedTable(10, 3).batches])],
  ['a sliced batch (offsets and bitmaps not at 0)', () => new Table([mixedTable(100).batches[0]!.slice(13, 71)])],
  ['all values empty (zero-length data buffers)', () => new Table({ s: vectorFromArray(['', '', ''], new Utf8()), b: vectorFromArray([new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)], new Binary()) })],
  ['dictionary deltas', () => deltaBatches()],
  ['incompressible binary', () => new Table({ b: vectorFromArray([noise(50000, 7), noise(3, 8)], new Binary()) })],
]

// --- Our writer -> apache-arrow's reader and ours, stream and file formats --------

for (const compression of [null, 'lz4', 'zstd'] as const) {
  for (const [name, make] of tables) {
    test(`ours -> apache-arrow and ours (${compression ?? 'uncompressed'}): ${name}`, async () => {
      const source = make()
      const expected = Array.isArray(source) ? new Table(source) : source
      const chunks = Array.isArray(source) ? source : [source]
      const stream = await encodeStream(chunks, { compression })
      assert.is(diffTables(tableFromIPC(stream), expected), null, 'apache-arrow reads our stream')
      assert.is(diffTables(await readArrow(stream), expected), null, 'we read our stream')
      assert.is(diffTables(await collect(chunked(stream, 7).pipeThrough(arrowDecode())), expected), null, 'we read it in 7-byte chunks')
      const file = await arrowEncodeFile(Array.isArray(source) ? source : source, { compression })
      assert.is(diffTables(tableFromIPC(file), expected), null, 'apache-arrow reads our file')
      assert.is(diffTables(await readArrow(file), expected), null, 'we read our file')
    })
  }
}

test('a dictionary replaced between batches: stream format yes, file format UNSUPPORTED', async () => {
  const type = new Dictionary(new Utf8(), new Int32(), 0)
  const schema = new Schema([new Field('d', type, true)])
  const batch = (values: string[]) => {
    const child = makeData({ type, length: 2, nullCount: 0, data: Int32Array.from([1, 0]), dictionary: vectorFromArray(values, new Utf8()) })
    return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 2, nullCount: 0, children: [child] }))
  }
  const batches = [batch(['a', 'b']), batch(['c', 'd'])]
  const stream = await encodeStream(batches)
  const rows = (await readArrow(stream)).getChildAt(0)!.toArray()
  assert.equal([...rows], ['b', 'a', 'd', 'c'])
  assert.equal([...tableFromIPC(stream).getChildAt(0)!.toArray()], ['b', 'a', 'd', 'c'])
  try {
    await arrowEncodeFile(batches)
    assert.unreachable()
  } catch (e) {
    assert.is((e as CodecError).code, 'UNSUPPORTED')
  }
})

test('dictionary deltas are written as delta batches, not replacements', async () => {
  const stream = await encodeStream(deltaBatches())
  const framer = new IpcFramer(1 << 30)
  const kinds: string[] = []
  let pos = 0
  while (!framer.ended && pos < stream.length) {
    assert.is(framer.transform(stream.subarray(pos), true), Status.Done)
    pos += framer.consumed
    const m = framer.message
    if (m) kinds.push(m.headerType === 2 ? (m.isDelta ? 'delta' : 'dict') : m.headerType === 3 ? 'batch' : 'schema')
  }
  assert.equal(kinds, ['schema', 'dict', 'batch', 'delta', 'batch'])
})

// --- Length prefixes of our compressed output --------------------------------------

/** Every compressed buffer region of a stream: [prefix, payload]. */
function compressedRegions(stream: Uint8Array): [number, Uint8Array][] {
  const framer = new IpcFramer(1 << 30)
  const out: [number, Uint8Array][] = []
  let pos = 0
  while (!framer.ended && pos < stream.length) {
    assert.is(framer.transform(stream.subarray(pos), true), Status.Done)
    pos += framer.consumed
    const m = framer.message
    if (!m?.batch) continue
    const b = m.batch
    assert.ok(b.compression >= 0, 'the batch is marked compressed')
    for (let i = 0; i < b.bufferOffsets.length; i++) {
      const len = b.bufferLengths[i]!
      if (len === 0) continue
      const region = framer.body!.subarray(b.bufferOffsets[i]!, b.bufferOffsets[i]! + len)
      out.push([readInt64(region, 0), region.subarray(8)])
    }
  }
  return out
}

for (const compression of ['lz4', 'zstd'] as const) {
  test(`${compression}: each prefix is the uncompressed length, -1 when stored raw`, async () => {
    const table = new Table({
      text: vectorFromArray(Array.from({ length: 5000 }, (_, i) => `row ${i % 50}`), new Utf8()),
      noise: vectorFromArray([noise(20000, 3)], new Binary()),
    })
    const regions = compressedRegions(await encodeStream([table], { compression }))
    const mod = await loadCodec(compression, compression === 'lz4' ? 'js' : 'wasm')
    const decoder = mod.createDecoder({})
    let raw = 0
    let packed = 0
    for (const [prefix, payload] of regions) {
      if (prefix === -1) { raw++; continue }
      packed++
      assert.ok(payload.length < prefix, `compressed ${payload.length} < uncompressed ${prefix}`)
      decoder.reset()
      const dst = new Uint8Array(prefix)
      assert.is(decoder.transform(payload, dst, true), Status.Done)
      assert.is(decoder.written, prefix)
    }
    assert.ok(raw >= 1, 'the noise buffer is stored raw')
    assert.ok(packed >= 2, 'the text buffers are compressed')
  })
}

// --- apache-arrow's writer -> our reader (incl. the 21.2 compressed-length prefix) --

for (const [compression, type] of [['lz4', CompressionType.LZ4_FRAME], ['zstd', CompressionType.ZSTD]] as const) {
  test(`apache-arrow writer (${compression}) -> ours, despite its compressed-length prefixes`, async () => {
    const expected = mixedTable(2000)
    const stream = RecordBatchStreamWriter.writeAll(expected, { compressionType: type } as never).toUint8Array(true)
    // Check that the writer bug is really present, so this test covers the workaround.
    const regions = compressedRegions(stream)
    assert.ok(regions.some(([prefix, payload]) => prefix === payload.length), 'apache-arrow 21.2 writes the compressed length')
    assert.is(diffTables(await readArrow(stream), expected), null)
    assert.is(diffTables(await collect(chunked(stream, 65536).pipeThrough(arrowDecode())), expected), null)
    const file = RecordBatchFileWriter.writeAll(expected, { compressionType: type } as never).toUint8Array(true)
    assert.is(diffTables(await readArrow(file), expected), null)
  })
}

test('apache-arrow writer, uncompressed, with dictionary deltas -> ours', async () => {
  const batches = deltaBatches()
  const stream = RecordBatchStreamWriter.writeAll(batches).toUint8Array(true)
  assert.is(diffTables(await readArrow(stream), new Table(batches)), null)
})

// --- Body decoding edge cases on hand-made messages --------------------------------

function desc(regions: [number, number][], compression: number): RecordBatchDesc {
  return { length: 0, nodeLengths: [], nodeNullCounts: [], bufferOffsets: regions.map((r) => r[0]), bufferLengths: regions.map((r) => r[1]), compression, variadicCounts: [] }
}

test("Java's 8-byte zero prefix with no payload is an empty buffer", async () => {
  const decoder = (await loadCodec('lz4', 'js')).createDecoder({})
  const out = decodeBodyBuffers(desc([[0, 8], [8, 0]], 0), new Uint8Array(8), 0, decoder, 1 << 20)
  assert.equal(out.map((b) => b.length), [0, 0])
})

test('a frame that decodes to another length than its prefix is INVALID_DATA', async () => {
  const mod = await loadCodec('lz4', 'js')
  const enc = mod.createEncoder({})
  const src = new TextEncoder().encode('abc'.repeat(100))
  const frame = new Uint8Array(1000)
  assert.is(enc.transform(src, frame, true), Status.Done)
  const payload = frame.subarray(0, enc.written)
  const body = (prefix: number) => {
    const b = new Uint8Array(8 + payload.length)
    new DataView(b.buffer).setBigInt64(0, BigInt(prefix), true)
    b.set(payload, 8)
    return b
  }
  const decoder = mod.createDecoder({})
  assert.equal(decodeBodyBuffers(desc([[0, 8 + payload.length]], 0), body(300), 0, decoder, 1 << 20)[0], src)
  for (const wrong of [299, 301, 5000]) {
    try {
      decodeBodyBuffers(desc([[0, 8 + payload.length]], 0), body(wrong), 0, decoder, 1 << 20)
      assert.unreachable(`prefix ${wrong} accepted`)
    } catch (e) {
      assert.instance(e, CodecError)
      assert.is((e as CodecError).code, 'INVALID_DATA', String(e))
      assert.is((e as CodecError).format, 'arrow')
    }
  }
  // The prefix equal to the payload length (apache-arrow 21.2) decodes correctly.
  assert.equal(decodeBodyBuffers(desc([[0, 8 + payload.length]], 0), body(payload.length), 0, decoder, 1 << 20)[0], src)
  // A declared length beyond the limit fails before allocating.
  try {
    decodeBodyBuffers(desc([[0, 8 + payload.length]], 0), body(2 ** 40), 0, decoder, 1 << 20)
    assert.unreachable()
  } catch (e) {
    assert.is((e as CodecError).code, 'LIMIT_EXCEEDED')
  }
})

test('buffer regions outside the body are INVALID_DATA', () => {
  try {
    decodeBodyBuffers(desc([[0, 16]], -1), new Uint8Array(8), 100, null, 1 << 20)
    assert.unreachable()
  } catch (e) {
    assert.is((e as CodecError).code, 'INVALID_DATA')
    assert.is((e as CodecError).offset, 100)
  }
})

test('bad encode options throw INVALID_OPTION', () => {
  assert.throws(() => arrowEncode({ compression: 'gzip' as never }), (e: unknown) => (e as CodecError).code === 'INVALID_OPTION')
  assert.throws(() => arrowEncode({ compression: 'zstd', level: 99 }), (e: unknown) => (e as CodecError).code === 'INVALID_OPTION')
})

test('one batch of 1M rows, int32 + utf8, both codecs', async () => {
  const n = 1_000_000
  const ints = new Int32Array(n).map((_, i) => i * 7)
  const strs = Array.from({ length: n }, (_, i) => `s${i % 1000}`)
  const table = new Table({ i: vectorFromArray(ints), s: vectorFromArray(strs, new Utf8()) })
  for (const compression of ['lz4', 'zstd'] as const) {
    const stream = await encodeStream([table], { compression })
    const back = await readArrow(stream)
    assert.is(back.numRows, n)
    assert.is(back.getChildAt(1)!.get(999_999), strs[999_999])
    assert.is(back.getChildAt(0)!.get(123_456), ints[123_456])
  }
})

test.run()
