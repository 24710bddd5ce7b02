/**
 * The index of a deflate stream (gzip, zlib or raw deflate) that makes random access
 * possible: access points, each where a deflate block starts, with the 32 KiB of output
 * before it that the block's matches may reach back into (RFC 1951 section 2.2). madler's
 * zran.c introduced it; indexed_gzip and gztool store it in files; sluice builds one in
 * the same pass as a decode (index-builder.ts, indexing-decoder.ts), serialises it in a
 * format of its own and in theirs (index-formats.ts) and reads through it
 * (streams/gzip-indexed.ts).
 *
 * A point is always a block start, as in zran: decoding resumes there as raw deflate
 * (inflate-at.ts) with the window as preset history. At the first block of a gzip member
 * or zlib stream the window is empty: nothing before the member can be referred to.
 *
 * `checkGzipIndex` checks an index given as an object; the byte formats are checked as
 * they are parsed, before anything is allocated for them.
 */
import { CodecError } from '../errors.js'

/** The formats an index is made for: the deflate family. */
export type GzipIndexFormat = 'gzip' | 'deflate' | 'deflate-raw'

/** The formats, in the order of the sluice index format's format byte. */
export const GZIP_INDEX_FORMATS: readonly GzipIndexFormat[] = ['gzip', 'deflate', 'deflate-raw']

/** RFC 1951 section 2.2: matches reach back at most 32768 bytes. */
export const WINDOW_SIZE = 32768

/**
 * Most bytes a compressed window may take: a window that does not compress is stored
 * (RFC 1951 section 3.2.4: 5 bytes of header per stored block of up to 65535 bytes), so
 * 32768 bytes take 32773; zlib's deflateBound allows a few more. Anything longer is not
 * a window any deflate encoder writes, and a hostile index would use it to make a reader
 * allocate and inflate more than a window.
 */
export const MAX_COMPRESSED_WINDOW = WINDOW_SIZE + 1024

/** One access point. */
export interface GzipIndexPoint {
  /** Where the point is in the decompressed content, in bytes. */
  readonly uncompressedOffset: number
  /**
   * Where the deflate block starting there begins in the compressed file, in bits from
   * the file's first bit (bit `b` is bit `b % 8` of byte `b >> 3`, LSB first, as RFC
   * 1951 section 3.1.1 numbers them).
   */
  readonly compressedBitOffset: number
  /**
   * Bytes of output before the point that matches may refer to: 32768, fewer near the
   * start of a member, 0 at a member's (or raw stream's) first block.
   */
  readonly windowSize: number
  /** Those bytes, compressed as raw deflate (RFC 1951); empty when `windowSize` is 0. */
  readonly window: Uint8Array
}

/** The index of one compressed file. */
export interface GzipIndex {
  /** What the file is: gzip members, a zlib stream, or raw deflate. */
  readonly format: GzipIndexFormat
  /** Size of the compressed file the index was made for, in bytes. */
  readonly compressedSize: number
  /** Size of its decompressed content, in bytes. */
  readonly uncompressedSize: number
  /** The access points, in order of both offsets. */
  readonly points: readonly GzipIndexPoint[]
}

/** Default `maxGroupBytes` of `openGzipIndexed`: most compressed bytes one read request brings. */
export const DEFAULT_GZIP_GROUP_BYTES = 8 * 1024 * 1024

const FORMAT = 'gzip-index'

/** `INVALID_DATA` about an index (offset: where in the index bytes, or -1 for an object). */
export function badIndex(message: string, offset = -1): CodecError {
  return new CodecError('INVALID_DATA', FORMAT, message, offset)
}

/**
 * Checks one point against the index's sizes and the point before it: offsets inside the
 * file and the content and in order, a window no longer than the output before it and no
 * longer than deflate allows, a compressed window of a size deflate can write.
 * `windowBytes` is the compressed window's length. Throws `INVALID_DATA`.
 */
export function checkPoint(
  i: number,
  uncompressedOffset: number,
  compressedBitOffset: number,
  windowSize: number,
  windowBytes: number,
  previous: { uncompressedOffset: number; compressedBitOffset: number } | null,
  sizes: { compressedSize: number; uncompressedSize: number },
  at = -1,
): void {
  if (!Number.isSafeInteger(uncompressedOffset) || uncompressedOffset < 0 || uncompressedOffset > sizes.uncompressedSize) {
    throw badIndex(`point ${i}: uncompressed offset ${uncompressedOffset} is outside the content's ${sizes.uncompressedSize} bytes`, at)
  }
  if (!Number.isSafeInteger(compressedBitOffset) || compressedBitOffset < 0 || compressedBitOffset > sizes.compressedSize * 8) {
    throw badIndex(`point ${i}: compressed bit offset ${compressedBitOffset} is past the end of the ${sizes.compressedSize}-byte file`, at)
  }
  if (previous !== null && (uncompressedOffset < previous.uncompressedOffset || compressedBitOffset <= previous.compressedBitOffset)) {
    throw badIndex(
      `point ${i} (uncompressed ${uncompressedOffset}, bit ${compressedBitOffset}) is not after point ${i - 1} (uncompressed ${previous.uncompressedOffset}, bit ${previous.compressedBitOffset}): points must be in order`,
      at,
    )
  }
  if (!Number.isInteger(windowSize) || windowSize < 0 || windowSize > WINDOW_SIZE || windowSize > uncompressedOffset) {
    throw badIndex(`point ${i}: a window of ${windowSize} bytes is not 0 to 32768 bytes of the ${uncompressedOffset} decoded before the point`, at)
  }
  if ((windowSize === 0) !== (windowBytes === 0) || windowBytes > MAX_COMPRESSED_WINDOW) {
    throw badIndex(`point ${i}: a ${windowSize}-byte window cannot take ${windowBytes} compressed bytes (0 for none, at most ${MAX_COMPRESSED_WINDOW})`, at)
  }
}

/**
 * Checks an index given as an object (e.g. one made by hand or kept in JSON): the format,
 * the sizes, every point (`checkPoint`). Returns it; throws `INVALID_DATA`, or
 * `INVALID_OPTION` for something that is not an index at all.
 */
export function checkGzipIndex(index: unknown): GzipIndex {
  const candidate = index as Partial<GzipIndex> | null
  if (candidate === null || typeof candidate !== 'object' || !Array.isArray(candidate.points)) {
    throw new CodecError('INVALID_OPTION', FORMAT, 'index must be a GzipIndex ({ format, compressedSize, uncompressedSize, points }) or its bytes')
  }
  const { format, compressedSize, uncompressedSize, points } = candidate as GzipIndex
  if (!GZIP_INDEX_FORMATS.includes(format)) throw badIndex(`format ${String(format)} is not gzip, deflate or deflate-raw`)
  for (const [name, value] of [
    ['compressedSize', compressedSize],
    ['uncompressedSize', uncompressedSize],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) throw badIndex(`${name} ${String(value)} is not a non-negative integer`)
  }
  let previous: GzipIndexPoint | null = null
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!
    if (p === null || typeof p !== 'object' || !(p.window instanceof Uint8Array)) throw badIndex(`point ${i} is not { uncompressedOffset, compressedBitOffset, windowSize, window }`)
    checkPoint(i, p.uncompressedOffset, p.compressedBitOffset, p.windowSize, p.window.length, previous, { compressedSize, uncompressedSize })
    previous = p
  }
  return candidate as GzipIndex
}

/** The last point at or before uncompressed offset `offset` (0 when the first is after it). */
export function pointBefore(points: readonly GzipIndexPoint[], offset: number): number {
  let lo = 0
  let hi = points.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    if (points[mid]!.uncompressedOffset <= offset) lo = mid
    else hi = mid - 1
  }
  return lo
}
