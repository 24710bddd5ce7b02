/**
 * Random access into gzip, zlib and raw deflate files (docs/gzip-archives.md), as the
 * root entry exports it. This module imports nothing heavy at run time: each call loads
 * its implementation on first use (gzip-index.ts, gzip-indexed.ts, the index file
 * formats of lib/gzip-index/), so that `import 'sluice'` does not load the indexing
 * decoders, the resuming decoder or the TypeScript inflater and fflate's deflate that the
 * foreign index formats convert windows with.
 */
import type { ByteSource } from '../lib/range-source.js'
import type { GzipIndex } from '../lib/gzip-index/gzip-index.js'
import type { DecodeGzipIndexOptions, EncodeGzipIndexOptions } from '../lib/gzip-index/index-files.js'
import type { GzipIndexInput, GzipIndexOptions } from './gzip-index.js'
import type { GzipIndexed, GzipIndexedOptions } from './gzip-indexed.js'

export { gzipIndexFileFormat, type GzipIndexFileFormat } from '../lib/gzip-index/index-file-kind.js'
export { DEFAULT_GZIP_GROUP_BYTES, type GzipIndex, type GzipIndexPoint, type GzipIndexFormat } from '../lib/gzip-index/gzip-index.js'
export type { IndexEngine } from '../lib/gzip-index/engines.js'
export type { DecodeGzipIndexOptions, EncodeGzipIndexOptions, GzipIndexInput, GzipIndexOptions, GzipIndexed, GzipIndexedOptions }

/**
 * Builds the random-access index of a gzip (default), zlib or raw deflate file: its
 * access points every `spacing` bytes of content (default 4 MiB), each with the 32 KiB
 * window before it, compressed. One pass over `input` (bytes, a `Blob`, a range
 * source read front to back, a `ReadableStream` or async iterable of chunks): the file
 * is decoded once with every check of a plain decode (about 1.1 times its CPU), or, for
 * BGZF, its block headers are walked without decoding (a point per block). Rejects with
 * the decoder's errors for a damaged file.
 */
export async function gzipIndex(input: GzipIndexInput, options: GzipIndexOptions = {}): Promise<GzipIndex> {
  return (await import('./gzip-index.js')).gzipIndex(input, options)
}

/**
 * Opens a gzip, zlib or raw deflate file for random access through its index: given as
 * a `GzipIndex` or an index file (sluice's, indexed_gzip's, gztool's, bgzip's `.gzi`), or
 * built when opening (one full decode). `source` is any range source: bytes, a `Blob`,
 * `httpRangeSource(url)`, `fileRangeSource(path)` from `sluice/node`, or your own
 * `{ size, read }`. Each read then costs one range request, from the point before it to
 * the end of the span its last byte is in. Rejects with `INVALID_DATA` for an index that
 * cannot be right or was made for another file.
 */
export async function openGzipIndexed(source: ByteSource, options: GzipIndexedOptions = {}): Promise<GzipIndexed> {
  return (await import('./gzip-indexed.js')).openGzipIndexed(source, options)
}

/**
 * The index as a file: `'sluice'` (default; checksummed, windows compressed),
 * `'indexed_gzip'` (gzip only; raw 32 KiB windows), `'gztool'` (version 0, zlib
 * windows) or `'gzi'` (bgzip's, for a BGZF file's index).
 */
export async function encodeGzipIndex(index: GzipIndex, options: EncodeGzipIndexOptions = {}): Promise<Uint8Array> {
  return (await import('../lib/gzip-index/index-files.js')).encodeGzipIndex(index, options)
}

/**
 * Reads an index file in any format `encodeGzipIndex` writes (and gztool's version 1,
 * with line numbers), recognised by its first bytes. Every offset, the points' order and
 * the windows' sizes are checked before anything is allocated for them: an index that
 * cannot be right rejects with `INVALID_DATA`; one whose format does not record a size
 * it needs (gztool's, `.gzi`), without it in `options`, with `INVALID_OPTION`.
 */
export async function decodeGzipIndex(bytes: Uint8Array, options: DecodeGzipIndexOptions = {}): Promise<GzipIndex> {
  return (await import('../lib/gzip-index/index-files.js')).decodeGzipIndex(bytes, options)
}
