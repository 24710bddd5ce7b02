/** Parquet enum names, indexed by their values in parquet.thrift (apache/parquet-format). */
import type {
  ColumnOrder,
  CompressionCodec,
  ConvertedType,
  EdgeInterpolationAlgorithm,
  Encoding,
  FieldRepetitionType,
  PageType,
  ParquetType,
  TimeUnit,
} from './types.js'

// Enum names, indexed by value (parquet.thrift).
export const PARQUET_TYPES: readonly ParquetType[] = [
  'BOOLEAN',
  'INT32',
  'INT64',
  'INT96',
  'FLOAT',
  'DOUBLE',
  'BYTE_ARRAY',
  'FIXED_LEN_BYTE_ARRAY',
]
export const CONVERTED_TYPES: readonly ConvertedType[] = [
  'UTF8',
  'MAP',
  'MAP_KEY_VALUE',
  'LIST',
  'ENUM',
  'DECIMAL',
  'DATE',
  'TIME_MILLIS',
  'TIME_MICROS',
  'TIMESTAMP_MILLIS',
  'TIMESTAMP_MICROS',
  'UINT_8',
  'UINT_16',
  'UINT_32',
  'UINT_64',
  'INT_8',
  'INT_16',
  'INT_32',
  'INT_64',
  'JSON',
  'BSON',
  'INTERVAL',
]
export const REPETITION_TYPES: readonly FieldRepetitionType[] = ['REQUIRED', 'OPTIONAL', 'REPEATED', 'VECTOR']
export const ENCODINGS: readonly Encoding[] = [
  'PLAIN',
  'GROUP_VAR_INT',
  'PLAIN_DICTIONARY',
  'RLE',
  'BIT_PACKED',
  'DELTA_BINARY_PACKED',
  'DELTA_LENGTH_BYTE_ARRAY',
  'DELTA_BYTE_ARRAY',
  'RLE_DICTIONARY',
  'BYTE_STREAM_SPLIT',
]
export const CODECS: readonly CompressionCodec[] = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZO', 'BROTLI', 'LZ4', 'ZSTD', 'LZ4_RAW']
export const PAGE_TYPES: readonly PageType[] = ['DATA_PAGE', 'INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE_V2']
export const EDGE_ALGORITHMS: readonly EdgeInterpolationAlgorithm[] = ['SPHERICAL', 'VINCENTY', 'THOMAS', 'ANDOYER', 'KARNEY']
export const TIME_UNITS: readonly TimeUnit[] = ['MILLIS', 'MICROS', 'NANOS']
export const COLUMN_ORDERS: readonly ColumnOrder[] = ['TYPE_ORDER', 'IEEE_754_TOTAL_ORDER', 'INT96_TIMESTAMP_ORDER']

/** The enum name of `value`, or `value` itself when it is newer than this library. */
export function enumName<T>(names: readonly T[], value: number): T | number {
  return value >= 0 && value < names.length ? names[value]! : value
}
