/**
 * Decodes a Parquet footer (`FileMetaData`, compact protocol) straight into the final
 * objects of `types.ts`, per parquet.thrift (apache/parquet-format).
 *
 * Hot structs (FileMetaData, RowGroup, ColumnChunk, ColumnMetaData, Statistics,
 * SchemaElement) have hand-written decoders: fields go into locals and one object
 * literal of a fixed shape is made at the end; required fields are tracked in a
 * bitmask and a missing one fails with the struct and field named. The cold structs
 * (`cold-structs.ts`) are field tables read by one generic decoder (`struct-table.ts`)
 * that keeps the same rules.
 *
 * Files: this one is the entry point and `FileMetaData`; `plan.ts` the decode state;
 * `schema.ts`, `row-group.ts`, `column-chunk.ts`, `column-metadata.ts`, `statistics.ts`
 * and `key-value.ts` the structs they are named after; `thrift.ts` the compact protocol.
 *
 * Speed (bench/parquet.ts; the target is the cost of a bare walk over the bytes): the
 * hottest decoders read field headers and integers inline with the position in a
 * local; lists that repeat in every chunk (`encodings`, `encoding_stats`, and the
 * `path_in_schema` already known from the schema) are recognised by their bytes and
 * shared; `Statistics` is decoded on first read (`LazyStatistics`); arrays are made at
 * their final size; index tables are reused across decodes (`Scratch`). Allocation,
 * and the garbage collection it costs, was most of the time before. Unknown fields,
 * fields of an unexpected wire type (what Apache Thrift's generated readers do) and
 * everything not asked for are skipped.
 *
 * Selective decoding (`columns`, `rowGroups`, `statistics: false`) skips the column
 * chunks, row groups and statistics not asked for. With `columns`, the schema is first
 * scanned without making objects, paths are matched on the name bytes, and only the
 * selected leaves and their ancestors are decoded: the cost stays close to a bare walk
 * over the bytes however wide the file is.
 */
import { CodecError } from '../errors.js'
import {
  CompactType,
  fieldHeader,
  FORMAT,
  listArray,
  listOf,
  missingField,
  readBinary,
  readI32,
  readI64,
  readString,
  skip,
  skipStruct,
  ThriftCursor,
  requiredBit,
  allRequired,
} from './thrift.js'
import { readColumnOrders, readEncryptionAlgorithm } from './cold-structs.js'
import { readKeyValues } from './key-value.js'
import { makePlan, type Plan, returnScratch, takeScratch } from './plan.js'
import { checkChunkCount, readRowGroup } from './row-group.js'
import { readSchema, scanSchema } from './schema.js'
import type {
  ColumnOrder,
  EncryptionAlgorithm,
  FileMetaData,
  Int64,
  KeyValue,
  MetadataOptions,
  RowGroup,
  SchemaElement,
} from './types.js'

const { I32, I64, BINARY, LIST, STRUCT } = CompactType

// ---------------------------------------------------------------------------------
// FileMetaData

/** The required fields of `FileMetaData`, in IDL order (see `readFileMetaData`). */
const FILE_METADATA_FIELDS = ['version', 'schema', 'num_rows', 'row_groups'] as const
const FILE_META_VERSION = /* @__PURE__ */ requiredBit(FILE_METADATA_FIELDS, 'version')
const FILE_META_SCHEMA = /* @__PURE__ */ requiredBit(FILE_METADATA_FIELDS, 'schema')
const FILE_META_NUM_ROWS = /* @__PURE__ */ requiredBit(FILE_METADATA_FIELDS, 'num_rows')
const FILE_META_ROW_GROUPS = /* @__PURE__ */ requiredBit(FILE_METADATA_FIELDS, 'row_groups')
const FILE_META_REQUIRED = /* @__PURE__ */ allRequired(FILE_METADATA_FIELDS)

/**
 * Decodes the Thrift `FileMetaData` that starts at `bytes[0]` (the footer without its
 * 8-byte trailer). `origin` is the file offset of `bytes[0]`, for error messages.
 * Bytes after the struct are ignored (room for footer extensions). Throws `CodecError`:
 * `TRUNCATED`, `INVALID_DATA`, `LIMIT_EXCEEDED`, or `INVALID_OPTION` for bad options.
 */
export function decodeFileMetaData(bytes: Uint8Array, options?: MetadataOptions, origin = 0): FileMetaData {
  const scratch = takeScratch()
  try {
    const plan = makePlan(options, scratch)
    const c = new ThriftCursor(bytes, 0, origin)
    const metadata = readFileMetaData(c, plan)
    metadata.metadata_length = bytes.length
    return metadata
  } finally {
    returnScratch(scratch)
  }
}

/**
 * ```thrift
 * struct FileMetaData {
 *   1: required i32 version
 *   2: required list<SchemaElement> schema
 *   3: required i64 num_rows
 *   4: required list<RowGroup> row_groups
 *   5: optional list<KeyValue> key_value_metadata
 *   6: optional string created_by
 *   7: optional list<ColumnOrder> column_orders
 *   8: optional EncryptionAlgorithm encryption_algorithm
 *   9: optional binary footer_signing_key_metadata
 * }
 * ```
 * (parquet-format's parquet.thrift.)
 */
function readFileMetaData(c: ThriftCursor, plan: Plan): FileMetaData {
  const start = c.offset
  let seen = 0
  let version = 0
  let schema: SchemaElement[] = []
  let numRows: Int64 = 0
  let rowGroups: RowGroup[] = []
  let rowGroupCount = 0
  let keyValueMetadata: KeyValue[] | undefined
  let createdBy: string | undefined
  let columnOrders: ColumnOrder[] | undefined
  let encryptionAlgorithm: EncryptionAlgorithm | undefined
  let footerSigningKeyMetadata: Uint8Array | undefined
  let fid = 0
  for (;;) {
    const type = fieldHeader(c, fid, 'FileMetaData')
    if (type === 0) break
    fid = c.fieldId
    switch (fid) {
      case 1:
        if ((type | 1) !== I32) break
        version = readI32(c)
        seen |= FILE_META_VERSION
        continue
      case 2:
        if (type !== LIST) break
        schema = plan.columns ? scanSchema(c, plan) : readSchema(c, plan)
        seen |= FILE_META_SCHEMA
        continue
      case 3:
        if (type !== I64) break
        numRows = readI64(c)
        seen |= FILE_META_NUM_ROWS
        continue
      case 4: {
        if (type !== LIST) break
        if (plan.leafCount < 0) plan.rowGroupsBeforeSchema = true
        const size = listOf(c, STRUCT, 'FileMetaData.row_groups')
        rowGroupCount = size
        const pick = plan.rowGroups
        rowGroups = pick === null ? listArray(size) : []
        for (let i = 0, k = 0; i < size; i++) {
          if (pick === null || pick.has(i)) rowGroups[k++] = readRowGroup(c, plan)
          else skipStruct(c)
        }
        seen |= FILE_META_ROW_GROUPS
        continue
      }
      case 5:
        if (type !== LIST) break
        keyValueMetadata = readKeyValues(c, 'FileMetaData.key_value_metadata')
        continue
      case 6:
        if (type !== BINARY) break
        createdBy = readString(c)
        continue
      case 7:
        if (type !== LIST) break
        columnOrders = readColumnOrders(c, plan)
        continue
      case 8:
        if (type !== STRUCT) break
        encryptionAlgorithm = readEncryptionAlgorithm(c)
        continue
      case 9:
        if (type !== BINARY) break
        footerSigningKeyMetadata = readBinary(c)
        continue
    }
    skip(c, type)
  }
  if (seen !== FILE_META_REQUIRED) missingField(c, 'FileMetaData', FILE_METADATA_FIELDS, seen, start)
  if (plan.rowGroups !== null) {
    for (const index of plan.rowGroups) {
      if (index >= rowGroupCount) {
        throw new CodecError('INVALID_OPTION', FORMAT, `row group ${index} was requested, the file has ${rowGroupCount}`)
      }
    }
  }
  if (plan.rowGroupsBeforeSchema && plan.wanted !== null) {
    // The row groups came before the schema, so they were decoded whole: select now.
    const wanted = plan.wanted
    for (const group of rowGroups) {
      checkChunkCount(c, group.columns.length, plan, start)
      group.columns = group.columns.filter((_, j) => wanted[j] === 1)
    }
    if (columnOrders !== undefined && columnOrders.length === plan.leafCount) {
      columnOrders = columnOrders.filter((_, j) => wanted[j] === 1)
    }
  }
  return {
    version,
    schema,
    num_rows: numRows,
    row_groups: rowGroups,
    key_value_metadata: keyValueMetadata,
    created_by: createdBy,
    column_orders: columnOrders,
    encryption_algorithm: encryptionAlgorithm,
    footer_signing_key_metadata: footerSigningKeyMetadata,
    metadata_length: 0,
  }
}
