/**
 * The stream factories: `decodeStream(format)` and `encodeStream(format)`, and the named
 * pairs (`gzipDecode()`, `zstdEncode()`, ...), which call them, so that a named factory
 * and the generic one take the same options and make the same stream. What they take:
 * the codec's options (lib/option-types.ts, from the format table's schema), the
 * machine's, and `STREAM_KEYS` (./codec-stream.ts: the stream's and the threads').
 */
import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { prepareDecoder, prepareEncoder } from '../lib/prepare.js'
import { canFlush } from '../lib/formats.js'
import { unflushable } from '../lib/codec-options.js'
import type { CodecOptions, DecodeMachineOptions, EncodeMachineOptions } from '../lib/option-types.js'
import { CodecStream, STREAM_KEYS, type StreamOptions, type Surface } from './codec-stream.js'
import type { DecodeThreadOptions, ThreadOptions } from './thread-options.js'
import { parallelDecodeStream, parallelEncodeStream } from './parallel-stream.js'
import { decodesInParallel, encodesInBlocks } from './threads-decision.js'

/**
 * Options of a decoding stream of `F` (`decodeStream(format)`, `gzipDecode()`, ...): the
 * decoder's ({@link DecodeOptionsByFormat}`[F]`: `engine`, `maxOutputBytes`,
 * `dictionary` and the format's own, e.g. {@link ZstdDecodeOptions}), the machine's
 * ({@link DecodeMachineOptions}: `chunkSize`, `concatenated`, `onProgress`), the
 * stream's ({@link StreamOptions}: `signal`, `streams`) and `threads`
 * ({@link DecodeThreadOptions}: parallel zstd and LZ4 decoding); any other key throws
 * `INVALID_OPTION`.
 */
export type DecodeStreamOptions<F extends Format = Format> = CodecOptions<F, 'decode'> & DecodeMachineOptions & StreamOptions & DecodeThreadOptions

/**
 * Options of an encoding stream of `F` (`encodeStream(format)`, `gzipEncode()`, ...): the
 * encoder's ({@link EncodeOptionsByFormat}`[F]`: `engine`, `level`, `dictionary` and the
 * format's own, e.g. {@link ZstdEncodeOptions}, {@link GzipEncodeOptions}), the
 * machine's ({@link EncodeMachineOptions}: `chunkSize`, `flush`, `onProgress`), the
 * stream's ({@link StreamOptions}: `signal`, `streams`) and `threads` / `blockSize`
 * ({@link ThreadOptions}: block mode); any other key throws `INVALID_OPTION`.
 */
export type EncodeStreamOptions<F extends Format = Format> = CodecOptions<F, 'encode'> & EncodeMachineOptions & StreamOptions & ThreadOptions

/**
 * Builds a decoding stream for `format`; checks options synchronously. With `threads`
 * above 1, zstd, LZ4 and the deflate family decode in parallel (docs/threads.md); other
 * formats have nothing to split and decode on this thread. The named decoders
 * (`gzipDecode()`, ...) call this.
 */
export function decodeStream<F extends Format>(format: F, options: DecodeStreamOptions<F> = {} as DecodeStreamOptions<F>, surface?: Surface, allowShared = true): DecoderPair {
  // Kept small: this module is in every user's bundle; the rest loads on first use.
  if (decodesInParallel(format, options)) return parallelDecodeStream(format, options as Record<string, unknown>, { surface, allowShared })
  // `threads` is one of the shell's keys here: there is nothing to split.
  const open = prepareDecoder(format, options, DECODE_SURFACE)
  return new CodecStream({ format, allowShared, surface, signal: options.signal, streams: options.streams, open, bytes: true })
}

/**
 * The decoding streams' keys besides the codec's: the machine's and `STREAM_KEYS.decode`;
 * and their default limit.
 */
// Streams read with backpressure decode any length unless `maxOutputBytes` is given.
const DECODE_SURFACE = { machine: true, shell: STREAM_KEYS.decode, maxOutputBytes: Infinity } as const
/**
 * The serial encoding streams' keys besides the codec's: the machine's and
 * `STREAM_KEYS.encode` (`threads: 1` is taken here; `threads` above 1 and a `blockSize`
 * other than LZ4's, its frame option, go to block mode first).
 */
const ENCODE_SURFACE = { machine: true, shell: STREAM_KEYS.encode } as const

/**
 * Builds an encoding stream for `format`; checks options synchronously. With `threads`
 * above 1 or a `blockSize`, block mode on workers (docs/threads.md): gzip, deflate,
 * deflate-raw and zstd blocks that encode apart, the same bytes for any thread count at
 * the same `blockSize`. The named encoders (`gzipEncode()`, ...) call this.
 */
export function encodeStream<F extends Format>(format: F, options: EncodeStreamOptions<F> = {} as EncodeStreamOptions<F>, surface?: Surface, allowShared = true): EncoderPair {
  if (encodesInBlocks(format, options)) return parallelEncodeStream(format, options as Record<string, unknown>, { surface, allowShared })
  const open = prepareEncoder(format, options, ENCODE_SURFACE)
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
 * gzip (RFC 1952) decoder; concatenated members are decoded in sequence.
 * Options: {@link GzipDecodeOptions}, and the stream's ({@link DecodeStreamOptions}).
 */
export const gzipDecode = (options?: DecodeStreamOptions<'gzip'>): Pair => decodeStream('gzip', options)
/**
 * gzip (RFC 1952) encoder; `level` 0–9, default 6.
 * Options: {@link GzipEncodeOptions}, and the stream's ({@link EncodeStreamOptions}).
 */
export const gzipEncode = (options?: EncodeStreamOptions<'gzip'>): EncoderPair => encodeStream('gzip', options)
/**
 * zlib-wrapped deflate (RFC 1950), the web platform's `'deflate'`.
 * Options: {@link DeflateDecodeOptions}, and the stream's ({@link DecodeStreamOptions}).
 */
export const deflateDecode = (options?: DecodeStreamOptions<'deflate'>): Pair => decodeStream('deflate', options)
/**
 * zlib-wrapped deflate (RFC 1950) encoder; `level` 0–9, default 6; `dictionary` writes FDICT.
 * Options: {@link DeflateEncodeOptions}, and the stream's ({@link EncodeStreamOptions}).
 */
export const deflateEncode = (options?: EncodeStreamOptions<'deflate'>): EncoderPair => encodeStream('deflate', options)
/**
 * Raw deflate (RFC 1951), the web platform's `'deflate-raw'`.
 * Options: {@link DeflateRawDecodeOptions}, and the stream's ({@link DecodeStreamOptions}).
 */
export const deflateRawDecode = (options?: DecodeStreamOptions<'deflate-raw'>): Pair => decodeStream('deflate-raw', options)
/**
 * Raw deflate (RFC 1951) encoder; `level` 0–9, default 6.
 * Options: {@link DeflateRawEncodeOptions}, and the stream's ({@link EncodeStreamOptions}).
 */
export const deflateRawEncode = (options?: EncodeStreamOptions<'deflate-raw'>): EncoderPair => encodeStream('deflate-raw', options)
/**
 * LZ4 frame format; concatenated and skippable frames are handled.
 * Options: {@link Lz4DecodeOptions}, and the stream's ({@link DecodeStreamOptions}).
 */
export const lz4Decode = (options?: DecodeStreamOptions<'lz4'>): Pair => decodeStream('lz4', options)
/**
 * LZ4 frame encoder; `level` 1–12, default 1.
 * Options: {@link Lz4EncodeOptions}, and the stream's ({@link EncodeStreamOptions}).
 */
export const lz4Encode = (options?: EncodeStreamOptions<'lz4'>): EncoderPair => encodeStream('lz4', options)
/**
 * zstd (RFC 8878); concatenated and skippable frames are handled.
 * Options: {@link ZstdDecodeOptions}, and the stream's ({@link DecodeStreamOptions}).
 */
export const zstdDecode = (options?: DecodeStreamOptions<'zstd'>): Pair => decodeStream('zstd', options)
/**
 * zstd (RFC 8878) encoder; `level` 1–19, default 3; the content checksum is written by default.
 * Options: {@link ZstdEncodeOptions}, and the stream's ({@link EncodeStreamOptions}).
 */
export const zstdEncode = (options?: EncodeStreamOptions<'zstd'>): EncoderPair => encodeStream('zstd', options)
/**
 * brotli (RFC 7932).
 * Options: {@link BrotliDecodeOptions}, and the stream's ({@link DecodeStreamOptions}).
 */
export const brotliDecode = (options?: DecodeStreamOptions<'brotli'>): Pair => decodeStream('brotli', options)
/**
 * brotli (RFC 7932) encoder; `level` (quality) 0–11, default 5; `lgwin` 10–24.
 * Options: {@link BrotliEncodeOptions}, and the stream's ({@link EncodeStreamOptions}).
 */
export const brotliEncode = (options?: EncodeStreamOptions<'brotli'>): EncoderPair => encodeStream('brotli', options)
/**
 * Snappy's framing format (google/snappy framing_format.txt): every chunk's masked
 * CRC-32C is checked; skippable and padding chunks are skipped. For one raw block
 * ('snappy-raw', as Parquet stores it) use `decode`/`encode` or the span codecs.
 * Options: {@link SnappyDecodeOptions}, and the stream's ({@link DecodeStreamOptions}).
 */
export const snappyDecode = (options?: DecodeStreamOptions<'snappy'>): Pair => decodeStream('snappy', options)
/**
 * Snappy framing format encoder: the stream identifier, then one chunk per 64 KiB.
 * Options: {@link SnappyEncodeOptions}, and the stream's ({@link EncodeStreamOptions}).
 */
export const snappyEncode = (options?: EncodeStreamOptions<'snappy'>): EncoderPair => encodeStream('snappy', options)
/**
 * RFC 9842 dictionary-compressed zstd ('dcz'): `dictionary` is required.
 * Options: {@link DczDecodeOptions}, and the stream's ({@link DecodeStreamOptions}).
 */
export const dczDecode = (options: DecodeStreamOptions<'dcz'>): Pair => decodeStream('dcz', options)
/**
 * RFC 9842 'dcz' encoder (zstd with the dictionary as raw content): `dictionary` is required.
 * Options: {@link DczEncodeOptions}, and the stream's ({@link EncodeStreamOptions}).
 */
export const dczEncode = (options: EncodeStreamOptions<'dcz'>): EncoderPair => encodeStream('dcz', options)
/**
 * RFC 9842 dictionary-compressed brotli ('dcb'): `dictionary` is required.
 * Options: {@link DcbDecodeOptions}, and the stream's ({@link DecodeStreamOptions}).
 */
export const dcbDecode = (options: DecodeStreamOptions<'dcb'>): Pair => decodeStream('dcb', options)
/**
 * RFC 9842 'dcb' encoder (brotli with the dictionary): `dictionary` is required.
 * Options: {@link DcbEncodeOptions}, and the stream's ({@link EncodeStreamOptions}).
 */
export const dcbEncode = (options: EncodeStreamOptions<'dcb'>): EncoderPair => encodeStream('dcb', options)
