/**
 * The streams layer: span codecs, streams, the web-compatible classes and one-shot
 * helpers. The package's root entry (`index.ts`) re-exports all of it.
 */
export { Status, statusName } from '../lib/status.js'
export { CodecError, type ErrorCode, type Failure } from '../lib/errors.js'
export type { SpanCodec, Decoder, Encoder, Format, FormatTraits, Role } from '../lib/codec.js'
export { createDecoder, createEncoder, loadCodec, type CodecModule } from '../lib/registry.js'
export { FORMATS, type Engine } from '../lib/formats.js'
export { DEFAULT_MAX_OUTPUT_BYTES } from '../lib/codec-options.js'
export type {
  CodecOptions,
  MachineCodecOptions,
  AnyFormatDecodeOptions,
  AnyFormatEncodeOptions,
  DecodeMachineOptions,
  EncodeMachineOptions,
  DecodeOptionsByFormat,
  EncodeOptionsByFormat,
  GzipDecodeOptions,
  GzipEncodeOptions,
  DeflateDecodeOptions,
  DeflateEncodeOptions,
  DeflateRawDecodeOptions,
  DeflateRawEncodeOptions,
  Lz4DecodeOptions,
  Lz4EncodeOptions,
  Lz4BlockDecodeOptions,
  Lz4BlockEncodeOptions,
  ZstdDecodeOptions,
  ZstdEncodeOptions,
  BrotliDecodeOptions,
  BrotliEncodeOptions,
  DczDecodeOptions,
  DczEncodeOptions,
  DcbDecodeOptions,
  DcbEncodeOptions,
  SnappyDecodeOptions,
  SnappyEncodeOptions,
  SnappyRawDecodeOptions,
  SnappyRawEncodeOptions,
} from '../lib/option-types.js'
export { Machine, DEFAULT_BLOCK_SIZE, type MachineOptions } from '../lib/machine.js'
export { decode, encode, closeWorkers, MAX_THREADS, MAX_AUTO_THREADS, MIN_PARALLEL_BYTES, type DecodedWithIndex, type DecodeIndexOptions, type ThreadOptions, type Threads, type DecodeOptions, type EncodeOptions } from './one-shot.js'
export type { OneShotDecodeOptions, OneShotEncodeOptions } from '../lib/whole-buffer.js'
export type { Progress, ProgressCallback } from '../lib/progress.js'
export type { BinaryInput } from '../lib/bytes.js'
export { CodecStream, type StreamClasses, type StreamOptions, type Surface } from './codec-stream.js'
export {
  decodeStream,
  encodeStream,
  gzipDecode,
  gzipEncode,
  deflateDecode,
  deflateEncode,
  deflateRawDecode,
  deflateRawEncode,
  lz4Decode,
  lz4Encode,
  zstdDecode,
  zstdEncode,
  brotliDecode,
  brotliEncode,
  snappyDecode,
  snappyEncode,
  dczDecode,
  dczEncode,
  dcbDecode,
  dcbEncode,
  type DecodeStreamOptions,
  type EncodeStreamOptions,
  type DecoderPair,
  type EncoderPair,
} from './factories.js'
export type { DecodeThreadOptions } from './thread-options.js'
export { CompressionStream, DecompressionStream, type CompressionStreamOptions, type DecompressionStreamOptions } from './compression-stream.js'
export { decompress, type DecompressOptions } from './decompress.js'
export type { DictionariesOption, DictionaryLookup } from '../lib/dictionary-lookup.js'
export { openZstdSeekable, DEFAULT_MAX_FRAMES, DEFAULT_MAX_SEEKABLE_FRAME, DEFAULT_SEEKABLE_TAIL, DEFAULT_GROUP_BYTES, type ZstdSeekable, type ZstdSeekableFrame, type ZstdSeekableOptions } from './zstd-seekable.js'
export type { RangeSource, ByteSource } from '../lib/range-source.js'
export {
  gzipIndex,
  openGzipIndexed,
  encodeGzipIndex,
  decodeGzipIndex,
  gzipIndexFileFormat,
  DEFAULT_GZIP_GROUP_BYTES,
  type GzipIndex,
  type GzipIndexPoint,
  type GzipIndexFormat,
  type GzipIndexFileFormat,
  type GzipIndexInput,
  type GzipIndexOptions,
  type GzipIndexed,
  type GzipIndexedOptions,
  type EncodeGzipIndexOptions,
  type DecodeGzipIndexOptions,
  type IndexEngine,
} from './gzip-archives.js'
export { zstdFrames, type ZstdFrameInfo, type ZstdFramesOptions } from '../lib/codecs/zstd-frame-list.js'
