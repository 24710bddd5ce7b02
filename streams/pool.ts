/**
 * One worker pool per realm (per page, per worker, per Node thread), started on the
 * first job that asks for more than one thread, sized to the largest `threads` asked so
 * far. Each worker loads its own engines once (the registry caches them per realm), and
 * a worker that starts while a call runs loads that call's engine before it counts as
 * ready (its warm-up, ./warm-up.ts): until then the call's jobs run on the caller's
 * thread, so a job never waits on a worker that is still loading its engine.
 * Idle workers end after `IDLE_MS` and, in Node, never keep the process alive (they are
 * referenced only while they run a job). `closeWorkers()` ends them all at once.
 *
 * Jobs are plain data; the pool copies each job's `input` once into a buffer of its own
 * and transfers it (the caller's buffer is never detached), and the worker transfers
 * the output back, and that buffer with it for the next job's input (input-buffers.ts):
 * no SharedArrayBuffer, so no cross-origin isolation is needed.
 *
 * A worker that fails (an uncaught error, running out of memory, an exit, a message
 * that cannot be read) fails the job it was running with a `CodecError` and is dropped;
 * the next job starts a new one. No job waits on a worker that is gone.
 */
import { host } from '#worker-host'
import { CodecError, type ErrorCode } from '../lib/errors.js'
import { jobFormat, jobTransfer, type Job, type JobResult } from '../lib/parallel/jobs.js'
import { InputBuffers } from './input-buffers.js'
import { workerFile } from './worker-file.js'
import { READY, type HostedWorker } from './worker-host.js'
import type { JobMessage, ReplyMessage, WarmMessage } from './worker-entry.js'

/**
 * Jobs posted to one worker ahead of its answers: with two, a worker starts its next job
 * as soon as it answers one, instead of idling for a message's round trip (or while the
 * caller's thread is busy) before the pool can post it.
 */
const DEPTH = 2

/** Idle workers end after this long (ms): long enough to serve a burst of calls, short enough not to hold memory for nothing. */
export const IDLE_MS = 5000

interface Pending {
  readonly message: JobMessage
  readonly transfer: ArrayBuffer[]
  readonly format: string
  readonly resolve: (result: JobResult) => void
  readonly reject: (error: unknown) => void
  /** Called when the job leaves the queue for a worker. */
  started?: () => void
}

interface Slot {
  readonly worker: HostedWorker
  /** Whether the worker takes jobs: it said it listens (`READY`) and ran the warm-up it was sent, if any (`warmed`). */
  ready: boolean
  /** Whether it was sent a warm-up or a job (a worker is warmed up once, for the first call it serves). */
  used: boolean
  /** Whether its warm-up is still running. */
  warming: boolean
  /** Jobs posted to it and not yet answered, in the order posted (at most `DEPTH`). */
  readonly jobs: Pending[]
  idle: ReturnType<typeof setTimeout> | undefined
  ended: boolean
}


/** A job no other is queued behind on its worker (lib/parallel/jobs.ts `MemoryJob`). */
const alone = (p: Pending): boolean => p.message.job.kind === 'memory'

/** A job's field as a warm-up carries it: a view empty, a buffer none, a list of buffers or views empty, anything else as it is. */
function withoutBytes(value: unknown): unknown {
  const bytes = (v: unknown): boolean => ArrayBuffer.isView(v) || v instanceof ArrayBuffer
  if (ArrayBuffer.isView(value)) return new Uint8Array(0)
  if (value instanceof ArrayBuffer) return null
  if (Array.isArray(value) && value.some(bytes)) return []
  return value
}

class WorkerPool {
  private size = 0
  private readonly slots: Slot[] = []
  private readonly queue: Pending[] = []
  private nextId = 1
  /** Buffers workers handed back, for the inputs of later jobs. */
  private readonly inputs = new InputBuffers()
  /** Why the last worker to start failed before it listened (null once one listens). */
  private startFailure: unknown = null
  /** What a worker that starts loads first: the latest job run while the pool warmed, its input left out. */
  private warmUp: WarmMessage | null = null

  /**
   * Jobs answered by a worker, and jobs run on the caller's thread while the pool
   * warmed, since it was made (for tests: these only grow, where `workers` falls again
   * as idle workers end after `IDLE_MS`).
   */
  jobsOnWorkers = 0
  jobsInline = 0

  /** Workers currently running (for tests and `closeWorkers`). */
  get workers(): number {
    return this.slots.length
  }

  /** Lets the pool grow to `threads` workers. */
  grow(threads: number): void {
    if (threads > this.size) this.size = threads
  }

  /**
   * Runs `job` on a worker. Aborting `signal` drops the job if it is still queued (its
   * input copy is freed) and rejects with `ABORTED`; a job already running finishes
   * and its result is dropped by the caller.
   */
  run(job: Job, signal?: AbortSignal, inline?: () => Promise<JobResult>): Promise<JobResult> {
    // A cold pool: while no worker listens yet, the job runs on the caller's thread
    // (`inline`, the same job code), so the first call of a process costs no more than
    // one thread would while the workers start beside it. Each inline job first lets
    // the runtime handle its events, so a worker that is ready takes the next jobs.
    if (inline && this.warming()) {
      this.warmWith(job)
      this.warm()
      return host.nextTask().then(() => {
        if (this.warming() && !this.slots.some((s) => s.ready && s.jobs.length === 0)) {
          this.jobsInline++
          return inline()
        }
        return this.run(job, signal)
      })
    }
    // The one copy of the input: a buffer of the pool's own (never the caller's, whose
    // memory a transfer would detach), transferred to the worker and handed back.
    const input = this.inputs.copy(job.input)
    return new Promise<JobResult>((resolve, reject) => {
      // Memory given with the job (`scratch` for its output to reuse, an `xxh32` job's outputs) moves with it.
      const pending: Pending = { message: { id: this.nextId++, job: { ...job, input } }, transfer: [input.buffer, ...jobTransfer(job)], format: jobFormat(job), resolve, reject }
      if (signal) {
        if (signal.aborted) return reject(new CodecError('ABORTED', pending.format, 'the stream was cancelled'))
        const onAbort = () => {
          const i = this.queue.indexOf(pending)
          if (i < 0) return
          this.queue.splice(i, 1)
          reject(new CodecError('ABORTED', pending.format, 'the stream was cancelled'))
        }
        signal.addEventListener('abort', onAbort, { once: true })
        // Listening only while queued: a started job is past cancelling.
        pending.started = () => signal.removeEventListener('abort', onAbort)
      }
      this.queue.push(pending)
      this.pump()
    })
  }

  /** Starts workers up to the pool's size (they load in the background). */
  private warm(): void {
    // One worker starts at a time: a start costs a core for tens of milliseconds
    // (Node's own modules, then ours), and the caller's thread is running jobs meanwhile.
    if (this.slots.length >= this.size || this.slots.some((s) => !s.ready)) return
    try {
      this.rest(this.spawn())
    } catch (cause) {
      // Reported by the queue (pump) when a job needs a worker that cannot start.
      this.startFailure = cause
    }
  }

  /**
   * Whether workers are still starting (the pool below its size, or a worker not yet
   * listening) and none has failed to start: then the caller's thread runs the jobs no
   * listening worker is free for.
   */
  private warming(): boolean {
    return this.startFailure === null && (this.slots.length < this.size || this.slots.some((s) => !s.ready))
  }

  /**
   * Makes `job` the warm-up of the workers that start from now on, and of those started
   * that have had neither a warm-up nor a job: they count as ready once they loaded its
   * engine. Its bytes are left out (`withoutBytes`), so the warm-up holds none of the
   * caller's memory and copies nothing large. A `memory` or `xxh32` job loads nothing
   * (page writes; XXH32 in TypeScript) and changes nothing.
   */
  private warmWith(job: Job): void {
    if (job.kind === 'memory' || job.kind === 'xxh32') return
    const warm: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(job)) warm[key] = withoutBytes(value)
    this.warmUp = { warm: warm as unknown as Job }
    for (const slot of this.slots) this.sendWarmUp(slot)
  }

  private sendWarmUp(slot: Slot): void {
    if (slot.used || !this.warmUp) return
    slot.used = true
    try {
      slot.worker.post(this.warmUp, [])
    } catch {
      // A job the structured clone refuses: no warm-up (the worker is ready once it
      // listens); posting the job itself reports it.
      return
    }
    slot.warming = true
    slot.ready = false
  }

  /** A worker with no job (just started, or done): unreferenced, and ended after `IDLE_MS`. */
  private rest(slot: Slot): void {
    slot.worker.hold(false)
    slot.idle = setTimeout(() => this.end(slot), IDLE_MS)
    // Node: an idle timer never keeps the process alive either.
    ;(slot.idle as { unref?: () => void }).unref?.()
  }

  /** Workers that said they listen (for tests). */
  get readyWorkers(): number {
    return this.slots.filter((s) => s.ready).length
  }

  /** Input buffers workers handed back, kept for later jobs (for tests). */
  get inputsKept(): number {
    return this.inputs.kept
  }

  /** Jobs waiting for a worker (for tests). */
  get queued(): number {
    return this.queue.length
  }

  private pump(): void {
    while (this.queue.length > 0) {
      // An idle worker first (one that listens before one still starting), then a new one
      // (up to the pool's size), then a second job for the least busy.
      let slot = this.slots.find((s) => s.jobs.length === 0 && s.ready) ?? this.slots.find((s) => s.jobs.length === 0)
      if (!slot && this.slots.length < this.size) {
        try {
          slot = this.spawn()
        } catch (cause) {
          const error = new CodecError('ENGINE_UNAVAILABLE', this.queue[0]!.format, `could not start a worker: ${cause instanceof Error ? cause.message : String(cause)}`, -1, { cause })
          for (const p of this.queue.splice(0)) p.reject(error)
          return
        }
      }
      // Not behind a `memory` job: tens of milliseconds of page writes would hold up the
      // job queued after it, and the jobs taken in order after that one.
      slot ??= this.slots.reduce<Slot | undefined>((best, s) => (s.jobs.length < DEPTH && !s.jobs.some(alone) && (!best || s.jobs.length < best.jobs.length) ? s : best), undefined)
      if (!slot) return
      const pending = this.queue.shift()!
      pending.started?.()
      slot.used = true
      slot.jobs.push(pending)
      clearTimeout(slot.idle)
      slot.worker.hold(true)
      try {
        slot.worker.post(pending.message, pending.transfer)
      } catch (cause) {
        // A job that cannot be posted (a value the structured clone refuses) fails alone;
        // the worker stays free for the next one, and nothing waits forever.
        slot.jobs.pop()
        if (slot.jobs.length === 0) slot.worker.hold(false)
        pending.reject(new CodecError('ENGINE_UNAVAILABLE', pending.format, `the job could not be posted to a worker: ${cause instanceof Error ? cause.message : String(cause)}`, -1, { cause }))
      }
    }
  }

  private spawn(): Slot {
    const slot: Slot = { worker: undefined as unknown as HostedWorker, ready: false, used: false, warming: false, jobs: [], idle: undefined, ended: false }
    ;(slot as { worker: HostedWorker }).worker = host.start(
      workerFile(),
      (message) => this.onReply(slot, message as ReplyMessage | typeof READY),
      (error) => this.onFailure(slot, error),
    )
    this.slots.push(slot)
    this.sendWarmUp(slot)
    return slot
  }

  private onReply(slot: Slot, reply: ReplyMessage | typeof READY): void {
    if (reply === READY || 'warmed' in reply) {
      // A worker sent a warm-up takes jobs once it ran it (`warmed` follows `READY`).
      if (reply === READY && slot.warming) return
      slot.warming = false
      slot.ready = true
      this.startFailure = null
      this.warm()
      this.pump()
      return
    }
    // A worker answers its jobs in the order they were posted.
    const at = slot.jobs.findIndex((p) => p.message.id === reply.id)
    if (at < 0) return
    const pending = slot.jobs.splice(at, 1)[0]!
    this.jobsOnWorkers++
    if (reply.input) this.inputs.give(reply.input)
    if ('error' in reply) {
      const e = reply.error
      const error = new CodecError(e.code as ErrorCode, e.format, '', e.offset)
      error.message = e.message
      pending.reject(error)
    } else {
      const { id: _, input: __, ...result } = reply
      pending.resolve(result)
    }
    this.pump()
    if (slot.jobs.length === 0 && !slot.ended) this.rest(slot)
  }

  private onFailure(slot: Slot, cause: unknown): void {
    if (slot.ended) return
    // A worker that never listened: stop running jobs here in its stead; the next job
    // goes to the queue, which starts a worker again or reports why it cannot.
    if (!slot.ready) this.startFailure = cause
    this.end(slot)
    const why = cause instanceof Error ? cause.message : String(cause)
    for (const pending of slot.jobs.splice(0)) {
      pending.reject(new CodecError('ENGINE_UNAVAILABLE', pending.format, `the worker running this job failed (${why}); it was replaced`, -1, { cause }))
    }
    this.pump()
  }

  private end(slot: Slot): void {
    if (slot.ended) return
    slot.ended = true
    clearTimeout(slot.idle)
    const i = this.slots.indexOf(slot)
    if (i >= 0) this.slots.splice(i, 1)
    // No worker left (idle, or closed): the memory kept for inputs goes too.
    if (this.slots.length === 0) this.inputs.clear()
    slot.worker.terminate()
  }

  /** Ends every worker; jobs running or queued fail with `ABORTED`. */
  close(): void {
    for (const p of this.queue.splice(0)) p.reject(new CodecError('ABORTED', p.format, 'closeWorkers() was called'))
    for (const slot of [...this.slots]) {
      const running = slot.jobs.splice(0)
      this.end(slot)
      for (const pending of running) pending.reject(new CodecError('ABORTED', pending.format, 'closeWorkers() was called'))
    }
    this.size = 0
    this.startFailure = null
    this.warmUp = null
  }

  /** Test hook: ends a busy worker as a crash would. */
  crashOne(): boolean {
    const slot = this.slots.find((s) => s.jobs.length > 0)
    if (!slot) return false
    slot.worker.terminate()
    return true
  }
}

let pool: WorkerPool | null = null

/** The realm's pool, created on first use. */
export function workerPool(): WorkerPool {
  return (pool ??= new WorkerPool())
}

/** Ends the pool's workers now (the public `closeWorkers()` of threads.ts). */
export function closeWorkers(): void {
  pool?.close()
}

export type { WorkerPool }
