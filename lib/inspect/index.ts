/**
 * `sluice/inspect`: what a file's headers say, read without decoding its content, in any
 * runtime: the report `sluice inspect --json` prints and the text it prints for people.
 * gzip header fields; zstd frames and seek tables; LZ4 frame flags and blocks; brotli's
 * window; RFC 9842 dcz/dcb headers; Arrow IPC schema, batches and body compression;
 * Parquet schema, row groups, codecs and statistics (read by ranges).
 *
 * ```ts
 * import { inspect, inspectText } from 'sluice/inspect'
 * const report = await inspect(file, { name: file.name })   // bytes, a Blob or a range source
 * console.log(report.kind, inspectText(report, file.name))
 * ```
 *
 * Beside it, the ways sluice states sizes, ratios and file names, which the reports and
 * the CLI use: `formatBytes`, `ratioOf`, `formatRatio`, `suffixOf`, `formatOfName`.
 *
 * @module sluice/inspect
 */
export { inspect, DEFAULT_MAX_INSPECT_BYTES, type InspectOptions, type InspectReport } from './inspect.js'
export { inspectText } from './text.js'
export type { GzipInfo, ZlibInfo, ZstdInfo, ZstdFrameSummary, SeekableInfo, Lz4Info, Lz4FrameSummary, BrotliInfo, TransportInfo } from './codecs.js'
export type { ArrowInfo, ArrowFieldInfo, ArrowBatchInfo, ParquetInfo, ParquetColumnInfo } from './columnar.js'
export { formatBytes } from '../format-bytes.js'
export { ratioOf, formatRatio } from '../ratio.js'
export { suffixOf, formatOfName } from '../suffixes.js'
