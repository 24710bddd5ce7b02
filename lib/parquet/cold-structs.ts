/**
 * The cold structs of a footer: rarely present, or few per file (size and geospatial
 * statistics, sorting columns, page encoding stats, logical types, column orders,
 * encryption).
 */
import {
  CompactType,
  fieldHeader,
  listArray,
  listOf,
  missingField,
  readBinary,
  readDouble,
  readI32,
  readI32List,
  readI64,
  readI64List,
  readString,
  readStringList,
  skip,
  skipStruct,
  ThriftCursor,
  truncated,
} from './thrift.js'
import { COLUMN_ORDERS, EDGE_ALGORITHMS, ENCODINGS, enumName, PAGE_TYPES, TIME_UNITS } from './enums.js'
import { type Plan } from './plan.js'
import type {
  BoundingBox,
  ColumnCryptoMetaData,
  ColumnOrder,
  EdgeInterpolationAlgorithm,
  Encoding,
  EncryptionAlgorithm,
  GeospatialStatistics,
  Int64,
  LogicalType,
  PageEncodingStats,
  PageType,
  SizeStatistics,
  SortingColumn,
} from './types.js'

const { BOOLEAN_TRUE: TRUE, BOOLEAN_FALSE: FALSE, BYTE, I32, I64, DOUBLE, BINARY, LIST, STRUCT } = CompactType

// ---------------------------------------------------------------------------------
// Cold structs

export function readSizeStatistics(c: ThriftCursor): SizeStatistics {
  let unencoded: Int64 | undefined
  let repetition: Int64[] | undefined
  let definition: Int64[] | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'SizeStatistics')
    if (wire === 0) break
    fid = c.fieldId
    if (fid === 1 && wire === I64) unencoded = readI64(c)
    else if (fid === 2 && wire === LIST) repetition = readI64List(c, 'SizeStatistics.repetition_level_histogram')
    else if (fid === 3 && wire === LIST) definition = readI64List(c, 'SizeStatistics.definition_level_histogram')
    else skip(c, wire)
  }
  return {
    unencoded_byte_array_data_bytes: unencoded,
    repetition_level_histogram: repetition,
    definition_level_histogram: definition,
  }
}

export function readGeospatialStatistics(c: ThriftCursor): GeospatialStatistics {
  let bbox: BoundingBox | undefined
  let types: number[] | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'GeospatialStatistics')
    if (wire === 0) break
    fid = c.fieldId
    if (fid === 1 && wire === STRUCT) bbox = readBoundingBox(c)
    else if (fid === 2 && wire === LIST) types = readI32List(c, 'GeospatialStatistics.geospatial_types')
    else skip(c, wire)
  }
  return { bbox, geospatial_types: types }
}

const BOUNDING_BOX_FIELDS = ['xmin', 'xmax', 'ymin', 'ymax']

function readBoundingBox(c: ThriftCursor): BoundingBox {
  const start = c.offset
  const values: (number | undefined)[] = [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined]
  let seen = 0
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'BoundingBox')
    if (wire === 0) break
    fid = c.fieldId
    if (wire === DOUBLE && fid >= 1 && fid <= 8) {
      values[fid - 1] = readDouble(c)
      seen |= 1 << (fid - 1)
    } else skip(c, wire)
  }
  if ((seen & 15) !== 15) missingField(c, 'BoundingBox', BOUNDING_BOX_FIELDS, seen, start)
  return {
    xmin: values[0]!,
    xmax: values[1]!,
    ymin: values[2]!,
    ymax: values[3]!,
    zmin: values[4],
    zmax: values[5],
    mmin: values[6],
    mmax: values[7],
  }
}

const SORTING_COLUMN_FIELDS = ['column_idx', 'descending', 'nulls_first']

export function readSortingColumns(c: ThriftCursor): SortingColumn[] {
  const size = listOf(c, STRUCT, 'RowGroup.sorting_columns')
  const out = listArray<SortingColumn>(size)
  for (let i = 0; i < size; i++) {
    const start = c.offset
    let seen = 0
    let columnIdx = 0
    let descending = false
    let nullsFirst = false
    let fid = 0
    for (;;) {
      const wire = fieldHeader(c, fid, 'SortingColumn')
      if (wire === 0) break
      fid = c.fieldId
      if (fid === 1 && (wire | 1) === I32) {
        columnIdx = readI32(c)
        seen |= 1
      } else if (fid === 2 && (wire === TRUE || wire === FALSE)) {
        descending = wire === TRUE
        seen |= 2
      } else if (fid === 3 && (wire === TRUE || wire === FALSE)) {
        nullsFirst = wire === TRUE
        seen |= 4
      } else skip(c, wire)
    }
    if (seen !== 7) missingField(c, 'SortingColumn', SORTING_COLUMN_FIELDS, seen, start)
    out[i] = { column_idx: columnIdx, descending, nulls_first: nullsFirst }
  }
  return out
}

const PAGE_ENCODING_STATS_FIELDS = ['page_type', 'encoding', 'count']

export function readEncodingStats(c: ThriftCursor): PageEncodingStats[] {
  const size = listOf(c, STRUCT, 'ColumnMetaData.encoding_stats')
  const out = listArray<PageEncodingStats>(size)
  for (let i = 0; i < size; i++) {
    const start = c.offset
    let seen = 0
    let pageType: PageType | number = 0
    let encoding: Encoding | number = 0
    let count = 0
    let fid = 0
    for (;;) {
      const wire = fieldHeader(c, fid, 'PageEncodingStats')
      if (wire === 0) break
      fid = c.fieldId
      if ((wire | 1) !== I32) skip(c, wire)
      else if (fid === 1) {
        pageType = enumName(PAGE_TYPES, readI32(c))
        seen |= 1
      } else if (fid === 2) {
        encoding = enumName(ENCODINGS, readI32(c))
        seen |= 2
      } else if (fid === 3) {
        count = readI32(c)
        seen |= 4
      } else skip(c, wire)
    }
    if (seen !== 7) missingField(c, 'PageEncodingStats', PAGE_ENCODING_STATS_FIELDS, seen, start)
    out[i] = { page_type: pageType, encoding, count }
  }
  return out
}

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

const DECIMAL_FIELDS = ['scale', 'precision']
const TIME_FIELDS = ['isAdjustedToUTC', 'unit']
const INT_FIELDS = ['bitWidth', 'isSigned']

export function readLogicalType(c: ThriftCursor): LogicalType | undefined {
  let result: LogicalType | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'LogicalType')
    if (wire === 0) break
    fid = c.fieldId
    if (result !== undefined || wire !== STRUCT) {
      skip(c, wire)
      continue
    }
    switch (fid) {
      case 1:
        result = { type: 'STRING' }
        break
      case 2:
        result = { type: 'MAP' }
        break
      case 3:
        result = { type: 'LIST' }
        break
      case 4:
        result = { type: 'ENUM' }
        break
      case 5: {
        const start = c.offset
        let scale = 0
        let precision = 0
        let seen = 0
        let f = 0
        for (;;) {
          const w = fieldHeader(c, f, 'DecimalType')
          if (w === 0) break
          f = c.fieldId
          if (f === 1 && (w | 1) === I32) {
            scale = readI32(c)
            seen |= 1
          } else if (f === 2 && (w | 1) === I32) {
            precision = readI32(c)
            seen |= 2
          } else skip(c, w)
        }
        if (seen !== 3) missingField(c, 'DecimalType', DECIMAL_FIELDS, seen, start)
        result = { type: 'DECIMAL', scale, precision }
        continue
      }
      case 6:
        result = { type: 'DATE' }
        break
      case 7:
      case 8: {
        const struct = fid === 7 ? 'TimeType' : 'TimestampType'
        const start = c.offset
        let utc = false
        let unit = 0
        let seen = 0
        let f = 0
        for (;;) {
          const w = fieldHeader(c, f, struct)
          if (w === 0) break
          f = c.fieldId
          if (f === 1 && (w === TRUE || w === FALSE)) {
            utc = w === TRUE
            seen |= 1
          } else if (f === 2 && w === STRUCT) {
            unit = readEmptyUnion(c, 'TimeUnit')
            seen |= 2
          } else skip(c, w)
        }
        if (seen !== 3) missingField(c, struct, TIME_FIELDS, seen, start)
        const name = TIME_UNITS[unit - 1]
        // A time unit newer than this library: the annotation cannot be interpreted.
        result =
          name === undefined
            ? { type: 'UNRECOGNIZED', id: fid }
            : { type: fid === 7 ? 'TIME' : 'TIMESTAMP', isAdjustedToUTC: utc, unit: name }
        continue
      }
      case 10: {
        const start = c.offset
        let bitWidth = 0
        let signed = false
        let seen = 0
        let f = 0
        for (;;) {
          const w = fieldHeader(c, f, 'IntType')
          if (w === 0) break
          f = c.fieldId
          if (f === 1 && w === BYTE) {
            if (c.offset >= c.bytes.length) truncated(c, 'a byte', 1)
            bitWidth = (c.bytes[c.offset++]! << 24) >> 24
            seen |= 1
          } else if (f === 2 && (w === TRUE || w === FALSE)) {
            signed = w === TRUE
            seen |= 2
          } else skip(c, w)
        }
        if (seen !== 3) missingField(c, 'IntType', INT_FIELDS, seen, start)
        result = { type: 'INTEGER', bitWidth, isSigned: signed }
        continue
      }
      case 11:
        result = { type: 'UNKNOWN' }
        break
      case 12:
        result = { type: 'JSON' }
        break
      case 13:
        result = { type: 'BSON' }
        break
      case 14:
        result = { type: 'UUID' }
        break
      case 15:
        result = { type: 'FLOAT16' }
        break
      case 16: {
        let version: number | undefined
        let f = 0
        for (;;) {
          const w = fieldHeader(c, f, 'VariantType')
          if (w === 0) break
          f = c.fieldId
          if (f === 1 && w === BYTE) {
            if (c.offset >= c.bytes.length) truncated(c, 'a byte', 1)
            version = (c.bytes[c.offset++]! << 24) >> 24
          } else skip(c, w)
        }
        result = { type: 'VARIANT', specification_version: version }
        continue
      }
      case 17:
      case 18: {
        let crs: string | undefined
        let algorithm: EdgeInterpolationAlgorithm | number | undefined
        let f = 0
        for (;;) {
          const w = fieldHeader(c, f, fid === 17 ? 'GeometryType' : 'GeographyType')
          if (w === 0) break
          f = c.fieldId
          if (f === 1 && w === BINARY) crs = readString(c)
          else if (f === 2 && (w | 1) === I32 && fid === 18) algorithm = enumName(EDGE_ALGORITHMS, readI32(c))
          else skip(c, w)
        }
        result = fid === 17 ? { type: 'GEOMETRY', crs } : { type: 'GEOGRAPHY', crs, algorithm }
        continue
      }
      case 19:
        result = { type: 'VECTOR' }
        break
      default:
        result = { type: 'UNRECOGNIZED', id: fid }
    }
    skipStruct(c)
  }
  return result
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

export function readEncryptionAlgorithm(c: ThriftCursor): EncryptionAlgorithm {
  let result: EncryptionAlgorithm | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'EncryptionAlgorithm')
    if (wire === 0) break
    fid = c.fieldId
    if (result !== undefined || wire !== STRUCT) {
      skip(c, wire)
      continue
    }
    let aadPrefix: Uint8Array | undefined
    let aadFileUnique: Uint8Array | undefined
    let supplyAadPrefix: boolean | undefined
    let f = 0
    for (;;) {
      const w = fieldHeader(c, f, fid === 1 ? 'AesGcmV1' : 'AesGcmCtrV1')
      if (w === 0) break
      f = c.fieldId
      if (f === 1 && w === BINARY) aadPrefix = readBinary(c)
      else if (f === 2 && w === BINARY) aadFileUnique = readBinary(c)
      else if (f === 3 && (w === TRUE || w === FALSE)) supplyAadPrefix = w === TRUE
      else skip(c, w)
    }
    result = {
      type: fid === 1 ? 'AES_GCM_V1' : fid === 2 ? 'AES_GCM_CTR_V1' : 'UNRECOGNIZED',
      aad_prefix: aadPrefix,
      aad_file_unique: aadFileUnique,
      supply_aad_prefix: supplyAadPrefix,
    }
  }
  return result ?? { type: 'UNRECOGNIZED', aad_prefix: undefined, aad_file_unique: undefined, supply_aad_prefix: undefined }
}

const COLUMN_KEY_FIELDS = ['path_in_schema']

export function readColumnCryptoMetaData(c: ThriftCursor): ColumnCryptoMetaData | undefined {
  let result: ColumnCryptoMetaData | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'ColumnCryptoMetaData')
    if (wire === 0) break
    fid = c.fieldId
    if (result !== undefined || wire !== STRUCT) {
      skip(c, wire)
      continue
    }
    if (fid === 2) {
      const start = c.offset
      let path: string[] | undefined
      let keyMetadata: Uint8Array | undefined
      let f = 0
      for (;;) {
        const w = fieldHeader(c, f, 'EncryptionWithColumnKey')
        if (w === 0) break
        f = c.fieldId
        if (f === 1 && w === LIST) path = readStringList(c, 'EncryptionWithColumnKey.path_in_schema')
        else if (f === 2 && w === BINARY) keyMetadata = readBinary(c)
        else skip(c, w)
      }
      if (path === undefined) missingField(c, 'EncryptionWithColumnKey', COLUMN_KEY_FIELDS, 0, start)
      result = { type: 'ENCRYPTION_WITH_COLUMN_KEY', path_in_schema: path, key_metadata: keyMetadata }
    } else {
      skipStruct(c)
      result = fid === 1 ? { type: 'ENCRYPTION_WITH_FOOTER_KEY' } : { type: 'UNRECOGNIZED', id: fid }
    }
  }
  return result
}
