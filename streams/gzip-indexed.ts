/**
 * Random access into gzip, zlib and raw deflate files through an index of access points
 * (lib/gzip-index/gzip-index.ts; zran's method), over any range source: bytes in memory,
 * a `Blob`, an HTTP server that honours `Range` (`httpRangeSource`), a file
 * (`fileRangeSource` in `sluice/node`). The zstd seekable reader (zstd-seekable.ts) is
 * its model and shares its rules.
 *
 * The content between two points is a span. A read decodes from the point at or before
 * its start (raw deflate primed with the point's window, lib/gzip-index/resuming-
 * decoder.ts) up to its end: one range read of the compressed bytes from that point to
 * the end of the span holding the read's last byte (spans lie end to end, so any run
 * of them is one range), bounded by `maxGroupBytes`. What is decoded is kept per span
 * (a span's prefix when the read ended inside it) in a small cache.
 *
 * The index is checked against the file as it is read: its size first, then every point
 * a read passes must be where the decoder finds a block start, and the content must end
 * where the index says. A file that changed is `INVALID_DATA`, never wrong bytes quietly.
 * Without an index, opening builds one (one full decode, or a walk of a BGZF file's
 * block headers), which `index` then holds for `encodeGzipIndex`.
 */
import { CodecError } from '../lib/errors.js'
import { Machine } from '../lib/machine.js'
import { checkInteger, checkKeys, checkOneOf } from '../lib/options.js'
import { rangeReader, readExactly, type ByteSource, type RangeSource } from '../lib/range-source.js'
import { readU32LE } from '../lib/endian.js'
import { bgzfBlockAt } from '../lib/codecs/bgzf.js'
import { checkGzipIndex, DEFAULT_GZIP_GROUP_BYTES, GZIP_INDEX_FORMATS, pointBefore, WINDOW_SIZE, type GzipIndex, type GzipIndexFormat } from '../lib/gzip-index/gzip-index.js'
import { decodeGzipIndex } from '../lib/gzip-index/index-files.js'
import { decodeGzi, gziBlocks } from '../lib/gzip-index/gzi-format.js'
import { isGzi } from '../lib/gzip-index/index-file-kind.js'
import { inflateWindow, loadIndexParts, type IndexEngine, type IndexParts } from '../lib/gzip-index/engines.js'
import { ResumingDecoder } from '../lib/gzip-index/resuming-decoder.js'
import { gzipIndex } from './gzip-index.js'
import { PieceReader, type Piece } from './range-pieces.js'

const FORMAT = 'gzip'

/** Spans larger than this (an index with few points) are decoded through, not cached. */
const MAX_CACHED_SPAN = 64 * 1024 * 1024
/** Output of a span too large to cache goes through a buffer of this size. */
const SINK_SIZE = 1 << 20
/**
 * A span that is whole members (its point and the next have no window: BGZF blocks,
 * small concatenated members) up to this size is decoded to its end and through the
 * member's trailer, so that its CRC-32 is checked, as the zstd seekable reader decodes
 * each frame whole. Inside larger members a read decodes only what it needs (as zran).
 */
const MAX_WHOLE_SPAN = 1 << 20

/** Options of `openGzipIndexed()`. */
export interface GzipIndexedOptions {
  /**
   * The index: a `GzipIndex`, or an index file in any format `decodeGzipIndex` reads
   * (sluice's, indexed_gzip's, gztool's, bgzip's `.gzi`). Without one, opening builds
   * it (`gzipIndex()`: the whole file is read and decoded once).
   */
  index?: GzipIndex | Uint8Array
  /** Building an index: bytes of content between points (default 4 MiB). */
  spacing?: number
  /** Building an index, or reading a gztool one: the file's format; default `'gzip'`. */
  format?: GzipIndexFormat
  /** The decoder's engine: `'wasm'` (default) or `'js'`. */
  engine?: IndexEngine
  /** Spans kept decoded for later reads; default 4, 0 to keep none. */
  cacheSpans?: number
  /** Most compressed bytes fetched by one read request; default 8 MiB. */
  maxGroupBytes?: number
}

/** An opened indexed gzip (or zlib, or raw deflate) file. */
export interface GzipIndexed {
  /** Size of the decompressed content. */
  readonly size: number
  /** Size of the compressed file. */
  readonly compressedSize: number
  /** The index in use (given, read from its file, or built when opening). */
  readonly index: GzipIndex
  /** Decompresses `length` bytes from content offset `offset`; past `size` is INVALID_OPTION. */
  read(offset: number, length: number): Promise<Uint8Array>
  /** The content from `offset` (default 0), `length` bytes (default: to the end), as a stream. */
  stream(offset?: number, length?: number): ReadableStream<Uint8Array>
  /** Frees the decoders and the cache; later reads reject. */
  close(): void
}

/**
 * Opens a gzip, zlib or raw deflate file for random access through its index (given, or
 * built now: see `GzipIndexedOptions.index`). Rejects with `INVALID_DATA` for an index
 * that cannot be right or was made for a file of another size.
 */
export async function openGzipIndexed(source: ByteSource, options: GzipIndexedOptions = {}): Promise<GzipIndexed> {
  checkKeys(FORMAT, options, ['index', 'spacing', 'format', 'engine', 'cacheSpans', 'maxGroupBytes'])
  const format = checkOneOf(FORMAT, 'format', options.format, GZIP_INDEX_FORMATS, 'gzip')
  checkInteger(FORMAT, 'spacing', options.spacing, 1, Number.MAX_SAFE_INTEGER)
  const cacheSpans = checkInteger(FORMAT, 'cacheSpans', options.cacheSpans, 0, 1024, 4)
  const maxGroupBytes = checkInteger(FORMAT, 'maxGroupBytes', options.maxGroupBytes, 1, 2 ** 31, DEFAULT_GZIP_GROUP_BYTES)
  const engine = checkOneOf(FORMAT, 'engine', options.engine, ['wasm', 'js'] as const, 'wasm')
  const reader = rangeReader(source, FORMAT)
  const parts = await loadIndexParts(engine)
  let index: GzipIndex
  const given = options.index
  if (given === undefined) {
    index = await gzipIndex(reader, { spacing: options.spacing, format, engine })
  } else if (given instanceof Uint8Array) {
    if (format !== 'deflate-raw' && isGzi(given)) index = await gziIndex(given, reader)
    else index = decodeGzipIndex(given, { compressedSize: reader.size, ...(format === 'deflate' ? { format } : {}) })
  } else {
    index = checkGzipIndex(given)
  }
  if (index.compressedSize !== reader.size) {
    throw new CodecError('INVALID_DATA', FORMAT, `the index was made for a file of ${index.compressedSize} bytes; this one has ${reader.size} (the file changed, or the index is another file's)`)
  }
  const points = index.points
  if (index.uncompressedSize > 0 && (points.length === 0 || points[0]!.uncompressedOffset !== 0)) {
    throw new CodecError('INVALID_DATA', FORMAT, `the index has no point at the content's start, so its first ${points[0]?.uncompressedOffset ?? index.uncompressedSize} bytes cannot be read`)
  }
  return new IndexedReader(reader, index, parts, { cacheSpans, maxGroupBytes })
}

/**
 * The index a `.gzi` (bgzip -i) describes for the BGZF file `reader`: the content size
 * from the last block's ISIZE (one read of that block).
 */
async function gziIndex(gzi: Uint8Array, reader: RangeSource): Promise<GzipIndex> {
  const blocks = gziBlocks(gzi)
  const [start, out] = blocks[blocks.length - 1]!
  if (start >= reader.size) throw new CodecError('INVALID_DATA', FORMAT, `the .gzi lists a block at byte ${start}, past the end of the ${reader.size}-byte file`)
  const tail = await readExactly(reader, start, Math.min(reader.size - start, 0x10000), FORMAT)
  const block = bgzfBlockAt(tail, 0, start)
  if (!block || block.size > tail.length) throw new CodecError('INVALID_DATA', FORMAT, `no BGZF block at byte ${start}, where the .gzi says its last block starts`, start)
  return decodeGzi(gzi, reader.size, out + readU32LE(tail, block.size - 4))
}

interface ReaderOptions {
  cacheSpans: number
  maxGroupBytes: number
}


class IndexedReader extends PieceReader implements GzipIndexed {
  readonly size: number
  readonly compressedSize: number
  /** Decoded spans (or their prefixes) by point, least recently used first. */
  private readonly cache = new Map<number, Uint8Array>()
  /** Decodes the points' windows (synchronously: never in use by two reads at once). */
  private readonly windows

  constructor(
    private readonly source: RangeSource,
    readonly index: GzipIndex,
    private readonly parts: IndexParts,
    private readonly options: ReaderOptions,
  ) {
    super(FORMAT, 'the indexed file')
    this.size = index.uncompressedSize
    this.compressedSize = index.compressedSize
    this.windows = parts.decoder('deflate-raw', parts.body('deflate-raw'))
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.cache.clear()
    this.windows.dispose()
  }

  /** Content offset where span `k` (from point `k` to the next point) ends. */
  private spanEnd(k: number): number {
    const points = this.index.points
    return k + 1 < points.length ? points[k + 1]!.uncompressedOffset : this.size
  }

  /** File offset where the compressed bytes of span `k` end (the byte holding the next point's first bit, or the file's end). */
  private spanEndByte(k: number): number {
    const points = this.index.points
    return k + 1 < points.length ? Math.min(this.compressedSize, Math.ceil(points[k + 1]!.compressedBitOffset / 8) + 1) : this.compressedSize
  }

  /** The content `[offset, offset + length)` as views of decoded spans, in order. */
  protected async *pieces(offset: number, length: number): AsyncGenerator<Piece, void, undefined> {
    const end = offset + length
    let pos = offset
    const points = this.index.points
    while (pos < end) {
      if (this.closed) throw new CodecError('INVALID_OPTION', FORMAT, 'the indexed file was closed')
      const k = pointBefore(points, pos)
      const start = points[k]!.uncompressedOffset
      const cached = this.cache.get(k)
      if (cached && start + cached.length > pos) {
        this.cache.delete(k)
        this.cache.set(k, cached)
        const to = Math.min(end, start + cached.length)
        yield { bytes: cached.subarray(pos - start, to - start), kept: true }
        pos = to
        continue
      }
      for await (const piece of this.decodeRun(k, pos, end)) {
        yield piece
        pos += piece.bytes.length
      }
    }
  }

  /**
   * Decodes from point `k` on and yields the content from `from` up to `end`; caches
   * each span it decodes, or its prefix. The first read brings the compressed bytes
   * from the point to the end of the span holding `end - 1` (or as many spans as fit in
   * `maxGroupBytes`); more are read, `maxGroupBytes` at a time, only if that was not
   * all (an index with points far apart).
   */
  private async *decodeRun(k: number, from: number, end: number): AsyncGenerator<Piece, void, undefined> {
    const { index, options } = this
    const points = index.points
    const point = points[k]!
    const startByte = Math.floor(point.compressedBitOffset / 8)
    // The spans this run covers: up to the one holding `end - 1`, within maxGroupBytes.
    const last = pointBefore(points, end - 1)
    let j = k
    while (j < last && this.spanEndByte(j + 1) - startByte <= options.maxGroupBytes) j++
    const groupEnd = this.spanEndByte(j)
    const next = points[last + 1]
    const whole = points[last]!.windowSize === 0 && next !== undefined && next.windowSize === 0 && this.spanEnd(last) - points[last]!.uncompressedOffset <= MAX_WHOLE_SPAN
    const stop = whole ? this.spanEnd(last) : end
    // Each run has its own decoders (reads may interleave; a stream may be dropped mid-run).
    const check = new PointCheck(points, k + 1, this.size)
    const resumer = new ResumingDecoder(this.parts, index.format, (bit, out) => check.atBlock(bit, out))
    resumer.start(point, inflateWindow(this.windows, point, k, new Uint8Array(WINDOW_SIZE)))
    const machine = new Machine(resumer, { format: index.format, mode: 'decode', blockSize: SINK_SIZE, maxOutputBytes: Infinity, concatenated: index.format === 'gzip' })
    try {
      yield* this.drive(machine, resumer, check, k, startByte, groupEnd, from, end, stop)
    } finally {
      machine.dispose()
    }
  }

  /**
   * The loop of `decodeRun`: reads, decodes, hands out `[from, end)`, caches what it
   * decoded up to `stop` (`end`, or the end of a whole-member span, through its trailer).
   */
  private async *drive(machine: Machine, resumer: ResumingDecoder, check: PointCheck, k: number, startByte: number, groupEnd: number, from: number, end: number, stop: number): AsyncGenerator<Piece, void, undefined> {
    const { options } = this
    const points = this.index.points
    const point = points[k]!
    // The machine counts input from the point's byte: its offsets are file offsets.
    machine.totalIn = startByte
    let fetched = startByte
    // A span longer than one group (an index with few points) is fetched in several reads.
    const fetchEnd = (): number => Math.min(fetched < groupEnd ? groupEnd : this.compressedSize, fetched + options.maxGroupBytes)
    let span = k
    let buffer = this.spanBuffer(span, stop)
    let fill = 0
    let sink: Uint8Array | null = null
    let out = point.uncompressedOffset
    const kept = this.options.cacheSpans > 0
    const feed = async (): Promise<void> => {
      if (!machine.needsInput) return
      if (fetched >= this.compressedSize) return machine.end()
      const to = fetchEnd()
      machine.push(await readExactly(this.source, fetched, to - fetched, FORMAT))
      fetched = to
      if (this.closed) throw new CodecError('INVALID_OPTION', FORMAT, 'the indexed file was closed')
    }
    while (out < stop) {
      await feed()
      const room = Math.min(this.spanEnd(span), stop) - out
      const dst = buffer !== null ? buffer.subarray(fill, fill + room) : (sink ??= new Uint8Array(SINK_SIZE)).subarray(0, Math.min(room, SINK_SIZE))
      const n = machine.nextInto(dst)
      check.throwIfWrong()
      if (n === 0) {
        if (machine.finished) throw changed(`the file's content ends at ${out} bytes; its index says ${this.size}`)
        continue
      }
      const got = dst.subarray(0, n)
      const a = Math.max(from, out)
      const b = Math.min(end, out + n)
      if (b > a) yield { bytes: got.subarray(a - out, b - out), kept: buffer === null || kept }
      out += n
      fill += n
      if (out === this.spanEnd(span)) {
        if (buffer !== null) this.remember(span, buffer.subarray(0, fill))
        // The next span with content (points at the same offset have none).
        while (span + 1 < points.length && this.spanEnd(span) === out) span++
        buffer = out < stop ? this.spanBuffer(span, stop) : null
        fill = 0
      }
    }
    if (buffer !== null && fill > 0) this.remember(span, buffer.subarray(0, fill))
    if (stop > end && out < this.size) {
      // A whole-member span: on through its trailer (the member ends: its CRC-32 checked).
      const rest = new Uint8Array(1)
      while (resumer.memberEnd !== out) {
        await feed()
        if (machine.nextInto(rest) > 0 && resumer.memberEnd !== out) throw changed(`the member that should end at content offset ${out} goes on past it`)
        check.throwIfWrong()
        if (machine.finished) throw changed(`the file ends inside the member that should end at content offset ${out}`)
      }
    }
    // At the content's end, the file must end too: nothing more, trailer and all.
    if (out === this.size && fetched >= this.compressedSize) {
      if (machine.needsInput) machine.end()
      const rest = new Uint8Array(1)
      while (!machine.finished) {
        if (machine.nextInto(rest) > 0) throw changed(`the file decodes to more than the ${this.size} bytes its index says`)
        check.throwIfWrong()
        if (machine.needsInput) machine.end()
      }
      check.atEnd()
    }
  }

  /** Memory for span `k` up to content offset `end` (null for a span too large to keep). */
  private spanBuffer(k: number, end: number): Uint8Array | null {
    const start = this.index.points[k]!.uncompressedOffset
    const n = Math.min(this.spanEnd(k), end) - start
    return this.spanEnd(k) - start > MAX_CACHED_SPAN ? null : new Uint8Array(n)
  }

  private remember(k: number, bytes: Uint8Array): void {
    const keep = this.options.cacheSpans
    if (keep === 0) return
    const had = this.cache.get(k)
    if (had && had.length >= bytes.length) return
    this.cache.delete(k)
    this.cache.set(k, bytes)
    while (this.cache.size > keep) this.cache.delete(this.cache.keys().next().value!)
  }
}

/** `INVALID_DATA` for an index that does not fit the file. */
function changed(why: string): CodecError {
  return new CodecError('INVALID_DATA', FORMAT, `${why}: the file changed, or the index is another file's`)
}

/**
 * Checks a decode against the index: every point it passes must be where the decoder
 * finds a block start, with the same content offset.
 */
class PointCheck {
  private wrong: CodecError | null = null

  constructor(
    private readonly points: GzipIndex['points'],
    /** The next point the decode must find. */
    private expect: number,
    private readonly size: number,
  ) {}

  /** The decoder found a block start at file bit `bit`, content offset `out`. */
  atBlock(bit: number, out: number): void {
    const points = this.points
    while (this.wrong === null && this.expect < points.length) {
      const p = points[this.expect]!
      if (p.compressedBitOffset > bit) return
      if (p.compressedBitOffset === bit && p.uncompressedOffset === out) {
        this.expect++
        continue
      }
      this.wrong = changed(`index point ${this.expect} (bit ${p.compressedBitOffset}, content offset ${p.uncompressedOffset}) is not a block start of this file (one is at bit ${bit}, content offset ${out})`)
    }
  }

  /** Throws what `atBlock` found wrong (it cannot throw itself, from inside the decoder). */
  throwIfWrong(): void {
    if (this.wrong) throw this.wrong
  }

  /** The content ended: points left must be at its end (zran puts one there). */
  atEnd(): void {
    this.throwIfWrong()
    for (let m = this.expect; m < this.points.length; m++) {
      if (this.points[m]!.uncompressedOffset !== this.size) throw changed(`index point ${m} (content offset ${this.points[m]!.uncompressedOffset}) is past the last block of this file`)
    }
  }
}
