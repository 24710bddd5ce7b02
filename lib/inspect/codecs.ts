/**
 * `inspect` for compressed files: what the headers say, read without decoding (as
 * `gzip -l` and `zstd -lv` do). Each reader walks its format's framing and returns a
 * plain JSON-able object; a file cut short or corrupt framing is reported in `error`
 * with the offset, alongside what was read before it.
 *
 * - gzip: RFC 1952 section 2.3 (the first member's header, the last member's trailer).
 * - zlib: RFC 1950 section 2.2.
 * - zstd: RFC 8878 section 3.1 (frames, skippable frames, blocks, checksums), and the seek
 *   table of a seekable archive (read by lib/codecs/zstd-seek-table.ts).
 * - LZ4 frame: lz4_Frame_format.md (FLG/BD flags, blocks, checksums), walked by
 *   lib/codecs/lz4-frame-format.ts with the decoder's checks (header checksum, block sizes).
 * - RFC 9842 dcz (section 5) and dcb (section 4): the dictionary hash, then the stream.
 * - brotli: RFC 7932 section 9.1 (window size; brotli has no other header).
 */
import { readU32LE } from '../endian.js'
import { CodecError } from '../errors.js'
import { FLG_BLOCK_CHECKSUM, FLG_BLOCK_INDEPENDENCE, FLG_CONTENT_CHECKSUM, FLG_CONTENT_SIZE, FLG_DICT_ID, walkFrame } from '../codecs/lz4-frame-format.js'
import { walkZstdFrames } from '../codecs/zstd-frame-list.js'
import { parseSeekFooter, parseSeekTable, SEEKABLE_MAGIC, SEEKABLE_MAX_FRAME_SIZE, SEEKABLE_MAX_FRAMES, SEEK_FOOTER_SIZE } from '../codecs/zstd-seek-table.js'
import { hashHex, transportMagic, transportHeaderLength } from '../dictionary-lookup.js'
import { ratioOf } from '../ratio.js'

const hex = (n: number, width = 8): string => n.toString(16).padStart(width, '0')

// ---------------------------------------------------------------------------------------
// gzip

/** RFC 1952 section 2.3.1, OS. */
const GZIP_OS: Readonly<Record<number, string>> = {
  0: 'FAT', 1: 'Amiga', 2: 'VMS', 3: 'Unix', 4: 'VM/CMS', 5: 'Atari TOS', 6: 'HPFS', 7: 'Macintosh', 8: 'Z-System',
  9: 'CP/M', 10: 'TOPS-20', 11: 'NTFS', 12: 'QDOS', 13: 'Acorn RISCOS', 255: 'unknown',
}

/** A gzip file (RFC 1952): its first member's header and its last member's trailer. */
export interface GzipInfo {
  /** The kind of file. */
  kind: 'gzip'
  /** The file's size in bytes. */
  compressedSize: number
  /** CM: 8 is deflate, the only method defined. */
  method: number
  /** FLG's bits: FTEXT, FHCRC, FEXTRA, FNAME, FCOMMENT. */
  flags: {
    /** FTEXT: the content is probably text. */
    text: boolean
    /** FHCRC: a CRC-16 of the header follows it. */
    headerCrc: boolean
    /** FEXTRA: an extra field is present. */
    extra: boolean
    /** FNAME: an original file name is present. */
    name: boolean
    /** FCOMMENT: a comment is present. */
    comment: boolean
  }
  /** MTIME, seconds since 1970 (0: not set). */
  mtime: number
  /** MTIME as ISO 8601 text; null when not set. */
  mtimeIso: string | null
  /** XFL: 2 maximum compression, 4 fastest. */
  extraFlags: number
  /** XFL in words. */
  extraFlagsText: string
  /** OS, the file system the file was compressed on. */
  os: number
  /** OS in words (RFC 1952 section 2.3.1). */
  osName: string
  /** FNAME, the original file name (Latin-1); null without one. */
  name: string | null
  /** FCOMMENT (Latin-1); null without one. */
  comment: string | null
  /** XLEN, the length of the extra field; null without one. */
  extraLength: number | null
  /** The header's length in bytes, up to the compressed data. */
  headerLength: number
  /** The last member's CRC-32 of its content, as 8 hex digits. */
  crc32: string
  /** The last member's ISIZE: its content size mod 2^32. */
  uncompressedSizeMod32: number
  /** ISIZE / compressed size (lib/ratio.ts); null when ISIZE is 0. */
  ratio: number | null
  /** What is wrong with the header or the file's length, when something is. */
  error?: string
}

function latin1Until0(b: Uint8Array, at: number): { text: string; end: number } | null {
  let end = at
  while (end < b.length && b[end] !== 0) end++
  if (end >= b.length) return null
  return { text: String.fromCharCode(...b.subarray(at, end)), end: end + 1 }
}

/** The gzip report on the whole file `b`. */
export function inspectGzip(b: Uint8Array): GzipInfo {
  const flg = b[3]!
  const mtime = readU32LE(b, 4)
  const info: GzipInfo = {
    kind: 'gzip',
    compressedSize: b.length,
    method: b[2]!,
    flags: { text: !!(flg & 1), headerCrc: !!(flg & 2), extra: !!(flg & 4), name: !!(flg & 8), comment: !!(flg & 16) },
    mtime,
    mtimeIso: mtime === 0 ? null : new Date(mtime * 1000).toISOString(),
    extraFlags: b[8]!,
    extraFlagsText: b[8] === 2 ? 'maximum compression' : b[8] === 4 ? 'fastest' : 'none',
    os: b[9]!,
    osName: GZIP_OS[b[9]!] ?? 'unassigned',
    name: null,
    comment: null,
    extraLength: null,
    headerLength: 10,
    crc32: hex(b.length >= 18 ? readU32LE(b, b.length - 8) : 0),
    uncompressedSizeMod32: b.length >= 18 ? readU32LE(b, b.length - 4) : 0,
    ratio: null,
  }
  let at = 10
  if (info.flags.extra) {
    if (at + 2 > b.length) return { ...info, error: `truncated in FEXTRA at byte ${at}` }
    info.extraLength = b[at]! | (b[at + 1]! << 8)
    at += 2 + info.extraLength
  }
  if (info.flags.name) {
    const s = latin1Until0(b, at)
    if (!s) return { ...info, error: `FNAME not terminated (from byte ${at})` }
    info.name = s.text
    at = s.end
  }
  if (info.flags.comment) {
    const s = latin1Until0(b, at)
    if (!s) return { ...info, error: `FCOMMENT not terminated (from byte ${at})` }
    info.comment = s.text
    at = s.end
  }
  if (info.flags.headerCrc) at += 2
  info.headerLength = at
  if (b.length < 18) info.error = `${b.length} bytes are too few for a gzip member (18 at least)`
  info.ratio = ratioOf(info.uncompressedSizeMod32, b.length)
  return info
}

// ---------------------------------------------------------------------------------------
// zlib

/** A zlib stream (RFC 1950): its two header bytes and trailer. */
export interface ZlibInfo {
  /** The kind of file. */
  kind: 'zlib'
  /** The file's size in bytes. */
  compressedSize: number
  /** The window CINFO names: 2^(CINFO + 8) bytes. */
  windowSize: number
  /** FLEVEL: 0 fastest … 3 maximum. */
  level: number
  /** FLEVEL in words. */
  levelText: string
  /** DICTID (Adler-32 of the preset dictionary, 8 hex digits) when FDICT is set; else null. */
  dictionaryId: string | null
  /** The trailer's Adler-32 of the content, as 8 hex digits. */
  adler32: string
}

/** The zlib report on the whole file `b`. */
export function inspectZlib(b: Uint8Array): ZlibInfo {
  const flg = b[1]!
  const fdict = (flg & 0x20) !== 0
  const be32 = (at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0
  return {
    kind: 'zlib',
    compressedSize: b.length,
    windowSize: 2 ** ((b[0]! >> 4) + 8),
    level: flg >> 6,
    levelText: ['fastest', 'fast', 'default', 'maximum'][flg >> 6]!,
    dictionaryId: fdict && b.length >= 6 ? hex(be32(2)) : null,
    adler32: b.length >= 6 ? hex(be32(b.length - 4)) : '',
  }
}

// ---------------------------------------------------------------------------------------
// zstd

/** One frame of a zstd file, as `inspect` lists it. */
export interface ZstdFrameSummary {
  /** Where the frame starts in the file. */
  offset: number
  /** A zstd frame or a skippable frame (RFC 8878 section 3.1.2). */
  type: 'zstd' | 'skippable'
  /** Bytes of the whole frame. */
  compressedSize: number
  /** zstd frames: Window_Size in bytes. */
  windowSize?: number
  /** zstd frames: Dictionary_ID (0: none). */
  dictionaryId?: number
  /** zstd frames: Frame_Content_Size; null when the header does not give it. */
  contentSize?: number | null
  /** zstd frames: Single_Segment_Flag (the window is the content). */
  singleSegment?: boolean
  /** zstd frames: how many blocks the frame holds. */
  blocks?: number
  /** zstd frames: the Content_Checksum (low 32 bits of XXH64, 8 hex digits); null without one. */
  checksum?: string | null
  /** Skippable frames: the magic number's low nibble. */
  variant?: number
  /** Skippable frames: the length of their user data. */
  dataLength?: number
}

/** A zstd file (RFC 8878): every frame, and the seek table of a seekable archive. */
export interface ZstdInfo {
  /** The kind of file. */
  kind: 'zstd'
  /** The file's size in bytes (after the header, in a dcz file). */
  compressedSize: number
  /** Every frame, in order. */
  frames: ZstdFrameSummary[]
  /** How many of them are zstd frames. */
  zstdFrames: number
  /** How many are skippable frames. */
  skippableFrames: number
  /** Sum of the frames' content sizes, or null when a frame does not declare one. */
  decompressedSize: number | null
  /** decompressedSize / compressedSize (lib/ratio.ts); null when unknown. */
  ratio: number | null
  /** Whether every zstd frame ends with a content checksum. */
  checksums: boolean
  /** Where the frames stop making sense, and why (the frames before it are listed). */
  error?: string
  /**
   * A zstd file's seek table when it ends with one (a seekable archive,
   * docs/zstd-archives.md); null when it does not. Absent in a dcz file's inner stream.
   */
  seekable?: SeekableInfo | null
}

/** What a zstd seekable archive's seek table says (docs/zstd-archives.md). */
export interface SeekableInfo {
  /** Frames the seek table lists. */
  frames: number
  /** Whether the table holds each frame's checksum. */
  checksums: boolean
  /** Where the seek table frame starts. */
  tableOffset: number
  /** The seek table frame's size. */
  tableBytes: number
  /** The content size the table adds up to. */
  decompressedSize: number
  /** The content size of its largest frame. */
  largestFrame: number
  /** What is wrong with a table that ends the file but does not hold (then the other fields are 0). */
  error?: string
}

/**
 * Walks the frames of `b` from `start` (lib/codecs/zstd-frame-list.ts, with its frame
 * cap); on corrupt or cut framing, the frames read before it and the error.
 */
export async function inspectZstd(b: Uint8Array, start = 0): Promise<ZstdInfo> {
  const frames: ZstdFrameSummary[] = []
  let error: string | undefined
  try {
    for await (const f of walkZstdFrames(b, {}, start)) {
      const h = f.header
      frames.push(
        h === null
          ? { offset: f.offset, type: 'skippable', compressedSize: f.length, variant: f.skippable & 15, dataLength: f.length - 8 }
          : {
              offset: f.offset,
              type: 'zstd',
              compressedSize: f.length,
              windowSize: h.windowSize,
              dictionaryId: h.dictionaryId,
              contentSize: h.contentSize < 0 ? null : h.contentSize,
              singleSegment: h.windowBytes === 0,
              blocks: f.blocks,
              checksum: f.checksum < 0 ? null : hex(f.checksum),
            },
      )
    }
  } catch (e) {
    if (!(e instanceof CodecError)) throw e
    error = e.message
  }
  const zstdFrames = frames.filter((f) => f.type === 'zstd')
  const sizes = zstdFrames.map((f) => f.contentSize)
  const decompressedSize = sizes.length > 0 && sizes.every((s) => typeof s === 'number') ? (sizes as number[]).reduce((x, y) => x + y, 0) : null
  const info: ZstdInfo = {
    kind: 'zstd',
    compressedSize: b.length - start,
    frames,
    zstdFrames: zstdFrames.length,
    skippableFrames: frames.length - zstdFrames.length,
    decompressedSize,
    ratio: ratioOf(decompressedSize, b.length - start),
    checksums: zstdFrames.length > 0 && zstdFrames.every((f) => f.checksum !== null),
  }
  if (error !== undefined) info.error = error
  return info
}

/**
 * The seek table, read with the library's reader (lib/codecs/zstd-seek-table.ts), when
 * the file ends with the seekable magic; null when it does not (a plain zstd stream).
 */
export function seekableOf(b: Uint8Array): SeekableInfo | null {
  if (b.length < SEEK_FOOTER_SIZE || readU32LE(b, b.length - 4) !== SEEKABLE_MAGIC) return null
  const limits = { maxFrames: SEEKABLE_MAX_FRAMES, maxFrameSize: SEEKABLE_MAX_FRAME_SIZE }
  try {
    const footer = parseSeekFooter(b.subarray(b.length - SEEK_FOOTER_SIZE), b.length, limits)
    const table = parseSeekTable(b.subarray(footer.tableOffset), footer, limits)
    let largestFrame = 0
    for (let i = 0; i < table.count; i++) largestFrame = Math.max(largestFrame, table.offsets[i + 1]! - table.offsets[i]!)
    return { frames: table.count, checksums: table.checksums, tableOffset: footer.tableOffset, tableBytes: footer.tableSize, decompressedSize: table.offsets[table.count]!, largestFrame }
  } catch (error) {
    return { frames: 0, checksums: false, tableOffset: 0, tableBytes: 0, decompressedSize: 0, largestFrame: 0, error: error instanceof Error ? error.message : String(error) }
  }
}


// ---------------------------------------------------------------------------------------
// LZ4 frame

/** One frame of an LZ4 file, as `inspect` lists it. */
export interface Lz4FrameSummary {
  /** Where the frame starts in the file. */
  offset: number
  /** An LZ4 frame or a skippable frame. */
  type: 'lz4' | 'skippable'
  /** Bytes of the whole frame. */
  compressedSize: number
  /** LZ4 frames: the version (FLG bits 7-6; 1 is the only one defined). */
  version?: number
  /** LZ4 frames: FLG's bits. */
  flags?: {
    /** Blocks are compressed independently of each other. */
    blockIndependence: boolean
    /** Each block is followed by its XXH32 checksum. */
    blockChecksum: boolean
    /** The descriptor gives the content size. */
    contentSize: boolean
    /** The frame ends with an XXH32 checksum of the content. */
    contentChecksum: boolean
    /** The descriptor names a dictionary. */
    dictionaryId: boolean
  }
  /** LZ4 frames: the largest block, from BD (64 KiB, 256 KiB, 1 MiB or 4 MiB). */
  blockMaxSize?: number
  /** LZ4 frames: the content size the descriptor gives; null without one. */
  contentSize?: number | null
  /** LZ4 frames: the dictionary ID; null without one. */
  dictionaryId?: number | null
  /** LZ4 frames: the descriptor's checksum byte, as 2 hex digits. */
  headerChecksum?: string
  /** LZ4 frames: how many blocks the frame holds. */
  blocks?: number
  /** LZ4 frames: how many of them are stored uncompressed. */
  uncompressedBlocks?: number
  /** LZ4 frames: the content checksum (XXH32, 8 hex digits); null without one. */
  contentChecksum?: string | null
  /** Skippable frames: the length of their user data. */
  dataLength?: number
}

/** An LZ4 frame file: every frame. */
export interface Lz4Info {
  /** The kind of file. */
  kind: 'lz4'
  /** The file's size in bytes. */
  compressedSize: number
  /** Every frame, in order. */
  frames: Lz4FrameSummary[]
  /** Sum of the frames' content sizes, or null when a frame does not declare one. */
  decompressedSize: number | null
  /** decompressedSize / compressedSize (lib/ratio.ts); null when unknown. */
  ratio: number | null
  /** Where the frames stop making sense, and why (the frames before it are listed). */
  error?: string
}

/** Walks the frames of `b` (lib/codecs/lz4-frame-format.ts reads them, with the decoder's checks). */
export function inspectLz4(b: Uint8Array): Lz4Info {
  const frames: Lz4FrameSummary[] = []
  let error: string | undefined
  for (let at = 0; at < b.length && error === undefined; ) {
    const w = walkFrame(b, at)
    const d = w.descriptor
    if (w.skippable) frames.push({ offset: at, type: 'skippable', compressedSize: w.end - at, dataLength: w.skippable.dataLength })
    else if (d) {
      frames.push({
        offset: at,
        type: 'lz4',
        compressedSize: w.end - at,
        version: d.flags >> 6,
        flags: {
          blockIndependence: !!(d.flags & FLG_BLOCK_INDEPENDENCE),
          blockChecksum: !!(d.flags & FLG_BLOCK_CHECKSUM),
          contentSize: !!(d.flags & FLG_CONTENT_SIZE),
          contentChecksum: !!(d.flags & FLG_CONTENT_CHECKSUM),
          dictionaryId: !!(d.flags & FLG_DICT_ID),
        },
        blockMaxSize: d.blockMax,
        contentSize: d.contentSize < 0 ? null : d.contentSize,
        dictionaryId: d.dictionaryId < 0 ? null : d.dictionaryId,
        headerChecksum: hex(d.headerChecksum, 2),
        blocks: w.blocks,
        uncompressedBlocks: w.storedBlocks,
        contentChecksum: w.contentChecksum < 0 ? null : hex(w.contentChecksum),
      })
    }
    if (w.problem) error = `${w.problem.message} at byte ${w.problem.offset}`
    at = w.end
  }
  const lz4 = frames.filter((f) => f.type === 'lz4')
  const decompressedSize = lz4.length > 0 && lz4.every((f) => typeof f.contentSize === 'number') ? lz4.reduce((s, f) => s + (f.contentSize as number), 0) : null
  const info: Lz4Info = { kind: 'lz4', compressedSize: b.length, frames, decompressedSize, ratio: ratioOf(decompressedSize, b.length) }
  if (error !== undefined) info.error = error
  return info
}

// ---------------------------------------------------------------------------------------
// brotli, RFC 9842

/** A brotli file (RFC 7932): its window, the one thing its header says. */
export interface BrotliInfo {
  /** The kind of file. */
  kind: 'brotli'
  /** The file's size in bytes (after the header, in a dcb file). */
  compressedSize: number
  /** WBITS (RFC 7932 section 9.1); null for large-window brotli's marker. */
  windowBits: number | null
  /** The window in bytes, 2^WBITS - 16; null for large-window brotli. */
  windowSize: number | null
}

/** The brotli report on `b` from `start` (past a dcb header). */
export function inspectBrotli(b: Uint8Array, start = 0): BrotliInfo {
  const x = (b[start] ?? 0) | ((b[start + 1] ?? 0) << 8)
  let wbits: number | null
  if ((x & 1) === 0) wbits = 16
  else if (((x >> 1) & 7) !== 0) wbits = 17 + ((x >> 1) & 7)
  else {
    const m = (x >> 4) & 7
    wbits = m === 0 ? 17 : m === 1 ? null : 8 + m
  }
  return { kind: 'brotli', compressedSize: b.length - start, windowBits: wbits, windowSize: wbits === null ? null : 2 ** wbits - 16 }
}

/** An RFC 9842 dictionary-compressed file: dcz (zstd, section 5) or dcb (brotli, section 4). */
export interface TransportInfo {
  /** The kind of file. */
  kind: 'dcz' | 'dcb'
  /** The file's size in bytes. */
  compressedSize: number
  /** The SHA-256 of the dictionary the body was compressed with, as hex. */
  dictionarySha256: string
  /** The header's length: the magic and the hash. */
  headerLength: number
  /** The stream after the header. */
  inner: ZstdInfo | BrotliInfo
}

/** The dcz or dcb report on the whole file `b`. */
export async function inspectTransport(kind: 'dcz' | 'dcb', b: Uint8Array): Promise<TransportInfo> {
  const length = transportHeaderLength(kind)
  const magic = transportMagic(kind).length
  return {
    kind,
    compressedSize: b.length,
    dictionarySha256: hashHex(b.subarray(magic, length)),
    headerLength: length,
    inner: kind === 'dcz' ? await inspectZstd(b, length) : inspectBrotli(b, length),
  }
}
