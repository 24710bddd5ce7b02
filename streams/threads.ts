/**
 * The `threads` option (issue 22) and the checks every surface runs where the call is
 * made, apart from the block logic and the pool, which load only when threads or
 * blocks are asked for (a user who never asks does not download them).
 */
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { host } from '#worker-host'

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

/** Why this runtime has no workers, or null. */
export const workersUnavailable = (): string | null => host.unavailable

/** The cores the runtime reports. */
export const runtimeCores = (): number => Math.max(1, host.cores() | 0)

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
 * Ends the worker pool's workers now (they also end by themselves after a few idle
 * seconds and never keep a Node process alive). Jobs still running fail with
 * `CodecError('ABORTED')`. The next call that asks for threads starts new workers.
 * Resolves once they were told to end (the pool's module loads only when used).
 */
export async function closeWorkers(): Promise<void> {
  const { closeWorkers: close } = await import('./pool.js')
  close()
}
