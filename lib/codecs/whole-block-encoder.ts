/**
 * The encoder shell of the raw block formats whose block is the whole input ('lz4-block',
 * 'snappy-raw'): it collects the input until `final`, compresses it once, straight into
 * `dst` when it has room for the worst case, else into one buffer drained over calls.
 * `flush()` has no sync point to offer (one block) and writes nothing. A format supplies
 * its worst-case bound and its compressor.
 */
import type { Encoder, Format } from '../codec.js'
import type { Failure } from '../errors.js'
import { Status } from '../status.js'

/**
 * Inputs are held whole in memory: 2^31 bytes is what one ArrayBuffer holds in every
 * target runtime (and the practical ceiling of both block formats).
 */
export const MAX_BLOCK_INPUT = 2 ** 31

export abstract class WholeBlockEncoder implements Encoder {
  abstract readonly format: Format
  consumed = 0
  written = 0
  failure: Failure | null = null

  private input: Uint8Array | null = null
  private inputLength = 0
  private out: Uint8Array | null = null
  private outPos = 0
  private outEnd = 0
  /** 0: collecting, 1: draining, 2: done. */
  private state = 0

  /** The most bytes the block of `n` input bytes can take. */
  protected abstract bound(n: number): number

  /**
   * Compresses `data[0, n)` into `out` from offset 0 (`out` holds at least `bound(n)`
   * bytes); returns the end, or -1 after setting `failure`.
   */
  protected abstract compress(data: Uint8Array, n: number, out: Uint8Array): number

  reset(): void {
    this.consumed = 0
    this.written = 0
    this.failure = null
    this.inputLength = 0
    this.outPos = this.outEnd = 0
    this.state = 0
  }

  dispose(): void {
    this.input = null
    this.out = null
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.failure) return Status.InvalidData
    if (this.state === 2) return Status.Done
    if (this.state === 0) {
      const total = this.inputLength + src.length
      if (total > MAX_BLOCK_INPUT) {
        this.failure = { code: 'LIMIT_EXCEEDED', message: `block input of ${total} bytes exceeds ${MAX_BLOCK_INPUT} (not an option: a raw block holds its input whole; the framed formats, 'lz4' and 'snappy', take any length)`, offset: this.inputLength }
        return Status.InvalidData
      }
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
      const bound = this.bound(total)
      this.inputLength = 0
      if (dst.length >= bound) {
        const end = this.compress(data, total, dst)
        if (end < 0) return Status.InvalidData
        this.written = end
        this.state = 2
        return Status.Done
      }
      const out = this.out !== null && this.out.length >= bound ? this.out : (this.out = new Uint8Array(bound))
      const end = this.compress(data, total, out)
      if (end < 0) return Status.InvalidData
      this.outEnd = end
      this.outPos = 0
      this.state = 1
    }
    const n = Math.min(this.outEnd - this.outPos, dst.length)
    dst.set(this.out!.subarray(this.outPos, this.outPos + n), 0)
    this.outPos += n
    this.written = n
    if (this.outPos < this.outEnd) return Status.DestinationTooSmall
    this.state = 2
    return Status.Done
  }

  flush(_dst: Uint8Array): Status {
    this.consumed = 0
    this.written = 0
    return this.failure ? Status.InvalidData : Status.Done
  }
}
