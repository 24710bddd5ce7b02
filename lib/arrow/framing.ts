import type { Failure } from '../errors.js'
import { CodecError } from '../errors.js'
import { Status } from '../status.js'
import { readMessage, type MessageDesc } from './metadata.js'

/**
 * Incremental framing of the Arrow IPC streaming format
 * (https://arrow.apache.org/docs/format/Columnar.html#encapsulated-message-format):
 *
 *   <continuation: 0xFFFFFFFF> <metadata size: int32> <metadata flatbuffer> <padding> <body>
 *
 * and the pre-0.15 form without the continuation marker (<metadata size: int32> first).
 * A metadata size of 0 is the end-of-stream marker. Files (`ARROW1` magic) are accepted
 * too: the magic and its padding are skipped and the embedded stream is framed up to
 * its end-of-stream marker; the footer after it is not needed to stream.
 *
 * Span-style like the codecs (lib/codec.ts): `transform(src, final)` consumes what it
 * can, reports `consumed`, and returns `Done` each time one message is complete
 * (`message` and `body` are then set) or the end-of-stream marker was read (`ended`),
 * `NeedMoreData` when `src` ran out mid-message, `InvalidData` with `failure` set.
 * It holds at most one message: bytes of a message that spans calls are gathered into
 * one allocation of exactly its declared size, checked against `maxMessageBytes` first.
 */
export class IpcFramer {
  readonly format = 'arrow'
  /** Bytes of `src` used by the last call. */
  consumed = 0
  failure: Failure | null = null
  /** After `Done`: the message read, or null at end of stream. */
  message: MessageDesc | null = null
  /**
   * After `Done` with a message: its body. It may be a view into the `src` of the last
   * call (`bodyAliasesInput`), valid only as long as the caller keeps that memory
   * unchanged; otherwise it is a new allocation that the caller owns.
   */
  body: Uint8Array | null = null
  bodyAliasesInput = false
  /**
   * After `Done`: the body lives in memory the framer reuses for the next compressed
   * body (only ever for compressed messages, whose buffers decode into new memory).
   * Like an aliased body, it must be consumed before the next call.
   */
  bodyIsTransient = false
  /** Absolute offset of the body in the stream (for error messages). */
  bodyOffset = 0
  /** The end-of-stream marker was read. Further input is not examined. */
  ended = false
  /** The input started with the file magic `ARROW1`. */
  isFile = false

  /** Largest metadata + body size accepted for one message. */
  private readonly maxMessageBytes: number
  /** Where the next byte belongs: one of the phase constants below the class. */
  private phase: number = MAGIC
  /** Gathers the 8-byte magic or the 4/8-byte prefix across calls. */
  private readonly scratch = new Uint8Array(8)
  private scratchFill = 0
  /** Metadata size declared by the current prefix. */
  private metaLength = 0
  /** Metadata or body gathered across calls, and how much of it is filled. */
  private gather: Uint8Array | null = null
  private gatherFill = 0
  /** Absolute offset of the start of `src` of the current call. */
  private position = 0
  /** The message whose body is being read. */
  private current: MessageDesc | null = null
  /** Memory of the last gathered compressed body, reused for the next one. */
  private spare: Uint8Array | null = null

  constructor(maxMessageBytes: number) {
    this.maxMessageBytes = maxMessageBytes
  }

  /** True when no message is partly read (a clean place for the input to end). */
  get atBoundary(): boolean {
    return this.phase === ENDED || ((this.phase === PREFIX || this.phase === MAGIC) && this.scratchFill === 0)
  }

  /** Absolute offset of the next byte to read. */
  get offset(): number {
    return this.position
  }

  reset(): void {
    this.consumed = 0
    this.failure = null
    this.message = null
    this.body = null
    this.bodyAliasesInput = false
    this.ended = false
    this.isFile = false
    this.phase = MAGIC
    this.scratchFill = 0
    this.gather = null
    this.gatherFill = 0
    this.position = 0
    this.current = null
    this.spare = null
  }

  private fail(code: Failure['code'], message: string, offset: number): Status {
    this.failure = { code, message, offset }
    this.phase = FAILED
    return Status.InvalidData
  }

  transform(src: Uint8Array, final: boolean): Status {
    this.message = null
    this.body = null
    this.bodyAliasesInput = false
    this.bodyIsTransient = false
    const status = this.step(src, final)
    this.position += this.consumed
    return status
  }

  /**
   * Appends `src[pos..]` (up to `total` bytes in all) to `gather`; returns the new
   * `pos`. The buffer starts at no more than EAGER_BYTES and doubles as bytes actually
   * arrive, so a hostile size prefix costs memory only in proportion to the input
   * really sent; once full it is exactly `total` bytes long.
   */
  private collect(src: Uint8Array, pos: number, total: number): number {
    const n = Math.min(total - this.gatherFill, src.length - pos)
    let g = this.gather
    if (g === null) {
      g = this.gather = new Uint8Array(Math.min(total, Math.max(EAGER_BYTES, n)))
      this.gatherFill = 0
    }
    if (this.gatherFill + n > g.length) {
      const grown = new Uint8Array(Math.min(total, Math.max(g.length * 2, this.gatherFill + n)))
      grown.set(g.subarray(0, this.gatherFill))
      g = this.gather = grown
    }
    g.set(src.subarray(pos, pos + n), this.gatherFill)
    this.gatherFill += n
    return pos + n
  }

  private step(src: Uint8Array, final: boolean): Status {
    let pos = 0
    this.consumed = 0
    const end = src.length
    for (;;) {
      switch (this.phase) {
        case MAGIC: {
          // Magic check: a file starts with "ARROW1" and 2 padding bytes; a stream with
          // a continuation marker or a metadata size. 6 bytes decide it.
          const need = 6 - this.scratchFill
          const n = Math.min(need, end - pos)
          this.scratch.set(src.subarray(pos, pos + n), this.scratchFill)
          this.scratchFill += n
          pos += n
          if (this.scratchFill < 6) { this.consumed = pos; return Status.NeedMoreData }
          const s = this.scratch
          if (s[0] === 0x41 && s[1] === 0x52 && s[2] === 0x52 && s[3] === 0x4f && s[4] === 0x57 && s[5] === 0x31) {
            this.isFile = true
            this.phase = PADDING // skip 2 padding bytes
            this.scratchFill = 0
          } else {
            // Not a file: the 6 bytes begin the first prefix; keep 6 in scratch.
            this.phase = PREFIX
          }
          break
        }
        case PADDING: {
          // Padding after the file magic to an 8-byte boundary (File format spec).
          const n = Math.min(2 - this.scratchFill, end - pos)
          this.scratchFill += n
          pos += n
          if (this.scratchFill < 2) { this.consumed = pos; return Status.NeedMoreData }
          this.scratchFill = 0
          this.phase = PREFIX
          break
        }
        case PREFIX: {
          // Prefix: 4 bytes tell whether this is the continuation form (8 bytes).
          let need = 4
          while (true) {
            const n = Math.min(need - this.scratchFill, end - pos)
            if (n > 0) {
              this.scratch.set(src.subarray(pos, pos + n), this.scratchFill)
              this.scratchFill += n
              pos += n
            }
            if (this.scratchFill < need) { this.consumed = pos; return Status.NeedMoreData }
            const first = readInt32(this.scratch, 0)
            if (first === -1 && need === 4) { need = 8; continue }
            break
          }
          const prefixStart = this.position + pos - need
          const first = readInt32(this.scratch, 0)
          const continuation = first === -1
          const metaLength = continuation ? readInt32(this.scratch, 4) : first
          // Any bytes gathered beyond the prefix (from the 6-byte magic check) are
          // metadata: in the legacy form the prefix is 4 bytes.
          const extra = this.scratchFill - (continuation ? 8 : 4)
          this.scratchFill = 0
          if (metaLength === 0) {
            // End-of-stream marker (0xFFFFFFFF 0x00000000, or 0x00000000 pre-0.15).
            this.phase = ENDED
            this.ended = true
            // Bytes gathered after the marker were not consumed.
            this.consumed = Math.max(0, pos - extra)
            return Status.Done
          }
          if (metaLength < 0) return this.fail('INVALID_DATA', `message metadata size ${metaLength} is negative`, prefixStart)
          if (metaLength > this.maxMessageBytes) {
            return this.fail('LIMIT_EXCEEDED', `message metadata size ${metaLength} exceeds maxMessageBytes ${this.maxMessageBytes}`, prefixStart)
          }
          this.metaLength = metaLength
          this.phase = METADATA
          this.gather = null
          this.gatherFill = 0
          if (extra > 0) {
            // Only reachable with the legacy prefix: 2 metadata bytes came with the magic check.
            this.collect(this.scratch.subarray(4, 4 + extra), 0, metaLength)
          }
          break
        }
        case METADATA: {
          // Metadata: parse straight from `src` when it is all there, else gather.
          const metaStart = this.position + pos - this.gatherFill
          let meta: Uint8Array
          if (this.gather === null && end - pos >= this.metaLength) {
            meta = src.subarray(pos, pos + this.metaLength)
            pos += this.metaLength
          } else {
            if (final && this.gatherFill + end - pos < this.metaLength) {
              return this.fail('TRUNCATED', `the input ends ${this.metaLength - this.gatherFill - (end - pos)} bytes short of the ${this.metaLength}-byte message metadata`, metaStart)
            }
            pos = this.collect(src, pos, this.metaLength)
            if (this.gatherFill < this.metaLength) { this.consumed = pos; return Status.NeedMoreData }
            meta = this.gather!
            this.gather = null
            this.gatherFill = 0
          }
          let message: MessageDesc
          try {
            message = readMessage(meta, metaStart)
          } catch (e) {
            if (e instanceof CodecError) return this.fail(e.code, stripPrefix(e), e.offset)
            throw e
          }
          if (message.bodyLength > this.maxMessageBytes - this.metaLength) {
            return this.fail('LIMIT_EXCEEDED', `message of ${this.metaLength} metadata bytes and a ${message.bodyLength}-byte body exceeds maxMessageBytes ${this.maxMessageBytes}`, metaStart)
          }
          this.current = message
          this.bodyOffset = this.position + pos
          this.gather = null
          this.gatherFill = 0
          this.phase = BODY
          break
        }
        case BODY: {
          const message = this.current!
          const length = message.bodyLength
          if (this.gather === null && end - pos >= length) {
            this.body = src.subarray(pos, pos + length)
            this.bodyAliasesInput = true
            pos += length
          } else {
            if (final && this.gatherFill + end - pos < length) {
              return this.fail('TRUNCATED', `the input ends ${length - this.gatherFill - (end - pos)} bytes short of the ${length}-byte message body`, this.bodyOffset)
            }
            if (this.gather === null && this.spare !== null && this.spare.length >= length && message.batch !== null && message.batch.compression >= 0) {
              // A compressed body is decoded into new memory before the next call, so
              // its bytes can be gathered into the memory the previous one used.
              this.gather = this.spare.subarray(0, length)
              this.gatherFill = 0
            }
            pos = this.collect(src, pos, length)
            if (this.gatherFill < length) {
              this.consumed = pos
              return Status.NeedMoreData
            }
            this.body = this.gather
            if (message.batch !== null && message.batch.compression >= 0) {
              this.bodyIsTransient = true
              // Keep it for the next compressed body, up to EAGER_BYTES.
              if (length <= EAGER_BYTES && (this.spare === null || this.spare.length < length)) this.spare = this.gather
            }
            this.gather = null
            this.gatherFill = 0
          }
          this.message = message
          this.current = null
          this.phase = PREFIX
          this.consumed = pos
          return Status.Done
        }
        case ENDED:
          this.consumed = pos
          return Status.Done
        default:
          this.consumed = pos
          return Status.InvalidData
      }
    }
  }
}

/**
 * Messages spanning chunks are gathered into memory allocated up front up to this size
 * (16 MiB), and grown by doubling beyond it as their bytes arrive.
 */
const EAGER_BYTES = 16 * 1024 * 1024

// Phases of the framer.
/** The first 6 bytes: "ARROW1" (a file) or the first prefix (a stream). */
const MAGIC = 0
/** The continuation marker and/or the int32 metadata size. */
const PREFIX = 1
/** The Message flatbuffer (with its padding). */
const METADATA = 2
/** The message body of `bodyLength` bytes. */
const BODY = 3
/** After the end-of-stream marker. */
const ENDED = 4
/** After InvalidData: final until reset(). */
const FAILED = 5
/** The 2 padding bytes after a file's "ARROW1". */
const PADDING = 6

function readInt32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24))
}

/** CodecError messages start with "arrow: " and end with the offset; keep the middle. */
function stripPrefix(e: CodecError): string {
  let m = e.message
  if (m.startsWith(`${e.format}: `)) m = m.slice(e.format.length + 2)
  const tail = ` (at byte ${e.offset})`
  if (e.offset >= 0 && m.endsWith(tail)) m = m.slice(0, -tail.length)
  return m
}
