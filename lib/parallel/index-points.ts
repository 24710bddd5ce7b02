/**
 * Turns the block starts a parallel decode met (inflate-chain.ts `points`: absolute bit,
 * output offset, where the member's output starts) into a `GzipIndex` as the output is
 * emitted: the builder (lib/gzip-index/index-builder.ts) takes the starts that are due,
 * by the same rule as when it is fed by the serial indexing decoder, each with the output
 * before it (at most 32 KiB, within its member) as its window, taken from the last 32 KiB
 * emitted and the piece being emitted. So the index is the one `gzipIndex()` builds.
 */
import type { GzipIndexBuilder } from '../gzip-index/index-builder.js'

const HISTORY = 32768

export class IndexPoints {
  /** Output emitted so far. */
  private emitted = 0
  /** Its last bytes: `ring[0..ringLength)`. */
  private ring = new Uint8Array(HISTORY)
  private ringLength = 0
  /** The next block start to look at (an index into the points, 3 numbers each). */
  private next = 0
  private readonly window = new Uint8Array(HISTORY)

  constructor(private readonly builder: GzipIndexBuilder) {}

  /** `piece` is emitted next; `points` are the chain's block starts so far. */
  emit(piece: Uint8Array, points: readonly number[]): void {
    this.take(points, this.emitted + piece.length, piece)
    this.emitted += piece.length
    const keep = Math.min(HISTORY, piece.length)
    const stay = Math.min(this.ringLength, HISTORY - keep)
    this.ring.copyWithin(0, this.ringLength - stay, this.ringLength)
    this.ring.set(piece.subarray(piece.length - keep), stay)
    this.ringLength = stay + keep
  }

  /** After the last piece: the block starts at the very end of the output. */
  finish(points: readonly number[]): void {
    this.take(points, this.emitted + 1, new Uint8Array(0))
  }

  /** The block starts before output offset `until`, with `piece` (starting at `emitted`) after the ring. */
  private take(points: readonly number[], until: number, piece: Uint8Array): void {
    for (; this.next < points.length && points[this.next + 1]! < until; this.next += 3) {
      const bit = points[this.next]!
      const out = points[this.next + 1]!
      if (!this.builder.due(out)) continue
      const n = Math.min(HISTORY, out - points[this.next + 2]!)
      // The window's bytes: from the ring, then from the piece.
      const fromPiece = Math.min(n, out - this.emitted)
      const fromRing = n - fromPiece
      this.window.set(this.ring.subarray(this.ringLength - fromRing, this.ringLength), 0)
      this.window.set(piece.subarray(out - this.emitted - fromPiece, out - this.emitted), fromRing)
      this.builder.add(bit, out, this.window.subarray(0, n))
    }
  }
}
