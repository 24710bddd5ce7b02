/**
 * Decodes a Parquet footer (`FileMetaData`, compact protocol) straight into the final
 * objects of `types.ts`, per parquet.thrift (apache/parquet-format).
 *
 * Hot structs (FileMetaData, RowGroup, ColumnChunk, ColumnMetaData, Statistics,
 * SchemaElement) have hand-written decoders: fields go into locals and one object
 * literal of a fixed shape is made at the end; required fields are tracked in a
 * bitmask and a missing one fails with the struct and field named. Unknown fields,
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
const I32 = 5
const I64 = 6
const DOUBLE = 7
const BINARY = 8
const LIST = 9
const STRUCT = 12

const FORMAT = 'parquet'
const NO_ENCODINGS: readonly Encoding[] = []

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

function readI64List(c: ThriftCursor, what: string): Int64[] {
  const size = listOf(c, I64, what)
  const out: Int64[] = []
  for (let i = 0; i < size; i++) out.push(readI64(c))
  return out
}

function readI32List(c: ThriftCursor, what: string): number[] {
  const size = listOf(c, I32, what)
  const out: number[] = []
  for (let i = 0; i < size; i++) out.push(readI32(c))
  return out
}

function readStringList(c: ThriftCursor, what: string): string[] {
  const size = listOf(c, BINARY, what)
  const out: string[] = []
  for (let i = 0; i < size; i++) out.push(readString(c))
  return out
}

// ---------------------------------------------------------------------------------
// Decoding state

/** What a decode was asked for, and what it learned from the schema. */
interface Plan {
  /** Decode statistics, size and geospatial statistics. */
  statistics: boolean
  /** Requested leaf paths as UTF-8 bytes (dotted), or null for all columns. */
  columns: Uint8Array[] | null
  /** The requested paths as given, for messages. */
  columnNames: string[]
  /** Requested row group indexes, or null for all. */
  rowGroups: Set<number> | null
  /** Set once the schema is decoded: 1 per selected leaf (file leaf order), or null for all. */
  wanted: Uint8Array | null
  /** Set once the schema is decoded: path of each selected leaf (file leaf order). */
  leafPaths: (readonly string[])[]
  /** Schema element index of each path segment of leaf j: leafSegments[leafSegmentStart[j] ..]. */
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
}

/**
 * A direct-mapped table of decoded lists keyed by their encoded bytes. `encodings` and
 * `encoding_stats` repeat the same few byte strings in every column chunk of a wide
 * file; finding the end of one (a skip), hashing and comparing it costs much less than
 * allocating its arrays and objects again. Shared values are read-only by contract.
 */
interface InternTable {
  start: Int32Array
  end: Int32Array
  value: unknown[]
}

const INTERN_SLOTS = 64 // per kind; 2 kinds

function makeInternTable(): InternTable {
  return { start: new Int32Array(INTERN_SLOTS * 2), end: new Int32Array(INTERN_SLOTS * 2), value: [] }
}

/** Hash of bytes [start, end) to a slot of `kind`. */
function internSlot(bytes: Uint8Array, start: number, end: number, kind: number): number {
  let h = end - start
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + bytes[i]!) | 0
  return kind * INTERN_SLOTS + ((h ^ (h >>> 7)) & (INTERN_SLOTS - 1))
}

/**
 * The shared value for the list at the cursor when one with the same bytes was
 * decoded before (the cursor then moves past it); otherwise undefined, cursor unmoved.
 */
function interned(c: ThriftCursor, table: InternTable, kind: number): unknown {
  const start = c.offset
  skip(c, LIST)
  const end = c.offset
  const bytes = c.bytes
  const slot = internSlot(bytes, start, end, kind)
  const value = table.value[slot]
  if (value !== undefined) {
    const s = table.start[slot]!
    if (table.end[slot]! - s === end - start) {
      let same = true
      for (let i = 0; i < end - start; i++) {
        if (bytes[s + i] !== bytes[start + i]) {
          same = false
          break
        }
      }
      if (same) return value
    }
  }
  c.offset = start
  return undefined
}

/** Records the value decoded from the list at [start, c.offset). */
function intern(c: ThriftCursor, table: InternTable, kind: number, start: number, value: unknown): void {
  const slot = internSlot(c.bytes, start, c.offset, kind)
  table.start[slot] = start
  table.end[slot] = c.offset
  table.value[slot] = value
}

const EMPTY_NAMES = new Int32Array(0)

function makePlan(options: MetadataOptions | undefined): Plan {
  let columns: Uint8Array[] | null = null
  const columnNames: string[] = []
  let rowGroups: Set<number> | null = null
  let statistics = true
  if (options !== undefined) {
    if (options === null || typeof options !== 'object') {
      throw new CodecError('INVALID_OPTION', FORMAT, 'options must be an object')
    }
    if (options.columns !== undefined) {
      if (!Array.isArray(options.columns)) throw new CodecError('INVALID_OPTION', FORMAT, 'columns must be an array of paths')
      const encoder = new TextEncoder()
      columns = []
      for (const path of options.columns as unknown[]) {
        let dotted: string
        if (typeof path === 'string') dotted = path
        else if (Array.isArray(path) && path.length > 0 && path.every((s) => typeof s === 'string')) dotted = path.join('.')
        else throw new CodecError('INVALID_OPTION', FORMAT, `column path ${String(path)} is not a string or an array of strings`)
        if (dotted === '') throw new CodecError('INVALID_OPTION', FORMAT, 'column path is empty')
        if (columnNames.includes(dotted)) continue
        columnNames.push(dotted)
        columns.push(encoder.encode(dotted))
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
    nameStart: EMPTY_NAMES,
    nameEnd: EMPTY_NAMES,
    leafCount: -1,
    rowGroupsBeforeSchema: false,
    interned: makeInternTable(),
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
  const plan = makePlan(options)
  const c = new ThriftCursor(bytes, 0, origin)
  const metadata = readFileMetaData(c, plan)
  metadata.metadata_length = bytes.length
  return metadata
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
        rowGroups = []
        for (let i = 0; i < size; i++) {
          if (pick === null || pick.has(i)) rowGroups.push(readRowGroup(c, plan))
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

/** Decodes every schema element and learns the leaf paths (no `columns` option). */
function readSchema(c: ThriftCursor, plan: Plan): SchemaElement[] {
  const size = listOf(c, STRUCT, 'FileMetaData.schema')
  if (size === 0) invalid(c, 'FileMetaData.schema is empty: it needs at least the root')
  const schema: SchemaElement[] = []
  const nameStart = new Int32Array(size)
  const nameEnd = new Int32Array(size)
  for (let i = 0; i < size; i++) {
    schema.push(readSchemaElement(c, nameScratch))
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
    const path = paths[paths.length - 1]!.concat(element.name)
    const children = childCount(element)
    if (children > 0) {
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
  const elementStart = new Int32Array(size)
  const nameStart = new Int32Array(size)
  const nameEnd = new Int32Array(size)
  const children = new Int32Array(size)
  const leafFlag = new Uint8Array(size) // 1: has a physical type, 2: has num_children
  for (let i = 0; i < size; i++) {
    const start = c.offset
    elementStart[i] = start
    let fid = 0
    let hasName = false
    for (;;) {
      const wire = fieldHeader(c, fid, 'SchemaElement')
      if (wire === 0) break
      fid = c.fieldId
      if (fid === 4 && wire === BINARY) {
        const length = readBinaryLength(c)
        nameStart[i] = c.offset
        c.offset += length
        nameEnd[i] = c.offset
        hasName = true
      } else if (fid === 5 && (wire | 1) === I32) {
        children[i] = readI32(c)
        leafFlag[i] |= 2
      } else if (fid === 1 && (wire | 1) === I32) {
        const at = c.offset
        const value = readI32(c)
        if (value < 0 || value >= PARQUET_TYPES.length) {
          invalid(c, `SchemaElement.type ${value} is not a Parquet physical type`, at)
        }
        leafFlag[i] |= 1
      } else skip(c, wire)
    }
    if (!hasName) missingField(c, 'SchemaElement', SCHEMA_ELEMENT_FIELDS, 7, start)
  }
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
  const filter = new Uint8Array(4096)
  for (const r of requested) {
    for (let end = 1; end <= r.length; end++) {
      if (end === r.length || r[end] === 0x2e) filter[filterKey(r, 0, end)] = 1
    }
  }
  const kept = new Uint8Array(size)
  const parent = new Int32Array(size)
  const keptChildren = new Int32Array(size)
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
  const end = c.offset
  const schema: SchemaElement[] = []
  const names: string[] = new Array(size)
  for (let i = 0; i < size; i++) {
    if (kept[i] === 0) continue
    c.offset = elementStart[i]!
    const element = readSchemaElement(c, nameScratch)
    if (element.num_children !== undefined && element.num_children > 0) element.num_children = keptChildren[i]!
    names[i] = element.name
    schema.push(element)
  }
  c.offset = end
  const wanted = new Uint8Array(leafIndex)
  const leafPaths = plan.leafPaths
  const segments = plan.leafSegments
  const segmentStart = plan.leafSegmentStart
  for (let k = 0; k < wantedLeaves.length; k++) {
    const j = wantedLeaves[k]!
    wanted[j] = 1
    const chain: number[] = []
    for (let e = leafElements[k]!; e > 0; e = parent[e]!) chain.push(e)
    chain.reverse()
    leafPaths[j] = chain.map((e) => names[e]!)
    segmentStart[j] = segments.length
    for (const e of chain) segments.push(e)
  }
  // segment ranges of leaf j end where the next recorded one starts: store explicit ends
  plan.leafSegmentStart = segmentStart
  plan.wanted = wanted
  plan.leafCount = leafIndex
  return schema
}

function filterKey(bytes: Uint8Array, start: number, end: number): number {
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
    const type = fieldHeader(c, fid, 'RowGroup')
    if (type === 0) break
    fid = c.fieldId
    switch (fid) {
      case 1: {
        if (type !== LIST) break
        const size = listOf(c, STRUCT, 'RowGroup.columns')
        const wanted = plan.wanted
        if (wanted !== null && !plan.rowGroupsBeforeSchema) {
          checkChunkCount(c, size, plan, start)
          for (let j = 0; j < size; j++) {
            if (wanted[j] === 1) columns.push(readColumnChunk(c, plan, j))
            else skipStruct(c)
          }
        } else {
          for (let j = 0; j < size; j++) columns.push(readColumnChunk(c, plan, j))
        }
        seen |= 1
        continue
      }
      case 2:
        if (type !== I64) break
        totalByteSize = readI64(c)
        seen |= 2
        continue
      case 3:
        if (type !== I64) break
        numRows = readI64(c)
        seen |= 4
        continue
      case 4:
        if (type !== LIST) break
        sortingColumns = readSortingColumns(c)
        continue
      case 5:
        if (type !== I64) break
        fileOffset = readI64(c)
        continue
      case 6:
        if (type !== I64) break
        totalCompressedSize = readI64(c)
        continue
      case 7:
        if ((type | 1) !== I32) break
        ordinal = readI32(c)
        continue
    }
    skip(c, type)
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

const COLUMN_CHUNK_FIELDS = ['file_path', 'file_offset']

function readColumnChunk(c: ThriftCursor, plan: Plan, leaf: number): ColumnChunk {
  const start = c.offset
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
    const type = fieldHeader(c, fid, 'ColumnChunk')
    if (type === 0) break
    fid = c.fieldId
    switch (fid) {
      case 1:
        if (type !== BINARY) break
        filePath = readString(c)
        continue
      case 2:
        if (type !== I64) break
        fileOffset = readI64(c)
        seen |= 2
        continue
      case 3:
        if (type !== STRUCT) break
        metaData = readColumnMetaData(c, plan, leaf)
        continue
      case 4:
        if (type !== I64) break
        offsetIndexOffset = readI64(c)
        continue
      case 5:
        if ((type | 1) !== I32) break
        offsetIndexLength = readI32(c)
        continue
      case 6:
        if (type !== I64) break
        columnIndexOffset = readI64(c)
        continue
      case 7:
        if ((type | 1) !== I32) break
        columnIndexLength = readI32(c)
        continue
      case 8:
        if (type !== STRUCT) break
        cryptoMetadata = readColumnCryptoMetaData(c)
        continue
      case 9:
        if (type !== BINARY) break
        encryptedColumnMetadata = readBinary(c)
        continue
    }
    skip(c, type)
  }
  if (seen !== 2) missingField(c, 'ColumnChunk', COLUMN_CHUNK_FIELDS, seen | 1, start)
  return {
    file_path: filePath,
    file_offset: fileOffset,
    meta_data: metaData,
    offset_index_offset: offsetIndexOffset,
    offset_index_length: offsetIndexLength,
    column_index_offset: columnIndexOffset,
    column_index_length: columnIndexLength,
    crypto_metadata: cryptoMetadata,
    encrypted_column_metadata: encryptedColumnMetadata,
  }
}

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

function readColumnMetaData(c: ThriftCursor, plan: Plan, leaf: number): ColumnMetaData {
  const start = c.offset
  let seen = 0
  let type: ParquetType = 'BOOLEAN'
  let encodings: readonly (Encoding | number)[] = NO_ENCODINGS
  let pathInSchema: readonly string[] = []
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
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'ColumnMetaData')
    if (wire === 0) break
    fid = c.fieldId
    switch (fid) {
      case 1: {
        if ((wire | 1) !== I32) break
        const at = c.offset
        const value = readI32(c)
        const name = PARQUET_TYPES[value]
        if (name === undefined) invalid(c, `ColumnMetaData.type ${value} is not a Parquet physical type`, at)
        type = name
        seen |= 1
        continue
      }
      case 2: {
        if (wire !== LIST) break
        const cached = interned(c, plan.interned, 0) as (Encoding | number)[] | undefined
        if (cached !== undefined) encodings = cached
        else {
          const from = c.offset
          const size = listOf(c, I32, 'ColumnMetaData.encodings')
          const list: (Encoding | number)[] = []
          for (let i = 0; i < size; i++) list.push(enumName(ENCODINGS, readI32(c)))
          intern(c, plan.interned, 0, from, list)
          encodings = list
        }
        seen |= 2
        continue
      }
      case 3:
        if (wire !== LIST) break
        pathInSchema = readPath(c, plan, leaf)
        seen |= 4
        continue
      case 4:
        if ((wire | 1) !== I32) break
        codec = enumName(CODECS, readI32(c))
        seen |= 8
        continue
      case 5:
        if (wire !== I64) break
        numValues = readI64(c)
        seen |= 16
        continue
      case 6:
        if (wire !== I64) break
        totalUncompressedSize = readI64(c)
        seen |= 32
        continue
      case 7:
        if (wire !== I64) break
        totalCompressedSize = readI64(c)
        seen |= 64
        continue
      case 8:
        if (wire !== LIST) break
        keyValueMetadata = readKeyValues(c, 'ColumnMetaData.key_value_metadata')
        continue
      case 9:
        if (wire !== I64) break
        dataPageOffset = readI64(c)
        seen |= 128
        continue
      case 10:
        if (wire !== I64) break
        indexPageOffset = readI64(c)
        continue
      case 11:
        if (wire !== I64) break
        dictionaryPageOffset = readI64(c)
        continue
      case 12:
        if (wire !== STRUCT || !plan.statistics) break
        statistics = readStatistics(c)
        continue
      case 13: {
        if (wire !== LIST) break
        const cached = interned(c, plan.interned, 1) as PageEncodingStats[] | undefined
        if (cached !== undefined) encodingStats = cached
        else {
          const from = c.offset
          encodingStats = readEncodingStats(c)
          intern(c, plan.interned, 1, from, encodingStats)
        }
        continue
      }
      case 14:
        if (wire !== I64) break
        bloomFilterOffset = readI64(c)
        continue
      case 15:
        if ((wire | 1) !== I32) break
        bloomFilterLength = readI32(c)
        continue
      case 16:
        if (wire !== STRUCT || !plan.statistics) break
        sizeStatistics = readSizeStatistics(c)
        continue
      case 17:
        if (wire !== STRUCT || !plan.statistics) break
        geospatialStatistics = readGeospatialStatistics(c)
        continue
    }
    skip(c, wire)
  }
  if (seen !== 255) missingField(c, 'ColumnMetaData', COLUMN_METADATA_FIELDS, seen, start)
  return {
    type,
    encodings,
    path_in_schema: pathInSchema,
    codec,
    num_values: numValues,
    total_uncompressed_size: totalUncompressedSize,
    total_compressed_size: totalCompressedSize,
    key_value_metadata: keyValueMetadata,
    data_page_offset: dataPageOffset,
    index_page_offset: indexPageOffset,
    dictionary_page_offset: dictionaryPageOffset,
    statistics,
    encoding_stats: encodingStats,
    bloom_filter_offset: bloomFilterOffset,
    bloom_filter_length: bloomFilterLength,
    size_statistics: sizeStatistics,
    geospatial_statistics: geospatialStatistics,
  }
}

/**
 * `path_in_schema` of the chunk of leaf `leaf`: when its bytes equal the names of that
 * leaf's schema path (always, in a well-formed file), the path array made from the
 * schema is returned, shared by every row group; otherwise a new one is decoded.
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
  const path: string[] = []
  for (let k = 0; k < size; k++) path.push(readString(c))
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

function lazyValue(entry: KeyValue, bytes: Uint8Array, start: number, end: number): void {
  Object.defineProperty(entry, 'value', {
    configurable: true,
    enumerable: true,
    get(): string {
      const value = utf8Slice(bytes, start, end)
      Object.defineProperty(entry, 'value', { value, writable: true, enumerable: true, configurable: true })
      return value
    },
    set(value: string | undefined) {
      Object.defineProperty(entry, 'value', { value, writable: true, enumerable: true, configurable: true })
    },
  })
}

function readKeyValues(c: ThriftCursor, what: string): KeyValue[] {
  const size = listOf(c, STRUCT, what)
  const out: KeyValue[] = []
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
    const entry: KeyValue = { key, value }
    if (valueEnd - valueStart > LAZY_STRING_BYTES) lazyValue(entry, c.bytes, valueStart, valueEnd)
    out.push(entry)
  }
  return out
}

const SORTING_COLUMN_FIELDS = ['column_idx', 'descending', 'nulls_first']

function readSortingColumns(c: ThriftCursor): SortingColumn[] {
  const size = listOf(c, STRUCT, 'RowGroup.sorting_columns')
  const out: SortingColumn[] = []
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
    out.push({ column_idx: columnIdx, descending, nulls_first: nullsFirst })
  }
  return out
}

const PAGE_ENCODING_STATS_FIELDS = ['page_type', 'encoding', 'count']

function readEncodingStats(c: ThriftCursor): PageEncodingStats[] {
  const size = listOf(c, STRUCT, 'ColumnMetaData.encoding_stats')
  const out: PageEncodingStats[] = []
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
    out.push({ page_type: pageType, encoding, count })
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
  const out: ColumnOrder[] = []
  for (let i = 0; i < size; i++) {
    if (wanted !== null && wanted[i] !== 1) {
      skipStruct(c)
      continue
    }
    const member = readEmptyUnion(c, 'ColumnOrder')
    out.push(COLUMN_ORDERS[member - 1] ?? 'UNRECOGNIZED')
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
