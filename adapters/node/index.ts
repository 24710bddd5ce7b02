/**
 * `sluice/node`: Node streams interop. Codecs as Node `Duplex` streams for
 * `stream.pipeline`, `fs` streams and file handles, and converters between Node and
 * WHATWG streams. The node:zlib engine is an explicit choice (`engine: 'node'`), as
 * everywhere in the library.
 *
 *     await pipeline(createReadStream('data.zst'), nodeDecode('zstd'), createWriteStream('data'))
 *
 * @module sluice/node
 */
export { CodecDuplex, nodeDecode, nodeEncode, decodeFile, toWebReadable, fromWebReadable, type FileSource, type NodeCodecDuplex, type NodeCodecOptions, type NodeDecodeOptions, type NodeEncodeOptions } from './streams.js'
export { fileRangeSource, type FileRangeSource } from './file-range-source.js'
export { compression, encodeNodeResponse, sendResponse, toNodeListener, toRequest, type FetchHandler } from './middleware.js'
