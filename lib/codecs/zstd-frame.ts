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
export const ZSTD_MAGIC = 0xfd2fb528
/** Skippable frames: magic 0x184D2A50 to 0x184D2A5F (RFC 8878 section 3.1.2). */
export const SKIPPABLE_MASK = 0xfffffff0
export const SKIPPABLE_MAGIC = 0x184d2a50
/** Frame_Header_Descriptor bit 3 is reserved and must be zero (section 3.1.1.1.1.4). */
export const DESCRIPTOR_RESERVED = 0x08
/** Window_Log = 10 + Exponent, so 2^10 is the smallest window (section 3.1.1.1.2). */
export const MIN_WINDOW_LOG = 10

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

/** A zstd frame header (RFC 8878 section 3.1.1.1), as `parseFrameHeader()` reads it. */
export interface ZstdFrameHeader {
  /** Bytes of the header after the magic number: the descriptor and its fields. */
  readonly length: number
  /** Bytes of Window_Descriptor (0 or 1), Dictionary_ID and Frame_Content_Size. */
  readonly windowBytes: number
  readonly dictionaryBytes: number
  readonly contentSizeBytes: number
  /** Window_Size (section 3.1.1.1.2); the content size for single-segment frames. */
  readonly windowSize: number
  /** Dictionary_ID, 0 when the frame needs none. */
  readonly dictionaryId: number
  /** Frame_Content_Size, or -1 when the header does not say. */
  readonly contentSize: number
  /** Whether a 4-byte Content_Checksum follows the last block. */
  readonly checksum: boolean
}

/**
 * Bytes of the frame header after the magic number (the descriptor and its fields), from
 * the Frame_Header_Descriptor `descriptor` (section 3.1.1.1.1).
 */
export function frameHeaderLength(descriptor: number): number {
  const singleSegment = (descriptor >> 5) & 1
  const fcsFlag = descriptor >> 6
  return 1 + (singleSegment ? 0 : 1) + DICT_ID_SIZES[descriptor & 3]! + (fcsFlag === 0 ? singleSegment : FCS_SIZES[fcsFlag]!)
}

/**
 * Reads the frame header whose descriptor is at `src[at]`, the `frameHeaderLength()`
 * bytes from there being present. The reserved bit is the caller's to check.
 */
export function parseFrameHeader(src: Uint8Array, at: number): ZstdFrameHeader {
  const descriptor = src[at]!
  const singleSegment = (descriptor >> 5) & 1
  const fcsFlag = descriptor >> 6
  const windowBytes = singleSegment ? 0 : 1
  const dictionaryBytes = DICT_ID_SIZES[descriptor & 3]!
  const contentSizeBytes = fcsFlag === 0 ? singleSegment : FCS_SIZES[fcsFlag]!
  let pos = at + 1
  let windowSize = 0
  if (!singleSegment) {
    // Section 3.1.1.1.2: windowBase = 2^(10 + Exponent), plus Mantissa eighths of it.
    const windowBase = 2 ** (MIN_WINDOW_LOG + (src[pos]! >>> 3))
    windowSize = windowBase + (windowBase / 8) * (src[pos]! & 7)
    pos++
  }
  let dictionaryId = 0
  for (let i = dictionaryBytes - 1; i >= 0; i--) dictionaryId = dictionaryId * 256 + src[pos + i]!
  pos += dictionaryBytes
  let contentSize = -1
  if (contentSizeBytes > 0) {
    contentSize = 0
    for (let i = contentSizeBytes - 1; i >= 0; i--) contentSize = contentSize * 256 + src[pos + i]!
    if (contentSizeBytes === 2) contentSize += 256 // section 3.1.1.1.4: the 2-byte form is offset by 256
  }
  if (singleSegment) windowSize = contentSize // section 3.1.1.1.2: Window_Size = Frame_Content_Size
  return {
    length: 1 + windowBytes + dictionaryBytes + contentSizeBytes,
    windowBytes,
    dictionaryBytes,
    contentSizeBytes,
    windowSize,
    dictionaryId,
    contentSize,
    checksum: (descriptor & 0x04) !== 0,
  }
}

export class ZstdFrameScanner {
  /** Bytes of the current frame scanned so far. */
  scanned = 0
  /** Set when `scan()` returned -2: what was wrong, and at which frame offset. */
  error: { message: string; offset: number } | null = null

  private phase: Phase = Phase.Magic
  /**
   * Header bytes being collected and how many are still needed: at most 13 at a time,
   * the header after its descriptor (window 1, dictionary ID 4, content size 8).
   */
  private readonly field = new Uint8Array(16)
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
        if (d & DESCRIPTOR_RESERVED) return this.invalid('frame header descriptor has its reserved bit set', at)
        this.checksum = (d & 0x04) !== 0
        const rest = frameHeaderLength(d) - 1
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

/** The parts of a zstd frame (RFC 8878 section 3.1.1), as `ZstdFrameParts` follows them. */
export const FramePart = {
  /** Magic number and frame header. */
  Header: 0,
  /** A block: its 3-byte header and its stored bytes (section 3.1.1.2). */
  Block: 1,
  /** The 4-byte Content_Checksum after the last block. */
  Checksum: 2,
  /** Past the end of the frame. */
  Ended: 3,
} as const
export type FramePart = (typeof FramePart)[keyof typeof FramePart]

/**
 * Follows the parts of one zstd frame as a decoder hands its bytes to an engine, so that
 * the engine can be given one part at a time and an error it reports can be placed in
 * the part it was found in. libzstd leaves its input position where the failing call's
 * input began (`ZSTD_decompressStream` returns the error before updating `input->pos`),
 * and decodes a block in the call that brings its last byte; so when no call's input
 * spans two parts, the part that holds the next byte to read is the one that failed,
 * whatever the caller's chunking.
 *
 * Offsets are relative to the frame's first byte (its magic number). A block's extent
 * is known once its 3-byte header has been seen; the header's bytes are collected as
 * they pass, so a header split across calls is followed too.
 */
export class ZstdFrameParts {
  /** The part that holds the next byte to read. */
  part: FramePart = FramePart.Header
  /** Frame offset where that part begins: the magic, a block's header, the checksum. */
  start = 0
  /** Frame offset just past the part, or -1 while a block's header is not whole yet. */
  end = 0

  private checksum = false
  private lastBlock = false
  /** The current block's header bytes seen so far (`have` of 3). */
  private readonly field = new Uint8Array(3)
  private have = 0

  /** A new frame: its header is `headerLength` bytes with the magic, `checksum` its Content_Checksum_flag. */
  begin(headerLength: number, checksum: boolean): void {
    this.part = FramePart.Header
    this.start = 0
    this.end = headerLength
    this.checksum = checksum
    this.lastBlock = false
    this.have = 0
  }

  /**
   * How far the engine may read: `src[at..srcEnd)` are the frame's bytes from frame
   * offset `pos`, the next one the engine reads. Returns the index in `src` where the
   * part holding `pos` ends, `srcEnd` when that is later or not known yet, or `at`
   * when the frame has ended.
   */
  limit(src: Uint8Array, at: number, srcEnd: number, pos: number): number {
    for (;;) {
      if (this.part === FramePart.Ended) return at
      if (this.end < 0) {
        // A block header not seen whole: take its bytes from src (they lie at or after
        // pos, since the engine was never given bytes beyond those collected).
        while (this.have < 3) {
          const i = at + this.start + this.have - pos
          if (i >= srcEnd) return srcEnd
          this.field[this.have++] = src[i]!
        }
        const h = this.field[0]! | (this.field[1]! << 8) | (this.field[2]! << 16)
        this.lastBlock = (h & 1) === 1
        // An RLE block stores one byte whatever its regenerated size (section 3.1.1.2.2).
        this.end = this.start + 3 + (((h >> 1) & 3) === 1 ? 1 : h >>> 3)
      }
      if (pos < this.end) return Math.min(srcEnd, at + this.end - pos)
      this.next()
    }
  }

  /** Whether all that is left of the frame from frame offset `pos` is its Content_Checksum. */
  checksumOnly(pos: number): boolean {
    return this.checksum && (this.part === FramePart.Checksum || (this.part === FramePart.Block && this.lastBlock && pos === this.end))
  }

  private next(): void {
    this.start = this.end
    if (this.part === FramePart.Header || (this.part === FramePart.Block && !this.lastBlock)) {
      this.part = FramePart.Block
      this.end = -1
      this.have = 0
    } else if (this.part === FramePart.Block && this.checksum) {
      this.part = FramePart.Checksum
      this.end = this.start + 4
    } else {
      this.part = FramePart.Ended
    }
  }
}
