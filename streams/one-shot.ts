/**
 * `encode()`, `decode()` and `closeWorkers()` as the root entry exports them, with the
 * `threads` option's types and limits (issue 22). This module imports nothing at run
 * time: a call loads the one-shot helpers (lib/oneshot.ts), or, when `threads` or
 * `blockSize` is given, the threads implementation's one-shot calls (./parallel.ts), on first use. So
 * a user who imports only the stream factories loads neither, and one who never asks
 * for threads never loads the block logic, the frame splitting or the worker pool.
 */
import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { decode as decodeSerial, encode as encodeSerial, type DecodeOptions, type EncodeOptions } from '../lib/oneshot.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import type { DecodeIndexOptions, ThreadOptions } from './thread-options.js'
import type { GzipIndex } from '../lib/gzip-index/gzip-index.js'

export { MAX_AUTO_THREADS, MAX_THREADS, MIN_PARALLEL_BYTES } from '../lib/options.js'
export type { DecodeIndexOptions, ThreadOptions, Threads } from './thread-options.js'

/** Whether a one-shot call asks for the threads machinery (`threads` or `blockSize` given). */
/** What the threads implementation runs on: the one-shot helpers and the registry's span codecs, passed in (see ./parallel.ts). */
const engines = { encode: encodeSerial, decode: decodeSerial, createEncoder, createDecoder }

let loading: Promise<typeof import('./parallel.js')> | null = null
/** The threads implementation's one-shot calls, loaded once (an `import()` per call would resolve the module each time). */
const parallel = (): Promise<typeof import('./parallel.js')> => (loading ??= import('./parallel.js').catch((error: unknown) => {
    loading = null // a failed load (a chunk that did not arrive) is tried again next time
    throw error
  }))

const threaded = (options: object): boolean => (options as ThreadOptions).threads !== undefined || (options as ThreadOptions).blockSize !== undefined || (options as DecodeIndexOptions).index !== undefined

/**
 * Encodes a whole buffer. Options: `engine`, `level`, `onProgress`, codec options, and
 * `threads` / `blockSize` (see `ThreadOptions`): block mode, in parallel on workers.
 */
export async function encode<F extends Format>(format: F, data: BinaryInput, options: EncodeOptions<F> & ThreadOptions = {} as EncodeOptions<F>): Promise<Uint8Array> {
  if (threaded(options)) return (await parallel()).encode(format, data, options, engines)
  return encodeSerial(format, data, options)
}

/** What `decode()` with `index: true` resolves to: the data and the stream's index. */
export interface DecodedWithIndex {
  readonly data: Uint8Array
  readonly index: GzipIndex
}

/**
 * Decodes a whole buffer. Options: `engine`, `maxOutputBytes`, `concatenated`,
 * `onProgress`, codec options, and `threads` (see `ThreadOptions`): zstd streams of
 * several frames, LZ4 frames with independent blocks, BGZF and single gzip, zlib and
 * raw deflate streams decode in parallel (docs/threads.md). gzip, deflate and
 * deflate-raw also take `index` (see `DecodeIndexOptions`): `true` resolves to
 * `{ data, index }`, a `GzipIndex` is used to split the stream at its points.
 */
export async function decode<F extends Format>(format: F, data: BinaryInput, options: DecodeOptions<F> & Pick<ThreadOptions, 'threads'> & { index: true }): Promise<DecodedWithIndex>
export async function decode<F extends Format>(format: F, data: BinaryInput, options?: DecodeOptions<F> & Pick<ThreadOptions, 'threads'> & { index?: GzipIndex }): Promise<Uint8Array>
export async function decode<F extends Format>(format: F, data: BinaryInput, options: DecodeOptions<F> & Pick<ThreadOptions, 'threads'> & DecodeIndexOptions = {} as DecodeOptions<F>): Promise<Uint8Array | DecodedWithIndex> {
  if (threaded(options)) return (await parallel()).decode(format, data, options, engines)
  return decodeSerial(format, data, options)
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
