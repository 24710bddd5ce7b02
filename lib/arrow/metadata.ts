/**
 * Plain descriptions of the Arrow IPC metadata (format/Message.fbs, format/Schema.fbs,
 * format/File.fbs in apache/arrow), decoded straight from the flatbuffer into these
 * objects. No dependency on apache-arrow: the adapter maps them onto its classes.
 */
import { CodecError } from '../errors.js'
import { FlatReader } from './flatbuf.js'

/** `Type` union tags of Schema.fbs. */
export const TypeTag = Object.freeze({
  NONE: 0, Null: 1, Int: 2, FloatingPoint: 3, Binary: 4, Utf8: 5, Bool: 6, Decimal: 7, Date: 8, Time: 9,
  Timestamp: 10, Interval: 11, List: 12, Struct: 13, Union: 14, FixedSizeBinary: 15, FixedSizeList: 16, Map: 17,
  Duration: 18, LargeBinary: 19, LargeUtf8: 20, LargeList: 21, RunEndEncoded: 22, BinaryView: 23, Utf8View: 24,
  ListView: 25, LargeListView: 26,
} as const)
export type TypeTag = (typeof TypeTag)[keyof typeof TypeTag]

/** `MessageHeader` union tags of Message.fbs. */
export const HeaderTag = Object.freeze({ NONE: 0, Schema: 1, DictionaryBatch: 2, RecordBatch: 3, Tensor: 4, SparseTensor: 5 } as const)

/** `CompressionType` of Message.fbs. */
export const Compression = Object.freeze({ LZ4_FRAME: 0, ZSTD: 1 } as const)
export type Compression = (typeof Compression)[keyof typeof Compression]

/** `MetadataVersion`: V4 = 3 (0.x), V5 = 4 (1.0+). Union validity bitmaps exist before V5. */
export const MetadataVersion = Object.freeze({ V1: 0, V2: 1, V3: 2, V4: 3, V5: 4 } as const)

export interface TypeDesc {
  tag: TypeTag
  /** Int / Time / Decimal bit width. */
  bitWidth: number
  /** Int signedness. */
  signed: boolean
  /** FloatingPoint precision (0 half, 1 single, 2 double). */
  precision: number
  /** Decimal scale. */
  scale: number
  /** Date/Time/Timestamp/Duration/Interval unit. */
  unit: number
  /** Timestamp timezone. */
  timezone: string | null
  /** Union mode (0 sparse, 1 dense) and type ids (null: 0..n-1). */
  mode: number
  typeIds: number[] | null
  /** FixedSizeBinary byte width, FixedSizeList list size. */
  width: number
  /** Map keysSorted. */
  keysSorted: boolean
}

export interface DictionaryDesc {
  id: number
  indexBitWidth: number
  indexSigned: boolean
  ordered: boolean
}

export interface FieldDesc {
  name: string
  nullable: boolean
  type: TypeDesc
  children: FieldDesc[]
  /** Set when the field is dictionary-encoded; `type` is then the dictionary's value type. */
  dictionary: DictionaryDesc | null
  metadata: Map<string, string> | null
}

export interface SchemaDesc {
  /** 0 little-endian, 1 big-endian. */
  endianness: number
  fields: FieldDesc[]
  metadata: Map<string, string> | null
}

export interface RecordBatchDesc {
  length: number
  /** Field nodes, flattened depth-first: lengths and null counts. */
  nodeLengths: number[]
  nodeNullCounts: number[]
  /** Buffer regions relative to the body. */
  bufferOffsets: number[]
  bufferLengths: number[]
  /** Per-buffer compression codec, or -1 for none. */
  compression: number
  variadicCounts: number[]
}

export interface MessageDesc {
  version: number
  headerType: number
  bodyLength: number
  /** Set for Schema messages. */
  schema: SchemaDesc | null
  /** Set for RecordBatch and DictionaryBatch messages. */
  batch: RecordBatchDesc | null
  /** DictionaryBatch only. */
  dictionaryId: number
  isDelta: boolean
  metadata: Map<string, string> | null
}

export interface BlockDesc {
  offset: number
  metaDataLength: number
  bodyLength: number
}

export interface FooterDesc {
  version: number
  schema: SchemaDesc
  dictionaries: BlockDesc[]
  recordBatches: BlockDesc[]
}

/**
 * Nesting limit for Field children. The format sets none; Arrow C++ stops at 64
 * (arrow/ipc/metadata_internal.cc, kMaxNestingDepth) to keep hostile schemas from
 * exhausting the stack, and so do we.
 */
export const MAX_NESTING_DEPTH = 64

function readMetadata(r: FlatReader, table: number, slot: number): Map<string, string> | null {
  const v = r.fieldVector(table, slot, 4, 'custom_metadata')
  if (v.length === 0) return null
  const out = new Map<string, string>()
  for (let i = 0; i < v.length; i++) {
    const kv = r.indirect(v.start + i * 4, 'KeyValue')
    out.set(r.fieldString(kv, 0, 'KeyValue.key') ?? '', r.fieldString(kv, 1, 'KeyValue.value') ?? '')
  }
  return out
}

function readType(r: FlatReader, field: number, tag: number): TypeDesc {
  const t: TypeDesc = {
    tag: tag as TypeTag, bitWidth: 0, signed: false, precision: 0, scale: 0, unit: 0,
    timezone: null, mode: 0, typeIds: null, width: 0, keysSorted: false,
  }
  if (tag < 0 || tag > TypeTag.LargeListView) r.fail(`unknown field type ${tag}`, field)
  const table = r.fieldTable(field, 3, 'Field.type')
  // Absent type tables take the defaults of Schema.fbs (a zero-field table).
  const has = table !== 0
  switch (tag) {
    case TypeTag.Int:
      t.bitWidth = has ? r.fieldI32(table, 0, 0) : 0
      t.signed = has ? r.fieldBool(table, 1) : false
      if (t.bitWidth !== 8 && t.bitWidth !== 16 && t.bitWidth !== 32 && t.bitWidth !== 64) r.fail(`Int bit width ${t.bitWidth} is not 8, 16, 32 or 64`, field)
      break
    case TypeTag.FloatingPoint:
      t.precision = has ? r.fieldI16(table, 0, 0) : 0
      if (t.precision < 0 || t.precision > 2) r.fail(`FloatingPoint precision ${t.precision} is not 0, 1 or 2`, field)
      break
    case TypeTag.Decimal:
      t.precision = has ? r.fieldI32(table, 0, 0) : 0
      t.scale = has ? r.fieldI32(table, 1, 0) : 0
      t.bitWidth = has ? r.fieldI32(table, 2, 128) : 128
      if (t.bitWidth !== 32 && t.bitWidth !== 64 && t.bitWidth !== 128 && t.bitWidth !== 256) r.fail(`Decimal bit width ${t.bitWidth} is not 32, 64, 128 or 256`, field)
      break
    case TypeTag.Date:
      t.unit = has ? r.fieldI16(table, 0, 1) : 1
      if (t.unit !== 0 && t.unit !== 1) r.fail(`Date unit ${t.unit} is not 0 or 1`, field)
      break
    case TypeTag.Time:
      t.unit = has ? r.fieldI16(table, 0, 1) : 1
      t.bitWidth = has ? r.fieldI32(table, 1, 32) : 32
      if (t.unit < 0 || t.unit > 3) r.fail(`Time unit ${t.unit} is not 0 to 3`, field)
      if (t.bitWidth !== (t.unit <= 1 ? 32 : 64)) r.fail(`Time bit width ${t.bitWidth} does not match unit ${t.unit}`, field)
      break
    case TypeTag.Timestamp:
      t.unit = has ? r.fieldI16(table, 0, 0) : 0
      t.timezone = has ? r.fieldString(table, 1, 'Timestamp.timezone') : null
      if (t.unit < 0 || t.unit > 3) r.fail(`Timestamp unit ${t.unit} is not 0 to 3`, field)
      break
    case TypeTag.Duration:
      t.unit = has ? r.fieldI16(table, 0, 1) : 1
      if (t.unit < 0 || t.unit > 3) r.fail(`Duration unit ${t.unit} is not 0 to 3`, field)
      break
    case TypeTag.Interval:
      t.unit = has ? r.fieldI16(table, 0, 0) : 0
      if (t.unit < 0 || t.unit > 2) r.fail(`Interval unit ${t.unit} is not 0 to 2`, field)
      break
    case TypeTag.Union: {
      t.mode = has ? r.fieldI16(table, 0, 0) : 0
      if (t.mode !== 0 && t.mode !== 1) r.fail(`Union mode ${t.mode} is not 0 or 1`, field)
      const v = has ? r.fieldVector(table, 1, 4, 'Union.typeIds') : { start: 0, length: 0 }
      if (v.length > 0) {
        t.typeIds = []
        for (let i = 0; i < v.length; i++) {
          const id = r.i32(v.start + i * 4)
          // Union type ids are int8 values in the types buffer (Columnar.rst, "Union Layout").
          if (id < 0 || id > 127) r.fail(`Union type id ${id} is outside 0..127`, v.start + i * 4)
          t.typeIds.push(id)
        }
      }
      break
    }
    case TypeTag.FixedSizeBinary:
      t.width = has ? r.fieldI32(table, 0, 0) : 0
      if (t.width < 0) r.fail(`FixedSizeBinary byte width ${t.width} is negative`, field)
      break
    case TypeTag.FixedSizeList:
      t.width = has ? r.fieldI32(table, 0, 0) : 0
      if (t.width < 0) r.fail(`FixedSizeList size ${t.width} is negative`, field)
      break
    case TypeTag.Map:
      t.keysSorted = has ? r.fieldBool(table, 0) : false
      break
  }
  return t
}

function readField(r: FlatReader, field: number, depth: number): FieldDesc {
  if (depth > MAX_NESTING_DEPTH) r.fail(`fields nest deeper than ${MAX_NESTING_DEPTH} levels`, field)
  const name = r.fieldString(field, 0, 'Field.name') ?? ''
  const nullable = r.fieldBool(field, 1)
  const tag = r.fieldU8(field, 2, 0)
  const type = readType(r, field, tag)
  let dictionary: DictionaryDesc | null = null
  const dict = r.fieldTable(field, 4, 'Field.dictionary')
  if (dict) {
    const index = r.fieldTable(dict, 1, 'DictionaryEncoding.indexType')
    // Schema.fbs: "if this is not set, the index type is assumed to be signed int32".
    const indexBitWidth = index ? r.fieldI32(index, 0, 0) : 32
    const indexSigned = index ? r.fieldBool(index, 1) : true
    if (indexBitWidth !== 8 && indexBitWidth !== 16 && indexBitWidth !== 32 && indexBitWidth !== 64) {
      r.fail(`dictionary index bit width ${indexBitWidth} is not 8, 16, 32 or 64`, dict)
    }
    dictionary = { id: r.fieldI64(dict, 0, 0, 'dictionary id'), indexBitWidth, indexSigned, ordered: r.fieldBool(dict, 2) }
  }
  const v = r.fieldVector(field, 5, 4, 'Field.children')
  const children: FieldDesc[] = []
  for (let i = 0; i < v.length; i++) children.push(readField(r, r.indirect(v.start + i * 4, 'child field'), depth + 1))
  checkChildren(r, field, type, children)
  return { name, nullable, type, children, dictionary, metadata: readMetadata(r, field, 6) }
}

/** The child counts each nested type requires (Columnar.rst). */
function checkChildren(r: FlatReader, pos: number, type: TypeDesc, children: FieldDesc[]): void {
  const n = children.length
  switch (type.tag) {
    case TypeTag.List: case TypeTag.LargeList: case TypeTag.FixedSizeList: case TypeTag.ListView: case TypeTag.LargeListView:
      if (n !== 1) r.fail(`a list field needs 1 child, has ${n}`, pos)
      break
    case TypeTag.Map: {
      if (n !== 1) r.fail(`a map field needs 1 child, has ${n}`, pos)
      const entries = children[0]!
      if (entries.type.tag !== TypeTag.Struct || entries.children.length !== 2) r.fail(`a map's child must be a struct of 2 fields`, pos)
      break
    }
    case TypeTag.RunEndEncoded:
      if (n !== 2) r.fail(`a run-end encoded field needs 2 children, has ${n}`, pos)
      break
    case TypeTag.Union:
      if (type.typeIds && type.typeIds.length !== n) r.fail(`union has ${type.typeIds.length} type ids for ${n} children`, pos)
      break
    case TypeTag.Struct:
      break
    default:
      if (n !== 0) r.fail(`a field of type ${type.tag} cannot have ${n} children`, pos)
  }
}

export function readSchema(r: FlatReader, table: number): SchemaDesc {
  const endianness = r.fieldI16(table, 0, 0)
  const v = r.fieldVector(table, 1, 4, 'Schema.fields')
  const fields: FieldDesc[] = []
  for (let i = 0; i < v.length; i++) fields.push(readField(r, r.indirect(v.start + i * 4, 'field'), 1))
  return { endianness, fields, metadata: readMetadata(r, table, 2) }
}

function readRecordBatch(r: FlatReader, table: number): RecordBatchDesc {
  const length = r.fieldI64(table, 0, 0, 'RecordBatch.length')
  if (length < 0) r.fail(`record batch length ${length} is negative`, table)
  const nodes = r.fieldVector(table, 1, 16, 'RecordBatch.nodes')
  const nodeLengths: number[] = []
  const nodeNullCounts: number[] = []
  for (let i = 0; i < nodes.length; i++) {
    const p = nodes.start + i * 16
    const len = r.i64(p, 'FieldNode.length')
    const nulls = r.i64(p + 8, 'FieldNode.null_count')
    if (len < 0 || nulls < 0 || nulls > len) r.fail(`field node ${i} has length ${len} and null count ${nulls}`, p)
    nodeLengths.push(len)
    nodeNullCounts.push(nulls)
  }
  const buffers = r.fieldVector(table, 2, 16, 'RecordBatch.buffers')
  const bufferOffsets: number[] = []
  const bufferLengths: number[] = []
  for (let i = 0; i < buffers.length; i++) {
    const p = buffers.start + i * 16
    const off = r.i64(p, 'Buffer.offset')
    const len = r.i64(p + 8, 'Buffer.length')
    if (off < 0 || len < 0) r.fail(`buffer ${i} has offset ${off} and length ${len}`, p)
    bufferOffsets.push(off)
    bufferLengths.push(len)
  }
  let compression = -1
  const comp = r.fieldTable(table, 3, 'RecordBatch.compression')
  if (comp) {
    compression = r.fieldU8(comp, 0, 0)
    const method = r.fieldU8(comp, 1, 0)
    if (compression > 1) throw new CodecError('UNSUPPORTED', 'arrow', `body compression codec ${compression} is not LZ4_FRAME (0) or ZSTD (1)`, r.base + comp)
    if (method !== 0) throw new CodecError('UNSUPPORTED', 'arrow', `body compression method ${method} is not BUFFER (0)`, r.base + comp)
  }
  const vc = r.fieldVector(table, 4, 8, 'RecordBatch.variadicBufferCounts')
  const variadicCounts: number[] = []
  for (let i = 0; i < vc.length; i++) {
    const n = r.i64(vc.start + i * 8, 'variadic buffer count')
    if (n < 0) r.fail(`variadic buffer count ${n} is negative`, vc.start + i * 8)
    variadicCounts.push(n)
  }
  return { length, nodeLengths, nodeNullCounts, bufferOffsets, bufferLengths, compression, variadicCounts }
}

/**
 * Decodes one `Message` flatbuffer. `base` is its absolute offset (for errors).
 * Tensor and SparseTensor messages are rejected as unsupported.
 */
export function readMessage(bytes: Uint8Array, base: number): MessageDesc {
  const r = new FlatReader(bytes, base)
  const msg = r.root()
  const version = r.fieldI16(msg, 0, 0)
  if (version < MetadataVersion.V4 || version > MetadataVersion.V5) {
    // V1-V3 predate 0.8 and are no longer readable by any Arrow implementation.
    throw new CodecError('UNSUPPORTED', 'arrow', `metadata version V${version + 1} is not V4 or V5`, base)
  }
  const headerType = r.fieldU8(msg, 1, 0)
  const header = r.fieldTable(msg, 2, 'Message.header')
  const bodyLength = r.fieldI64(msg, 3, 0, 'Message.bodyLength')
  if (bodyLength < 0) r.fail(`message body length ${bodyLength} is negative`, msg)
  const out: MessageDesc = { version, headerType, bodyLength, schema: null, batch: null, dictionaryId: 0, isDelta: false, metadata: readMetadata(r, msg, 4) }
  if (headerType === HeaderTag.Schema || headerType === HeaderTag.RecordBatch || headerType === HeaderTag.DictionaryBatch) {
    if (!header) r.fail(`message of type ${headerType} has no header`, msg)
  }
  switch (headerType) {
    case HeaderTag.Schema:
      out.schema = readSchema(r, header)
      break
    case HeaderTag.RecordBatch:
      out.batch = readRecordBatch(r, header)
      break
    case HeaderTag.DictionaryBatch: {
      out.dictionaryId = r.fieldI64(header, 0, 0, 'DictionaryBatch.id')
      const data = r.fieldTable(header, 1, 'DictionaryBatch.data')
      if (!data) r.fail('dictionary batch has no data', header)
      out.batch = readRecordBatch(r, data)
      out.isDelta = r.fieldBool(header, 2)
      break
    }
    case HeaderTag.Tensor: case HeaderTag.SparseTensor:
      throw new CodecError('UNSUPPORTED', 'arrow', `tensor messages (type ${headerType}) are not supported`, base)
    default:
      r.fail(`unknown message header type ${headerType}`, msg)
  }
  return out
}

/** Decodes the `Footer` flatbuffer of the IPC file format. */
export function readFooter(bytes: Uint8Array, base: number): FooterDesc {
  const r = new FlatReader(bytes, base)
  const footer = r.root()
  const version = r.fieldI16(footer, 0, 0)
  const schemaTable = r.fieldTable(footer, 1, 'Footer.schema')
  if (!schemaTable) r.fail('file footer has no schema', footer)
  const blocks = (slot: number, what: string): BlockDesc[] => {
    const v = r.fieldVector(footer, slot, 24, what)
    const out: BlockDesc[] = []
    for (let i = 0; i < v.length; i++) {
      const p = v.start + i * 24
      const offset = r.i64(p, 'Block.offset')
      const metaDataLength = r.i32(p + 8)
      const bodyLength = r.i64(p + 16, 'Block.bodyLength')
      if (offset < 0 || metaDataLength <= 0 || bodyLength < 0) r.fail(`${what} block ${i} has offset ${offset}, metadata length ${metaDataLength}, body length ${bodyLength}`, p)
      out.push({ offset, metaDataLength, bodyLength })
    }
    return out
  }
  return { version, schema: readSchema(r, schemaTable), dictionaries: blocks(2, 'dictionaries'), recordBatches: blocks(3, 'recordBatches') }
}
