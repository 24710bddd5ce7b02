// lib/parquet/bloom-filter.ts and lib/codecs/xxhash64.ts: XXH64 against its reference vectors and
// hyparquet's implementation; bloom filters written by hyparquet-writer and in
// parquet-testing answer as hyparquet's own reader does; hostile headers fail.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parquetReadObjects } from 'hyparquet'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { loadParquetCompressors } from '../adapters/hyparquet/index.js'
import { CodecError } from '../lib/errors.js'
import { parquetBloomFilter, parquetMetadataSync, xxhash64, type FileMetaData } from '../lib/parquet/index.js'
import { rejection } from './_caught.js'
import { randomBytes } from './_corpus.js'
import { fixture, root } from './_fixtures.js'

// hyparquet's internals (not exported by the package) as the oracle, by file path.
const theirHash = (await import(pathToFileURL(join(root, 'node_modules/hyparquet/src/xxhash.js')).href)) as { xxhash64(b: Uint8Array, seed?: bigint): bigint }
const theirBloom = (await import(pathToFileURL(join(root, 'node_modules/hyparquet/src/bloom.js')).href)) as {
  readBloomFilter(r: { view: DataView; offset: number }): { numBytes: number; blocks: Uint32Array } | undefined
  sbbfContains(blocks: Uint32Array, hash: bigint): boolean
  hashParquetValue(value: unknown, element: unknown): bigint | undefined
}

test('XXH64: reference vectors and hyparquet agree', () => {
  const enc = (s: string) => new TextEncoder().encode(s)
  assert.is(xxhash64(enc('')), 0xef46db3751d8e999n)
  assert.is(xxhash64(enc('a')), 0xd24ec4f1a98c6e5bn)
  assert.is(xxhash64(enc('abc')), 0x44bc2cf5ad770999n)
  const data = randomBytes(300, 7)
  for (let n = 0; n <= 300; n += n < 70 ? 1 : 23) assert.is(xxhash64(data.subarray(0, n)), theirHash.xxhash64(data.subarray(0, n)), `length ${n}`)
  // The seed goes into every 64-bit lane (the one XXH64, lib/codecs/xxhash64.ts, computes on 32-bit halves).
  for (const seed of [1n, 0xffffffffn, 0x100000000n, 2n ** 63n + 5n, 2n ** 64n - 1n]) {
    for (const n of [0, 3, 8, 31, 32, 33, 64, 100, 300]) assert.is(xxhash64(data.subarray(0, n), seed), theirHash.xxhash64(data.subarray(0, n), seed), `seed ${seed}, length ${n}`)
  }
})

/** Our answers and hyparquet's for `values` on one chunk; returns how many were absent. */
async function agree(file: Uint8Array, meta: FileMetaData, rowGroup: number, column: number, element: unknown, present: unknown[], probes: unknown[]): Promise<number> {
  const ours = await parquetBloomFilter(file, meta, { rowGroup, column })
  assert.ok(ours, `bloom filter of column ${column}`)
  const m = meta.row_groups[rowGroup]!.columns[column]!.meta_data!
  const at = Number(m.bloom_filter_offset)
  const theirs = theirBloom.readBloomFilter({ view: new DataView(file.buffer, file.byteOffset + at, file.length - at), offset: 0 })!
  for (const v of present) assert.ok(ours.mightContain(v as never), `present value ${String(v)}`)
  let absent = 0
  for (const v of probes) {
    const mine = ours.mightContain(v as never)
    assert.is(mine, theirBloom.sbbfContains(theirs.blocks, theirBloom.hashParquetValue(v, element)!), `probe ${String(v)}`)
    if (!mine) absent++
  }
  return absent
}

test('hyparquet-writer bloom filters: every value present, the same answers as hyparquet for others', async () => {
  const n = 3000
  const ids = Int32Array.from({ length: n }, (_, i) => i * 2)
  const names = Array.from({ length: n }, (_, i) => `user-${i}`)
  const bigs = Array.from({ length: n }, (_, i) => BigInt(i) * 10_000_000_000n)
  const doubles = Float64Array.from({ length: n }, (_, i) => i / 7)
  const file = new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'id', data: ids, type: 'INT32', bloomFilter: true },
        { name: 'name', data: names, type: 'STRING', bloomFilter: true },
        { name: 'big', data: bigs, type: 'INT64', bloomFilter: true },
        { name: 'x', data: doubles, type: 'DOUBLE', bloomFilter: true },
        { name: 'none', data: ids, type: 'INT32' },
      ],
      rowGroupSize: n,
    }),
  )
  const meta = parquetMetadataSync(file)
  const leaves = meta.schema.filter((e) => !e.num_children)
  let absent = 0
  absent += await agree(file, meta, 0, 0, leaves[0], [...ids], Array.from({ length: 500 }, (_, i) => i * 2 + 1))
  absent += await agree(file, meta, 0, 1, leaves[1], names, Array.from({ length: 500 }, (_, i) => `other-${i}`))
  absent += await agree(file, meta, 0, 2, leaves[2], bigs, Array.from({ length: 500 }, (_, i) => BigInt(i) * 10_000_000_000n + 1n))
  absent += await agree(file, meta, 0, 3, leaves[3], [...doubles], Array.from({ length: 500 }, (_, i) => i / 7 + 0.5))
  assert.ok(absent > 1900, `${absent} of 2000 absent values ruled out`)
  assert.is(await parquetBloomFilter(file, meta, { rowGroup: 0, column: 'none' }), undefined)
  // By path, from a Blob and a range source.
  const byPath = await parquetBloomFilter(new Blob([file as Uint8Array<ArrayBuffer>]), meta, { rowGroup: 0, column: 'name' })
  assert.ok(byPath!.mightContain('user-42'))
  // A string and its UTF-8 bytes are the same BYTE_ARRAY value.
  assert.is(byPath!.mightContain(new TextEncoder().encode('other-1')), byPath!.mightContain('other-1'))
  const err = await rejection((async () => (await parquetBloomFilter(file, meta, { rowGroup: 0, column: 'id' }))!.mightContain('a string'))())
  assert.ok(err instanceof CodecError && err.code === 'INVALID_OPTION')
})

const fixturePath = fixture('parquet-testing', 'data', 'data_index_bloom_encoding_stats.parquet')
const fixtureTest = fixturePath && existsSync(fixturePath) ? test : test.skip
if (!(fixturePath && existsSync(fixturePath))) console.log('# skipped: parquet-testing fixtures not found')
fixtureTest('parquet-testing data_index_bloom_encoding_stats.parquet: every value present, answers as hyparquet', async () => {
  const file = new Uint8Array(readFileSync(fixturePath!))
  const meta = parquetMetadataSync(file)
  const rows = (await parquetReadObjects({ file: file.buffer.slice(file.byteOffset, file.byteOffset + file.length) as ArrayBuffer, compressors: await loadParquetCompressors() })) as Record<string, string>[]
  const key = Object.keys(rows[0]!)[0]!
  const leaves = meta.schema.filter((e) => !e.num_children)
  const absent = await agree(file, meta, 0, 0, leaves[0], rows.map((r) => r[key]), ['Hello world', 'sluice', 'snappy', 'parquet', 'x'.repeat(40)])
  assert.ok(absent >= 3, `${absent} of 5 ruled out`)
})

test('hostile: offsets past the file, bad sizes, unknown algorithms', async () => {
  const file = new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'id', data: Int32Array.of(1, 2, 3), type: 'INT32', bloomFilter: true }] }))
  const meta = parquetMetadataSync(file)
  const m = meta.row_groups[0]!.columns[0]!.meta_data!
  const at = Number(m.bloom_filter_offset)
  const fails = async (bytes: Uint8Array, patch: Record<string, unknown>, code: string) => {
    const copy = structuredClone(meta) as FileMetaData
    Object.assign(copy.row_groups[0]!.columns[0]!.meta_data!, patch)
    const err = await rejection(parquetBloomFilter(bytes, copy, { rowGroup: 0, column: 0 }))
    assert.ok(err instanceof CodecError, String(err))
    assert.is((err as CodecError).code, code, (err as CodecError).message)
  }
  await fails(file, { bloom_filter_offset: file.length + 5 }, 'INVALID_DATA')
  await fails(file, { bloom_filter_offset: -3 }, 'INVALID_DATA')
  await fails(file, { bloom_filter_length: file.length }, 'INVALID_DATA')
  await fails(file, { bloom_filter_length: 5 }, 'INVALID_DATA')
  // Hand-made headers at the filter's place: numBytes 33; hash member 2; numBytes 2^30.
  const header = (bytes: number[]) => {
    const copy = file.slice()
    copy.set(bytes, at)
    return copy
  }
  // 1: i32 numBytes, 2/3/4: structs holding field 1 (an empty struct).
  const unions = (member = 1) => [0x1c, (member << 4) | 0x0c, 0x00, 0x00, 0x1c, (member << 4) | 0x0c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00, 0x00]
  await fails(header([0x15, 0x42, ...unions()]), { bloom_filter_length: undefined }, 'INVALID_DATA') // 33
  await fails(header([0x15, 0x40, ...unions(2)]), { bloom_filter_length: undefined }, 'UNSUPPORTED')
  await fails(header([0x15, 0x80, 0x80, 0x80, 0x80, 0x08, ...unions()]), { bloom_filter_length: undefined }, 'INVALID_DATA') // 2^30
  await fails(header([0x15, 0x40, 0x00]), { bloom_filter_length: undefined }, 'INVALID_DATA') // missing algorithm
})

test.run()
