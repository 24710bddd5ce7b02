// adapters/hyparquet/writer.ts: loadParquetWriterCompressors() for hyparquet-writer.
// Files written with each codec are read back by hyparquet (with our decompressors and
// with hyparquet-compressors) and by DuckDB (@duckdb/node-api).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parquetReadObjects, parquetMetadata } from 'hyparquet'
import { compressors as peer } from 'hyparquet-compressors'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { DuckDBInstance } from '@duckdb/node-api'
import { loadParquetCompressors, loadParquetWriterCompressors, type ParquetWriterCodec } from '../adapters/hyparquet/index.js'
import { CodecError } from '../lib/errors.js'
import { thrown } from './_caught.js'
import { samples } from './_corpus.js'

const CODECS: readonly ParquetWriterCodec[] = ['SNAPPY', 'GZIP', 'ZSTD', 'BROTLI', 'LZ4_RAW']
const ROWS = 20_000

/** Columns with some redundancy (so pages compress) and some noise. */
function columns() {
  const ids = Int32Array.from({ length: ROWS }, (_, i) => i * 3)
  const names = Array.from({ length: ROWS }, (_, i) => `user-${i % 977}-${(i * 2654435761) % 1000}`)
  const scores = Float64Array.from({ length: ROWS }, (_, i) => Math.sin(i) * 1000)
  const big = Array.from({ length: ROWS }, (_, i) => BigInt(i) * 1_000_000_007n)
  return [
    { name: 'id', data: ids, type: 'INT32' as const },
    { name: 'name', data: names, type: 'STRING' as const },
    { name: 'score', data: scores, type: 'DOUBLE' as const },
    { name: 'big', data: big, type: 'INT64' as const },
  ]
}

const dir = mkdtempSync(join(tmpdir(), 'sluice-pq-'))
const duck = await (await DuckDBInstance.create(':memory:')).connect()

test('every codec: hyparquet (ours and hyparquet-compressors) and DuckDB read the rows back', async () => {
  const writers = await loadParquetWriterCompressors({ levels: { GZIP: 9, ZSTD: 7, BROTLI: 4, LZ4_RAW: 3 } })
  const readers = await loadParquetCompressors()
  const columnData = columns()
  const expected = Array.from({ length: ROWS }, (_, i) => ({ id: columnData[0]!.data[i], name: columnData[1]!.data[i], score: columnData[2]!.data[i], big: columnData[3]!.data[i] }))
  for (const codec of CODECS) {
    let calls = 0
    const counting = { [codec]: (input: Uint8Array) => (calls++, writers[codec](input)) }
    const file = parquetWriteBuffer({ columnData, codec, compressors: counting, rowGroupSize: 8000 })
    assert.ok(calls >= 4, `${codec}: our compressor was called (${calls})`)
    const meta = await parquetMetadata(file)
    for (const rg of meta.row_groups) for (const c of rg.columns) assert.is(c.meta_data!.codec, codec)
    // Compressed: smaller than the values.
    assert.ok(file.byteLength < ROWS * 30, `${codec}: ${file.byteLength} bytes`)
    const ours = await parquetReadObjects({ file, compressors: readers })
    assert.equal(ours, expected, `${codec}: read with our decompressors`)
    const theirs = await parquetReadObjects({ file, compressors: peer })
    assert.equal(theirs, expected, `${codec}: read with hyparquet-compressors`)
    const path = join(dir, `${codec}.parquet`)
    writeFileSync(path, new Uint8Array(file))
    const reader = await duck.runAndReadAll(`SELECT id, name, score, big FROM read_parquet('${path}') ORDER BY id`)
    const rows = reader.getRowObjects()
    assert.is(rows.length, ROWS, `${codec}: DuckDB rows`)
    for (let i = 0; i < ROWS; i += 997) {
      const r = rows[i]!
      const e = expected[i]!
      assert.is(r.id, e.id)
      assert.is(r.name, e.name)
      assert.is(r.score, e.score)
      assert.is(r.big, e.big)
    }
    const sums = (await duck.runAndReadAll(`SELECT sum(id)::BIGINT AS s, count(DISTINCT name)::BIGINT AS d FROM read_parquet('${path}')`)).getRowObjects()[0]!
    assert.is(sums.s, BigInt((ROWS * (ROWS - 1) * 3) / 2), `${codec}: DuckDB sum`)
    assert.is(sums.d, BigInt(new Set(columnData[1]!.data as string[]).size))
  }
})

test('levels change the output; compressors are synchronous and never return undefined', async () => {
  const low = await loadParquetWriterCompressors({ levels: { ZSTD: 1, GZIP: 1 } })
  const high = await loadParquetWriterCompressors({ levels: { ZSTD: 19, GZIP: 9 } })
  // Real text (the generated names above are a case where zstd -19 writes more than -1, as the zstd CLI does too).
  const page = samples().find(([name]) => name.startsWith('node_modules text'))![1].subarray(0, 100_000)
  for (const codec of ['ZSTD', 'GZIP'] as const) {
    const a = low[codec](page)
    const b = high[codec](page)
    assert.ok(a instanceof Uint8Array && b instanceof Uint8Array)
    assert.ok(b.length < a.length, `${codec}: level 19/9 ${b.length} < level 1 ${a.length}`)
  }
  for (const codec of CODECS) {
    const out = low[codec](new Uint8Array(0))
    assert.ok(out instanceof Uint8Array, `${codec}: empty page`)
  }
})

test('bad options reject with INVALID_OPTION; unloaded codecs throw', async () => {
  for (const bad of [{ levels: { ZSTD: 30 } }, { levels: { SNAPPY: 1 } }, { engines: { zstd: 'js' } }, { codecs: ['LZ4'] }, { level: 3 }]) {
    let err: unknown
    try {
      await loadParquetWriterCompressors(bad as never)
    } catch (e) {
      err = e
    }
    assert.ok(err instanceof CodecError && err.code === 'INVALID_OPTION', JSON.stringify(bad))
  }
  const only = await loadParquetWriterCompressors({ codecs: ['SNAPPY'] })
  const err = thrown(() => only.ZSTD(new Uint8Array(10)))
  assert.ok(err instanceof CodecError && err.code === 'INVALID_OPTION' && /add 'ZSTD'/.test(err.message))
})

test.after(() => {
  duck.closeSync()
  rmSync(dir, { recursive: true, force: true })
})

test.run()
