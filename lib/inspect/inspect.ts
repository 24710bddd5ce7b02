/**
 * `inspect()`: what a file's headers say, read without decoding its content, as `sluice
 * inspect` prints it. The kind of file is recognised by its bytes (magic numbers,
 * Parquet's `PAR1` trailer) and, where the bytes cannot tell (brotli has no magic, an
 * Arrow IPC stream only a length prefix, a skippable frame starts zstd and LZ4 alike),
 * by its name's suffix; then the kind's reader (codecs.ts, columnar.ts) reports.
 */
import { CodecError } from '../errors.js'
import { zlibHeaderAt } from '../detect.js'
import { transportHeaderAt } from '../dictionary-lookup.js'
import { checkInteger } from '../options.js'
import { rangeReader, readExactly, type ByteSource, type RangeSource } from '../range-source.js'
import { formatOfName } from '../suffixes.js'
import { inspectBrotli, inspectGzip, inspectLz4, inspectTransport, inspectZlib, inspectZstd, seekableOf, type BrotliInfo, type GzipInfo, type Lz4Info, type TransportInfo, type ZlibInfo, type ZstdInfo } from './codecs.js'
import { inspectArrow, inspectParquet, type ArrowInfo, type ParquetInfo } from './columnar.js'

/** What `inspect()` reports: one of these, told apart by `kind`. */
export type InspectReport = GzipInfo | ZlibInfo | ZstdInfo | Lz4Info | BrotliInfo | TransportInfo | ArrowInfo | ParquetInfo

/** Options of `inspect()`. */
export interface InspectOptions {
  /**
   * The file's name or URL: its suffix tells what the bytes cannot (`.br` for brotli,
   * `.arrows`/`.feather` for an Arrow IPC stream, `.lz4` for an LZ4 file that starts with
   * a skippable frame).
   */
  name?: string
  /**
   * The most bytes read into memory for the kinds whose readers walk the whole file (all
   * but Parquet, whose footer is read by ranges). Default 1 GiB, at most 2^31 - 1 (the
   * largest array a 32-bit index reaches): a larger file is `LIMIT_EXCEEDED` before any
   * of it is read, so a huge file cannot exhaust a page's or a process's memory.
   */
  maxBytes?: number
}

/** `maxBytes`' default: 1 GiB. */
export const DEFAULT_MAX_INSPECT_BYTES = 2 ** 30

const PAR1 = [0x50, 0x41, 0x52, 0x31]
const starts = (b: Uint8Array, magic: readonly number[], at = 0) => magic.every((m, i) => b[at + i] === m)

/**
 * What the headers of `source` (bytes, a `Blob`, or a range source) say: gzip header
 * fields; zstd frames and a seekable archive's seek table; LZ4 frame flags and blocks;
 * brotli's window; RFC 9842 dcz/dcb headers; Arrow IPC schema, batches and body
 * compression; Parquet schema, row groups, codecs and statistics (its footer read by
 * range reads, so a remote file costs a few requests). Rejects with `UNSUPPORTED` for a
 * kind it does not know, `TRUNCATED` for an empty source; damage found after a
 * readable start is reported in the result's `error` with the offset.
 */
export async function inspect(source: ByteSource, options: InspectOptions = {}): Promise<InspectReport> {
  const maxBytes = checkInteger('inspect', 'maxBytes', options.maxBytes, 0, 2 ** 31 - 1, DEFAULT_MAX_INSPECT_BYTES)
  const name = (options.name ?? '').replace(/[?#].*$/, '').toLowerCase()
  const reader = rangeReader(source, 'inspect')
  // Parquet first, by its trailer, without reading the file.
  const parquet = await parquetOf(reader).catch((error: unknown) => {
    if (/\.parquet$/.test(name)) throw error
    return null
  })
  if (parquet) return parquet
  if (reader.size > maxBytes) throw new CodecError('LIMIT_EXCEEDED', 'inspect', `the file is ${reader.size} bytes, more than maxBytes (${maxBytes})`)
  return inspectBytes(await readExactly(reader, 0, reader.size, 'inspect'), name)
}

/** The Parquet report when the source ends with `PAR1`, else null. */
export async function parquetOf(source: RangeSource): Promise<ParquetInfo | null> {
  if (source.size < 12) return null
  const tail = await readExactly(source, source.size - 4, 4, 'inspect')
  return starts(tail, PAR1) ? inspectParquet(source) : null
}

/** The report on the whole file `b` (a Parquet file: parquetOf, by ranges); `name`, lower case, for the suffix hints. */
export async function inspectBytes(b: Uint8Array, name = ''): Promise<InspectReport> {
  if (b.length === 0) throw new CodecError('TRUNCATED', 'inspect', 'the file is empty')
  const hint = formatOfName(name)?.format
  const skippable = ((b[0] ?? 0) & 0xf0) === 0x50 && starts(b, [0x2a, 0x4d, 0x18], 1)
  if (starts(b, [0x1f, 0x8b])) return inspectGzip(b)
  if (transportHeaderAt('dcz', b) === 'match') return inspectTransport('dcz', b)
  if (transportHeaderAt('dcb', b) === 'match') return inspectTransport('dcb', b)
  if (starts(b, [0x28, 0xb5, 0x2f, 0xfd]) || (skippable && hint !== 'lz4')) return { ...(await inspectZstd(b)), seekable: seekableOf(b) }
  if (starts(b, [0x04, 0x22, 0x4d, 0x18]) || (skippable && hint === 'lz4')) return inspectLz4(b)
  if (starts(b, [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]) || starts(b, [0xff, 0xff, 0xff, 0xff]) || /\.(arrows?|feather|ipc|stream|arrow_file)$/.test(name)) return inspectArrow(b)
  if (hint === 'brotli') return inspectBrotli(b)
  if (zlibHeaderAt(b) === 'match' || hint === 'deflate') return inspectZlib(b)
  throw new CodecError('UNSUPPORTED', 'inspect', `not a format inspect knows: it starts ${Array.from(b.subarray(0, 8), (x) => x.toString(16).padStart(2, '0')).join(' ')} (gzip, zlib, zstd, LZ4 frame, brotli by its .br suffix, dcz, dcb, Arrow IPC, Parquet)`)
}
