/**
 * The stream shell of threads (issue 22): a readable/writable pair whose input becomes
 * jobs on the realm's worker pool (or inline with `threads: 1`), their outputs emitted in
 * the order the jobs were queued. Block-mode encoding (./block-encode-stream.ts) and
 * parallel decoding (./parallel-decode-stream.ts) are this shell plus what each does
 * with a written chunk, the close and a job's result; the parallel inflate stream
 * (./parallel-inflate-stream.ts) orders its chunk jobs itself (lib/parallel/inflate-run.ts)
 * on the shell's `runner()` and emits through the shell.
 *
 * - At most `2 × threads` jobs are in flight: queuing one more waits until the oldest is
 *   taken. One consumer takes the queue in order while the jobs run, so an output goes
 *   out as soon as it and those before it are in, and the consumer waits whenever the
 *   reader has no room (the readable side's `desiredSize`): a slow reader stops the
 *   consumer, then the jobs in flight, then the writes. A write also returns only once
 *   the reader has room.
 * - Writes, the close and `flush()` run one after another, in the order they were made.
 * - Cancelling the readable, aborting the writable or the `signal` drops the jobs still
 *   queued in the pool (their input copies with them) and errors the other side.
 * - One failure rule: the first error ends the stream, and every later write, close,
 *   flush and wait for the reader rejects with it. The stream's own errors (a failed
 *   job, a chunk that is not binary) reach the user through `rules.surface` (the web
 *   classes' `TypeError`s); a reason given to cancel or abort is passed on as it is.
 * - Each chunk is copied at the write, so the caller may reuse its buffer once the write
 *   resolved; chunks backed by a SharedArrayBuffer are refused where `rules.allowShared`
 *   is false, as the serial streams refuse them (./codec-stream.ts).
 */
import { toBytes, type BinaryInput } from '../lib/bytes.js'
import { CodecError } from '../lib/errors.js'
import type { Job, CodecFactories, JobResult, JobRunner } from '../lib/parallel/jobs.js'
import type { StreamClasses, SurfaceRules } from './codec-stream.js'
import { jobRunner } from './job-runner.js'

/** What the shell is opened with. */
export interface OrderedJobOptions {
  /** The format named in the shell's own errors (`ABORTED`, `UNSUPPORTED`). */
  readonly format: string
  /** Threads to run the jobs on; `2 × threads` jobs are in flight at most. */
  readonly threads: number
  /** The span codecs inline jobs run on (lib/parallel/jobs.ts). */
  readonly codecs: CodecFactories
  readonly signal: AbortSignal | undefined
  /** The stream classes to build on (a polyfill's), else the runtime's. */
  readonly streams: StreamClasses | undefined
  readonly rules: Required<SurfaceRules>
  /** The output one job may make, for the readable side's queue (`2 × threads` of them). */
  readonly outputPerJob: number
  /** Frees what the stream holds besides its jobs (a serial machine) when it fails. */
  readonly dispose?: () => void
}

/** What the stream does with its input: each runs in turn, after the writes before it. */
export interface OrderedJobSink {
  /** Acts on a written chunk (a copy the stream owns). */
  write(bytes: Uint8Array): Promise<void>
  /** Acts on the close; the shell then waits for every queued output and closes the readable side. */
  close(): Promise<void>
  /** Writes a sync point (encoders); without it `flush()` rejects with `UNSUPPORTED`. */
  flush?(): Promise<void>
}

/** The pair; `flush()` runs the sink's, in turn with the writes. */
export type OrderedJobPair = ReadableWritablePair<Uint8Array, BinaryInput> & { flush(): Promise<void> }

type Outcome = { result: JobResult; error?: undefined } | { result?: undefined; error: unknown }

/** A queued job (its outcome, what takes it) or a step made in order with the outputs. */
type Entry =
  | { readonly outcome: Promise<Outcome>; readonly take: (result: JobResult) => void | Promise<void>; readonly recover: ((error: unknown) => Promise<void>) | undefined }
  | { readonly outcome: null; readonly step: () => void | Promise<void> }

const ignore = (): void => {}

/**
 * The shell: open it, then build the pair with `pair(sink)`. The sink queues jobs with
 * `job()` and steps with `step()`, emits with `emit()` and waits with `drain()` and
 * `readerRoom()`.
 */
export class OrderedJobs {
  /** Bytes emitted so far. */
  emitted = 0
  private readonly max: number
  /** Aborted when the stream fails: drops the jobs still queued in the pool. */
  private readonly cancel = new AbortController()
  private run: JobRunner | null = null
  private readonly queue: Entry[] = []
  /** Jobs queued and not yet taken. */
  private inFlight = 0
  private readable!: ReadableStreamDefaultController<Uint8Array>
  private failure: { readonly error: unknown } | null = null
  /** Waiting for the reader's room (the consumer, a write). */
  private roomWaiters: (() => void)[] = []
  /** Waiting for the consumer to take an entry (jobs that would pass `max`). */
  private takenWaiters: (() => void)[] = []
  /** The writes, the close and the flushes, chained. */
  private turn: Promise<void> = Promise.resolve()
  /** The consumer while it runs. */
  private consumer: Promise<void> | null = null

  constructor(private readonly options: OrderedJobOptions) {
    this.max = 2 * options.threads
  }

  /** The readable/writable pair over `sink`. */
  pair(sink: OrderedJobSink): OrderedJobPair {
    const { signal, streams, rules } = this.options
    const RS = streams?.ReadableStream ?? ReadableStream
    const WS = streams?.WritableStream ?? WritableStream
    // A reason from the signal is the user's; an abort without one gets ours (ABORTED).
    const onAbort = (): void => this.fail(signal?.reason, signal?.reason === undefined)
    if (signal?.aborted) queueMicrotask(onAbort)
    else signal?.addEventListener('abort', onAbort, { once: true })
    const readable = new RS<Uint8Array>(
      {
        start: (c) => {
          this.readable = c
        },
        pull: () => this.wakeRoom(),
        cancel: (reason) => this.fail(reason, false),
      },
      { highWaterMark: this.max * this.options.outputPerJob, size: (chunk) => chunk.length },
    )
    const writable = new WS<BinaryInput>({
      write: (chunk) => {
        let bytes: Uint8Array
        try {
          // A copy (`new Uint8Array(view)`; a Node Buffer's `slice()` is a view): the
          // sink keeps it past the write, and the caller may reuse its buffer after it.
          bytes = new Uint8Array(toBytes(chunk, rules.allowShared, this.options.format))
        } catch (error) {
          this.fail(error)
          return Promise.reject(this.failure!.error)
        }
        return this.inTurn(async () => {
          await sink.write(bytes)
          await this.readerRoom()
        })
      },
      close: () =>
        this.inTurn(async () => {
          await sink.close()
          await this.drain()
          signal?.removeEventListener('abort', onAbort)
          this.readable.close()
        }),
      abort: (reason) => this.fail(reason, false),
    })
    const flush = (): Promise<void> => (sink.flush ? this.inTurn(() => sink.flush!()) : Promise.reject(rules.surface(new CodecError('UNSUPPORTED', this.options.format, 'this stream has no flush'))))
    return { readable, writable, flush }
  }

  /** Throws the stream's failure, if it failed. */
  check(): void {
    if (this.failure) throw this.failure.error
  }

  /** Enqueues `bytes` on the readable side (nothing once the stream failed). */
  emit(bytes: Uint8Array): void {
    if (bytes.length === 0 || this.failure) return
    this.emitted += bytes.length
    this.readable.enqueue(bytes)
  }

  /**
   * Queues `job`. Once it and everything queued before it are taken, `take` gets its
   * result; its error goes to `recover` if given, else fails the stream. Resolves once the
   * job is queued: at once, or when the oldest of `2 × threads` in flight is taken.
   */
  async job(job: Job, take: (result: JobResult) => void | Promise<void>, recover?: (error: unknown) => Promise<void>): Promise<void> {
    while (this.inFlight >= this.max && !this.failure) await new Promise<void>((r) => this.takenWaiters.push(r))
    this.check()
    const run = this.runner()
    this.inFlight++
    const outcome = Promise.resolve()
      .then(() => run(job))
      .then(
        (result): Outcome => ({ result }),
        (error: unknown): Outcome => ({ error }),
      )
    this.enqueue({ outcome, take, recover })
  }

  /**
   * The runner the stream's jobs run on (inline with `threads: 1`, else the realm's pool),
   * for a sink that orders its own jobs (./parallel-inflate-stream.ts): the jobs still
   * queued in the pool are dropped when the stream fails, as `job()`'s are.
   */
  runner(): JobRunner {
    const { threads, codecs } = this.options
    return (this.run ??= jobRunner(threads, Infinity, codecs, this.cancel.signal))
  }

  /** Queues `step`, made in order with the jobs' outputs (after those queued before it). */
  step(step: () => void | Promise<void>): void {
    this.enqueue({ outcome: null, step })
  }

  /** Resolves once everything queued is taken; rejects with the stream's failure. */
  async drain(): Promise<void> {
    while (this.consumer) await this.consumer
    this.check()
  }

  /** Resolves once the reader has room (backpressure); rejects with the stream's failure. */
  async readerRoom(): Promise<void> {
    while (!this.failure && (this.readable.desiredSize ?? 1) <= 0) await new Promise<void>((r) => this.roomWaiters.push(r))
    this.check()
  }

  /**
   * Ends the stream, once: `reason` (our own error, shown through `rules.surface`, unless
   * `ours` is false: a reason given to cancel or abort), else `ABORTED`.
   */
  fail(reason: unknown, ours = true): void {
    if (this.failure) return
    const why = reason ?? new CodecError('ABORTED', this.options.format, 'the stream was cancelled')
    this.failure = { error: ours ? this.options.rules.surface(why) : why }
    this.cancel.abort()
    this.queue.length = 0
    this.options.dispose?.()
    try {
      this.readable.error(this.failure.error)
    } catch {
      // Already closed or errored.
    }
    this.wakeRoom()
    this.wakeTaken()
  }

  /** Runs `work` after the writes, close and flushes before it; its error fails the stream. */
  private inTurn(work: () => Promise<void>): Promise<void> {
    const next = this.turn.then(async () => {
      this.check()
      try {
        await work()
      } catch (error) {
        this.fail(error)
        throw this.failure!.error
      }
    })
    // The chain itself never rejects (each caller gets `next`'s outcome).
    this.turn = next.then(ignore, ignore)
    return next
  }

  private enqueue(entry: Entry): void {
    this.queue.push(entry)
    this.consume()
  }

  /** Starts the consumer unless it runs: it takes the queue in order until it is empty. */
  private consume(): void {
    if (this.consumer || this.failure) return
    const takeAll = async (): Promise<void> => {
      try {
        while (this.queue.length > 0 && !this.failure) {
          await this.takeOne()
          this.wakeTaken()
        }
      } catch (error) {
        this.fail(error)
      }
    }
    this.consumer = takeAll().finally(() => {
      this.consumer = null
      this.wakeTaken()
      // Queued after the loop's last look and before this: start again.
      if (this.queue.length > 0) this.consume()
    })
  }

  /** Takes the oldest entry: a job's result (or error) once it is in, or a step. */
  private async takeOne(): Promise<void> {
    const entry = this.queue.shift()!
    if (entry.outcome === null) return entry.step()
    const o = await entry.outcome
    this.inFlight--
    this.check()
    if (o.result) await entry.take(o.result)
    else if (entry.recover) await entry.recover(o.error)
    else throw o.error
    await this.readerRoom()
  }

  private wakeRoom(): void {
    const w = this.roomWaiters
    this.roomWaiters = []
    for (const r of w) r()
  }

  private wakeTaken(): void {
    const w = this.takenWaiters
    this.takenWaiters = []
    for (const r of w) r()
  }
}
