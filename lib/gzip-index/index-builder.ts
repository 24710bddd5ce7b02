/**
 * Collects the access points of a `GzipIndex` (gzip-index.ts) as a decoder meets block
 * starts: one at the first block, then one at the first block start at least `spacing`
 * bytes of output after the last point. Each window is compressed as it is added (the
 * caller's deflate encoder, engines.ts), so a long decode keeps about 7 KiB per point
 * instead of 32.
 *
 * Whoever decodes feeds it: `indexing-decoder.ts` from the block starts an inflater
 * reports (one pass, any input), a parallel decoder from the block starts of its chunks.
 */
import { CodecError } from '../errors.js'
import { checkPoint, type GzipIndex, type GzipIndexFormat, type GzipIndexPoint } from './gzip-index.js'

/**
 * Default spacing: 4 MiB of output between points. A compressed window is about 6.5 KiB
 * on text (zlib-ng level 6 on the text corpus of the repository's bench/corpus.ts), so at 4.4:1 a point per 4 MiB of
 * output is about 0.8% of the compressed file (the repository's bench/gzip-index.ts: 0.85% on log lines;
 * issue 31's target is at most 1%, and zran's 1 MiB gives 3.3%). A read then decodes on
 * average 2 MiB before the bytes asked for. rapidgzip's chunks are 4 MiB too.
 */
export const DEFAULT_SPACING = 4 * 1024 * 1024

/** Compresses a window (raw deflate, RFC 1951) into new memory. */
export type WindowCompressor = (window: Uint8Array) => Uint8Array

const EMPTY = new Uint8Array(0)

export class GzipIndexBuilder {
  private readonly points: GzipIndexPoint[] = []
  /** Output offset from which the next point is due. */
  private next = 0
  private last: GzipIndexPoint | null = null

  constructor(
    readonly format: GzipIndexFormat,
    readonly spacing: number,
    private readonly compress: WindowCompressor,
  ) {}

  /** Whether a block start at output offset `out` should become a point. */
  due(out: number): boolean {
    return out >= this.next
  }

  /**
   * Adds the point of the block starting at compressed bit `bit` after `out` bytes of
   * output, with `window`, the output before it that matches may reach (at most 32 KiB;
   * empty at a member's first block), which is copied (compressed). Points come in order.
   */
  add(bit: number, out: number, window: Uint8Array): void {
    const last = this.last
    if (last !== null && (out < last.uncompressedOffset || bit <= last.compressedBitOffset)) {
      throw new CodecError('INVALID_OPTION', this.format, `index point (bit ${bit}, output ${out}) comes before the last one (bit ${last.compressedBitOffset}, output ${last.uncompressedOffset})`)
    }
    const point: GzipIndexPoint = Object.freeze({
      uncompressedOffset: out,
      compressedBitOffset: bit,
      windowSize: window.length,
      window: window.length === 0 ? EMPTY : this.compress(window),
    })
    this.points.push(point)
    this.last = point
    this.next = out + this.spacing
  }

  /** The index of a file of `compressedSize` bytes that decoded to `uncompressedSize`. */
  finish(compressedSize: number, uncompressedSize: number): GzipIndex {
    const sizes = { compressedSize, uncompressedSize }
    let previous: GzipIndexPoint | null = null
    for (let i = 0; i < this.points.length; i++) {
      const p = this.points[i]!
      checkPoint(i, p.uncompressedOffset, p.compressedBitOffset, p.windowSize, p.window.length, previous, sizes)
      previous = p
    }
    return Object.freeze({ format: this.format, compressedSize, uncompressedSize, points: Object.freeze(this.points.slice()) })
  }
}
