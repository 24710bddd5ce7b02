/**
 * `encode()` and `decode()` with the `threads` and `blockSize` options (issue 22), as
 * streams/one-shot.ts calls them when ./threads-decision.ts says a call runs on threads
 * (every other call is the one-shot helpers of lib/whole-buffer.ts, and never loads this):
 * block mode (lib/parallel/blocks.ts) and parallel frame decoding
 * (lib/parallel/zstd-frames.ts, lib/parallel/lz4-frames.ts) run inline or on the realm's
 * worker pool (./pool.ts).
 *
 * - Block mode is on when `blockSize` is given or `threads > 1` (with the format's
 *   default block size). Its bytes depend on `blockSize` only, never on `threads`.
 * - Formats without a block form (brotli, dcz, dcb, raw LZ4 blocks) encode on one
 *   worker with `threads > 1`: off the caller's thread, not faster.
 * - Decoding splits zstd streams of several frames that state their content sizes,
 *   LZ4 frames with independent blocks (groups of blocks; lib/parallel/lz4-frames.ts),
 *   and one gzip, zlib or raw deflate stream into chunks (./parallel-inflate.ts, which
 *   also builds or uses its index); every other input decodes on the caller's thread
 *   as before.
 * - Inputs below `MIN_PARALLEL_BYTES` (or of one block) run their jobs inline: a
 *   worker's message round trip and first start cost more than they save.
 */
import { inputBytes, type BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { checkFormat } from '../lib/formats.js'
import { checkMaxOutput, checkOptions } from '../lib/codec-options.js'
import type * as WholeBuffer from '../lib/whole-buffer.js'
import type { DecodeOptions, EncodeOptions } from '../lib/whole-buffer.js'
import { blockFamily, blockPlan, checkBlockSize } from '../lib/parallel/block-options.js'
import type { CodecFactories } from '../lib/parallel/jobs.js'
import { encodeBlocks } from '../lib/parallel/blocks.js'
import { decodeFrameGroups, zstdFrameGroups } from '../lib/parallel/zstd-frames.js'
import { decodeLz4Frames } from '../lib/parallel/lz4-frames.js'
import { decodeDeflate, isDeflate } from './parallel-inflate.js'
import type { GzipIndex } from '../lib/gzip-index/gzip-index.js'
import type { JobRunner } from '../lib/parallel/jobs.js'
import { jobRunner } from './job-runner.js'

export { closeWorkers } from './pool.js'
import { checkThreads, MIN_PARALLEL_BYTES, rest, type ThreadOptions } from './threads.js'

export { checkThreads, MAX_AUTO_THREADS, MAX_THREADS, MIN_PARALLEL_BYTES, rest, type ThreadOptions, type Threads } from './threads.js'

/** Parallel zstd decoding gives each job whole frames of about this much content. */
const ZSTD_GROUP_BYTES = 1024 * 1024

/**
 * What the calls run on, passed in by streams/one-shot.ts: the one-shot helpers of
 * lib/whole-buffer.ts (inputs that do not split) and the registry's span codecs (jobs run
 * inline). Imported here, they would share the machine with the stream shell, and a
 * bundler would split the shell into one more file for it
 * (the repository's test/bundle-size.test.ts).
 */
export type InlineCodecs = CodecFactories & { readonly encodeSerial: typeof WholeBuffer.encodeWhole; readonly decodeSerial: typeof WholeBuffer.decodeWhole }

/**
 * Encodes a whole buffer in block mode (`threads` other than 1 or a `blockSize`: see
 * `ThreadOptions`), in parallel on workers; a format without a block form on one worker.
 * Options: `engine`, `level`, codec options, `threads`, `blockSize`.
 */
export async function encodeWithThreads<F extends Format>(format: F, data: BinaryInput | string, options: EncodeOptions<F> & ThreadOptions, codecs: InlineCodecs): Promise<Uint8Array> {
  const given = options as Record<string, unknown>
  checkFormat(format)
  const threads = checkThreads(format, given.threads)
  const blockSize = checkBlockSize(format, given.blockSize)
  const others = rest(format, given)
  // Checked here, on the caller's thread, so that a bad option (or an unknown key) throws
  // from this call rather than from a job.
  const { engine, level, codec } = checkOptions(format, 'encode', others)
  const checked = { ...codec, engine, level }
  const bytes = inputBytes(format, data, true)
  const plan = blockPlan(format, blockSize, checked)
  if (!plan) {
    // No block form: the whole input on one worker (off this thread), or here when small.
    const { output } = await jobRunner(threads, bytes.length, codecs)({ kind: 'encode', format, options: checked, input: bytes })
    return output
  }
  const jobs = Math.ceil(bytes.length / plan.blockSize)
  // One deflate block with no dictionary is the serial encoder's stream byte for byte
  // (test/parallel-blocks.test.ts checks it): take the serial path, without a block
  // job's setup, so that threads never slow a small input down.
  if (jobs <= 1 && blockFamily(format) === 'deflate' && !codec.dictionary) return codecs.encodeSerial(format, bytes, others as EncodeOptions<F>)
  return encodeBlocks(plan, bytes, jobRunner(jobs > 1 ? threads : 1, bytes.length, codecs), 2 * threads)
}

/**
 * Decodes a whole buffer with `threads`: zstd streams of several frames, LZ4 frames with
 * independent blocks and one deflate-family stream decode in parallel; every other
 * input on the caller's thread. Options: `engine`, `maxOutputBytes`, `concatenated`,
 * codec options, `threads` (see `ThreadOptions`), and for the deflate family `index`
 * (`true`: resolves to `{ data, index }`).
 */
export async function decodeWithThreads<F extends Format>(format: F, data: BinaryInput, options: DecodeOptions<F> & Pick<ThreadOptions, 'threads'>, codecs: InlineCodecs): Promise<Uint8Array | { data: Uint8Array; index: GzipIndex }> {
  const given = options as Record<string, unknown>
  checkFormat(format)
  const threads = checkThreads(format, given.threads)
  const others = rest(format, given)
  if ('blockSize' in given && format !== 'lz4') throw new CodecError('INVALID_OPTION', format, 'blockSize is an encoder option')
  // onProgress reports one serial decoder's progress (and a function does not go to a
  // worker): with it, the input decodes on this thread.
  const splits = threads > 1 && others.concatenated !== false && others.onProgress === undefined
  if (splits && format === 'zstd') {
    const bytes = inputBytes(format, data, false)
    const groups = zstdFrameGroups(bytes, ZSTD_GROUP_BYTES)
    if (groups) {
      const limit = checkMaxOutput(format, others.maxOutputBytes)
      const { maxOutputBytes: _, concatenated: __, ...codec } = others
      const total = groups.reduce((n, g) => n + g.size, 0)
      try {
        const out = await decodeFrameGroups(bytes, groups, codec, limit, jobRunner(threads, total, codecs), 2 * threads)
        if (out) return out
      } catch (error) {
        // A worker that failed, or closeWorkers(): reported as such. Corrupt input: the
        // serial decoder judges it, so that the error and its offset (in the whole
        // input, not in one group) are the ones it always reports.
        if (!(error instanceof CodecError) || error.code === 'ENGINE_UNAVAILABLE' || error.code === 'ABORTED') throw error
      }
    }
    return codecs.decodeSerial(format, bytes, others as unknown as DecodeOptions<F>)
  }
  // The deflate family comes here with threads > 1 or to have its index built or used.
  if (isDeflate(format)) return decodeDeflate(format, inputBytes(format, data, false), others, threads, codecs)
  if (splits && format === 'lz4') {
    const bytes = inputBytes(format, data, false)
    // Decoding to less than MIN_PARALLEL_BYTES: serial (decodeLz4Frames returns null).
    return decodeLz4(bytes, others, jobRunner(threads, Infinity, codecs), 2 * threads, codecs, MIN_PARALLEL_BYTES)
  }
  return codecs.decodeSerial(format, data, others as unknown as DecodeOptions<F>)
}

/**
 * LZ4 frames with independent blocks decoded through `run` (lib/parallel/lz4-frames.ts),
 * at most `inFlight` jobs at a time; anything else, and every failure of the input,
 * decoded serially with `codecs.decodeSerial`, so that errors are the serial decoder's.
 */
export async function decodeLz4(bytes: Uint8Array, options: Record<string, unknown>, run: JobRunner, inFlight: number, codecs: Pick<InlineCodecs, 'decodeSerial'>, minBytes = 0): Promise<Uint8Array> {
  // Every option checked as the serial one-shot decode checks it (its surface's keys).
  const { engine, maxOutputBytes } = checkOptions('lz4', 'decode', options, { machine: ['concatenated', 'onProgress'] })
  try {
    const out = await decodeLz4Frames(bytes, { engine, maxOutputBytes, minBytes }, run, inFlight)
    if (out) return out
  } catch (error) {
    // As for zstd above: corrupt input is the serial decoder's to judge.
    if (!(error instanceof CodecError) || error.code === 'ENGINE_UNAVAILABLE' || error.code === 'ABORTED') throw error
  }
  return codecs.decodeSerial('lz4', bytes, options)
}
