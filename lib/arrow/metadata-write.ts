/**
 * Encodes the Arrow IPC metadata (Message.fbs, Schema.fbs, File.fbs) from the same
 * plain descriptions `metadata.ts` reads. Always metadata version V5.
 */
import { finish, i16, i32, i64, ref, str, table, u8, type FbField, type FbNode } from './flatbuf-write.js'
import { HeaderTag, MetadataVersion, TypeTag, type BlockDesc, type FieldDesc, type SchemaDesc, type TypeDesc } from './metadata.js'

function keyValues(m: Map<string, string> | null): FbField | undefined {
  if (!m || m.size === 0) return undefined
  return ref({ t: 'tables', v: [...m].map(([k, v]) => table([str(k), str(v)])) })
}

function typeTable(t: TypeDesc): FbNode {
  switch (t.tag) {
    case TypeTag.Int: return table([i32(t.bitWidth), u8(t.signed ? 1 : 0)])
    case TypeTag.FloatingPoint: return table([i16(t.precision)])
    case TypeTag.Decimal: return table([i32(t.precision), i32(t.scale), i32(t.bitWidth)])
    case TypeTag.Date: return table([i16(t.unit)])
    case TypeTag.Time: return table([i16(t.unit), i32(t.bitWidth)])
    case TypeTag.Timestamp: return table([i16(t.unit), t.timezone !== null ? str(t.timezone) : undefined])
    case TypeTag.Interval: return table([i16(t.unit)])
    case TypeTag.Duration: return table([i16(t.unit)])
    case TypeTag.Union: return table([i16(t.mode), t.typeIds ? ref({ t: 'i32s', v: t.typeIds }) : undefined])
    case TypeTag.FixedSizeBinary: return table([i32(t.width)])
    case TypeTag.FixedSizeList: return table([i32(t.width)])
    case TypeTag.Map: return table([u8(t.keysSorted ? 1 : 0)])
  }
  return table([])
}

function fieldTable(f: FieldDesc): FbNode {
  const d = f.dictionary
  return table([
    str(f.name),
    u8(f.nullable ? 1 : 0),
    u8(f.type.tag),
    ref(typeTable(f.type)),
    d ? ref(table([i64(d.id), ref(table([i32(d.indexBitWidth), u8(d.indexSigned ? 1 : 0)])), u8(d.ordered ? 1 : 0)])) : undefined,
    ref({ t: 'tables', v: f.children.map(fieldTable) }),
    keyValues(f.metadata),
  ])
}

function schemaTable(s: SchemaDesc): FbNode {
  return table([i16(0), ref({ t: 'tables', v: s.fields.map(fieldTable) }), keyValues(s.metadata)])
}

/** Field nodes and buffers of one record batch, as written. */
export interface BatchLayout {
  length: number
  /** Pairs (length, null count) per field node. */
  nodes: number[]
  /** Pairs (offset, length) per buffer, relative to the body. */
  buffers: number[]
  /** -1 none, 0 LZ4_FRAME, 1 ZSTD. */
  compression: number
  variadicCounts: number[]
}

function pairs(values: number[]): FbNode {
  const bytes = new Uint8Array(values.length * 8)
  const view = new DataView(bytes.buffer)
  values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true))
  return { t: 'structs', count: values.length / 2, bytes }
}

function recordBatchTable(b: BatchLayout): FbNode {
  return table([
    i64(b.length),
    ref(pairs(b.nodes)),
    ref(pairs(b.buffers)),
    b.compression >= 0 ? ref(table([u8(b.compression), u8(0)])) : undefined,
    b.variadicCounts.length > 0 ? ref({ t: 'i64s', v: b.variadicCounts }) : undefined,
  ])
}

function message(headerType: number, header: FbNode, bodyLength: number, metadata: Map<string, string> | null): Uint8Array {
  return finish(table([i16(MetadataVersion.V5), u8(headerType), ref(header), i64(bodyLength), keyValues(metadata)]))
}

export function encodeSchemaMessage(s: SchemaDesc): Uint8Array {
  return message(HeaderTag.Schema, schemaTable(s), 0, null)
}

export function encodeRecordBatchMessage(b: BatchLayout, bodyLength: number, metadata: Map<string, string> | null): Uint8Array {
  return message(HeaderTag.RecordBatch, recordBatchTable(b), bodyLength, metadata)
}

export function encodeDictionaryBatchMessage(id: number, b: BatchLayout, isDelta: boolean, bodyLength: number): Uint8Array {
  return message(HeaderTag.DictionaryBatch, table([i64(id), ref(recordBatchTable(b)), u8(isDelta ? 1 : 0)]), bodyLength, null)
}

export function encodeFooter(s: SchemaDesc, dictionaries: BlockDesc[], recordBatches: BlockDesc[]): Uint8Array {
  const blocks = (list: BlockDesc[]): FbNode => {
    const bytes = new Uint8Array(list.length * 24)
    const view = new DataView(bytes.buffer)
    list.forEach((b, i) => {
      view.setBigInt64(i * 24, BigInt(b.offset), true)
      view.setInt32(i * 24 + 8, b.metaDataLength, true)
      view.setBigInt64(i * 24 + 16, BigInt(b.bodyLength), true)
    })
    return { t: 'structs', count: list.length, bytes }
  }
  return finish(table([i16(MetadataVersion.V5), ref(schemaTable(s)), ref(blocks(dictionaries)), ref(blocks(recordBatches))]))
}

/**
 * The encapsulated message prefix: continuation marker, then the metadata size
 * (Columnar.rst, "Encapsulated message format"). `metadata` is already 8-padded.
 */
export function messagePrefix(metadataLength: number): Uint8Array {
  const p = new Uint8Array(8)
  const v = new DataView(p.buffer)
  v.setInt32(0, -1, true)
  v.setInt32(4, metadataLength, true)
  return p
}

/** The end-of-stream marker: continuation then a 0 size. */
export const END_OF_STREAM = /* @__PURE__ */ new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])
