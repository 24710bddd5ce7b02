/**
 * What the worker pool (streams/pool.ts) needs from a runtime, implemented once per kind
 * of runtime and chosen by the package's `#worker-host` import (package.json `imports`,
 * by condition, like `#node-engine`): Node's `worker_threads` (adapters/node/
 * worker-host.ts, also what Deno and Bun run from the portable ESM build), Web Workers
 * (streams/web-worker-host.ts, browsers), none (streams/no-worker-host.ts, workerd).
 */

/** A worker as the pool sees it. */
export interface HostedWorker {
  /** Posts `message`, transferring `transfer` (the buffers become the worker's). */
  post(message: unknown, transfer: ArrayBuffer[]): void
  /** Whether the worker keeps the process alive: yes while it runs a job, no when idle (Node `ref`/`unref`). */
  hold(busy: boolean): void
  terminate(): void
}

export interface WorkerHost {
  /** Why this runtime has no workers, or null when it has them. */
  readonly unavailable: string | null
  /** The cores the runtime reports (`os.availableParallelism()`, `navigator.hardwareConcurrency`), for `threads: 'auto'`. */
  cores(): number
  /**
   * Starts a worker running the module at `url`; `onMessage` receives what it posts,
   * `onFailure` an uncaught error, an exit or a message that could not be read.
   */
  start(url: URL, onMessage: (message: unknown) => void, onFailure: (error: unknown) => void): HostedWorker
  /**
   * Inside a worker: answers each message with `handle`'s reply, transferring the
   * buffers it lists; first posts `READY`, once it listens.
   */
  serve(handle: (message: unknown) => Promise<{ reply: unknown; transfer: ArrayBuffer[] }>): void
  /** Resolves after the runtime has handled the events waiting (a macrotask: a worker's message among them). */
  nextTask(): Promise<void>
}

/** What a worker posts once it listens (the pool then sends it jobs instead of running them on the caller's thread). */
export const READY = 'sluice-worker-ready'

