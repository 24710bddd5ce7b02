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
import { decodeWhole as decodeSerial, encodeWhole as encodeSerial, type DecodeOptions, type EncodeOptions } from '../lib/whole-buffer.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import type { GzipIndex } from '../lib/gzip-index/gzip-index.js'
import type { DecodeIndexOptions, ThreadOptions } from './thread-options.js'
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
 * Encodes a whole buffer, or a string as UTF-8. Options: `engine`, `level`, `onProgress`,
 * codec options, and `threads` / `blockSize` (see `ThreadOptions`): block mode, in
 * parallel on workers.
 */
export async function encode<F extends Format>(format: F, data: BinaryInput | string, options: EncodeOptions<F> & ThreadOptions = {} as EncodeOptions<F>): Promise<Uint8Array> {
  if (encodesInBlocks(format, options)) return (await parallel()).encodeWithThreads(format, data, options, codecs)
  return encodeSerial(format, data, withoutThreads(options) as EncodeOptions<F>)
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
  if (decodesInParallel(format, options)) return (await parallel()).decodeWithThreads(format, data, options, codecs)
  return decodeSerial(format, data, withoutThreads(options) as DecodeOptions<F>)
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
