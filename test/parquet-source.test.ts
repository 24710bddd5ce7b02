// parquetMetadata over its sources (memory, Blob, range reader: how many reads) and the
// selective options (columns, rowGroups, statistics: false) against a full decode.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError } from '../lib/errors.js'
import { parquetMetadata, parquetMetadataSync, type FileMetaData, type RangeSource } from '../lib/parquet/index.js'
import { fixture } from './_fixtures.js'
import { rejection } from './_caught.js'

const dir = fixture('parquet-testing', 'data')
function load(name: string): Uint8Array | null {
  if (!dir) return null
  try {
    return new Uint8Array(readFileSync(join(dir, name)))
  } catch {
    return null
  }
}

const nested = load('nested_structs.rust.parquet')
const alltypes = load('alltypes_tiny_pages.parquet')
const manyGroups = load('geospatial/geospatial.parquet')
const orders = load('floating_orders_nan_count.parquet')

async function rejects(promise: Promise<unknown>): Promise<CodecError> {
  const error = await rejection(promise)
  if (error instanceof CodecError) return error
  throw new Error(`expected a CodecError, got ${String(error)}`, { cause: error })
}

function counting(bytes: Uint8Array): RangeSource & { reads: [number, number][] } {
  const reads: [number, number][] = []
  return {
    size: bytes.length,
    reads,
    async read(offset, length) {
      reads.push([offset, length])
      return bytes.slice(offset, offset + length)
    },
  }
}

/** The leaf paths of a decoded schema, depth-first, as dotted strings. */
function leafPaths(m: FileMetaData): string[] {
  const out: string[] = []
  let i = 1
  const walk = (prefix: string[], count: number) => {
    for (let k = 0; k < count && i < m.schema.length; k++) {
      const e = m.schema[i++]!
      const path = [...prefix, e.name]
      if (e.num_children && e.num_children > 0) walk(path, e.num_children)
      else out.push(path.join('.'))
    }
  }
  walk([], m.schema[0]!.num_children ?? 0)
  return out
}

if (!nested || !alltypes || !manyGroups || !orders) {
  console.log('# skipped: parquet-testing fixtures not found')
  test.skip('sources and selective options', () => {})
} else {
  test('memory, ArrayBuffer, Blob and range sources give the same metadata', async () => {
    const sync = parquetMetadataSync(nested)
    const viaPromise = await parquetMetadata(nested)
    const viaBuffer = await parquetMetadata(nested.slice().buffer)
    const viaBlob = await parquetMetadata(new Blob([nested as Uint8Array<ArrayBuffer>]))
    const viaRange = await parquetMetadata(counting(nested))
    for (const m of [viaPromise, viaBuffer, viaBlob, viaRange]) {
      assert.is(m.metadata_length, sync.metadata_length)
      assert.equal(leafPaths(m), leafPaths(sync))
      assert.equal(m.row_groups[0]!.columns.map((c) => c.meta_data!.data_page_offset), sync.row_groups[0]!.columns.map((c) => c.meta_data!.data_page_offset))
    }
  })

  test('one read when the footer fits the tail, exactly two when it does not', async () => {
    const footerLength = parquetMetadataSync(nested).metadata_length // 19,372 bytes
    const one = counting(nested)
    await parquetMetadata(one)
    assert.equal(one.reads, [[Math.max(0, nested.length - 65536), Math.min(nested.length, 65536)]])
    const two = counting(nested)
    const m = await parquetMetadata(two, { tailSize: 1024 })
    assert.is(two.reads.length, 2)
    assert.equal(two.reads[0], [nested.length - 1024, 1024])
    assert.equal(two.reads[1], [nested.length - 8 - footerLength, footerLength + 8 - 1024])
    assert.is(m.metadata_length, footerLength)
    // a tail shorter than the trailer still reads the trailer
    const tiny = counting(nested)
    await parquetMetadata(tiny, { tailSize: 0 })
    assert.is(tiny.reads.length, 2)
  })

  test('range source errors: short reads, hostile footer lengths, encrypted footers', async () => {
    const short: RangeSource = { size: nested.length, read: async (o, l) => nested.slice(o, o + l - 1) }
    assert.is((await rejects(parquetMetadata(short))).code, 'TRUNCATED')
    const lying = nested.slice()
    new DataView(lying.buffer).setUint32(lying.length - 8, 0x7fffffff, true)
    const source = counting(lying)
    const e = await rejects(parquetMetadata(source))
    assert.is(e.code, 'INVALID_DATA')
    assert.is(source.reads.length, 1, 'no read of the claimed 2 GiB')
    const pare = nested.slice()
    pare[pare.length - 1] = 0x45
    assert.is((await rejects(parquetMetadata(new Blob([pare as Uint8Array<ArrayBuffer>])))).code, 'UNSUPPORTED')
    assert.is((await rejects(parquetMetadata({} as RangeSource))).code, 'INVALID_OPTION')
  })

  test('columns: selected chunks equal the full decode, schema pruned to their ancestors', () => {
    const full = parquetMetadataSync(nested)
    const all = leafPaths(full)
    const pick = [all[3]!, all[100]!, all[all.length - 1]!]
    const m = parquetMetadataSync(nested, { columns: pick })
    assert.equal(leafPaths(m), pick)
    assert.equal(m.schema[0]!.name, full.schema[0]!.name)
    for (const [r, rg] of m.row_groups.entries()) {
      assert.is(rg.columns.length, pick.length)
      rg.columns.forEach((chunk, k) => {
        const j = all.indexOf(pick[k]!)
        assert.equal(chunk, full.row_groups[r]!.columns[j]!)
        assert.is(chunk.meta_data!.path_in_schema.join('.'), pick[k])
      })
      assert.is(rg.num_rows, full.row_groups[r]!.num_rows)
    }
    if (full.column_orders) {
      assert.equal(m.column_orders, pick.map((p) => full.column_orders![all.indexOf(p)]!))
    }
    // a group path selects every leaf under it; array form works too
    const group = all[5]!.split('.').slice(0, 1)
    const underGroup = all.filter((p) => p.startsWith(group.join('.') + '.') || p === group.join('.'))
    assert.equal(leafPaths(parquetMetadataSync(nested, { columns: [group] })), underGroup)
    // a path naming nothing is an error
    const e = (() => {
      try {
        parquetMetadataSync(nested, { columns: ['no.such.column'] })
      } catch (error) {
        return error as CodecError
      }
    })()
    assert.instance(e, CodecError)
    assert.is(e!.code, 'INVALID_OPTION')
    assert.match(e!.message, /no\.such\.column/)
    // a prefix of a name is not a match
    const name = all[0]!
    assert.throws(() => parquetMetadataSync(nested, { columns: [name.slice(0, -1)] }), /not in the schema/)
  })

  test('statistics: false drops statistics only', () => {
    const full = parquetMetadataSync(alltypes)
    const lean = parquetMetadataSync(alltypes, { statistics: false })
    assert.ok(full.row_groups[0]!.columns.some((c) => c.meta_data!.statistics))
    lean.row_groups[0]!.columns.forEach((c, j) => {
      assert.is(c.meta_data!.statistics, undefined)
      assert.is(c.meta_data!.size_statistics, undefined)
      assert.equal({ ...c.meta_data!, statistics: undefined, size_statistics: undefined }, {
        ...full.row_groups[0]!.columns[j]!.meta_data!,
        statistics: undefined,
        size_statistics: undefined,
      })
    })
  })

  test('rowGroups: only those, in file order; past the end is an error', () => {
    const full = parquetMetadataSync(manyGroups)
    assert.ok(full.row_groups.length > 10)
    const m = parquetMetadataSync(manyGroups, { rowGroups: [7, 2, 7, full.row_groups.length - 1] })
    assert.equal(m.row_groups, [full.row_groups[2], full.row_groups[7], full.row_groups[full.row_groups.length - 1]])
    assert.is(m.num_rows, full.num_rows)
    assert.throws(() => parquetMetadataSync(manyGroups, { rowGroups: [full.row_groups.length] }), /requested, the file has/)
    assert.throws(() => parquetMetadataSync(manyGroups, { rowGroups: [-1] }), /non-negative integer/)
    // all three options together
    const o = parquetMetadataSync(orders, { rowGroups: [1], columns: [leafPaths(parquetMetadataSync(orders))[2]!], statistics: false })
    assert.is(o.row_groups.length, 1)
    assert.is(o.row_groups[0]!.columns.length, 1)
    assert.is(o.row_groups[0]!.columns[0]!.meta_data!.statistics, undefined)
  })

  test('bad options throw INVALID_OPTION', () => {
    for (const options of [{ columns: 'a' }, { columns: [3] }, { rowGroups: [1.5] }, { statistics: 'no' }, { tailSize: -1 }]) {
      assert.throws(
        () => parquetMetadataSync(alltypes, options as any),
        (e: unknown) => e instanceof CodecError && e.code === 'INVALID_OPTION',
      )
    }
  })
}

test.run()
