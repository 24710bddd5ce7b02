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

/** Page and column encodings (`Encoding`); `GROUP_VAR_INT` and `BIT_PACKED` are deprecated. */
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

/** Compression of a column chunk's pages (`CompressionCodec`). */
export type CompressionCodec = 'UNCOMPRESSED' | 'SNAPPY' | 'GZIP' | 'LZO' | 'BROTLI' | 'LZ4' | 'ZSTD' | 'LZ4_RAW'

/** Kinds of page (`PageType`). */
export type PageType = 'DATA_PAGE' | 'INDEX_PAGE' | 'DICTIONARY_PAGE' | 'DATA_PAGE_V2'

/** How a GEOGRAPHY column interpolates edges between points (`EdgeInterpolationAlgorithm`). */
export type EdgeInterpolationAlgorithm = 'SPHERICAL' | 'VINCENTY' | 'THOMAS' | 'ANDOYER' | 'KARNEY'

/** Unit of TIME and TIMESTAMP values (`TimeUnit` union). */
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
  | {
      type: 'DECIMAL'
      /** Digits after the decimal point. */
      scale: number
      /** Total number of digits. */
      precision: number
    }
  | { type: 'DATE' }
  | {
      type: 'TIME'
      /** Whether the value is in UTC (else local time). */
      isAdjustedToUTC: boolean
      /** Unit of the stored integer. */
      unit: TimeUnit
    }
  | {
      type: 'TIMESTAMP'
      /** Whether the value is an instant in UTC (else a local date-time). */
      isAdjustedToUTC: boolean
      /** Unit of the stored integer. */
      unit: TimeUnit
    }
  | {
      type: 'INTEGER'
      /** 8, 16, 32 or 64. */
      bitWidth: number
      /** Whether the integer is signed. */
      isSigned: boolean
    }
  | { type: 'UNKNOWN' }
  | { type: 'JSON' }
  | { type: 'BSON' }
  | { type: 'UUID' }
  | { type: 'FLOAT16' }
  | {
      type: 'VARIANT'
      /** Version of the Variant encoding specification. */
      specification_version: number | undefined
    }
  | {
      type: 'GEOMETRY'
      /** Coordinate reference system; unset means OGC:CRS84. */
      crs: string | undefined
    }
  | {
      type: 'GEOGRAPHY'
      /** Coordinate reference system; unset means OGC:CRS84. */
      crs: string | undefined
      /** Edge interpolation; unset means SPHERICAL. */
      algorithm: EdgeInterpolationAlgorithm | number | undefined
    }
  | { type: 'VECTOR' }
  | {
      type: 'UNRECOGNIZED'
      /** The union field id this library does not know. */
      id: number
    }

/** One node of the schema, listed depth-first; the first is the root. */
export interface SchemaElement {
  /** Physical type; unset on groups. */
  type: ParquetType | undefined
  /** Byte length of FIXED_LEN_BYTE_ARRAY values (or a maximum bit width). */
  type_length: number | undefined
  /** Unset on the root. */
  repetition_type: FieldRepetitionType | number | undefined
  /** The field's name (the root's is the writer's choice, often `schema`). */
  name: string
  /** Number of children of a group; unset on leaves. */
  num_children: number | undefined
  /** The deprecated annotation; writers set it beside `logical_type` for old readers. */
  converted_type: ConvertedType | number | undefined
  /** DECIMAL scale (with `converted_type` DECIMAL). */
  scale: number | undefined
  /** DECIMAL precision (with `converted_type` DECIMAL). */
  precision: number | undefined
  /** The field id of the writer's schema (Iceberg and Arrow field ids). */
  field_id: number | undefined
  /** What the physical values mean (strings, dates, decimals, ...). */
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
  /** Number of distinct values, if the writer counted them. */
  distinct_count: Int64 | undefined
  /** Upper bound per the column's `ColumnOrder`. */
  max_value: Uint8Array | undefined
  /** Lower bound per the column's `ColumnOrder`. */
  min_value: Uint8Array | undefined
  /** Whether `max_value` is a value of the column (else a bound, e.g. a truncated string). */
  is_max_value_exact: boolean | undefined
  /** Whether `min_value` is a value of the column (else a bound). */
  is_min_value_exact: boolean | undefined
  /** FLOAT, DOUBLE and FLOAT16 only; absent means NaNs may be present. */
  nan_count: Int64 | undefined
}

/** Sizes that help a reader plan memory (`SizeStatistics`). */
export interface SizeStatistics {
  /** Bytes of BYTE_ARRAY data, without length prefixes or encoding. */
  unencoded_byte_array_data_bytes: Int64 | undefined
  /** Count of values per repetition level (index = level). */
  repetition_level_histogram: Int64[] | undefined
  /** Count of values per definition level (index = level). */
  definition_level_histogram: Int64[] | undefined
}

/** Bounds of all geometries of a chunk (`BoundingBox`). */
export interface BoundingBox {
  /** Smallest X (longitude). */
  xmin: number
  /** Largest X (longitude). */
  xmax: number
  /** Smallest Y (latitude). */
  ymin: number
  /** Largest Y (latitude). */
  ymax: number
  /** Smallest Z, when the geometries have one. */
  zmin: number | undefined
  /** Largest Z, when the geometries have one. */
  zmax: number | undefined
  /** Smallest M (measure), when the geometries have one. */
  mmin: number | undefined
  /** Largest M (measure), when the geometries have one. */
  mmax: number | undefined
}

/** Statistics of a GEOMETRY or GEOGRAPHY chunk (`GeospatialStatistics`). */
export interface GeospatialStatistics {
  /** Bounds of all instances; unset if unknown. */
  bbox: BoundingBox | undefined
  /** Geospatial type codes (WKB geometry type ids) of all instances; empty if unknown. */
  geospatial_types: number[] | undefined
}

/** How many pages of a chunk have a page type and encoding (`PageEncodingStats`). */
export interface PageEncodingStats {
  /** The page type counted. */
  page_type: PageType | number
  /** The encoding counted. */
  encoding: Encoding | number
  /** Number of such pages. */
  count: number
}

/** Application metadata (`KeyValue`), e.g. the Arrow schema under `ARROW:schema`. */
export interface KeyValue {
  /** The key. */
  key: string
  /** Values over 1 KiB are decoded from the footer bytes on first read. */
  value: string | undefined
}

/** A column chunk's description (`ColumnMetaData`): where its pages are and how they are stored. */
export interface ColumnMetaData {
  /** Physical type of the column. */
  type: ParquetType
  /** Every encoding used by the chunk's pages. */
  encodings: readonly (Encoding | number)[]
  /** The column's path from the root (without the root's name). */
  path_in_schema: readonly string[]
  /** Compression of every page of the chunk. */
  codec: CompressionCodec | number
  /** Number of values, nulls included. */
  num_values: Int64
  /** Bytes of all pages uncompressed, headers included. */
  total_uncompressed_size: Int64
  /** Bytes of all pages as stored, headers included. */
  total_compressed_size: Int64
  /** Application metadata of the chunk. */
  key_value_metadata: KeyValue[] | undefined
  /** File offset of the first data page. */
  data_page_offset: Int64
  /** File offset of the first index page (unused by current writers). */
  index_page_offset: Int64 | undefined
  /** File offset of the dictionary page, when there is one. */
  dictionary_page_offset: Int64 | undefined
  /** Unset when the file has none, or when decoded with `statistics: false`. */
  statistics: Statistics | undefined
  /** Page counts per type and encoding. */
  encoding_stats: readonly PageEncodingStats[] | undefined
  /** File offset of the column's Bloom filter. */
  bloom_filter_offset: Int64 | undefined
  /** Size of the Bloom filter, header included. */
  bloom_filter_length: number | undefined
  /** Unset when the file has none, or when decoded with `statistics: false`. */
  size_statistics: SizeStatistics | undefined
  /** Unset when the file has none, or when decoded with `statistics: false`. */
  geospatial_statistics: GeospatialStatistics | undefined
}

/** How a column chunk is encrypted (`ColumnCryptoMetaData` union), as a tagged object. */
export type ColumnCryptoMetaData =
  | { type: 'ENCRYPTION_WITH_FOOTER_KEY' }
  | {
      type: 'ENCRYPTION_WITH_COLUMN_KEY'
      /** The column's path, as in `ColumnMetaData.path_in_schema`. */
      path_in_schema: string[]
      /** Retrieval metadata of the column's key. */
      key_metadata: Uint8Array | undefined
    }
  | {
      type: 'UNRECOGNIZED'
      /** The union field id this library does not know. */
      id: number
    }

/** One column of one row group (`ColumnChunk`). */
export interface ColumnChunk {
  /** Only in summary (`_metadata`) files: where the chunk's data lives. */
  file_path: string | undefined
  /** Deprecated; 0 in current writers. */
  file_offset: Int64
  /** Unset for columns encrypted with their own key (see `encrypted_column_metadata`). */
  meta_data: ColumnMetaData | undefined
  /** File offset of the chunk's offset index (page locations). */
  offset_index_offset: Int64 | undefined
  /** Size of the offset index. */
  offset_index_length: number | undefined
  /** File offset of the chunk's column index (per-page min/max). */
  column_index_offset: Int64 | undefined
  /** Size of the column index. */
  column_index_length: number | undefined
  /** How the chunk is encrypted, in encrypted files. */
  crypto_metadata: ColumnCryptoMetaData | undefined
  /** `meta_data`, encrypted with the column's key. */
  encrypted_column_metadata: Uint8Array | undefined
}

/** A sort key of a row group (`SortingColumn`). */
export interface SortingColumn {
  /** Index of the leaf column in the row group's `columns`. */
  column_idx: number
  /** Whether the order is descending. */
  descending: boolean
  /** Whether nulls come before the values. */
  nulls_first: boolean
}

/** A horizontal slice of the table (`RowGroup`). */
export interface RowGroup {
  /**
   * The column chunks, in schema leaf order. With the `columns` option, only the
   * selected ones (still in schema order).
   */
  columns: ColumnChunk[]
  /** Bytes of the row group's column data, uncompressed. */
  total_byte_size: Int64
  /** Number of rows. */
  num_rows: Int64
  /** The order the rows are sorted in, if the writer says so. */
  sorting_columns: SortingColumn[] | undefined
  /** File offset of the row group's first page. */
  file_offset: Int64 | undefined
  /** Bytes of the row group's column data as stored. */
  total_compressed_size: Int64 | undefined
  /** The row group's index in the file (kept when row groups are filtered). */
  ordinal: number | undefined
}

/**
 * Sort order of a leaf column's statistics (`ColumnOrder` union). `UNRECOGNIZED`: a
 * newer order; per the spec, ignore min/max statistics for that column.
 */
export type ColumnOrder = 'TYPE_ORDER' | 'IEEE_754_TOTAL_ORDER' | 'INT96_TIMESTAMP_ORDER' | 'UNRECOGNIZED'

/** The encryption of a file (`EncryptionAlgorithm` union). */
export interface EncryptionAlgorithm {
  /** The algorithm; `UNRECOGNIZED` for one this library does not know. */
  type: 'AES_GCM_V1' | 'AES_GCM_CTR_V1' | 'UNRECOGNIZED'
  /** The AAD prefix, when stored in the file. */
  aad_prefix: Uint8Array | undefined
  /** The unique part of the file's AAD. */
  aad_file_unique: Uint8Array | undefined
  /** Whether the reader must supply the AAD prefix. */
  supply_aad_prefix: boolean | undefined
}

/** The footer of a Parquet file (`FileMetaData`), as `parquetMetadata()` returns it. */
export interface FileMetaData {
  /** The format version the writer followed (1 or 2). */
  version: number
  /**
   * Depth-first schema, root first. With the `columns` option: only the root, the
   * selected leaves and their ancestors, with `num_children` counting kept children.
   */
  schema: SchemaElement[]
  /** Number of rows in the file. */
  num_rows: Int64
  /** With the `rowGroups` option: only those, in file order. */
  row_groups: RowGroup[]
  /** Application metadata (e.g. `ARROW:schema`, `pandas`). */
  key_value_metadata: KeyValue[] | undefined
  /** The writer, e.g. `parquet-cpp-arrow version 21.0.0`. */
  created_by: string | undefined
  /** One per leaf column (per selected leaf with the `columns` option). */
  column_orders: ColumnOrder[] | undefined
  /** Set in encrypted files with a plaintext footer. */
  encryption_algorithm: EncryptionAlgorithm | undefined
  /** Retrieval metadata of the footer signing key (plaintext footers). */
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

/** What `parquetMetadata()` reads from: a `ByteSource`, the range reads the library shares between its readers (docs/parquet.md). */
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
