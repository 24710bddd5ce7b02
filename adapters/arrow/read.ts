import { Table, type RecordBatch, type Schema } from 'apache-arrow'
import { CodecError } from '../../lib/errors.js'
import { Status } from '../../lib/status.js'
import { IpcFramer } from '../../lib/arrow/framing.js'
import { HeaderTag, readFooter, readMessage, type MessageDesc } from '../../lib/arrow/metadata.js'
import { ArrowSession, checkReadOptions, type ArrowReadOptions } from './session.js'

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

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  if (chunk instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && chunk instanceof SharedArrayBuffer)) return new Uint8Array(chunk)
  throw new CodecError('INVALID_DATA', 'arrow', `chunks must be BufferSource (ArrayBuffer or a view), got ${chunk === null ? 'null' : typeof chunk}`)
}

/**
 * Feeds `bytes` through the framer into the session, calling `emit` for each batch.
 * Synchronous except when a compressed message needs a codec that is not loaded yet:
 * then it returns a promise that resumes after the load (once per codec).
 */
function feed(framer: IpcFramer, session: ArrowSession, bytes: Uint8Array, start: number, whole: boolean, final: boolean, emit: (b: RecordBatch) => void): void | Promise<void> {
  let pos = start
  while (pos < bytes.length && !framer.ended) {
    const status = framer.transform(bytes.subarray(pos), final)
    pos += framer.consumed
    if (status === Status.Done) {
      if (framer.ended) break
      const message = framer.message!
      const body = framer.body!
      // May the batch keep views of the body? Of a whole buffer from memory, yes; of a
      // caller's chunk, no; of a body gathered across chunks, yes unless the framer
      // reuses that memory for the next body.
      const owned = framer.bodyAliasesInput ? whole : !framer.bodyIsTransient
      const offset = framer.bodyOffset
      const codec = session.needsDecoder(message)
      if (codec >= 0) {
        const resume = pos
        return session.loadDecoder(codec).then(() => {
          const batch = session.handle(message, body, offset, owned)
          if (batch) emit(batch)
          return feed(framer, session, bytes, resume, whole, final, emit)
        })
      }
      const batch = session.handle(message, body, offset, owned)
      if (batch) emit(batch)
    } else if (status === Status.InvalidData) {
      const f = framer.failure!
      throw new CodecError(f.code, 'arrow', f.message, f.offset)
    }
    // NeedMoreData: everything was consumed; wait for the next chunk.
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

export interface ArrowDecodeStream extends TransformStream<ArrowChunk, RecordBatch> {
  /** The stream's schema once its first message was read, else null. */
  readonly schema: Schema | null
}

/**
 * `TransformStream<BufferSource, RecordBatch>` (see `ArrowChunk`) over the Arrow IPC streaming format (and
 * the file format read front to back: its footer is not needed). Chunk boundaries may
 * fall anywhere. Holds at most one message; a message declaring more than
 * `maxMessageBytes` fails before it is buffered.
 *
 * Memory of the batches: compressed buffers decode into new memory; uncompressed ones
 * (also those stored uncompressed in a compressed message) are copies, or views of the
 * chunk itself when it came from `fromBuffer()`.
 */
export function arrowDecode(options?: ArrowReadOptions): ArrowDecodeStream {
  const max = checkReadOptions(options)
  const framer = new IpcFramer(max)
  const session = new ArrowSession(max)
  const stream = new TransformStream<ArrowChunk, RecordBatch>({
    transform(chunk, controller) {
      const bytes = toBytes(chunk)
      const emit = (b: RecordBatch): void => controller.enqueue(b)
      const fail = (e: unknown): never => {
        session.dispose()
        throw e
      }
      try {
        return feed(framer, session, bytes, 0, wholeBuffers.has(bytes), false, emit)?.catch(fail)
      } catch (e) {
        return fail(e)
      }
    },
    flush() {
      session.dispose()
      finish(framer, session)
    },
  })
  Object.defineProperty(stream, 'schema', { get: () => session.schema, enumerable: true })
  return stream as ArrowDecodeStream
}

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
  const max = checkReadOptions(options)
  const bytes = await bytesOf(source)
  const session = new ArrowSession(max)
  const batches: RecordBatch[] = []
  try {
    // File format: "ARROW1" + 2 padding bytes, the stream, the footer, its int32 size, "ARROW1".
    if (bytes.length >= 18 && hasMagic(bytes, 0) && hasMagic(bytes, bytes.length - 6)) {
      await readFile(bytes, session, max, batches)
    } else {
      const framer = new IpcFramer(max)
      await feed(framer, session, bytes, 0, true, true, (b) => batches.push(b))
      finish(framer, session)
    }
  } finally {
    session.dispose()
  }
  // Like apache-arrow's tableFromIPC: the table takes the first batch's schema (each
  // RecordBatch holds its own Schema instance, see apache-arrow recordbatch.ts).
  return batches.length > 0 ? new Table(batches) : new Table(session.schema!)
}

/** Reads the IPC file format through its footer (File.fbs): dictionaries, then batches. */
async function readFile(bytes: Uint8Array, session: ArrowSession, max: number, batches: RecordBatch[]): Promise<void> {
  const n = bytes.length
  const footerLength = new DataView(bytes.buffer, bytes.byteOffset + n - 10, 4).getInt32(0, true)
  const footerEnd = n - 10
  if (footerLength <= 0 || footerLength > footerEnd - 8) {
    throw new CodecError('INVALID_DATA', 'arrow', `file footer size ${footerLength} does not fit in the ${n}-byte file`, footerEnd)
  }
  const footerStart = footerEnd - footerLength
  const footer = readFooter(bytes.subarray(footerStart, footerEnd), footerStart)
  session.setSchema(footer.schema, footer.version, footerStart)
  const read = async (block: { offset: number; metaDataLength: number; bodyLength: number }, kind: number): Promise<void> => {
    const { offset, metaDataLength, bodyLength } = block
    if (offset < 8 || offset + metaDataLength + bodyLength > footerStart) {
      throw new CodecError('INVALID_DATA', 'arrow', `block at ${offset} with ${metaDataLength} metadata and ${bodyLength} body bytes lies outside the file's data (8 to ${footerStart})`, footerStart)
    }
    if (metaDataLength + bodyLength > max) {
      throw new CodecError('LIMIT_EXCEEDED', 'arrow', `message of ${metaDataLength + bodyLength} bytes exceeds maxMessageBytes ${max}`, offset)
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset)
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
    const codec = session.needsDecoder(message)
    if (codec >= 0) await session.loadDecoder(codec)
    const batch = session.handle(message, bytes.subarray(bodyStart, bodyStart + message.bodyLength), bodyStart, true)
    if (batch) batches.push(batch)
  }
  for (const b of footer.dictionaries) await read(b, HeaderTag.DictionaryBatch)
  for (const b of footer.recordBatches) await read(b, HeaderTag.RecordBatch)
}
