/**
 * The index of a BGZF file (lib/codecs/bgzf.ts) by walking its block headers instead of
 * decoding: each block's size is in its header (BC's BSIZE) and its decoded size in its
 * trailer (ISIZE), so one pass over the bytes finds every block without inflating any.
 * Every block that decodes to something is a point, with no window (blocks are
 * independent members), which is what bgzip's `.gzi` lists too (gzi-format.ts).
 *
 * Fed in chunks of any size (a stream, or range reads), offsets counted from the file's
 * first byte. The deflate data is not checked here: a damaged block is found when it is
 * read.
 */
import { CodecError } from '../errors.js'
import { readU32LE } from '../endian.js'
import { BGZF_MAX_BLOCK, bgzfBlockAt } from '../codecs/bgzf.js'
import type { GzipIndex, GzipIndexPoint } from './gzip-index.js'

const EMPTY: Uint8Array = new Uint8Array(0)

export class BgzfWalker {
  private readonly points: GzipIndexPoint[] = []
  /** File offset of `carry[0]`, the start of the block not yet complete. */
  private at = 0
  private carry: Uint8Array = EMPTY
  private out = 0

  /** Takes the next bytes of the file. */
  push(chunk: Uint8Array): void {
    let b = chunk
    if (this.carry.length > 0) {
      b = new Uint8Array(this.carry.length + chunk.length)
      b.set(this.carry)
      b.set(chunk, this.carry.length)
    }
    let p = 0
    while (p < b.length) {
      // Zero bytes after the last block are padding (the machine's rule for gzip).
      if (b[p] === 0 && this.points.length > 0 && b.subarray(p).every((x) => x === 0)) {
        p = b.length
        break
      }
      const block = bgzfBlockAt(b, p, this.at)
      if (block === undefined) break
      if (block === null) throw new CodecError('INVALID_DATA', 'gzip', `the gzip member at byte ${this.at} has no BGZF BC subfield, though the file starts as BGZF`, this.at)
      if (p + block.size > b.length) break
      const isize = readU32LE(b, p + block.size - 4)
      // SAMv1 section 4.1: a block holds at most 64 KiB of data.
      if (isize > BGZF_MAX_BLOCK) throw new CodecError('INVALID_DATA', 'gzip', `BGZF block at byte ${this.at} says it decodes to ${isize} bytes, more than a block's 65536`, this.at + block.size - 4)
      if (isize > 0) this.points.push(Object.freeze({ uncompressedOffset: this.out, compressedBitOffset: (this.at + block.dataStart) * 8, windowSize: 0, window: EMPTY }))
      this.out += isize
      this.at += block.size
      p += block.size
    }
    this.carry = p < b.length ? b.slice(p) : EMPTY
  }

  /** The index, once all `compressedSize` bytes were pushed. */
  finish(compressedSize: number): GzipIndex {
    if (this.carry.length > 0 && !this.carry.every((x) => x === 0)) {
      throw new CodecError('TRUNCATED', 'gzip', `the BGZF block at byte ${this.at} ends after ${this.carry.length} of its bytes`, compressedSize)
    }
    return Object.freeze({ format: 'gzip', compressedSize, uncompressedSize: this.out, points: Object.freeze(this.points.slice()) })
  }
}
