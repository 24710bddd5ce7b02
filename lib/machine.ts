/**
 * The pooled-chunk state machine: the one driver loop between input chunks, a span codec
 * and output chunks. Every stream (WHATWG and Node) and the one-shot helpers run their
 * codecs through it, so truncation, trailing data, concatenated frames, limits and error
 * offsets are decided here once. Input that is already whole with an output size that is
 * declared (Arrow body buffers, Parquet pages, apache-arrow's codec calls) is decoded by
 * `decode-buffer.ts` instead, straight into its final memory, by the same rules.
 *
 * It is synchronous and pull-shaped: `push()` offers an input chunk, `end()` marks the
 * end of input, and each `next()` runs the codec until one output chunk is ready, the
 * input is exhausted, or the stream is finished. Output per `next()` is bounded by the
 * block size, so a caller that stops calling `next()` when its consumer is full (the
 * WHATWG `desiredSize`) gets backpressure even when a tiny input inflates to gigabytes.
 *
 * Memory: output is written straight into blocks of up to `blockSize` bytes. An output chunk
 * is a `subarray` of a block; the bytes handed out are never written again, and the rest
 * of the block keeps serving later output, so small outputs do not each cost an
 * allocation and large ones flow as few large chunks.
 *
 * Input is read in place, whatever its size. Two different things are copied into the
 * machine's scratch, with different rules:
 * - **the codec's own leftover**: bytes a codec leaves unconsumed with `NeedMoreData`,
 *   to see again with more input behind them (a partial header; a raw LZ4 block, which
 *   is decoded whole). Capped at `MAX_TAIL_BYTES`: a codec holding more is broken or fed
 *   hostile input. The next chunk joins such a tail a piece at a time (twice the tail,
 *   at least 64 KiB), and is read in place again once the codec has consumed the tail.
 * - **the caller's unconsumed input at a hand-out point** (`borrowInput: false`, the
 *   WHATWG streams): handing out a chunk may run consumer code, which may detach or
 *   change a chunk it wrote (the Compression Streams tests detach one from a patched
 *   `then`), so what is still unconsumed of it is copied then, once, without a cap: it
 *   is the caller's data, not the codec's. With `borrowInput: true` (one-shot calls,
 *   which own their input for the call; Node streams, whose writers leave a chunk alone
 *   until its write's callback, as node:zlib's streams assume) it is read in place.
 */
import type { Decoder, Encoder, SpanCodec } from './codec.js'
import { CodecError } from './errors.js'
import type { ProgressMeter } from './progress.js'
import { Status } from './status.js'

/** What a machine is built with: its codec, its role and its limits. */
export interface MachineOptions {
  /** The format name, for errors. */
  format: string
  /** Decoders are judged for truncation, trailing data and `maxOutputBytes`. */
  mode: 'decode' | 'encode'
  /** Size of the output blocks, in bytes (and so of the largest output chunk). */
  blockSize: number
  /** Most bytes a decoder may produce over the whole stream. */
  maxOutputBytes: number
  /** After a frame/member ends, bytes that follow start a new one (else they are junk). */
  concatenated: boolean
  /**
   * Size of the first output block; later blocks double with the output up to
   * `blockSize`. Without it every block is `blockSize`.
   */
  firstBlockSize?: number
  /**
   * Encoders: `'write'` ends the output of every pushed chunk with a sync point (the
   * codec's `flush()`), so that a decoder can produce all input so far without the rest
   * of the stream. Default `'none'`: sync points only where `requestFlush()` asks.
   */
  flush?: 'none' | 'write'
  /** Reports `totalIn`/`totalOut` once per handed-out block (throttled) and once at the end. */
  progress?: ProgressMeter
  /**
   * Whether pushed chunks stay untouched until `needsInput` even across hand-out points:
   * true for one-shot calls and Node streams, which then read their input in place;
   * false (default) for the WHATWG streams, which copy what is unconsumed when they hand
   * output out (see the module comment).
   */
  borrowInput?: boolean
}

/**
 * 256 KiB: engines decode straight into the destination only when it holds a whole
 * block of their format (zstd blocks are up to 128 KiB, RFC 8878 section 3.1.1.2.4);
 * measured on a 16 MB corpus, zstd stream decoding ran at 544 MB/s with 64 KiB blocks,
 * 769 with 128 KiB and 800 with 256 KiB (one-shot: 858).
 */
export const DEFAULT_BLOCK_SIZE = 256 * 1024

/** The first block of a stream when the caller did not choose a chunk size. */
export const FIRST_BLOCK_SIZE = 16 * 1024

/**
 * 64 MiB: the most a codec may leave unconsumed and ask to see again (its own leftover,
 * not the caller's input). Codecs buffer partial units internally and leave a few
 * header bytes at most; only a raw LZ4 block (`'lz4-block'`, whose decoder needs the
 * whole block) leaves more, and one larger than this is decoded whole by `decode()`.
 * A codec that leaves more is broken or fed hostile data. Not an option: nothing the
 * caller knows makes a larger leftover right.
 */
export const MAX_TAIL_BYTES = 64 * 1024 * 1024

/** The smallest piece of a chunk joined to a codec's leftover (see `stitch`). */
const STITCH_MIN = 64 * 1024

/** Scratch larger than this is let go once consumed (it held a copy of a large chunk). */
const SCRATCH_KEEP = 1024 * 1024

const EMPTY = new Uint8Array(0)

/**
 * The synchronous driver between input chunks, a span codec and output blocks: keeps
 * unconsumed tails, decides truncation, trailing data and concatenated frames, and
 * enforces `maxOutputBytes`. Each step produces at most one output block. The streams,
 * the Node duplex and the one-shot calls all run on it.
 */
export class Machine {
  /** The span codec it drives. */
  readonly codec: SpanCodec
  private readonly options: MachineOptions

  /** Current input: `input[inputPos..]` is not consumed yet. */
  private input: Uint8Array = EMPTY
  private inputPos = 0
  /** Scratch that holds an unconsumed tail (plus the next chunk appended), reused. */
  private scratch: Uint8Array = EMPTY
  /** Whether `input` currently is a view of `scratch`. */
  private inputIsScratch = false
  /**
   * A pushed chunk whose first bytes are being joined to a codec's leftover in scratch,
   * a piece at a time: `scratch[stitchAt + i]` is `joining[i]` for the bytes joined so
   * far (`input.length - stitchAt` of them). Once the codec has consumed past
   * `stitchAt`, the rest is read from `joining` in place.
   */
  private joining: Uint8Array | null = null
  private stitchAt = 0
  /** Whether `input` (when not scratch) and `joining` are lent: never copied (see `push`). */
  private inputLent = false
  private joiningLent = false
  /** No more input will come. */
  private ended = false
  /** The codec asked for more input than it has: wait for `push()` or `end()`. */
  private starved = false
  /** Where zero bytes after the last member began (gzip padding), or -1. */
  private paddingFrom = -1
  /** The codec's last call ended with output still pending (DestinationTooSmall). */
  private owesOutput = false
  /** An error found while output was still to be handed out; thrown on the next call. */
  private failedWith: Error | null = null
  /** The whole stream has been produced. */
  finished = false
  /** A sync point is due once the input offered so far is consumed (encoders). */
  private flushWanted = false
  /** The codec's `flush()` returned DestinationTooSmall: call it again with more room. */
  private flushing = false
  /** Sync points written so far. */
  flushes = 0

  /** Output block; `block[emitPos..writePos]` is written but not handed out yet. */
  private block: Uint8Array = EMPTY
  private emitPos = 0
  private writePos = 0

  /** Input bytes consumed by the codec over the whole stream. */
  totalIn = 0
  /** Output bytes produced over the whole stream. */
  totalOut = 0
  /** `totalIn` at the start of the current frame/member (for error offsets). */
  private memberStart = 0
  /** The current frame/member ended (a decoder returned `Done`). */
  private memberEnded = false
  /** Frames/members completed. */
  members = 0

  constructor(codec: SpanCodec, options: MachineOptions) {
    this.codec = codec
    this.options = options
  }

  /** Whether the machine has consumed its input and waits for more (or for `end()`). */
  get needsInput(): boolean {
    return !this.ended && !this.failedWith && !this.flushWanted && this.joining === null && (this.starved || (this.inputPos >= this.input.length && !this.owesOutput))
  }

  /**
   * Encoders: asks for a sync point once the input offered so far is consumed. The
   * output up to it comes from the following `next()` calls; `flushWanted` stays true
   * until the codec has written it. Ignored after `end()` (the end flushes everything).
   */
  requestFlush(): void {
    if (this.options.mode !== 'encode') throw new CodecError('INVALID_OPTION', this.options.format, 'flush is for encoders')
    if (!this.ended) this.flushWanted = true
  }

  /** Whether a requested sync point has not been written yet. */
  get flushPending(): boolean {
    return this.flushWanted
  }

  /**
   * Offers the next input chunk. The machine reads it in place until `needsInput` is
   * true again; the caller must not change it before then. `lent`: the chunk stays
   * untouched until consumed even while output is handed out (a copy the caller made
   * for the machine, or any chunk with `borrowInput`), so it is never copied again.
   */
  push(chunk: Uint8Array, lent = false): void {
    if (this.ended) throw new CodecError('INVALID_OPTION', this.options.format, 'push() after end()')
    if (chunk.length === 0) return
    this.starved = false
    if (this.options.flush === 'write') this.flushWanted = true
    lent ||= this.options.borrowInput === true
    if (this.inputPos >= this.input.length) {
      this.releaseInput()
      this.input = chunk
      this.inputPos = 0
      this.inputIsScratch = false
      this.inputLent = lent
      return
    }
    // The codec left a tail (in scratch since it asked for more): the chunk joins it a
    // piece at a time, and is read in place once the tail is consumed.
    if (!this.inputIsScratch) this.compact(0)
    this.joining = chunk
    this.joiningLent = lent
    this.stitchAt = this.input.length
    this.stitch()
  }

  /** Marks the end of input. */
  end(): void {
    this.ended = true
    this.starved = false
    // The end of the stream makes everything decodable; a sync flush already under way
    // is completed first (its output is part of the stream).
    if (!this.flushing) this.flushWanted = false
  }

  /**
   * Runs the codec until an output chunk is ready (returned), or until it needs more
   * input or has finished (returns `null`; see `needsInput` and `finished`). Throws a
   * `CodecError` on invalid data, truncation, trailing data and exceeded limits.
   */
  next(): Uint8Array | null {
    const failed = this.failedWith
    if (failed) throw failed
    try {
      return this.step()
    } catch (error) {
      // Output decoded before the error is still handed out first (as the web platform's
      // DecompressionStream does with trailing junk); the error comes on the next call.
      this.failedWith = error as Error
      const out = this.takeOutput()
      if (out) return out
      throw error
    }
  }

  /**
   * Like `next()`, but writes the output straight into `dst` (a BYOB reader's buffer):
   * output still held from earlier calls first, then the codec's, with `dst` as its
   * destination. Returns the number of bytes written (0: needs input, has finished,
   * see `needsInput` and `finished`). The machine keeps no reference to `dst`.
   */
  nextInto(dst: Uint8Array): number {
    const failed = this.failedWith
    if (failed) throw failed
    const held = this.writePos - this.emitPos
    if (held > 0) {
      const n = Math.min(held, dst.length)
      dst.set(this.block.subarray(this.emitPos, this.emitPos + n))
      this.emitPos += n
      return n
    }
    if (dst.length === 0) return 0
    // The caller's buffer stands in for the block for one step.
    const block = this.block
    const at = this.writePos
    this.block = dst
    this.emitPos = this.writePos = 0
    let out: Uint8Array | null = null
    try {
      out = this.step()
    } catch (error) {
      this.failedWith = error as Error
      out = this.takeOutput()
      if (!out) throw error
    } finally {
      this.block = block
      this.emitPos = this.writePos = at
    }
    return out === null ? 0 : out.length
  }

  private step(): Uint8Array | null {
    const { codec, options } = this
    const decoding = options.mode === 'decode'
    for (;;) {
      if (this.finished) return this.takeOutput()
      if (this.joining !== null && this.inputPos >= this.stitchAt) this.unstitch()
      const src = this.input.subarray(this.inputPos)
      if ((!this.ended || this.flushing) && (this.starved || (src.length === 0 && !this.owesOutput))) {
        // Everything offered is consumed: write the sync point asked for, then hand out
        // what it produced before waiting.
        if (this.flushWanted) {
          if (!this.syncFlush()) return this.takeOutput()
          continue
        }
        return this.takeOutput()
      }
      if (decoding && this.memberEnded) {
        if (src.length === 0) {
          this.finished = true
          this.options.progress?.end(this.totalIn, this.totalOut)
          continue
        }
        // A member may follow where the format allows it (`concatenated`) and the bytes
        // start one (`startsMember`, gzip's magic). Else the stream has ended: zero bytes
        // to its end are padding where members may follow (tape and block-device archives
        // pad a .gz file to their block size; gzip, pigz, zlib and node:zlib accept it),
        // anything else is TRAILING_DATA at the end of the last member.
        const next = options.concatenated && this.paddingFrom < 0 ? ((codec as Decoder).startsMember?.(src) ?? 'match') : 'no'
        if (next === 'partial' && (!this.ended || this.joining !== null)) {
          // Too few bytes to tell (one byte of a two-byte magic): wait for more.
          if (this.joining !== null) this.stitch()
          else {
            this.keepTail()
            this.starved = true
          }
          continue
        }
        if (next !== 'match') {
          if (this.paddingFrom < 0) this.paddingFrom = this.totalIn
          if (!options.concatenated || src.some((b) => b !== 0)) {
            const more = !this.ended || this.joining !== null
            throw new CodecError('TRAILING_DATA', options.format, `${src.length}${more ? '+' : ''} bytes after the end of the stream`, this.paddingFrom)
          }
          this.inputPos += src.length
          this.totalIn += src.length
          continue
        }
        codec.reset()
        this.memberEnded = false
        this.memberStart = this.totalIn
      }

      // Output room: the rest of the block, capped by what the limit still allows.
      if (this.block.byteLength === 0 || this.writePos >= this.block.length) {
        // Block full (or detached by a consumer that transferred an earlier chunk's buffer).
        if (this.writePos > this.emitPos && this.block.byteLength !== 0) return this.takeOutput()
        this.newBlock()
      }
      let room = this.block.length - this.writePos
      const allowance = decoding ? options.maxOutputBytes - this.totalOut : Infinity
      const capped = allowance < room
      if (capped) room = allowance
      const dst = this.block.subarray(this.writePos, this.writePos + room)

      // The last of the input: everything pushed is in `src` (none of it still being joined).
      const final = this.ended && this.joining === null
      const status = codec.transform(src, dst, final)
      const consumed = codec.consumed
      const written = codec.written
      this.inputPos += consumed
      this.totalIn += consumed
      this.writePos += written
      this.totalOut += written

      this.owesOutput = status === Status.DestinationTooSmall
      switch (status) {
        case Status.Done:
          if (decoding) {
            this.memberEnded = true
            this.members++
          } else if (final) {
            this.finished = true
            options.progress?.end(this.totalIn, this.totalOut)
          }
          break
        case Status.DestinationTooSmall:
          if (capped && this.totalOut >= options.maxOutputBytes) {
            throw new CodecError('LIMIT_EXCEEDED', options.format, `output exceeds maxOutputBytes (${options.maxOutputBytes})`, this.totalIn)
          }
          if (written === 0) {
            // The contract says any room of 1 byte or more allows progress: a codec that
            // makes none would loop forever.
            throw new CodecError('INVALID_DATA', options.format, `codec made no progress with ${room} bytes of room`, this.totalIn)
          }
          // Hand out the full block; the next round starts a new one.
          if (this.writePos >= this.block.length) return this.takeOutput()
          break
        case Status.NeedMoreData:
          if (this.joining !== null) {
            // More of the pushed chunk is at hand: join the next piece to the bytes the
            // codec still holds (or, past them, read the chunk in place next round).
            if (this.inputPos < this.stitchAt) this.stitch()
            break
          }
          // The codec leaves a tail to see again with more input appended: keep it.
          if (this.inputPos < this.input.length) this.keepTail()
          this.starved = true
          if (final) {
            throw new CodecError('TRUNCATED', options.format, `input ended before the end of the ${decoding ? 'stream' : 'input'}`, this.totalIn)
          }
          break
        case Status.InvalidData:
          throw this.invalid()
        default:
          throw new CodecError('INVALID_DATA', options.format, `codec returned unknown status ${String(status)}`, this.totalIn)
      }
    }
  }

  /**
   * One call of the codec's `flush()` into the current block. Returns false when the
   * block is full and must be handed out first.
   */
  private syncFlush(): boolean {
    if (this.block.byteLength === 0 || this.writePos >= this.block.length) {
      if (this.writePos > this.emitPos && this.block.byteLength !== 0) return false
      this.newBlock()
    }
    const codec = this.codec as Encoder
    const status = codec.flush(this.block.subarray(this.writePos))
    const written = codec.written
    this.writePos += written
    this.totalOut += written
    if (status === Status.Done) {
      this.flushing = this.flushWanted = false
      this.flushes++
      return true
    }
    // DestinationTooSmall must make progress (as in step()); anything else is a failure.
    if (status !== Status.DestinationTooSmall || written === 0) throw this.invalid()
    this.flushing = true
    return this.writePos < this.block.length
  }

  /** The error for a codec that returned InvalidData (or broke the contract). */
  private invalid(): CodecError {
    const f = this.codec.failure
    const offset = f && f.offset >= 0 ? this.memberStart + f.offset : this.totalIn
    return new CodecError(f?.code ?? 'INVALID_DATA', this.options.format, f?.message ?? 'codec made no progress', offset)
  }

  /** Releases the codec; the machine cannot be used afterwards. */
  dispose(): void {
    this.finished = true
    this.input = EMPTY
    this.joining = null
    this.scratch = EMPTY
    this.block = EMPTY
    this.codec.dispose()
  }

  private takeOutput(): Uint8Array | null {
    if (this.writePos === this.emitPos) return null
    // Handing out a chunk may run the consumer's code before the next call (a read
    // promise resolves; the Compression Streams tests even detach the input buffer from
    // a `then` getter). Unless the caller lent its input (see `push`), input still
    // unconsumed must not depend on the caller's buffer from here on: copy the rest
    // into our scratch, once, whatever its size.
    if (this.inputPos >= this.input.length && this.joining === null) this.releaseInput()
    else if ((this.joining !== null && !this.joiningLent) || (!this.inputIsScratch && !this.inputLent)) this.ownInput()
    const out = this.block.subarray(this.emitPos, this.writePos)
    this.emitPos = this.writePos
    this.options.progress?.update(this.totalIn, this.totalOut)
    return out
  }

  /**
   * Blocks start at `firstBlockSize` (when given) and grow with the output produced, up
   * to `blockSize`: a short stream does not pin a large block, and a long one soon
   * works in large steps.
   */
  private newBlock(): void {
    const { blockSize, firstBlockSize } = this.options
    const size = firstBlockSize === undefined ? blockSize : Math.min(blockSize, Math.max(firstBlockSize, this.totalOut))
    this.block = new Uint8Array(size)
    this.emitPos = 0
    this.writePos = 0
  }

  /**
   * Keeps the codec's leftover (`input[inputPos..]`, after `NeedMoreData` or an
   * undecided member start) in scratch, to present again with more input behind it.
   */
  private keepTail(): void {
    this.checkTail(this.input.length - this.inputPos)
    this.compact(0)
  }

  /** The cap on a codec's own leftover (`MAX_TAIL_BYTES`). */
  private checkTail(held: number): void {
    if (held > MAX_TAIL_BYTES) {
      throw new CodecError(
        'LIMIT_EXCEEDED',
        this.options.format,
        `the codec holds ${held} bytes of input unconsumed, more than the ${MAX_TAIL_BYTES} a codec may keep between chunks (no option raises this: a raw block this large is decoded whole with decode())`,
        this.totalIn,
      )
    }
  }

  /**
   * Moves the unconsumed input to the front of scratch (copying it there when it is the
   * caller's), with room for `extra` more bytes behind it; returns its length.
   */
  private compact(extra: number): number {
    const rest = this.input.length - this.inputPos
    const need = rest + extra
    if (this.scratch.length < need) {
      // Small leftovers grow geometrically; a large copy (a caller's chunk) is exact.
      const grown = new Uint8Array(need > SCRATCH_KEEP ? need : Math.max(need, this.scratch.length * 2, 4096))
      grown.set(this.input.subarray(this.inputPos))
      this.scratch = grown
    } else if (!this.inputIsScratch) {
      this.scratch.set(this.input.subarray(this.inputPos))
    } else if (this.inputPos > 0) {
      this.scratch.copyWithin(0, this.inputPos, this.input.length)
    }
    if (this.joining !== null) this.stitchAt -= this.inputPos
    this.input = this.scratch.subarray(0, rest)
    this.inputPos = 0
    this.inputIsScratch = true
    return rest
  }

  /**
   * Joins the next piece of `joining` to the leftover in scratch: at least
   * `STITCH_MIN` bytes and as many as the codec holds, so that a codec that wants more
   * gets twice as much each time (a few copies in all), and a chunk of any size behind a
   * small leftover costs a small copy.
   */
  private stitch(): void {
    const joining = this.joining!
    const joined = this.input.length - this.stitchAt
    const held = this.input.length - this.inputPos
    this.checkTail(held)
    const piece = Math.min(joining.length - joined, Math.max(STITCH_MIN, held))
    const rest = this.compact(piece)
    this.scratch.set(joining.subarray(joined, joined + piece), rest)
    this.input = this.scratch.subarray(0, rest + piece)
    // All of it joined: the chunk is now the scratch's.
    if (joined + piece === joining.length) this.joining = null
  }

  /** The codec consumed past its leftover: read the rest of the chunk being joined in place. */
  private unstitch(): void {
    const at = this.inputPos - this.stitchAt
    this.input = this.joining!
    this.inputPos = at
    this.inputIsScratch = false
    this.inputLent = this.joiningLent
    this.joining = null
    if (this.scratch.length > SCRATCH_KEEP) this.scratch = EMPTY
  }

  /** Copies the unconsumed input, the chunk being joined included, into scratch (see `takeOutput`). */
  private ownInput(): void {
    const joining = this.joining
    const joined = joining === null ? 0 : this.input.length - this.stitchAt
    const extra = joining === null ? 0 : joining.length - joined
    const rest = this.compact(extra)
    if (joining !== null) {
      this.scratch.set(joining.subarray(joined), rest)
      this.input = this.scratch.subarray(0, rest + extra)
      this.joining = null
    }
  }

  /** Drops the input, all consumed (a detached view throws on subarray), and a large scratch. */
  private releaseInput(): void {
    this.input = EMPTY
    this.inputPos = 0
    this.inputIsScratch = false
    if (this.scratch.length > SCRATCH_KEEP) this.scratch = EMPTY
  }
}
