/**
 * Raw deflate decoding that starts at an access point (gzip-index.ts) instead of a
 * stream's first bit: a span decoder (the span contract of lib/codec.ts, format
 * `deflate-raw`) over an indexable body (inflate-observer.ts), primed with the point's
 * window as history and told to skip the bits of the first byte that belong to the
 * block before, as zran primes zlib with `inflateSetDictionary` and `inflatePrime`.
 *
 * Feed it the compressed file from byte `compressedBitOffset >> 3` on. It returns
 * `Done` where the deflate stream ends (the gzip trailer or zlib Adler-32 after it left
 * unconsumed). As for every decoder, failure offsets count from the first byte fed since
 * `start()`/`reset()` (add `startByte` for the file offset), and so do the bit offsets a
 * block observer on the body is told (add `startByte * 8`).
 */
import type { Decoder } from '../codec.js'
import type { Failure } from '../errors.js'
import { Status } from '../status.js'
import type { IndexableBody } from '../codecs/inflate-observer.js'

const EMPTY = new Uint8Array(0)

export class InflaterAt implements Decoder {
  readonly format = 'deflate-raw'
  consumed = 0
  written = 0
  failure: Failure | null = null
  /** The first byte to feed: the file offset of the point's byte (`bit >> 3`). */
  startByte = 0
  /** Input consumed since the start. */
  private base = 0
  private bit = 0
  private window: Uint8Array = EMPTY

  constructor(readonly body: IndexableBody) {}

  /**
   * Starts over at compressed bit `bit` of the file with `window` (the point's
   * decompressed window, at most 32 KiB, empty at a member's first block) as history.
   * The next input is the file from byte `bit >> 3` on.
   */
  start(bit: number, window: Uint8Array): void {
    this.bit = bit
    this.window = window
    this.reset()
  }

  /** Back to the start given to `start()`. */
  reset(): void {
    const body = this.body
    body.reset()
    if (this.window.length > 0) body.preset(this.window)
    body.skipBits(this.bit & 7)
    this.startByte = Math.floor(this.bit / 8)
    this.base = 0
    this.consumed = 0
    this.written = 0
    this.failure = null
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    const body = this.body
    const status = body.run(src, 0, dst, 0, this.base, final)
    this.consumed = body.inPos
    this.written = body.outPos
    this.base += body.inPos
    if (status === Status.InvalidData) this.failure = body.failure ?? { code: 'INVALID_DATA', message: 'invalid deflate data', offset: this.base }
    return status
  }

  dispose(): void {
    this.body.dispose?.()
  }
}
