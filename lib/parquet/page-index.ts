/**
 * The Parquet page index (parquet-format PageIndex.md): per column chunk a `ColumnIndex`
 * (each page's min/max, null flags and counts) and an `OffsetIndex` (each page's place
 * in the file and first row), Thrift structs that live outside the footer, between the
 * last column chunk and the footer, at the offsets `ColumnChunk` records. Readers use
 * them to skip pages.
 *
 * `parquetPageIndex` reads the indexes asked for (row groups, columns, kinds) with the
 * fewest range requests the offsets allow: the wanted ranges are sorted and adjacent or
 * overlapping ones coalesce into one read (writers keep them together: parquet-mr and
 * arrow per row group, hyparquet-writer in one run before the footer). Each struct is
 * decoded straight into its final object by the hand-written decoders below; min and max
 * stay the raw PLAIN bytes, decodable with `statisticsValue` as the footer's statistics.
 */
import { CodecError } from '../errors.js'
import { checkBoolean, checkInteger } from '../options.js'
import {
  CompactType,
  fieldHeader,
  FORMAT,
  listOf,
  missingField,
  readBinary,
  readI32,
  readI64,
  readI64List,
  readListHeader,
  skip,
  ThriftCursor,
} from './thrift.js'
import { rangeReader, readExactly } from '../range-source.js'
import type { FileMetaData, Int64, MetadataSource } from './types.js'

const { BOOLEAN_TRUE: TRUE, BOOLEAN_FALSE: FALSE, I32, I64, BINARY, LIST, STRUCT } = CompactType

/** parquet.thrift `BoundaryOrder`, by value. */
export type BoundaryOrder = 'UNORDERED' | 'ASCENDING' | 'DESCENDING'
const BOUNDARY_ORDERS: readonly BoundaryOrder[] = ['UNORDERED', 'ASCENDING', 'DESCENDING']

/** parquet.thrift `PageLocation`. */
export interface PageLocation {
  /** Offset of the page header in the file. */
  offset: Int64
  /** Size of the page, header included. */
  compressed_page_size: number
  /** Index of the page's first row within the row group. */
  first_row_index: Int64
}

/** parquet.thrift `OffsetIndex`. */
export interface OffsetIndex {
  /** Field 1: where each data page of the chunk lies, by increasing offset. */
  page_locations: PageLocation[]
  /** Unencoded byte-array bytes per page (BYTE_ARRAY columns), when written. */
  unencoded_byte_array_data_bytes: Int64[] | undefined
}

/** parquet.thrift `ColumnIndex`. min/max are the PLAIN bytes (decode with `statisticsValue`). */
export interface ColumnIndex {
  /** Whether each page holds only nulls (its min/max are then empty and meaningless). */
  null_pages: boolean[]
  /**
   * Field 2: each page's lower bound, the PLAIN-encoded bytes of a value in the column's
   * `ColumnOrder`; a bound, not necessarily a value on the page (writers may shorten long
   * BYTE_ARRAY values). Empty for a null page.
   */
  min_values: Uint8Array[]
  /** Field 3: each page's upper bound, as `min_values`. */
  max_values: Uint8Array[]
  /**
   * Field 4: whether `min_values`/`max_values` are sorted over the pages, so a reader may
   * binary-search them. The value of a `BoundaryOrder` this reader does not know stays a number.
   */
  boundary_order: BoundaryOrder | number
  /**
   * Field 5: each page's number of nulls, when written (optional in the spec; absent is
   * not the same as zero).
   */
  null_counts: Int64[] | undefined
  /**
   * Field 6: each page's repetition-level histogram, all pages concatenated: the count of
   * level `l` in page `p` is at `p * (max_repetition_level + 1) + l`. Absent when not
   * written (writers may omit it when the column's max repetition level is 0).
   */
  repetition_level_histograms: Int64[] | undefined
  /** Field 7: each page's definition-level histogram, laid out as `repetition_level_histograms`, with `max_definition_level`. */
  definition_level_histograms: Int64[] | undefined
}

/** The indexes of one column chunk. */
export interface ColumnPageIndex {
  /** Row group index in `metadata.row_groups`. */
  rowGroup: number
  /** Column index in that row group's `columns`. */
  column: number
  /** The column's path (`ColumnMetaData.path_in_schema` joined with '.'). */
  path: string
  /** Absent when the chunk has none or it was not asked for. */
  columnIndex: ColumnIndex | undefined
  /** The chunk's `OffsetIndex`; absent when the chunk has none or it was not asked for. */
  offsetIndex: OffsetIndex | undefined
}

/** Options of `parquetPageIndex()`: which chunks and which of their indexes to read, and a bound on the bytes read. */
export interface PageIndexOptions {
  /** Row groups (indexes into `metadata.row_groups`); default all. */
  rowGroups?: readonly number[]
  /** Columns by path ('a.b') or index into a row group's `columns`; default all. */
  columns?: readonly (string | number)[]
  /** Decode ColumnIndex structs; default true. */
  columnIndex?: boolean
  /** Decode OffsetIndex structs; default true. */
  offsetIndex?: boolean
  /**
   * Most bytes of index structs to read, over all chunks asked for (default 256 MiB,
   * as the footer's `maxFooterBytes`): lengths come from the footer, untrusted.
   */
  maxBytes?: number
}

const OPTION_KEYS = ['rowGroups', 'columns', 'columnIndex', 'offsetIndex', 'maxBytes']
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024

// ---------------------------------------------------------------------------------
// Decoders

/*
 * struct PageLocation {
 *   1: required i64 offset
 *   2: required i32 compressed_page_size
 *   3: required i64 first_row_index
 * }
 */
const PL_OFFSET = 1 << 0
const PL_COMPRESSED_PAGE_SIZE = 1 << 1
const PL_FIRST_ROW_INDEX = 1 << 2
const PL_REQUIRED = PL_OFFSET | PL_COMPRESSED_PAGE_SIZE | PL_FIRST_ROW_INDEX
const PL_FIELDS = ['offset', 'compressed_page_size', 'first_row_index']

function readPageLocation(c: ThriftCursor): PageLocation {
  const start = c.offset
  let offset: Int64 = 0
  let size = 0
  let first: Int64 = 0
  let seen = 0
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'PageLocation')
    if (wire === 0) break
    fid = c.fieldId
    if (fid === 1 && wire === I64) {
      offset = readI64(c)
      seen |= PL_OFFSET
    } else if (fid === 2 && (wire | 1) === I32) {
      size = readI32(c)
      seen |= PL_COMPRESSED_PAGE_SIZE
    } else if (fid === 3 && wire === I64) {
      first = readI64(c)
      seen |= PL_FIRST_ROW_INDEX
    } else skip(c, wire)
  }
  if (seen !== PL_REQUIRED) missingField(c, 'PageLocation', PL_FIELDS, seen, start)
  return { offset, compressed_page_size: size, first_row_index: first }
}

/*
 * struct OffsetIndex {
 *   1: required list<PageLocation> page_locations
 *   2: optional list<i64> unencoded_byte_array_data_bytes
 * }
 */
const OI_PAGE_LOCATIONS = 1 << 0
const OI_FIELDS = ['page_locations']

/** Decodes one OffsetIndex at the cursor. */
export function readOffsetIndex(c: ThriftCursor): OffsetIndex {
  const start = c.offset
  let locations: PageLocation[] = []
  let unencoded: Int64[] | undefined
  let seen = 0
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'OffsetIndex')
    if (wire === 0) break
    fid = c.fieldId
    if (fid === 1 && wire === LIST) {
      const n = listOf(c, STRUCT, 'OffsetIndex.page_locations')
      locations = new Array<PageLocation>(n)
      for (let i = 0; i < n; i++) locations[i] = readPageLocation(c)
      seen |= OI_PAGE_LOCATIONS
    } else if (fid === 2 && wire === LIST) unencoded = readI64List(c, 'OffsetIndex.unencoded_byte_array_data_bytes')
    else skip(c, wire)
  }
  if (seen !== OI_PAGE_LOCATIONS) missingField(c, 'OffsetIndex', OI_FIELDS, seen, start)
  return { page_locations: locations, unencoded_byte_array_data_bytes: unencoded }
}

/*
 * enum BoundaryOrder { UNORDERED = 0; ASCENDING = 1; DESCENDING = 2; }
 * struct ColumnIndex {
 *   1: required list<bool> null_pages
 *   2: required list<binary> min_values
 *   3: required list<binary> max_values
 *   4: required BoundaryOrder boundary_order
 *   5: optional list<i64> null_counts
 *   6: optional list<i64> repetition_level_histograms
 *   7: optional list<i64> definition_level_histograms
 * }
 */
const CI_NULL_PAGES = 1 << 0
const CI_MIN_VALUES = 1 << 1
const CI_MAX_VALUES = 1 << 2
const CI_BOUNDARY_ORDER = 1 << 3
const CI_REQUIRED = CI_NULL_PAGES | CI_MIN_VALUES | CI_MAX_VALUES | CI_BOUNDARY_ORDER
const CI_FIELDS = ['null_pages', 'min_values', 'max_values', 'boundary_order']

/** A list<binary> as zero-copy views. */
function readBinaryList(c: ThriftCursor, what: string): Uint8Array[] {
  const n = listOf(c, BINARY, what)
  const out = new Array<Uint8Array>(n)
  for (let i = 0; i < n; i++) out[i] = readBinary(c)
  return out
}

/**
 * A list<bool>: the compact protocol writes each element as one byte, 1 for true and 2
 * (or 0, as some writers do) for false; the header's element type is BOOLEAN_TRUE or
 * BOOLEAN_FALSE.
 */
function readBoolList(c: ThriftCursor, what: string): boolean[] {
  const start = c.offset
  const n = readListHeader(c)
  if (n !== 0 && c.elementType !== TRUE && c.elementType !== FALSE) {
    throw new CodecError('INVALID_DATA', FORMAT, `${what} is a list of compact type ${c.elementType}, expected booleans`, c.origin + start)
  }
  const out = new Array<boolean>(n)
  const bytes = c.bytes
  for (let i = 0; i < n; i++) {
    const b = bytes[c.offset]!
    if (b > 2) throw new CodecError('INVALID_DATA', FORMAT, `${what}[${i}] is byte ${b}, not a boolean (1, 2 or 0)`, c.origin + c.offset)
    out[i] = b === 1
    c.offset++
  }
  return out
}

/** Decodes one ColumnIndex at the cursor. */
export function readColumnIndex(c: ThriftCursor): ColumnIndex {
  const start = c.offset
  let nullPages: boolean[] = []
  let mins: Uint8Array[] = []
  let maxs: Uint8Array[] = []
  let order: BoundaryOrder | number = 0
  let nullCounts: Int64[] | undefined
  let repetition: Int64[] | undefined
  let definition: Int64[] | undefined
  let seen = 0
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'ColumnIndex')
    if (wire === 0) break
    fid = c.fieldId
    if (wire === LIST && fid >= 1 && fid <= 7) {
      if (fid === 1) {
        nullPages = readBoolList(c, 'ColumnIndex.null_pages')
        seen |= CI_NULL_PAGES
      } else if (fid === 2) {
        mins = readBinaryList(c, 'ColumnIndex.min_values')
        seen |= CI_MIN_VALUES
      } else if (fid === 3) {
        maxs = readBinaryList(c, 'ColumnIndex.max_values')
        seen |= CI_MAX_VALUES
      } else if (fid === 5) nullCounts = readI64List(c, 'ColumnIndex.null_counts')
      else if (fid === 6) repetition = readI64List(c, 'ColumnIndex.repetition_level_histograms')
      else if (fid === 7) definition = readI64List(c, 'ColumnIndex.definition_level_histograms')
      else skip(c, wire)
    } else if (fid === 4 && (wire | 1) === I32) {
      const v = readI32(c)
      order = BOUNDARY_ORDERS[v] ?? v
      seen |= CI_BOUNDARY_ORDER
    } else skip(c, wire)
  }
  if (seen !== CI_REQUIRED) missingField(c, 'ColumnIndex', CI_FIELDS, seen, start)
  const pages = nullPages.length
  if (mins.length !== pages || maxs.length !== pages || (nullCounts !== undefined && nullCounts.length !== pages)) {
    throw new CodecError('INVALID_DATA', FORMAT, `ColumnIndex lists disagree on the page count: null_pages ${pages}, min_values ${mins.length}, max_values ${maxs.length}${nullCounts ? `, null_counts ${nullCounts.length}` : ''}`, c.origin + start)
  }
  return {
    null_pages: nullPages,
    min_values: mins,
    max_values: maxs,
    boundary_order: order,
    null_counts: nullCounts,
    repetition_level_histograms: repetition,
    definition_level_histograms: definition,
  }
}

// ---------------------------------------------------------------------------------
// Reading

/** One struct to read: where, how long, and where its result goes. */
interface Want {
  start: number
  end: number
  kind: 'ColumnIndex' | 'OffsetIndex'
  entry: ColumnPageIndex
}

function fail(message: string, offset = -1): never {
  throw new CodecError('INVALID_DATA', FORMAT, message, offset)
}

/** A footer offset as a safe integer inside the file. */
function position(value: Int64 | undefined, length: number | undefined, size: number, what: string): [number, number] | null {
  if (value === undefined && length === undefined) return null
  if (value === undefined || length === undefined) fail(`${what}: offset and length must both be set (offset ${String(value)}, length ${String(length)})`)
  const start = typeof value === 'bigint' ? (value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : -1) : value
  if (!Number.isSafeInteger(start) || start < 0 || length < 0 || start + length > size) {
    fail(`${what}: ${length} bytes at ${String(value)} lie past the end of the ${size}-byte file`)
  }
  return [start, start + length]
}

function checkOptions(options: PageIndexOptions, metadata: FileMetaData): { rowGroups: number[]; columns: ReadonlySet<string | number> | null; ci: boolean; oi: boolean; maxBytes: number } {
  if (typeof options !== 'object' || options === null) throw new CodecError('INVALID_OPTION', FORMAT, `options must be an object, got ${String(options)}`)
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) throw new CodecError('INVALID_OPTION', FORMAT, `unknown page index option '${key}'; expected ${OPTION_KEYS.join(', ')}`)
  }
  const count = metadata.row_groups.length
  let rowGroups: number[]
  if (options.rowGroups === undefined) rowGroups = metadata.row_groups.map((_, i) => i)
  else {
    if (!Array.isArray(options.rowGroups)) throw new CodecError('INVALID_OPTION', FORMAT, `rowGroups must be an array of row group indexes, got ${String(options.rowGroups)}`)
    rowGroups = options.rowGroups.map((i) => checkInteger(FORMAT, 'rowGroups[]', i, 0, Math.max(0, count - 1), 0))
  }
  let columns: Set<string | number> | null = null
  if (options.columns !== undefined) {
    if (!Array.isArray(options.columns) || !options.columns.every((c) => typeof c === 'string' || (Number.isInteger(c) && c >= 0))) {
      throw new CodecError('INVALID_OPTION', FORMAT, `columns must be an array of column paths ('a.b') or indexes, got ${JSON.stringify(options.columns)}`)
    }
    columns = new Set(options.columns)
  }
  return {
    rowGroups,
    columns,
    ci: checkBoolean(FORMAT, 'columnIndex', options.columnIndex, true),
    oi: checkBoolean(FORMAT, 'offsetIndex', options.offsetIndex, true),
    maxBytes: checkInteger(FORMAT, 'maxBytes', options.maxBytes, 0, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_BYTES),
  }
}

/**
 * Reads and decodes the page indexes of `metadata`'s column chunks from `source` (the
 * file: bytes, a `Blob` or `{ size, read(offset, length) }`). Chunks without indexes get
 * `undefined` for them. Offsets and lengths past the file, structs that run past their
 * length, missing required fields and nesting past `MAX_DEPTH` are `CodecError`s.
 */
export async function parquetPageIndex(source: MetadataSource, metadata: FileMetaData, options: PageIndexOptions = {}): Promise<ColumnPageIndex[]> {
  const o = checkOptions(options, metadata)
  const memory = source instanceof Uint8Array ? source : source instanceof ArrayBuffer ? new Uint8Array(source) : null
  const reader = memory === null ? rangeReader(source, FORMAT) : null
  const size = memory !== null ? memory.length : reader!.size
  if (!Number.isSafeInteger(size) || size < 0) throw new CodecError('INVALID_OPTION', FORMAT, `source size ${String(size)} is not a non-negative integer`)
  const result: ColumnPageIndex[] = []
  const wants: Want[] = []
  let total = 0
  for (const g of o.rowGroups) {
    const columns = metadata.row_groups[g]!.columns
    for (let i = 0; i < columns.length; i++) {
      const chunk = columns[i]!
      const path = chunk.meta_data?.path_in_schema.join('.') ?? ''
      if (o.columns !== null && !o.columns.has(i) && !o.columns.has(path)) continue
      const entry: ColumnPageIndex = { rowGroup: g, column: i, path, columnIndex: undefined, offsetIndex: undefined }
      result.push(entry)
      const where = `row group ${g}, column ${i} (${path})`
      const ci = o.ci ? position(chunk.column_index_offset, chunk.column_index_length, size, `ColumnIndex of ${where}`) : null
      const oi = o.oi ? position(chunk.offset_index_offset, chunk.offset_index_length, size, `OffsetIndex of ${where}`) : null
      for (const [range, kind] of [[ci, 'ColumnIndex'], [oi, 'OffsetIndex']] as const) {
        if (range === null) continue
        total += range[1] - range[0]
        if (total > o.maxBytes) throw new CodecError('LIMIT_EXCEEDED', FORMAT, `page indexes of more than maxBytes ${o.maxBytes} bytes asked for`)
        wants.push({ start: range[0], end: range[1], kind, entry })
      }
    }
  }
  // Coalesce: sorted by start, a range that starts at or before the current read's end joins it.
  const sorted = [...wants].sort((a, b) => a.start - b.start)
  let i = 0
  while (i < sorted.length) {
    const start = sorted[i]!.start
    let end = sorted[i]!.end
    let j = i + 1
    while (j < sorted.length && sorted[j]!.start <= end) end = Math.max(end, sorted[j++]!.end)
    const bytes = memory !== null ? memory.subarray(start, end) : await readExactly(reader!, start, end - start, FORMAT)
    for (let k = i; k < j; k++) decodeWant(sorted[k]!, bytes, start)
    i = j
  }
  return result
}

/** Decodes one struct from `bytes` (the file from `base`), which must hold it within its length. */
function decodeWant(w: Want, bytes: Uint8Array, base: number): void {
  const view = bytes.subarray(w.start - base, w.end - base)
  const c = new ThriftCursor(view, 0, w.start)
  const what = `${w.kind} of row group ${w.entry.rowGroup}, column ${w.entry.column} (${w.entry.path})`
  try {
    if (w.kind === 'ColumnIndex') w.entry.columnIndex = readColumnIndex(c)
    else w.entry.offsetIndex = readOffsetIndex(c)
  } catch (error) {
    if (error instanceof CodecError && error.code === 'TRUNCATED') {
      throw new CodecError('INVALID_DATA', FORMAT, `${what} runs past its ${w.end - w.start} bytes: ${error.message}`, error.offset, { cause: error })
    }
    throw error
  }
}
