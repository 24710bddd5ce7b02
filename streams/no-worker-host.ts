/**
 * `#worker-host` for runtimes without workers (workerd: Cloudflare Workers have no
 * `Worker` and one thread per request). `threads > 1` is refused with
 * `ENGINE_UNAVAILABLE`; `threads: 'auto'` is 1 here.
 */
import type { WorkerHost } from './worker-host.js'

const why = 'this runtime (workerd) has no workers'

export const host: WorkerHost = {
  unavailable: why,
  cores: () => 1,
  start() {
    throw new Error(why)
  },
  serve() {
    throw new Error(why)
  },
}
