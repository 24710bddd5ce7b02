/**
 * Decodes a Parquet footer (`FileMetaData`, compact protocol) straight into the final
 * objects of `types.ts`, per parquet.thrift (apache/parquet-format).
 *
 * Hot structs (FileMetaData, RowGroup, ColumnChunk, ColumnMetaData, Statistics,
 * SchemaElement) have hand-written decoders: fields go into locals and one object
 * literal of a fixed shape is made at the end; required fields are tracked in a
 * bitmask and a missing one fails with the struct and field named.
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
  ThriftCursor,
  invalid,
  readBinary,
  readBinaryLength,
  readDouble,
  readI32,
  readI64,
  readListHeader,
  readString,
  skip,
  skipStruct,
  truncated,
  utf8Slice,
} from './thrift.js'
import type {
  BoundingBox,
  ColumnChunk,
  ColumnCryptoMetaData,
  ColumnMetaData,
  ColumnOrder,
  CompressionCodec,
  ConvertedType,
  EdgeInterpolationAlgorithm,
  Encoding,
  EncryptionAlgorithm,
  FieldRepetitionType,
  FileMetaData,
  GeospatialStatistics,
  Int64,
  KeyValue,
  LogicalType,
  MetadataOptions,
  PageEncodingStats,
  PageType,
  ParquetType,
  RowGroup,
  SchemaElement,
  SizeStatistics,
  SortingColumn,
  Statistics,
  TimeUnit,
} from './types.js'

// Compact protocol type ids used below (see thrift.ts). Where the IDL says i32, i16
// (4) is accepted too: both are zigzag varints on the wire, `(type | 1) === I32`.
const TRUE = 1
const FALSE = 2
const BYTE = 3
const I16 = 4
const I32 = 5
const I64 = 6
const DOUBLE = 7
const BINARY = 8
const LIST = 9
const STRUCT = 12

const FORMAT = 'parquet'
/** Placeholders until the required field is read (missing: an error, never returned). */
const NO_ENCODINGS: readonly Encoding[] = []
const NO_PATH: readonly string[] = []

// Enum names, indexed by value (parquet.thrift).
const PARQUET_TYPES: readonly ParquetType[] = [
  'BOOLEAN',
  'INT32',
  'INT64',
  'INT96',
  'FLOAT',
  'DOUBLE',
  'BYTE_ARRAY',
  'FIXED_LEN_BYTE_ARRAY',
]
const CONVERTED_TYPES: readonly ConvertedType[] = [
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
const REPETITION_TYPES: readonly FieldRepetitionType[] = ['REQUIRED', 'OPTIONAL', 'REPEATED', 'VECTOR']
const ENCODINGS: readonly Encoding[] = [
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
const CODECS: readonly CompressionCodec[] = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZO', 'BROTLI', 'LZ4', 'ZSTD', 'LZ4_RAW']
const PAGE_TYPES: readonly PageType[] = ['DATA_PAGE', 'INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE_V2']
const EDGE_ALGORITHMS: readonly EdgeInterpolationAlgorithm[] = ['SPHERICAL', 'VINCENTY', 'THOMAS', 'ANDOYER', 'KARNEY']
const TIME_UNITS: readonly TimeUnit[] = ['MILLIS', 'MICROS', 'NANOS']
const COLUMN_ORDERS: readonly ColumnOrder[] = ['TYPE_ORDER', 'IEEE_754_TOTAL_ORDER', 'INT96_TIMESTAMP_ORDER']

/** The enum name of `value`, or `value` itself when it is newer than this library. */
function enumName<T>(names: readonly T[], value: number): T | number {
  return value >= 0 && value < names.length ? names[value]! : value
}

/** Fails with the first required field of `struct` that is not in `seen`. */
function missingField(c: ThriftCursor, struct: string, fields: readonly string[], seen: number, at: number): never {
  let i = 0
  while (seen & (1 << i)) i++
  throw new CodecError(
    'INVALID_DATA',
    FORMAT,
    `${struct}.${fields[i]} is required but missing`,
    c.origin + at,
  )
}

/** Reads a field header inline: returns the type (0 at STOP), sets `c.fieldId`. */
function fieldHeader(c: ThriftCursor, previous: number, struct: string): number {
  const pos = c.offset
  if (pos >= c.bytes.length) truncated(c, `a ${struct} field header`, 1)
  const header = c.bytes[pos]!
  c.offset = pos + 1
  const type = header & 0x0f
  if (type === 0) return 0
  c.fieldId = header >= 0x10 ? previous + (header >> 4) : readI32(c)
  return type
}

/**
 * Throws for a struct whose field header would start at `pos`, past the end. The hot
 * decoders below read headers inline with the position in a local (`pos`) and the
 * bytes hoisted out of the loop, the way `skipStruct` does: reading the cursor's
 * fields for every header costs them a third of their time. They store `pos` back in
 * `c.offset` around every call that reads through the cursor.
 */
function headerTruncated(c: ThriftCursor, pos: number, struct: string): never {
  c.offset = pos
  truncated(c, `a ${struct} field header`, 1)
}

/**
 * The value of an integer field (compact type i16, i32 or i64: all zigzag varints).
 * Hot decoders read every integer field through this one call site, then assign by
 * field id, so the JIT inlines one copy of the short-varint path instead of calling a
 * reader per field. Values of up to 4 bytes are read here; longer ones, and the end of
 * the input, go to `readI32` (i16/i32: at most 32 bits, as before) or `readI64`.
 */
function readInteger(c: ThriftCursor, wire: number): Int64 {
  const bytes = c.bytes
  const pos = c.offset
  if (pos + 4 <= bytes.length) {
    let b = bytes[pos]!
    let zz = b & 0x7f
    let next = pos + 1
    if (b >= 0x80) {
      b = bytes[next++]!
      zz |= (b & 0x7f) << 7
      if (b >= 0x80) {
        b = bytes[next++]!
        zz |= (b & 0x7f) << 14
        if (b >= 0x80) {
          b = bytes[next++]!
          zz |= (b & 0x7f) << 21
        }
      }
    }
    if (b < 0x80) {
      c.offset = next
      return (zz >>> 1) ^ -(zz & 1)
    }
  }
  return wire === I64 ? readI64(c) : readI32(c)
}

/**
 * A list header whose elements must be of `elementType` (an empty list may name any
 * type). Returns the size.
 */
function listOf(c: ThriftCursor, elementType: number, what: string): number {
  const start = c.offset
  const size = readListHeader(c)
  // i16 and i32 share one wire encoding (a zigzag varint); some writers declare
  // list<i32> elements as i16 (bad_data/ARROW-GH-41317.parquet), which reads the same.
  const actual = elementType === I32 && c.elementType === 4 ? I32 : c.elementType
  if (size !== 0 && actual !== elementType) {
    invalid(c, `${what} is a list of compact type ${c.elementType}, expected ${elementType}`, start)
  }
  return size
}

/**
 * An array for a list of `size` elements, filled by index: allocated at its final
 * size (an array grown by `push` reserves about half as much again, and gets copied
 * at every growth). `size` was checked against the bytes left by `readListHeader`.
 * Past 65,536 the array grows as it is filled instead: V8 keeps an array made
 * with `new Array(n)` that large in a slow dictionary representation.
 */
function listArray<T>(size: number): T[] {
  return size <= 65536 ? new Array<T>(size) : []
}

function readI64List(c: ThriftCursor, what: string): Int64[] {
  const size = listOf(c, I64, what)
  const out = listArray<Int64>(size)
  for (let i = 0; i < size; i++) out[i] = readI64(c)
  return out
}

function readI32List(c: ThriftCursor, what: string): number[] {
  const size = listOf(c, I32, what)
  const out = listArray<number>(size)
  for (let i = 0; i < size; i++) out[i] = readI32(c)
  return out
}

function readStringList(c: ThriftCursor, what: string): string[] {
  const size = listOf(c, BINARY, what)
  const out = listArray<string>(size)
  for (let i = 0; i < size; i++) out[i] = readString(c)
  return out
}

// ---------------------------------------------------------------------------------
// Decoding state

/** What a decode was asked for, and what it learned from the schema. */
interface Plan {
  /** Decode statistics, size and geospatial statistics. */
  statistics: boolean
  /** Requested leaf paths as UTF-8 bytes (dotted), or null for all columns. */
  columns: number[][] | null
  /** The requested paths as given, for messages. */
  columnNames: string[]
  /** Requested row group indexes, or null for all. */
  rowGroups: Set<number> | null
  /**
   * Set once the schema is decoded: 1 per selected leaf (file leaf order; entries past
   * `leafCount` are stale), or null for all.
   */
  wanted: Uint8Array | null
  /**
   * Set once the schema is decoded: the path of every leaf (file leaf order), or with
   * `columns` of every selected leaf (selection order: the k-th selected leaf is k).
   */
  leafPaths: (readonly string[])[]
  /** Schema element index of each path segment of path k: leafSegments[leafSegmentStart[k] ..]. */
  leafSegments: number[]
  leafSegmentStart: number[]
  /** Byte range of each schema element's name in the footer, by element index. */
  nameStart: Int32Array
  nameEnd: Int32Array
  /** Number of leaves in the file's schema; -1 until the schema is seen. */
  leafCount: number
  /** Row groups were decoded before the schema (field order is free in Thrift). */
  rowGroupsBeforeSchema: boolean
  /** Lists decoded once and shared by every chunk with the same bytes (see `interned`). */
  interned: InternTable
  /** Index tables of this decode (see `Scratch`). */
  scratch: Scratch
  /**
   * Byte ranges of the last `encodings` and `encoding_stats` lists that
   * `skipColumnChunk` walked (start === end: none yet).
   */
  skippedEncodingsStart: number
  skippedEncodingsEnd: number
  skippedStatsStart: number
  skippedStatsEnd: number
}

/**
 * Index tables reused from one decode to the next. A typed array over 64 bytes gets a
 * backing store allocated outside the JS heap, and a handful of them cost more than
 * scanning a 100-column schema. Decoding is synchronous and no decoded object keeps
 * these, so one set serves every decode (a nested decode would get its own). Tables
 * grown past `SCRATCH_KEEP` entries are held only weakly after the decode rather than
 * pinning megabytes after one very wide file: the next wide decode reuses them unless a
 * collection took them first (allocating and first touching 2.7 MB of fresh tables
 * cost a selective decode of 100,000 columns a fifth of its time). Contents are stale:
 * users zero what they need.
 */
class Scratch {
  /** Entries each table holds. */
  capacity = 0
  /** Per schema element: where its struct starts, and its name's byte range. */
  elementStart = EMPTY_INT32
  nameStart = EMPTY_INT32
  nameEnd = EMPTY_INT32
  /** Per schema element (`columns` option): num_children, parent, kept children. */
  children = EMPTY_INT32
  parent = EMPTY_INT32
  keptChildren = EMPTY_INT32
  /** Per schema element: 1 has a physical type, 2 has num_children. */
  flags = EMPTY_UINT8
  /** Per schema element: kept in the pruned schema. */
  kept = EMPTY_UINT8
  /** Per leaf: selected. */
  wanted = EMPTY_UINT8
  /** Name prefilter of `scanSchema`, indexed by `filterKey`. */
  readonly filter = new Uint8Array(4096)
  /** Shared lists (see `interned`); emptied after each decode, so nothing decoded is kept. */
  readonly interned = makeInternTable()

  /** Forgets the lists of the decode that ended. */
  release(): void {
    const table = this.interned
    table.value.fill(undefined)
    table.last.fill(0)
    table.next.fill(0)
  }

  /** Makes every table hold at least `n` entries. */
  reserve(n: number): void {
    if (n <= this.capacity) return
    const capacity = Math.max(n, this.capacity * 2, 256)
    this.capacity = capacity
    this.elementStart = new Int32Array(capacity)
    this.nameStart = new Int32Array(capacity)
    this.nameEnd = new Int32Array(capacity)
    this.children = new Int32Array(capacity)
    this.parent = new Int32Array(capacity)
    this.keptChildren = new Int32Array(capacity)
    this.flags = new Uint8Array(capacity)
    this.kept = new Uint8Array(capacity)
    this.wanted = new Uint8Array(capacity)
  }
}

const EMPTY_INT32 = new Int32Array(0)
const EMPTY_UINT8 = new Uint8Array(0)
const SCRATCH_KEEP = 1 << 14
/** The idle scratch tables, or null while a decode uses them. */
let idleScratch: Scratch | null = null
/** Idle tables grown past `SCRATCH_KEEP`, held weakly (null while a decode uses them). */
let wideScratch: WeakRef<Scratch> | null = null

/** Scratch tables for one decode: the idle ones (the wide ones first), or new ones. */
function takeScratch(): Scratch {
  const wide = wideScratch?.deref()
  wideScratch = null
  if (wide !== undefined) return wide
  const idle = idleScratch ?? new Scratch()
  idleScratch = null
  return idle
}

/** Makes `scratch` the idle tables again, once its decode is done. */
function returnScratch(scratch: Scratch): void {
  scratch.release()
  if (scratch.capacity <= SCRATCH_KEEP) idleScratch = scratch
  else wideScratch = new WeakRef(scratch)
}

/**
 * Decoded lists shared by every chunk whose list has the same encoded bytes.
 * `encodings` and `encoding_stats` repeat a few byte strings in every column chunk of
 * a wide file; comparing a few bytes costs much less than allocating the arrays and
 * objects again. A compact-protocol value is self-delimiting, so when the bytes at the
 * cursor start with the complete encoding of a list decoded before, decoding would
 * read exactly those bytes and give an equal list: no need to find the end first.
 * Up to `INTERN_ENTRIES` lists per kind are kept (most files have one to four).
 * Shared values are read-only by contract (see types.ts).
 */
interface InternTable {
  /** Byte range in the footer of entry `kind * INTERN_ENTRIES + i`. */
  start: Int32Array
  end: Int32Array
  /** Decoded value of each entry (undefined: free). */
  value: unknown[]
  /** Per kind: the entry that matched last (tried first), and the next one to replace. */
  last: Int32Array
  next: Int32Array
}

const INTERN_ENTRIES = 8 // per kind; 2 kinds

function makeInternTable(): InternTable {
  return {
    start: new Int32Array(INTERN_ENTRIES * 2),
    end: new Int32Array(INTERN_ENTRIES * 2),
    value: [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined,
      undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined],
    last: new Int32Array(2),
    next: new Int32Array(2),
  }
}

/** Whether the bytes at `at` start with `bytes[start, end)`. */
function startsWith(bytes: Uint8Array, at: number, start: number, end: number): boolean {
  const n = end - start
  if (at + n > bytes.length) return false
  for (let i = 0; i < n; i++) if (bytes[at + i] !== bytes[start + i]) return false
  return true
}

/**
 * The shared value for the list at the cursor when one with the same bytes was
 * decoded before (the cursor then moves past it); otherwise undefined, cursor unmoved.
 */
function interned(c: ThriftCursor, table: InternTable, kind: number): unknown {
  const at = c.offset
  const bytes = c.bytes
  const last = table.last[kind]!
  const value = table.value[last]
  if (value === undefined) return undefined
  const start = table.start
  const end = table.end
  if (startsWith(bytes, at, start[last]!, end[last]!)) {
    c.offset = at + end[last]! - start[last]!
    return value
  }
  const first = kind * INTERN_ENTRIES
  for (let i = first; i < first + INTERN_ENTRIES; i++) {
    const v = table.value[i]
    if (v === undefined) break
    if (i !== last && startsWith(bytes, at, start[i]!, end[i]!)) {
      table.last[kind] = i
      c.offset = at + end[i]! - start[i]!
      return v
    }
  }
  return undefined
}

/** Records the value decoded from the list at [start, c.offset). */
function intern(c: ThriftCursor, table: InternTable, kind: number, start: number, value: unknown): void {
  const i = kind * INTERN_ENTRIES + table.next[kind]!
  table.next[kind] = (table.next[kind]! + 1) % INTERN_ENTRIES
  table.start[i] = start
  table.end[i] = c.offset
  table.value[i] = value
  table.last[kind] = i
}

/** UTF-8 bytes of `text` as numbers (paths are short: no encoder call for ASCII). */
function utf8Bytes(text: string): number[] {
  const out = listArray<number>(text.length)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x80) return Array.from(new TextEncoder().encode(text))
    out[i] = code
  }
  return out
}

function makePlan(options: MetadataOptions | undefined, scratch: Scratch): Plan {
  let columns: number[][] | null = null
  const columnNames: string[] = []
  let rowGroups: Set<number> | null = null
  let statistics = true
  if (options !== undefined) {
    if (options === null || typeof options !== 'object') {
      throw new CodecError('INVALID_OPTION', FORMAT, 'options must be an object')
    }
    if (options.columns !== undefined) {
      if (!Array.isArray(options.columns)) throw new CodecError('INVALID_OPTION', FORMAT, 'columns must be an array of paths')
      columns = []
      const paths = options.columns as unknown[]
      for (let i = 0; i < paths.length; i++) {
        const path = paths[i]
        let dotted: string
        if (typeof path === 'string') dotted = path
        else if (Array.isArray(path) && path.length > 0 && path.every((s) => typeof s === 'string')) dotted = path.join('.')
        else throw new CodecError('INVALID_OPTION', FORMAT, `column path ${String(path)} is not a string or an array of strings`)
        if (dotted === '') throw new CodecError('INVALID_OPTION', FORMAT, 'column path is empty')
        if (columnNames.includes(dotted)) continue
        columnNames.push(dotted)
        columns.push(utf8Bytes(dotted))
      }
    }
    if (options.rowGroups !== undefined) {
      if (!Array.isArray(options.rowGroups)) throw new CodecError('INVALID_OPTION', FORMAT, 'rowGroups must be an array of indexes')
      rowGroups = new Set()
      for (const index of options.rowGroups as unknown[]) {
        if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
          throw new CodecError('INVALID_OPTION', FORMAT, `row group index ${String(index)} is not a non-negative integer`)
        }
        rowGroups.add(index)
      }
    }
    if (options.statistics !== undefined) {
      if (typeof options.statistics !== 'boolean') throw new CodecError('INVALID_OPTION', FORMAT, 'statistics must be a boolean')
      statistics = options.statistics
    }
  }
  return {
    statistics,
    columns,
    columnNames,
    rowGroups,
    wanted: null,
    leafPaths: [],
    leafSegments: [],
    leafSegmentStart: [],
    nameStart: EMPTY_INT32,
    nameEnd: EMPTY_INT32,
    leafCount: -1,
    rowGroupsBeforeSchema: false,
    interned: scratch.interned,
    scratch,
    skippedEncodingsStart: 0,
    skippedEncodingsEnd: 0,
    skippedStatsStart: 0,
    skippedStatsEnd: 0,
  }
}

// ---------------------------------------------------------------------------------
// FileMetaData

const FILE_METADATA_FIELDS = ['version', 'schema', 'num_rows', 'row_groups']

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
        seen |= 1
        continue
      case 2:
        if (type !== LIST) break
        schema = plan.columns ? scanSchema(c, plan) : readSchema(c, plan)
        seen |= 2
        continue
      case 3:
        if (type !== I64) break
        numRows = readI64(c)
        seen |= 4
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
        seen |= 8
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
  if (seen !== 15) missingField(c, 'FileMetaData', FILE_METADATA_FIELDS, seen, start)
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

function checkChunkCount(c: ThriftCursor, count: number, plan: Plan, at: number): void {
  if (count !== plan.leafCount) {
    // Selection maps chunks to schema leaves by position (parquet.thrift: "This list
    // must have the same order as the SchemaElement list"), so the counts must agree.
    invalid(c, `a row group has ${count} column chunks, the schema has ${plan.leafCount} leaf columns`, at)
  }
}

// ---------------------------------------------------------------------------------
// Schema

const SCHEMA_ELEMENT_FIELDS = ['type', 'type_length', 'repetition_type', 'name']

/** Decodes one SchemaElement; records the byte range of its name in `nameRange`. */
function readSchemaElement(c: ThriftCursor, nameRange: Int32Array): SchemaElement {
  const start = c.offset
  let type: ParquetType | undefined
  let typeLength: number | undefined
  let repetitionType: FieldRepetitionType | number | undefined
  let name = ''
  let hasName = false
  let numChildren: number | undefined
  let convertedType: ConvertedType | number | undefined
  let scale: number | undefined
  let precision: number | undefined
  let fieldId: number | undefined
  let logicalType: LogicalType | undefined
  let vectorLength: number | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'SchemaElement')
    if (wire === 0) break
    fid = c.fieldId
    if ((wire | 1) === I32) {
      switch (fid) {
        case 1: {
          const at = c.offset
          const value = readI32(c)
          type = PARQUET_TYPES[value]
          // The physical types are a closed set: every reader must understand them
          // all, so another value means the footer is corrupt (bad_data/PARQUET-1481).
          if (type === undefined) invalid(c, `SchemaElement.type ${value} is not a Parquet physical type`, at)
          continue
        }
        case 2:
          typeLength = readI32(c)
          continue
        case 3:
          repetitionType = enumName(REPETITION_TYPES, readI32(c))
          continue
        case 5:
          numChildren = readI32(c)
          continue
        case 6:
          convertedType = enumName(CONVERTED_TYPES, readI32(c))
          continue
        case 7:
          scale = readI32(c)
          continue
        case 8:
          precision = readI32(c)
          continue
        case 9:
          fieldId = readI32(c)
          continue
        case 11:
          vectorLength = readI32(c)
          continue
      }
    } else if (fid === 4 && wire === BINARY) {
      const length = readBinaryLength(c)
      const at = c.offset
      c.offset = at + length
      nameRange[0] = at
      nameRange[1] = at + length
      name = utf8Slice(c.bytes, at, at + length)
      hasName = true
      continue
    } else if (fid === 10 && wire === STRUCT) {
      logicalType = readLogicalType(c)
      continue
    }
    skip(c, wire)
  }
  if (!hasName) missingField(c, 'SchemaElement', SCHEMA_ELEMENT_FIELDS, 7, start)
  return {
    type,
    type_length: typeLength,
    repetition_type: repetitionType,
    name,
    num_children: numChildren,
    converted_type: convertedType,
    scale,
    precision,
    field_id: fieldId,
    logical_type: logicalType,
    vector_length: vectorLength,
  }
}

const nameScratch = new Int32Array(2)

/**
 * Most levels of groups in a schema. Every leaf's path holds one entry per level, so
 * without a cap a hostile footer of n elements could ask for n^2/4 path entries (half
 * the elements nested, half leaves at the bottom). Real schemas stay far below this.
 */
const MAX_SCHEMA_DEPTH = 256

function schemaTooDeep(c: ThriftCursor, element: number): never {
  throw new CodecError('LIMIT_EXCEEDED', 'parquet', `schema element ${element} nests groups deeper than ${MAX_SCHEMA_DEPTH} levels`, c.origin)
}

/** Decodes every schema element and learns the leaf paths (no `columns` option). */
function readSchema(c: ThriftCursor, plan: Plan): SchemaElement[] {
  const size = listOf(c, STRUCT, 'FileMetaData.schema')
  if (size === 0) invalid(c, 'FileMetaData.schema is empty: it needs at least the root')
  const schema = listArray<SchemaElement>(size)
  const scratch = plan.scratch
  scratch.reserve(size)
  const nameStart = scratch.nameStart
  const nameEnd = scratch.nameEnd
  for (let i = 0; i < size; i++) {
    schema[i] = readSchemaElement(c, nameScratch)
    nameStart[i] = nameScratch[0]!
    nameEnd[i] = nameScratch[1]!
  }
  plan.nameStart = nameStart
  plan.nameEnd = nameEnd
  // Walk the depth-first list with a stack of [element, children left].
  const stackElement: number[] = [0]
  const stackLeft: number[] = [childCount(schema[0]!)]
  const paths: string[][] = [[]]
  const leafPaths = plan.leafPaths
  const segments = plan.leafSegments
  const segmentStart = plan.leafSegmentStart
  for (let i = 1; i < size; i++) {
    while (stackLeft.length > 1 && stackLeft[stackLeft.length - 1] === 0) {
      stackLeft.pop()
      stackElement.pop()
      paths.pop()
    }
    if (stackLeft[stackLeft.length - 1] === 0) break // more elements than the root claims
    stackLeft[stackLeft.length - 1]!--
    const element = schema[i]!
    const parentPath = paths[paths.length - 1]!
    const path = parentPath.length === 0 ? [element.name] : parentPath.concat(element.name)
    const children = childCount(element)
    if (children > 0) {
      if (stackElement.length >= MAX_SCHEMA_DEPTH) schemaTooDeep(c, i)
      stackElement.push(i)
      stackLeft.push(children)
      paths.push(path)
    } else if (element.type !== undefined || element.num_children === undefined) {
      leafPaths.push(path)
      segmentStart.push(segments.length)
      for (let k = 1; k < stackElement.length; k++) segments.push(stackElement[k]!)
      segments.push(i)
    }
  }
  segmentStart.push(segments.length)
  plan.leafCount = leafPaths.length
  return schema
}

function childCount(element: SchemaElement): number {
  const n = element.num_children
  return n !== undefined && n > 0 ? n : 0
}

/**
 * The `columns` path: scans the schema without making objects (name byte ranges,
 * child counts, leaf flags), matches the requested paths on the name bytes, then
 * decodes only the root, the selected leaves and their ancestors.
 */
function scanSchema(c: ThriftCursor, plan: Plan): SchemaElement[] {
  const listStart = c.offset
  const size = listOf(c, STRUCT, 'FileMetaData.schema')
  if (size === 0) invalid(c, 'FileMetaData.schema is empty: it needs at least the root', listStart)
  const bytes = c.bytes
  const scratch = plan.scratch
  scratch.reserve(size)
  const elementStart = scratch.elementStart
  const nameStart = scratch.nameStart
  const nameEnd = scratch.nameEnd
  const children = scratch.children.fill(0, 0, size)
  const leafFlag = scratch.flags.fill(0, 0, size) // 1: has a physical type, 2: has num_children
  // The scan reads headers inline (see `headerTruncated`): on a wide file it walks as
  // many schema elements as the floor does, so it must cost about what skipping does.
  const end = bytes.length
  let pos = c.offset
  for (let i = 0; i < size; i++) {
    const start = pos
    elementStart[i] = start
    let fid = 0
    let hasName = false
    for (;;) {
      if (pos >= end) headerTruncated(c, pos, 'SchemaElement')
      const header = bytes[pos++]!
      const wire = header & 0x0f
      if (wire === 0) break
      if (header >= 0x10) fid += header >> 4
      else {
        c.offset = pos
        fid = readI32(c)
        pos = c.offset
      }
      if (wire === BINARY && fid === 4) {
        let length = pos < end ? bytes[pos]! : 0x80
        if (length < 0x80 && pos + 1 + length <= end) pos++
        else {
          c.offset = pos
          length = readBinaryLength(c)
          pos = c.offset
        }
        nameStart[i] = pos
        pos += length
        nameEnd[i] = pos
        hasName = true
      } else if ((wire === I32 || wire === I16) && (fid === 5 || fid === 1)) {
        const at = pos
        let value: number
        const b = pos < end ? bytes[pos]! : 0x80
        if (b < 0x80) {
          value = (b >>> 1) ^ -(b & 1)
          pos++
        } else {
          c.offset = pos
          value = readI32(c)
          pos = c.offset
        }
        if (fid === 5) {
          children[i] = value
          leafFlag[i] |= 2
        } else {
          if (value < 0 || value >= PARQUET_TYPES.length) {
            invalid(c, `SchemaElement.type ${value} is not a Parquet physical type`, at)
          }
          leafFlag[i] |= 1
        }
      } else if (wire >= I16 && wire <= I64 && pos < end && bytes[pos]! < 0x80) {
        pos++ // a one-byte integer nobody asked for
      } else {
        c.offset = pos
        skip(c, wire)
        pos = c.offset
      }
    }
    if (!hasName) {
      c.offset = pos
      missingField(c, 'SchemaElement', SCHEMA_ELEMENT_FIELDS, 7, start)
    }
  }
  c.offset = pos
  plan.nameStart = nameStart
  plan.nameEnd = nameEnd

  // Match. A requested path r is matched segment by segment along the depth-first
  // walk: state[level][r] is where in r the next name must start (-1: no match).
  const requested = plan.columns!
  const R = requested.length
  const found = new Uint8Array(R)
  // Prefilter for children of the root (the bulk of a wide schema): a node can only
  // match if (length, first byte, last byte) of its name is that of a prefix of some
  // requested path ending at a dot or at its end.
  const filter = scratch.filter.fill(0)
  for (let i = 0; i < R; i++) {
    const r = requested[i]!
    for (let end = 1; end <= r.length; end++) {
      if (end === r.length || r[end] === 0x2e) filter[filterKey(r, 0, end)] = 1
    }
  }
  const kept = scratch.kept.fill(0, 0, size)
  const parent = scratch.parent
  const keptChildren = scratch.keptChildren.fill(0, 0, size)
  kept[0] = 1
  parent[0] = -1
  const stackElement: number[] = [0]
  const stackLeft: number[] = [children[0]! > 0 ? children[0]! : 0]
  const stackSelected: boolean[] = [false]
  const states: Int32Array[] = [new Int32Array(R)] // level 0: every r starts at 0
  const stackActive: boolean[] = [true]
  let leafIndex = 0
  const wantedLeaves: number[] = []
  const leafElements: number[] = []
  for (let i = 1; i < size; i++) {
    while (stackLeft.length > 1 && stackLeft[stackLeft.length - 1] === 0) {
      stackLeft.pop()
      stackElement.pop()
      stackSelected.pop()
      stackActive.pop()
    }
    const top = stackLeft.length - 1
    if (stackLeft[top] === 0) break
    stackLeft[top]!--
    const level = top + 1
    parent[i] = stackElement[top]!
    let selected = stackSelected[top]!
    let active = false
    if (!selected && stackActive[top]) {
      const ns = nameStart[i]!
      const ne = nameEnd[i]!
      if (top !== 0 || filter[filterKey(bytes, ns, ne)] === 1) {
        const parentState = states[top]!
        const state = (states[level] ??= new Int32Array(R))
        for (let r = 0; r < R; r++) {
          state[r] = -1
          const pos = parentState[r]!
          if (pos < 0) continue
          const path = requested[r]!
          const end = pos + (ne - ns)
          if (end > path.length) continue
          let same = true
          for (let k = ns, p = pos; k < ne; k++, p++) {
            if (bytes[k] !== path[p]) {
              same = false
              break
            }
          }
          if (!same) continue
          if (end === path.length) {
            selected = true
            found[r] = 1
          } else if (path[end] === 0x2e) {
            state[r] = end + 1
            active = true
          }
        }
      }
    }
    const count = children[i]! > 0 ? children[i]! : 0
    if (count > 0) {
      if (stackElement.length >= MAX_SCHEMA_DEPTH) schemaTooDeep(c, i)
      stackElement.push(i)
      stackLeft.push(count)
      stackSelected.push(selected)
      stackActive.push(active)
    } else if ((leafFlag[i]! & 1) !== 0 || (leafFlag[i]! & 2) === 0) {
      if (selected) {
        wantedLeaves.push(leafIndex)
        leafElements.push(i)
        // keep the leaf and its ancestors
        for (let e = i; e >= 0 && kept[e] === 0; e = parent[e]!) {
          kept[e] = 1
          keptChildren[parent[e]!]!++
        }
      }
      leafIndex++
    }
  }
  for (let r = 0; r < R; r++) {
    if (found[r] === 0) {
      throw new CodecError('INVALID_OPTION', FORMAT, `column ${JSON.stringify(plan.columnNames[r])} is not in the schema`)
    }
  }
  // Decode what is kept.
  const after = c.offset
  const schema: SchemaElement[] = []
  const index = scratch.children // (done with the child counts) schema index of kept elements
  for (let i = 0; i < size; i++) {
    if (kept[i] === 0) continue
    c.offset = elementStart[i]!
    const element = readSchemaElement(c, nameScratch)
    if (element.num_children !== undefined && element.num_children > 0) element.num_children = keptChildren[i]!
    index[i] = schema.length
    schema.push(element)
  }
  c.offset = after
  // at most one leaf per element: the tables hold leafIndex entries
  const wanted = scratch.wanted.fill(0, 0, leafIndex)
  const leafPaths = plan.leafPaths
  const segments = plan.leafSegments
  const segmentStart = plan.leafSegmentStart
  // Paths and segments of the selected leaves, indexed by selection order (k).
  for (let k = 0; k < wantedLeaves.length; k++) {
    wanted[wantedLeaves[k]!] = 1
    const from = segments.length
    segmentStart.push(from)
    for (let e = leafElements[k]!; e > 0; e = parent[e]!) segments.push(e)
    // leaf first -> root first
    for (let x = from, y = segments.length - 1; x < y; x++, y--) {
      const t = segments[x]!
      segments[x] = segments[y]!
      segments[y] = t
    }
    const path = listArray<string>(segments.length - from)
    for (let d = 0; d < path.length; d++) path[d] = schema[index[segments[from + d]!]!]!.name
    leafPaths.push(path)
  }
  plan.wanted = wanted
  plan.leafCount = leafIndex
  return schema
}

function filterKey(bytes: ArrayLike<number>, start: number, end: number): number {
  const length = end - start
  return ((length & 15) << 8) ^ (bytes[start]! << 4) ^ bytes[end - 1]!
}

// ---------------------------------------------------------------------------------
// Row groups and column chunks

const ROW_GROUP_FIELDS = ['columns', 'total_byte_size', 'num_rows']

function readRowGroup(c: ThriftCursor, plan: Plan): RowGroup {
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
          seen |= 2
        } else if (fid === 3) {
          numRows = value
          seen |= 4
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
      seen |= 1
    } else if (fid === 4 && wire === LIST) sortingColumns = readSortingColumns(c)
    else skip(c, wire)
  }
  if (seen !== 7) missingField(c, 'RowGroup', ROW_GROUP_FIELDS, seen, start)
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

/**
 * Skips a column chunk that was not selected: accepts and rejects the same bytes as
 * `skipStruct`, faster on what repeats from chunk to chunk. Integers and short binary
 * values are skipped inline, and the `encodings` and `encoding_stats` lists, the same
 * few byte strings in every chunk of a file, are compared with the last ones walked:
 * a compact-protocol value is self-delimiting, so bytes that start with a complete
 * list already walked without error hold that same list, and the walk moves past it
 * without going through its elements. (The floor of the bench stays the plain walk.)
 * `level` 0 is the ColumnChunk, 1 its ColumnMetaData; deeper structs use `skipStruct`.
 */
function skipColumnChunk(c: ThriftCursor, plan: Plan, level = 0): void {
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
}

/**
 * The end of the struct whose first field header is at `pos`, when every field in it
 * is simple: short-form headers, integers, booleans, doubles, binary values with
 * lengths under 16 KiB, and short lists (under 15 elements) of integers or binary
 * values; otherwise -1, and the caller walks the struct the general way (which also
 * reports what is wrong). Statistics and SizeStatistics, one of each in every column
 * chunk, are such structs: this pure loop skips them without a call per field.
 * Accepts only what `skipStruct` accepts (the same varint and length limits), so a
 * struct skipped here also decodes without error later (`LazyStatistics`).
 */
function skipSimpleStruct(bytes: Uint8Array, pos: number): number {
  const end = bytes.length
  for (;;) {
    if (pos >= end) return -1
    const header = bytes[pos++]!
    const type = header & 0x0f
    if (type === 0) return pos
    if (header < 0x10) return -1 // long-form field id
    if (type === I64 || type === I32 || type === I16) {
      pos = skipVarint(bytes, pos)
      if (pos < 0) return -1
    } else if (type === BINARY) {
      pos = skipBinary(bytes, pos)
      if (pos < 0) return -1
    } else if (type === DOUBLE) {
      pos += 8
      if (pos > end) return -1
    } else if (type === LIST) {
      if (pos >= end) return -1
      const list = bytes[pos++]!
      const element = list & 0x0f
      let n = list >> 4
      if (n === 15) return -1
      if (element === I64 || element === I32 || element === I16) {
        for (; n > 0 && pos >= 0; n--) pos = skipVarint(bytes, pos)
      } else if (element === BINARY) {
        for (; n > 0 && pos >= 0; n--) pos = skipBinary(bytes, pos)
      } else if (n !== 0) return -1
      if (pos < 0) return -1
    } else if (type !== TRUE && type !== FALSE) return -1
  }
}

/** The end of the varint at `pos` (at most 10 bytes, as `skip` allows), or -1. */
function skipVarint(bytes: Uint8Array, pos: number): number {
  const limit = pos + 10 < bytes.length ? pos + 10 : bytes.length
  while (pos < limit) if (bytes[pos++]! < 0x80) return pos
  return -1
}

/** The end of the binary value at `pos` (length in one or two bytes), or -1. */
function skipBinary(bytes: Uint8Array, pos: number): number {
  const end = bytes.length
  if (pos >= end) return -1
  let length = bytes[pos++]!
  if (length >= 0x80) {
    if (pos >= end) return -1
    const high = bytes[pos++]!
    if (high >= 0x80) return -1
    length = (length & 0x7f) | (high << 7)
  }
  pos += length
  return pos <= end ? pos : -1
}

/**
 * The end of a list of binary values at `pos` when it is short (under 15 elements, each
 * under 128 bytes, so every length takes one byte) and complete; otherwise `pos`, and
 * the caller walks the list the general way (which also reports what is wrong).
 */
function skipShortStrings(bytes: Uint8Array, pos: number): number {
  const end = bytes.length
  const header = pos < end ? bytes[pos]! : 0
  if ((header & 0x0f) !== BINARY || header >= 0xf0) return pos
  let at = pos + 1
  for (let n = header >> 4; n > 0; n--) {
    const length = at < end ? bytes[at]! : 0x80
    if (length >= 0x80 || at + 1 + length > end) return pos
    at += 1 + length
  }
  return at
}

const COLUMN_CHUNK_FIELDS = ['file_path', 'file_offset']

/** `path`: index of the chunk's expected path in `plan.leafPaths`. */
function readColumnChunk(c: ThriftCursor, plan: Plan, path: number): ColumnChunk {
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
          seen |= 2
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
  if (seen !== 2) missingField(c, 'ColumnChunk', COLUMN_CHUNK_FIELDS, seen | 1, start)
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

const COLUMN_METADATA_FIELDS = [
  'type',
  'encodings',
  'path_in_schema',
  'codec',
  'num_values',
  'total_uncompressed_size',
  'total_compressed_size',
  'data_page_offset',
]

function readColumnMetaData(c: ThriftCursor, plan: Plan, path: number): ColumnMetaData {
  const bytes = c.bytes
  const end = bytes.length
  const start = c.offset
  let pos = start
  let seen = 0
  let type: ParquetType = 'BOOLEAN'
  let encodings: readonly (Encoding | number)[] = NO_ENCODINGS
  let pathInSchema: readonly string[] = NO_PATH
  let codec: CompressionCodec | number = 0
  let numValues: Int64 = 0
  let totalUncompressedSize: Int64 = 0
  let totalCompressedSize: Int64 = 0
  let keyValueMetadata: KeyValue[] | undefined
  let dataPageOffset: Int64 = 0
  let indexPageOffset: Int64 | undefined
  let dictionaryPageOffset: Int64 | undefined
  let statistics: Statistics | undefined
  let encodingStats: readonly PageEncodingStats[] | undefined
  let bloomFilterOffset: Int64 | undefined
  let bloomFilterLength: number | undefined
  let sizeStatistics: SizeStatistics | undefined
  let geospatialStatistics: GeospatialStatistics | undefined
  let next = 0
  let fid = 0
  for (;;) {
    if (pos >= end) headerTruncated(c, pos, 'ColumnMetaData')
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
      const at = pos
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
        switch (fid) {
          case 5:
            numValues = value
            seen |= 16
            break
          case 6:
            totalUncompressedSize = value
            seen |= 32
            break
          case 7:
            totalCompressedSize = value
            seen |= 64
            break
          case 9:
            dataPageOffset = value
            seen |= 128
            break
          case 10:
            indexPageOffset = value
            break
          case 11:
            dictionaryPageOffset = value
            break
          case 14:
            bloomFilterOffset = value
            break
        }
      } else if (fid === 1) {
        const name = PARQUET_TYPES[value as number]
        if (name === undefined) invalid(c, `ColumnMetaData.type ${value} is not a Parquet physical type`, at)
        type = name
        seen |= 1
      } else if (fid === 4) {
        codec = enumName(CODECS, value as number)
        seen |= 8
      } else if (fid === 15) bloomFilterLength = value as number
      continue
    }
    c.offset = pos
    switch (fid) {
      case 2:
        if (wire !== LIST) break
        encodings = readEncodings(c, plan)
        seen |= 2
        pos = c.offset
        continue
      case 3:
        if (wire !== LIST) break
        pathInSchema = readPath(c, plan, path)
        seen |= 4
        pos = c.offset
        continue
      case 8:
        if (wire !== LIST) break
        keyValueMetadata = readKeyValues(c, 'ColumnMetaData.key_value_metadata')
        pos = c.offset
        continue
      case 12:
        if (wire !== STRUCT || !plan.statistics) break
        statistics = new LazyStatistics(bytes, pos)
        next = skipSimpleStruct(bytes, pos)
        if (next > pos) pos = next
        else {
          skipStruct(c)
          pos = c.offset
        }
        continue
      case 13:
        if (wire !== LIST) break
        encodingStats = readSharedEncodingStats(c, plan)
        pos = c.offset
        continue
      case 16:
        if (wire !== STRUCT || !plan.statistics) break
        sizeStatistics = readSizeStatistics(c)
        pos = c.offset
        continue
      case 17:
        if (wire !== STRUCT || !plan.statistics) break
        geospatialStatistics = readGeospatialStatistics(c)
        pos = c.offset
        continue
    }
    if (wire === STRUCT && (next = skipSimpleStruct(bytes, pos)) > pos) {
      pos = next // statistics not asked for
      continue
    }
    skip(c, wire)
    pos = c.offset
  }
  c.offset = pos
  if (seen !== 255) missingField(c, 'ColumnMetaData', COLUMN_METADATA_FIELDS, seen, start)
  return new (ColumnMetaDataObject as unknown as new (...args: unknown[]) => ColumnMetaData)(
    type,
    encodings,
    pathInSchema,
    codec,
    numValues,
    totalUncompressedSize,
    totalCompressedSize,
    keyValueMetadata,
    dataPageOffset,
    indexPageOffset,
    dictionaryPageOffset,
    statistics,
    encodingStats,
    bloomFilterOffset,
    bloomFilterLength,
    sizeStatistics,
    geospatialStatistics,
  )
}

/** A plain ColumnMetaData object, made by `new` (see `ColumnChunkObject`). */
function ColumnMetaDataObject(
  this: ColumnMetaData,
  type: ParquetType,
  encodings: readonly (Encoding | number)[],
  pathInSchema: readonly string[],
  codec: CompressionCodec | number,
  numValues: Int64,
  totalUncompressedSize: Int64,
  totalCompressedSize: Int64,
  keyValueMetadata: KeyValue[] | undefined,
  dataPageOffset: Int64,
  indexPageOffset: Int64 | undefined,
  dictionaryPageOffset: Int64 | undefined,
  statistics: Statistics | undefined,
  encodingStats: readonly PageEncodingStats[] | undefined,
  bloomFilterOffset: Int64 | undefined,
  bloomFilterLength: number | undefined,
  sizeStatistics: SizeStatistics | undefined,
  geospatialStatistics: GeospatialStatistics | undefined,
): void {
  this.type = type
  this.encodings = encodings
  this.path_in_schema = pathInSchema
  this.codec = codec
  this.num_values = numValues
  this.total_uncompressed_size = totalUncompressedSize
  this.total_compressed_size = totalCompressedSize
  this.key_value_metadata = keyValueMetadata
  this.data_page_offset = dataPageOffset
  this.index_page_offset = indexPageOffset
  this.dictionary_page_offset = dictionaryPageOffset
  this.statistics = statistics
  this.encoding_stats = encodingStats
  this.bloom_filter_offset = bloomFilterOffset
  this.bloom_filter_length = bloomFilterLength
  this.size_statistics = sizeStatistics
  this.geospatial_statistics = geospatialStatistics
}
ColumnMetaDataObject.prototype = Object.prototype

/** `ColumnMetaData.encodings`, shared with earlier chunks that have the same bytes. */
function readEncodings(c: ThriftCursor, plan: Plan): readonly (Encoding | number)[] {
  const cached = interned(c, plan.interned, 0) as (Encoding | number)[] | undefined
  if (cached !== undefined) return cached
  const from = c.offset
  const size = listOf(c, I32, 'ColumnMetaData.encodings')
  const list = listArray<Encoding | number>(size)
  for (let i = 0; i < size; i++) list[i] = enumName(ENCODINGS, readI32(c))
  intern(c, plan.interned, 0, from, list)
  return list
}

/** `ColumnMetaData.encoding_stats`, shared with earlier chunks that have the same bytes. */
function readSharedEncodingStats(c: ThriftCursor, plan: Plan): readonly PageEncodingStats[] {
  const cached = interned(c, plan.interned, 1) as PageEncodingStats[] | undefined
  if (cached !== undefined) return cached
  const from = c.offset
  const list = readEncodingStats(c)
  intern(c, plan.interned, 1, from, list)
  return list
}

/**
 * `path_in_schema` of a chunk expected to have path `leaf` of `plan.leafPaths`: when
 * its bytes equal the names of that schema path (always, in a well-formed file), the
 * path array made from the schema is returned, shared by every row group; otherwise a
 * new one is decoded.
 */
function readPath(c: ThriftCursor, plan: Plan, leaf: number): readonly string[] {
  const size = listOf(c, BINARY, 'ColumnMetaData.path_in_schema')
  const known = leaf < plan.leafPaths.length ? plan.leafPaths[leaf] : undefined
  if (known !== undefined && known.length === size) {
    const bytes = c.bytes
    const segments = plan.leafSegments
    const first = plan.leafSegmentStart[leaf]!
    const nameStart = plan.nameStart
    const nameEnd = plan.nameEnd
    const save = c.offset
    let same = true
    for (let k = 0; k < size; k++) {
      const length = readBinaryLength(c)
      const at = c.offset
      c.offset = at + length
      if (!same) continue
      const element = segments[first + k]!
      const ns = nameStart[element]!
      if (nameEnd[element]! - ns !== length) {
        same = false
        continue
      }
      for (let i = 0; i < length; i++) {
        if (bytes[at + i] !== bytes[ns + i]) {
          same = false
          break
        }
      }
    }
    if (same) return known
    c.offset = save
  }
  const path = listArray<string>(size)
  for (let k = 0; k < size; k++) path[k] = readString(c)
  return path
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length
  if (n !== b.length) return false
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false
  return true
}

function readStatistics(c: ThriftCursor): Statistics {
  let max: Uint8Array | undefined
  let min: Uint8Array | undefined
  let nullCount: Int64 | undefined
  let distinctCount: Int64 | undefined
  let maxValue: Uint8Array | undefined
  let minValue: Uint8Array | undefined
  let isMaxValueExact: boolean | undefined
  let isMinValueExact: boolean | undefined
  let nanCount: Int64 | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'Statistics')
    if (wire === 0) break
    fid = c.fieldId
    if (wire === BINARY) {
      if (fid === 1) max = readBinary(c)
      else if (fid === 2) min = readBinary(c)
      else if (fid === 5) maxValue = readBinary(c)
      else if (fid === 6) minValue = readBinary(c)
      else skip(c, wire)
    } else if (wire === I64) {
      if (fid === 3) nullCount = readI64(c)
      else if (fid === 4) distinctCount = readI64(c)
      else if (fid === 9) nanCount = readI64(c)
      else skip(c, wire)
    } else if (wire === TRUE || wire === FALSE) {
      if (fid === 7) isMaxValueExact = wire === TRUE
      else if (fid === 8) isMinValueExact = wire === TRUE
    } else skip(c, wire)
  }
  // Writers that fill both the deprecated and the current fields (parquet-rs,
  // parquet-cpp) store the same bytes twice: share one view, half the allocations.
  if (maxValue !== undefined && max !== undefined && sameBytes(max, maxValue)) max = maxValue
  if (minValue !== undefined && min !== undefined && sameBytes(min, minValue)) min = minValue
  return {
    max,
    min,
    null_count: nullCount,
    distinct_count: distinctCount,
    max_value: maxValue,
    min_value: minValue,
    is_max_value_exact: isMaxValueExact,
    is_min_value_exact: isMinValueExact,
    nan_count: nanCount,
  }
}

// ---------------------------------------------------------------------------------
// Cold structs

function readSizeStatistics(c: ThriftCursor): SizeStatistics {
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

function readGeospatialStatistics(c: ThriftCursor): GeospatialStatistics {
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

const KEY_VALUE_FIELDS = ['key']

/**
 * Key-value values longer than this are decoded on first access. Writers store whole
 * documents there (`ARROW:schema`, base64: 613 kB in a 10,000-column file written by
 * parquet-rs; pandas and GeoParquet JSON), and decoding one costs more than walking
 * the rest of the footer. The getter is an own enumerable property, so spreading,
 * `JSON.stringify` and deep equality see the value; it becomes a plain data property
 * once read.
 */
const LAZY_STRING_BYTES = 1024

/**
 * Where the value of each lazily decoded entry is: its footer bytes and byte range.
 * The getter and setter are shared by every entry (V8 then shares one hidden class
 * among them); closures made per entry gave every entry a hidden class of its own,
 * allocated in old space and holding the closures there: each scavenge promoted them,
 * and a selective decode of 100 columns spent a third of its time in the collector.
 */
const lazyValues = /* @__PURE__ */ new WeakMap<KeyValue, { bytes: Uint8Array; start: number; end: number }>()

function getLazyValue(this: KeyValue): string | undefined {
  const where = lazyValues.get(this)
  if (where === undefined) return undefined // (unreachable: the getter is replaced once read)
  const value = utf8Slice(where.bytes, where.start, where.end)
  setLazyValue.call(this, value)
  return value
}

function setLazyValue(this: KeyValue, value: string | undefined): void {
  lazyValues.delete(this)
  Object.defineProperty(this, 'value', { value, writable: true, enumerable: true, configurable: true })
}

const LAZY_VALUE: PropertyDescriptor = { get: getLazyValue, set: setLazyValue, enumerable: true, configurable: true }

/** An entry whose value is decoded on first read (see `LAZY_STRING_BYTES`). */
function lazyEntry(key: string, bytes: Uint8Array, start: number, end: number): KeyValue {
  const entry = { key } as KeyValue
  lazyValues.set(entry, { bytes, start, end })
  return Object.defineProperty(entry, 'value', LAZY_VALUE)
}

function readKeyValues(c: ThriftCursor, what: string): KeyValue[] {
  const size = listOf(c, STRUCT, what)
  const out = listArray<KeyValue>(size)
  for (let i = 0; i < size; i++) {
    const start = c.offset
    let key = ''
    let hasKey = false
    let value: string | undefined
    let valueStart = 0
    let valueEnd = 0
    let fid = 0
    for (;;) {
      const wire = fieldHeader(c, fid, 'KeyValue')
      if (wire === 0) break
      fid = c.fieldId
      if (fid === 1 && wire === BINARY) {
        key = readString(c)
        hasKey = true
      } else if (fid === 2 && wire === BINARY) {
        const length = readBinaryLength(c)
        valueStart = c.offset
        c.offset += length
        value = length <= LAZY_STRING_BYTES ? utf8Slice(c.bytes, valueStart, c.offset) : undefined
        valueEnd = c.offset
      } else skip(c, wire)
    }
    if (!hasKey) missingField(c, 'KeyValue', KEY_VALUE_FIELDS, 0, start)
    out[i] = valueEnd - valueStart > LAZY_STRING_BYTES ? lazyEntry(key, c.bytes, valueStart, valueEnd) : { key, value }
  }
  return out
}

const SORTING_COLUMN_FIELDS = ['column_idx', 'descending', 'nulls_first']

function readSortingColumns(c: ThriftCursor): SortingColumn[] {
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

function readEncodingStats(c: ThriftCursor): PageEncodingStats[] {
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

function readLogicalType(c: ThriftCursor): LogicalType | undefined {
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

function readColumnOrders(c: ThriftCursor, plan: Plan): ColumnOrder[] {
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

function readEncryptionAlgorithm(c: ThriftCursor): EncryptionAlgorithm {
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

function readColumnCryptoMetaData(c: ThriftCursor): ColumnCryptoMetaData | undefined {
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

/**
 * `ColumnMetaData.statistics`, decoded on first access. A wide footer holds one
 * Statistics struct per column chunk, and decoding them eagerly (an object and up to
 * four byte views each) cost more than the rest of the chunk: most readers look at the
 * statistics of a few columns, if any. The decode walks the struct with `skipStruct`,
 * which accepts exactly what `readStatistics` accepts, so the later decode cannot fail
 * (unless the footer bytes are modified meanwhile, like any view into them).
 *
 * The fields are getters (and setters) on the prototype, decoded together on the
 * first read: property reads, destructuring and `JSON.stringify` (through `toJSON`)
 * see the values; spreading, `Object.keys` and `structuredClone` see no own
 * properties: use `toJSON()` for a plain object.
 */
class LazyStatistics implements Statistics {
  /** The footer bytes and the offset of the struct in them. */
  readonly #bytes: Uint8Array
  readonly #start: number
  /** The decoded struct, once read. */
  #values: Statistics | undefined

  constructor(bytes: Uint8Array, start: number) {
    this.#bytes = bytes
    this.#start = start
    this.#values = undefined
  }

  #decoded(): Statistics {
    return (this.#values ??= readStatistics(new ThriftCursor(this.#bytes, this.#start)))
  }

  get max(): Uint8Array | undefined {
    return this.#decoded().max
  }
  set max(value) {
    this.#decoded().max = value
  }
  get min(): Uint8Array | undefined {
    return this.#decoded().min
  }
  set min(value) {
    this.#decoded().min = value
  }
  get null_count(): Int64 | undefined {
    return this.#decoded().null_count
  }
  set null_count(value) {
    this.#decoded().null_count = value
  }
  get distinct_count(): Int64 | undefined {
    return this.#decoded().distinct_count
  }
  set distinct_count(value) {
    this.#decoded().distinct_count = value
  }
  get max_value(): Uint8Array | undefined {
    return this.#decoded().max_value
  }
  set max_value(value) {
    this.#decoded().max_value = value
  }
  get min_value(): Uint8Array | undefined {
    return this.#decoded().min_value
  }
  set min_value(value) {
    this.#decoded().min_value = value
  }
  get is_max_value_exact(): boolean | undefined {
    return this.#decoded().is_max_value_exact
  }
  set is_max_value_exact(value) {
    this.#decoded().is_max_value_exact = value
  }
  get is_min_value_exact(): boolean | undefined {
    return this.#decoded().is_min_value_exact
  }
  set is_min_value_exact(value) {
    this.#decoded().is_min_value_exact = value
  }
  get nan_count(): Int64 | undefined {
    return this.#decoded().nan_count
  }
  set nan_count(value) {
    this.#decoded().nan_count = value
  }

  /** The fields as a plain object (a copy). */
  toJSON(): Statistics {
    return { ...this.#decoded() }
  }

  /** Node's `util.inspect` (console.log) shows the fields, not an empty object. */
  [Symbol.for('nodejs.util.inspect.custom')](): Statistics {
    return this.toJSON()
  }
}
