/**
 * The `threads` option (issue 22) as the threads implementation runs it: the number of
 * threads to use, 'auto' resolved to the runtime's cores, and `ENGINE_UNAVAILABLE` where
 * the runtime has no workers. Part of the lazily loaded implementation;
 * the form of the value is checked where a call is made (lib/options.ts
 * `checkThreadsForm`), and again here.
 */
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { cores, unavailable } from '#worker-host'
import { checkThreadsForm } from '../lib/options.js'
import { MAX_AUTO_THREADS } from '../lib/options.js'

export { MAX_AUTO_THREADS, MAX_THREADS, MIN_PARALLEL_BYTES } from '../lib/options.js'
export type { ThreadOptions, Threads } from './thread-options.js'


/** Checks `threads`; returns the number to use. */
export function checkThreads(format: string, value: unknown): number {
  if (value === undefined || value === 1) return 1
  if (value === 'auto') return unavailable ? 1 : Math.min(MAX_AUTO_THREADS, Math.max(1, cores() | 0))
  checkThreadsForm(format, value)
  const why = unavailable
  if (why) throw new CodecError('ENGINE_UNAVAILABLE', format, `threads: ${value} needs workers, and ${why}; use threads: 1 (or 'auto')`)
  return value as number
}

/** `options` without this module's keys (LZ4 keeps `blockSize`: it is its frame option). */
export function rest(format: Format, options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(options)) if (key !== 'threads' && (key !== 'blockSize' || format === 'lz4')) out[key] = options[key]
  return out
}
