/**
 * `#worker-host` for runtimes without workers (workerd: Cloudflare Workers have no
 * `Worker` and one thread per request). `threads > 1` is refused with
 * `ENGINE_UNAVAILABLE`; `threads: 'auto'` is 1 here.
 */
import type { WorkerHost } from './worker-host.js'

const why = 'this runtime (workerd) has no workers'

/** Why this runtime has no workers. */
export const unavailable: string | null = why
/** One core: no workers. */
export const cores = (): number => 1

export const host: WorkerHost = {
  unavailable,
  cores,
  start() {
    throw new Error(why)
  },
  serve() {
    throw new Error(why)
  },
  nextTask: () => Promise.resolve(),
}
