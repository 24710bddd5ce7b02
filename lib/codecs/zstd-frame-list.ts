/**
 * The frames of a zstd stream, listed without decoding (like `zstd -lv`): `zstdFrames()`,
 * and `walkZstdFrames()` under it, which `inspect()` (lib/inspect/codecs.ts) also reads.
 * Each frame is walked by zstd-frame-format.ts `ZstdFrameWalker` from its headers
 * alone: a zstd frame's extent follows from its header and its blocks' 3-byte headers (RFC 8878
 * §3.1.1.2), a skippable frame's from its Frame_Size (§3.1.2); block contents and a
 * skippable frame's data are jumped over without reading them.
 *
 * The source is read in windows of `chunkSize` bytes (default 1 MiB, at least eight
 * blocks of the largest size), so a range source over HTTP takes about one request per
 * MiB of compressed zstd frames, and none for the content of skippable frames.
 */
import { CodecError } from '../errors.js'
import { checkInteger } from '../options.js'
import { rangeReader, readExactly, type ByteSource, type RangeSource } from '../range-source.js'
import { PART_NAMES, ZstdFrameWalker, type ZstdFrameHeader } from './zstd-frame-format.js'

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

/** One frame as `walkZstdFrames()` reports it: where it lies and what its headers say. */
export interface ZstdFrameRecord {
  readonly offset: number
  readonly length: number
  /** The frame header; null for a skippable frame. */
  readonly header: ZstdFrameHeader | null
  /** A skippable frame's magic number; 0 for a zstd frame. */
  readonly skippable: number
  /** Blocks of a zstd frame. */
  readonly blocks: number
  /** The stored Content_Checksum (low 32 bits of XXH64), -1 when the frame has none. */
  readonly checksum: number
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

/** The most header bytes a part needs at once (a frame header: 18), read together. */
const MAX_FIELDS = 18
const NOTHING = { view: new Uint8Array(0), index: 0 }

/** TRUNCATED: the stream of `size` bytes ends inside the part `walker` is in, of the frame at `offset`. */
function truncated(walker: ZstdFrameWalker, offset: number, size: number): CodecError {
  return new CodecError('TRUNCATED', FORMAT, `the stream (${size} bytes) ends inside ${PART_NAMES[walker.part]} of the frame at ${offset}`, offset + walker.start)
}

/**
 * The frames of the zstd stream `source` (bytes, a `Blob` or a range source) from offset
 * `start`, one by one in order, each once it has been walked whole. Throws
 * `INVALID_DATA` at a byte that cannot start a frame or block, `TRUNCATED` when the last
 * frame is cut short and `LIMIT_EXCEEDED` past `maxFrames` frames; the frames reported
 * before stay good.
 */
export async function* walkZstdFrames(source: ByteSource, options: ZstdFramesOptions = {}, start = 0): AsyncGenerator<ZstdFrameRecord, void, undefined> {
  const chunkSize = checkInteger(FORMAT, 'chunkSize', options.chunkSize, 1024, 2 ** 30, 1024 * 1024)
  const maxFrames = checkInteger(FORMAT, 'maxFrames', options.maxFrames, 0, 2 ** 30, 1 << 20)
  const reader = rangeReader(source, FORMAT)
  const size = reader.size
  const window = new Window(reader, chunkSize)
  const walker = new ZstdFrameWalker()
  let frames = 0
  for (let offset = start; offset < size; offset += walker.scanned) {
    if (frames++ >= maxFrames) throw new CodecError('LIMIT_EXCEEDED', FORMAT, `more than maxFrames ${maxFrames} frames`, offset)
    walker.reset()
    for (;;) {
      if (walker.measured) {
        // The part's fields are read: its content (block bytes, skippable data) is jumped over.
        if (offset + walker.end > size) throw truncated(walker, offset, size)
        walker.pass()
        if (walker.ended) break
      }
      const at = offset + walker.scanned
      const { view, index } = at < size ? await window.at(at, Math.min(MAX_FIELDS, size - at)) : NOTHING
      walker.step(view, index, view.length)
      const error = walker.error
      if (error !== null) throw new CodecError('INVALID_DATA', FORMAT, error.message, offset + error.offset)
      if (at >= size) throw truncated(walker, offset, size)
    }
    yield { offset, length: walker.scanned, header: walker.header, skippable: walker.skippable, blocks: walker.blocks, checksum: walker.checksum }
  }
}

/**
 * Lists every frame of the zstd stream `source` (bytes, a `Blob` or a range source) in
 * order. Rejects with `INVALID_DATA` at a byte that cannot start a frame or block,
 * `TRUNCATED` when the last frame is cut short.
 */
export async function zstdFrames(source: ByteSource, options: ZstdFramesOptions = {}): Promise<ZstdFrameInfo[]> {
  const frames: ZstdFrameInfo[] = []
  for await (const { offset, length, header, skippable } of walkZstdFrames(source, options)) {
    if (header === null) {
      frames.push({ offset, compressedSize: length, checksum: false, skippable })
      continue
    }
    const info: ZstdFrameInfo = { offset, compressedSize: length, windowSize: header.windowSize, checksum: header.checksum }
    if (header.contentSize >= 0) info.contentSize = header.contentSize
    if (header.dictionaryId !== 0) info.dictionaryId = header.dictionaryId
    frames.push(info)
  }
  return frames
}
