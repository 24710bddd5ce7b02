/**
 * The zstd frame format (RFC 8878 section 3.1), read in one place: its magic numbers,
 * the frame header, block headers, skippable frames and the Content_Checksum, and
 * `ZstdFrameWalker`, which walks a frame's parts from their headers alone. Everything
 * that reads zstd framing goes through it: the wasm decoder (zstd-decode.ts: the header,
 * and one part at a time for libzstd), node:zlib's decoder (adapters/node/engine.ts:
 * where a frame ends), the parallel cutter and one-shot frame groups (lib/parallel/),
 * `zstdFrames()` and the CLI's `inspect` (zstd-frame-list.ts), the seekable reader (a
 * frame's stored checksum) and Arrow bodies (a frame's content size).
 *
 * A frame is its magic number and header, blocks whose 3-byte headers give their stored
 * size, and an optional 4-byte Content_Checksum; a skippable frame is a magic number, a
 * 4-byte length and that many bytes. So where each part ends is known from a few header
 * bytes, without decoding anything, and the walker is resumable at any byte.
 */

import { readU32LE } from '../endian.js'

/** Zstandard frame magic, 0xFD2FB528 little-endian (RFC 8878 section 3.1.1). */
export const ZSTD_MAGIC = 0xfd2fb528
/** Skippable frames: magic 0x184D2A50 to 0x184D2A5F (RFC 8878 section 3.1.2). */
export const SKIPPABLE_MASK = 0xfffffff0
export const SKIPPABLE_MAGIC = 0x184d2a50
/** A skippable frame's header: its magic number and its 4-byte Frame_Size (section 3.1.2). */
export const SKIPPABLE_HEADER_SIZE = 8
/** Frame_Header_Descriptor bit 3 is reserved and must be zero (section 3.1.1.1.1.4). */
export const DESCRIPTOR_RESERVED = 0x08
/** Window_Log = 10 + Exponent, so 2^10 is the smallest window (section 3.1.1.1.2). */
export const MIN_WINDOW_LOG = 10

/** Dictionary_ID field sizes by `Dictionary_ID_flag` (RFC 8878 section 3.1.1.1.1.6). */
const DICT_ID_SIZES = [0, 1, 2, 4] as const
/** Frame_Content_Size field sizes by `Frame_Content_Size_flag` (section 3.1.1.1.1.1). */
const FCS_SIZES = [0, 2, 4, 8] as const
/** The longest header: magic 4, descriptor 1, window 1, dictionary ID 4, content size 8. */
const MAX_HEADER = 18

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
 * bytes from there being present. The reserved bit is the caller's to check (the
 * walker checks it).
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

/** The parts of a frame, in the order the walker reaches them (RFC 8878 section 3.1). */
export const FramePart = {
  /** The magic number and the frame header (section 3.1.1.1). */
  Header: 0,
  /** A block: its 3-byte header and its stored bytes (section 3.1.1.2). */
  Block: 1,
  /** The 4-byte Content_Checksum after the last block (section 3.1.1). */
  Checksum: 2,
  /** A skippable frame: its magic, its Frame_Size and its content (section 3.1.2). */
  Skippable: 3,
} as const
export type FramePart = (typeof FramePart)[keyof typeof FramePart]

/** What each `FramePart` is called in messages. */
export const PART_NAMES = ['the frame header', 'the block', 'the content checksum', 'the skippable frame'] as const

/** A frame's first bytes, for messages. */
const hexBytes = (b: Uint8Array, length: number): string => Array.from(b.subarray(0, length), (x) => x.toString(16).padStart(2, '0')).join(' ')

/**
 * Walks one frame (zstd or skippable) part by part, from its headers alone. Feed it the
 * frame's bytes in order, in any pieces: `scan()` to find where the frame ends, `step()`
 * to stop at the end of each part, `limit()` to keep an engine's reads within one part.
 * The bytes of a part's content (a block's stored bytes, a skippable frame's data) are
 * only counted, never read, and may be passed over unseen (`pass()`).
 *
 * Header fields split across pieces are collected as they pass. Bytes that can no
 * longer begin a frame, a reserved descriptor bit and the reserved block type set
 * `error` as soon as they are seen, and the walker stays there until `reset()`.
 */
export class ZstdFrameWalker {
  /** The part being walked, or walked last when `scanned` reached its `end`. */
  part: FramePart = FramePart.Header
  /** Frame offset where that part begins: the magic, a block's header, the checksum. */
  start = 0
  /** Frame offset just past the part, or -1 while its fields do not say yet. */
  end = -1
  /** Bytes of the frame walked: header fields read and contents counted. */
  scanned = 0
  /** A skippable frame's magic number (0x184D2A50 to 0x184D2A5F); 0 otherwise. */
  skippable = 0
  /** Blocks of the frame reached so far; whether the one reached last is its last (Last_Block). */
  blocks = 0
  lastBlock = false
  /** The Content_Checksum once read (the low 32 bits of the content's XXH64), else -1. */
  checksum = -1
  /** Set when the bytes cannot be a frame: what is wrong, and its frame offset. */
  error: { message: string; offset: number } | null = null

  /**
   * The fields of the current part as they arrive: the magic and header (at most 18
   * bytes, kept until `reset()`), a skippable frame's magic and Frame_Size; then a block
   * header or the checksum, in `small`.
   */
  private readonly head = new Uint8Array(MAX_HEADER)
  private readonly small = new Uint8Array(4)
  private field = this.head
  private have = 0
  private need = 4
  /** Whether the current part is the frame's last (the frame ends with it). */
  private last = false
  /** Content_Checksum_flag of the frame header. */
  private checksumFlag = false
  /** Whether the whole frame header is in `head`; its fields parsed once asked for (`header`). */
  private headerRead = false
  private parsed: ZstdFrameHeader | null = null

  /** The frame header, once read; null before that and for skippable frames. */
  get header(): ZstdFrameHeader | null {
    if (this.parsed === null && this.headerRead) this.parsed = parseFrameHeader(this.head, 4)
    return this.parsed
  }

  /** Whether the current part's fields are read (so its `end` is known). */
  get measured(): boolean {
    return this.have === this.need
  }

  /** Whether the frame ended where the bytes walked so far end. */
  get ended(): boolean {
    return this.last && this.scanned === this.end
  }

  /** Ready for the next frame. */
  reset(): void {
    this.part = FramePart.Header
    this.start = 0
    this.end = -1
    this.scanned = 0
    this.parsed = null
    this.headerRead = false
    this.field = this.head
    this.checksumFlag = false
    this.skippable = 0
    this.blocks = 0
    this.lastBlock = false
    this.checksum = -1
    this.error = null
    this.have = 0
    this.need = 4
    this.last = false
  }

  /**
   * Walks `src[i..srcEnd)`, the frame's bytes from offset `scanned`, through the end of
   * one part at most: the current one, or the next when the current one is complete.
   * Returns the index in `src` where it stopped (`i` once the frame ended or on `error`).
   */
  step(src: Uint8Array, i: number, srcEnd: number): number {
    if (this.error !== null) return i
    if (this.scanned === this.end) {
      if (this.last) return i
      this.next()
    }
    while (this.have < this.need) {
      if (i >= srcEnd) {
        // Bytes that can no longer start a frame are refused now rather than waited on.
        if (this.part === FramePart.Header && this.have < 4 && !couldStartFrame(this.field, this.have)) this.badMagic()
        return i
      }
      this.field[this.have++] = src[i++]!
      this.scanned++
      if (this.have === this.need) {
        this.onField()
        if (this.error !== null) return i
      }
    }
    const n = Math.min(this.end - this.scanned, srcEnd - i)
    this.scanned += n
    return i + n
  }

  /**
   * Walks `src[start..end)`, the bytes that follow those walked so far. Returns the index
   * in `src` just past the end of the frame when it ends in this range, -1 when the
   * range was walked and the frame goes on, and -2 on bytes that no decoder could accept
   * (see `error`).
   */
  scan(src: Uint8Array, start: number, end: number): number {
    let i = start
    for (;;) {
      if (this.ended) return i
      if (this.error !== null) return -2
      if (i >= end) return -1
      i = this.step(src, i, end)
    }
  }

  /** Passes over the rest of the current part's content unseen (its fields read: `measured`). */
  pass(): void {
    if (this.have === this.need) this.scanned = this.end
  }

  /**
   * How far an engine may read without its input spanning two parts: `src[at..srcEnd)`
   * are the frame's bytes from frame offset `pos`, the next one the engine reads (never
   * past what the walker has walked, except inside a part's content). Returns the index
   * in `src` where the part holding `pos` ends, `srcEnd` when that is later or not known
   * yet, and `at` when the frame has ended. On `error`, the bytes walked: the engine
   * then finds the error itself, in the same part.
   */
  limit(src: Uint8Array, at: number, srcEnd: number, pos: number): number {
    for (;;) {
      if (this.have === this.need && pos < this.end) return Math.min(srcEnd, at + this.end - pos)
      if (this.error !== null) return Math.min(srcEnd, at + this.scanned - pos)
      if (this.ended) return at
      // The engine has read the part through its end: go on from there.
      this.pass()
      const i = at + this.scanned - pos
      if (i >= srcEnd) return srcEnd
      this.step(src, i, srcEnd)
    }
  }

  /** Whether all that is left of the frame from frame offset `pos` is its Content_Checksum. */
  checksumOnly(pos: number): boolean {
    if (!this.checksumFlag) return false
    return this.part === FramePart.Checksum || (this.part === FramePart.Block && this.lastBlock && pos === this.end)
  }

  /** Begins the part after the current one, which is complete and not the frame's last. */
  private next(): void {
    this.start = this.scanned
    this.have = 0
    this.field = this.small
    if (this.part === FramePart.Header || !this.lastBlock) {
      this.part = FramePart.Block
      this.blocks++
      this.need = 3
      this.end = -1
    } else {
      // After the last block of a frame with a checksum (without one, the frame ended).
      this.part = FramePart.Checksum
      this.need = 4
      this.end = this.start + 4
      this.last = true
    }
  }

  /** Acts on the current part's fields: all of them, or the first bytes of the magic. */
  private onField(): void {
    const f = this.field
    const have = this.have
    switch (this.part) {
      case FramePart.Header: {
        if (have === 4) {
          if (!couldStartFrame(f, 4)) return this.badMagic()
          const magic = readU32LE(f, 0)
          if (magic === ZSTD_MAGIC) {
            this.need = 5
          } else {
            this.part = FramePart.Skippable
            this.skippable = magic
            this.need = SKIPPABLE_HEADER_SIZE
          }
          return
        }
        if (have === 5) {
          const descriptor = f[4]!
          if (descriptor & DESCRIPTOR_RESERVED) return this.invalid(`frame header descriptor 0x${descriptor.toString(16)} has the reserved bit 3 set`, 4)
          this.checksumFlag = (descriptor & 0x04) !== 0
          this.need = 4 + frameHeaderLength(descriptor)
          if (have < this.need) return
        }
        this.headerRead = true
        this.end = this.need
        return
      }
      case FramePart.Skippable:
        this.end = SKIPPABLE_HEADER_SIZE + readU32LE(f, 4)
        this.last = true
        return
      case FramePart.Block: {
        const h = f[0]! | (f[1]! << 8) | (f[2]! << 16)
        const type = (h >> 1) & 3
        if (type === 3) return this.invalid('block type 3 is reserved (RFC 8878 section 3.1.1.2.2)', this.start)
        this.lastBlock = (h & 1) === 1
        this.last = this.lastBlock && !this.checksumFlag
        // An RLE block stores one byte whatever its regenerated size (section 3.1.1.2.2).
        this.end = this.start + 3 + (type === 1 ? 1 : h >>> 3)
        return
      }
      default:
        this.checksum = readU32LE(f, 0)
    }
  }

  private badMagic(): void {
    this.invalid(`bytes ${hexBytes(this.field, this.have)} cannot start a zstd frame (magic 28 b5 2f fd) or a skippable frame (5? 2a 4d 18)`, 0)
  }

  private invalid(message: string, offset: number): void {
    this.error = { message, offset }
  }
}

/** Whether the first `length` (at most 4) bytes of `b` can begin a zstd or skippable frame. */
function couldStartFrame(b: Uint8Array, length: number): boolean {
  let frame = true
  let skippable = true
  for (let i = 0; i < length; i++) {
    const x = b[i]!
    if (x !== ((ZSTD_MAGIC >>> (8 * i)) & 0xff)) frame = false
    if (i === 0 ? (x & 0xf0) !== (SKIPPABLE_MAGIC & 0xf0) : x !== ((SKIPPABLE_MAGIC >>> (8 * i)) & 0xff)) skippable = false
  }
  return frame || skippable
}
