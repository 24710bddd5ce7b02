/**
 * Independent frames of a fixed number of input bytes, from any one-frame encoder: the
 * input is cut every `frameSize` bytes and each piece goes through the inner encoder as
 * a whole frame of its own (the inner encoder is `reset()` between frames), so that each
 * frame decodes without the others. The zstd seekable format writes its frames so
 * (zstd-seekable-encode.ts), and a parallel encoder can hand the same pieces to workers
 * and get the same bytes.
 *
 * Each piece is given to the inner encoder in one `final` call (its first call for the
 * frame holds the frame's whole input), so encoders that write the content size when
 * the first call is final (the zstd wasm encoder: `ZSTD_CCtx_setPledgedSrcSize`) put it
 * in every frame header. A piece is collected in a buffer of at most `frameSize` bytes
 * first: the caller's input is copied once, and the inner encoder never sees it.
 *
 * `flush()` ends the current frame early (a shorter frame): a decoder can then decode
 * everything written so far. At the end of the input, a `trailer` (built from the log
 * of frames: compressed and decompressed sizes, and the last 4 bytes of each frame for
 * formats whose frames end in a checksum) is written after the last frame.
 */
import type { Encoder } from '../codec.js'
import type { ErrorCode, Failure } from '../errors.js'
import { Status } from '../status.js'
import { readU32LE } from '../endian.js'
import { FrameLog } from './zstd-seek-table.js'

export interface FrameSplitOptions {
  /** Input bytes per frame (the last frame may be shorter). */
  frameSize: number
  /** Most frames; one more fails with LIMIT_EXCEEDED (a format's own limit). */
  maxFrames: number
  /** Largest compressed frame the log can hold (a format's field width). */
  maxCompressedFrame: number
  /** Bytes written after the last frame, built from the log of frames; none when absent. */
  trailer?: (frames: FrameLog) => Uint8Array
}

const EMPTY = new Uint8Array(0)

export class FrameSplitEncoder implements Encoder {
  readonly format: string
  consumed = 0
  written = 0
  failure: Failure | null = null

  /** Every frame written since the last reset, with its last 4 bytes as `checksum`. */
  readonly frames = new FrameLog()

  private readonly inner: Encoder
  private readonly options: FrameSplitOptions
  /** The current frame's input, `filled` bytes of it collected. */
  private buffer: Uint8Array = EMPTY
  private filled = 0
  /** Whether the collected input is being encoded (`pos` of it given to the inner encoder). */
  private encoding = false
  private pos = 0
  /** Bytes the inner encoder wrote for the current frame, and its last 4 of them. */
  private frameBytes = 0
  private readonly tail = new Uint8Array(4)
  /** Input consumed since the last reset, for failure offsets. */
  private inputTotal = 0
  /** The trailer once built, and how much of it was written. */
  private trailer: Uint8Array | null = null
  private trailerPos = 0
  private finished = false
  private failed = false

  constructor(format: string, inner: Encoder, options: FrameSplitOptions) {
    this.format = format
    this.inner = inner
    this.options = options
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    return this.run(src, dst, final, false)
  }

  flush(dst: Uint8Array): Status {
    return this.run(EMPTY, dst, false, true)
  }

  private run(src: Uint8Array, dst: Uint8Array, final: boolean, flush: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.failed) return Status.InvalidData
    if (this.finished) {
      if (src.length > 0) return this.fail('INVALID_OPTION', `${src.length} bytes of input after the end of the stream; reset() first`, this.inputTotal)
      return Status.Done
    }
    const frameSize = this.options.frameSize
    for (;;) {
      if (this.encoding) {
        const status = this.encodeFrame(dst)
        if (status !== Status.Done) return status
        continue
      }
      // Collect input into the current frame.
      const n = Math.min(frameSize - this.filled, src.length - this.consumed)
      if (n > 0) {
        this.reserve(this.filled + n)
        this.buffer.set(src.subarray(this.consumed, this.consumed + n), this.filled)
        this.filled += n
        this.consumed += n
        this.inputTotal += n
      }
      const inputUsed = this.consumed === src.length
      if (this.filled === frameSize || (this.filled > 0 && inputUsed && (final || flush))) {
        this.encoding = true
        this.pos = 0
        this.frameBytes = 0
        continue
      }
      if (!inputUsed) continue
      if (!final) return Status.Done
      return this.writeTrailer(dst)
    }
  }

  /** Gives the collected frame to the inner encoder; `Done` once the whole frame was written. */
  private encodeFrame(dst: Uint8Array): Status {
    const inner = this.inner
    const at = this.written
    const status = inner.transform(this.buffer.subarray(this.pos, this.filled), dst.subarray(at), true)
    this.pos += inner.consumed
    this.keepTail(dst, at, inner.written)
    this.written += inner.written
    this.frameBytes += inner.written
    if (status === Status.InvalidData) {
      const f = inner.failure
      return this.fail(f?.code ?? 'INVALID_DATA', f?.message ?? 'the frame encoder failed', this.inputTotal - this.filled + (f?.offset ?? 0))
    }
    if (status !== Status.Done) return status
    if (this.frameBytes > this.options.maxCompressedFrame) {
      return this.fail('LIMIT_EXCEEDED', `frame ${this.frames.count} compressed to ${this.frameBytes} bytes, more than ${this.options.maxCompressedFrame} (the width of the seek table's field); choose a smaller frameSize`, this.inputTotal)
    }
    if (this.frames.count >= this.options.maxFrames) {
      return this.fail('LIMIT_EXCEEDED', `more than ${this.options.maxFrames} frames; choose a larger frameSize`, this.inputTotal)
    }
    this.frames.add(this.frameBytes, this.filled, readU32LE(this.tail, 0))
    inner.reset()
    this.encoding = false
    this.filled = 0
    return Status.Done
  }

  /** Keeps the last 4 bytes the inner encoder wrote for the current frame. */
  private keepTail(dst: Uint8Array, at: number, count: number): void {
    if (count >= 4) {
      this.tail.set(dst.subarray(at + count - 4, at + count))
    } else if (count > 0) {
      this.tail.copyWithin(0, count)
      this.tail.set(dst.subarray(at, at + count), 4 - count)
    }
  }

  private writeTrailer(dst: Uint8Array): Status {
    if (this.trailer === null) this.trailer = this.options.trailer ? this.options.trailer(this.frames) : EMPTY
    const n = Math.min(this.trailer.length - this.trailerPos, dst.length - this.written)
    dst.set(this.trailer.subarray(this.trailerPos, this.trailerPos + n), this.written)
    this.trailerPos += n
    this.written += n
    if (this.trailerPos < this.trailer.length) return Status.DestinationTooSmall
    this.finished = true
    this.buffer = EMPTY
    return Status.Done
  }

  /** Grows the frame buffer to hold `size` bytes (doubling, at most `frameSize`). */
  private reserve(size: number): void {
    if (size <= this.buffer.length) return
    const grown = new Uint8Array(Math.min(this.options.frameSize, Math.max(size, 64 * 1024, this.buffer.length * 2)))
    grown.set(this.buffer.subarray(0, this.filled))
    this.buffer = grown
  }

  private fail(code: ErrorCode, message: string, offset: number): Status {
    this.failure = { code, message, offset }
    this.failed = true
    return Status.InvalidData
  }

  reset(): void {
    this.inner.reset()
    this.frames.clear()
    this.consumed = 0
    this.written = 0
    this.failure = null
    this.filled = 0
    this.encoding = false
    this.pos = 0
    this.frameBytes = 0
    this.inputTotal = 0
    this.trailer = null
    this.trailerPos = 0
    this.finished = false
    this.failed = false
  }

  dispose(): void {
    this.inner.dispose()
    this.buffer = EMPTY
  }
}
