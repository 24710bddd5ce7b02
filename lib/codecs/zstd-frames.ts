/**
 * `zstdFrames()`: every frame of a zstd stream in order, skippable frames included, with
 * what its header says (content size, window, dictionary ID, checksum flag) and where it
 * lies, like `zstd -lv`, without decoding any content: a frame's extent follows from its
 * header and its blocks' 3-byte headers (RFC 8878 §3.1.1.2), a skippable frame's from
 * its Frame_Size (§3.1.2), which is jumped over without reading it.
 *
 * The source is read in windows of `chunkSize` bytes (default 1 MiB, at least eight
 * blocks of the largest size), so a range source over HTTP takes about one request per
 * MiB of compressed zstd frames, and none for the content of skippable frames.
 */
import { CodecError } from '../errors.js'
import { readU32LE } from '../endian.js'
import { checkInteger } from '../options.js'
import { rangeReader, readExactly, type ByteSource, type RangeSource } from '../range-source.js'
import { DESCRIPTOR_RESERVED, frameHeaderLength, parseFrameHeader, SKIPPABLE_MAGIC, SKIPPABLE_MASK, ZSTD_MAGIC } from './zstd-frame.js'

const FORMAT = 'zstd'

/** One frame as `zstdFrames()` lists it. */
export interface ZstdFrameInfo {
  /** Where the frame starts in the stream. */
  offset: number
  /** Its length in the stream, headers and checksum included. */
  compressedSize: number
  /** Frame_Content_Size, when the header gives it. */
  contentSize?: number
  /** Window_Size (RFC 8878 §3.1.1.1.2); for zstd frames only. */
  windowSize?: number
  /** Dictionary_ID, when the header names one. */
  dictionaryId?: number
  /** Whether the frame ends with a Content_Checksum. */
  checksum: boolean
  /** For a skippable frame: its magic number (0x184D2A50 to 0x184D2A5F). */
  skippable?: number
}

/** Options of `zstdFrames()`: how the source is read, and how many frames it may list. */
export interface ZstdFramesOptions {
  /** Bytes read per request from a range source; default 1 MiB, from 1 KiB to 1 GiB. */
  chunkSize?: number
  /** Most frames listed; more is LIMIT_EXCEEDED. Default 2^20. */
  maxFrames?: number
}

/** Reads `[offset, offset + length)` through a window of the source kept in memory. */
class Window {
  private bytes: Uint8Array = new Uint8Array(0)
  private start = 0

  constructor(
    private readonly source: RangeSource,
    private readonly chunkSize: number,
  ) {}

  /** At least `length` bytes from `offset` (fewer only at the end of the source), as a view and its base. */
  async at(offset: number, length: number): Promise<{ view: Uint8Array; index: number }> {
    if (offset < this.start || offset + length > this.start + this.bytes.length) {
      const n = Math.min(Math.max(this.chunkSize, length), this.source.size - offset)
      this.bytes = await readExactly(this.source, offset, n, FORMAT)
      this.start = offset
    }
    return { view: this.bytes, index: offset - this.start }
  }
}

/**
 * Lists every frame of the zstd stream `source` (bytes, a `Blob` or a range source) in
 * order. Rejects with `INVALID_DATA` at a byte that cannot start a frame or block,
 * `TRUNCATED` when the last frame is cut short.
 */
export async function zstdFrames(source: ByteSource, options: ZstdFramesOptions = {}): Promise<ZstdFrameInfo[]> {
  const chunkSize = checkInteger(FORMAT, 'chunkSize', options.chunkSize, 1024, 2 ** 30, 1024 * 1024)
  const maxFrames = checkInteger(FORMAT, 'maxFrames', options.maxFrames, 0, 2 ** 30, 1 << 20)
  const reader = rangeReader(source, FORMAT)
  const size = reader.size
  const window = new Window(reader, chunkSize)
  const frames: ZstdFrameInfo[] = []
  const truncated = (what: string, at: number): CodecError => new CodecError('TRUNCATED', FORMAT, `the stream ends inside ${what} (${size} bytes)`, at)
  let pos = 0
  while (pos < size) {
    if (frames.length >= maxFrames) throw new CodecError('LIMIT_EXCEEDED', FORMAT, `more than maxFrames ${maxFrames} frames`, pos)
    if (size - pos < 8) {
      // The smallest frame (an empty skippable frame) is 8 bytes; a zstd frame 6.
      if (size - pos < 6) throw truncated('a frame header', pos)
    }
    let { view, index } = await window.at(pos, Math.min(18, size - pos))
    const magic = readU32LE(view, index)
    if (((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) {
      if (size - pos < 8) throw truncated('a skippable frame header', pos)
      const length = 8 + readU32LE(view, index + 4)
      if (pos + length > size) throw truncated(`a skippable frame of ${length} bytes`, pos)
      frames.push({ offset: pos, compressedSize: length, checksum: false, skippable: magic })
      pos += length
      continue
    }
    if (magic !== ZSTD_MAGIC) {
      throw new CodecError('INVALID_DATA', FORMAT, `0x${magic.toString(16).padStart(8, '0')} at a frame boundary is neither the zstd magic 0xfd2fb528 nor a skippable frame's`, pos)
    }
    const descriptor = view[index + 4]!
    if (descriptor & DESCRIPTOR_RESERVED) throw new CodecError('INVALID_DATA', FORMAT, `frame header descriptor 0x${descriptor.toString(16)} has the reserved bit 3 set`, pos + 4)
    const headerLength = 4 + frameHeaderLength(descriptor)
    if (pos + headerLength > size) throw truncated('a frame header', pos)
    const header = parseFrameHeader(view, index + 4)
    let q = pos + headerLength
    for (;;) {
      if (q + 3 > size) throw truncated('a block header', q)
      ;({ view, index } = await window.at(q, 3))
      const h = view[index]! | (view[index + 1]! << 8) | (view[index + 2]! << 16)
      const type = (h >> 1) & 3
      if (type === 3) throw new CodecError('INVALID_DATA', FORMAT, 'block type 3 is reserved (RFC 8878 §3.1.1.2.2)', q)
      // An RLE block stores one byte whatever its regenerated size.
      q += 3 + (type === 1 ? 1 : h >>> 3)
      if (h & 1) break
    }
    if (header.checksum) q += 4
    if (q > size) throw truncated('the last block or checksum of a frame', size)
    const info: ZstdFrameInfo = { offset: pos, compressedSize: q - pos, windowSize: header.windowSize, checksum: header.checksum }
    if (header.contentSize >= 0) info.contentSize = header.contentSize
    if (header.dictionaryId !== 0) info.dictionaryId = header.dictionaryId
    frames.push(info)
    pos = q
  }
  return frames
}
