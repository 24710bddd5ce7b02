import { DataType, makeData, RecordBatch, Schema, Table, type Data, type Field, type Vector } from 'apache-arrow'
import type { Encoder } from '../../lib/codec.js'
import { CodecError } from '../../lib/errors.js'
import { checkLevel } from '../../lib/formats.js'
import { loadCodec } from '../../lib/registry.js'
import { Status } from '../../lib/status.js'
import { TypeTag, type BlockDesc, type FieldDesc, type SchemaDesc, type TypeDesc } from '../../lib/arrow/metadata.js'
import { bodyEncoderOptions } from '../../lib/arrow/body.js'
import {
  encodeDictionaryBatchMessage, encodeFooter, encodeRecordBatchMessage, encodeSchemaMessage, END_OF_STREAM, messagePrefix,
  type BatchLayout,
} from '../../lib/arrow/metadata-write.js'

export interface ArrowEncodeOptions {
  /** Body compression of every buffer (Message.fbs `BodyCompression`); default none. */
  compression?: 'lz4' | 'zstd' | null
  /** Level of the codec (lz4 1-12, zstd 1-19); the codec's default otherwise. */
  level?: number
}

// --- apache-arrow schema -> plain description -------------------------------------

function typeDesc(t: DataType): TypeDesc {
  const d: TypeDesc = { tag: t.typeId as TypeDesc['tag'], bitWidth: 0, signed: false, precision: 0, scale: 0, unit: 0, timezone: null, mode: 0, typeIds: null, width: 0, keysSorted: false }
  const a = t as unknown as Record<string, unknown>
  switch (t.typeId) {
    case TypeTag.Int: d.bitWidth = a.bitWidth as number; d.signed = a.isSigned as boolean; break
    case TypeTag.FloatingPoint: d.precision = a.precision as number; break
    case TypeTag.Decimal: d.precision = a.precision as number; d.scale = a.scale as number; d.bitWidth = a.bitWidth as number; break
    case TypeTag.Date: case TypeTag.Interval: case TypeTag.Duration: d.unit = a.unit as number; break
    case TypeTag.Time: d.unit = a.unit as number; d.bitWidth = a.bitWidth as number; break
    case TypeTag.Timestamp: d.unit = a.unit as number; d.timezone = (a.timezone as string | null) ?? null; break
    case TypeTag.Union: d.mode = a.mode as number; d.typeIds = Array.from(a.typeIds as Int32Array); break
    case TypeTag.FixedSizeBinary: d.width = a.byteWidth as number; break
    case TypeTag.FixedSizeList: d.width = a.listSize as number; break
    case TypeTag.Map: d.keysSorted = Boolean(a.keysSorted); break
    case TypeTag.Null: case TypeTag.Binary: case TypeTag.Utf8: case TypeTag.Bool: case TypeTag.List: case TypeTag.Struct:
    case TypeTag.LargeBinary: case TypeTag.LargeUtf8: case TypeTag.LargeList: case TypeTag.BinaryView: case TypeTag.Utf8View:
      break
    default:
      throw new CodecError('UNSUPPORTED', 'arrow', `cannot write type ${String(t)}`)
  }
  return d
}

function fieldDesc(f: Field): FieldDesc {
  let t = f.type as DataType
  let dictionary: FieldDesc['dictionary'] = null
  if (DataType.isDictionary(t)) {
    dictionary = { id: Number(t.id), indexBitWidth: t.indices.bitWidth, indexSigned: t.indices.isSigned, ordered: Boolean(t.isOrdered) }
    t = t.dictionary
  }
  return {
    name: f.name,
    nullable: f.nullable,
    type: typeDesc(t),
    children: (t.children ?? []).map(fieldDesc),
    dictionary,
    metadata: f.metadata.size > 0 ? f.metadata : null,
  }
}

export function schemaDesc(s: Schema): SchemaDesc {
  return { endianness: 0, fields: s.fields.map(fieldDesc), metadata: s.metadata.size > 0 ? s.metadata : null }
}

// --- Data -> field nodes and buffers (Columnar.rst, "Buffer Layout") --------------

interface Assembled {
  nodes: number[]
  buffers: Uint8Array[]
  variadicCounts: number[]
}

const EMPTY = new Uint8Array(0)

/**
 * The first `byteLength` bytes of `v`. apache-arrow can hand out Data whose buffers are
 * shorter than its length implies (`_changeLengthAndBackfillNullBitmap` extends a
 * column with nulls without growing its values), so a short buffer is zero-padded.
 */
function bytesOf(v: ArrayBufferView | undefined | null, byteLength?: number): Uint8Array {
  if (!v) return byteLength ? new Uint8Array(byteLength) : EMPTY
  const want = byteLength ?? v.byteLength
  if (want <= v.byteLength) return new Uint8Array(v.buffer, v.byteOffset, want)
  const out = new Uint8Array(want)
  out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))
  return out
}

/** `length` bits of `bitmap` starting at bit `offset`, re-packed from bit 0 when needed. */
function sliceBits(bitmap: Uint8Array, offset: number, length: number): Uint8Array {
  const n = (length + 7) >> 3
  if ((offset & 7) === 0) {
    const start = offset >> 3
    if (start + n <= bitmap.length) return bitmap.subarray(start, start + n)
  }
  const out = new Uint8Array(n)
  for (let i = 0; i < length; i++) {
    const j = offset + i
    if ((bitmap[j >> 3]! >> (j & 7)) & 1) out[i >> 3]! |= 1 << (i & 7)
  }
  return out
}

/** Offsets rebased to start at 0 (a copy only when they do not already). */
function rebase(offsets: Int32Array | BigInt64Array, length: number): { bytes: Uint8Array; begin: number; end: number } {
  let view = offsets.subarray(0, length + 1) as Int32Array | BigInt64Array
  if (view.length < length + 1) {
    // Backfilled nulls (see bytesOf): the missing offsets repeat the last one.
    const last = view.length > 0 ? view[view.length - 1]! : 0
    const full = view instanceof BigInt64Array ? new BigInt64Array(length + 1).fill(BigInt(last)) : new Int32Array(length + 1).fill(Number(last))
    full.set(view as never)
    view = full
  }
  const begin = Number(view[0] ?? 0)
  const end = Number(view[length] ?? 0)
  if (begin === 0) return { bytes: bytesOf(view), begin, end }
  if (view instanceof BigInt64Array) {
    const b = BigInt(begin)
    return { bytes: bytesOf(view.map((x) => x - b)), begin, end }
  }
  return { bytes: bytesOf(view.map((x) => x - begin)), begin, end }
}

/**
 * Child `i` of `data`, or when apache-arrow left it out (empty Data built from an
 * empty array has no `children`), `length` nulls of the child's type.
 */
function childOf(data: Data, i: number, type: DataType, length: number): Data {
  const c = data.children?.[i]
  if (c) return c
  return makeData({ type, length, nullCount: length, nullBitmap: new Uint8Array((length + 7) >> 3) } as never)
}

function assemble(type: DataType, data: Data, out: Assembled): void {
  const { length } = data
  const nullCount = data.nullCount
  out.nodes.push(length, nullCount)
  const validity = (): void => {
    out.buffers.push(nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0 ? sliceBits(data.nullBitmap, data.offset, length) : EMPTY)
  }
  if (DataType.isDictionary(type)) {
    validity()
    const width = type.indices.bitWidth >> 3
    out.buffers.push(bytesOf(data.values as ArrayBufferView, length * width))
    return
  }
  switch (type.typeId) {
    case TypeTag.Null:
      return
    case TypeTag.Bool:
      validity()
      out.buffers.push(data.values ? sliceBits(data.values as Uint8Array, data.offset, length) : new Uint8Array((length + 7) >> 3))
      return
    case TypeTag.Int: case TypeTag.FloatingPoint: case TypeTag.Decimal: case TypeTag.Date: case TypeTag.Time:
    case TypeTag.Timestamp: case TypeTag.Interval: case TypeTag.Duration: case TypeTag.FixedSizeBinary: {
      validity()
      const bytesPerElement = (type.ArrayType as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT
      out.buffers.push(bytesOf(data.values as ArrayBufferView | undefined, length * data.stride * bytesPerElement))
      return
    }
    case TypeTag.Binary: case TypeTag.Utf8: case TypeTag.LargeBinary: case TypeTag.LargeUtf8: {
      validity()
      const large = type.typeId === TypeTag.LargeBinary || type.typeId === TypeTag.LargeUtf8
      const { bytes, begin, end } = rebase(data.valueOffsets ?? (large ? new BigInt64Array(0) : new Int32Array(0)), length)
      out.buffers.push(bytes)
      out.buffers.push(bytesOf(data.values as Uint8Array | undefined, end).subarray(begin, end))
      return
    }
    case TypeTag.BinaryView: case TypeTag.Utf8View: {
      validity()
      const views = bytesOf(data.values as Uint8Array | undefined, (data.offset + length) * 16)
      out.buffers.push(views.subarray(data.offset * 16, (data.offset + length) * 16))
      const variadic = data.variadicBuffers ?? []
      for (const b of variadic) out.buffers.push(bytesOf(b))
      out.variadicCounts.push(variadic.length)
      return
    }
    case TypeTag.List: case TypeTag.LargeList: case TypeTag.Map: {
      validity()
      const { bytes, begin, end } = rebase(data.valueOffsets ?? (type.typeId === TypeTag.LargeList ? new BigInt64Array(0) : new Int32Array(0)), length)
      out.buffers.push(bytes)
      const child = childOf(data, 0, type.children[0]!.type, end)
      assemble(type.children[0]!.type, begin === 0 && end === child.length ? child : child.slice(begin, end - begin), out)
      return
    }
    case TypeTag.FixedSizeList: case TypeTag.Struct: {
      validity()
      const n = type.typeId === TypeTag.Struct ? length : length * (type as unknown as { listSize: number }).listSize
      type.children.forEach((f, i) => assemble(f.type, childOf(data, i, f.type, n), out))
      return
    }
    case TypeTag.Union: {
      // V5 unions have no validity bitmap (Columnar.rst, "Union Layout").
      out.buffers.push(bytesOf(data.typeIds as Int8Array, length))
      if ((type as unknown as { mode: number }).mode === 1) {
        if (data.offset > 0) throw new CodecError('UNSUPPORTED', 'arrow', 'writing a sliced dense union is not supported')
        out.buffers.push(bytesOf(data.valueOffsets as Int32Array, length * 4))
      }
      type.children.forEach((f, i) => assemble(f.type, childOf(data, i, f.type, 0), out))
      return
    }
  }
  throw new CodecError('UNSUPPORTED', 'arrow', `cannot write type ${String(type)}`)
}

function align8(n: number): number {
  const r = n % 8
  return r === 0 ? n : n + 8 - r
}

/**
 * A message body laid out: its regions (`layout`), its length, and how to write it.
 * Uncompressed bodies are copied from the source buffers straight into the message's
 * memory; compressed ones were written into the writer's scratch memory first (their
 * size is known only after compressing) and are copied from there.
 */
interface Body {
  layout: BatchLayout
  length: number
  /** Writes the body into `dst` (zeroed memory of exactly `length` bytes). */
  writeTo(dst: Uint8Array): void
}

/**
 * Lays the buffers out as a message body (each 8-byte aligned). With an encoder, each
 * non-empty buffer is stored as its int64 uncompressed length and the compressed
 * frame, or as -1 and the raw bytes when the frame would not be smaller: the encoder
 * gets a destination one byte shorter than the input, so an incompressible buffer
 * stops it early instead of being compressed in full and thrown away. Compressed
 * bodies go into `scratch(capacity)`, memory the writer reuses from message to message.
 */
function layoutBody(a: Assembled, length: number, encoder: Encoder | null, compression: number, scratch: (capacity: number) => Uint8Array): Body {
  const regions: number[] = []
  let at = 0
  if (!encoder) {
    for (const b of a.buffers) {
      regions.push(at, b.length)
      at += align8(b.length)
    }
    const buffers = a.buffers
    return {
      layout: { length, nodes: a.nodes, buffers: regions, compression: -1, variadicCounts: a.variadicCounts },
      length: at,
      writeTo(dst) {
        for (let i = 0; i < buffers.length; i++) if (buffers[i]!.length > 0) dst.set(buffers[i]!, regions[2 * i]!)
      },
    }
  }
  let capacity = 0
  for (const b of a.buffers) capacity += align8(b.length) + 8
  const body = scratch(capacity)
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength)
  for (const b of a.buffers) {
    if (b.length === 0) { regions.push(at, 0); continue }
    encoder.reset()
    const status = b.length > 1 ? encoder.transform(b, body.subarray(at + 8, at + 8 + b.length - 1), true) : Status.DestinationTooSmall
    let size: number
    if (status === Status.Done) {
      size = encoder.written
      view.setBigInt64(at, BigInt(b.length), true)
    } else if (status === Status.DestinationTooSmall) {
      size = b.length
      view.setBigInt64(at, -1n, true)
      body.set(b, at + 8)
    } else {
      const f = encoder.failure
      throw new CodecError(f?.code ?? 'INVALID_DATA', 'arrow', `${encoder.format} encoder failed: ${f?.message ?? 'unknown'}`)
    }
    // Zero the bytes between this region and the next one's aligned start (the
    // scratch memory holds bytes of earlier messages).
    const end = at + 8 + size
    body.fill(0, end, align8(end))
    regions.push(at, 8 + size)
    at = align8(end)
  }
  const filled = body.subarray(0, at)
  return {
    layout: { length, nodes: a.nodes, buffers: regions, compression, variadicCounts: a.variadicCounts },
    length: at,
    writeTo(dst) {
      dst.set(filled)
    },
  }
}

// --- the writer --------------------------------------------------------------------

/** Writes the messages of one stream or file; `emit` receives the bytes in order. */
class IpcWriter {
  private schema: Schema | null = null
  private desc: SchemaDesc | null = null
  private encoder: Encoder | null = null
  private readonly compression: number
  private readonly level: number | undefined
  /** Dictionary chunks written so far, by id. */
  private readonly written = new Map<number, { vector: Vector; chunks: Data[] }>()
  /** Bytes emitted so far (file block offsets). */
  position = 0
  readonly dictionaryBlocks: BlockDesc[] = []
  readonly recordBlocks: BlockDesc[] = []

  constructor(options: ArrowEncodeOptions | undefined, private readonly emit: (chunk: Uint8Array) => void, private readonly file: boolean) {
    const c = options?.compression ?? null
    if (c !== null && c !== 'lz4' && c !== 'zstd') {
      throw new CodecError('INVALID_OPTION', 'arrow', `compression must be 'lz4', 'zstd' or null, got ${String(c)}`)
    }
    this.compression = c === 'lz4' ? 0 : c === 'zstd' ? 1 : -1
    this.level = c !== null ? checkLevel(c, options?.level) : undefined
  }

  async open(): Promise<void> {
    if (this.compression < 0 || this.encoder) return
    const mod = this.compression === 0 ? await loadCodec('lz4', 'wasm') : await loadCodec('zstd', 'wasm')
    this.encoder ??= mod.createEncoder(bodyEncoderOptions(this.compression, this.level))
  }

  private out(bytes: Uint8Array): void {
    if (bytes.length === 0) return
    this.emit(bytes)
    this.position += bytes.length
  }

  /** Scratch memory for compressed bodies, kept from message to message. */
  private scratchMemory: Uint8Array | null = null

  private readonly scratch = (capacity: number): Uint8Array => {
    if (this.scratchMemory === null || this.scratchMemory.length < capacity) this.scratchMemory = new Uint8Array(capacity)
    return this.scratchMemory
  }

  private layout(a: Assembled, length: number): Body {
    return layoutBody(a, length, this.encoder, this.compression, this.scratch)
  }

  /** Emits one message (prefix, metadata, body) as one chunk. */
  private message(metadata: Uint8Array, body: Body | null): BlockDesc {
    const offset = this.position
    const metaDataLength = 8 + metadata.length
    const bodyLength = body?.length ?? 0
    const chunk = new Uint8Array(metaDataLength + bodyLength)
    chunk.set(messagePrefix(metadata.length))
    chunk.set(metadata, 8)
    body?.writeTo(chunk.subarray(metaDataLength))
    this.out(chunk)
    return { offset, metaDataLength, bodyLength }
  }

  get started(): boolean {
    return this.schema !== null
  }

  start(schema: Schema): void {
    if (this.schema) return
    this.schema = schema
    this.desc = schemaDesc(schema)
    if (this.file) {
      // File format: "ARROW1" and 2 padding bytes, then the stream (File.fbs comment).
      this.out(new Uint8Array([0x41, 0x52, 0x52, 0x4f, 0x57, 0x31, 0, 0]))
    }
    this.message(encodeSchemaMessage(this.desc), null)
  }

  write(batch: RecordBatch): void {
    this.start(schemaOf(batch))
    const fields = batch.data.type.children
    if (fields.length !== this.schema!.fields.length) {
      throw new CodecError('INVALID_OPTION', 'arrow', `batch has ${fields.length} columns, the stream's schema ${this.schema!.fields.length}`)
    }
    this.writeDictionaries(batch)
    const a: Assembled = { nodes: [], buffers: [], variadicCounts: [] }
    fields.forEach((f, i) => assemble(f.type, childOf(batch.data, i, f.type, batch.numRows), a))
    const body = this.layout(a, batch.numRows)
    const meta = encodeRecordBatchMessage(body.layout, body.length, batch.metadata.size > 0 ? batch.metadata : null)
    this.recordBlocks.push(this.message(meta, body))
  }

  private writeDictionaries(batch: RecordBatch): void {
    const found: [number, DataType, Vector][] = []
    const seen = new Set<number>()
    const walk = (type: DataType, data: Data): void => {
      if (DataType.isDictionary(type)) {
        const dict = data.dictionary
        if (!dict) {
          // Empty columns built by apache-arrow may lack one; nothing refers to it.
          if (data.length === 0) return
          throw new CodecError('INVALID_OPTION', 'arrow', `dictionary column ${type.id} has no dictionary`)
        }
        for (const chunk of dict.data) walk(type.dictionary, chunk)
        const id = Number(type.id)
        if (!seen.has(id)) { seen.add(id); found.push([id, type.dictionary, dict]) }
        return
      }
      ;(type.children ?? []).forEach((f, i) => data.children?.[i] && walk(f.type, data.children[i]!))
    }
    batch.data.type.children.forEach((f, i) => batch.data.children?.[i] && walk(f.type, batch.data.children[i]!))
    for (const [id, valueType, vector] of found) {
      const prev = this.written.get(id)
      if (prev && prev.vector === vector) continue
      const chunks = vector.data as Data[]
      let first = 0
      let isDelta = false
      if (prev && chunks.length >= prev.chunks.length && prev.chunks.every((c, i) => chunks[i] === c)) {
        // The dictionary grew by whole chunks: send only those, as deltas.
        first = prev.chunks.length
        isDelta = true
      } else if (prev && this.file) {
        // The file format allows no dictionary replacement (Columnar.rst, "IPC File Format").
        throw new CodecError('UNSUPPORTED', 'arrow', `dictionary ${id} changes between batches, which the IPC file format cannot store`)
      }
      for (let i = first; i < chunks.length; i++) {
        const a: Assembled = { nodes: [], buffers: [], variadicCounts: [] }
        assemble(valueType, chunks[i]!, a)
        const body = this.layout(a, chunks[i]!.length)
        this.dictionaryBlocks.push(this.message(encodeDictionaryBatchMessage(id, body.layout, isDelta || i > 0, body.length), body))
      }
      if (chunks.length === 0) {
        const a: Assembled = { nodes: [], buffers: [], variadicCounts: [] }
        // An empty dictionary still needs one (empty) dictionary batch.
        assemble(valueType, emptyData(valueType), a)
        const body = this.layout(a, 0)
        this.dictionaryBlocks.push(this.message(encodeDictionaryBatchMessage(id, body.layout, false, body.length), body))
      }
      this.written.set(id, { vector, chunks: [...chunks] })
    }
  }

  end(): void {
    this.out(END_OF_STREAM)
    if (this.file) {
      const footer = encodeFooter(this.desc!, this.dictionaryBlocks, this.recordBlocks)
      const tail = new Uint8Array(footer.length + 10)
      tail.set(footer)
      new DataView(tail.buffer).setInt32(footer.length, footer.length, true)
      tail.set([0x41, 0x52, 0x52, 0x4f, 0x57, 0x31], footer.length + 4)
      this.out(tail)
    }
  }

  dispose(): void {
    this.encoder?.dispose()
    this.encoder = null
    this.scratchMemory = null
  }
}

function emptyData(type: DataType): Data {
  return makeData({ type } as never)
}

/**
 * The schema a batch's data really has. apache-arrow's `Schema.assign` (used when a
 * RecordBatch is built) merges fields of the same name, so with duplicate column names
 * `batch.schema` can disagree with `batch.data`; the Struct type of the data cannot.
 */
function schemaOf(batch: RecordBatch): Schema {
  const fields = batch.data.type.children
  const s = batch.schema
  return fields.length === s.fields.length && fields.every((f, i) => f === s.fields[i]) ? s : new Schema(fields, s.metadata)
}

function batchesOf(chunk: RecordBatch | Table): { schema: Schema; batches: RecordBatch[] } {
  if (chunk instanceof RecordBatch) return { schema: schemaOf(chunk), batches: [chunk] }
  if (chunk instanceof Table) return { schema: chunk.batches[0] ? schemaOf(chunk.batches[0]) : chunk.schema, batches: chunk.batches }
  throw new CodecError('INVALID_OPTION', 'arrow', 'arrowEncode expects RecordBatch or Table chunks')
}

/**
 * `TransformStream<RecordBatch | Table, Uint8Array>` writing the Arrow IPC streaming
 * format: the schema (from the first chunk), dictionary batches before the batches that
 * first use them (deltas when a dictionary grew by chunks), the record batches, and the
 * end-of-stream marker. With `compression`, every buffer is compressed on its own
 * (BodyCompression BUFFER) with its true uncompressed length as the prefix.
 */
export function arrowEncode(options?: ArrowEncodeOptions): TransformStream<RecordBatch | Table, Uint8Array> {
  let enqueue: ((c: Uint8Array) => void) | null = null
  // Constructed now so that bad options throw from arrowEncode() itself.
  const writer = new IpcWriter(options, (c) => enqueue!(c), false)
  return new TransformStream<RecordBatch | Table, Uint8Array>({
    async start(controller) {
      enqueue = (c) => controller.enqueue(c)
      await writer.open()
    },
    transform(chunk) {
      const { schema, batches } = batchesOf(chunk)
      try {
        writer.start(schema)
        for (const b of batches) writer.write(b)
      } catch (e) {
        writer.dispose()
        throw e
      }
    },
    flush() {
      // A stream that saw no chunk has no schema to write: it stays empty.
      if (writer.started) writer.end()
      writer.dispose()
    },
  })
}

/** Writes a whole table (or batches sharing one schema) in the IPC file format. */
export async function arrowEncodeFile(source: Table | RecordBatch[], options?: ArrowEncodeOptions): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  const writer = new IpcWriter(options, (c) => chunks.push(c), true)
  try {
    await writer.open()
    const batches = Array.isArray(source) ? source : source.batches
    const schema = Array.isArray(source) ? (source[0] ? schemaOf(source[0]) : undefined) : batchesOf(source).schema
    if (!schema) throw new CodecError('INVALID_OPTION', 'arrow', 'arrowEncodeFile needs a Table or at least one RecordBatch')
    writer.start(schema)
    for (const b of batches) writer.write(b)
    writer.end()
  } finally {
    writer.dispose()
  }
  const out = new Uint8Array(writer.position)
  let at = 0
  for (const c of chunks) { out.set(c, at); at += c.length }
  return out
}
