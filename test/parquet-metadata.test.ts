// Every file of parquet-testing (data/, its subfolders, bad_data/, and the *.encrypted
// files): our FileMetaData against hyparquet's `parquetMetadata` where hyparquet reads
// it, and a stated expectation where it does not.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parquetMetadata as hyparquetMetadata } from 'hyparquet'
import { CodecError } from '../lib/errors.js'
import { parquetMetadataSync, statisticsValue, type FileMetaData, type SchemaElement } from '../lib/parquet/index.js'
import { fixture, root } from './_fixtures.js'

// hyparquet's statistics conversion, applied to OUR raw min/max bytes: equal results
// mean we found the same bytes hyparquet did. Not in its package exports, so by path.
const { convertMetadata } = await import(pathToFileURL(join(root, 'node_modules/hyparquet/src/metadata.js')).href)
const { DEFAULT_PARSERS } = await import(pathToFileURL(join(root, 'node_modules/hyparquet/src/convert.js')).href)

const dir = fixture('parquet-testing')
const files: string[] = []
function collect(folder: string): void {
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) collect(path)
    else if (name.endsWith('.parquet') || name.endsWith('.parquet.encrypted')) files.push(path)
  }
}
if (dir) {
  try {
    collect(dir)
  } catch {
    // folder unreadable: treated as absent below
  }
}

/** bigint -> number when safe, recursively; undefined-valued keys dropped. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return value >= -(2n ** 53n) && value <= 2n ** 53n ? Number(value) : value
  if (Array.isArray(value)) return value.map(plain)
  if (value instanceof Uint8Array || value instanceof Date) return value
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = plain(v)
    return out
  }
  return value
}

/** hyparquet's logical type in our vocabulary (it says NULL for the IDL's UNKNOWN). */
function theirLogical(logical: any): unknown {
  if (logical === undefined) return undefined
  if (logical.type === 'NULL') return { type: 'UNKNOWN' }
  if (logical.type === undefined) {
    // hyparquet returns the raw Thrift object for a union member it does not know
    const id = Number(Object.keys(logical)[0]!.slice('field_'.length))
    return { type: 'UNRECOGNIZED', id }
  }
  return logical
}

function schemaView(s: SchemaElement | any, theirs: boolean): unknown {
  return plain({
    name: s.name,
    type: s.type,
    type_length: s.type_length,
    repetition_type: s.repetition_type,
    num_children: s.num_children,
    converted_type: s.converted_type,
    scale: s.scale,
    precision: s.precision,
    field_id: s.field_id,
    logical_type: theirs ? theirLogical(s.logical_type) : s.logical_type,
  })
}

function compare(ours: FileMetaData, theirs: any, label: string): void {
  assert.is(ours.version, theirs.version, `${label}: version`)
  assert.equal(plain(ours.num_rows), plain(theirs.num_rows), `${label}: num_rows`)
  assert.is(ours.metadata_length, theirs.metadata_length, `${label}: metadata_length`)
  assert.is(ours.created_by, theirs.created_by, `${label}: created_by`)
  assert.equal(plain(ours.key_value_metadata), plain(theirs.key_value_metadata), `${label}: key_value_metadata`)
  assert.is(ours.schema.length, theirs.schema.length, `${label}: schema length`)
  ours.schema.forEach((s, i) => assert.equal(schemaView(s, false), schemaView(theirs.schema[i], true), `${label}: schema[${i}]`))
  const leaves: any[] = theirs.schema.filter((e: any) => e.type)
  assert.is(ours.row_groups.length, theirs.row_groups.length, `${label}: row groups`)
  ours.row_groups.forEach((rg, r) => {
    const t = theirs.row_groups[r]
    const where = `${label}: row_groups[${r}]`
    assert.equal(
      plain({ ...rg, columns: undefined }),
      plain({ ...t, columns: undefined }),
      `${where} fields`,
    )
    assert.is(rg.columns.length, t.columns.length, `${where}: columns`)
    rg.columns.forEach((col, j) => {
      const tc = t.columns[j]
      const at = `${where}.columns[${j}]`
      assert.equal(
        plain({ ...col, meta_data: undefined, crypto_metadata: undefined, encrypted_column_metadata: undefined }),
        plain({ ...tc, meta_data: undefined, crypto_metadata: undefined, encrypted_column_metadata: undefined }),
        `${at} chunk fields`,
      )
      assert.is(col.encrypted_column_metadata?.length, tc.encrypted_column_metadata?.length, `${at} encrypted_column_metadata`)
      const m = col.meta_data
      const tm = tc.meta_data
      assert.is(m === undefined, tm === undefined, `${at} meta_data presence`)
      if (!m) return
      const { statistics, ...rest } = m
      const { statistics: theirStats, ...theirRest } = tm
      // hyparquet names encoding 10 ALP (not in parquet.thrift yet); we keep the number
      theirRest.encodings = theirRest.encodings.map((e: unknown, k: number) => (e === undefined || e === 'ALP' ? m.encodings[k] : e))
      if (theirRest.bloom_filter_length !== undefined && typeof theirRest.bloom_filter_length !== 'number') {
        // data/dict-page-offset-zero.parquet: its writer put a list of structs in field
        // 15, which parquet.thrift declares `optional i32 bloom_filter_length`. A field
        // whose wire type does not match the IDL is skipped (as Apache Thrift's
        // generated readers do), so ours is unset; hyparquet copies the raw list.
        assert.is(m.bloom_filter_length, undefined, `${at} bloom_filter_length`)
        theirRest.bloom_filter_length = undefined
      }
      assert.equal(plain(rest), plain(theirRest), `${at} meta_data`)
      assert.is(statistics === undefined, theirStats === undefined, `${at} statistics presence`)
      if (!statistics) return
      const element = leaves[j]
      for (const key of ['null_count', 'distinct_count', 'is_max_value_exact', 'is_min_value_exact'] as const) {
        assert.equal(plain(statistics[key]), plain(theirStats[key]), `${at} statistics.${key}`)
      }
      for (const key of ['max', 'min', 'max_value', 'min_value'] as const) {
        assert.equal(
          convertMetadata(statistics[key], element, DEFAULT_PARSERS),
          theirStats[key],
          `${at} statistics.${key}`,
        )
      }
    })
  })
}

/**
 * Files hyparquet does not read, or reads differently, and what they really contain.
 */
const expected: Record<string, (ours: FileMetaData | CodecError) => void> = {
  // The schema element after the root has physical type -7: the Thrift value was
  // corrupted (bad_data/README.md: "a schema Thrift value has been corrupted").
  // Physical types are a closed set, so we reject it; hyparquet throws a TypeError
  // from deep inside its schema walk.
  'bad_data/PARQUET-1481.parquet': (r) => {
    assert.instance(r, CodecError)
    const e = r as CodecError
    assert.is(e.code, 'INVALID_DATA')
    assert.match(e.message, /SchemaElement\.type -7 is not a Parquet physical type/)
  },
}

/** Encrypted files: footer encrypted (PARE) or plaintext (PAR1 with an algorithm). */
function checkEncrypted(path: string, bytes: Uint8Array, result: FileMetaData | CodecError): void {
  const magic = new TextDecoder().decode(bytes.subarray(bytes.length - 4))
  if (magic === 'PARE') {
    assert.instance(result, CodecError)
    assert.is((result as CodecError).code, 'UNSUPPORTED')
    assert.match((result as CodecError).message, /encrypted footer not supported/)
    return
  }
  // Plaintext footer of an encrypted file: readable, and says how it is encrypted.
  assert.not.instance(result, CodecError, String(result))
  const m = result as FileMetaData
  assert.ok(m.encryption_algorithm, `${path}: encryption_algorithm`)
  assert.ok(['AES_GCM_V1', 'AES_GCM_CTR_V1'].includes(m.encryption_algorithm!.type))
  const encrypted = m.row_groups.flatMap((rg) => rg.columns).filter((c) => c.crypto_metadata?.type === 'ENCRYPTION_WITH_COLUMN_KEY')
  assert.ok(encrypted.length > 0, 'some columns are encrypted with their own key')
  for (const c of encrypted) {
    if (c.crypto_metadata?.type !== 'ENCRYPTION_WITH_COLUMN_KEY') continue
    assert.ok(c.crypto_metadata.path_in_schema.length > 0)
    assert.ok(c.encrypted_column_metadata && c.encrypted_column_metadata.length > 0)
  }
}

if (!dir || files.length === 0) {
  console.log(`# skipped: parquet-testing fixtures not found (${dir ?? 'no ../shared/fixtures'})`)
  test.skip('parquet-testing fixtures', () => {})
} else {
  test(`every parquet-testing file (${files.length}) decodes like hyparquet or as stated`, () => {
    let compared = 0
    for (const path of files) {
      const name = relative(dir, path)
      const bytes = new Uint8Array(readFileSync(path))
      let ours: FileMetaData | CodecError
      try {
        ours = parquetMetadataSync(bytes)
      } catch (error) {
        // anything but a CodecError (TypeError, RangeError) is a bug
        assert.instance(error, CodecError, `${name}: ${String(error)}`)
        ours = error as CodecError
      }
      if (name.endsWith('.encrypted')) {
        checkEncrypted(name, bytes, ours)
        if (ours instanceof CodecError) continue
      }
      if (expected[name]) {
        expected[name]!(ours)
        continue
      }
      assert.not.instance(ours, CodecError, `${name}: ${String(ours)}`)
      const theirs = hyparquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), {
        geoparquet: false,
      } as any)
      compare(ours as FileMetaData, theirs, name)
      compared++
    }
    assert.ok(compared >= 80, `compared ${compared} files with hyparquet`)
  })

  test('bad_data/ARROW-GH-41317: list<i32> written as list<i16> reads as the same values', () => {
    // The encodings lists of this file carry compact element type 4 (i16) where the IDL
    // says i32. Both are zigzag varints on the wire; C++ and hyparquet read them alike.
    const path = join(dir, 'bad_data', 'ARROW-GH-41317.parquet')
    const m = parquetMetadataSync(new Uint8Array(readFileSync(path)))
    assert.equal(m.row_groups[0]!.columns[1]!.meta_data!.encodings, ['PLAIN_DICTIONARY', 'PLAIN', 'RLE'])
  })

  test('newer logical types: FLOAT16, geospatial, unknown union members', () => {
    const read = (p: string) => parquetMetadataSync(new Uint8Array(readFileSync(join(dir, p))))
    const f16 = read('data/float16_nonzeros_and_nans.parquet')
    assert.equal(f16.schema[1]!.logical_type, { type: 'FLOAT16' })
    const geo = read('data/geospatial/crs-geography.parquet')
    const kinds = geo.schema.map((s) => s.logical_type?.type)
    assert.ok(kinds.includes('GEOGRAPHY'), String(kinds))
    const geoStats = read('data/geospatial/geospatial.parquet').row_groups[0]!.columns.find((c) => c.meta_data?.geospatial_statistics)
    assert.ok(geoStats, 'geospatial statistics decoded')
    const bbox = geoStats!.meta_data!.geospatial_statistics!.bbox!
    assert.ok(bbox.xmin <= bbox.xmax && bbox.ymin <= bbox.ymax)
    // unknown-logical-type.parquet: a logical type union member from the future
    const unknown = read('data/unknown-logical-type.parquet').schema.map((s) => s.logical_type)
    assert.ok(unknown.some((l) => l?.type === 'UNRECOGNIZED'), JSON.stringify(unknown))
  })

  test('statisticsValue gives physical values matching the decoded column', () => {
    const m = parquetMetadataSync(new Uint8Array(readFileSync(join(dir, 'data', 'alltypes_tiny_pages_plain.parquet'))))
    const leaves = m.schema.filter((s) => s.type !== undefined)
    const chunks = m.row_groups[0]!.columns
    const byName = (n: string) => chunks.findIndex((c) => c.meta_data!.path_in_schema[0] === n)
    const id = byName('id')
    assert.is(statisticsValue(chunks[id]!.meta_data!.statistics!.min_value, leaves[id]!), 0)
    assert.is(statisticsValue(chunks[id]!.meta_data!.statistics!.max_value, leaves[id]!), 7299)
    const str = byName('string_col')
    // BYTE_ARRAY: a string when annotated UTF8/STRING, raw bytes otherwise
    const text = leaves[str]!.converted_type === 'UTF8' || leaves[str]!.logical_type?.type === 'STRING'
    assert.is(typeof statisticsValue(chunks[str]!.meta_data!.statistics!.max_value, leaves[str]!), text ? 'string' : 'object')
    const binary = { ...leaves[str]!, converted_type: undefined, logical_type: undefined }
    assert.instance(statisticsValue(chunks[str]!.meta_data!.statistics!.max_value, binary), Uint8Array)
    const bool = byName('bool_col')
    assert.is(statisticsValue(chunks[bool]!.meta_data!.statistics!.max_value, leaves[bool]!), true)
  })
}

test.run()
