/**
 * `ColumnChunk`, a hot struct: the hand-written decoder, and the fast skip over the
 * chunks a selective decode does not keep.
 */
import {
  CompactType,
  headerTruncated,
  missingField,
  readBinary,
  readI32,
  readInteger,
  readString,
  skip,
  skipShortStrings,
  skipSimpleStruct,
  skipVarint,
  ThriftCursor,
  requiredBit,
  allRequired,
  MAX_DEPTH,
  tooDeep,
} from './thrift.js'
import { readColumnCryptoMetaData } from './cold-structs.js'
import { readColumnMetaData } from './column-metadata.js'
import { type Plan, startsWith } from './plan.js'
import type { ColumnChunk, ColumnCryptoMetaData, ColumnMetaData, Int64 } from './types.js'

const { BOOLEAN_TRUE: TRUE, BOOLEAN_FALSE: FALSE, I16, I64, BINARY, LIST, STRUCT } = CompactType

/**
 * Skips a column chunk that was not selected: accepts and rejects the same bytes as
 * `skipStruct`, faster on what repeats from chunk to chunk. Integers and short binary
 * values are skipped inline, and the `encodings` and `encoding_stats` lists, the same
 * few byte strings in every chunk of a file, are compared with the last ones walked:
 * a compact-protocol value is self-delimiting, so bytes that start with a complete
 * list already walked without error hold that same list, and the walk moves past it
 * without going through its elements. (The floor of the bench stays the plain walk.)
 * `level` 0 is the ColumnChunk, 1 its ColumnMetaData; deeper structs use `skipStruct`.
 * Each level counts against the nesting limit as `skipStruct` counts it.
 */
export function skipColumnChunk(c: ThriftCursor, plan: Plan, level = 0): void {
  if (++c.depth > MAX_DEPTH) tooDeep(c, c.offset)
  const bytes = c.bytes
  const end = bytes.length
  let pos = c.offset
  let next = 0
  let fid = 0
  for (;;) {
    if (pos >= end) headerTruncated(c, pos, level === 0 ? 'ColumnChunk' : 'ColumnMetaData')
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
      if (pos < end && bytes[pos]! < 0x80) pos++
      else if ((next = skipVarint(bytes, pos)) > pos) pos = next // offsets and sizes
      else {
        c.offset = pos
        skip(c, wire)
        pos = c.offset
      }
    } else if (wire === BINARY) {
      const length = pos < end ? bytes[pos]! : 0x80
      if (length < 0x80 && pos + 1 + length <= end) pos += 1 + length
      else {
        c.offset = pos
        skip(c, BINARY)
        pos = c.offset
      }
    } else if (wire === LIST && level === 1 && (fid === 2 || fid === 13)) {
      const from = fid === 2 ? plan.skippedEncodingsStart : plan.skippedStatsStart
      const to = fid === 2 ? plan.skippedEncodingsEnd : plan.skippedStatsEnd
      if (from !== to && startsWith(bytes, pos, from, to)) pos += to - from
      else {
        c.offset = pos
        skip(c, LIST)
        if (fid === 2) {
          plan.skippedEncodingsStart = pos
          plan.skippedEncodingsEnd = c.offset
        } else {
          plan.skippedStatsStart = pos
          plan.skippedStatsEnd = c.offset
        }
        pos = c.offset
      }
    } else if (wire === LIST && level === 1 && fid === 3 && (next = skipShortStrings(bytes, pos)) > pos) {
      pos = next // path_in_schema
    } else if (wire === STRUCT && level === 0 && fid === 3) {
      c.offset = pos
      skipColumnChunk(c, plan, 1)
      pos = c.offset
    } else if (wire === STRUCT && (next = skipSimpleStruct(bytes, pos)) > pos) {
      pos = next // statistics, size_statistics
    } else if (wire !== TRUE && wire !== FALSE) {
      c.offset = pos
      skip(c, wire)
      pos = c.offset
    }
  }
  c.offset = pos
  c.depth--
}

/** The required fields of `ColumnChunk`, in IDL order (see `readColumnChunk`). */
const COLUMN_CHUNK_FIELDS = ['file_offset'] as const
const CHUNK_FILE_OFFSET = /* @__PURE__ */ requiredBit(COLUMN_CHUNK_FIELDS, 'file_offset')
const CHUNK_REQUIRED = /* @__PURE__ */ allRequired(COLUMN_CHUNK_FIELDS)

/**
 * ```thrift
 * struct ColumnChunk {
 *   1: optional string file_path
 *   2: required i64 file_offset = 0
 *   3: optional ColumnMetaData meta_data
 *   4: optional i64 offset_index_offset
 *   5: optional i32 offset_index_length
 *   6: optional i64 column_index_offset
 *   7: optional i32 column_index_length
 *   8: optional ColumnCryptoMetaData crypto_metadata
 *   9: optional binary encrypted_column_metadata
 * }
 * ```
 * (parquet-format's parquet.thrift.) `path`: index of the chunk's expected path in
 * `plan.leafPaths`.
 */
export function readColumnChunk(c: ThriftCursor, plan: Plan, path: number): ColumnChunk {
  const bytes = c.bytes
  const end = bytes.length
  const start = c.offset
  let pos = start
  let seen = 0
  let filePath: string | undefined
  let fileOffset: Int64 = 0
  let metaData: ColumnMetaData | undefined
  let offsetIndexOffset: Int64 | undefined
  let offsetIndexLength: number | undefined
  let columnIndexOffset: Int64 | undefined
  let columnIndexLength: number | undefined
  let cryptoMetadata: ColumnCryptoMetaData | undefined
  let encryptedColumnMetadata: Uint8Array | undefined
  let fid = 0
  for (;;) {
    if (pos >= end) headerTruncated(c, pos, 'ColumnChunk')
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
      // i64 fields take only i64; i32 fields take i16 or i32 (same wire encoding)
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
        if (fid === 2) {
          fileOffset = value
          seen |= CHUNK_FILE_OFFSET
        } else if (fid === 4) offsetIndexOffset = value
        else if (fid === 6) columnIndexOffset = value
      } else if (fid === 5) offsetIndexLength = value as number
      else if (fid === 7) columnIndexLength = value as number
      continue
    }
    c.offset = pos
    if (fid === 3 && wire === STRUCT) metaData = readColumnMetaData(c, plan, path)
    else if (fid === 1 && wire === BINARY) filePath = readString(c)
    else if (fid === 8 && wire === STRUCT) cryptoMetadata = readColumnCryptoMetaData(c)
    else if (fid === 9 && wire === BINARY) encryptedColumnMetadata = readBinary(c)
    else skip(c, wire)
    pos = c.offset
  }
  c.offset = pos
  if (seen !== CHUNK_REQUIRED) missingField(c, 'ColumnChunk', COLUMN_CHUNK_FIELDS, seen, start)
  return new (ColumnChunkObject as unknown as new (...args: unknown[]) => ColumnChunk)(
    filePath,
    fileOffset,
    metaData,
    offsetIndexOffset,
    offsetIndexLength,
    columnIndexOffset,
    columnIndexLength,
    cryptoMetadata,
    encryptedColumnMetadata,
  )
}

/**
 * A plain ColumnChunk object (prototype `Object.prototype`, the same own properties in
 * the same order as a literal), made by `new`. V8 may move the allocation site of an
 * object literal to old space once it sees most of its objects survive a scavenge
 * (allocation-site pretenuring), which a footer of 10,000 chunks shows it mid-decode.
 * Then every chunk is born old, and the young objects it holds stay alive through
 * scavenges until a full collection: in one process in two or three, a full decode of
 * 10 columns x 1,000 row groups took 20 ms instead of 2. Objects made by `new` of a
 * plain function have no allocation site to pretenure.
 */
function ColumnChunkObject(
  this: ColumnChunk,
  filePath: string | undefined,
  fileOffset: Int64,
  metaData: ColumnMetaData | undefined,
  offsetIndexOffset: Int64 | undefined,
  offsetIndexLength: number | undefined,
  columnIndexOffset: Int64 | undefined,
  columnIndexLength: number | undefined,
  cryptoMetadata: ColumnCryptoMetaData | undefined,
  encryptedColumnMetadata: Uint8Array | undefined,
): void {
  this.file_path = filePath
  this.file_offset = fileOffset
  this.meta_data = metaData
  this.offset_index_offset = offsetIndexOffset
  this.offset_index_length = offsetIndexLength
  this.column_index_offset = columnIndexOffset
  this.column_index_length = columnIndexLength
  this.crypto_metadata = cryptoMetadata
  this.encrypted_column_metadata = encryptedColumnMetadata
}
ColumnChunkObject.prototype = Object.prototype
