/**
 * `encode()`, `decode()` and `closeWorkers()` as the root entry exports them, with the
 * `threads` option's types and limits (issue 22). A call runs the one-shot helpers
 * (lib/whole-buffer.ts) and the registry's codec factories (lib/registry.ts), neither of which loads a codec before a call asks for one, or, when ./threads-decision.ts
 * says the call runs on threads, the threads implementation's one-shot calls
 * (./parallel.ts), loaded on first use: a user who never asks for threads (`threads: 1`
 * without `blockSize` included) never loads the block logic, the frame splitting or the
 * worker pool.
 */
import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { decodeWhole as decodeSerial, encodeWhole as encodeSerial, type DecodeOptions as SerialDecodeOptions, type EncodeOptions as SerialEncodeOptions, type OneShotDecodeOptions, type OneShotEncodeOptions } from '../lib/whole-buffer.js'
import type { CodecOptions } from '../lib/option-types.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import type { GzipIndex } from '../lib/gzip-index/gzip-index.js'
import type { DecodeIndexOptions, DecodeThreadOptions, ThreadOptions } from './thread-options.js'
import { decodesInParallel, encodesInBlocks, withoutThreads } from './threads-decision.js'

export { MAX_AUTO_THREADS, MAX_THREADS, MIN_PARALLEL_BYTES } from '../lib/options.js'
export type { DecodeIndexOptions, ThreadOptions, Threads } from './thread-options.js'

/** What the threads implementation runs on: the one-shot helpers and the registry's span codecs, passed in (see ./parallel.ts). */
const codecs = { encodeSerial, decodeSerial, createEncoder, createDecoder }

let loading: Promise<typeof import('./parallel.js')> | null = null
/** The threads implementation's one-shot calls, loaded once (an `import()` per call would resolve the module each time). */
const parallel = (): Promise<typeof import('./parallel.js')> => (loading ??= import('./parallel.js').catch((error: unknown) => {
    loading = null // a failed load (a chunk that did not arrive) is tried again next time
    throw error
  }))

/**
 * Options of `encode()`: the encoder's ({@link EncodeOptionsByFormat}`[F]`: `engine`,
 * `level`, `dictionary` and the format's own, e.g. {@link ZstdEncodeOptions}), `onProgress`
 * ({@link OneShotEncodeOptions}), and `threads` / `blockSize` ({@link ThreadOptions}).
 */
export type EncodeOptions<F extends Format = Format> = CodecOptions<F, 'encode'> & OneShotEncodeOptions & ThreadOptions

/**
 * Options of `decode()`: the decoder's ({@link DecodeOptionsByFormat}`[F]`: `engine`,
 * `maxOutputBytes`, `dictionary` and the format's own, e.g. {@link ZstdDecodeOptions}),
 * `concatenated` and `onProgress` ({@link OneShotDecodeOptions}), and `threads`
 * ({@link DecodeThreadOptions}).
 */
export type DecodeOptions<F extends Format = Format> = CodecOptions<F, 'decode'> & OneShotDecodeOptions & DecodeThreadOptions

/**
 * Encodes a whole buffer, or a string as UTF-8. Options ({@link EncodeOptions}): the format's
 * ({@link GzipEncodeOptions}, {@link DeflateEncodeOptions}, {@link DeflateRawEncodeOptions},
 * {@link ZstdEncodeOptions}, {@link BrotliEncodeOptions}, {@link Lz4EncodeOptions},
 * {@link SnappyEncodeOptions}, ...: {@link EncodeOptionsByFormat}), `onProgress`, and
 * `threads` / `blockSize` ({@link ThreadOptions}): block mode, in parallel on workers.
 */
export async function encode<F extends Format>(format: F, data: BinaryInput | string, options: EncodeOptions<F> = {} as EncodeOptions<F>): Promise<Uint8Array> {
  if (encodesInBlocks(format, options)) return (await parallel()).encodeWithThreads(format, data, options, codecs)
  return encodeSerial(format, data, withoutThreads(options) as SerialEncodeOptions<F>)
}

/** What `decode()` with `index: true` resolves to: the data and the stream's index. */
export interface DecodedWithIndex {
  /** The decoded bytes, as `decode()` without `index` resolves to. */
  readonly data: Uint8Array
  /** The stream's index, built while it decoded (docs/gzip-archives.md). */
  readonly index: GzipIndex
}

/**
 * Decodes a whole buffer. Options ({@link DecodeOptions}): the format's
 * ({@link GzipDecodeOptions}, {@link ZstdDecodeOptions}, {@link Lz4BlockDecodeOptions}, ...:
 * {@link DecodeOptionsByFormat}), `concatenated`, `onProgress`, and `threads`
 * ({@link DecodeThreadOptions}): zstd streams of several frames, LZ4 frames with
 * independent blocks, BGZF and single gzip, zlib and raw deflate streams decode in
 * parallel (docs/threads.md). gzip, deflate and deflate-raw also take `index` (see
 * {@link DecodeIndexOptions}): `true` resolves to `{ data, index }`, a `GzipIndex` is
 * used to split the stream at its points.
 */
export async function decode<F extends Format>(format: F, data: BinaryInput, options: DecodeOptions<F> & { index: true }): Promise<DecodedWithIndex>
export async function decode<F extends Format>(format: F, data: BinaryInput, options?: DecodeOptions<F> & { index?: GzipIndex }): Promise<Uint8Array>
export async function decode<F extends Format>(format: F, data: BinaryInput, options: DecodeOptions<F> & DecodeIndexOptions = {} as DecodeOptions<F> & DecodeIndexOptions): Promise<Uint8Array | DecodedWithIndex> {
  if (decodesInParallel(format, options)) return (await parallel()).decodeWithThreads(format, data, options, codecs)
  return decodeSerial(format, data, withoutThreads(options) as SerialDecodeOptions<F>)
}

/**
 * Ends the worker pool's workers now (they also end by themselves after a few idle
 * seconds and never keep a Node process alive). Jobs still running fail with
 * `CodecError('ABORTED')`. The next call that asks for threads starts new workers.
 * Resolves once they were told to end (the pool's module loads only when used).
 */
export async function closeWorkers(): Promise<void> {
  const { closeWorkers: close } = await parallel()
  close()
}
