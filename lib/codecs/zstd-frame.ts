/**
 * Where a zstd frame ends, found from its headers alone (RFC 8878 section 3.1), for
 * engines that decode but do not say where a frame stopped (node:zlib's zstd).
 *
 * A frame is a header, blocks whose 3-byte headers give their stored size, and an
 * optional 4-byte checksum; a skippable frame is a magic number and a 4-byte length.
 * So the end of a frame is known from the compressed bytes without decoding them. The
 * scanner is resumable at any byte: feed it consecutive ranges of one stream with
 * `scan()` until it reports the end.
 */

import { readU32LE } from '../endian.js'

/** Zstandard frame magic, 0xFD2FB528 little-endian (RFC 8878 section 3.1.1). */
const ZSTD_MAGIC = 0xfd2fb528
/** Skippable frames: magic 0x184D2A50 to 0x184D2A5F (RFC 8878 section 3.1.2). */
const SKIPPABLE_MASK = 0xfffffff0
const SKIPPABLE_MAGIC = 0x184d2a50

/** What the scanner collects next. */
const Phase = {
  Magic: 0,
  SkippableSize: 1,
  Descriptor: 2,
  HeaderRest: 3,
  BlockHeader: 4,
  /** Skipping a block body, a checksum or a skippable frame's content. */
  Skip: 5,
  Ended: 6,
  Invalid: 7,
} as const
type Phase = (typeof Phase)[keyof typeof Phase]

/** Dictionary_ID field sizes by `Dictionary_ID_flag` (RFC 8878 section 3.1.1.1.1.6). */
const DICT_ID_SIZES = [0, 1, 2, 4] as const
/** Frame_Content_Size field sizes by `Frame_Content_Size_flag` (section 3.1.1.1.1.1). */
const FCS_SIZES = [0, 2, 4, 8] as const

export class ZstdFrameScanner {
  /** Bytes of the current frame scanned so far. */
  scanned = 0
  /** Set when `scan()` returned -2: what was wrong, and at which frame offset. */
  error: { message: string; offset: number } | null = null

  private phase: Phase = Phase.Magic
  /** Header bytes being collected (at most 8 at a time) and how many are still needed. */
  private readonly field = new Uint8Array(8)
  private have = 0
  private need = 4
  /** Bytes left to skip in the Skip phase, and whether a checksum follows the last block. */
  private skip = 0
  private checksum = false
  private lastBlock = false

  /**
   * Scans `src[start..end)`, the bytes that follow those already scanned. Returns the
   * index in `src` just past the end of the frame when it ends in this range, -1 when
   * the range was scanned and the frame goes on, and -2 on a header that no decoder
   * could accept (see `error`).
   */
  scan(src: Uint8Array, start: number, end: number): number {
    let i = start
    while (i < end) {
      switch (this.phase) {
        case Phase.Skip: {
          const n = Math.min(this.skip, end - i)
          this.skip -= n
          i += n
          this.scanned += n
          if (this.skip === 0) this.afterSkip()
          break
        }
        case Phase.Ended:
          return i
        case Phase.Invalid:
          return -2
        default: {
          // Collect the field's bytes; act when it is complete.
          const n = Math.min(this.need - this.have, end - i)
          this.field.set(src.subarray(i, i + n), this.have)
          this.have += n
          i += n
          this.scanned += n
          if (this.have === this.need) this.onField()
        }
      }
    }
    return this.phase === Phase.Ended ? i : this.phase === Phase.Invalid ? -2 : -1
  }

  /** The frame ended exactly where the bytes scanned so far end. */
  get ended(): boolean {
    return this.phase === Phase.Ended
  }

  /** Ready for the next frame. */
  reset(): void {
    this.scanned = 0
    this.error = null
    this.expect(Phase.Magic, 4)
    this.skip = 0
    this.checksum = false
    this.lastBlock = false
  }

  private expect(phase: Phase, bytes: number): void {
    this.phase = phase
    this.have = 0
    this.need = bytes
  }

  private skipThen(bytes: number): void {
    this.skip = bytes
    this.phase = Phase.Skip
    if (bytes === 0) this.afterSkip()
  }

  /** After a block body, a checksum or a skippable frame's content. */
  private afterSkip(): void {
    if (!this.lastBlock) return this.expect(Phase.BlockHeader, 3)
    if (this.checksum) {
      this.checksum = false
      return this.skipThen(4)
    }
    this.phase = Phase.Ended
  }

  private onField(): void {
    const f = this.field
    const at = this.scanned - this.need
    switch (this.phase) {
      case Phase.Magic: {
        const magic = readU32LE(f, 0)
        if (magic === ZSTD_MAGIC) return this.expect(Phase.Descriptor, 1)
        if (((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) return this.expect(Phase.SkippableSize, 4)
        return this.invalid(`expected a zstd frame magic number (28 B5 2F FD) or a skippable frame, found 0x${magic.toString(16).padStart(8, '0')}`, at)
      }
      case Phase.SkippableSize: {
        const size = readU32LE(f, 0)
        this.lastBlock = true
        this.checksum = false
        return this.skipThen(size)
      }
      case Phase.Descriptor: {
        const d = f[0]!
        if (d & 0x08) return this.invalid('frame header descriptor has its reserved bit set', at)
        const singleSegment = (d >> 5) & 1
        const fcsFlag = d >> 6
        const fcsSize = fcsFlag === 0 ? singleSegment : FCS_SIZES[fcsFlag]!
        this.checksum = (d & 0x04) !== 0
        const rest = (singleSegment ? 0 : 1) + DICT_ID_SIZES[d & 3]! + fcsSize
        if (rest === 0) return this.expect(Phase.BlockHeader, 3)
        return this.expect(Phase.HeaderRest, rest)
      }
      case Phase.HeaderRest:
        return this.expect(Phase.BlockHeader, 3)
      case Phase.BlockHeader: {
        const h = f[0]! | (f[1]! << 8) | (f[2]! << 16)
        const type = (h >> 1) & 3
        if (type === 3) return this.invalid('block type 3 is reserved', at)
        this.lastBlock = (h & 1) === 1
        // An RLE block stores one byte whatever its regenerated size (section 3.1.1.2.2).
        return this.skipThen(type === 1 ? 1 : h >>> 3)
      }
      default:
        return
    }
  }

  private invalid(message: string, offset: number): void {
    this.phase = Phase.Invalid
    this.error = { message, offset }
  }
}
