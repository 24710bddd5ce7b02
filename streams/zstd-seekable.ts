/**
 * Random access into zstd seekable archives (facebook/zstd contrib/seekable_format;
 * the table itself is lib/codecs/zstd-seek-table.ts) over any range source: bytes in
 * memory, a `Blob`, an HTTP server that honours `Range` (`httpRangeSource`), a file
 * (`fileRangeSource` in `sluice/node`).
 *
 * Opening reads the end of the archive once (`tailSize`, default 64 KiB); a seek table
 * longer than that takes exactly one more read. A range then costs one read per group
 * of adjacent frames that cover it and are not cached (frames lie end to end, so any
 * run of them is one range), bounded by `maxGroupBytes`; each frame is decoded whole
 * (its checksum, when the table or the frame has one, is verified) and kept in a small
 * cache of decoded frames.
 */
import type { Decoder } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { checkBoolean, checkInteger } from '../lib/options.js'
import { rangeReader, readExactly, type ByteSource, type RangeSource } from '../lib/range-source.js'
import { createDecoder } from '../lib/registry.js'
import { Status } from '../lib/status.js'
import { xxh64Low32 } from '../lib/codecs/xxhash64.js'
import { PieceReader, type Piece } from './range-pieces.js'
import { parseSeekFooter, parseSeekTable, SEEK_FOOTER_SIZE, SEEKABLE_MAX_FRAMES, SEEKABLE_MAX_FRAME_SIZE, type SeekTable } from '../lib/codecs/zstd-seek-table.js'
import { ZstdFrameWalker } from '../lib/codecs/zstd-frame-format.js'
import type { Engine } from '../lib/formats.js'

const FORMAT = 'zstd'

/**
 * Default `maxFrames`: 2^20 entries, a 12 MiB table at most (1 TiB of content in 1 MiB
 * frames). The format allows 2^27 (the reference's ZSTD_SEEKABLE_MAXFRAMES), a 1.5 GiB
 * table that a hostile 9-byte footer could otherwise make a reader fetch and index.
 */
export const DEFAULT_MAX_FRAMES = 1 << 20
/**
 * Default `maxFrameSize`: 64 MiB. A frame is decoded whole into memory, so a table entry
 * is an allocation size; 64 times the default frame size leaves room for archives of
 * other writers. Up to 2^30, the format's own limit (zstd_seekable.h).
 */
export const DEFAULT_MAX_SEEKABLE_FRAME = 64 * 1024 * 1024
/** Default `tailSize`: the first read, enough for the table of 5,000 frames. */
export const DEFAULT_SEEKABLE_TAIL = 64 * 1024
/** Default `maxGroupBytes`: most compressed, and most decoded, bytes one read brings. */
export const DEFAULT_GROUP_BYTES = 8 * 1024 * 1024

/**
 * Options of `openZstdSeekable()`: limits on what the seek table may ask for (each
 * default below the format's own maximum, see the constants above), how the archive is
 * read and cached, and the options of the zstd decoder that decodes each frame.
 */
export interface ZstdSeekableOptions {
  /** Most frames the seek table may list; default 2^20, at most 2^27 (the format's). */
  maxFrames?: number
  /** Largest decompressed frame accepted; default 64 MiB, at most 2^30 (the format's). */
  maxFrameSize?: number
  /** Bytes read from the end of the archive when opening it; default 64 KiB. */
  tailSize?: number
  /** Decoded frames kept for later reads; default 4, 0 to keep none. */
  cacheFrames?: number
  /** Most compressed (and decoded) bytes fetched by one read of adjacent frames; default 8 MiB. */
  maxGroupBytes?: number
  /** Verify the seek table's checksums when it has them; default true. */
  checksums?: boolean
  /** The zstd decoder's window limit, log2 of bytes (up to 31); default as the zstd decoder's. */
  maxWindowLog?: number
  /** The dictionary the frames were encoded with (trained, or raw content), as the zstd decoder's `dictionary`. */
  dictionary?: BufferSource
  /** How `dictionary` is read: `'auto'` (default) trained when it starts with the magic 37 A4 30 EC, `'raw'` always raw content. */
  dictionaryType?: 'auto' | 'raw'
  /** The zstd decoder's engine (`'wasm'` or `'js'`); default as the zstd decoder's. */
  engine?: Engine
}

/** One data frame of a seekable archive, as its seek table lists it. */
export interface ZstdSeekableFrame {
  /** Where the frame starts in the archive, in bytes. */
  readonly compressedOffset: number
  /** Its length in the archive, in bytes (the table's Compressed_Size). */
  readonly compressedSize: number
  /** Where its content starts in the decompressed content, in bytes. */
  readonly offset: number
  /** Its decompressed length, in bytes (the table's Decompressed_Size). */
  readonly size: number
  /** The table's checksum of its content (low 32 bits of XXH64), when the table has them. */
  readonly checksum?: number
}

/** An opened seekable archive. */
export interface ZstdSeekable {
  /** Decompressed size of the whole content. */
  readonly size: number
  /** Bytes of the archive (frames and seek table). */
  readonly compressedSize: number
  /** The data frames, in order. */
  readonly frames: readonly ZstdSeekableFrame[]
  /** Decompresses `length` bytes from content offset `offset`; past `size` is INVALID_OPTION. */
  read(offset: number, length: number): Promise<Uint8Array>
  /** The content from `offset` (default 0), `length` bytes (default: to the end), as a stream. */
  stream(offset?: number, length?: number): ReadableStream<Uint8Array>
  /** Frees the decoder and the cache; later reads reject. */
  close(): void
}

/**
 * Opens a zstd seekable archive: reads its seek table (one range read, two when the
 * table is longer than `tailSize`) and returns a reader of any byte range of its
 * content. Rejects with `UNSUPPORTED` when the source has no seek table (a plain zstd
 * stream: decode it whole, or write it with `seekable: true`), `INVALID_DATA` or
 * `LIMIT_EXCEEDED` for a table that cannot be right or is over the limits.
 */
export async function openZstdSeekable(source: ByteSource, options: ZstdSeekableOptions = {}): Promise<ZstdSeekable> {
  const limits = {
    maxFrames: checkInteger(FORMAT, 'maxFrames', options.maxFrames, 0, SEEKABLE_MAX_FRAMES, DEFAULT_MAX_FRAMES),
    maxFrameSize: checkInteger(FORMAT, 'maxFrameSize', options.maxFrameSize, 0, SEEKABLE_MAX_FRAME_SIZE, DEFAULT_MAX_SEEKABLE_FRAME),
  }
  const tailSize = checkInteger(FORMAT, 'tailSize', options.tailSize, SEEK_FOOTER_SIZE, 2 ** 30, DEFAULT_SEEKABLE_TAIL)
  const cacheFrames = checkInteger(FORMAT, 'cacheFrames', options.cacheFrames, 0, 1024, 4)
  const maxGroupBytes = checkInteger(FORMAT, 'maxGroupBytes', options.maxGroupBytes, 1, 2 ** 31, DEFAULT_GROUP_BYTES)
  const verify = checkBoolean(FORMAT, 'checksums', options.checksums, true)
  const decoderOptions: Record<string, unknown> = {}
  for (const key of ['maxWindowLog', 'dictionary', 'dictionaryType', 'engine'] as const) if (options[key] !== undefined) decoderOptions[key] = options[key]
  // The decoder is created now, so that a bad decoder option throws before any read.
  const decoder = await createDecoder(FORMAT, decoderOptions)
  try {
    const reader = rangeReader(source, FORMAT)
    const size = reader.size
    if (size < SEEK_FOOTER_SIZE) {
      throw new CodecError('UNSUPPORTED', FORMAT, `${size} bytes cannot hold a seek table (its footer alone is 9 bytes); write a seekable archive with zstdEncode({ seekable: true })`, 0)
    }
    const tailLength = Math.min(size, tailSize)
    const tail = await readExactly(reader, size - tailLength, tailLength, FORMAT)
    const footer = parseSeekFooter(tail, size, limits)
    let tableBytes: Uint8Array
    if (footer.tableSize <= tailLength) {
      tableBytes = tail.subarray(tailLength - footer.tableSize)
    } else {
      // The table is longer than the tail: one more read for the bytes before it.
      const head = await readExactly(reader, footer.tableOffset, footer.tableSize - tailLength, FORMAT)
      tableBytes = new Uint8Array(footer.tableSize)
      tableBytes.set(head)
      tableBytes.set(tail, head.length)
    }
    const table = parseSeekTable(tableBytes, footer, limits)
    return new SeekableReader(reader, table, decoder, { cacheFrames, maxGroupBytes, verify })
  } catch (error) {
    decoder.dispose()
    throw error
  }
}

interface ReaderOptions {
  cacheFrames: number
  maxGroupBytes: number
  verify: boolean
}

class SeekableReader extends PieceReader implements ZstdSeekable {
  readonly size: number
  readonly compressedSize: number
  private list: ZstdSeekableFrame[] | null = null
  /** Decoded frames by index, least recently used first. */
  private readonly cache = new Map<number, Uint8Array>()

  constructor(
    private readonly source: RangeSource,
    private readonly table: SeekTable,
    private readonly decoder: Decoder,
    private readonly options: ReaderOptions,
  ) {
    super(FORMAT, 'the seekable archive')
    this.size = table.offsets[table.count]!
    this.compressedSize = source.size
  }

  get frames(): readonly ZstdSeekableFrame[] {
    if (this.list === null) {
      const t = this.table
      const list: ZstdSeekableFrame[] = []
      for (let i = 0; i < t.count; i++) {
        const frame: ZstdSeekableFrame = {
          compressedOffset: t.compressedOffsets[i]!,
          compressedSize: t.compressedOffsets[i + 1]! - t.compressedOffsets[i]!,
          offset: t.offsets[i]!,
          size: t.offsets[i + 1]! - t.offsets[i]!,
          ...(t.checksumValues ? { checksum: t.checksumValues[i]! } : {}),
        }
        list.push(Object.freeze(frame))
      }
      this.list = Object.freeze(list) as ZstdSeekableFrame[]
    }
    return this.list
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.cache.clear()
    this.decoder.dispose()
  }

  /** The frame holding content offset `offset` (the last frame for `size`). */
  private frameAt(offset: number): number {
    const offsets = this.table.offsets
    let lo = 0
    let hi = this.table.count - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (offsets[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  /**
   * The content `[offset, offset + length)` as views of decoded frames, in order, each
   * saying whether its frame is kept in the cache.
   */
  protected async *pieces(offset: number, length: number): AsyncGenerator<Piece, void, undefined> {
    if (length === 0) return
    const t = this.table
    const end = offset + length
    let i = this.frameAt(offset)
    const last = this.frameAt(end - 1)
    while (i <= last) {
      const frames = await this.frameGroup(i, last)
      for (const content of frames) {
        const start = t.offsets[i]!
        const from = Math.max(offset, start) - start
        const to = Math.min(end, t.offsets[i + 1]!) - start
        if (to > from) yield { bytes: content.subarray(from, to), kept: this.cache.get(i) === content }
        i++
      }
    }
  }

  /**
   * Decoded frames from `first` on: a cached one alone, else the run of uncached frames
   * up to `last` that one read of at most `maxGroupBytes` (compressed and decoded) brings.
   */
  private async frameGroup(first: number, last: number): Promise<Uint8Array[]> {
    if (this.closed) throw new CodecError('INVALID_OPTION', FORMAT, 'the seekable archive was closed')
    const cached = this.cache.get(first)
    if (cached) {
      this.cache.delete(first)
      this.cache.set(first, cached)
      return [cached]
    }
    const t = this.table
    const limit = this.options.maxGroupBytes
    let j = first
    while (
      j < last &&
      !this.cache.has(j + 1) &&
      t.compressedOffsets[j + 2]! - t.compressedOffsets[first]! <= limit &&
      t.offsets[j + 2]! - t.offsets[first]! <= limit
    ) {
      j++
    }
    const base = t.compressedOffsets[first]!
    const bytes = await readExactly(this.source, base, t.compressedOffsets[j + 1]! - base, FORMAT)
    if (this.closed) throw new CodecError('INVALID_OPTION', FORMAT, 'the seekable archive was closed')
    const out: Uint8Array[] = []
    for (let k = first; k <= j; k++) {
      const content = this.decodeFrame(k, bytes.subarray(t.compressedOffsets[k]! - base, t.compressedOffsets[k + 1]! - base))
      this.remember(k, content)
      out.push(content)
    }
    return out
  }

  private remember(index: number, content: Uint8Array): void {
    const keep = this.options.cacheFrames
    if (keep === 0) return
    this.cache.set(index, content)
    while (this.cache.size > keep) this.cache.delete(this.cache.keys().next().value!)
  }

  /** Decodes frame `index` (`bytes`, its whole compressed extent) and checks it against the table. */
  private decodeFrame(index: number, bytes: Uint8Array): Uint8Array {
    const t = this.table
    const at = t.compressedOffsets[index]!
    const size = t.offsets[index + 1]! - t.offsets[index]!
    const content = new Uint8Array(size)
    const decoder = this.decoder
    decoder.reset()
    let status = decoder.transform(bytes, content, true)
    let consumed = decoder.consumed
    let written = decoder.written
    // The content filled the destination exactly: libzstd may need one more call, with no
    // room, to see the frame end (a frame without a content size whose last block it
    // has not finished with); more content then is the entry's error below.
    for (let tries = 0; status === Status.DestinationTooSmall && written === size && tries < 4; tries++) {
      status = decoder.transform(bytes.subarray(consumed), content.subarray(size), true)
      consumed += decoder.consumed
      written += decoder.written
    }
    if (status === Status.InvalidData) {
      const f = decoder.failure!
      throw new CodecError(f.code, FORMAT, `frame ${index}: ${f.message}`, at + f.offset)
    }
    if (status === Status.DestinationTooSmall) {
      throw new CodecError('INVALID_DATA', FORMAT, `frame ${index} decodes to more than the ${size} bytes its seek table entry says`, at)
    }
    if (status === Status.NeedMoreData) {
      throw new CodecError('INVALID_DATA', FORMAT, `frame ${index} goes on past the ${bytes.length} bytes its seek table entry gives it`, at + bytes.length)
    }
    if (written !== size) {
      throw new CodecError('INVALID_DATA', FORMAT, `frame ${index} decodes to ${written} bytes, its seek table entry says ${size}`, at)
    }
    if (consumed !== bytes.length) {
      throw new CodecError('INVALID_DATA', FORMAT, `frame ${index} ends after ${consumed} bytes, its seek table entry says ${bytes.length}`, at + consumed)
    }
    if (t.checksumValues && this.options.verify) this.verify(index, bytes, content)
    return content
  }

  /**
   * The table's checksum of frame `index`: compared with the frame's own Content_Checksum
   * when it has one (the decoder verified that one against the content), computed
   * (XXH64) otherwise.
   */
  private verify(index: number, bytes: Uint8Array, content: Uint8Array): void {
    const expected = this.table.checksumValues![index]!
    // The frame is `bytes` exactly (decodeFrame checked): its walk ends with its checksum, when it has one.
    const walker = new ZstdFrameWalker()
    walker.scan(bytes, 0, bytes.length)
    const actual = walker.checksum >= 0 ? walker.checksum : xxh64Low32(content)
    if (actual !== expected) {
      const hex = (v: number) => v.toString(16).padStart(8, '0')
      throw new CodecError('CHECKSUM_MISMATCH', FORMAT, `frame ${index}: content checksum ${hex(actual)} does not match the seek table's ${hex(expected)}`, this.table.compressedOffsets[index]!)
    }
  }
}
