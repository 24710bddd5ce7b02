/**
 * Reading a footer from where the file is: memory, a `Blob`, or a range reader.
 *
 * File layout (parquet-format README, "File Format"): `PAR1`, column chunks, the
 * Thrift `FileMetaData`, its length as a 4-byte little-endian integer, `PAR1`. A file
 * with an encrypted footer ends in `PARE` instead (parquet-format Encryption.md, 5.3).
 * The end of the file is read speculatively (`tailSize`, default 64 KiB): a footer that
 * fits takes that one read, a larger one exactly one more for the bytes before it.
 */
import { CodecError } from '../errors.js'
import { checkInteger } from '../options.js'
import { decodeFileMetaData } from './metadata.js'
import { rangeReader, readExactly as readRange } from '../range-source.js'
import type { FileMetaData, MetadataSource, RangeSource, SourceOptions } from './types.js'

const FORMAT = 'parquet'
const MAGIC = 0x31524150 // 'PAR1' little-endian
const MAGIC_ENCRYPTED = 0x45524150 // 'PARE'
const TRAILER = 8 // footer length + magic

/** Default speculative tail read. */
export const DEFAULT_TAIL_SIZE = 64 * 1024
/** Default `maxFooterBytes`. */
export const DEFAULT_MAX_FOOTER_BYTES = 256 * 1024 * 1024

/**
 * Reads and decodes the footer of a Parquet file. `source` is the whole file in
 * memory, a `Blob`, or `{ size, read(offset, length) }`. Rejects with a `CodecError`.
 */
export async function parquetMetadata(source: MetadataSource, options?: SourceOptions): Promise<FileMetaData> {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) return parquetMetadataSync(source, options)
  const { tailSize, maxFooterBytes } = sourceOptions(options)
  const reader = rangeReader(source, FORMAT)
  const size = reader.size
  if (size < TRAILER) tooSmall(size)
  const tailLength = Math.min(size, Math.max(tailSize, TRAILER))
  const tailStart = size - tailLength
  const tail = await readExactly(reader, tailStart, tailLength)
  const metadataLength = checkTrailer(tail, size, maxFooterBytes)
  const metadataStart = size - TRAILER - metadataLength
  let footer: Uint8Array
  if (metadataStart >= tailStart) {
    footer = tail.subarray(metadataStart - tailStart, tailLength - TRAILER)
  } else {
    // The footer is longer than the tail: one more read for the bytes before it.
    const head = await readExactly(reader, metadataStart, tailStart - metadataStart)
    footer = new Uint8Array(metadataLength)
    footer.set(head, 0)
    footer.set(tail.subarray(0, tailLength - TRAILER), head.length)
  }
  return decodeFileMetaData(footer, options, metadataStart)
}

/**
 * The synchronous form for a file (or at least its footer and trailer: the bytes
 * before the footer are not needed) already in memory.
 */
export function parquetMetadataSync(file: Uint8Array | ArrayBuffer, options?: SourceOptions): FileMetaData {
  const bytes = file instanceof Uint8Array ? file : new Uint8Array(file)
  const { maxFooterBytes } = sourceOptions(options)
  if (bytes.length < TRAILER) tooSmall(bytes.length)
  const metadataLength = checkTrailer(bytes, bytes.length, maxFooterBytes)
  const start = bytes.length - TRAILER - metadataLength
  return decodeFileMetaData(bytes.subarray(start, bytes.length - TRAILER), options, start)
}

function sourceOptions(options: SourceOptions | undefined): { tailSize: number; maxFooterBytes: number } {
  return {
    tailSize: checkInteger(FORMAT, 'tailSize', options?.tailSize, 0, Number.MAX_SAFE_INTEGER, DEFAULT_TAIL_SIZE),
    maxFooterBytes: checkInteger(FORMAT, 'maxFooterBytes', options?.maxFooterBytes, 0, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_FOOTER_BYTES),
  }
}

function tooSmall(size: number): never {
  throw new CodecError('INVALID_DATA', FORMAT, `${size} bytes are too few for a Parquet file (its trailer alone is 8)`, 0)
}

/**
 * Checks the magic and the footer length in the last 8 bytes of `tail`, the end of a
 * file of `size` bytes; returns the footer length.
 */
function checkTrailer(tail: Uint8Array, size: number, maxFooterBytes: number): number {
  const n = tail.length
  const magic = (tail[n - 4]! | (tail[n - 3]! << 8) | (tail[n - 2]! << 16) | (tail[n - 1]! << 24)) >>> 0
  const lengthAt = size - TRAILER
  if (magic === MAGIC_ENCRYPTED) {
    throw new CodecError(
      'UNSUPPORTED',
      FORMAT,
      'encrypted footer not supported (file ends in PARE; files encrypted with a plaintext footer end in PAR1 and can be read)',
      size - 4,
    )
  }
  if (magic !== MAGIC) {
    const hex = Array.from(tail.subarray(n - 4), (b) => b.toString(16).padStart(2, '0')).join(' ')
    throw new CodecError('INVALID_DATA', FORMAT, `not a Parquet file: it ends in ${hex}, expected PAR1 (50 41 52 31)`, size - 4)
  }
  const length = (tail[n - 8]! | (tail[n - 7]! << 8) | (tail[n - 6]! << 16) | (tail[n - 5]! << 24)) >>> 0
  if (length > size - TRAILER) {
    throw new CodecError(
      'INVALID_DATA',
      FORMAT,
      `footer length ${length} exceeds the ${size - TRAILER} bytes before the trailer`,
      lengthAt,
    )
  }
  if (length > maxFooterBytes) {
    throw new CodecError('LIMIT_EXCEEDED', FORMAT, `footer length ${length} exceeds maxFooterBytes ${maxFooterBytes}`, lengthAt)
  }
  return length
}

/** The shared range read (lib/range-source.ts), named by this format in errors. */
function readExactly(reader: RangeSource, offset: number, length: number): Promise<Uint8Array> {
  return readRange(reader, offset, length, FORMAT)
}
