/**
 * The encoder shell of the raw block formats whose block is the whole input ('lz4-block',
 * 'snappy-raw'), on the shell of frame-codec.ts: it collects the input until `final`,
 * compresses it once, straight into `dst` when it has room for the worst case, else
 * into the stage, drained over calls. `flush()` has no sync point to offer (one block)
 * and writes nothing. A format supplies its worst-case bound and its compressor.
 */
import type { Encoder } from '../codec.js'
import { Status } from '../status.js'
import { FrameCodec } from './frame-codec.js'

/**
 * Inputs are held whole in memory: 2^31 bytes is what one ArrayBuffer holds in every
 * target runtime (and the practical ceiling of both block formats).
 */
export const MAX_BLOCK_INPUT = 2 ** 31

export abstract class WholeBlockEncoder extends FrameCodec implements Encoder {
  private input: Uint8Array | null = null
  private inputLength = 0
  /** The block was made (and is being handed out from the stage). */
  private compressed = false

  constructor() {
    super('encode')
  }

  /** The most bytes the block of `n` input bytes can take. */
  protected abstract bound(n: number): number

  /**
   * Compresses `data[0, n)` into `out` from offset 0 (`out` holds at least `bound(n)`
   * bytes); returns the end, or -1 after `fail()`.
   */
  protected abstract compress(data: Uint8Array, n: number, out: Uint8Array): number

  override reset(): void {
    super.reset()
    this.inputLength = 0
    this.compressed = false
  }

  override dispose(): void {
    super.dispose()
    this.input = null
  }

  protected step(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    if (this.compressed) {
      this.written = this.staged.drain(dst, 0)
      return this.staged.waiting > 0 ? Status.DestinationTooSmall : Status.Done
    }
    const total = this.inputLength + src.length
    if (total > MAX_BLOCK_INPUT) return this.fail('LIMIT_EXCEEDED', `block input of ${total} bytes exceeds ${MAX_BLOCK_INPUT} (not an option: a raw block holds its input whole; the framed formats, 'lz4' and 'snappy', take any length)`, this.inputLength)
    let data: Uint8Array
    if (final && this.inputLength === 0) {
      data = src // one-shot: compress straight from src
    } else {
      if (this.input === null || this.input.length < total) {
        const grown = new Uint8Array(Math.min(MAX_BLOCK_INPUT, Math.max(total, (this.input?.length ?? 0) * 2, 1024)))
        if (this.input !== null) grown.set(this.input.subarray(0, this.inputLength))
        this.input = grown
      }
      this.input.set(src, this.inputLength)
      this.inputLength = total
      data = this.input
    }
    this.consumed = src.length
    if (!final) return Status.Done
    this.inputLength = 0
    const out = this.unitOut(dst, 0, this.bound(total))
    const end = this.compress(data, total, out)
    if (end < 0) return Status.InvalidData
    this.compressed = true
    this.written = this.unitEnd(dst, 0, out, end)
    return this.staged.waiting > 0 ? Status.DestinationTooSmall : Status.Done
  }

  flush(_dst: Uint8Array): Status {
    this.consumed = 0
    this.written = 0
    return this.failure ? Status.InvalidData : Status.Done
  }
}
