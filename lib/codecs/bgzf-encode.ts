/**
 * The gzip encoder's `bgzf` option: BGZF (lib/codecs/bgzf.ts) as `bgzip` and htslib
 * write it. Input is cut into blocks of 0xff00 bytes; each is deflated on its own by the
 * engine's raw deflate encoder and written as one gzip member with the BC subfield
 * (its size), its CRC-32 and ISIZE; the stream ends with the EOF marker. A block that
 * deflate would make larger than a BGZF block may be is written as one stored block
 * (RFC 1951 section 3.2.4), which always fits: 0xff00 + 5 + 26 < 65536.
 *
 * A sync point (`flush()`) ends the current block early: every block is independent.
 */
import type { Encoder } from '../codec.js'
import type { Failure } from '../errors.js'
import { Status } from '../status.js'
import { crc32 } from './checksum.js'
import { BGZF_BLOCK_INPUT, BGZF_EOF, BGZF_HEADER_SIZE, BGZF_MAX_BLOCK, BGZF_TRAILER_SIZE, writeBgzfHeader } from './bgzf.js'

/** Room for one block's deflate data: a block whose data does not fit is stored instead. */
const MAX_DATA = BGZF_MAX_BLOCK - BGZF_HEADER_SIZE - BGZF_TRAILER_SIZE

export class BgzfEncoder implements Encoder {
  readonly format = 'gzip'
  consumed = 0
  written = 0
  failure: Failure | null = null
  /** Input of the block being filled. */
  private readonly input = new Uint8Array(BGZF_BLOCK_INPUT)
  private fill = 0
  /** The finished block (or EOF marker) waiting to be copied out: out[pending..outEnd). */
  private readonly out = new Uint8Array(BGZF_MAX_BLOCK)
  private pending = 0
  private outEnd = 0
  /** The EOF marker was queued. */
  private ended = false

  /** `raw`: the engine's raw deflate encoder at the level asked for, reset for each block. */
  constructor(private readonly raw: Encoder) {}

  reset(): void {
    this.fill = 0
    this.pending = this.outEnd = 0
    this.ended = false
    this.consumed = this.written = 0
    this.failure = null
  }

  dispose(): void {
    this.raw.dispose()
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.failure) return Status.InvalidData
    for (;;) {
      if (!this.drain(dst)) return Status.DestinationTooSmall
      if (this.ended) {
        // More input after the end is the caller's mistake.
        if (src.length > this.consumed) return this.fail(`${src.length - this.consumed} bytes of input after the end of the stream; reset() first`)
        return Status.Done
      }
      const n = Math.min(src.length - this.consumed, BGZF_BLOCK_INPUT - this.fill)
      this.input.set(src.subarray(this.consumed, this.consumed + n), this.fill)
      this.fill += n
      this.consumed += n
      if (this.fill === BGZF_BLOCK_INPUT) {
        if (!this.block()) return Status.InvalidData
        continue
      }
      if (!final) return Status.Done
      if (this.fill > 0) {
        if (!this.block()) return Status.InvalidData
        continue
      }
      this.out.set(BGZF_EOF)
      this.pending = 0
      this.outEnd = BGZF_EOF.length
      this.ended = true
    }
  }

  flush(dst: Uint8Array): Status {
    this.consumed = 0
    this.written = 0
    if (this.failure) return Status.InvalidData
    if (!this.drain(dst)) return Status.DestinationTooSmall
    if (this.fill === 0 || this.ended) return Status.Done
    if (!this.block()) return Status.InvalidData
    return this.drain(dst) ? Status.Done : Status.DestinationTooSmall
  }

  /** Copies pending output to `dst`; true when none is left. */
  private drain(dst: Uint8Array): boolean {
    const n = Math.min(this.outEnd - this.pending, dst.length - this.written)
    if (n > 0) {
      dst.set(this.out.subarray(this.pending, this.pending + n), this.written)
      this.pending += n
      this.written += n
    }
    return this.pending === this.outEnd
  }

  /** Encodes input[0..fill) as one block into `out`. */
  private block(): boolean {
    const data = this.input.subarray(0, this.fill)
    const out = this.out
    const body = out.subarray(BGZF_HEADER_SIZE, BGZF_HEADER_SIZE + MAX_DATA)
    const raw = this.raw
    raw.reset()
    const status = raw.transform(data, body, true)
    let size: number
    if (status === Status.Done && raw.consumed === data.length) {
      size = raw.written
    } else if (status === Status.DestinationTooSmall) {
      // Does not compress: one final stored block (BFINAL 1, BTYPE 00, LEN, NLEN).
      body[0] = 1
      body[1] = data.length & 0xff
      body[2] = data.length >>> 8
      body[3] = ~data.length & 0xff
      body[4] = (~data.length >>> 8) & 0xff
      body.set(data, 5)
      size = data.length + 5
    } else {
      this.fail(raw.failure?.message ?? `the raw deflate encoder stopped with status ${status}`)
      return false
    }
    const total = BGZF_HEADER_SIZE + size + BGZF_TRAILER_SIZE
    writeBgzfHeader(out, total)
    const c = crc32(data)
    let at = BGZF_HEADER_SIZE + size
    for (const v of [c, data.length]) {
      out[at++] = v
      out[at++] = v >>> 8
      out[at++] = v >>> 16
      out[at++] = v >>> 24
    }
    this.pending = 0
    this.outEnd = total
    this.fill = 0
    return true
  }

  private fail(message: string): Status {
    this.failure = { code: 'INVALID_DATA', message, offset: this.consumed }
    return Status.InvalidData
  }
}
