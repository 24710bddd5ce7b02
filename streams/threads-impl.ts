/**
 * The threads implementation of streams (issue 22) behind one dynamic import: block-mode
 * streams (./parallel-stream-impl.ts), parallel decoding streams
 * (./parallel-decode-impl.ts), the block logic, job runner and frame splitting
 * (lib/parallel/) and the worker pool (./pool.ts). streams/parallel-stream.ts imports it
 * only when `threads > 1` or `blockSize` is given, so a user who never asks for threads
 * does not download any of it. It imports neither the registry nor the machine: the
 * stream passes its engines in (lib/parallel/jobs.ts `JobEngines`), so a bundler keeps
 * the stream shell in one file. The one-shot calls with threads are ./parallel.ts,
 * loaded by ./one-shot.ts.
 */
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { checkOptions } from '../lib/formats.js'
import { blockPlan, checkBlockSize } from '../lib/parallel/block-options.js'
import type { JobEngines } from '../lib/parallel/jobs.js'
import { openBlockPair } from './parallel-stream-impl.js'
import { openDecodePair, type DecodeEngines, type DecodePair } from './parallel-decode-impl.js'
import type { StreamClasses } from './codec-stream.js'
import type { BlockEncoderPair } from './parallel-stream.js'
import { checkThreads, rest } from './threads.js'

export { closeWorkers } from './pool.js'

/** The option keys a block-mode encoding stream takes besides the codec's. */
export const STREAM_KEYS = { machine: ['flush', 'chunkSize'], shell: ['signal', 'streams'] }

/**
 * A block-mode encoding stream of `format`. Its options' form was checked where the
 * stream was made (streams/parallel-stream.ts); here `threads` is resolved, and a
 * runtime without workers refuses `threads > 1` with `ENGINE_UNAVAILABLE`.
 */
export function openBlockStream(format: Format, options: Record<string, unknown>, engines: JobEngines): BlockEncoderPair {
  const threads = checkThreads(format, options.threads)
  const blockSize = checkBlockSize(format, options.blockSize)
  const { engine, level, codec, flush } = checkOptions(format, 'encode', rest(format, options), STREAM_KEYS)
  const plan = blockPlan(format, blockSize, { ...codec, engine, level })
  if (!plan) throw new CodecError('UNSUPPORTED', format, `threads > 1 on a ${format} stream: ${format} has no independent blocks`)
  return openBlockPair(format, plan, threads, flush, { signal: options.signal as AbortSignal | undefined, streams: options.streams as StreamClasses | undefined }, engines)
}

/** The option keys a parallel decoding stream takes besides the codec's. */
export const DECODE_STREAM_KEYS = { machine: ['chunkSize', 'concatenated'], shell: ['signal', 'streams', 'threads'], maxOutputBytes: Infinity }

/**
 * A parallel decoding stream of zstd or LZ4 (./parallel-decode-impl.ts). Its options'
 * form was checked where the stream was made (streams/parallel-stream.ts); here
 * `threads` is resolved, and a runtime without workers refuses `threads > 1` with
 * `ENGINE_UNAVAILABLE`.
 */
export function openDecodeStream(format: 'zstd' | 'lz4', options: Record<string, unknown>, allowShared: boolean, surface: ((error: unknown) => unknown) | undefined, engines: DecodeEngines): DecodePair {
  let threads: number
  let checked: ReturnType<typeof checkOptions>
  try {
    threads = checkThreads(format, options.threads)
    checked = checkOptions(format, 'decode', options, DECODE_STREAM_KEYS)
  } catch (error) {
    throw surface ? surface(error) : error
  }
  const { engine, maxOutputBytes, codec, chunkSize } = checked
  return openDecodePair(format, threads, { engine, maxOutputBytes, codec, chunkSize, signal: options.signal as AbortSignal | undefined, streams: options.streams as StreamClasses | undefined, allowShared, surface: surface ?? ((e) => e) }, engines)
}
