/**
 * `#worker-host` for runtimes with Web Workers (browsers): module workers
 * (`{ type: 'module' }`), `navigator.hardwareConcurrency` cores. Workers cannot be
 * unreferenced in a page, so `hold` does nothing; the pool ends idle ones after a few
 * seconds.
 */
import { READY, type HostedWorker, type WorkerHost } from './worker-host.js'

interface WebWorker {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void
  terminate(): void
  onmessage: ((event: { data: unknown }) => void) | null
  onerror: ((event: { message?: string; preventDefault(): void }) => void) | null
  onmessageerror: ((event: unknown) => void) | null
}
interface WorkerScope {
  Worker?: new (url: URL, options: { type: 'module' }) => WebWorker
  navigator?: { hardwareConcurrency?: number }
  onmessage: ((event: { data: unknown }) => void) | null
  postMessage(message: unknown, transfer: ArrayBuffer[]): void
}
const scope = globalThis as unknown as WorkerScope

/** Why this runtime has no workers, or null. Exported apart from `host` so that option checks do not load it. */
export const unavailable: string | null = typeof scope.Worker === 'function' ? null : 'this runtime has no Worker'
/** The cores the runtime reports. */
export const cores = (): number => scope.navigator?.hardwareConcurrency ?? 1

export const host: WorkerHost = {
  unavailable,
  cores,
  start(url, onMessage, onFailure): HostedWorker {
    const worker = new scope.Worker!(url, { type: 'module' })
    worker.onmessage = (event) => onMessage(event.data)
    worker.onerror = (event) => {
      event.preventDefault()
      onFailure(new Error(event.message ?? 'the worker failed to load or threw'))
    }
    worker.onmessageerror = () => onFailure(new Error('a message from the worker could not be read'))
    return { post: (message, transfer) => worker.postMessage(message, transfer), hold: () => {}, terminate: () => worker.terminate() }
  },
  serve(handle) {
    scope.onmessage = (event) => {
      void handle(event.data).then(({ reply, transfer }) => scope.postMessage(reply, transfer))
    }
    scope.postMessage(READY, [])
  },
  // A message to oneself is a task of its own, without setTimeout's clamping.
  nextTask: () =>
    new Promise((resolve) => {
      const channel = new MessageChannel()
      channel.port1.onmessage = () => {
        channel.port1.close()
        resolve()
      }
      channel.port2.postMessage(0)
    }),
}
