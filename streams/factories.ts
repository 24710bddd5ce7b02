import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { prepareDecoder, prepareEncoder } from '../lib/prepare.js'
import { canFlush, unflushable, type Engine, type FlushMode } from '../lib/formats.js'
import { CodecStream, type StreamOptions, type Surface } from './codec-stream.js'

export interface DecodeStreamOptions extends StreamOptions {
  /** Engine: `'js'`/`'wasm'` (portable, the default per format) or `'node'` (node:zlib). */
  engine?: Engine
  /**
   * Most bytes the stream may produce; more errors with `LIMIT_EXCEEDED` before the
   * memory is spent. Default 2 GiB.
   */
  maxOutputBytes?: number
  /**
   * Whether another frame/member may follow the first (gzip members, LZ4 and zstd
   * frames). Default: what the format allows. `false` makes bytes after the first
   * frame an error, as the web platform's `DecompressionStream('gzip')` does.
   */
  concatenated?: boolean
  /**
   * The encoder's preset dictionary: 'deflate' (zlib) checks it against the stream's
   * DICTID; 'deflate-raw' starts with it as the window. Refused for gzip.
   */
  dictionary?: BinaryInput
  /** Format-specific options (e.g. zstd `maxWindowLog`) pass through to the codec. */
  [option: string]: unknown
}

export interface EncodeStreamOptions extends StreamOptions {
  engine?: Engine
  /** Compression level; range and default depend on the format. */
  level?: number
  /**
   * A preset dictionary: 'deflate' (zlib) writes FDICT and its DICTID (Adler-32);
   * 'deflate-raw' starts with it as the window (only its last 32 KiB count). The decoder
   * needs the same bytes. Refused for gzip.
   */
  dictionary?: BinaryInput
  /**
   * `'write'`: end the output of every written chunk with a sync point, so that a
   * decoder can produce everything written so far without the rest of the stream
   * (deflate family: sync flush; brotli: BROTLI_OPERATION_FLUSH; zstd: end of block;
   * LZ4: end of the current block). For live streams (server-sent events, logs); it
   * costs ratio on small writes. Default `'none'`.
   */
  flush?: FlushMode
  /** Format-specific options (e.g. LZ4 `blockSize`, zstd `checksum`) pass through. */
  [option: string]: unknown
}

/** Builds a decoding stream for `format`; checks options synchronously. */
export function decodeStream(format: Format, options: DecodeStreamOptions = {}, surface?: Surface, allowShared = true): CodecStream {
  const open = prepareDecoder(format, options)
  return new CodecStream({ format, allowShared, surface, signal: options.signal, streams: options.streams, open, bytes: true })
}

/** Builds an encoding stream for `format`; checks options synchronously. */
export function encodeStream(format: Format, options: EncodeStreamOptions = {}, surface?: Surface, allowShared = true): CodecStream {
  const open = prepareEncoder(format, options)
  const why = canFlush(format) ? null : unflushable(format)
  return new CodecStream({ format, allowShared, surface, signal: options.signal, streams: options.streams, open, unflushable: why, bytes: true })
}

/**
 * What every factory returns: a readable/writable pair (`pipeThrough` takes it), driven
 * from the readable side's demand; not a `TransformStream` (see `codec-stream.ts`).
 */
type Pair = ReadableWritablePair<Uint8Array, BinaryInput>
/** An encoder pair: `flush()` writes a sync point (see `CodecStream.flush`). */
export type EncoderPair = Pair & { flush(): Promise<void> }

/** gzip (RFC 1952) decoder; concatenated members are decoded in sequence. */
export const gzipDecode = (options?: DecodeStreamOptions): Pair => decodeStream('gzip', options)
/** gzip (RFC 1952) encoder; `level` 0–9, default 6. */
export const gzipEncode = (options?: EncodeStreamOptions): EncoderPair => encodeStream('gzip', options)
/** zlib-wrapped deflate (RFC 1950), the web platform's `'deflate'`. */
export const deflateDecode = (options?: DecodeStreamOptions): Pair => decodeStream('deflate', options)
export const deflateEncode = (options?: EncodeStreamOptions): EncoderPair => encodeStream('deflate', options)
/** Raw deflate (RFC 1951), the web platform's `'deflate-raw'`. */
export const deflateRawDecode = (options?: DecodeStreamOptions): Pair => decodeStream('deflate-raw', options)
export const deflateRawEncode = (options?: EncodeStreamOptions): EncoderPair => encodeStream('deflate-raw', options)
/** LZ4 frame format; concatenated and skippable frames are handled. */
export const lz4Decode = (options?: DecodeStreamOptions): Pair => decodeStream('lz4', options)
export const lz4Encode = (options?: EncodeStreamOptions): EncoderPair => encodeStream('lz4', options)
/** zstd (RFC 8878); concatenated and skippable frames are handled. */
export const zstdDecode = (options?: DecodeStreamOptions): Pair => decodeStream('zstd', options)
export const zstdEncode = (options?: EncodeStreamOptions): EncoderPair => encodeStream('zstd', options)
/** brotli (RFC 7932). */
export const brotliDecode = (options?: DecodeStreamOptions): Pair => decodeStream('brotli', options)
export const brotliEncode = (options?: EncodeStreamOptions): EncoderPair => encodeStream('brotli', options)
/**
 * Snappy's framing format (google/snappy framing_format.txt): every chunk's masked
 * CRC-32C is checked; skippable and padding chunks are skipped. For one raw block
 * ('snappy-raw', as Parquet stores it) use `decode`/`encode` or the span codecs.
 */
export const snappyDecode = (options?: DecodeStreamOptions): Pair => decodeStream('snappy', options)
/** Snappy framing format encoder: the stream identifier, then one chunk per 64 KiB. */
export const snappyEncode = (options?: EncodeStreamOptions): EncoderPair => encodeStream('snappy', options)
/** RFC 9842 dictionary-compressed zstd ('dcz'): `dictionary` is required. */
export const dczDecode = (options: DecodeStreamOptions): Pair => decodeStream('dcz', options)
export const dczEncode = (options: EncodeStreamOptions): EncoderPair => encodeStream('dcz', options)
/** RFC 9842 dictionary-compressed brotli ('dcb'): `dictionary` is required. */
export const dcbDecode = (options: DecodeStreamOptions): Pair => decodeStream('dcb', options)
export const dcbEncode = (options: EncodeStreamOptions): EncoderPair => encodeStream('dcb', options)
