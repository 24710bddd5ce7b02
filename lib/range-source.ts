/**
 * Sources read by byte ranges, one abstraction for every reader that needs only parts of
 * a file: the Parquet footer reader (`sluice/parquet`), the zstd seekable archive reader
 * and `zstdFrames()`. A source is the whole file in memory (`Uint8Array`, `ArrayBuffer`),
 * a `Blob`, or anything with a `size` and a `read(offset, length)`: an HTTP server that
 * honours `Range` (`httpRangeSource()` in the fetch adapter), a file handle
 * (`fileRangeSource()` in `sluice/node`), or the caller's own.
 *
 * Pure: no I/O of its own; a `Blob` is read through its own `slice().arrayBuffer()`.
 */
import { CodecError } from './errors.js'

/** A source read by ranges, e.g. HTTP Range requests or a file handle. */
export interface RangeSource {
  /** Total size in bytes. */
  readonly size: number
  /** Resolves to exactly `length` bytes starting at `offset`. */
  read(offset: number, length: number): Promise<Uint8Array>
}

/** Anything a range reader accepts: bytes in memory, a `Blob`, or a `RangeSource`. */
export type ByteSource = Uint8Array | ArrayBuffer | Blob | RangeSource

/**
 * `source` as a `RangeSource` whose `size` was checked (a non-negative safe integer).
 * `format` names the caller in errors (`'parquet'`, `'zstd'`). Throws `INVALID_OPTION`
 * for anything else.
 */
export function rangeReader(source: ByteSource, format: string): RangeSource {
  let reader: RangeSource
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
    const bytes = source instanceof Uint8Array ? source : new Uint8Array(source)
    // Views, not copies: the caller's bytes are only read.
    reader = { size: bytes.length, read: async (offset, length) => bytes.subarray(offset, offset + length) }
  } else if (typeof Blob !== 'undefined' && source instanceof Blob) {
    reader = { size: source.size, read: async (offset, length) => new Uint8Array(await source.slice(offset, offset + length).arrayBuffer()) }
  } else {
    const candidate = source as Partial<RangeSource> | null
    if (candidate === null || typeof candidate !== 'object' || typeof candidate.read !== 'function') {
      throw new CodecError('INVALID_OPTION', format, 'source must be a Uint8Array, ArrayBuffer, Blob or { size, read(offset, length) }')
    }
    reader = candidate as RangeSource
  }
  const size = reader.size
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new CodecError('INVALID_OPTION', format, `source size ${String(size)} is not a non-negative integer`)
  }
  return reader
}

/**
 * Reads exactly `length` bytes at `offset` from `reader`: a result that is not a
 * `Uint8Array` is the source's mistake (`INVALID_OPTION`), a short one `TRUNCATED`.
 */
export async function readExactly(reader: RangeSource, offset: number, length: number, format: string): Promise<Uint8Array> {
  const bytes = await reader.read(offset, length)
  if (!(bytes instanceof Uint8Array)) {
    throw new CodecError('INVALID_OPTION', format, `source read(${offset}, ${length}) did not resolve to a Uint8Array`)
  }
  if (bytes.length !== length) {
    throw new CodecError('TRUNCATED', format, `source returned ${bytes.length} bytes for a read of ${length} at ${offset}`, offset + Math.min(bytes.length, length))
  }
  return bytes
}
