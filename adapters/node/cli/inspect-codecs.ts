/**
 * `inspect` for compressed files: what the headers say, read without decoding (as
 * `gzip -l` and `zstd -lv` do). Each reader walks its format's framing and returns a
 * plain JSON-able object; a file cut short or corrupt framing is reported in `error`
 * with the offset, alongside what was read before it.
 *
 * - gzip: RFC 1952 section 2.3 (the first member's header, the last member's trailer).
 * - zlib: RFC 1950 section 2.2.
 * - zstd: RFC 8878 section 3.1 (frames, skippable frames, blocks, checksums).
 * - LZ4 frame: lz4_Frame_format.md (FLG/BD flags, blocks, checksums), walked by
 *   lib/codecs/lz4-frame-format.ts with the decoder's checks (header checksum, block sizes).
 * - RFC 9842 dcz (section 5) and dcb (section 4): the dictionary hash, then the stream.
 * - brotli: RFC 7932 section 9.1 (window size; brotli has no other header).
 */
import { readU32LE } from '../../../lib/endian.js'
import { FLG_BLOCK_CHECKSUM, FLG_BLOCK_INDEPENDENCE, FLG_CONTENT_CHECKSUM, FLG_CONTENT_SIZE, FLG_DICT_ID, walkFrame } from '../../../lib/codecs/lz4-frame-format.js'
import { CodecError } from '../../../lib/errors.js'
import { walkZstdFrames } from '../../../lib/codecs/zstd-frame-list.js'
import { hashHex, transportMagic, transportHeaderLength } from '../../../lib/dictionary-lookup.js'

const hex = (n: number, width = 8): string => n.toString(16).padStart(width, '0')
const hexBytes = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ')

// ---------------------------------------------------------------------------------------
// gzip

/** RFC 1952 section 2.3.1, OS. */
const GZIP_OS: Readonly<Record<number, string>> = {
  0: 'FAT', 1: 'Amiga', 2: 'VMS', 3: 'Unix', 4: 'VM/CMS', 5: 'Atari TOS', 6: 'HPFS', 7: 'Macintosh', 8: 'Z-System',
  9: 'CP/M', 10: 'TOPS-20', 11: 'NTFS', 12: 'QDOS', 13: 'Acorn RISCOS', 255: 'unknown',
}

export interface GzipInfo {
  kind: 'gzip'
  compressedSize: number
  method: number
  flags: { text: boolean; headerCrc: boolean; extra: boolean; name: boolean; comment: boolean }
  /** MTIME as seconds since 1970 (0: not set), and as ISO text. */
  mtime: number
  mtimeIso: string | null
  /** XFL: 2 maximum compression, 4 fastest. */
  extraFlags: number
  extraFlagsText: string
  os: number
  osName: string
  name: string | null
  comment: string | null
  extraLength: number | null
  headerLength: number
  /** The last member's trailer: CRC-32 and ISIZE (its size mod 2^32). */
  crc32: string
  uncompressedSizeMod32: number
  ratio: number | null
  error?: string
}

function latin1Until0(b: Uint8Array, at: number): { text: string; end: number } | null {
  let end = at
  while (end < b.length && b[end] !== 0) end++
  if (end >= b.length) return null
  return { text: String.fromCharCode(...b.subarray(at, end)), end: end + 1 }
}

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
  info.ratio = info.uncompressedSizeMod32 > 0 ? round(b.length / info.uncompressedSizeMod32) : null
  return info
}

// ---------------------------------------------------------------------------------------
// zlib

export interface ZlibInfo {
  kind: 'zlib'
  compressedSize: number
  /** CINFO: window 2^(CINFO + 8). */
  windowSize: number
  /** FLEVEL: 0 fastest … 3 maximum. */
  level: number
  levelText: string
  /** DICTID (Adler-32 of the preset dictionary) when FDICT is set. */
  dictionaryId: string | null
  adler32: string
}

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

/** One frame as `inspect` reports it. */
export interface ZstdInspectFrame {
  offset: number
  type: 'zstd' | 'skippable'
  /** Bytes of the whole frame. */
  compressedSize: number
  /** zstd frames. */
  windowSize?: number
  dictionaryId?: number
  contentSize?: number | null
  singleSegment?: boolean
  blocks?: number
  /** The Content_Checksum (low 32 bits of XXH64), when the frame has one. */
  checksum?: string | null
  /** Skippable frames: the magic's low nibble and the user data length. */
  variant?: number
  dataLength?: number
}

export interface ZstdInfo {
  kind: 'zstd'
  compressedSize: number
  frames: ZstdInspectFrame[]
  zstdFrames: number
  skippableFrames: number
  /** Sum of the frames' content sizes, or null when a frame does not declare one. */
  decompressedSize: number | null
  ratio: number | null
  checksums: boolean
  error?: string
}

/**
 * Walks the frames of `b` from `start` (lib/codecs/zstd-frame-list.ts, with its frame
 * cap); on corrupt or cut framing, the frames read before it and the error.
 */
export async function inspectZstd(b: Uint8Array, start = 0): Promise<ZstdInfo> {
  const frames: ZstdInspectFrame[] = []
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
    ratio: decompressedSize ? round((b.length - start) / decompressedSize) : null,
    checksums: zstdFrames.length > 0 && zstdFrames.every((f) => f.checksum !== null),
  }
  if (error !== undefined) info.error = error
  return info
}

// ---------------------------------------------------------------------------------------
// LZ4 frame

export interface Lz4FrameInfo {
  offset: number
  type: 'lz4' | 'skippable'
  compressedSize: number
  version?: number
  flags?: { blockIndependence: boolean; blockChecksum: boolean; contentSize: boolean; contentChecksum: boolean; dictionaryId: boolean }
  blockMaxSize?: number
  contentSize?: number | null
  dictionaryId?: number | null
  headerChecksum?: string
  blocks?: number
  uncompressedBlocks?: number
  contentChecksum?: string | null
  dataLength?: number
}

export interface Lz4Info {
  kind: 'lz4'
  compressedSize: number
  frames: Lz4FrameInfo[]
  decompressedSize: number | null
  ratio: number | null
  error?: string
}

/** Walks the frames of `b` (lib/codecs/lz4-frame-format.ts reads them, with the decoder's checks). */
export function inspectLz4(b: Uint8Array): Lz4Info {
  const frames: Lz4FrameInfo[] = []
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
  const info: Lz4Info = { kind: 'lz4', compressedSize: b.length, frames, decompressedSize, ratio: decompressedSize ? round(b.length / decompressedSize) : null }
  if (error !== undefined) info.error = error
  return info
}

// ---------------------------------------------------------------------------------------
// brotli, RFC 9842

export interface BrotliInfo {
  kind: 'brotli'
  compressedSize: number
  /** WBITS (RFC 7932 section 9.1); null for large-window brotli's marker. */
  windowBits: number | null
  windowSize: number | null
}

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

export interface TransportInfo {
  kind: 'dcz' | 'dcb'
  compressedSize: number
  /** RFC 9842: the SHA-256 of the dictionary the body was compressed with. */
  dictionarySha256: string
  headerLength: number
  /** The stream after the header. */
  inner: ZstdInfo | BrotliInfo
}

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

function round(x: number): number {
  return Math.round(x * 10000) / 10000
}
