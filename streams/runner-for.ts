/**
 * A job runner with the registry's codec factories, for adapters that run jobs of their own
 * (Arrow's record-batch buffers): the realm's pool for `threads > 1` on inputs large
 * enough to gain, else inline. Adapters load it only when `threads > 1` is asked.
 */
import type { JobRunner } from '../lib/parallel/jobs.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { jobRunner } from './job-runner.js'

/** The pool's runner for `threads` workers, or inline when one thread will do (see streams/job-runner.ts). */
export function runnerFor(threads: number, bytes: number, signal?: AbortSignal): JobRunner {
  return jobRunner(threads, bytes, { createEncoder, createDecoder }, signal)
}
