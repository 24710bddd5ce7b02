/**
 * `#worker-host` under the `node` condition (and in the portable ESM build that Deno and
 * Bun also run, both of which implement `node:worker_threads`): workers are
 * `worker_threads` Workers, unreferenced while idle so that they never keep a process
 * alive, referenced while they run a job so that an awaited result is not cut short.
 * Cores: `os.availableParallelism()`.
 */
import { availableParallelism } from 'node:os'
import { parentPort, Worker } from 'node:worker_threads'
import { READY, type HostedWorker, type WorkerHost } from '../../streams/worker-host.js'

/** Why this runtime has no workers: never here. Exported apart from `host` so that option checks do not load it. */
export const unavailable: string | null = null
/** The cores the runtime reports. */
export const cores = (): number => availableParallelism()

export const host: WorkerHost = {
  unavailable,
  cores,
  start(url, onMessage, onFailure): HostedWorker {
    const worker = new Worker(url)
    worker.on('message', onMessage)
    worker.on('error', onFailure)
    worker.on('messageerror', onFailure)
    worker.on('exit', (code) => onFailure(new Error(`the worker exited with code ${code}`)))
    worker.unref()
    return {
      post: (message, transfer) => worker.postMessage(message, transfer),
      hold: (busy) => (busy ? worker.ref() : worker.unref()),
      terminate: () => void worker.terminate(),
    }
  },
  serve(handle) {
    const port = parentPort
    if (!port) throw new Error('serve() runs inside a worker')
    port.on('message', (message: unknown) => {
      void handle(message).then(({ reply, transfer }) => port.postMessage(reply, transfer))
    })
    port.postMessage(READY)
  },
  nextTask: () => new Promise((resolve) => setImmediate(resolve)),
}
