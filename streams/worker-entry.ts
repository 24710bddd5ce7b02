/**
 * The worker module (built as `sluice-worker.js` beside each build): runs the jobs the
 * pool posts with lib/parallel/jobs.ts `runJob`, the same function that runs them
 * inline, loading each engine once per worker. Replies carry the output's buffer
 * transferred (copied first when it is a view into a larger or non-transferable
 * buffer), or the error's code, format, message and offset; and the job's input
 * buffer, transferred back for the pool to copy a later input into
 * (input-buffers.ts). A warm-up (`WarmMessage`, ./warm-up.ts) loads a job's engine and
 * answers `{ warmed: true }`, whatever happened: a failure there is the job's to report
 * when it runs.
 */
import { host } from '#worker-host'
import { CodecError } from '../lib/errors.js'
import { jobFormat, runJob, type Job, type CodecFactories, type JobResult } from '../lib/parallel/jobs.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { warmUp } from './warm-up.js'

/** The codec factories this worker's jobs run on (their engines loaded once per worker). */
const codecs: CodecFactories = { createEncoder, createDecoder }

/** What the pool posts. */
export interface JobMessage {
  readonly id: number
  readonly job: Job
}

/** What the pool posts to a worker it starts, before any job: a job of the call that runs meanwhile, its bytes left out. */
export interface WarmMessage {
  readonly warm: Job
}

/** What the worker answers. */
export type ReplyMessage =
  | ((
      | ({ readonly id: number } & Pick<JobResult, 'output' | 'check' | 'chunk' | 'hash' | 'spare'>)
      | { readonly id: number; readonly error: { code: string; format: string; message: string; offset: number } }
    ) & {
      /** The job's input buffer, handed back (absent when the output lives in it). */
      readonly input?: ArrayBuffer
    })
  | { readonly warmed: true }

/** The job's input buffer, to hand back with a reply whose output is `own` (or an error): not when the output lives in it or it is handed back already (`spare`). */
function inputBack(job: Job, own: Uint8Array | null, spare?: readonly ArrayBuffer[]): ArrayBuffer[] {
  const buffer = job.input.buffer
  return buffer instanceof ArrayBuffer && buffer.byteLength > 0 && buffer !== own?.buffer && !spare?.includes(buffer) ? [buffer] : []
}

host.serve(async (message) => {
  if ('warm' in (message as object)) {
    try {
      await warmUp((message as WarmMessage).warm, codecs)
    } catch {
      // Only loading was tried: the job that needs it fails with its own error when it runs.
    }
    return { reply: { warmed: true }, transfer: [] }
  }
  const { id, job } = message as JobMessage
  try {
    const { output, check, chunk, owned, hash, spare } = await runJob(job, codecs)
    const own = output.byteOffset === 0 && (owned || output.byteLength === output.buffer.byteLength) && output.buffer instanceof ArrayBuffer ? output : output.slice()
    const back = inputBack(job, own, spare)
    return {
      reply: { id, output: own, check, ...(chunk ? { chunk } : {}), ...(hash ? { hash } : {}), ...(spare ? { spare } : {}), ...(back.length > 0 ? { input: back[0] } : {}) },
      transfer: [own.buffer as ArrayBuffer, ...(spare ?? []), ...back],
    }
  } catch (e) {
    const error =
      e instanceof CodecError
        ? { code: e.code, format: e.format, message: e.message, offset: e.offset }
        : { code: 'ENGINE_UNAVAILABLE', format: jobFormat(job), message: `the worker's job failed: ${e instanceof Error ? e.message : String(e)}`, offset: -1 }
    const back = inputBack(job, null)
    return { reply: { id, error, ...(back.length > 0 ? { input: back[0] } : {}) }, transfer: back }
  }
})
