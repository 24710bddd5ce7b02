/**
 * `ColumnMetaData`, the hottest struct of a footer (one per column chunk): a hand-written
 * decoder that shares the lists repeated from chunk to chunk (`encodings`,
 * `encoding_stats`, `path_in_schema`).
 */
import {
  CompactType,
  headerTruncated,
  invalid,
  listArray,
  listOf,
  missingField,
  readBinaryLength,
  readI32,
  readInteger,
  readString,
  skip,
  skipSimpleStruct,
  skipStruct,
  ThriftCursor,
  requiredBit,
  allRequired,
} from './thrift.js'
import { readEncodingStats, readGeospatialStatistics } from './cold-structs.js'
import { CODECS, ENCODINGS, enumName, PARQUET_TYPES } from './enums.js'
import { readKeyValues } from './key-value.js'
import { intern, interned, type Plan } from './plan.js'
import { LazyStatistics, readSizeStatistics } from './statistics.js'
import type {
  ColumnMetaData,
  CompressionCodec,
  Encoding,
  GeospatialStatistics,
  Int64,
  KeyValue,
  PageEncodingStats,
  ParquetType,
  SizeStatistics,
  Statistics,
} from './types.js'

const { I16, I32, I64, BINARY, LIST, STRUCT } = CompactType

/** Placeholders until the required field is read (missing: an error, never returned). */
const NO_ENCODINGS: readonly Encoding[] = []
const NO_PATH: readonly string[] = []

/** The required fields of `ColumnMetaData`, in IDL order (see `readColumnMetaData`). */
const COLUMN_METADATA_FIELDS = [
  'type',
  'encodings',
  'path_in_schema',
  'codec',
  'num_values',
  'total_uncompressed_size',
  'total_compressed_size',
  'data_page_offset',
] as const
const COL_META_TYPE = /* @__PURE__ */ requiredBit(COLUMN_METADATA_FIELDS, 'type')
const COL_META_ENCODINGS = /* @__PURE__ */ requiredBit(COLUMN_METADATA_FIELDS, 'encodings')
const COL_META_PATH_IN_SCHEMA = /* @__PURE__ */ requiredBit(COLUMN_METADATA_FIELDS, 'path_in_schema')
const COL_META_CODEC = /* @__PURE__ */ requiredBit(COLUMN_METADATA_FIELDS, 'codec')
const COL_META_NUM_VALUES = /* @__PURE__ */ requiredBit(COLUMN_METADATA_FIELDS, 'num_values')
const COL_META_TOTAL_UNCOMPRESSED_SIZE = /* @__PURE__ */ requiredBit(COLUMN_METADATA_FIELDS, 'total_uncompressed_size')
const COL_META_TOTAL_COMPRESSED_SIZE = /* @__PURE__ */ requiredBit(COLUMN_METADATA_FIELDS, 'total_compressed_size')
const COL_META_DATA_PAGE_OFFSET = /* @__PURE__ */ requiredBit(COLUMN_METADATA_FIELDS, 'data_page_offset')
const COL_META_REQUIRED = /* @__PURE__ */ allRequired(COLUMN_METADATA_FIELDS)

/**
 * ```thrift
 * struct ColumnMetaData {
 *   1: required Type type
 *   2: required list<Encoding> encodings
 *   3: required list<string> path_in_schema
 *   4: required CompressionCodec codec
 *   5: required i64 num_values
 *   6: required i64 total_uncompressed_size
 *   7: required i64 total_compressed_size
 *   8: optional list<KeyValue> key_value_metadata
 *   9: required i64 data_page_offset
 *   10: optional i64 index_page_offset
 *   11: optional i64 dictionary_page_offset
 *   12: optional Statistics statistics
 *   13: optional list<PageEncodingStats> encoding_stats
 *   14: optional i64 bloom_filter_offset
 *   15: optional i32 bloom_filter_length
 *   16: optional SizeStatistics size_statistics
 *   17: optional GeospatialStatistics geospatial_statistics
 * }
 * ```
 * (parquet-format's parquet.thrift.) `path`: index of the chunk's expected path in
 * `plan.leafPaths`.
 */
export function readColumnMetaData(c: ThriftCursor, plan: Plan, path: number): ColumnMetaData {
  const bytes = c.bytes
  const end = bytes.length
  const start = c.offset
  let pos = start
  let seen = 0
  let type: ParquetType = 'BOOLEAN'
  let encodings: readonly (Encoding | number)[] = NO_ENCODINGS
  let pathInSchema: readonly string[] = NO_PATH
  let codec: CompressionCodec | number = 0
  let numValues: Int64 = 0
  let totalUncompressedSize: Int64 = 0
  let totalCompressedSize: Int64 = 0
  let keyValueMetadata: KeyValue[] | undefined
  let dataPageOffset: Int64 = 0
  let indexPageOffset: Int64 | undefined
  let dictionaryPageOffset: Int64 | undefined
  let statistics: Statistics | undefined
  let encodingStats: readonly PageEncodingStats[] | undefined
  let bloomFilterOffset: Int64 | undefined
  let bloomFilterLength: number | undefined
  let sizeStatistics: SizeStatistics | undefined
  let geospatialStatistics: GeospatialStatistics | undefined
  let next = 0
  let fid = 0
  for (;;) {
    if (pos >= end) headerTruncated(c, pos, 'ColumnMetaData')
    const header = bytes[pos++]!
    const wire = header & 0x0f
    if (wire === 0) break
    if (header >= 0x10) fid += header >> 4
    else {
      c.offset = pos
      fid = readI32(c)
      pos = c.offset
    }
    if (wire >= I16 && wire <= I64) {
      const at = pos
      let value: Int64
      const b = pos < end ? bytes[pos]! : 0x80
      if (b < 0x80) {
        value = (b >>> 1) ^ -(b & 1)
        pos++
      } else {
        c.offset = pos
        value = readInteger(c, wire)
        pos = c.offset
      }
      if (wire === I64) {
        switch (fid) {
          case 5:
            numValues = value
            seen |= COL_META_NUM_VALUES
            break
          case 6:
            totalUncompressedSize = value
            seen |= COL_META_TOTAL_UNCOMPRESSED_SIZE
            break
          case 7:
            totalCompressedSize = value
            seen |= COL_META_TOTAL_COMPRESSED_SIZE
            break
          case 9:
            dataPageOffset = value
            seen |= COL_META_DATA_PAGE_OFFSET
            break
          case 10:
            indexPageOffset = value
            break
          case 11:
            dictionaryPageOffset = value
            break
          case 14:
            bloomFilterOffset = value
            break
        }
      } else if (fid === 1) {
        const name = PARQUET_TYPES[value as number]
        if (name === undefined) invalid(c, `ColumnMetaData.type ${value} is not a Parquet physical type`, at)
        type = name
        seen |= COL_META_TYPE
      } else if (fid === 4) {
        codec = enumName(CODECS, value as number)
        seen |= COL_META_CODEC
      } else if (fid === 15) bloomFilterLength = value as number
      continue
    }
    c.offset = pos
    switch (fid) {
      case 2:
        if (wire !== LIST) break
        encodings = readEncodings(c, plan)
        seen |= COL_META_ENCODINGS
        pos = c.offset
        continue
      case 3:
        if (wire !== LIST) break
        pathInSchema = readPath(c, plan, path)
        seen |= COL_META_PATH_IN_SCHEMA
        pos = c.offset
        continue
      case 8:
        if (wire !== LIST) break
        keyValueMetadata = readKeyValues(c, 'ColumnMetaData.key_value_metadata')
        pos = c.offset
        continue
      case 12:
        if (wire !== STRUCT || !plan.statistics) break
        statistics = new LazyStatistics(bytes, pos)
        next = skipSimpleStruct(bytes, pos)
        if (next > pos) pos = next
        else {
          skipStruct(c)
          pos = c.offset
        }
        continue
      case 13:
        if (wire !== LIST) break
        encodingStats = readSharedEncodingStats(c, plan)
        pos = c.offset
        continue
      case 16:
        if (wire !== STRUCT || !plan.statistics) break
        sizeStatistics = readSizeStatistics(c)
        pos = c.offset
        continue
      case 17:
        if (wire !== STRUCT || !plan.statistics) break
        geospatialStatistics = readGeospatialStatistics(c)
        pos = c.offset
        continue
    }
    if (wire === STRUCT && (next = skipSimpleStruct(bytes, pos)) > pos) {
      pos = next // statistics not asked for
      continue
    }
    skip(c, wire)
    pos = c.offset
  }
  c.offset = pos
  if (seen !== COL_META_REQUIRED) missingField(c, 'ColumnMetaData', COLUMN_METADATA_FIELDS, seen, start)
  return new (ColumnMetaDataObject as unknown as new (...args: unknown[]) => ColumnMetaData)(
    type,
    encodings,
    pathInSchema,
    codec,
    numValues,
    totalUncompressedSize,
    totalCompressedSize,
    keyValueMetadata,
    dataPageOffset,
    indexPageOffset,
    dictionaryPageOffset,
    statistics,
    encodingStats,
    bloomFilterOffset,
    bloomFilterLength,
    sizeStatistics,
    geospatialStatistics,
  )
}

/** A plain ColumnMetaData object, made by `new` (see `ColumnChunkObject`). */
function ColumnMetaDataObject(
  this: ColumnMetaData,
  type: ParquetType,
  encodings: readonly (Encoding | number)[],
  pathInSchema: readonly string[],
  codec: CompressionCodec | number,
  numValues: Int64,
  totalUncompressedSize: Int64,
  totalCompressedSize: Int64,
  keyValueMetadata: KeyValue[] | undefined,
  dataPageOffset: Int64,
  indexPageOffset: Int64 | undefined,
  dictionaryPageOffset: Int64 | undefined,
  statistics: Statistics | undefined,
  encodingStats: readonly PageEncodingStats[] | undefined,
  bloomFilterOffset: Int64 | undefined,
  bloomFilterLength: number | undefined,
  sizeStatistics: SizeStatistics | undefined,
  geospatialStatistics: GeospatialStatistics | undefined,
): void {
  this.type = type
  this.encodings = encodings
  this.path_in_schema = pathInSchema
  this.codec = codec
  this.num_values = numValues
  this.total_uncompressed_size = totalUncompressedSize
  this.total_compressed_size = totalCompressedSize
  this.key_value_metadata = keyValueMetadata
  this.data_page_offset = dataPageOffset
  this.index_page_offset = indexPageOffset
  this.dictionary_page_offset = dictionaryPageOffset
  this.statistics = statistics
  this.encoding_stats = encodingStats
  this.bloom_filter_offset = bloomFilterOffset
  this.bloom_filter_length = bloomFilterLength
  this.size_statistics = sizeStatistics
  this.geospatial_statistics = geospatialStatistics
}
ColumnMetaDataObject.prototype = Object.prototype

/** `ColumnMetaData.encodings`, shared with earlier chunks that have the same bytes. */
function readEncodings(c: ThriftCursor, plan: Plan): readonly (Encoding | number)[] {
  const cached = interned(c, plan.interned, 0) as (Encoding | number)[] | undefined
  if (cached !== undefined) return cached
  const from = c.offset
  const size = listOf(c, I32, 'ColumnMetaData.encodings')
  const list = listArray<Encoding | number>(size)
  for (let i = 0; i < size; i++) list[i] = enumName(ENCODINGS, readI32(c))
  intern(c, plan.interned, 0, from, list)
  return list
}

/** `ColumnMetaData.encoding_stats`, shared with earlier chunks that have the same bytes. */
function readSharedEncodingStats(c: ThriftCursor, plan: Plan): readonly PageEncodingStats[] {
  const cached = interned(c, plan.interned, 1) as PageEncodingStats[] | undefined
  if (cached !== undefined) return cached
  const from = c.offset
  const list = readEncodingStats(c)
  intern(c, plan.interned, 1, from, list)
  return list
}

/**
 * `path_in_schema` of a chunk expected to have path `leaf` of `plan.leafPaths`: when
 * its bytes equal the names of that schema path (always, in a well-formed file), the
 * path array made from the schema is returned, shared by every row group; otherwise a
 * new one is decoded.
 */
function readPath(c: ThriftCursor, plan: Plan, leaf: number): readonly string[] {
  const size = listOf(c, BINARY, 'ColumnMetaData.path_in_schema')
  const known = leaf < plan.leafPaths.length ? plan.leafPaths[leaf] : undefined
  if (known !== undefined && known.length === size) {
    const bytes = c.bytes
    const segments = plan.leafSegments
    const first = plan.leafSegmentStart[leaf]!
    const nameStart = plan.nameStart
    const nameEnd = plan.nameEnd
    const save = c.offset
    let same = true
    for (let k = 0; k < size; k++) {
      const length = readBinaryLength(c)
      const at = c.offset
      c.offset = at + length
      if (!same) continue
      const element = segments[first + k]!
      const ns = nameStart[element]!
      if (nameEnd[element]! - ns !== length) {
        same = false
        continue
      }
      for (let i = 0; i < length; i++) {
        if (bytes[at + i] !== bytes[ns + i]) {
          same = false
          break
        }
      }
    }
    if (same) return known
    c.offset = save
  }
  const path = listArray<string>(size)
  for (let k = 0; k < size; k++) path[k] = readString(c)
  return path
}
