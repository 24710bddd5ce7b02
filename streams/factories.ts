import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { prepareDecoder, prepareEncoder } from '../lib/prepare.js'
import { canFlush } from '../lib/formats.js'
import { unflushable, type MachineCodecOptions } from '../lib/codec-options.js'
import { CodecStream, type StreamOptions, type Surface } from './codec-stream.js'
import type { DecodeThreadOptions, ThreadOptions } from './thread-options.js'
import { parallelDecodeStream, parallelEncodeStream } from './parallel-stream.js'
import { decodesInParallel, encodesInBlocks, withoutThreads } from './threads-decision.js'

/**
 * Options of a decoding stream of `F`: the stream's (`signal`, `streams`, `chunkSize`),
 * every decoder's (`engine`, `maxOutputBytes`, `concatenated`, `dictionary`) and the
 * format's own (e.g. zstd `maxWindowLog`), as the format table's schema lists them
 * (lib/formats.ts), and `threads` (parallel zstd and LZ4 decoding, docs/threads.md);
 * any other key throws `INVALID_OPTION`.
 */
export type DecodeStreamOptions<F extends Format = Format> = StreamOptions & MachineCodecOptions<F, 'decode'> & DecodeThreadOptions

/**
 * Options of an encoding stream of `F`: the stream's (`signal`, `streams`, `chunkSize`),
 * every encoder's (`engine`, `level`, `flush`, `dictionary`) and the format's own (e.g.
 * LZ4 `blockSize`, zstd `checksum`, brotli `lgwin`), as the format table's schema lists
 * them (lib/formats.ts), and `threads` / `blockSize` (block mode, docs/threads.md); any
 * other key throws `INVALID_OPTION`.
 */
export type EncodeStreamOptions<F extends Format = Format> = StreamOptions & MachineCodecOptions<F, 'encode'> & ThreadOptions

/**
 * Builds a decoding stream for `format`; checks options synchronously. With `threads`
 * above 1, zstd, LZ4 and the deflate family decode in parallel
 * (streams/parallel-stream.ts `decodesInParallel`); other formats have nothing to split.
 */
export function decodeStream<F extends Format>(format: F, options: DecodeStreamOptions<F> = {} as DecodeStreamOptions<F>, surface?: Surface, allowShared = true): DecoderPair {
  // Kept small: this module is in every user's bundle; the rest loads on first use.
  if (decodesInParallel(format, options)) return parallelDecodeStream(format, options as Record<string, unknown>, { surface, allowShared })
  // `threads` is one of the shell's keys here: there is nothing to split.
  const open = prepareDecoder(format, options, DECODE_SURFACE)
  return new CodecStream({ format, allowShared, surface, signal: options.signal, streams: options.streams, open, bytes: true })
}

/** The decoding streams' keys besides the codec's (the machine's, `signal`, `streams` and `threads`), and their default limit. */
// Streams read with backpressure decode any length unless `maxOutputBytes` is given.
const DECODE_SURFACE = { machine: true, shell: ['signal', 'streams', 'threads'], maxOutputBytes: Infinity } as const

/** Builds an encoding stream for `format`; checks options synchronously. */
export function encodeStream<F extends Format>(format: F, options: EncodeStreamOptions<F> = {} as EncodeStreamOptions<F>, surface?: Surface, allowShared = true): CodecStream {
  const open = prepareEncoder(format, options)
  const why = canFlush(format) ? null : unflushable(format)
  return new CodecStream({ format, allowShared, surface, signal: options.signal, streams: options.streams, open, unflushable: why, bytes: true })
}

/**
 * What every factory returns: a readable/writable pair (`pipeThrough` takes it), driven
 * from the readable side's demand; not a `TransformStream`.
 * @inline
 */
type Pair = ReadableWritablePair<Uint8Array, BinaryInput>
/**
 * What `decodeStream()` returns: a `CodecStream`, or with `threads` a parallel decoding
 * pair; a decoder's `flush()` rejects with `UNSUPPORTED` either way.
 */
export type DecoderPair = Pair & Pick<CodecStream, 'flush'>

/** An encoder pair: `flush()` writes a sync point (see `CodecStream.flush`). */
export type EncoderPair = Pair & {
  /** Writes a sync point after everything written so far; resolves once it is out. */
  flush(): Promise<void>
}

/**
 * The encoder factories' pair: block mode on workers when ./threads-decision.ts says so
 * (`threads` > 1 or a `blockSize`: streams/parallel-stream.ts, issue 22), else the serial
 * stream.
 */
export function encodePair<F extends Format>(format: F, options: EncodeStreamOptions<F> = {} as EncodeStreamOptions<F>): EncoderPair {
  if (encodesInBlocks(format, options)) return parallelEncodeStream(format, options as Record<string, unknown>)
  return encodeStream(format, withoutThreads(options) as EncodeStreamOptions<F>)
}

/** gzip (RFC 1952) decoder; concatenated members are decoded in sequence. */
export const gzipDecode = (options?: DecodeStreamOptions<'gzip'>): Pair => decodeStream('gzip', options)
/** gzip (RFC 1952) encoder; `level` 0–9, default 6. */
export const gzipEncode = (options?: EncodeStreamOptions<'gzip'>): EncoderPair => encodePair('gzip', options)
/** zlib-wrapped deflate (RFC 1950), the web platform's `'deflate'`. */
export const deflateDecode = (options?: DecodeStreamOptions<'deflate'>): Pair => decodeStream('deflate', options)
/** zlib-wrapped deflate (RFC 1950) encoder; `level` 0–9, default 6; `dictionary` writes FDICT. */
export const deflateEncode = (options?: EncodeStreamOptions<'deflate'>): EncoderPair => encodePair('deflate', options)
/** Raw deflate (RFC 1951), the web platform's `'deflate-raw'`. */
export const deflateRawDecode = (options?: DecodeStreamOptions<'deflate-raw'>): Pair => decodeStream('deflate-raw', options)
/** Raw deflate (RFC 1951) encoder; `level` 0–9, default 6. */
export const deflateRawEncode = (options?: EncodeStreamOptions<'deflate-raw'>): EncoderPair => encodePair('deflate-raw', options)
/** LZ4 frame format; concatenated and skippable frames are handled. */
export const lz4Decode = (options?: DecodeStreamOptions<'lz4'>): Pair => decodeStream('lz4', options)
/** LZ4 frame encoder; `level` 1–12, default 1. */
export const lz4Encode = (options?: EncodeStreamOptions<'lz4'>): EncoderPair => encodePair('lz4', options)
/** zstd (RFC 8878); concatenated and skippable frames are handled. */
export const zstdDecode = (options?: DecodeStreamOptions<'zstd'>): Pair => decodeStream('zstd', options)
/** zstd (RFC 8878) encoder; `level` 1–19, default 3; the content checksum is written by default. */
export const zstdEncode = (options?: EncodeStreamOptions<'zstd'>): EncoderPair => encodePair('zstd', options)
/** brotli (RFC 7932). */
export const brotliDecode = (options?: DecodeStreamOptions<'brotli'>): Pair => decodeStream('brotli', options)
/** brotli (RFC 7932) encoder; `level` (quality) 0–11, default 5; `lgwin` 10–24. */
export const brotliEncode = (options?: EncodeStreamOptions<'brotli'>): EncoderPair => encodePair('brotli', options)
/**
 * Snappy's framing format (google/snappy framing_format.txt): every chunk's masked
 * CRC-32C is checked; skippable and padding chunks are skipped. For one raw block
 * ('snappy-raw', as Parquet stores it) use `decode`/`encode` or the span codecs.
 */
export const snappyDecode = (options?: DecodeStreamOptions<'snappy'>): Pair => decodeStream('snappy', options)
/** Snappy framing format encoder: the stream identifier, then one chunk per 64 KiB. */
export const snappyEncode = (options?: EncodeStreamOptions<'snappy'>): EncoderPair => encodePair('snappy', options)
/** RFC 9842 dictionary-compressed zstd ('dcz'): `dictionary` is required. */
export const dczDecode = (options: DecodeStreamOptions<'dcz'>): Pair => decodeStream('dcz', options)
/** RFC 9842 'dcz' encoder (zstd with the dictionary as raw content): `dictionary` is required. */
export const dczEncode = (options: EncodeStreamOptions<'dcz'>): EncoderPair => encodePair('dcz', options)
/** RFC 9842 dictionary-compressed brotli ('dcb'): `dictionary` is required. */
export const dcbDecode = (options: DecodeStreamOptions<'dcb'>): Pair => decodeStream('dcb', options)
/** RFC 9842 'dcb' encoder (brotli with the dictionary): `dictionary` is required. */
export const dcbEncode = (options: EncodeStreamOptions<'dcb'>): EncoderPair => encodePair('dcb', options)
