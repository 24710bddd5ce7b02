/**
 * `encodeGzipIndex` and `decodeGzipIndex`: a `GzipIndex` as a file, in sluice's own
 * format (sluice-index-format.ts) or a foreign one (indexed_gzip's, gztool's, bgzip's
 * `.gzi`), and back, the format recognised by its first bytes.
 */
import { CodecError } from '../errors.js'
import { checkKeys } from '../options.js'
import { checkGzipIndex, type GzipIndex } from './gzip-index.js'
import { decodeSluiceIndex, encodeSluiceIndex } from './sluice-index-format.js'
import { decodeIndexedGzipIndex, encodeIndexedGzipIndex } from './indexed-gzip-format.js'
import { decodeGztoolIndex, encodeGztoolIndex } from './gztool-format.js'
import { decodeGzi, encodeGzi } from './gzi-format.js'
import { gzipIndexFileFormat, type GzipIndexFileFormat } from './index-file-kind.js'

export type { GzipIndexFileFormat }

const FORMAT = 'gzip-index'
const FILE_FORMATS: readonly GzipIndexFileFormat[] = ['sluice', 'indexed_gzip', 'gztool', 'gzi']

/** Options of `encodeGzipIndex`. */
export interface EncodeGzipIndexOptions {
  /** The file format; default `'sluice'`. */
  format?: GzipIndexFileFormat
}

/** Options of `decodeGzipIndex`: what a format does not record (gztool's, `.gzi`). */
export interface DecodeGzipIndexOptions {
  /** The compressed file's size in bytes (gztool and `.gzi` indexes do not record it). */
  compressedSize?: number
  /** The size of its content in bytes (`.gzi` does not record it). */
  uncompressedSize?: number
  /** Whether a gztool index is of a gzip file (default) or a zlib stream (`'deflate'`); gztool reads both and does not say. */
  format?: 'gzip' | 'deflate'
}

/**
 * The index as a file. `'sluice'` (default) keeps everything and is checked by CRC-32s;
 * `'indexed_gzip'` (gzip only) stores each window uncompressed, 32 KiB a point;
 * `'gztool'` (version 0, no line numbers) stores them zlib-compressed; `'gzi'` is for
 * BGZF files, whose points need no windows.
 */
export function encodeGzipIndex(index: GzipIndex, options: EncodeGzipIndexOptions = {}): Uint8Array {
  checkKeys(FORMAT, options, ['format'])
  const format = options.format ?? 'sluice'
  if (!FILE_FORMATS.includes(format)) throw new CodecError('INVALID_OPTION', FORMAT, `format must be ${FILE_FORMATS.map((f) => `'${f}'`).join(', ')}, got ${String(format)}`)
  checkGzipIndex(index)
  switch (format) {
    case 'indexed_gzip':
      return encodeIndexedGzipIndex(index)
    case 'gztool':
      return encodeGztoolIndex(index)
    case 'gzi':
      return encodeGzi(index)
    default:
      return encodeSluiceIndex(index)
  }
}

/**
 * Reads an index file in any format `encodeGzipIndex` writes (and gztool's version 1,
 * with line numbers), recognised by its first bytes. Every offset, the order of the
 * points and the windows' sizes are checked before anything is allocated for them;
 * throws `INVALID_DATA` for an index that cannot be right, `INVALID_OPTION` when a size
 * the format does not record is needed and not given.
 */
export function decodeGzipIndex(bytes: Uint8Array, options: DecodeGzipIndexOptions = {}): GzipIndex {
  checkKeys(FORMAT, options, ['compressedSize', 'uncompressedSize', 'format'])
  if (!(bytes instanceof Uint8Array)) throw new CodecError('INVALID_OPTION', FORMAT, 'the index must be a Uint8Array')
  const format = gzipIndexFileFormat(bytes)
  const need = (name: 'compressedSize' | 'uncompressedSize', what: string): number => {
    const v = options[name]
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
      throw new CodecError('INVALID_OPTION', FORMAT, `${what} indexes do not record the file's ${name === 'compressedSize' ? 'size' : 'content size'}: pass ${name} (openGzipIndexed takes it from the file)`)
    }
    return v
  }
  switch (format) {
    case 'sluice':
      return decodeSluiceIndex(bytes)
    case 'indexed_gzip':
      return decodeIndexedGzipIndex(bytes)
    case 'gztool':
      return decodeGztoolIndex(bytes, need('compressedSize', 'gztool'), options.format ?? 'gzip')
    case 'gzi':
      return decodeGzi(bytes, need('compressedSize', '.gzi'), need('uncompressedSize', '.gzi'))
    default:
      throw new CodecError('INVALID_DATA', FORMAT, `not a gzip index: the ${bytes.length} bytes start with none of "sluiceGZ" (sluice), "GZIDX" (indexed_gzip), 8 zeros and "gzipindx" (gztool), nor are they a .gzi (bgzip -i)`, 0)
  }
}
