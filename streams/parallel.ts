/**
 * `encode()` and `decode()` with the `threads` and `blockSize` options (issue 22): the
 * one-shot helpers of lib/oneshot.ts, with block mode (lib/parallel/blocks.ts) and
 * parallel frame decoding (lib/parallel/frames.ts) run inline or on the realm's worker
 * pool (./pool.ts).
 *
 * - Without `threads` (or with `threads: 1`) and without `blockSize`: exactly the
 *   one-shot helpers of before, no worker started.
 * - Block mode is on when `blockSize` is given or `threads > 1` (with the format's
 *   default block size). Its bytes depend on `blockSize` only, never on `threads`.
 * - Formats without a block form (brotli, dcz, dcb, raw LZ4 blocks) encode on one
 *   worker with `threads > 1`: off the caller's thread, not faster.
 * - Decoding splits zstd streams of several frames that state their content sizes;
 *   every other input decodes on the caller's thread as before.
 * - Inputs below `MIN_PARALLEL_BYTES` (or of one block) run their jobs inline: a
 *   worker's message round trip and first start cost more than they save.
 */
import { toBytes, type BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { checkFormat, checkMaxOutput, checkOptions } from '../lib/formats.js'
import { decode as decodeSerial, encode as encodeSerial } from '../lib/oneshot.js'
import { blockPlan, checkBlockSize, encodeBlocks } from '../lib/parallel/blocks.js'
import { decodeFrameGroups, zstdFrameGroups } from '../lib/parallel/frames.js'
import { runJob, type JobRunner } from '../lib/parallel/jobs.js'
import type { CreateOptions } from '../lib/registry.js'
import { runtimeCores, workerPool, workersUnavailable } from './pool.js'

/** `threads`: a number of threads, or `'auto'` for the runtime's cores (capped at `MAX_AUTO_THREADS`; 1 where there are no workers). */
export type Threads = number | 'auto'

/** The options this module adds to `encode()` / `decode()`. */
export interface ThreadOptions {
  /**
   * Threads to run on: `1` (default) runs on the caller's thread and starts no worker;
   * more runs block jobs on that many workers of the realm's pool. `'auto'`: the
   * runtime's cores (`os.availableParallelism()`, `navigator.hardwareConcurrency`),
   * capped at 16; 1 on workerd; block mode either way, so the bytes do not depend on
   * the machine. Where a runtime has no workers (workerd), a number above 1 is
   * `ENGINE_UNAVAILABLE`.
   */
  threads?: Threads
  /**
   * Encoders of gzip, deflate, deflate-raw (default 128 KiB, at least 32 KiB) and zstd
   * (default 1 MiB, at least 64 KiB): the block size of block mode, on whenever this is
   * given or `threads > 1`; the output depends on it and never on `threads`. For LZ4
   * it is the frame's block size as always (64 KiB, 256 KiB, 1 MiB or 4 MiB), and the
   * output is the serial encoder's, whatever `threads`.
   */
  blockSize?: number
}

/** `threads` above this is refused: each worker holds its own engines (a few MB each), and no runtime we target has more cores to give. */
export const MAX_THREADS = 256
/** `threads: 'auto'` uses at most this many. */
export const MAX_AUTO_THREADS = 16
/**
 * Inputs smaller than this run their jobs on the caller's thread whatever `threads`
 * says: below it, posting to workers (and starting them, 70-90 ms on Node 20 here)
 * costs more than the work spread (bench/threads.ts measures the crossover).
 */
export const MIN_PARALLEL_BYTES = 1024 * 1024

/** Parallel zstd decoding gives each job whole frames of about this much content. */
const ZSTD_GROUP_BYTES = 1024 * 1024

/** Checks `threads`; returns the number to use. */
export function checkThreads(format: string, value: unknown): number {
  if (value === undefined || value === 1) return 1
  if (value === 'auto') return workersUnavailable() ? 1 : Math.min(MAX_AUTO_THREADS, runtimeCores())
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_THREADS) {
    throw new CodecError('INVALID_OPTION', format, `threads must be 'auto' or an integer from 1 to ${MAX_THREADS}, got ${String(value)}`)
  }
  const why = workersUnavailable()
  if (why) throw new CodecError('ENGINE_UNAVAILABLE', format, `threads: ${value} needs workers, and ${why}; use threads: 1 (or 'auto')`)
  return value
}

/** The pool's runner for `threads` workers, or inline when one thread will do. */
export function runnerFor(threads: number, bytes: number, signal?: AbortSignal): JobRunner {
  if (threads <= 1 || bytes < MIN_PARALLEL_BYTES) return runJob
  const pool = workerPool()
  pool.grow(threads)
  return (job) => pool.run(job, signal)
}

/** Whether `options` turn block mode on for an encoder of `format` (LZ4's `blockSize` alone does not: it is its frame option). */
export function wantsBlocks(format: Format, options: Record<string, unknown>): boolean {
  const threads = options.threads
  return (threads !== undefined && threads !== 1) || (options.blockSize !== undefined && format !== 'lz4')
}

/** `options` without this module's keys (LZ4 keeps `blockSize`: it is its frame option). */
export function rest(format: Format, options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(options)) if (key !== 'threads' && (key !== 'blockSize' || format === 'lz4')) out[key] = options[key]
  return out
}

/**
 * Encodes a whole buffer. Options: `engine`, `level`, codec options, and `threads` /
 * `blockSize` (see `ThreadOptions`): block mode, in parallel on workers.
 */
export async function encode(format: Format, data: BinaryInput, options: CreateOptions & ThreadOptions = {}): Promise<Uint8Array> {
  checkFormat(format)
  const threads = checkThreads(format, options.threads)
  const blockSize = checkBlockSize(format, options.blockSize)
  const others = rest(format, options)
  // 'auto' is block mode wherever it runs (even where it means one thread), so that its
  // bytes do not depend on the machine.
  if (!wantsBlocks(format, options)) return encodeSerial(format, data, others)
  // Checked here, on the caller's thread, so that a bad option (or an unknown key) throws
  // from this call rather than from a job.
  const { engine, level, codec } = checkOptions(format, 'encode', others)
  const checked = { ...codec, engine, level }
  const bytes = toBytes(data, true)
  const plan = blockPlan(format, blockSize, checked)
  if (!plan) {
    // No block form: the whole input on one worker (off this thread), or here when small.
    const { output } = await runnerFor(threads, bytes.length)({ kind: 'encode', format, options: checked, input: bytes })
    return output
  }
  const jobs = Math.ceil(bytes.length / plan.blockSize)
  return encodeBlocks(plan, bytes, runnerFor(jobs > 1 ? threads : 1, bytes.length), 2 * threads)
}

/**
 * Decodes a whole buffer. Options: `engine`, `maxOutputBytes`, `concatenated`, codec
 * options, and `threads` (see `ThreadOptions`): zstd streams of several frames decode
 * in parallel; every other input on the caller's thread.
 */
export async function decode(format: Format, data: BinaryInput, options: CreateOptions & { concatenated?: boolean } & Pick<ThreadOptions, 'threads'> = {}): Promise<Uint8Array> {
  checkFormat(format)
  const threads = checkThreads(format, options.threads)
  const others = rest(format, options)
  if ('blockSize' in options && format !== 'lz4') throw new CodecError('INVALID_OPTION', format, 'blockSize is an encoder option')
  if (threads > 1 && format === 'zstd' && others.concatenated !== false) {
    const bytes = toBytes(data, true)
    const groups = zstdFrameGroups(bytes, ZSTD_GROUP_BYTES)
    if (groups) {
      const limit = checkMaxOutput(format, others.maxOutputBytes)
      const { maxOutputBytes: _, concatenated: __, ...codec } = others
      const total = groups.reduce((n, g) => n + g.size, 0)
      try {
        const out = await decodeFrameGroups(bytes, groups, codec, limit, runnerFor(threads, total), 2 * threads)
        if (out) return out
      } catch (error) {
        // A worker that failed, or closeWorkers(): reported as such. Corrupt input: the
        // serial decoder judges it, so that the error and its offset (in the whole
        // input, not in one group) are the ones it always reports.
        if (!(error instanceof CodecError) || error.code === 'ENGINE_UNAVAILABLE' || error.code === 'ABORTED') throw error
      }
    }
    return decodeSerial(format, bytes, others)
  }
  return decodeSerial(format, data, others)
}
