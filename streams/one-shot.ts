/**
 * `encode()`, `decode()` and `closeWorkers()` as the root entry exports them, with the
 * `threads` option's types and limits (issue 22). This module imports nothing at run
 * time: a call loads the one-shot helpers (lib/whole-buffer.ts), or, when `threads` or
 * `blockSize` is given, the threads implementation's one-shot calls (./parallel.ts), on first use. So
 * a user who imports only the stream factories loads neither, and one who never asks
 * for threads never loads the block logic, the frame splitting or the worker pool.
 */
import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { decodeWhole as decodeSerial, encodeWhole as encodeSerial, type DecodeOptions, type EncodeOptions } from '../lib/whole-buffer.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import type { ThreadOptions } from './thread-options.js'

export { MAX_AUTO_THREADS, MAX_THREADS, MIN_PARALLEL_BYTES } from '../lib/options.js'
export type { ThreadOptions, Threads } from './thread-options.js'

/** Whether a one-shot call asks for the threads machinery (`threads` or `blockSize` given). */
/** What the threads implementation runs on: the one-shot helpers and the registry's span codecs, passed in (see ./parallel.ts). */
const engines = { encode: encodeSerial, decode: decodeSerial, createEncoder, createDecoder }

let loading: Promise<typeof import('./parallel.js')> | null = null
/** The threads implementation's one-shot calls, loaded once (an `import()` per call would resolve the module each time). */
const parallel = (): Promise<typeof import('./parallel.js')> => (loading ??= import('./parallel.js').catch((error: unknown) => {
    loading = null // a failed load (a chunk that did not arrive) is tried again next time
    throw error
  }))

const threaded = (options: object): boolean => (options as ThreadOptions).threads !== undefined || (options as ThreadOptions).blockSize !== undefined

/**
 * Encodes a whole buffer, or a string as UTF-8. Options: `engine`, `level`, `onProgress`,
 * codec options, and `threads` / `blockSize` (see `ThreadOptions`): block mode, in
 * parallel on workers.
 */
export async function encode<F extends Format>(format: F, data: BinaryInput | string, options: EncodeOptions<F> & ThreadOptions = {} as EncodeOptions<F>): Promise<Uint8Array> {
  if (threaded(options)) return (await parallel()).encode(format, data, options, engines)
  return encodeSerial(format, data, options)
}

/**
 * Decodes a whole buffer. Options: `engine`, `maxOutputBytes`, `concatenated`,
 * `onProgress`, codec options, and `threads` (see `ThreadOptions`): zstd streams of
 * several frames and LZ4 frames with independent blocks decode in parallel
 * (docs/threads.md); every other input on the caller's thread.
 */
export async function decode<F extends Format>(format: F, data: BinaryInput, options: DecodeOptions<F> & Pick<ThreadOptions, 'threads'> = {} as DecodeOptions<F>): Promise<Uint8Array> {
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
