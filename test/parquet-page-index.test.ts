// lib/parquet/page-index.ts: parquetPageIndex against hyparquet's readColumnIndex /
// readOffsetIndex, field by field, on files written by hyparquet-writer with
// `columnIndex: true` and on the parquet-testing files that carry page indexes; the
// number of range reads; hostile offsets, lengths and nesting.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parquetMetadata as hyparquetMetadata, readColumnIndex as theirColumnIndex, readOffsetIndex as theirOffsetIndex } from 'hyparquet'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { CodecError } from '../lib/errors.js'
import { parquetMetadataSync, parquetPageIndex, statisticsValue, type ColumnPageIndex, type FileMetaData, type RangeSource } from '../lib/parquet/index.js'
import { rejection } from './_caught.js'
import { fixture } from './_fixtures.js'

type Theirs = Awaited<ReturnType<typeof hyparquetMetadata>>

/** The leaf schema elements, in column order. */
function leaves(meta: Theirs) {
  return meta.schema.filter((e) => !e.num_children)
}

const big = (v: unknown): unknown => (typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v)

/** Compares our page index of a file with hyparquet's; returns how many min/max values were compared by value. */
async function compare(file: Uint8Array, ours: ColumnPageIndex[]): Promise<number> {
  const ab = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer
  const meta = await hyparquetMetadata(ab)
  const schema = leaves(meta)
  let compared = 0
  for (const entry of ours) {
    const chunk = meta.row_groups[entry.rowGroup]!.columns[entry.column]!
    const element = schema[entry.column]!
    if (chunk.column_index_offset !== undefined) {
      const theirs = theirColumnIndex({ view: new DataView(ab, Number(chunk.column_index_offset), chunk.column_index_length!), offset: 0 }, element)
      const ci = entry.columnIndex!
      assert.ok(ci, `${entry.path}: column index`)
      assert.equal(ci.null_pages, theirs.null_pages, `${entry.path}: null_pages`)
      assert.is(ci.boundary_order, theirs.boundary_order, `${entry.path}: boundary_order`)
      assert.equal(ci.null_counts?.map(big), theirs.null_counts?.map(big), `${entry.path}: null_counts`)
      assert.equal(ci.repetition_level_histograms?.map(big), theirs.repetition_level_histograms?.map(big))
      assert.equal(ci.definition_level_histograms?.map(big), theirs.definition_level_histograms?.map(big))
      assert.is(ci.min_values.length, theirs.min_values.length)
      for (const [mine, their] of [[ci.min_values, theirs.min_values], [ci.max_values, theirs.max_values]] as const) {
        for (let p = 0; p < mine.length; p++) {
          const t = their[p]
          const v = statisticsValue(mine[p], element as never)
          // hyparquet turns logical types into objects (Date, decimals); compare the primitives.
          if (t === undefined || t === null || typeof t === 'object') continue
          if (v instanceof Uint8Array) {
            // hyparquet reads un-annotated BYTE_ARRAY as UTF-8 and FLOAT16 as a number;
            // statisticsValue leaves both as bytes.
            if (typeof t !== 'string') continue
            assert.is(new TextDecoder().decode(v), t, `${entry.path} page ${p}`)
            compared++
            continue
          }
          if (typeof t === 'bigint') assert.is(big(v), t, `${entry.path} page ${p}`)
          else if (typeof t === 'number' && Number.isNaN(t)) assert.ok(Number.isNaN(v as number))
          else assert.is(v, t, `${entry.path} page ${p}`)
          compared++
        }
      }
    } else assert.is(entry.columnIndex, undefined)
    if (chunk.offset_index_offset !== undefined) {
      const theirs = theirOffsetIndex({ view: new DataView(ab, Number(chunk.offset_index_offset), chunk.offset_index_length!), offset: 0 })
      const oi = entry.offsetIndex!
      assert.is(oi.page_locations.length, theirs.page_locations.length)
      oi.page_locations.forEach((l, p) => {
        const t = theirs.page_locations[p]!
        assert.is(big(l.offset), big(t.offset))
        assert.is(l.compressed_page_size, t.compressed_page_size)
        assert.is(big(l.first_row_index), big(t.first_row_index))
      })
      assert.equal(oi.unencoded_byte_array_data_bytes?.map(big), theirs.unencoded_byte_array_data_bytes?.map(big))
    } else assert.is(entry.offsetIndex, undefined)
  }
  return compared
}

/** A range source over `file` that counts its reads. */
function counting(file: Uint8Array): RangeSource & { reads: Array<[number, number]> } {
  const reads: Array<[number, number]> = []
  return { size: file.length, reads, read: async (offset, length) => (reads.push([offset, length]), file.slice(offset, offset + length)) }
}

function written(): Uint8Array {
  const n = 5000
  const ab = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: Int32Array.from({ length: n }, (_, i) => i), type: 'INT32', columnIndex: true },
      { name: 'name', data: Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : `name-${String(i).padStart(5, '0')}`)), type: 'STRING', columnIndex: true },
      { name: 'score', data: Float64Array.from({ length: n }, (_, i) => Math.cos(i)), type: 'DOUBLE', columnIndex: true },
      { name: 'big', data: Array.from({ length: n }, (_, i) => BigInt(i) * 3_000_000_000n), type: 'INT64', columnIndex: true },
      { name: 'plain', data: Int32Array.from({ length: n }, (_, i) => n - i), type: 'INT32' },
    ],
    rowGroupSize: 2000,
    pageSize: 4096,
  })
  return new Uint8Array(ab)
}

test('hyparquet-writer file (columnIndex: true): field by field as hyparquet, in one range read', async () => {
  const file = written()
  const meta = parquetMetadataSync(file)
  const source = counting(file)
  const ours = await parquetPageIndex(source, meta)
  assert.is(ours.length, meta.row_groups.length * 5)
  assert.ok(ours.some((e) => e.columnIndex && e.columnIndex.null_pages.length > 1), 'several pages per chunk')
  const compared = await compare(file, ours)
  assert.ok(compared > 50, `${compared} values compared`)
  // hyparquet-writer writes every index in one run before the footer: one read.
  assert.is(source.reads.length, 1, JSON.stringify(source.reads))
  // The same from memory, a Blob, and selectively.
  assert.equal(await parquetPageIndex(file, meta), ours)
  assert.equal(await parquetPageIndex(new Blob([file as Uint8Array<ArrayBuffer>]), meta), ours)
  const some = await parquetPageIndex(file, meta, { rowGroups: [1], columns: ['name', 0], offsetIndex: false })
  assert.equal(some.map((e) => [e.rowGroup, e.column, e.offsetIndex]), [[1, 0, undefined], [1, 1, undefined]])
  assert.equal(some[1]!.columnIndex, ours.find((e) => e.rowGroup === 1 && e.column === 1)!.columnIndex)
  // The 'plain' column has an offset index and no column index.
  const plain = ours.find((e) => e.path === 'plain')!
  assert.is(plain.columnIndex, undefined)
  assert.ok(plain.offsetIndex!.page_locations.length >= 1)
  // Decoded values read as the data: the first page of 'id' starts at 0.
  const id = ours.find((e) => e.path === 'id' && e.rowGroup === 0)!.columnIndex!
  assert.is(statisticsValue(id.min_values[0], { type: 'INT32', converted_type: undefined, logical_type: undefined }), 0)
  assert.is(id.boundary_order, 'ASCENDING')
})

const dataDir = fixture('parquet-testing', 'data')
const fixtureFiles = dataDir && existsSync(dataDir) ? readdirSync(dataDir).filter((f) => f.endsWith('.parquet')).sort() : []
if (fixtureFiles.length === 0) console.log('# skipped: parquet-testing fixtures not found')
let withIndexes = 0
for (const name of fixtureFiles) {
  const file = new Uint8Array(readFileSync(join(dataDir!, name)))
  let meta: FileMetaData
  try {
    meta = parquetMetadataSync(file)
  } catch {
    continue
  }
  if (!meta.row_groups.some((rg) => rg.columns.some((c) => c.column_index_offset !== undefined || c.offset_index_offset !== undefined))) continue
  withIndexes++
  test(`parquet-testing ${name}: field by field as hyparquet; adjacent ranges coalesce`, async () => {
    const source = counting(file)
    const ours = await parquetPageIndex(source, meta)
    await compare(file, ours)
    // Each read is a maximal run: no two reads touch.
    const reads = [...source.reads].sort((a, b) => a[0] - b[0])
    for (let i = 1; i < reads.length; i++) assert.ok(reads[i]![0] > reads[i - 1]![0] + reads[i - 1]![1], `reads ${JSON.stringify(reads)} could coalesce`)
  })
}
if (fixtureFiles.length > 0) {
  test('the fixture scan found files with page indexes', () => {
    assert.ok(withIndexes >= 20, `${withIndexes} files`) // 23 in parquet-testing 2026-11
  })
}

test('hostile: offsets and lengths past the file, structs past their length, deep nesting, disagreeing lists', async () => {
  const file = written()
  const meta = parquetMetadataSync(file)
  const chunk = meta.row_groups[0]!.columns[0]!
  const edit = (patch: Record<string, unknown>): FileMetaData => {
    const copy = structuredClone(meta) as FileMetaData
    Object.assign(copy.row_groups[0]!.columns[0]!, patch)
    return copy
  }
  const fails = async (m: FileMetaData, code: string, bytes: Uint8Array = file): Promise<void> => {
    const err = await rejection(parquetPageIndex(bytes, m, { rowGroups: [0], columns: [0] }))
    assert.ok(err instanceof CodecError, String(err))
    assert.is((err as CodecError).code, code, (err as CodecError).message)
  }
  await fails(edit({ column_index_offset: file.length - 2 }), 'INVALID_DATA')
  await fails(edit({ offset_index_length: 2 ** 40 }), 'INVALID_DATA')
  await fails(edit({ column_index_offset: -1 }), 'INVALID_DATA')
  await fails(edit({ column_index_offset: 2n ** 62n }), 'INVALID_DATA')
  await fails(edit({ column_index_length: undefined }), 'INVALID_DATA')
  // Shorter than the struct: it runs past its length.
  await fails(edit({ column_index_length: chunk.column_index_length! - 3 }), 'INVALID_DATA')
  await fails(edit({ offset_index_length: 1 }), 'INVALID_DATA')
  // Hand-made structs placed at the start of a copy of the file.
  const at = (struct: number[], m = meta) => {
    const bytes = file.slice()
    bytes.set(struct, 4)
    const copy = structuredClone(m) as FileMetaData
    Object.assign(copy.row_groups[0]!.columns[0]!, { column_index_offset: 4, column_index_length: struct.length })
    return [bytes, copy] as const
  }
  // Field 9 (unknown) holding 100 nested lists: skip() stops at MAX_DEPTH.
  const deep = [0x99, ...Array(100).fill(0x19), 0x00]
  const [b1, m1] = at(deep)
  await fails(m1, 'LIMIT_EXCEEDED', b1)
  // null_pages of 2, min_values of 1, max_values of 1, boundary_order 0.
  const disagree = [0x19, 0x21, 0x02, 0x02, 0x19, 0x18, 0x00, 0x19, 0x18, 0x00, 0x15, 0x00, 0x00]
  const [b2, m2] = at(disagree)
  await fails(m2, 'INVALID_DATA', b2)
  // Missing required boundary_order.
  const missing = [0x19, 0x11, 0x02, 0x19, 0x18, 0x00, 0x19, 0x18, 0x00, 0x00]
  const [b3, m3] = at(missing)
  await fails(m3, 'INVALID_DATA', b3)
  // A list count far beyond the bytes: refused before allocating.
  const huge = [0x19, 0xf1, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00]
  const [b4, m4] = at(huge)
  await fails(m4, 'INVALID_DATA', b4)
  // maxBytes and bad options.
  const limit = await rejection(parquetPageIndex(file, meta, { maxBytes: 10 }))
  assert.ok(limit instanceof CodecError && limit.code === 'LIMIT_EXCEEDED')
  for (const bad of [{ rowGroups: [99] }, { columns: [{}] }, { columnIndexes: true }, { offsetIndex: 'yes' }]) {
    const err = await rejection(parquetPageIndex(file, meta, bad as never))
    assert.ok(err instanceof CodecError && err.code === 'INVALID_OPTION', JSON.stringify(bad))
  }
})

test.run()
