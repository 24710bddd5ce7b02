/**
 * The cold structs of a footer: rarely present, or few per file (geospatial
 * statistics, sorting columns, page encoding stats, logical types, encryption), as
 * tables for the decoder of `struct-table.ts`; and the column orders (one per leaf,
 * nearly all `TYPE_ORDER`, which a fast path recognises by its three bytes).
 */
import {
  CompactType,
  fieldHeader,
  listArray,
  listOf,
  readBinary,
  readByte,
  readDouble,
  readI32,
  readI32List,
  readString,
  readStringList,
  skip,
  skipStruct,
  type ThriftCursor,
} from './thrift.js'
import { COLUMN_ORDERS, EDGE_ALGORITHMS, ENCODINGS, enumName, PAGE_TYPES, TIME_UNITS } from './enums.js'
import { type Plan } from './plan.js'
import { BOOL, field, readStruct, readStructList, readUnion, required, struct, union } from './struct-table.js'
import type {
  BoundingBox,
  ColumnCryptoMetaData,
  ColumnOrder,
  EdgeInterpolationAlgorithm,
  EncryptionAlgorithm,
  GeospatialStatistics,
  LogicalType,
  PageEncodingStats,
  SortingColumn,
  TimeUnit,
} from './types.js'

const { BYTE, I32, DOUBLE, BINARY, LIST, STRUCT } = CompactType

/** An i8, signed. */
function readSignedByte(c: ThriftCursor): number {
  return (readByte(c) << 24) >> 24
}

// ---------------------------------------------------------------------------------
// GeospatialStatistics (ColumnMetaData field 17)

const BOUNDING_BOX = struct<BoundingBox>(
  'BoundingBox',
  () => ({ xmin: 0, xmax: 0, ymin: 0, ymax: 0, zmin: undefined, zmax: undefined, mmin: undefined, mmax: undefined }),
  {
    1: required('xmin', DOUBLE, readDouble),
    2: required('xmax', DOUBLE, readDouble),
    3: required('ymin', DOUBLE, readDouble),
    4: required('ymax', DOUBLE, readDouble),
    5: field('zmin', DOUBLE, readDouble),
    6: field('zmax', DOUBLE, readDouble),
    7: field('mmin', DOUBLE, readDouble),
    8: field('mmax', DOUBLE, readDouble),
  },
)

const GEOSPATIAL_STATISTICS = struct<GeospatialStatistics>(
  'GeospatialStatistics',
  () => ({ bbox: undefined, geospatial_types: undefined }),
  {
    1: field('bbox', STRUCT, (c) => readStruct(c, BOUNDING_BOX)),
    2: field('geospatial_types', LIST, (c) => readI32List(c, 'GeospatialStatistics.geospatial_types')),
  },
)

export function readGeospatialStatistics(c: ThriftCursor): GeospatialStatistics {
  return readStruct(c, GEOSPATIAL_STATISTICS)
}

// ---------------------------------------------------------------------------------
// Lists of small structs

const SORTING_COLUMN = struct<SortingColumn>('SortingColumn', () => ({ column_idx: 0, descending: false, nulls_first: false }), {
  1: required('column_idx', I32, readI32),
  2: required('descending', BOOL),
  3: required('nulls_first', BOOL),
})

const PAGE_ENCODING_STATS = struct<PageEncodingStats>(
  'PageEncodingStats',
  () => ({ page_type: 0, encoding: 0, count: 0 }),
  {
    1: required('page_type', I32, (c) => enumName(PAGE_TYPES, readI32(c))),
    2: required('encoding', I32, (c) => enumName(ENCODINGS, readI32(c))),
    3: required('count', I32, readI32),
  },
)

export function readSortingColumns(c: ThriftCursor): SortingColumn[] {
  return readStructList(c, SORTING_COLUMN, 'RowGroup.sorting_columns')
}

export function readEncodingStats(c: ThriftCursor): PageEncodingStats[] {
  return readStructList(c, PAGE_ENCODING_STATS, 'ColumnMetaData.encoding_stats')
}

// ---------------------------------------------------------------------------------
// LogicalType

type TimeLogicalType = { type: 'TIME' | 'TIMESTAMP'; isAdjustedToUTC: boolean; unit: TimeUnit | undefined }

/** TimeType (7) and TimestampType (8); a time unit newer than this library cannot be interpreted. */
function timeType(id: 7 | 8) {
  return struct<TimeLogicalType, LogicalType>(
    id === 7 ? 'TimeType' : 'TimestampType',
    () => ({ type: id === 7 ? 'TIME' : 'TIMESTAMP', isAdjustedToUTC: false, unit: undefined }),
    {
      1: required('isAdjustedToUTC', BOOL),
      2: required('unit', STRUCT, (c) => TIME_UNITS[readEmptyUnion(c, 'TimeUnit') - 1]),
    },
    (value) => (value.unit === undefined ? { type: 'UNRECOGNIZED', id } : (value as LogicalType)),
  )
}

type Member<K extends LogicalType['type']> = Extract<LogicalType, { type: K }>

const LOGICAL_TYPE = union<LogicalType, undefined>(
  'LogicalType',
  {
    1: () => ({ type: 'STRING' }),
    2: () => ({ type: 'MAP' }),
    3: () => ({ type: 'LIST' }),
    4: () => ({ type: 'ENUM' }),
    5: struct<Member<'DECIMAL'>>('DecimalType', () => ({ type: 'DECIMAL', scale: 0, precision: 0 }), {
      1: required('scale', I32, readI32),
      2: required('precision', I32, readI32),
    }),
    6: () => ({ type: 'DATE' }),
    7: timeType(7),
    8: timeType(8),
    10: struct<Member<'INTEGER'>>('IntType', () => ({ type: 'INTEGER', bitWidth: 0, isSigned: false }), {
      1: required('bitWidth', BYTE, readSignedByte),
      2: required('isSigned', BOOL),
    }),
    11: () => ({ type: 'UNKNOWN' }),
    12: () => ({ type: 'JSON' }),
    13: () => ({ type: 'BSON' }),
    14: () => ({ type: 'UUID' }),
    15: () => ({ type: 'FLOAT16' }),
    16: struct<Member<'VARIANT'>>('VariantType', () => ({ type: 'VARIANT', specification_version: undefined }), {
      1: field('specification_version', BYTE, readSignedByte),
    }),
    17: struct<Member<'GEOMETRY'>>('GeometryType', () => ({ type: 'GEOMETRY', crs: undefined }), {
      1: field('crs', BINARY, readString),
    }),
    18: struct<Member<'GEOGRAPHY'>>('GeographyType', () => ({ type: 'GEOGRAPHY', crs: undefined, algorithm: undefined }), {
      1: field('crs', BINARY, readString),
      2: field('algorithm', I32, (c) => enumName<EdgeInterpolationAlgorithm>(EDGE_ALGORITHMS, readI32(c))),
    }),
    19: () => ({ type: 'VECTOR' }),
  },
  (id) => ({ type: 'UNRECOGNIZED', id }),
  () => undefined,
)

export function readLogicalType(c: ThriftCursor): LogicalType | undefined {
  return readUnion(c, LOGICAL_TYPE)
}

// ---------------------------------------------------------------------------------
// Column orders

/**
 * Reads a union whose members are all empty structs (or that we treat so): returns the
 * id of the first member set, skipping the rest; 0 when none is.
 */
function readEmptyUnion(c: ThriftCursor, what: string): number {
  let member = 0
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, what)
    if (wire === 0) break
    fid = c.fieldId
    if (member === 0 && wire === STRUCT) member = fid
    skip(c, wire)
  }
  return member
}

export function readColumnOrders(c: ThriftCursor, plan: Plan): ColumnOrder[] {
  const size = listOf(c, STRUCT, 'FileMetaData.column_orders')
  const wanted = plan.rowGroupsBeforeSchema ? null : plan.wanted
  const leafCount = plan.leafCount
  const out: ColumnOrder[] = wanted === null ? listArray(size) : []
  const bytes = c.bytes
  for (let i = 0, k = 0; i < size; i++) {
    // (`wanted` holds stale entries past the leaf count: a longer list keeps none of them)
    const keep = wanted === null || (i < leafCount && wanted[i] === 1)
    // TYPE_ORDER, nearly every entry: field 1 holding an empty struct, then STOP.
    const pos = c.offset
    if (pos + 3 <= bytes.length && bytes[pos] === 0x1c && bytes[pos + 1] === 0 && bytes[pos + 2] === 0) {
      c.offset = pos + 3
      if (keep) out[k++] = 'TYPE_ORDER'
      continue
    }
    if (!keep) {
      skipStruct(c)
      continue
    }
    const member = readEmptyUnion(c, 'ColumnOrder')
    out[k++] = COLUMN_ORDERS[member - 1] ?? 'UNRECOGNIZED'
  }
  return out
}

// ---------------------------------------------------------------------------------
// Encryption

/** AesGcmV1 and AesGcmCtrV1 share their fields; an unknown member is read as AesGcmCtrV1. */
function aes(name: string, type: EncryptionAlgorithm['type']) {
  return struct<EncryptionAlgorithm>(
    name,
    () => ({ type, aad_prefix: undefined, aad_file_unique: undefined, supply_aad_prefix: undefined }),
    {
      1: field('aad_prefix', BINARY, readBinary),
      2: field('aad_file_unique', BINARY, readBinary),
      3: field('supply_aad_prefix', BOOL),
    },
  )
}

const ENCRYPTION_ALGORITHM = union<EncryptionAlgorithm, EncryptionAlgorithm>(
  'EncryptionAlgorithm',
  { 1: aes('AesGcmV1', 'AES_GCM_V1'), 2: aes('AesGcmCtrV1', 'AES_GCM_CTR_V1') },
  aes('AesGcmCtrV1', 'UNRECOGNIZED'),
  () => ({ type: 'UNRECOGNIZED', aad_prefix: undefined, aad_file_unique: undefined, supply_aad_prefix: undefined }),
)

/** Placeholder until the required field is read (missing: an error, never returned). */
const NO_PATH: string[] = []

type ColumnKeyMember = Extract<ColumnCryptoMetaData, { type: 'ENCRYPTION_WITH_COLUMN_KEY' }>

const COLUMN_CRYPTO_METADATA = union<ColumnCryptoMetaData, undefined>(
  'ColumnCryptoMetaData',
  {
    1: () => ({ type: 'ENCRYPTION_WITH_FOOTER_KEY' }),
    2: struct<ColumnKeyMember>(
      'EncryptionWithColumnKey',
      () => ({ type: 'ENCRYPTION_WITH_COLUMN_KEY', path_in_schema: NO_PATH, key_metadata: undefined }),
      {
        1: required('path_in_schema', LIST, (c) => readStringList(c, 'EncryptionWithColumnKey.path_in_schema')),
        2: field('key_metadata', BINARY, readBinary),
      },
    ),
  },
  (id) => ({ type: 'UNRECOGNIZED', id }),
  () => undefined,
)

export function readEncryptionAlgorithm(c: ThriftCursor): EncryptionAlgorithm {
  return readUnion(c, ENCRYPTION_ALGORITHM)
}

export function readColumnCryptoMetaData(c: ThriftCursor): ColumnCryptoMetaData | undefined {
  return readUnion(c, COLUMN_CRYPTO_METADATA)
}
