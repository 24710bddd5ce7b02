/**
 * The Parquet footer as decoded by `parquetMetadata()`: one interface per struct of
 * `parquet.thrift` (apache/parquet-format, src/main/thrift/parquet.thrift), fields named
 * as in the IDL. Optional fields that the file does not set are `undefined`.
 *
 * Conventions:
 * - Enums are their IDL names (`'INT32'`, `'SNAPPY'`). A value this library does not
 *   know (a newer format version) stays a `number` instead of failing the decode,
 *   except the physical type, whose set is closed (a file with another one is corrupt).
 * - i64 fields are `Int64`: a `number` whenever the value is a safe integer, which every
 *   size, offset and count of a real file is; a `bigint` only beyond 2^53 - 1.
 * - `binary` fields are `Uint8Array` views into the footer bytes (no copy): they keep
 *   the footer's buffer alive; copy them (`.slice()`) to keep one alone.
 * - `path_in_schema`, `encodings` and `encoding_stats` of column chunks may be shared
 *   between chunks with the same encoded bytes (decoded once): treat them as read-only.
 */
import type { ByteSource } from '../range-source.js'
export type { RangeSource } from '../range-source.js'

/** An i64: a number when safe (|v| <= 2^53 - 1), a bigint beyond. */
export type Int64 = number | bigint

/** Physical types (`Type`). */
export type ParquetType =
  | 'BOOLEAN'
  | 'INT32'
  | 'INT64'
  | 'INT96'
  | 'FLOAT'
  | 'DOUBLE'
  | 'BYTE_ARRAY'
  | 'FIXED_LEN_BYTE_ARRAY'

/** Deprecated annotations superseded by `LogicalType`, kept for old readers. */
export type ConvertedType =
  | 'UTF8'
  | 'MAP'
  | 'MAP_KEY_VALUE'
  | 'LIST'
  | 'ENUM'
  | 'DECIMAL'
  | 'DATE'
  | 'TIME_MILLIS'
  | 'TIME_MICROS'
  | 'TIMESTAMP_MILLIS'
  | 'TIMESTAMP_MICROS'
  | 'UINT_8'
  | 'UINT_16'
  | 'UINT_32'
  | 'UINT_64'
  | 'INT_8'
  | 'INT_16'
  | 'INT_32'
  | 'INT_64'
  | 'JSON'
  | 'BSON'
  | 'INTERVAL'

/** `REQUIRED`, `OPTIONAL`, `REPEATED`, and `VECTOR` (fixed-size, with `vector_length`). */
export type FieldRepetitionType = 'REQUIRED' | 'OPTIONAL' | 'REPEATED' | 'VECTOR'

export type Encoding =
  | 'PLAIN'
  | 'GROUP_VAR_INT'
  | 'PLAIN_DICTIONARY'
  | 'RLE'
  | 'BIT_PACKED'
  | 'DELTA_BINARY_PACKED'
  | 'DELTA_LENGTH_BYTE_ARRAY'
  | 'DELTA_BYTE_ARRAY'
  | 'RLE_DICTIONARY'
  | 'BYTE_STREAM_SPLIT'

export type CompressionCodec = 'UNCOMPRESSED' | 'SNAPPY' | 'GZIP' | 'LZO' | 'BROTLI' | 'LZ4' | 'ZSTD' | 'LZ4_RAW'

export type PageType = 'DATA_PAGE' | 'INDEX_PAGE' | 'DICTIONARY_PAGE' | 'DATA_PAGE_V2'

export type EdgeInterpolationAlgorithm = 'SPHERICAL' | 'VINCENTY' | 'THOMAS' | 'ANDOYER' | 'KARNEY'

export type TimeUnit = 'MILLIS' | 'MICROS' | 'NANOS'

/**
 * `LogicalType`, a Thrift union, as a tagged object. `UNKNOWN` is the IDL's name for
 * the always-null type (`NullType`). A union member this library does not know (a
 * newer format) is `{ type: 'UNRECOGNIZED', id }` with the union field id.
 */
export type LogicalType =
  | { type: 'STRING' }
  | { type: 'MAP' }
  | { type: 'LIST' }
  | { type: 'ENUM' }
  | { type: 'DECIMAL'; scale: number; precision: number }
  | { type: 'DATE' }
  | { type: 'TIME'; isAdjustedToUTC: boolean; unit: TimeUnit }
  | { type: 'TIMESTAMP'; isAdjustedToUTC: boolean; unit: TimeUnit }
  | { type: 'INTEGER'; bitWidth: number; isSigned: boolean }
  | { type: 'UNKNOWN' }
  | { type: 'JSON' }
  | { type: 'BSON' }
  | { type: 'UUID' }
  | { type: 'FLOAT16' }
  | { type: 'VARIANT'; specification_version: number | undefined }
  | { type: 'GEOMETRY'; crs: string | undefined }
  | { type: 'GEOGRAPHY'; crs: string | undefined; algorithm: EdgeInterpolationAlgorithm | number | undefined }
  | { type: 'VECTOR' }
  | { type: 'UNRECOGNIZED'; id: number }

/** One node of the schema, listed depth-first; the first is the root. */
export interface SchemaElement {
  /** Physical type; unset on groups. */
  type: ParquetType | undefined
  /** Byte length of FIXED_LEN_BYTE_ARRAY values (or a maximum bit width). */
  type_length: number | undefined
  /** Unset on the root. */
  repetition_type: FieldRepetitionType | number | undefined
  name: string
  /** Number of children of a group; unset on leaves. */
  num_children: number | undefined
  converted_type: ConvertedType | number | undefined
  scale: number | undefined
  precision: number | undefined
  field_id: number | undefined
  logical_type: LogicalType | undefined
  /** Element slots per parent occurrence, with repetition `VECTOR`. */
  vector_length: number | undefined
}

/**
 * Column chunk statistics. Values are PLAIN-encoded bytes (byte arrays without their
 * length prefix), views into the footer; `statisticsValue()` decodes them for a column.
 * When `max`/`min` hold the same bytes as `max_value`/`min_value`, they are the same
 * view.
 *
 * Decoded on first read: the fields are getters/setters on the object's prototype
 * (the footer was validated when it was decoded; the first read decodes the struct).
 * Reads, destructuring and `JSON.stringify` see the values; spreading, `Object.keys`,
 * deep-equality helpers and `structuredClone` see no own properties (the object's
 * untyped `toJSON()` method returns a plain copy).
 */
export interface Statistics {
  /** Deprecated, signed-comparison maximum. */
  max: Uint8Array | undefined
  /** Deprecated, signed-comparison minimum. */
  min: Uint8Array | undefined
  /** Absent is not zero: readers must not assume 0 when it is missing. */
  null_count: Int64 | undefined
  distinct_count: Int64 | undefined
  /** Upper bound per the column's `ColumnOrder`. */
  max_value: Uint8Array | undefined
  /** Lower bound per the column's `ColumnOrder`. */
  min_value: Uint8Array | undefined
  is_max_value_exact: boolean | undefined
  is_min_value_exact: boolean | undefined
  /** FLOAT, DOUBLE and FLOAT16 only; absent means NaNs may be present. */
  nan_count: Int64 | undefined
}

export interface SizeStatistics {
  unencoded_byte_array_data_bytes: Int64 | undefined
  repetition_level_histogram: Int64[] | undefined
  definition_level_histogram: Int64[] | undefined
}

export interface BoundingBox {
  xmin: number
  xmax: number
  ymin: number
  ymax: number
  zmin: number | undefined
  zmax: number | undefined
  mmin: number | undefined
  mmax: number | undefined
}

export interface GeospatialStatistics {
  bbox: BoundingBox | undefined
  /** Geospatial type codes (WKB geometry type ids) of all instances; empty if unknown. */
  geospatial_types: number[] | undefined
}

export interface PageEncodingStats {
  page_type: PageType | number
  encoding: Encoding | number
  count: number
}

export interface KeyValue {
  key: string
  /** Values over 1 KiB are decoded from the footer bytes on first read. */
  value: string | undefined
}

export interface ColumnMetaData {
  type: ParquetType
  encodings: readonly (Encoding | number)[]
  path_in_schema: readonly string[]
  codec: CompressionCodec | number
  num_values: Int64
  total_uncompressed_size: Int64
  total_compressed_size: Int64
  key_value_metadata: KeyValue[] | undefined
  data_page_offset: Int64
  index_page_offset: Int64 | undefined
  dictionary_page_offset: Int64 | undefined
  /** Unset when the file has none, or when decoded with `statistics: false`. */
  statistics: Statistics | undefined
  encoding_stats: readonly PageEncodingStats[] | undefined
  bloom_filter_offset: Int64 | undefined
  bloom_filter_length: number | undefined
  /** Unset when the file has none, or when decoded with `statistics: false`. */
  size_statistics: SizeStatistics | undefined
  /** Unset when the file has none, or when decoded with `statistics: false`. */
  geospatial_statistics: GeospatialStatistics | undefined
}

export type ColumnCryptoMetaData =
  | { type: 'ENCRYPTION_WITH_FOOTER_KEY' }
  | { type: 'ENCRYPTION_WITH_COLUMN_KEY'; path_in_schema: string[]; key_metadata: Uint8Array | undefined }
  | { type: 'UNRECOGNIZED'; id: number }

export interface ColumnChunk {
  /** Only in summary (`_metadata`) files: where the chunk's data lives. */
  file_path: string | undefined
  /** Deprecated; 0 in current writers. */
  file_offset: Int64
  /** Unset for columns encrypted with their own key (see `encrypted_column_metadata`). */
  meta_data: ColumnMetaData | undefined
  offset_index_offset: Int64 | undefined
  offset_index_length: number | undefined
  column_index_offset: Int64 | undefined
  column_index_length: number | undefined
  crypto_metadata: ColumnCryptoMetaData | undefined
  encrypted_column_metadata: Uint8Array | undefined
}

export interface SortingColumn {
  column_idx: number
  descending: boolean
  nulls_first: boolean
}

export interface RowGroup {
  /**
   * The column chunks, in schema leaf order. With the `columns` option, only the
   * selected ones (still in schema order).
   */
  columns: ColumnChunk[]
  total_byte_size: Int64
  num_rows: Int64
  sorting_columns: SortingColumn[] | undefined
  file_offset: Int64 | undefined
  total_compressed_size: Int64 | undefined
  ordinal: number | undefined
}

/**
 * Sort order of a leaf column's statistics (`ColumnOrder` union). `UNRECOGNIZED`: a
 * newer order; per the spec, ignore min/max statistics for that column.
 */
export type ColumnOrder = 'TYPE_ORDER' | 'IEEE_754_TOTAL_ORDER' | 'INT96_TIMESTAMP_ORDER' | 'UNRECOGNIZED'

export interface EncryptionAlgorithm {
  type: 'AES_GCM_V1' | 'AES_GCM_CTR_V1' | 'UNRECOGNIZED'
  aad_prefix: Uint8Array | undefined
  aad_file_unique: Uint8Array | undefined
  supply_aad_prefix: boolean | undefined
}

export interface FileMetaData {
  version: number
  /**
   * Depth-first schema, root first. With the `columns` option: only the root, the
   * selected leaves and their ancestors, with `num_children` counting kept children.
   */
  schema: SchemaElement[]
  num_rows: Int64
  /** With the `rowGroups` option: only those, in file order. */
  row_groups: RowGroup[]
  key_value_metadata: KeyValue[] | undefined
  created_by: string | undefined
  /** One per leaf column (per selected leaf with the `columns` option). */
  column_orders: ColumnOrder[] | undefined
  /** Set in encrypted files with a plaintext footer. */
  encryption_algorithm: EncryptionAlgorithm | undefined
  footer_signing_key_metadata: Uint8Array | undefined
  /** Length in bytes of the Thrift-encoded footer (not a Thrift field). */
  metadata_length: number
}

/** Options of `parquetMetadata()` and `decodeFileMetaData()`. */
export interface MetadataOptions {
  /**
   * Leaf columns to decode, as dotted paths (`'a.b.c'`) or arrays of path segments. A
   * group path selects every leaf under it. Column chunks of other columns are skipped
   * (the bytes are still scanned). A path that names no column is an error.
   */
  columns?: readonly (string | readonly string[])[]
  /** Row group indexes to decode (others are skipped); an index past the end is an error. */
  rowGroups?: readonly number[]
  /**
   * `false` skips `statistics`, `size_statistics` and `geospatial_statistics` of
   * every column chunk. Default `true`.
   */
  statistics?: boolean
}

/** What `parquetMetadata()` reads from (the shared `ByteSource` of lib/range-source.ts). */
export type MetadataSource = ByteSource

export interface SourceOptions extends MetadataOptions {
  /**
   * Bytes read speculatively from the end of the file, default 64 KiB: a footer that
   * fits takes one read, any other exactly one more.
   */
  tailSize?: number
  /**
   * Largest footer accepted, default 256 MiB: the length comes from the file, and a
   * range source would otherwise be asked for up to 4 GiB on a corrupt or hostile one.
   */
  maxFooterBytes?: number
}
