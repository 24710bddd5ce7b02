// The two validation levels of the Arrow IPC reader (adapters/arrow/load.ts): the
// default O(1)-per-buffer checks accept a message whose values are structurally wrong
// (the batch reads without crashing, some values are wrong), `validate: 'full'` rejects
// it with a CodecError at the offset of the bad value.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  Dictionary, Vector, Field, Int16, Int32, Int64, Int8, List, Uint16, Uint32, Uint64, Uint8, makeData, RecordBatch, Schema, Struct, Table, tableToIPC, Utf8, Utf8View, vectorFromArray,
} from 'apache-arrow'
import { CodecError } from '../lib/errors.js'
import { HeaderTag, readMessage, type MessageDesc } from '../lib/arrow/metadata.js'
import * as kernels from '../lib/arrow/validate.js'
import { arrowDecode, arrowEncode, fromBuffer, readArrow } from '../adapters/arrow/index.js'
import { collect, normalize } from './arrow-oracle.js'
import { concatBytes } from './_bytes.js'

/** The messages of an IPC stream with the absolute start of each body. */
function messages(bytes: Uint8Array): { message: MessageDesc; body: number }[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out: { message: MessageDesc; body: number }[] = []
  let at = 0
  while (at + 8 <= bytes.length) {
    const len = view.getInt32(at + 4, true)
    if (len === 0) break
    const message = readMessage(bytes.subarray(at + 8, at + 8 + len), at + 8)
    const body = at + 8 + len
    out.push({ message, body })
    at = body + message.bodyLength
  }
  return out
}

/** Absolute start of buffer `i` of the `n`-th record batch (or dictionary batch) message. */
function bufferAt(bytes: Uint8Array, kind: number, i: number): number {
  const m = messages(bytes).find((x) => x.message.headerType === kind)!
  return m.body + m.message.batch!.bufferOffsets[i]!
}

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p
    return null
  } catch (e) {
    return e
  }
}

/** Every value of every column, read through apache-arrow's getters. */
function values(t: Table): unknown {
  return t.batches.map((b) => b.schema.fields.map((_, c) => Array.from({ length: b.numRows }, (_, i) => normalize(b.getChildAt(c)!.get(i)))))
}

/** Reads `bad` both ways: the default level must give a table, 'full' this CodecError. */
async function bothLevels(bad: Uint8Array, offset: number, message: RegExp): Promise<Table> {
  const loose = await readArrow(bad)
  values(loose) // readable to the last value
  for (const read of [
    () => readArrow(bad, { validate: 'full' }),
    () => collect(fromBuffer(bad).pipeThrough(arrowDecode({ validate: 'full' }))),
    () => collect(new ReadableStream<Uint8Array>({ start(c) { c.enqueue(bad.slice()); c.close() } }).pipeThrough(arrowDecode({ validate: 'full' }))),
  ]) {
    const e = await errorOf(read())
    assert.ok(e instanceof CodecError, String(e))
    assert.is(e.code, 'INVALID_DATA')
    assert.is(e.offset, offset)
    assert.match(e.message, message)
  }
  // The intact bytes pass both levels: the error is the corruption's, not the level's.
  return loose
}

test('validate: full rejects non-monotonic utf8 offsets; the default reads them', async () => {
  const table = new Table({ s: vectorFromArray(['aa', 'bb', 'cc', 'dd'], new Utf8()) })
  const good = tableToIPC(table, 'stream')
  assert.equal(values(await readArrow(good, { validate: 'full' })), values(table))
  const bad = good.slice()
  // Buffers: validity, offsets [0, 2, 4, 6, 8], data. Offset 2 becomes 1.
  const offsets = bufferAt(bad, HeaderTag.RecordBatch, 1)
  new DataView(bad.buffer).setInt32(offsets + 8, 1, true)
  const loose = await bothLevels(bad, offsets + 8, /offset 2 \(1\) is below offset 1 \(2\)/)
  // What the default gives: apache-arrow slices values(2, 1), an empty string.
  assert.is(loose.getChildAt(0)!.get(1), '')
})

test('validate: full rejects non-monotonic list offsets; the default reads them', async () => {
  const table = new Table({ l: vectorFromArray([[1, 2], [3], [4, 5, 6]], new List(new Field('item', new Int32(), true))) })
  const bad = tableToIPC(table, 'stream').slice()
  // Buffers: validity, offsets [0, 2, 3, 6], child validity, child values.
  const offsets = bufferAt(bad, HeaderTag.RecordBatch, 1)
  new DataView(bad.buffer).setInt32(offsets + 4, 5, true)
  await bothLevels(bad, offsets + 8, /offset 2 \(3\) is below offset 1 \(5\)/)
})

test('validate: a first offset above the last, or a last past the data, fails at both levels', async () => {
  const table = new Table({ s: vectorFromArray(['aa', 'bb'], new Utf8()) })
  const good = tableToIPC(table, 'stream')
  const offsets = bufferAt(good, HeaderTag.RecordBatch, 1)
  for (const [slot, value, what] of [[0, 5, /last offset 4 is below the first \(5\)/], [2, 99, /last offset 99 exceeds the \d+ values available/]] as const) {
    const bad = good.slice()
    new DataView(bad.buffer).setInt32(offsets + 4 * slot, value, true)
    for (const validate of ['default', 'full'] as const) {
      const e = await errorOf(readArrow(bad, { validate }))
      assert.ok(e instanceof CodecError && e.code === 'INVALID_DATA', String(e))
      assert.match(e.message, what)
    }
  }
})

test('validate: full rejects an out-of-range dictionary index; the default reads null for it', async () => {
  {
    const table = new Table({ d: vectorFromArray(['x', 'y', 'z', 'y', null], new Dictionary(new Utf8(), new Int32())) })
    const good = tableToIPC(table, 'stream')
    const bad = good.slice()
    // Record batch buffers: validity, indices. Index 3 (of 3 values) becomes 7.
    const indices = bufferAt(bad, HeaderTag.RecordBatch, 1)
    new DataView(bad.buffer).setInt32(indices + 12, 7, true)
    const loose = await bothLevels(bad, indices + 12, /index 7 at 3 is outside its dictionary of 3 values/)
    assert.is(loose.getChildAt(0)!.get(3), null)
    // A null slot may hold any index: 'full' ignores it.
    const nullSlot = good.slice()
    new DataView(nullSlot.buffer).setInt32(indices + 16, -9, true)
    assert.equal(values(await readArrow(nullSlot, { validate: 'full' })), values(table))
  }
})

test('validate: full checks every index width', async () => {
  for (const width of [8, 16, 32, 64] as const) {
    for (const signed of [true, false]) {
      // Built by hand: apache-arrow's builders cannot make 64-bit indices.
      const indexType = intType(signed, width)
      const type = new Dictionary(new Utf8(), indexType as never)
      const Ctor = indexType.ArrayType as unknown as { from(xs: unknown[]): ArrayBufferView }
      const data = Ctor.from([0, 1, 0, 1, 0].map((x) => (width === 64 ? BigInt(x) : x)))
      const column = makeData({ type, length: 5, nullCount: 0, data, dictionary: vectorFromArray(['p', 'q'], new Utf8()) } as never)
      const t = new Table({ d: new Vector([column]) })
      const good = tableToIPC(t, 'stream')
      // apache-arrow's getters cannot look up 64-bit indices (they mix BigInt and number).
      const back = await readArrow(good, { validate: 'full' })
      if (width < 64) assert.equal(values(back), values(t))
      const bad = good.slice()
      const indices = bufferAt(bad, HeaderTag.RecordBatch, 1)
      // Index 4 becomes 2 (of 2 values), or its top byte set (negative when signed).
      const at = indices + 4 * (width >> 3)
      bad[at] = 2
      const e = await errorOf(readArrow(bad, { validate: 'full' }))
      assert.ok(e instanceof CodecError && e.offset === at, `${signed ? 'int' : 'uint'}${width}: ${String(e)}`)
      const high = good.slice()
      high[at + (width >> 3) - 1] = 0x80
      const h = await errorOf(readArrow(high, { validate: 'full' }))
      assert.ok(h instanceof CodecError && h.offset === at, `${signed ? 'int' : 'uint'}${width} high byte: ${String(h)}`)
      assert.is((await readArrow(high)).numRows, 5)
    }
  }
})

test('index kernels: every width, signed and unsigned, finds exactly the values outside [0, size)', () => {
  // The definition, element by element; the kernels run one typed-array class each.
  const first = (a: ArrayLike<number>, from: number, n: number, size: number): number => {
    for (let i = from; i < n; i++) if (!(a[i]! >= 0 && a[i]! < size)) return i
    return -1
  }
  const widths = [
    { name: 'int8', make: (n: number) => new Int8Array(n), low: -128, span: 256, fit: kernels.indicesFit8, outside: kernels.indexOutside8 },
    { name: 'uint8', make: (n: number) => new Uint8Array(n), low: 0, span: 256, fit: kernels.indicesFitU8, outside: kernels.indexOutsideU8 },
    { name: 'int16', make: (n: number) => new Int16Array(n), low: -32768, span: 65536, fit: kernels.indicesFit16, outside: kernels.indexOutside16 },
    { name: 'uint16', make: (n: number) => new Uint16Array(n), low: 0, span: 65536, fit: kernels.indicesFitU16, outside: kernels.indexOutsideU16 },
    { name: 'int32', make: (n: number) => new Int32Array(n), low: -(2 ** 31), span: 2 ** 32, fit: kernels.indicesFit32, outside: kernels.indexOutside32 },
  ] as const
  let seed = 0x5eed
  const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  let hits = 0
  for (const w of widths) {
    for (let round = 0; round < 4000; round++) {
      const n = Math.floor(random() * 13)
      const a = w.make(n) as Int32Array
      // Mostly small values, so that some arrays fit; now and then any value of the type.
      for (let i = 0; i < n; i++) a[i] = random() < 0.8 ? Math.floor(random() * 300) : w.low + Math.floor(random() * w.span)
      const sizes = [0, 1, 2, 127, 128, 255, 256, 299, 300, 32767, 32768, 65535, 65536, 2 ** 31 - 1, 2 ** 31]
      const size = sizes[Math.floor(random() * sizes.length)]!
      const want = first(a, 0, n, size)
      const what = `${w.name} [${Array.from(a).join(', ')}] size ${size}`
      // The one-pass check is exact up to size 2^31; the scan finds the first value outside, from any start.
      assert.is(w.fit(a as never, n, size), want < 0, `fit: ${what}`)
      const from = Math.floor(random() * (n + 1))
      assert.is(w.outside(a as never, from, n, size), first(a, from, n, size), `outside from ${from}: ${what}`)
      if (want >= 0) hits++
    }
  }
  assert.ok(hits > 5000, `${hits} arrays with a value outside`)
})

function intType(signed: boolean, width: 8 | 16 | 32 | 64): Int8 | Int16 | Int32 | Int64 | Uint8 | Uint16 | Uint32 | Uint64 {
  const types = signed ? [new Int8(), new Int16(), new Int32(), new Int64()] : [new Uint8(), new Uint16(), new Uint32(), new Uint64()]
  return types[Math.log2(width) - 3]!
}

/** A Utf8View column of one batch, written by our writer: views into one variadic buffer. */
async function viewStream(strings: string[]): Promise<Uint8Array> {
  const enc = new TextEncoder()
  const data = enc.encode(strings.join(''))
  const views = new Uint8Array(16 * strings.length)
  const dv = new DataView(views.buffer)
  let at = 0
  strings.forEach((s, i) => {
    const b = enc.encode(s)
    dv.setInt32(16 * i, b.length, true)
    if (b.length <= 12) views.set(b, 16 * i + 4)
    else {
      views.set(b.subarray(0, 4), 16 * i + 4)
      dv.setInt32(16 * i + 8, 0, true)
      dv.setInt32(16 * i + 12, at, true)
    }
    at += b.length
  })
  const type = new Utf8View()
  const column = makeData({ type, length: strings.length, nullCount: 0, views, variadicBuffers: [data] } as never)
  const schema = new Schema([new Field('v', type, false)])
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: strings.length, nullCount: 0, children: [column] }))
  const source = new ReadableStream<RecordBatch>({ start(c) { c.enqueue(batch); c.close() } })
  return concatBytes(await collect(source.pipeThrough(arrowEncode())))
}

test('validate: full rejects a view past its variadic buffer; the default reads what is there', async () => {
  const strings = ['short', 'a string longer than twelve', 'another long string value']
  const good = await viewStream(strings)
  const t = await readArrow(good, { validate: 'full' })
  assert.equal(t.getChildAt(0)!.toArray(), strings)
  // Buffers: validity, views, variadic data. View 2's offset moves past the data.
  const views = bufferAt(good, HeaderTag.RecordBatch, 1)
  for (const [word, value] of [[3, 40], [2, 1], [2, -1], [0, -3]] as const) {
    const bad = good.slice()
    new DataView(bad.buffer).setInt32(views + 32 + 4 * word, value, true)
    const e = await errorOf(readArrow(bad, { validate: 'full' }))
    assert.ok(e instanceof CodecError && e.code === 'INVALID_DATA' && e.offset === views + 32, `word ${word} = ${value}: ${String(e)}`)
    assert.match(e.message, /view 2 points to/)
    const loose = await readArrow(bad)
    assert.is(loose.numRows, 3)
  }
  // Offset past the data: apache-arrow's getter returns the bytes that are there.
  const past = good.slice()
  new DataView(past.buffer).setInt32(views + 44, 40, true)
  assert.is((await readArrow(past)).getChildAt(0)!.get(2), 'long string value')
})

test('validate: an unknown level is INVALID_OPTION', async () => {
  const good = tableToIPC(new Table({ s: vectorFromArray(['a'], new Utf8()) }), 'stream')
  for (const read of [() => readArrow(good, { validate: 'some' as never }), async () => arrowDecode({ validate: 'strict' as never })]) {
    const e = await errorOf(read())
    assert.ok(e instanceof CodecError && e.code === 'INVALID_OPTION', String(e))
  }
})

test.run()
