/**
 * `sluice/arrow`: Arrow IPC over this library's LZ4 frame and zstd codecs, producing and
 * consuming apache-arrow (peer dependency) `RecordBatch` and `Table` objects.
 *
 * Memory: `readArrow()` and `fromBuffer()` return uncompressed buffers (including
 * those a writer stored uncompressed inside a compressed message) as zero-copy views
 * of the input where alignment allows (do not modify the input while you use them);
 * `arrowDecode()` over ordinary chunks copies them once and never aliases your chunks.
 * Compressed buffers always decode into new memory.
 *
 * @module sluice/arrow
 */
export { arrowDecode, fromBuffer, readArrow, type ArrowChunk, type ArrowDecodeOptions, type ArrowDecodeStream, type ArrowReadOptions, type ArrowSource } from './read.js'
export { arrowEncode, arrowEncodeFile, type ArrowEncodeOptions } from './write.js'
export { registerArrowCodecs, type ArrowCompressionRegistry, type RegisterArrowCodecsOptions } from './register.js'
