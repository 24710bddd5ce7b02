/**
 * The zstd seekable format's seek table (facebook/zstd
 * contrib/seekable_format/zstd_seekable_compression_format.md, version 0.1.0): after the
 * archive's independent frames, one skippable frame
 *
 *     Skippable_Magic_Number 0x184D2A5E | Frame_Size | Seek_Table_Entries | Seek_Table_Footer
 *     4 bytes                           | 4 bytes    | 8 or 12 bytes each | 9 bytes
 *
 * with one entry per frame (`Compressed_Size`, `Decompressed_Size`, and with the
 * descriptor's Checksum_Flag the low 32 bits of the XXH64 of the frame's content), and
 * the footer `Number_Of_Frames` (4 bytes), `Seek_Table_Descriptor` (1 byte: bit 7
 * Checksum_Flag, bits 6-2 reserved and zero, bits 1-0 unused),
 * `Seekable_Magic_Number` 0x8F92EAB1, the last 4 bytes of the file.
 *
 * Writing (`writeSeekTable`) and reading (`parseSeekFooter`, `parseSeekTable`) live
 * here; the reader checks a hostile table before it allocates anything for it.
 */
import { CodecError } from '../errors.js'
import { readU32LE, writeU32LE } from '../endian.js'
import { SKIPPABLE_HEADER_SIZE, SKIPPABLE_MAGIC } from './zstd-frame-format.js'

const FORMAT = 'zstd'

/** Skippable_Magic_Number of the seek table frame, 0x184D2A5E (a zstd skippable frame, RFC 8878 §3.1.2). */
export const SEEK_TABLE_MAGIC = SKIPPABLE_MAGIC + 0xe
/** Seekable_Magic_Number, the file's last 4 bytes. */
export const SEEKABLE_MAGIC = 0x8f92eab1
/** Bytes of Seek_Table_Footer. */
export const SEEK_FOOTER_SIZE = 9
/** Seek_Table_Descriptor: Checksum_Flag. */
const CHECKSUM_FLAG = 0x80
/** Seek_Table_Descriptor: Reserved_Bits, which a compliant decoder checks are zero. */
const RESERVED_BITS = 0x7c

/**
 * `ZSTD_SEEKABLE_MAXFRAMES` of the reference implementation (contrib/seekable_format/
 * zstd_seekable.h, 1.5.7): 0x8000000 frames, the most its writer produces and its reader
 * accepts.
 */
export const SEEKABLE_MAX_FRAMES = 0x8000000
/**
 * `ZSTD_SEEKABLE_MAX_FRAME_DECOMPRESSED_SIZE` of the reference (zstd_seekable.h, 1.5.7):
 * 1 GiB, so that a frame's compressed size always fits the table's 32-bit field.
 */
export const SEEKABLE_MAX_FRAME_SIZE = 0x40000000

/** The frame list an encoder collects: sizes (and checksums) of each frame, in order. */
export class FrameLog {
  /** [compressedSize, decompressedSize, checksum] per frame. */
  private entries = new Uint32Array(3 * 64)
  count = 0

  add(compressedSize: number, decompressedSize: number, checksum: number): void {
    if (3 * (this.count + 1) > this.entries.length) {
      const grown = new Uint32Array(this.entries.length * 2)
      grown.set(this.entries)
      this.entries = grown
    }
    const at = 3 * this.count++
    this.entries[at] = compressedSize
    this.entries[at + 1] = decompressedSize
    this.entries[at + 2] = checksum
  }

  compressedSize(i: number): number {
    return this.entries[3 * i]!
  }

  decompressedSize(i: number): number {
    return this.entries[3 * i + 1]!
  }

  checksum(i: number): number {
    return this.entries[3 * i + 2]!
  }

  clear(): void {
    this.count = 0
  }
}

/** The seek table frame for `frames`, with their checksums when `checksums`. */
export function writeSeekTable(frames: FrameLog, checksums: boolean): Uint8Array {
  const entrySize = checksums ? 12 : 8
  const frameSize = frames.count * entrySize + SEEK_FOOTER_SIZE
  const out = new Uint8Array(SKIPPABLE_HEADER_SIZE + frameSize)
  writeU32LE(out, 0, SEEK_TABLE_MAGIC)
  writeU32LE(out, 4, frameSize)
  let at = SKIPPABLE_HEADER_SIZE
  for (let i = 0; i < frames.count; i++) {
    writeU32LE(out, at, frames.compressedSize(i))
    writeU32LE(out, at + 4, frames.decompressedSize(i))
    if (checksums) writeU32LE(out, at + 8, frames.checksum(i))
    at += entrySize
  }
  writeU32LE(out, at, frames.count)
  out[at + 4] = checksums ? CHECKSUM_FLAG : 0
  writeU32LE(out, at + 5, SEEKABLE_MAGIC)
  return out
}

/** What the footer says, checked against the archive's size and the limits. */
export interface SeekFooter {
  frames: number
  checksums: boolean
  /** Bytes of the whole seek table frame (skippable header, entries, footer). */
  tableSize: number
  /** Archive offset where the seek table frame starts (= the frames' compressed total). */
  tableOffset: number
}

/** Limits on a seek table from an untrusted archive (options of `openZstdSeekable`). */
export interface SeekTableLimits {
  /** Most frames (entries) accepted. */
  maxFrames: number
  /** Largest `Decompressed_Size` of one frame accepted. */
  maxFrameSize: number
}

/**
 * Reads the footer in `tail`, the last bytes of an archive of `archiveSize` bytes (at
 * least the 9 of the footer). Throws `UNSUPPORTED` when the archive has no seek table,
 * `INVALID_DATA` or `LIMIT_EXCEEDED` for a footer that cannot be right or is too large,
 * all before anything is allocated for the table.
 */
export function parseSeekFooter(tail: Uint8Array, archiveSize: number, limits: SeekTableLimits): SeekFooter {
  const n = tail.length
  const footerAt = archiveSize - SEEK_FOOTER_SIZE
  if (n < SEEK_FOOTER_SIZE || readU32LE(tail, n - 4) !== SEEKABLE_MAGIC) {
    throw new CodecError(
      'UNSUPPORTED',
      FORMAT,
      `no seek table: the archive does not end with the seekable magic B1 EA 92 8F (zstd seekable format), so it can only be decoded whole; write a seekable one with zstdEncode({ seekable: true }), encode('zstd', data, { seekable: true }) or the reference tool (contrib/seekable_format)`,
      Math.max(0, archiveSize - 4),
    )
  }
  const frames = readU32LE(tail, n - 9)
  const descriptor = tail[n - 5]!
  if (descriptor & RESERVED_BITS) {
    throw new CodecError('INVALID_DATA', FORMAT, `seek table descriptor 0x${descriptor.toString(16)} has reserved bits (6-2) set`, footerAt + 4)
  }
  if (frames > limits.maxFrames) {
    throw new CodecError('LIMIT_EXCEEDED', FORMAT, `seek table lists ${frames} frames, more than maxFrames ${limits.maxFrames}`, footerAt)
  }
  const checksums = (descriptor & CHECKSUM_FLAG) !== 0
  const tableSize = SKIPPABLE_HEADER_SIZE + frames * (checksums ? 12 : 8) + SEEK_FOOTER_SIZE
  if (tableSize > archiveSize) {
    throw new CodecError('INVALID_DATA', FORMAT, `seek table of ${frames} frames needs ${tableSize} bytes, more than the archive's ${archiveSize}`, footerAt)
  }
  return { frames, checksums, tableSize, tableOffset: archiveSize - tableSize }
}

/** The frames of a seek table: sizes and offsets in the archive and in the content. */
export interface SeekTable {
  readonly checksums: boolean
  readonly count: number
  /** Archive offset of frame i (compressedOffsets[count] is the table's offset). */
  readonly compressedOffsets: Float64Array
  /** Content offset of frame i (offsets[count] is the content size). */
  readonly offsets: Float64Array
  /** Checksum of frame i's content (low 32 bits of XXH64), when `checksums`. */
  readonly checksumValues: Uint32Array | null
}

/**
 * Reads the whole seek table frame `table` (`footer.tableSize` bytes at
 * `footer.tableOffset`). The frames' compressed sizes must add up to the table's offset
 * (the format lays the frames end to end from the archive's first byte).
 */
export function parseSeekTable(table: Uint8Array, footer: SeekFooter, limits: SeekTableLimits): SeekTable {
  const base = footer.tableOffset
  const magic = readU32LE(table, 0)
  if (magic !== SEEK_TABLE_MAGIC) {
    throw new CodecError('INVALID_DATA', FORMAT, `seek table frame starts with 0x${magic.toString(16).padStart(8, '0')}, expected the skippable magic 0x184d2a5e`, base)
  }
  const frameSize = readU32LE(table, 4)
  if (frameSize !== footer.tableSize - SKIPPABLE_HEADER_SIZE) {
    throw new CodecError('INVALID_DATA', FORMAT, `seek table Frame_Size ${frameSize} does not match its ${footer.frames} entries (${footer.tableSize - SKIPPABLE_HEADER_SIZE} bytes)`, base + 4)
  }
  const count = footer.frames
  const entrySize = footer.checksums ? 12 : 8
  const compressedOffsets = new Float64Array(count + 1)
  const offsets = new Float64Array(count + 1)
  const checksumValues = footer.checksums ? new Uint32Array(count) : null
  let compressed = 0
  let content = 0
  for (let i = 0, at = SKIPPABLE_HEADER_SIZE; i < count; i++, at += entrySize) {
    const cSize = readU32LE(table, at)
    const dSize = readU32LE(table, at + 4)
    if (dSize > limits.maxFrameSize) {
      throw new CodecError('LIMIT_EXCEEDED', FORMAT, `seek table frame ${i} decompresses to ${dSize} bytes, more than maxFrameSize ${limits.maxFrameSize}`, base + at + 4)
    }
    // A zstd frame is at least 6 bytes (magic, descriptor, an empty last block: RFC 8878
    // §3.1.1) and a skippable one 8; a table entry of 0 bytes cannot be a frame.
    if (cSize === 0) throw new CodecError('INVALID_DATA', FORMAT, `seek table frame ${i} has a compressed size of 0`, base + at)
    compressedOffsets[i] = compressed
    offsets[i] = content
    compressed += cSize
    content += dSize
    if (compressed > base) {
      throw new CodecError('INVALID_DATA', FORMAT, `seek table frames 0..${i} take ${compressed} bytes, past the seek table at ${base}`, base + at)
    }
    if (checksumValues) checksumValues[i] = readU32LE(table, at + 8)
  }
  if (compressed !== base) {
    throw new CodecError('INVALID_DATA', FORMAT, `seek table frames take ${compressed} bytes, but the seek table starts at ${base}: the sizes do not add up`, base)
  }
  compressedOffsets[count] = compressed
  offsets[count] = content
  return { checksums: footer.checksums, count, compressedOffsets, offsets, checksumValues }
}
