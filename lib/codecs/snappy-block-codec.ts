/**
 * `'snappy-raw'`: one Snappy block (google/snappy `format_description.txt`, the form
 * Parquet, Kafka and many protocols store) as span codecs (lib/codec.ts). The block's
 * varint preamble declares the exact decoded length: the decoder checks it against
 * `maxOutputBytes` (and, when the whole input is at hand, against what the input can
 * decode to) before allocating anything, and the block ends where that length is reached.
 */
import { Status } from '../status.js'
import {
  decodeElements,
  maxCompressedLength,
  mostSnappyDecoded,
  PRE_BAD,
  PRE_MORE,
  R_GROW,
  R_ROOM,
  readPreamble,
  snappyErrorMessage,
  type ElementState,
  type Preamble,
} from './snappy-block.js'
import { FrameDecoder } from './frame-codec.js'
import { ERR_MEMORY, type SnappyKernel } from './snappy-kernel.js'
import { WholeBlockEncoder } from './whole-block-encoder.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

const FORMAT = 'snappy-raw'

// Decoder stages (the end and failure are the shell's latch, frame-codec.ts).
const S_PREAMBLE = 0
const S_ELEMENTS = 1

/** The first buffer a streamed block decodes into; it doubles up to the declared length. */
const FIRST_BUFFER = 65536

/**
 * Raw Snappy block decoder. A whole block passed with `final` into a destination with
 * room for the declared length is decoded straight into it by the kernel (one call);
 * otherwise elements are decoded as they arrive into a buffer that grows with the
 * output actually produced (never to a declared size the input has not earned), at
 * most as far ahead as the destination has room, and drained from there. `Done` when
 * the declared length is reached; bytes after the block are left unconsumed.
 */
export class SnappyRawDecoder extends FrameDecoder {
  readonly format = FORMAT
  /** S_PREAMBLE until the preamble is read (then `contentSize` is the declared decoded length), then S_ELEMENTS. */
  private stage = S_PREAMBLE
  private readonly preamble: Preamble = { length: 0, size: 0 }
  private readonly el: ElementState = { ip: 0, op: 0, literalLeft: 0, need: 0 }
  /** Streamed output so far (`out[0, el.op)`), the history copies reach into. */
  private out: Uint8Array | null = null
  /** Bytes of `out` handed out already. */
  private drainPos = 0

  constructor(
    options: Record<string, unknown>,
    /** Decodes a whole block found in one call (TypeScript or the wasm kernel). */
    private readonly kernel: SnappyKernel,
  ) {
    super(FORMAT, options)
  }

  override reset(): void {
    super.reset()
    this.stage = S_PREAMBLE
    this.el.ip = this.el.op = this.el.literalLeft = 0
    this.drainPos = 0
  }

  override dispose(): void {
    super.dispose()
    this.out = null
  }

  protected step(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    let ip = 0
    if (this.stage === S_PREAMBLE) {
      const p = this.preamble
      const r = readPreamble(src, 0, src.length, p)
      if (r === PRE_MORE) return Status.NeedMoreData
      if (r === PRE_BAD) return this.fail('INVALID_DATA', 'the preamble is not a varint below 2^32 (format_description.txt section 1)', 0)
      const length = p.length
      if (length > this.maxOutput) return this.fail('LIMIT_EXCEEDED', `the preamble declares ${length} bytes, more than maxOutputBytes ${this.maxOutput}`, 0)
      const most = mostSnappyDecoded(src.length - p.size)
      if (final && length > most) return this.fail('INVALID_DATA', `the preamble declares ${length} bytes, more than ${src.length - p.size} bytes of elements can decode to (at most ${most})`, 0)
      ip = p.size
      this.contentSize = length
      this.stage = S_ELEMENTS
      const el = this.el
      el.ip = ip
      el.op = 0
      el.literalLeft = 0
      if (final && dst.length >= length) {
        // The whole block and room for all of it: decode straight into dst, by the
        // kernel when the block is exactly the input (no trailing bytes to leave).
        if (this.kernel.decodeInto(src, ip, src.length, dst, 0, length) === length) {
          this.consumed = src.length
          this.written = length
          return Status.Done
        }
        // Otherwise (trailing bytes, corrupt or truncated input) the element decoder
        // finds where the block ends or what is wrong.
        const r2 = decodeElements(el, src, src.length, dst, 0, length, length)
        if (r2 < 0) {
          this.consumed = 0
          return this.fail('INVALID_DATA', snappyErrorMessage(r2), this.inputBase + el.ip)
        }
        if (el.op === length) {
          this.consumed = el.ip
          this.written = length
          return Status.Done
        }
        // Truncated: keep what was decoded as the history, as a streamed block would.
        this.out = dst.slice(0, Math.max(el.op, Math.min(length, FIRST_BUFFER)))
        this.drainPos = 0
        return this.drainAndReturn(dst, el.ip, r2)
      }
      this.drainPos = 0
      if (this.out === null || this.out.length < Math.min(length, FIRST_BUFFER)) this.out = new Uint8Array(Math.min(length, FIRST_BUFFER))
    }
    return this.stream(src, dst, ip)
  }

  /** Decodes elements from `src[ip]` into `out`, as far ahead as `dst` has room, and drains. */
  private stream(src: Uint8Array, dst: Uint8Array, ip: number): Status {
    const length = this.contentSize
    const el = this.el
    el.ip = ip
    // Hand out what is pending first.
    let w = this.drain(dst, 0)
    if (w === dst.length && this.drainPos < el.op) {
      this.written = w
      this.consumed = ip
      return Status.DestinationTooSmall
    }
    let r: number
    for (;;) {
      const soft = Math.min(length, this.drainPos + (dst.length - w))
      r = decodeElements(el, src, src.length, this.out!, 0, soft, length)
      if (r !== R_GROW) break
      const grown = new Uint8Array(Math.min(length, Math.max(el.need, this.out!.length * 2)))
      grown.set(this.out!.subarray(0, el.op))
      this.out = grown
    }
    if (r < 0) {
      this.written = w
      this.consumed = 0
      return this.fail('INVALID_DATA', snappyErrorMessage(r), this.inputBase + el.ip)
    }
    w = this.drain(dst, w)
    this.written = w
    return this.drainAndReturn(dst, el.ip, r, w)
  }

  /** Sets `consumed` and picks the status once elements up to `ip` are decoded. */
  private drainAndReturn(dst: Uint8Array, ip: number, r: number, w = this.drain(dst, 0)): Status {
    this.written = w
    this.consumed = ip
    const el = this.el
    if (this.drainPos < el.op) return Status.DestinationTooSmall
    if (el.op === this.contentSize) return Status.Done
    if (r === R_ROOM) return Status.DestinationTooSmall
    return Status.NeedMoreData
  }

  /** Copies pending output into `dst[at]`; returns the new end in `dst`. */
  private drain(dst: Uint8Array, at: number): number {
    const n = Math.min(this.el.op - this.drainPos, dst.length - at)
    if (n <= 0) return at
    dst.set(this.out!.subarray(this.drainPos, this.drainPos + n), at)
    this.drainPos += n
    return at + n
  }
}

/**
 * Raw Snappy block encoder: the whole input as one block (lib/codecs/whole-block-encoder.ts;
 * the preamble states the input's length first, and allows up to 2^32 - 1 bytes where
 * one ArrayBuffer holds 2^31).
 */
export class SnappyRawEncoder extends WholeBlockEncoder {
  readonly format = FORMAT

  constructor(
    _options: Record<string, unknown>,
    /** Compresses the block (TypeScript or the wasm kernel). */
    private readonly kernel: SnappyKernel,
  ) {
    super()
  }

  protected bound(n: number): number {
    return maxCompressedLength(n)
  }

  protected compress(data: Uint8Array, n: number, out: Uint8Array): number {
    const end = this.kernel.encodeInto(data, 0, n, out, 0)
    if (end !== ERR_MEMORY) return end
    this.fail('LIMIT_EXCEEDED', wasmMemoryFull(`a ${n}-byte block`, "engine: 'js'"), 0)
    return -1
  }
}
