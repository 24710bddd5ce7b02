/**
 * `sluice/parquet`: the Parquet footer (FileMetaData) reader.
 *
 * ```ts
 * import { parquetMetadata } from 'sluice/parquet'
 * const meta = await parquetMetadata(file, { columns: ['a.b'], statistics: false })
 * ```
 *
 * @module sluice/parquet
 */
export { parquetMetadata, parquetMetadataSync, DEFAULT_TAIL_SIZE, DEFAULT_MAX_FOOTER_BYTES } from './source.js'
export { decodeFileMetaData } from './metadata.js'
export { statisticsValue } from './values.js'
export {
  parquetPageIndex,
  readColumnIndex,
  readOffsetIndex,
  type BoundaryOrder,
  type ColumnIndex,
  type ColumnPageIndex,
  type OffsetIndex,
  type PageIndexOptions,
  type PageLocation,
} from './page-index.js'
export { parquetBloomFilter, readBloomFilterHeader, type BloomFilter, type BloomFilterOptions, type BloomValue } from './bloom-filter.js'
export { xxhash64 } from '../codecs/xxhash64.js'
export {
  CompactType,
  MAX_DEPTH,
  ThriftCursor,
  readBinary,
  readByte,
  readDouble,
  readFieldHeader,
  readI32,
  readI64,
  readListHeader,
  readString,
  readVarint32,
  skip,
  skipStruct,
  thriftStatus,
  walkThrift,
} from './thrift.js'
export type * from './types.js'
