/**
 * The threads implementation of streams (issue 22) behind one dynamic import: block-mode
 * encoding streams (./block-encode-stream.ts) and parallel decoding streams
 * (./parallel-decode-stream.ts, ./parallel-inflate-stream.ts) on their one shell
 * (./ordered-job-stream.ts), the block logic, job runner, frame splitting and chunked
 * inflating (lib/parallel/) and the worker pool (./pool.ts).
 * streams/parallel-stream.ts imports it only when ./threads-decision.ts says a stream
 * runs on threads, so a user who never asks for threads does not download any of it.
 * It imports neither the registry nor the machine: the stream passes its codec factories
 * and the machine in (lib/parallel/jobs.ts `CodecFactories`, ./parallel-decode-stream.ts
 * `DecodeFactories`), so a bundler keeps the stream shell in one file.
 * The one-shot calls with threads are ./parallel.ts, loaded by ./one-shot.ts.
 */
import type { Format } from '../lib/codec.js'
import type { GzipIndex } from '../lib/gzip-index/gzip-index.js'
import { CodecError } from '../lib/errors.js'
import { checkOptions, threadsDecodeKeys } from '../lib/codec-options.js'
import { blockPlan, checkBlockSize } from '../lib/parallel/block-options.js'
import type { CodecFactories } from '../lib/parallel/jobs.js'
import { openBlockPair } from './block-encode-stream.js'
import { openDecodePair, type DecodeFactories, type DecodePair } from './parallel-decode-stream.js'
import { openInflatePair } from './parallel-inflate-stream.js'
import type { StreamClasses, SurfaceRules } from './codec-stream.js'
import type { OrderedJobPair } from './ordered-job-stream.js'
import { checkThreads, rest } from './threads.js'

export { closeWorkers } from './pool.js'

/** The option keys a block-mode encoding stream takes besides the codec's. */
export const STREAM_KEYS = { machine: ['flush', 'chunkSize'], shell: ['signal', 'streams'] }

/**
 * Opens a stream with `rules` completed by the library's own (`CodecError`s as they are,
 * any binary input); what `open` throws (`ENGINE_UNAVAILABLE`, an option refused here)
 * goes through the rules' `surface`, as the stream's own errors do.
 */
function opening<P>(rules: SurfaceRules | undefined, open: (rules: Required<SurfaceRules>) => P): P {
  const full: Required<SurfaceRules> = { surface: rules?.surface ?? ((error) => error), allowShared: rules?.allowShared ?? true }
  try {
    return open(full)
  } catch (error) {
    throw full.surface(error)
  }
}

/**
 * A block-mode encoding stream of `format`. Its options' form was checked where the
 * stream was made (streams/parallel-stream.ts); here `threads` is resolved, and a
 * runtime without workers refuses `threads > 1` with `ENGINE_UNAVAILABLE`.
 */
export function openBlockStream(format: Format, options: Record<string, unknown>, rules: SurfaceRules | undefined, codecs: CodecFactories): OrderedJobPair {
  return opening(rules, (full) => {
    const threads = checkThreads(format, options.threads)
    const blockSize = checkBlockSize(format, options.blockSize)
    const { engine, level, codec, flush } = checkOptions(format, 'encode', rest(format, options), STREAM_KEYS)
    const plan = blockPlan(format, blockSize, { ...codec, engine, level })
    if (!plan) throw new CodecError('UNSUPPORTED', format, `threads > 1 on a ${format} stream: ${format} has no independent blocks`)
    return openBlockPair(format, plan, { threads, flush, signal: options.signal as AbortSignal | undefined, streams: options.streams as StreamClasses | undefined, rules: full }, codecs)
  })
}

/**
 * A parallel decoding stream: zstd frames or LZ4 independent blocks
 * (./parallel-decode-stream.ts), or one deflate-family stream in chunks
 * (./parallel-inflate-stream.ts). Its options' form was checked where the stream was
 * made (streams/parallel-stream.ts); here `threads` is resolved, and a runtime without
 * workers refuses `threads > 1` with `ENGINE_UNAVAILABLE`.
 */
export function openDecodeStream(format: Format, options: Record<string, unknown>, rules: SurfaceRules | undefined, codecs: DecodeFactories): DecodePair {
  return opening(rules, (full) => {
    const threads = checkThreads(format, options.threads)
    const { engine, maxOutputBytes, codec, chunkSize, concatenated } = checkOptions(format, 'decode', options, threadsDecodeKeys(format))
    const common = { threads, engine, maxOutputBytes, codec, chunkSize, signal: options.signal as AbortSignal | undefined, streams: options.streams as StreamClasses | undefined, rules: full }
    if (format === 'zstd' || format === 'lz4') return openDecodePair(format, common, codecs)
    return openInflatePair(format as 'gzip' | 'deflate' | 'deflate-raw', { ...common, concatenated, onIndex: options.onIndex as ((index: GzipIndex) => void) | undefined }, codecs)
  })
}
