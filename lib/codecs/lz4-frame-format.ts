/**
 * The LZ4 frame format (lz4/lz4 `doc/lz4_Frame_format.md`, v1.6.x), in one place: its
 * numbers, the frame descriptor read and written, the block size word, the messages of
 * its checks (sizes, checksums) and a walk over the frames of a whole buffer. Every
 * reader and writer of frames takes them from here: the span decoder and encoder
 * (lz4-frame-decode.ts, lz4-frame-encode.ts), the wasm engine (lz4-wasm.ts), parallel
 * decoding (lib/parallel/lz4-cutter.ts, lz4-blocks-job.ts, lz4-frames.ts), block mode
 * (lib/parallel/blocks.ts) and the CLI's `inspect`.
 *
 * Frame: magic 04 22 4D 18, descriptor (FLG, BD, optional content size and dictionary
 * ID, header checksum), blocks (4-byte size, high bit = stored uncompressed, optional
 * xxHash32 block checksum), end mark 0, optional xxHash32 content checksum. Skippable
 * frames (magic 0x184D2A50..5F, then a 4-byte length) are skipped whole.
 */
import { readU32LE, writeU32LE } from '../endian.js'
import type { ErrorCode } from '../errors.js'
import { xxh32 } from './xxhash32.js'

/** Frame magic number 0x184D2204, little-endian ("General Structure"). */
export const MAGIC = 0x184d2204
/** Skippable frames: 0x184D2A50..0x184D2A5F ("Skippable Frames"). */
export const SKIPPABLE_MASK = 0xfffffff0
export const SKIPPABLE_MAGIC = 0x184d2a50
/** The legacy frame ("Legacy frame"): recognised only to say it is not supported. */
export const LEGACY_MAGIC = 0x184c2102

/** FLG bits ("FLG byte"). */
export const FLG_VERSION_MASK = 0xc0
export const FLG_VERSION_01 = 0x40
export const FLG_BLOCK_INDEPENDENCE = 0x20
export const FLG_BLOCK_CHECKSUM = 0x10
export const FLG_CONTENT_SIZE = 0x08
export const FLG_CONTENT_CHECKSUM = 0x04
export const FLG_RESERVED = 0x02
export const FLG_DICT_ID = 0x01
/** BD bits ("BD byte"): bit 7 and bits 3-0 reserved, must be 0. */
export const BD_RESERVED = 0x8f

/** Block Maximum Size by BD id 4..7: 64 KB, 256 KB, 1 MB, 4 MB ("Block Maximum Size"). */
export const BLOCK_MAX_BY_ID = [0, 0, 0, 0, 0x10000, 0x40000, 0x100000, 0x400000] as const
/** Block size word: the high bit says "stored uncompressed", the rest is the size ("Block Size"). */
export const BLOCK_UNCOMPRESSED = 0x80000000
export const BLOCK_SIZE_MASK = 0x7fffffff
/** Linked blocks reach back at most 64 KiB ("Block Independence flag"). */
export const WINDOW = 0x10000
/** The longest header: magic, FLG, BD, content size, dictionary ID, header checksum. */
export const MAX_HEADER_LENGTH = 4 + 2 + 8 + 4 + 1

/** Whether `magic` (a little-endian u32) opens a skippable frame. */
export function isSkippable(magic: number): boolean {
  return (magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC
}

/** Bytes of the descriptor (FLG to the header checksum) that its FLG byte announces. */
export function descriptorLength(flg: number): number {
  return 2 + (flg & FLG_CONTENT_SIZE ? 8 : 0) + (flg & FLG_DICT_ID ? 4 : 0) + 1
}

/** The BD id of a Block Maximum Size (4..7), or -1 when it is not one of the four. */
export function blockIdOf(blockMax: number): number {
  return BLOCK_MAX_BY_ID.indexOf(blockMax as (typeof BLOCK_MAX_BY_ID)[number], 4)
}

/** The header checksum: the second byte of xxHash32 of the descriptor `bytes[start, end)` without it ("Header Checksum"). */
export function headerChecksum(bytes: Uint8Array, start: number, end: number): number {
  return (xxh32(bytes, start, end) >>> 8) & 0xff
}

/** What a frame descriptor says. */
export interface Lz4Descriptor {
  /** The FLG byte. */
  readonly flags: number
  /** Block Maximum Size, from BD. */
  readonly blockMax: number
  /** The declared content size, or -1 when FLG has no Content Size flag. */
  readonly contentSize: number
  /** The dictionary ID, or -1 when FLG has no Dictionary ID flag. */
  readonly dictionaryId: number
  /** The header checksum byte. */
  readonly headerChecksum: number
  /** The descriptor's length in bytes, FLG to the header checksum. */
  readonly length: number
}

/** Why a descriptor is refused: the error code, the message, and the offset from its FLG byte. */
export interface Lz4Problem {
  readonly code: ErrorCode
  readonly message: string
  readonly at: number
}

/**
 * Checks FLG and BD, the first two bytes of a descriptor, which say how long the rest
 * is: the version (01), the reserved bits (0) and the block maximum size id (4..7).
 * Null when they are valid.
 */
export function checkFlags(flg: number, bd: number): Lz4Problem | null {
  if ((flg & FLG_VERSION_MASK) !== FLG_VERSION_01) return { code: 'INVALID_DATA', message: `frame version ${flg >>> 6}, expected 1 (FLG ${flg})`, at: 0 }
  if ((flg & FLG_RESERVED) !== 0 || (bd & BD_RESERVED) !== 0) return { code: 'INVALID_DATA', message: `reserved bits set in the frame descriptor (FLG ${flg}, BD ${bd})`, at: 0 }
  const id = (bd >>> 4) & 7
  if (id < 4) return { code: 'INVALID_DATA', message: `block maximum size id ${id} is undefined (4..7 allowed)`, at: 1 }
  return null
}

/** Whether `r` (from `readDescriptor`) is a problem. */
export function isProblem(r: Lz4Descriptor | Lz4Problem): r is Lz4Problem {
  return 'message' in r
}

/**
 * Reads the descriptor whose FLG byte is `bytes[at]` (all `descriptorLength(bytes[at])`
 * bytes of it present): `checkFlags`, the header checksum, and a content size we can
 * count (below 2^53: sizes are counted in doubles). A dictionary ID is returned, not
 * judged: no decoder here has dictionaries, but the CLI lists it.
 */
export function readDescriptor(bytes: Uint8Array, at: number): Lz4Descriptor | Lz4Problem {
  const flags = bytes[at]!
  const bd = bytes[at + 1]!
  const bad = checkFlags(flags, bd)
  if (bad !== null) return bad
  const length = descriptorLength(flags)
  const stored = bytes[at + length - 1]!
  const computed = headerChecksum(bytes, at, at + length - 1)
  if (computed !== stored) return { code: 'CHECKSUM_MISMATCH', message: `header checksum ${stored} does not match the descriptor's ${computed}`, at: length - 1 }
  let contentSize = -1
  if (flags & FLG_CONTENT_SIZE) {
    const low = readU32LE(bytes, at + 2)
    const high = readU32LE(bytes, at + 6)
    // Content size is a u64 ("Content Size").
    if (high >= 0x200000) return { code: 'UNSUPPORTED', message: `content size ${high} * 2^32 + ${low} exceeds 2^53`, at: 2 }
    contentSize = high * 0x100000000 + low
  }
  const dictionaryId = flags & FLG_DICT_ID ? readU32LE(bytes, at + length - 5) : -1
  return { flags, blockMax: BLOCK_MAX_BY_ID[(bd >>> 4) & 7]!, contentSize, dictionaryId, headerChecksum: stored, length }
}

/**
 * Writes a frame header (magic and descriptor) at `out[at]`; returns its end. FLG is
 * `flags` with the version set, and the Content Size flag when `contentSize >= 0`.
 * `out` has room for `MAX_HEADER_LENGTH` bytes from `at`.
 */
export function writeFrameHeader(out: Uint8Array, at: number, flags: number, blockMax: number, contentSize: number): number {
  writeU32LE(out, at, MAGIC)
  const d = at + 4
  out[d] = flags | FLG_VERSION_01 | (contentSize >= 0 ? FLG_CONTENT_SIZE : 0)
  out[d + 1] = blockIdOf(blockMax) << 4
  let o = d + 2
  if (contentSize >= 0) {
    writeU32LE(out, o, contentSize >>> 0)
    writeU32LE(out, o + 4, Math.floor(contentSize / 0x100000000))
    o += 8
  }
  out[o] = headerChecksum(out, d, o)
  return o + 1
}

/** `0x`-prefixed 8-digit hex, as the messages show checksums. */
export const hex32 = (v: number): string => '0x' + (v >>> 0).toString(16).padStart(8, '0')

/** A magic number that opens neither a frame nor a skippable frame. */
export const badMagic = (magic: number): string => `bad magic ${hex32(magic)}, expected 0x184d2204 or a skippable frame 0x184d2a5X`
/** The legacy frame's magic number. */
export const LEGACY_UNSUPPORTED = 'legacy LZ4 frame (magic 0x184c2102) is not supported'

/** "Block Size shall never be larger than Block Maximum Size". */
export const blockTooLarge = (size: number, blockMax: number): string => `block size ${size} exceeds the frame's maximum ${blockMax}`
/** The end mark came after `decoded` bytes where the header declared `declared`. */
export const contentSizeMismatch = (decoded: number, declared: number): string => `frame decoded to ${decoded} bytes but its header declares ${declared}`
/** A block's output goes past the declared content size. */
export const pastContentSize = (declared: number): string => `block decodes past the declared content size ${declared}`
/** A block checksum (of a compressed or a stored block) that does not match. */
export const blockChecksumMismatch = (stored: number, actual: number, storedBlock = false): string =>
  `block checksum ${hex32(stored)} does not match the ${storedBlock ? 'stored ' : ''}block's ${hex32(actual)}`
/** The content checksum after the end mark that does not match. */
export const contentChecksumMismatch = (stored: number, actual: number): string => `content checksum ${hex32(stored)} does not match the decoded content's ${hex32(actual)}`

/** One frame of a whole buffer, as `walkFrame` read it. */
export interface Lz4FrameWalk {
  /** Offset of its magic number. */
  readonly offset: number
  /** Offset after it (or after what was read of it, when `problem` is set). */
  readonly end: number
  /** The descriptor; null for a skippable frame (or when it could not be read). */
  readonly descriptor: Lz4Descriptor | null
  /** Skippable frames: the low nibble of the magic number and the declared data length. */
  readonly skippable: { readonly variant: number; readonly dataLength: number } | null
  /** Blocks up to the end mark, and how many of them are stored uncompressed. */
  readonly blocks: number
  readonly storedBlocks: number
  /** The stored content checksum, or -1. */
  readonly contentChecksum: number
  /** What is wrong with the frame at byte `offset` of the buffer, or null; the fields above hold what was read before it. */
  readonly problem: { readonly message: string; readonly offset: number } | null
}

/**
 * Walks the frame at `bytes[at]` (`at < bytes.length`) from its magic number to its
 * end without decoding: the descriptor (read and checked as the decoder reads it), each
 * block's size word (against the Block Maximum Size), the end mark and the content
 * checksum. The next frame starts at `end` when there is no `problem`.
 */
export function walkFrame(bytes: Uint8Array, at: number): Lz4FrameWalk {
  const n = bytes.length
  let blocks = 0
  let storedBlocks = 0
  let contentChecksum = -1
  let descriptor: Lz4Descriptor | null = null
  let skippable: Lz4FrameWalk['skippable'] = null
  const walk = (end: number, message?: string, offset = end): Lz4FrameWalk => ({
    offset: at,
    end: Math.min(end, n),
    descriptor,
    skippable,
    blocks,
    storedBlocks,
    contentChecksum,
    problem: message === undefined ? null : { message, offset },
  })
  if (at + 4 > n) return walk(n, 'truncated frame magic', at)
  const magic = readU32LE(bytes, at)
  if (isSkippable(magic)) {
    if (at + 8 > n) return walk(n, 'truncated skippable frame header', at)
    const dataLength = readU32LE(bytes, at + 4)
    skippable = { variant: magic & 15, dataLength }
    const end = at + 8 + dataLength
    return end > n ? walk(end, `skippable frame declares ${dataLength} bytes, ${n - at - 8} remain`, at) : walk(end)
  }
  if (magic === LEGACY_MAGIC) return walk(at, LEGACY_UNSUPPORTED, at)
  if (magic !== MAGIC) return walk(at, badMagic(magic), at)
  if (at + 6 > n || at + 4 + descriptorLength(bytes[at + 4]!) > n) return walk(n, 'truncated frame descriptor', at)
  const d = readDescriptor(bytes, at + 4)
  if (isProblem(d)) return walk(at, d.message, at + 4 + d.at)
  descriptor = d
  const checksumLength = d.flags & FLG_BLOCK_CHECKSUM ? 4 : 0
  let pos = at + 4 + d.length
  for (;;) {
    if (pos + 4 > n) return walk(n, 'truncated block size', pos)
    const word = readU32LE(bytes, pos)
    if (word === 0) break
    const size = word & BLOCK_SIZE_MASK
    if (size > d.blockMax) return walk(pos, blockTooLarge(size, d.blockMax), pos)
    blocks++
    if (word & BLOCK_UNCOMPRESSED) storedBlocks++
    if (pos + 4 + size + checksumLength > n) return walk(n, `block ${blocks} of ${size} bytes runs past the end`, pos)
    pos += 4 + size + checksumLength
  }
  pos += 4
  if (d.flags & FLG_CONTENT_CHECKSUM) {
    if (pos + 4 > n) return walk(n, 'truncated content checksum', pos)
    contentChecksum = readU32LE(bytes, pos)
    pos += 4
  }
  return walk(pos)
}
