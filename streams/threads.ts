/**
 * The `threads` option (issue 22) as the threads implementation runs it: the number of
 * threads to use, 'auto' resolved to the runtime's cores, and `ENGINE_UNAVAILABLE` where
 * the runtime has no workers. Part of the lazily loaded implementation
 * (streams/threads-impl.ts); the checks that run where a call is made are
 * streams/thread-checks.ts (the same rules, kept apart so that the initial bundle holds
 * only them; the repository's test/parallel-stream.test.ts checks that both agree).
 */
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { cores, unavailable } from '#worker-host'
import { MAX_AUTO_THREADS, MAX_THREADS } from './thread-limits.js'

export { MAX_AUTO_THREADS, MAX_THREADS, MIN_PARALLEL_BYTES, type ThreadOptions, type Threads } from './thread-limits.js'

/** Why this runtime has no workers, or null. */
export const workersUnavailable = (): string | null => unavailable

/** The cores the runtime reports. */
export const runtimeCores = (): number => Math.max(1, cores() | 0)

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
