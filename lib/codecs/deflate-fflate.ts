/**
 * The deflate family's `js` encoder: fflate's streaming `Deflate` with the gzip (RFC
 * 1952) and zlib (RFC 1950) headers and trailers written here. Its own module so that
 * only the `js` engine's chunk carries fflate (the `wasm` engine encodes with zlib-ng).
 */
import { Deflate as FflateDeflate } from 'fflate'
import type { Encoder, Format } from '../codec.js'
import type { Failure } from '../errors.js'
import { Status } from '../status.js'
import { adler32, crc32 } from './checksum.js'
import { wrapperOf, type Wrapper } from './deflate.js'

/** zlib FLG bit FDICT: a preset dictionary's DICTID follows (RFC 1950 section 2.2). */
const FDICT = 0x20

/** Output chunks not yet copied into a destination. */
class OutputQueue {
  private chunks: Uint8Array[] = []
  private head = 0
  /** Offset into chunks[head] already copied out. */
  private offset = 0

  get empty(): boolean {
    return this.head >= this.chunks.length
  }

  push(chunk: Uint8Array): void {
    if (chunk.length > 0) this.chunks.push(chunk)
  }

  /** Copies as much as fits into dst[o..); returns the new o. */
  drain(dst: Uint8Array, o: number): number {
    while (this.head < this.chunks.length && o < dst.length) {
      const c = this.chunks[this.head]!
      const n = Math.min(c.length - this.offset, dst.length - o)
      dst.set(c.subarray(this.offset, this.offset + n), o)
      o += n
      this.offset += n
      if (this.offset === c.length) {
        this.chunks[this.head++] = undefined as never
        this.offset = 0
      }
    }
    if (this.head === this.chunks.length && this.head > 0) {
      this.chunks = []
      this.head = 0
    }
    return o
  }

  clear(): void {
    this.chunks = []
    this.head = 0
    this.offset = 0
  }
}

/**
 * Encoder over fflate's streaming `Deflate` (which always takes all input). Its output
 * chunks are queued and copied into the caller's `dst` as room allows; while output is
 * pending no new input is taken, so output stays bounded by one input chunk's worth.
 * With a dictionary, fflate primes its window with the dictionary's last 32 KiB (its
 * `dictionary` option, fflate >= 0.8.0); for zlib the header says FDICT and DICTID.
 */
export class FflateEncoder implements Encoder {
  readonly format: Format
  consumed = 0
  written = 0
  failure: Failure | null = null
  private readonly wrapper: Wrapper
  private readonly level: number
  private deflater!: FflateDeflate
  private readonly queue = new OutputQueue()
  /** The header is queued at the first call. */
  private started = false
  /** The final chunk and trailer were queued. */
  private finished = false
  /** A sync flush was queued and is still being copied out. */
  private flushing = false
  private check = 0
  private size = 0
  /** The preset dictionary (zlib) or window (raw), checked and copied by the module. */
  private readonly dictionary: Uint8Array | undefined

  /**
   * The `fullFlush` option: after each sync point the deflater is replaced by a fresh one
   * (no history, no dictionary), which is what zlib's Z_FULL_FLUSH guarantees: no match
   * reaches back past the point.
   */
  private readonly fullFlush: boolean

  constructor(format: Format, level: number, dictionary: Uint8Array | null = null, fullFlush = false) {
    this.format = format
    this.fullFlush = fullFlush
    this.wrapper = wrapperOf(format)
    this.level = level
    // An empty dictionary changes nothing, so no FDICT is written for it (as node:zlib does).
    this.dictionary = dictionary && dictionary.length > 0 ? dictionary : undefined
    this.reset()
  }

  reset(): void {
    this.deflater = new FflateDeflate({ level: this.level as 0, dictionary: this.dictionary }, (chunk) => this.queue.push(chunk))
    this.queue.clear()
    this.started = false
    this.finished = false
    this.flushing = false
    this.check = this.wrapper === 'zlib' ? 1 : 0
    this.size = 0
    this.consumed = 0
    this.written = 0
  }

  dispose(): void {}

  private start(): void {
    if (this.started) return
    this.started = true
    if (this.wrapper === 'gzip') {
      // RFC 1952 section 2.3: no flags, MTIME 0 (none), XFL 2/4 for best/fastest, OS 255 (unknown).
      const xfl = this.level === 9 ? 2 : this.level === 1 ? 4 : 0
      this.queue.push(new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 255]))
    } else if (this.wrapper === 'zlib') {
      // RFC 1950 section 2.2: CM 8, CINFO 7 (32 KiB window), FLEVEL from the level,
      // FDICT with the dictionary's Adler-32 (DICTID) after FLG, FCHECK.
      const cmf = 0x78
      const flevel = this.level < 2 ? 0 : this.level < 6 ? 1 : this.level === 6 ? 2 : 3
      let flg = (flevel << 6) | (this.dictionary ? FDICT : 0)
      flg |= 31 - (((cmf << 8) | flg) % 31)
      if (this.dictionary) {
        const id = adler32(this.dictionary)
        this.queue.push(new Uint8Array([cmf, flg, id >>> 24, id >>> 16, id >>> 8, id]))
      } else {
        this.queue.push(new Uint8Array([cmf, flg]))
      }
    }
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.start()
    let o = this.queue.drain(dst, 0)
    if (!this.queue.empty) {
      this.written = o
      return Status.DestinationTooSmall
    }
    if (!this.finished && (src.length > 0 || final)) {
      if (this.wrapper === 'gzip') {
        this.check = crc32(src, this.check)
        this.size = (this.size + src.length) >>> 0
      } else if (this.wrapper === 'zlib') {
        this.check = adler32(src, this.check)
      }
      this.deflater.push(src, final)
      this.consumed = src.length
      if (final) {
        this.finished = true
        this.queue.push(this.trailer())
      }
    } else if (this.finished) {
      // After the end, input is not taken; reported as Done with nothing consumed.
    }
    o = this.queue.drain(dst, o)
    this.written = o
    if (!this.queue.empty) return Status.DestinationTooSmall
    this.flushing = false
    return Status.Done
  }

  private trailer(): Uint8Array {
    const c = this.check
    if (this.wrapper === 'gzip') {
      const s = this.size
      return new Uint8Array([c, c >>> 8, c >>> 16, c >>> 24, s, s >>> 8, s >>> 16, s >>> 24])
    }
    if (this.wrapper === 'zlib') return new Uint8Array([c >>> 24, c >>> 16, c >>> 8, c])
    return new Uint8Array(0)
  }

  flush(dst: Uint8Array): Status {
    this.consumed = 0
    this.start()
    if (!this.flushing && !this.finished) {
      // Sync flush: an empty stored block ends the output on a byte boundary
      // (RFC 1951 section 3.2.4), so everything so far decodes without the rest.
      // fflate 0.8.3's own `flush(true)` places that block at the wrong offset when
      // the pending partial byte is non-zero (it passes its packed `s.r` = byte << 3 |
      // bit position to `wfblk` as a bit position), producing "invalid stored block
      // lengths". So: let fflate emit its blocks without the sync block, then write
      // the pending partial byte and the empty stored block ourselves. This relies on
      // fflate's internal state `s.r` (partial last byte << 3 | bits used in it).
      const inner = this.deflater as unknown as { s: { r?: number } }
      this.deflater.flush(false)
      const r = inner.s.r ?? 0
      const pos = r & 7
      // BFINAL=0 and BTYPE=00 take 3 zero bits after `pos`; LEN starts at the next byte.
      const at = (pos + 3 + 7) >> 3
      const block = new Uint8Array(at + 4)
      block[0] = r >> 3
      block[at + 2] = 0xff
      block[at + 3] = 0xff
      inner.s.r = 0
      this.queue.push(block)
      this.flushing = true
      // A new raw deflate stream continues the old one's blocks: the sync block left the
      // output on a byte boundary with no final block yet (RFC 1951 section 3.2.3).
      if (this.fullFlush) this.deflater = new FflateDeflate({ level: this.level as 0 }, (chunk) => this.queue.push(chunk))
    }
    this.written = this.queue.drain(dst, 0)
    if (!this.queue.empty) return Status.DestinationTooSmall
    this.flushing = false
    return Status.Done
  }
}
