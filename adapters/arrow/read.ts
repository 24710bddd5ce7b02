import { Table, type RecordBatch, type Schema } from 'apache-arrow'
import { CodecError } from '../../lib/errors.js'
import { Status } from '../../lib/status.js'
import { IpcFramer } from '../../lib/arrow/framing.js'
import { HeaderTag, readFooter, readMessage, type MessageDesc } from '../../lib/arrow/metadata.js'
import { CodecStream, type Pump, type StreamClasses } from '../../streams/codec-stream.js'
import { ArrowSession, checkReadOptions, type ArrowReadOptions, type ReadLimits } from './session.js'

export type { ArrowReadOptions }

/** Chunks made by `fromBuffer()`: whole streams in memory that results may alias. */
const wholeBuffers = new WeakSet<object>()

/**
 * Wraps a whole IPC stream or file already in memory as a one-chunk `ReadableStream`
 * that `arrowDecode()` recognises: its messages are read in place and uncompressed
 * buffers come out as views of `source` (zero-copy), exactly as `readArrow()` does.
 * Do not modify `source` while you use the batches.
 */
export function fromBuffer(source: Uint8Array | ArrayBuffer): ReadableStream<Uint8Array> {
  const bytes = source instanceof Uint8Array ? source : new Uint8Array(source)
  wholeBuffers.add(bytes)
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes)
      controller.close()
    },
  })
}

/** A message whose body is ready: from the framer, or a block of a file's footer. */
interface Ready {
  message: MessageDesc
  body: Uint8Array
  offset: number
  /** The batch may keep views of `body` (see ArrowSession.handle). */
  owned: boolean
}

const EMPTY = new Uint8Array(0)

/**
 * The Arrow IPC reader as a pump (streams/codec-stream.ts): byte chunks in, one
 * RecordBatch per `next()`, so the stream shell decodes a message only when its reader
 * asks for a batch. A whole buffer (`fromBuffer()`, `readArrow()`) in the file format
 * is read through its footer; anything else front to back, message by message.
 */
class ArrowPump implements Pump<RecordBatch> {
  finished = false
  pending: Promise<void> | null = null
  readonly session: ArrowSession
  private readonly framer: IpcFramer
  private readonly max: number
  private input: Uint8Array = EMPTY
  private pos = 0
  /** The current input is a whole stream or file in memory that batches may alias. */
  private whole = false
  private ended = false
  /** A message waiting to be handled (its codec may still be loading). */
  private ready: Ready | null = null
  /** The blocks of a whole file, read through its footer. */
  private blocks: Iterator<Ready> | null = null
  /** With threads: the message after `ready`, framed early (or the error framing it gave). */
  private ahead: { ready: Ready } | { error: unknown } | null = null
  private fileRead = false

  constructor(limits: ReadLimits) {
    this.max = limits.max
    this.framer = new IpcFramer(limits.max)
    this.session = new ArrowSession(limits)
  }

  get needsInput(): boolean {
    return !this.ended && this.ready === null && this.ahead === null && this.pending === null && this.blocks === null && this.pos >= this.input.length
  }

  /**
   * A chunk from the stream shell: batches may alias it only when `fromBuffer()` made it
   * (the shell's own `lent` flag, the Pump contract's second argument, says nothing here).
   */
  push(chunk: Uint8Array): void {
    this.pushBytes(chunk, wholeBuffers.has(chunk))
  }

  /** `whole`: the chunk is the whole stream or file, and batches may alias it. */
  pushBytes(chunk: Uint8Array, whole: boolean): void {
    if (this.fileRead) throw new CodecError('TRAILING_DATA', 'arrow', 'input after a whole IPC file', this.framer.offset)
    this.input = chunk
    this.pos = 0
    this.whole = whole
    if (this.whole && this.framer.offset === 0 && isFile(chunk)) {
      this.blocks = fileBlocks(chunk, this.session, this.max)
      this.fileRead = true
    }
  }

  end(): void {
    this.ended = true
  }

  next(): RecordBatch | null {
    if (this.pending !== null || this.finished) return null
    const { framer, session } = this
    for (;;) {
      const ready = this.ready
      if (ready !== null) {
        const codec = session.needsDecoder(ready.message)
        if (codec >= 0) {
          this.pending = session.loadDecoder(codec).then(() => {
            this.pending = null
          })
          return null
        }
        if (session.needsPredecode(ready.message)) {
          // threads: the compressed buffers decode as jobs first (session.predecode),
          // and the next message's start while this one is built.
          this.pending = session.predecode(ready.message, ready.body, ready.offset, ready.owned).then(() => {
            this.pending = null
          })
          this.lookAhead(ready)
          return null
        }
        this.ready = null
        const batch = session.handle(ready.message, ready.body, ready.offset, ready.owned)
        if (batch) return batch
        continue
      }
      if (this.ahead !== null) {
        const ahead = this.ahead
        this.ahead = null
        if ('error' in ahead) throw ahead.error
        this.ready = ahead.ready
        continue
      }
      if (this.blocks !== null) {
        const block = this.blocks.next()
        if (!block.done) {
          this.ready = block.value
          continue
        }
        this.blocks = null
        this.pos = this.input.length
        continue
      }
      if (this.pos < this.input.length && !framer.ended) {
        const status = framer.transform(this.input.subarray(this.pos), this.whole)
        this.pos += framer.consumed
        if (status === Status.Done) {
          if (!framer.ended) {
            // May the batch keep views of the body? Of a whole buffer from memory, yes;
            // of a caller's chunk, no; of a body gathered across chunks, yes unless the
            // framer reuses that memory for the next body.
            const owned = framer.bodyAliasesInput ? this.whole : !framer.bodyIsTransient
            this.ready = { message: framer.message!, body: framer.body!, offset: framer.bodyOffset, owned }
          }
          continue
        }
        if (status === Status.InvalidData) {
          const f = framer.failure!
          throw new CodecError(f.code, 'arrow', f.message, f.offset)
        }
        continue // NeedMoreData: all of the input was taken
      }
      // After the end-of-stream marker further input is not examined.
      this.pos = this.input.length
      if (!this.ended) return null
      if (!this.fileRead) finish(framer, session)
      this.finished = true
      return null
    }
  }

  /**
   * Frames the message after `current` now, while `current` is decoded, and starts
   * decoding its buffers (threads): from a whole file's blocks, or from a whole buffer
   * in memory (whose bodies are views that framing further leaves intact); never from
   * chunks, whose bodies the framer may reuse. A framing error is kept for the moment
   * the reader reaches that message, so that the batches before it come out first.
   */
  private lookAhead(current: Ready): void {
    if (this.ahead !== null || !current.owned) return
    let next: Ready
    try {
      if (this.blocks !== null) {
        const block = this.blocks.next()
        if (block.done) return // the main loop ends the blocks
        next = block.value
      } else {
        const framer = this.framer
        if (!this.whole || this.pos >= this.input.length || framer.ended) return
        const status = framer.transform(this.input.subarray(this.pos), true)
        this.pos += framer.consumed
        if (status === Status.InvalidData) {
          const f = framer.failure!
          throw new CodecError(f.code, 'arrow', f.message, f.offset)
        }
        // The end-of-stream marker, or the input ending inside a message: the main loop's.
        if (status !== Status.Done || framer.ended) return
        next = { message: framer.message!, body: framer.body!, offset: framer.bodyOffset, owned: framer.bodyAliasesInput || !framer.bodyIsTransient }
      }
    } catch (error) {
      this.ahead = { error }
      return
    }
    this.ahead = { ready: next }
    if (next.owned) this.session.startPredecode(next.message, next.body, next.offset, next.owned)
  }

  dispose(): void {
    this.session.dispose()
    this.input = EMPTY
    this.ahead = null
    this.ready = null
    this.blocks = null
  }
}

function finish(framer: IpcFramer, session: ArrowSession): void {
  if (!framer.atBoundary) {
    throw new CodecError('TRUNCATED', 'arrow', 'the input ended inside a message', framer.offset)
  }
  if (!session.schema) throw new CodecError('TRUNCATED', 'arrow', 'the input ended before the schema message', framer.offset)
}

/** What `arrowDecode()` accepts: any BufferSource, views over any ArrayBufferLike. */
export type ArrowChunk = ArrayBufferView | ArrayBufferLike

/** Options of `arrowDecode()`. */
export interface ArrowDecodeOptions extends ArrowReadOptions {
  /** Aborts decoding: both sides error with the signal's reason. */
  signal?: AbortSignal
  /** Stream classes to build on; default: the runtime's globals. */
  streams?: StreamClasses
}

/** `arrowDecode()`'s stream: a `{ writable, readable }` pair for `pipeThrough`. */
export interface ArrowDecodeStream extends ReadableWritablePair<RecordBatch, ArrowChunk> {
  /** The record batches, one message decoded per read. */
  readonly readable: ReadableStream<RecordBatch>
  readonly writable: WritableStream<ArrowChunk>
  /** The stream's schema once its first message was read, else null. */
  readonly schema: Schema | null
}

/**
 * Decodes Arrow IPC from chunks of bytes (any BufferSource; see `ArrowChunk`) into
 * apache-arrow RecordBatches: the streaming format, and the file format (read front to
 * back; a whole file from `fromBuffer()` is read through its footer, as `readArrow()`
 * reads it). Chunk boundaries may fall anywhere. Pull-driven: a message is decoded
 * only when the reader asks for the next batch, so one large chunk holding a whole
 * table does not decode it all ahead of the reader. Holds at most one message; a
 * message declaring more than `maxMessageBytes` fails before it is buffered.
 *
 * Memory of the batches: compressed buffers decode into new memory; uncompressed ones
 * (also those stored uncompressed in a compressed message) are copies, or views of the
 * chunk itself when it came from `fromBuffer()`.
 */
export function arrowDecode(options?: ArrowDecodeOptions): ArrowDecodeStream {
  const checked = checkReadOptions(options, ['signal', 'streams'] satisfies (keyof ArrowDecodeOptions)[])
  const limits = options?.signal && checked.threads !== undefined ? { ...checked, signal: options.signal } : checked
  let pump: ArrowPump | null = null
  const stream = new CodecStream<ArrowChunk, RecordBatch>({
    format: 'arrow',
    open: async (use) => use((pump = new ArrowPump(limits))),
    // Nothing to load: open at once, so that chunks are seen as they are (a copy
    // would hide a `fromBuffer()` chunk's identity).
    openAtOnce: true,
    allowShared: true,
    signal: options?.signal,
    streams: options?.streams,
  })
  Object.defineProperty(stream, 'schema', { get: () => pump?.session.schema ?? null, enumerable: true })
  return stream as unknown as ArrowDecodeStream
}

/** What `readArrow()` reads: an IPC stream or file in memory, a `Blob` or a `Response`. */
export type ArrowSource = Uint8Array | ArrayBuffer | ArrayBufferView | Blob | Response

async function bytesOf(source: ArrowSource): Promise<Uint8Array> {
  if (source instanceof Uint8Array) return source
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
  if (source instanceof ArrayBuffer) return new Uint8Array(source)
  if (typeof Blob !== 'undefined' && source instanceof Blob) return new Uint8Array(await source.arrayBuffer())
  if (typeof Response !== 'undefined' && source instanceof Response) return new Uint8Array(await source.arrayBuffer())
  throw new CodecError('INVALID_OPTION', 'arrow', 'readArrow expects a Uint8Array, ArrayBuffer, Blob or Response')
}

const MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31] // "ARROW1"

function hasMagic(b: Uint8Array, at: number): boolean {
  for (let i = 0; i < 6; i++) if (b[at + i] !== MAGIC[i]) return false
  return true
}

/**
 * Reads a whole IPC stream or file that is already in memory into a `Table`, parsing
 * metadata in place. Uncompressed buffers (also those stored uncompressed in a
 * compressed message) are zero-copy views of `source` where their alignment allows (so
 * do not modify `source` while you use the table); compressed buffers decode into new
 * memory.
 */
export async function readArrow(source: ArrowSource, options?: ArrowReadOptions): Promise<Table> {
  const limits = checkReadOptions(options)
  const bytes = await bytesOf(source)
  const pump = new ArrowPump(limits)
  const batches: RecordBatch[] = []
  try {
    pump.pushBytes(bytes, true)
    pump.end()
    while (!pump.finished) {
      const batch = pump.next()
      if (batch) batches.push(batch)
      else if (pump.pending) await pump.pending
    }
  } finally {
    pump.dispose()
  }
  // Like apache-arrow's tableFromIPC: the table takes the first batch's schema (each
  // RecordBatch holds its own Schema instance, see apache-arrow recordbatch.ts).
  return batches.length > 0 ? new Table(batches) : new Table(pump.session.schema!)
}

/** File format: "ARROW1" + 2 padding bytes, the stream, the footer, its int32 size, "ARROW1". */
function isFile(bytes: Uint8Array): boolean {
  return bytes.length >= 18 && hasMagic(bytes, 0) && hasMagic(bytes, bytes.length - 6)
}

/**
 * The messages of a whole file in the order its footer lists them (File.fbs):
 * dictionaries, then record batches. Sets the session's schema from the footer first.
 */
function* fileBlocks(bytes: Uint8Array, session: ArrowSession, max: number): Generator<Ready> {
  const n = bytes.length
  const footerLength = new DataView(bytes.buffer, bytes.byteOffset + n - 10, 4).getInt32(0, true)
  const footerEnd = n - 10
  if (footerLength <= 0 || footerLength > footerEnd - 8) {
    throw new CodecError('INVALID_DATA', 'arrow', `file footer size ${footerLength} does not fit in the ${n}-byte file`, footerEnd)
  }
  const footerStart = footerEnd - footerLength
  const footer = readFooter(bytes.subarray(footerStart, footerEnd), footerStart)
  session.setSchema(footer.schema, footer.version, footerStart)
  const view = new DataView(bytes.buffer, bytes.byteOffset)
  const read = (block: { offset: number; metaDataLength: number; bodyLength: number }, kind: number): Ready => {
    const { offset, metaDataLength, bodyLength } = block
    if (offset < 8 || offset + metaDataLength + bodyLength > footerStart) {
      throw new CodecError('INVALID_DATA', 'arrow', `block at ${offset} with ${metaDataLength} metadata and ${bodyLength} body bytes lies outside the file's data (8 to ${footerStart})`, footerStart)
    }
    if (metaDataLength + bodyLength > max) {
      throw new CodecError('LIMIT_EXCEEDED', 'arrow', `message of ${metaDataLength + bodyLength} bytes exceeds maxMessageBytes ${max}`, offset)
    }
    let metaStart = offset + 4
    let metaLength = view.getInt32(offset, true)
    if (metaLength === -1) { metaLength = view.getInt32(offset + 4, true); metaStart += 4 }
    if (metaLength <= 0 || metaStart + metaLength > offset + metaDataLength) {
      throw new CodecError('INVALID_DATA', 'arrow', `message metadata size ${metaLength} does not fit its block of ${metaDataLength} bytes`, offset)
    }
    const message: MessageDesc = readMessage(bytes.subarray(metaStart, metaStart + metaLength), metaStart)
    if (message.headerType !== kind) {
      throw new CodecError('INVALID_DATA', 'arrow', `block at ${offset} holds message type ${message.headerType}, expected ${kind}`, offset)
    }
    const bodyStart = offset + metaDataLength
    if (bodyStart + message.bodyLength > footerStart) {
      throw new CodecError('INVALID_DATA', 'arrow', `message body of ${message.bodyLength} bytes runs past the file's data`, bodyStart)
    }
    return { message, body: bytes.subarray(bodyStart, bodyStart + message.bodyLength), offset: bodyStart, owned: true }
  }
  for (const b of footer.dictionaries) yield read(b, HeaderTag.DictionaryBatch)
  for (const b of footer.recordBatches) yield read(b, HeaderTag.RecordBatch)
}
