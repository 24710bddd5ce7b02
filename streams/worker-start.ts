/**
 * The worker pool's first worker started at a one-shot call's `threads` decision (issue
 * 32): streams/one-shot.ts loads this module beside the threads implementation when
 * ./threads-decision.ts sends a call there with `threads > 1` (or `'auto'`) and an input
 * of at least `MIN_PARALLEL_BYTES`, so the worker's start (tens of milliseconds: the
 * runtime's own start, then ours) overlaps the loading of the threads implementation, the
 * call's option checks and its engine's load on the caller's thread instead of following
 * them. A small module: the pool, the runtime's worker host and the `threads` rule.
 */
import { unavailable } from '#worker-host'
import { workerPool } from './pool.js'
import { checkThreads } from './threads.js'

/**
 * Grows the pool to `threads` and starts its first worker, unless the runtime has no
 * workers (the call itself then reports `threads > 1` as `ENGINE_UNAVAILABLE`) or
 * `threads` comes to 1. `threads`' form was checked by the decision.
 */
export function startWorkers(format: string, threads: unknown): void {
  if (unavailable) return
  const n = checkThreads(format, threads)
  if (n <= 1) return
  const pool = workerPool()
  pool.grow(n)
  pool.start()
}
