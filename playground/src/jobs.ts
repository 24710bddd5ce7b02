/**
 * Runs one job in a fresh Web Worker (worker.ts) and ends the worker when it answers:
 * a fresh one per job because the engines keep their WebAssembly memory once grown, so a
 * bench row never runs in memory the rows before it grew. `stopJobs()` ends the running
 * ones (the Stop button).
 */
import type { Job, Reply } from './messages.js'

type Result = Exclude<Reply, { type: 'progress' } | { type: 'error' }>

const running = new Set<{ worker: Worker; reject: (error: Error) => void }>()

/** The job's result; `onProgress` gets the worker's progress reports. */
export function runJob<T extends Result['type']>(job: Job, expect: T, onProgress?: (done: number, total: number) => void): Promise<Extract<Reply, { type: T }>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: `sluice ${job.type}` })
    const entry = { worker, reject }
    running.add(entry)
    const end = () => {
      running.delete(entry)
      worker.terminate()
    }
    worker.onmessage = ({ data }: MessageEvent<Reply>) => {
      if (data.type === 'progress') return onProgress?.(data.done, data.total)
      end()
      if (data.type === expect) resolve(data as Extract<Reply, { type: T }>)
      else reject(new Error(data.type === 'error' ? data.message : `the worker answered ${data.type}, not ${expect}`))
    }
    worker.onerror = (event) => {
      end()
      reject(new Error(event.message || 'the worker failed to start'))
    }
    worker.postMessage(job)
  })
}

/** Ends every running job; their promises reject with "stopped". */
export function stopJobs(): void {
  for (const entry of running) {
    entry.worker.terminate()
    entry.reject(new Error('stopped'))
  }
  running.clear()
}
