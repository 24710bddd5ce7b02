/**
 * The shell the LZ4 and Snappy span codecs share (frames and raw blocks, decoders and
 * encoders: lz4-frame-decode.ts, lz4-frame-encode.ts, lz4-block-codec.ts,
 * snappy-frame-decode.ts, snappy-frame-encode.ts, snappy-block-codec.ts and
 * whole-block-encoder.ts), so that each of them holds only its format:
 *
 * - the span contract's counters, reset on every call;
 * - the latch: after `Done` (a decoder's end of frame, an encoder's end of stream) or
 *   `InvalidData`, `transform()` returns the same until `reset()`;
 * - failures, with their offset in the input consumed since `reset()` (`inputBase` is
 *   where the current call's `src` starts);
 * - the output stage: a unit of output (a decoded block, a frame header, a compressed
 *   chunk) goes straight into `dst` when it has room for the unit's worst case, else
 *   into one stage buffer that is drained into `dst` over the following calls;
 * - decoders (`FrameDecoder`): the declared content size and `maxOutputBytes`.
 *
 * What each codec still declares alike is its own: its stage numbers, its fields and
 * their reset, a constructor taking its kernel (lz4-kernel.ts, snappy-kernel.ts).
 */
import type { Decoder, Format, Role } from '../codec.js'
import type { ErrorCode, Failure } from '../errors.js'
import { checkMaxOutput } from '../codec-options.js'
import { Status } from '../status.js'

/** Output waiting for room in the caller's `dst`: `buffer[pos, end)`. */
export class OutputStage {
  private buffer: Uint8Array | null = null
  private pos = 0
  private end = 0

  /** Bytes staged and not handed out yet. */
  get waiting(): number {
    return this.end - this.pos
  }

  /**
   * The stage's buffer, emptied, with room for at least `size` bytes from 0 (allocated
   * on first need, grown when too small, then kept). Fill it, then `hold()` what to hand out.
   */
  take(size: number): Uint8Array {
    this.pos = this.end = 0
    let b = this.buffer
    if (b === null || b.length < size) this.buffer = b = new Uint8Array(size)
    return b
  }

  /** The buffer from `take()` holds output to hand out in `[from, end)`. */
  hold(from: number, end: number): void {
    this.pos = from
    this.end = end
  }

  /** Copies staged bytes into `dst[at]`, as many as fit; returns the new end in `dst`. */
  drain(dst: Uint8Array, at: number): number {
    const n = Math.min(this.end - this.pos, dst.length - at)
    if (n <= 0) return at
    dst.set(this.buffer!.subarray(this.pos, this.pos + n), at)
    this.pos += n
    return at + n
  }

  /** Empties the stage, keeping its buffer. */
  clear(): void {
    this.pos = this.end = 0
  }

  /** Empties the stage and lets its buffer go. */
  free(): void {
    this.clear()
    this.buffer = null
  }
}

const RUNNING = 0
const DONE = 1
const FAILED = 2

/** The base of the LZ4 and Snappy codecs (see above); subclasses write `step()`. */
export abstract class FrameCodec {
  abstract readonly format: Format
  consumed = 0
  written = 0
  failure: Failure | null = null

  /** Input consumed since `reset()` before the current call: `src[i]` is input byte `inputBase + i`. */
  protected inputBase = 0
  /** Output that did not fit in `dst`, handed out by the calls after. */
  protected readonly staged = new OutputStage()
  /** RUNNING, DONE or FAILED. */
  private latch = RUNNING
  /** Encoders return `Done` without `final` for "all input taken"; only with `final` is it the end. */
  private readonly encodes: boolean

  protected constructor(role: Role) {
    this.encodes = role === 'encode'
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.latch !== RUNNING) return this.latch === DONE ? Status.Done : Status.InvalidData
    const status = this.step(src, dst, final)
    this.inputBase += this.consumed
    if (status === Status.Done && (final || !this.encodes)) this.latch = DONE
    return status
  }

  /** `transform()` of a running codec: sets `consumed` and `written`, and returns the status. */
  protected abstract step(src: Uint8Array, dst: Uint8Array, final: boolean): Status

  /** Whether the codec returned `Done` for good (a decoder's frame, an encoder's stream, ended). */
  protected get finished(): boolean {
    return this.latch === DONE
  }

  reset(): void {
    this.consumed = 0
    this.written = 0
    this.failure = null
    this.inputBase = 0
    this.latch = RUNNING
    this.staged.clear()
  }

  dispose(): void {
    this.staged.free()
  }

  /** Records the failure at input byte `offset` (counted from `reset()`); `InvalidData` from now on. */
  protected fail(code: ErrorCode, message: string, offset: number): Status {
    this.failure = { code, message, offset }
    this.latch = FAILED
    return Status.InvalidData
  }

  /**
   * Where a unit of output of at most `bound` bytes is written: `dst` (from `op`) when it
   * has room for all of it, else the stage's buffer (from 0; at least `stageSize` bytes).
   * The stage is empty here: codecs make a unit only once what was staged is handed out.
   */
  protected unitOut(dst: Uint8Array, op: number, bound: number, stageSize = bound): Uint8Array {
    return dst.length - op >= bound ? dst : this.staged.take(stageSize)
  }

  /** The unit written to `out` (from `unitOut()`) ends at `end`: returns the new end in `dst`. */
  protected unitEnd(dst: Uint8Array, op: number, out: Uint8Array, end: number): number {
    if (out === dst) return end
    this.staged.hold(0, end)
    return this.staged.drain(dst, op)
  }
}

/** The decoders' part of the shell: the declared content size and the `maxOutputBytes` limit. */
export abstract class FrameDecoder extends FrameCodec implements Decoder {
  /** The exact size of the current frame's content once its header said it, else -1. */
  contentSize = -1
  /** The `maxOutputBytes` option. */
  protected readonly maxOutput: number

  protected constructor(format: Format, options: Record<string, unknown>) {
    super('decode')
    this.maxOutput = checkMaxOutput(format, options.maxOutputBytes)
  }

  override reset(): void {
    super.reset()
    this.contentSize = -1
  }
}

/**
 * A buffer for gathering a unit of input split across calls (a block, a chunk): `buffer`
 * when it holds `need` bytes, else a new one that keeps its first `kept` bytes, doubling
 * up to `most` (the format's largest unit) so that a run of growing units is not copied
 * again for each.
 */
export function gatherBuffer(buffer: Uint8Array | null, kept: number, need: number, most: number): Uint8Array {
  if (buffer !== null && buffer.length >= need) return buffer
  const grown = new Uint8Array(Math.max(need, Math.min(most, 2 * (buffer?.length ?? 0))))
  if (buffer !== null && kept > 0) grown.set(buffer.subarray(0, kept))
  return grown
}
