/** `RowGroup`: a hand-written hot decoder; chunks not asked for are skipped. */
import {
  CompactType,
  fieldHeader,
  invalid,
  listArray,
  listOf,
  missingField,
  readInteger,
  skip,
  ThriftCursor,
  requiredBit,
  allRequired,
} from './thrift.js'
import { readSortingColumns } from './cold-structs.js'
import { readColumnChunk, skipColumnChunk } from './column-chunk.js'
import { type Plan } from './plan.js'
import type { ColumnChunk, Int64, RowGroup, SortingColumn } from './types.js'

const { I16, I64, LIST, STRUCT } = CompactType

// ---------------------------------------------------------------------------------
// Row groups and column chunks

/** The required fields of `RowGroup`, in IDL order (see `readRowGroup`). */
const ROW_GROUP_FIELDS = ['columns', 'total_byte_size', 'num_rows'] as const
const ROW_GROUP_COLUMNS = /* @__PURE__ */ requiredBit(ROW_GROUP_FIELDS, 'columns')
const ROW_GROUP_TOTAL_BYTE_SIZE = /* @__PURE__ */ requiredBit(ROW_GROUP_FIELDS, 'total_byte_size')
const ROW_GROUP_NUM_ROWS = /* @__PURE__ */ requiredBit(ROW_GROUP_FIELDS, 'num_rows')
const ROW_GROUP_REQUIRED = /* @__PURE__ */ allRequired(ROW_GROUP_FIELDS)

/**
 * ```thrift
 * struct RowGroup {
 *   1: required list<ColumnChunk> columns
 *   2: required i64 total_byte_size
 *   3: required i64 num_rows
 *   4: optional list<SortingColumn> sorting_columns
 *   5: optional i64 file_offset
 *   6: optional i64 total_compressed_size
 *   7: optional i16 ordinal
 * }
 * ```
 * (parquet-format's parquet.thrift.)
 */
export function readRowGroup(c: ThriftCursor, plan: Plan): RowGroup {
  const start = c.offset
  let seen = 0
  let columns: ColumnChunk[] = []
  let totalByteSize: Int64 = 0
  let numRows: Int64 = 0
  let sortingColumns: SortingColumn[] | undefined
  let fileOffset: Int64 | undefined
  let totalCompressedSize: Int64 | undefined
  let ordinal: number | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'RowGroup')
    if (wire === 0) break
    fid = c.fieldId
    if (wire >= I16 && wire <= I64) {
      // i64 fields take only i64; i32 fields take i16 or i32 (same wire encoding)
      const value = readInteger(c, wire)
      if (wire === I64) {
        if (fid === 2) {
          totalByteSize = value
          seen |= ROW_GROUP_TOTAL_BYTE_SIZE
        } else if (fid === 3) {
          numRows = value
          seen |= ROW_GROUP_NUM_ROWS
        } else if (fid === 5) fileOffset = value
        else if (fid === 6) totalCompressedSize = value
      } else if (fid === 7) ordinal = value as number
      continue
    }
    if (fid === 1 && wire === LIST) {
      const size = listOf(c, STRUCT, 'RowGroup.columns')
      const wanted = plan.wanted
      if (wanted !== null && !plan.rowGroupsBeforeSchema) {
        checkChunkCount(c, size, plan, start)
        columns = listArray(plan.leafPaths.length) // one per selected leaf
        for (let j = 0, k = 0; j < size; j++) {
          if (wanted[j] === 1) {
            columns[k] = readColumnChunk(c, plan, k)
            k++
          } else skipColumnChunk(c, plan)
        }
      } else {
        columns = listArray(size)
        for (let j = 0; j < size; j++) columns[j] = readColumnChunk(c, plan, j)
      }
      seen |= ROW_GROUP_COLUMNS
    } else if (fid === 4 && wire === LIST) sortingColumns = readSortingColumns(c)
    else skip(c, wire)
  }
  if (seen !== ROW_GROUP_REQUIRED) missingField(c, 'RowGroup', ROW_GROUP_FIELDS, seen, start)
  return {
    columns,
    total_byte_size: totalByteSize,
    num_rows: numRows,
    sorting_columns: sortingColumns,
    file_offset: fileOffset,
    total_compressed_size: totalCompressedSize,
    ordinal,
  }
}

export function checkChunkCount(c: ThriftCursor, count: number, plan: Plan, at: number): void {
  if (count !== plan.leafCount) {
    // Selection maps chunks to schema leaves by position (parquet.thrift: "This list
    // must have the same order as the SchemaElement list"), so the counts must agree.
    invalid(c, `a row group has ${count} column chunks, the schema has ${plan.leafCount} leaf columns`, at)
  }
}
