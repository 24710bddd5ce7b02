// The Thrift compact reader, and hostile footers: truncations at every length, bad
// lengths, list sizes of 2^31 - 1, deep nesting, missing required fields, random
// corruption. Every failure must be a CodecError with the right code, never a raw
// TypeError/RangeError or a hang, and nothing may be allocated from a hostile size.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError, type Failure } from '../lib/errors.js'
import { Status } from '../lib/status.js'
import {
  CompactType,
  ThriftCursor,
  decodeFileMetaData,
  parquetMetadataSync,
  readI32,
  readI64,
  readListHeader,
  readVarint32,
  skip,
  walkThrift,
} from '../lib/parquet/index.js'
import { fixture } from './_fixtures.js'

// ---- a minimal compact protocol writer, to craft footers by hand
class Writer {
  bytes: number[] = []
  last: number[] = [0]
  varint(n: number | bigint): this {
    let v = BigInt(n)
    do {
      let b = Number(v & 0x7fn)
      v >>= 7n
      if (v > 0n) b |= 0x80
      this.bytes.push(b)
    } while (v > 0n)
    return this
  }
  zigzag(n: number | bigint): this {
    const v = BigInt(n)
    return this.varint(v >= 0n ? v << 1n : (-v << 1n) - 1n)
  }
  field(id: number, type: number): this {
    const delta = id - this.last[this.last.length - 1]!
    if (delta > 0 && delta <= 15) this.bytes.push((delta << 4) | type)
    else {
      this.bytes.push(type)
      this.zigzag(id)
    }
    this.last[this.last.length - 1] = id
    return this
  }
  begin(): this {
    this.last.push(0)
    return this
  }
  stop(): this {
    this.bytes.push(0)
    this.last.pop()
    return this
  }
  list(size: number, type: number): this {
    if (size < 15) this.bytes.push((size << 4) | type)
    else {
      this.bytes.push(0xf0 | type)
      this.varint(size)
    }
    return this
  }
  string(s: string): this {
    const b = new TextEncoder().encode(s)
    this.varint(b.length)
    this.bytes.push(...b)
    return this
  }
  done(): Uint8Array {
    return new Uint8Array(this.bytes)
  }
}
const { I32, I64, BINARY, LIST, STRUCT } = CompactType

/** A small valid FileMetaData: root + one INT32 leaf, one row group, one chunk. */
function tinyFooter(
  options: { omitNumRows?: boolean; extra?: (w: Writer) => void; statistics?: (w: Writer) => void } = {},
): Uint8Array {
  const w = new Writer()
  w.field(1, I32).zigzag(2)
  w.field(2, LIST).list(2, STRUCT)
  w.begin().field(4, BINARY).string('root').field(5, I32).zigzag(1).stop()
  w.begin().field(1, I32).zigzag(1).field(3, I32).zigzag(0).field(4, BINARY).string('a').stop()
  if (!options.omitNumRows) w.field(3, I64).zigzag(10)
  w.field(4, LIST).list(1, STRUCT)
  w.begin()
  w.field(1, LIST).list(1, STRUCT)
  w.begin().field(2, I64).zigzag(0).field(3, STRUCT).begin()
  w.field(1, I32).zigzag(1)
  w.field(2, LIST).list(1, I32).zigzag(0)
  w.field(3, LIST).list(1, BINARY).string('a')
  w.field(4, I32).zigzag(0)
  w.field(5, I64).zigzag(10).field(6, I64).zigzag(60).field(7, I64).zigzag(60)
  w.field(9, I64).zigzag(4)
  if (options.statistics) {
    w.field(12, STRUCT).begin()
    options.statistics(w)
    w.stop()
  }
  w.stop().stop()
  w.field(2, I64).zigzag(60).field(3, I64).zigzag(10)
  w.stop()
  options.extra?.(w)
  w.stop()
  return w.done()
}

function fileOf(footer: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + footer.length + 8)
  out.set([0x50, 0x41, 0x52, 0x31])
  out.set(footer, 4)
  new DataView(out.buffer).setUint32(4 + footer.length, footer.length, true)
  out.set([0x50, 0x41, 0x52, 0x31], out.length - 4)
  return out
}

function codecError(fn: () => unknown): CodecError {
  try {
    fn()
  } catch (error) {
    if (error instanceof CodecError) return error
    throw new Error(`expected a CodecError, got ${String(error)}`, { cause: error })
  }
  throw new Error('expected a CodecError, got a result')
}

// ---- reader primitives

test('varints: one-byte case, 5-byte maximum, over-long and truncated input', () => {
  assert.is(readVarint32(new ThriftCursor(new Uint8Array([0x7f]))), 127)
  assert.is(readVarint32(new ThriftCursor(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f]))), 0xffffffff)
  assert.is(codecError(() => readVarint32(new ThriftCursor(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x1f])))).code, 'INVALID_DATA')
  const t = codecError(() => readVarint32(new ThriftCursor(new Uint8Array([0x80, 0x80]))))
  assert.is(t.code, 'TRUNCATED')
  assert.is(t.offset, 0)
  assert.is(codecError(() => readVarint32(new ThriftCursor(new Uint8Array(0)))).code, 'TRUNCATED')
})

test('zigzag i32 and i64: number when safe, bigint beyond 2^53', () => {
  const cases: [bigint, number | bigint][] = [
    [0n, 0],
    [-1n, -1],
    [1n, 1],
    [-2147483648n, -2147483648],
    [2147483647n, 2147483647],
  ]
  for (const [v, expected] of cases) {
    assert.is(readI32(new ThriftCursor(new Writer().zigzag(v).done())), expected)
  }
  const wide: [bigint, number | bigint][] = [
    [0n, 0],
    [-1n, -1],
    [300n, 300],
    [2n ** 40n, 2 ** 40],
    [-(2n ** 47n), -(2 ** 47)],
    [2n ** 48n + 5n, 2 ** 48 + 5],
    [2n ** 53n - 1n, 2 ** 53 - 1],
    [-(2n ** 53n) + 1n, -(2 ** 53) + 1],
    [2n ** 53n, 2n ** 53n],
    [2n ** 63n - 1n, 2n ** 63n - 1n],
    [-(2n ** 63n), -(2n ** 63n)],
  ]
  for (const [v, expected] of wide) {
    const c = new ThriftCursor(new Writer().zigzag(v).done())
    assert.is(readI64(c), expected, String(v))
    assert.is(c.offset, c.bytes.length)
  }
  const long = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
  assert.is(codecError(() => readI64(new ThriftCursor(long))).code, 'INVALID_DATA')
})

test('list headers: hostile sizes fail before any allocation', () => {
  // 2^31 - 1 structs promised, 3 bytes present
  const huge = new Writer().list(0x7fffffff, STRUCT).done()
  const e = codecError(() => readListHeader(new ThriftCursor(new Uint8Array([...huge, 0, 0, 0]))))
  assert.is(e.code, 'TRUNCATED')
  assert.match(e.message, /2147483647/)
  // 2^32 - 1 is negative as an i32: never valid
  const negative = new Writer().list(0xffffffff, I32).done()
  assert.is(codecError(() => readListHeader(new ThriftCursor(negative))).code, 'INVALID_DATA')
})

test('skip: nesting deeper than the cap is LIMIT_EXCEEDED, not a stack overflow', () => {
  // an unknown field (id 100) of a list of lists of lists ... 100,000 deep
  const depth = 100000
  const nested = new Uint8Array(depth + 4)
  nested.fill(0x19) // list of 1 element of type LIST
  const e = codecError(() => skip(new ThriftCursor(nested), LIST))
  assert.is(e.code, 'LIMIT_EXCEEDED')
  // structs nested through field headers: 0x1c = field +1 of type STRUCT
  const structs = new Uint8Array(depth).fill(0x1c)
  assert.is(codecError(() => skip(new ThriftCursor(structs), STRUCT)).code, 'LIMIT_EXCEEDED')
  // the same inside a real footer, as an unknown FileMetaData field
  const footer = tinyFooter({
    extra: (w) => {
      w.field(100, STRUCT)
      for (let i = 0; i < depth; i++) w.bytes.push(0x1c)
    },
  })
  assert.is(codecError(() => decodeFileMetaData(footer)).code, 'LIMIT_EXCEEDED')
  assert.is(walkThrift(footer), Status.InvalidData)
})

test('walkThrift: Done on a whole struct, NeedMoreData on a cut one, InvalidData on garbage', () => {
  const footer = tinyFooter()
  assert.is(walkThrift(footer), Status.Done)
  const failure = { value: null as unknown }
  assert.is(walkThrift(footer.subarray(0, footer.length - 3), 0, failure as any), Status.NeedMoreData)
  assert.ok(failure.value)
  assert.is(walkThrift(new Uint8Array([0x1e])), Status.InvalidData) // type 14 does not exist
})

// ---- crafted footers

test('a hand-made footer decodes; unknown fields are skipped', () => {
  const m = decodeFileMetaData(
    tinyFooter({
      extra: (w) => {
        w.field(42, BINARY).string('from the future')
        w.field(43, LIST).list(2, STRUCT).begin().field(1, I32).zigzag(5).stop().begin().stop()
      },
    }),
  )
  assert.is(m.num_rows, 10)
  assert.equal(m.schema.map((s) => s.name), ['root', 'a'])
  assert.equal(m.row_groups[0]!.columns[0]!.meta_data!.path_in_schema, ['a'])
  assert.equal(m.row_groups[0]!.columns[0]!.meta_data!.encodings, ['PLAIN'])
})

test('statistics: decoded on first read, same values; bad bytes fail the decode, not the read', () => {
  const footer = tinyFooter({
    statistics: (w) => {
      w.field(1, BINARY).string('zz').field(2, BINARY).string('aa').field(3, I64).zigzag(2)
      w.field(5, BINARY).string('zz').field(6, BINARY).string('ab')
      w.field(7, 1) // is_max_value_exact: true
      w.field(8, 2) // is_min_value_exact: false
      w.field(30, BINARY).string('unknown field, skipped')
    },
  })
  const m = decodeFileMetaData(footer)
  const stats = m.row_groups[0]!.columns[0]!.meta_data!.statistics!
  const text = (v: Uint8Array | undefined) => (v ? new TextDecoder().decode(v) : v)
  assert.is(text(stats.max), 'zz')
  assert.is(text(stats.min), 'aa')
  assert.is(stats.null_count, 2)
  assert.is(stats.distinct_count, undefined)
  assert.is(text(stats.max_value), 'zz')
  assert.is(stats.max, stats.max_value, 'equal deprecated and current bytes share one view')
  assert.is(text(stats.min_value), 'ab')
  assert.is(stats.is_max_value_exact, true)
  assert.is(stats.is_min_value_exact, false)
  assert.is(stats.nan_count, undefined)
  // plain-object forms
  const plainStats = JSON.parse(JSON.stringify(stats))
  assert.equal(Object.keys(plainStats).sort(), ['is_max_value_exact', 'is_min_value_exact', 'max', 'max_value', 'min', 'min_value', 'null_count'])
  assert.equal(Object.keys((stats as unknown as { toJSON(): object }).toJSON()).length, 9)
  stats.null_count = 7
  assert.is(stats.null_count, 7)
  assert.is(decodeFileMetaData(footer, { statistics: false }).row_groups[0]!.columns[0]!.meta_data!.statistics, undefined)
  // A long-form field header whose id does not fit in 32 bits: the field readers reject
  // it, so the walk over the (lazily decoded) statistics must reject it at decode time.
  const bad = tinyFooter({
    statistics: (w) => {
      w.bytes.push(0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01) // BINARY, id varint of 6 bytes
      w.string('x')
    },
  })
  const e = codecError(() => decodeFileMetaData(bad))
  assert.is(e.code, 'INVALID_DATA')
  assert.match(e.message, /varint does not fit in 32 bits/)
  // truncated inside the statistics: TRUNCATED at decode time
  const cut = footer.subarray(0, footer.indexOf(0x7a) + 1) // up to the first 'z'
  assert.is(codecError(() => decodeFileMetaData(cut)).code, 'TRUNCATED')
})

/**
 * Two INT32 leaves, `a` and `b`, one row group; `b`'s chunk holds the struct written by
 * `body` as its statistics (field 12), or as another struct field of its ColumnMetaData.
 */
function twoColumnFooter(body: (w: Writer) => void, field = 12): Uint8Array {
  const w = new Writer()
  w.field(1, I32).zigzag(2)
  w.field(2, LIST).list(3, STRUCT)
  w.begin().field(4, BINARY).string('root').field(5, I32).zigzag(2).stop()
  for (const name of ['a', 'b']) w.begin().field(1, I32).zigzag(1).field(3, I32).zigzag(0).field(4, BINARY).string(name).stop()
  w.field(3, I64).zigzag(10)
  w.field(4, LIST).list(1, STRUCT)
  w.begin()
  w.field(1, LIST).list(2, STRUCT)
  for (const name of ['a', 'b']) {
    w.begin().field(2, I64).zigzag(0).field(3, STRUCT).begin()
    w.field(1, I32).zigzag(1)
    w.field(2, LIST).list(1, I32).zigzag(0)
    w.field(3, LIST).list(1, BINARY).string(name)
    w.field(4, I32).zigzag(0)
    w.field(5, I64).zigzag(10).field(6, I64).zigzag(60).field(7, I64).zigzag(60)
    w.field(9, I64).zigzag(4)
    if (name === 'b') {
      w.field(field, STRUCT).begin()
      body(w)
      w.stop()
    }
    w.stop().stop()
  }
  w.field(2, I64).zigzag(60).field(3, I64).zigzag(10)
  w.stop()
  w.stop()
  return w.done()
}

test('statistics and size statistics skipped inline: same results and errors as the general walk', () => {
  const long = (n: number) => [...Array(n - 1).fill(0xff), 0x01] // a varint of n bytes
  const cases: [string, (w: Writer) => void, number?][] = [
    ['plain statistics', (w) => w.field(1, BINARY).string('zz').field(3, I64).zigzag(2).field(7, 1).field(8, 2)],
    ['10-byte varint', (w) => w.field(3, I64).bytes.push(...long(10))],
    ['11-byte varint', (w) => w.field(3, I64).bytes.push(...long(11))],
    ['2-byte binary length', (w) => w.field(5, BINARY).string('x'.repeat(200))],
    ['3-byte binary length', (w) => w.field(5, BINARY).string('x'.repeat(20000))],
    ['binary past the end', (w) => w.field(5, BINARY).varint(1 << 20)],
    ['long-form field id', (w) => w.field(40, BINARY).string('far')],
    ['long-form id over 32 bits', (w) => w.bytes.push(0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00)],
    ['double and unknown struct', (w) => w.field(20, 7).bytes.push(0, 0, 0, 0, 0, 0, 0xf0, 0x3f) && w.field(21, STRUCT).begin().field(1, I32).zigzag(3).stop()],
    ['size statistics lists', (w) => w.field(1, I64).zigzag(4).field(3, LIST).list(2, I64).zigzag(0).zigzag(1), 16],
    ['list of 20 elements', (w) => w.field(3, LIST).list(20, I64).bytes.push(...Array(20).fill(2)), 16],
    ['list element varint of 11 bytes', (w) => w.field(3, LIST).list(2, I64).zigzag(0).bytes.push(...long(11)), 16],
    ['empty list of any type', (w) => w.field(3, LIST).list(0, 14), 16],
    ['list of structs (unknown field)', (w) => w.field(9, LIST).list(1, STRUCT).begin().stop(), 16],
    [
      'geospatial statistics (a bounding box)',
      (w) => {
        w.field(1, STRUCT).begin()
        for (let id = 1; id <= 4; id++) w.field(id, 7).bytes.push(0, 0, 0, 0, 0, 0, 0xf0, 0x3f)
        w.stop()
      },
      17,
    ],
  ]
  for (const [name, body, field] of cases) {
    const footer = twoColumnFooter(body, field)
    const failure: { value: Failure | null } = { value: null }
    const walked = walkThrift(footer, 0, failure)
    const outcomes = [undefined, { statistics: false }, { columns: ['a'] }, { columns: ['a'], statistics: false }].map((options) => {
      try {
        const m = decodeFileMetaData(footer, options)
        return JSON.stringify(m, (_, v) => (typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? Array.from(v) : v))
      } catch (error) {
        if (!(error instanceof CodecError)) throw error
        return error
      }
    })
    for (const outcome of outcomes) {
      if (walked === Status.Done) assert.type(outcome, 'string', `${name}: ${String(outcome)}`)
      else {
        assert.instance(outcome, CodecError, name)
        assert.is((outcome as CodecError).code, failure.value!.code, name)
        assert.is((outcome as CodecError).offset, failure.value!.offset, name)
      }
    }
    if (walked === Status.Done) {
      // chunks and their metadata are plain objects
      const chunk = decodeFileMetaData(footer).row_groups[0]!.columns[1]!
      for (const o of [chunk, chunk.meta_data!]) {
        assert.is(Object.getPrototypeOf(o), Object.prototype, name)
        assert.is(o.constructor, Object, name)
      }
      assert.equal(Object.keys(chunk).slice(0, 3), ['file_path', 'file_offset', 'meta_data'], name)
      // column a decodes the same whatever was skipped of b
      const a = (json: string) => JSON.parse(json).row_groups[0].columns[0]
      assert.equal(a(outcomes[2] as string), a(outcomes[0] as string), name)
      assert.equal(a(outcomes[3] as string), a(outcomes[1] as string), name)
    }
  }
  // the cases cover both outcomes
  assert.is(walkThrift(twoColumnFooter(cases[1]![1])), Status.Done)
  assert.is(walkThrift(twoColumnFooter(cases[2]![1])), Status.InvalidData)
  assert.is(walkThrift(twoColumnFooter(cases[5]![1])), Status.NeedMoreData)
})

test('key-value metadata: long values are decoded on first read, each its own, as plain data', () => {
  const long1 = 'a'.repeat(3000) + '1'
  const long2 = 'é'.repeat(1500) + '2' // multi-byte: 3001 bytes
  const footer = tinyFooter({
    extra: (w) => {
      w.field(5, LIST).list(3, STRUCT)
      w.begin().field(1, BINARY).string('one').field(2, BINARY).string(long1).stop()
      w.begin().field(1, BINARY).string('short').field(2, BINARY).string('v').stop()
      w.begin().field(1, BINARY).string('two').field(2, BINARY).string(long2).stop()
    },
  })
  const kv = decodeFileMetaData(footer).key_value_metadata!
  assert.equal(kv.map((e) => Object.keys(e)), [['key', 'value'], ['key', 'value'], ['key', 'value']])
  assert.equal(JSON.parse(JSON.stringify(kv)), [{ key: 'one', value: long1 }, { key: 'short', value: 'v' }, { key: 'two', value: long2 }])
  assert.equal({ ...kv[2]! }, { key: 'two', value: long2 })
  // once read, a plain data property
  assert.equal(Object.getOwnPropertyDescriptor(kv[0], 'value'), { value: long1, writable: true, enumerable: true, configurable: true })
  // set before any read: the set value wins, the bytes are never decoded
  const again = decodeFileMetaData(footer).key_value_metadata!
  again[0]!.value = 'replaced'
  assert.is(again[0]!.value, 'replaced')
  assert.is(again[2]!.value, long2)
  assert.is(Object.getOwnPropertyDescriptor(again[2], 'value')!.writable, true)
})

test('a missing required field is named with its struct', () => {
  const e = codecError(() => decodeFileMetaData(tinyFooter({ omitNumRows: true })))
  assert.is(e.code, 'INVALID_DATA')
  assert.match(e.message, /FileMetaData\.num_rows is required but missing/)
  const schemaOnly = new Writer()
  schemaOnly.field(1, I32).zigzag(1).field(2, LIST).list(1, STRUCT).begin().field(5, I32).zigzag(0).stop()
  schemaOnly.stop()
  assert.match(codecError(() => decodeFileMetaData(schemaOnly.done())).message, /SchemaElement\.name is required/)
})

test('file trailer: bad magic, encrypted footer, length beyond the file, too small', () => {
  const file = fileOf(tinyFooter())
  assert.is(parquetMetadataSync(file).num_rows, 10)
  const bad = file.slice()
  bad[bad.length - 1] = 0x32
  assert.match(codecError(() => parquetMetadataSync(bad)).message, /not a Parquet file/)
  const pare = file.slice()
  pare[pare.length - 1] = 0x45 // PARE
  const e = codecError(() => parquetMetadataSync(pare))
  assert.is(e.code, 'UNSUPPORTED')
  assert.match(e.message, /encrypted footer not supported/)
  const long = file.slice()
  new DataView(long.buffer).setUint32(long.length - 8, 0xfffffff0, true)
  const l = codecError(() => parquetMetadataSync(long))
  assert.is(l.code, 'INVALID_DATA')
  assert.match(l.message, /footer length 4294967280 exceeds/)
  assert.is(codecError(() => parquetMetadataSync(new Uint8Array(5))).code, 'INVALID_DATA')
  assert.is(codecError(() => parquetMetadataSync(file, { maxFooterBytes: 10 })).code, 'LIMIT_EXCEEDED')
})

test('row groups before the schema (Thrift field order is free): selection still applies', () => {
  // fields written in the order 1, 4, 2, 3: row_groups precede the schema
  const w = new Writer()
  w.field(1, I32).zigzag(1)
  w.field(4, LIST).list(1, STRUCT).begin()
  w.field(1, LIST).list(2, STRUCT)
  for (const name of ['x.y', 'z']) {
    w.begin().field(2, I64).zigzag(0).field(3, STRUCT).begin()
    w.field(1, I32).zigzag(1).field(2, LIST).list(1, I32).zigzag(0).field(3, LIST).list(1, BINARY).string(name)
    w.field(4, I32).zigzag(0).field(5, I64).zigzag(1).field(6, I64).zigzag(1).field(7, I64).zigzag(1).field(9, I64).zigzag(4)
    w.stop().stop()
  }
  w.field(2, I64).zigzag(2).field(3, I64).zigzag(1).stop()
  w.field(2, LIST).list(3, STRUCT)
  w.begin().field(4, BINARY).string('root').field(5, I32).zigzag(2).stop()
  w.begin().field(1, I32).zigzag(1).field(4, BINARY).string('x.y').stop() // a name with a dot
  w.begin().field(1, I32).zigzag(1).field(4, BINARY).string('z').stop()
  w.field(3, I64).zigzag(1)
  w.stop()
  const footer = w.done()
  assert.equal(decodeFileMetaData(footer).row_groups[0]!.columns.length, 2)
  const m = decodeFileMetaData(footer, { columns: ['z'] })
  assert.equal(m.schema.map((s) => s.name), ['root', 'z'])
  assert.is(m.schema[0]!.num_children, 1)
  assert.equal(m.row_groups[0]!.columns.map((c) => c.meta_data!.path_in_schema), [['z']])
  // dotted paths match names that contain dots
  assert.equal(decodeFileMetaData(footer, { columns: ['x.y'] }).schema.map((s) => s.name), ['root', 'x.y'])
})

// ---- real footers, mutated

const realFiles = ['alltypes_tiny_pages.parquet', 'nested_structs.rust.parquet', 'data_index_bloom_encoding_stats.parquet', 'geospatial/geospatial.parquet']
const dir = fixture('parquet-testing', 'data')

function footerOf(file: Uint8Array): Uint8Array {
  const length = new DataView(file.buffer, file.byteOffset).getUint32(file.length - 8, true)
  return file.slice(file.length - 8 - length, file.length - 8)
}

let footers: [string, Uint8Array][] = []
try {
  if (dir) footers = realFiles.map((f) => [f, footerOf(new Uint8Array(readFileSync(join(dir, f))))])
} catch {
  footers = []
}

if (footers.length === 0) {
  console.log('# skipped: parquet-testing fixtures not found, real-footer mutations not run')
  test.skip('real footers: truncation at every length', () => {})
  test.skip('real footers: hostile list sizes and lengths', () => {})
  test.skip('real footers: random corruption', () => {})
} else {
  test('real footers: truncation at every length is TRUNCATED', () => {
    for (const [name, footer] of footers) {
      // every length for small footers, ~300 spread over the larger ones
      const step = Math.max(1, Math.floor(footer.length / 300))
      for (let n = 0; n < footer.length; n += step) {
        const e = codecError(() => decodeFileMetaData(footer.subarray(0, n)))
        assert.is(e.code, 'TRUNCATED', `${name} cut at ${n}: ${e.message}`)
        assert.ok(e.offset >= 0 && e.offset <= n, `${name} cut at ${n}: offset ${e.offset}`)
        // and through a whole file whose trailer claims the cut footer
        assert.is(codecError(() => parquetMetadataSync(fileOf(footer.subarray(0, n)))).code, 'TRUNCATED')
      }
      assert.ok(decodeFileMetaData(footer).schema.length > 1)
    }
  })

  test('real footers: hostile list sizes and lengths', () => {
    for (const [name, footer] of footers) {
      // Replace every list header (byte 0xF?, long form) and every short-form list
      // header we can find with a size of 2^31 - 1 of the same element type, and every
      // one-byte binary length with 127: the decode must fail cleanly (or, where the
      // byte was not a header at all, still end in a result or a CodecError).
      let failures = 0
      let tried = 0
      // ~300 candidate positions per footer, spread over it
      const step = Math.max(1, Math.floor(footer.length / 1500))
      for (let i = 0; i < footer.length && tried < 300; i += step) {
        const b = footer[i]!
        const type = b & 0x0f
        if (b >> 4 === 0 || (type !== STRUCT && type !== BINARY && type !== I32)) continue
        tried++
        const mutated = new Uint8Array([...footer.subarray(0, i), 0xf0 | type, 0xff, 0xff, 0xff, 0xff, 0x07, ...footer.subarray(i + 1)])
        try {
          decodeFileMetaData(mutated)
        } catch (error) {
          assert.instance(error, CodecError, `${name} at ${i}: ${String(error)}`)
          failures++
        }
      }
      assert.ok(failures > 0, `${name}: some mutations must fail`)
    }
  })

  test('real footers: random corruption gives a result or a CodecError', () => {
    let seed = 12345
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed / 2 ** 32
    }
    let errors = 0
    let results = 0
    for (const [name, footer] of footers) {
      for (let round = 0; round < 250; round++) {
        const mutated = footer.slice()
        const flips = 1 + Math.floor(random() * 4)
        for (let k = 0; k < flips; k++) mutated[Math.floor(random() * mutated.length)] = Math.floor(random() * 256)
        try {
          decodeFileMetaData(mutated)
          parquetMetadataSync(fileOf(mutated), { columns: undefined, statistics: false })
          results++
        } catch (error) {
          if (!(error instanceof CodecError)) {
            throw new Error(`${name} round ${round}: ${String(error)}`, { cause: error })
          }
          errors++
        }
      }
    }
    assert.ok(errors > 0 && results > 0, `${errors} errors, ${results} results`)
  })
}

test.run()
