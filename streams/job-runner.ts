/**
 * The job runner of a threads call (issue 22): the realm's worker pool for `threads > 1`
 * on an input large enough to gain (running jobs inline while a cold pool's workers
 * start), else the same `runJob` inline on the caller's thread with the caller's codec factories (lib/registry.ts's, passed in so that the
 * threads implementation imports neither the registry nor the machine).
 */
import { runJob, type CodecFactories, type Job, type JobResult, type JobRunner } from '../lib/parallel/jobs.js'
import { workerPool } from './pool.js'
import { MIN_PARALLEL_BYTES } from '../lib/options.js'

/** The pool's runner for `threads` workers, or inline (with `codecs`) when one thread will do or `bytes` is below `MIN_PARALLEL_BYTES`. */
export function jobRunner(threads: number, bytes: number, codecs: CodecFactories, signal?: AbortSignal): JobRunner {
  if (threads <= 1 || bytes < MIN_PARALLEL_BYTES) return (job) => runJob(job, codecs)
  const pool = workerPool()
  pool.grow(threads)
  const run = (job: Job): Promise<JobResult> => pool.run(job, signal, () => runJob(job, codecs))
  const onWorker = (job: Job): Promise<JobResult> => pool.run(job, signal)
  return Object.assign(run, { onWorker: () => (pool.readyWorkers > 0 ? onWorker : null) })
}
