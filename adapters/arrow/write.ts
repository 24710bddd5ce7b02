import { DataType, RecordBatch, Schema, Table, type Data, type Vector } from 'apache-arrow'
import type { Encoder } from '../../lib/codec.js'
import { CodecError } from '../../lib/errors.js'
import { checkLevel } from '../../lib/codec-options.js'
import { checkKeys } from '../../lib/options.js'
import { loadCodec } from '../../lib/registry.js'
import type { BlockDesc, SchemaDesc } from '../../lib/arrow/metadata.js'
import { bodyEncoderOptions, layoutBody, type Body, type BodyBuffers } from '../../lib/arrow/body-write.js'
import {
  encodeDictionaryBatchMessage, encodeFooter, encodeRecordBatchMessage, encodeSchemaMessage, END_OF_STREAM, messagePrefix,
} from '../../lib/arrow/metadata-write.js'
import { assemble, childOf, emptyData } from './layout.js'
import { schemaDesc } from './schema.js'
import type { ArrowThreads } from './threads.js'
import { checkThreadsForm } from '../../lib/options.js'
import type { Threads } from '../../streams/thread-options.js'

/** Options of `arrowEncode()` and `arrowEncodeFile()`. */
export interface ArrowEncodeOptions {
  /** Body compression of every buffer (Message.fbs `BodyCompression`); default none. */
  compression?: 'lz4' | 'zstd' | null
  /** Level of the codec (lz4 1-12, zstd 1-19); the codec's default otherwise. */
  level?: number
  /**
   * Threads to compress bodies on (issue 22; the threads guide, docs/threads.md,
   * "Arrow"): `1` (default) compresses on the caller's thread and starts no worker.
   * More compresses the buffers of each message as jobs on that many workers of the
   * realm's pool, a few messages ahead of the one being written (at most about
   * `2 × threads` jobs in flight; a message of less than 1 MiB on the caller's thread). The output is byte for byte the same whatever `threads`.
   * `'auto'`: the runtime's cores (at most 16; 1 on workerd). A runtime without
   * workers (workerd) refuses a number above 1 with `ENGINE_UNAVAILABLE` when writing
   * starts. Without `compression` there is nothing to spread: one thread.
   */
  threads?: Threads
}

// --- the writer --------------------------------------------------------------------

/** With threads, how many messages the writer compresses ahead of the one it sends. */
const AHEAD = 4

/** One message to write: its buffers and node length, and how to send it once its body is laid out. */
interface Outgoing {
  a: BodyBuffers
  length: number
  send(body: Body): void
}

/** Writes the messages of one stream or file; `emit` receives the bytes in order. */
class IpcWriter {
  private schema: Schema | null = null
  private desc: SchemaDesc | null = null
  private encoder: Encoder | null = null
  private readonly compression: number
  private readonly level: number | undefined
  private readonly threads: Threads
  /** The parallel body code once `open()` resolved `threads` above one (with compression). */
  threaded: ArrowThreads | null = null
  /** Dictionary chunks written so far, by id. */
  private readonly written = new Map<number, { vector: Vector; chunks: Data[] }>()
  /** Bytes emitted so far (file block offsets). */
  position = 0
  readonly dictionaryBlocks: BlockDesc[] = []
  readonly recordBlocks: BlockDesc[] = []

  constructor(options: ArrowEncodeOptions | undefined, private readonly emit: (chunk: Uint8Array) => void, private readonly file: boolean) {
    checkKeys('arrow', options, ['compression', 'level', 'threads'] satisfies (keyof ArrowEncodeOptions)[])
    const c = options?.compression ?? null
    if (c !== null && c !== 'lz4' && c !== 'zstd') {
      throw new CodecError('INVALID_OPTION', 'arrow', `compression must be 'lz4', 'zstd' or null, got ${String(c)}`)
    }
    this.compression = c === 'lz4' ? 0 : c === 'zstd' ? 1 : -1
    this.level = c !== null ? checkLevel(c, options?.level) : undefined
    checkThreadsForm('arrow', options?.threads)
    this.threads = options?.threads ?? 1
  }

  async open(): Promise<void> {
    if (this.threads !== 1 && !this.threaded) {
      // Loaded only now, so that a writer on one thread never loads the worker pool.
      // Resolved even without compression: threads > 1 where there are no workers is
      // ENGINE_UNAVAILABLE, never one thread unnoticed.
      const { arrowThreads } = await import('./threads.js')
      const threaded = arrowThreads(this.threads)
      if (this.compression >= 0) this.threaded = threaded
    }
    if (this.compression < 0 || this.encoder) return
    const mod = this.compression === 0 ? await loadCodec('lz4', 'wasm', 'encode') : await loadCodec('zstd', 'wasm', 'encode')
    const options = bodyEncoderOptions(this.compression, this.level)
    // LZ4 levels 3 to 12 load LZ4 HC here.
    await mod.prepare?.('encode', options)
    this.encoder ??= mod.createEncoder(options)
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

  private layout(a: BodyBuffers, length: number): Body {
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

  /**
   * Writes `batches`: each one's new dictionary batches, then the record batch. With
   * `threads` above one, the bodies are compressed as jobs (`writeThreaded`) and the
   * promise settles once the messages are out; else all is done on return.
   */
  write(batches: readonly RecordBatch[]): void | Promise<void> {
    if (this.threaded) return this.writeThreaded(batches, this.threaded)
    for (const b of batches) for (const m of this.messages(b)) m.send(this.layout(m.a, m.length))
  }

  /**
   * The messages of `batches` compressed as jobs, up to `AHEAD` messages at once (their
   * jobs share the `2 × threads` in flight), and sent in order: the workers go on with
   * the next messages while one is sent. Planning a message ahead of sending the one
   * before is safe: what a plan reads (the schema, the dictionaries written) is set as
   * messages are planned, and what sending sets (block offsets) only sending reads.
   */
  private async writeThreaded(batches: readonly RecordBatch[], threaded: ArrowThreads): Promise<void> {
    type Settled = { body: Body } | { error: unknown }
    const window: { m: Outgoing; body: Promise<Settled> }[] = []
    const sendFirst = async (): Promise<void> => {
      const { m, body } = window.shift()!
      const done = await body
      if ('error' in done) throw done.error
      m.send(done.body)
    }
    try {
      for (const b of batches) {
        for (const m of this.messages(b)) {
          // Settled outcomes: a later message failing while an earlier one is awaited is
          // never an unhandled rejection; its error is thrown in its turn.
          const body = threaded.layout(m.a, m.length, this.compression, this.level).then(
            (body): Settled => ({ body }),
            (error: unknown): Settled => ({ error }),
          )
          window.push({ m, body })
          if (window.length >= AHEAD) await sendFirst()
        }
      }
      while (window.length > 0) await sendFirst()
    } finally {
      // On an error, the messages still in the window are dropped (their jobs finish).
      window.length = 0
    }
  }

  /**
   * The messages of `batch` in order (its new dictionary batches, then the record
   * batch): each one's buffers, and how to send it once its body is laid out. Lazy, so
   * that each message is sent before the next is planned, as the writer has always
   * done.
   */
  private *messages(batch: RecordBatch): Generator<Outgoing> {
    this.start(schemaOf(batch))
    const fields = batch.data.type.children
    if (fields.length !== this.schema!.fields.length) {
      throw new CodecError('INVALID_OPTION', 'arrow', `batch has ${fields.length} columns, the stream's schema ${this.schema!.fields.length}`)
    }
    yield* this.dictionaryMessages(batch)
    const a: BodyBuffers = { nodes: [], buffers: [], variadicCounts: [] }
    fields.forEach((f, i) => assemble(f.type, childOf(batch.data, i, f.type, batch.numRows), a))
    yield {
      a,
      length: batch.numRows,
      send: (body) => {
        const meta = encodeRecordBatchMessage(body.layout, body.length, batch.metadata.size > 0 ? batch.metadata : null)
        this.recordBlocks.push(this.message(meta, body))
      },
    }
  }

  private *dictionaryMessages(batch: RecordBatch): Generator<Outgoing> {
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
      const send = (delta: boolean) => (body: Body) => {
        this.dictionaryBlocks.push(this.message(encodeDictionaryBatchMessage(id, body.layout, delta, body.length), body))
      }
      for (let i = first; i < chunks.length; i++) {
        const a: BodyBuffers = { nodes: [], buffers: [], variadicCounts: [] }
        assemble(valueType, chunks[i]!, a)
        yield { a, length: chunks[i]!.length, send: send(isDelta || i > 0) }
      }
      if (chunks.length === 0) {
        const a: BodyBuffers = { nodes: [], buffers: [], variadicCounts: [] }
        // An empty dictionary still needs one (empty) dictionary batch.
        assemble(valueType, emptyData(valueType), a)
        yield { a, length: 0, send: send(false) }
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
      const fail = (e: unknown): never => {
        writer.dispose()
        throw e
      }
      try {
        writer.start(schema)
        // One thread: all written on return, as always; threads: the batches in turn.
        const done = writer.write(batches)
        if (done) return done.catch(fail)
      } catch (e) {
        fail(e)
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
    await writer.write(batches)
    writer.end()
  } finally {
    writer.dispose()
  }
  const out = new Uint8Array(writer.position)
  let at = 0
  for (const c of chunks) { out.set(c, at); at += c.length }
  return out
}
