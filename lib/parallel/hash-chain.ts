/**
 * The content checksums of a one-shot parallel LZ4 decode, computed on workers (issue
 * 32: the caller's thread orders and hands out). The XXH32 of a frame's content does
 * not combine from parts, so it runs over the outputs in order, one `xxh32` job at a
 * time (hash-job.ts), each going on from the state the last one returned, with the
 * outputs copied into the result since the last one left. The caller's thread moves
 * buffers and compares digests.
 *
 * Steps come in content order: `reset()` at a frame's start, `part()` for each output
 * of it (in the order they are taken), `digest()` at its end. The outputs' bytes come
 * later, in the same order, once copied into the result (`arrive()`): a job takes the
 * steps up to the first output not yet arrived. With no listening worker (a cold pool,
 * `threads: 1`) the jobs run on the caller's thread.
 */
import type { Format } from '../codec.js'
import type { Xxh32State } from '../codecs/xxhash32.js'
import type { JobResult, JobRunner } from './jobs.js'
import { HASH_DIGEST, HASH_RESET } from './hash-job.js'
import { STASH_BYTES } from './result-memory.js'

const EMPTY = new Uint8Array(0)
/** A step waiting for its output's bytes. */
const PART = -3

export class HashChain {
  /** Steps in order: `HASH_RESET`, `HASH_DIGEST`, or `PART` (arrived ones hold their index in `parts`, from 0). */
  private steps: number[] = []
  /** Outputs arrived, in order, and how many `PART` steps they fill. */
  private parts: ArrayBuffer[] = []
  private lengths: number[] = []
  /** Bytes of `parts`: outputs held here until a job takes them. */
  private held = 0
  /** The job out now, if any. */
  private away: Promise<void> | null = null
  /** The hash state between jobs. */
  private state: Xxh32State | null = null
  private failure: unknown = null

  /** `digested`: each `digest()`'s value, in order; `spent`: outputs hashed and back here (a job that ran on this thread, or outputs a worker did not keep): their memory may serve again. */
  constructor(
    private readonly run: JobRunner,
    private readonly format: Format,
    private readonly digested: (digest: number) => void,
    private readonly spent: (output: Uint8Array) => void = () => {},
  ) {}

  reset(): void {
    this.steps.push(HASH_RESET)
  }

  /** An output to hash comes next (its bytes by `arrive()`). */
  part(): void {
    this.steps.push(PART)
  }

  digest(): void {
    this.steps.push(HASH_DIGEST)
    this.send()
  }

  /** The bytes of the next `part()`: `output` is moved (its buffer detached when the job runs on a worker). */
  arrive(output: Uint8Array): void {
    const own = output.byteOffset === 0 && output.buffer instanceof ArrayBuffer ? output : output.slice()
    const k = this.steps.indexOf(PART)
    this.steps[k] = this.parts.length
    this.parts.push(own.buffer as ArrayBuffer)
    this.lengths.push(own.length)
    this.held += own.length
    this.send()
  }

  /**
   * A promise when the outputs held here (copied into the result, waiting for the job
   * out now) reach `STASH_BYTES`: the decode waits for it before taking more, so that a
   * worker slow to hash does not make outputs pile up.
   */
  backlog(): Promise<void> | undefined {
    if (this.held < STASH_BYTES || this.away === null) return undefined
    return this.away.then(() => {
      if (this.failure !== null) throw this.failure
    })
  }

  /** Once every step is hashed and every digest given; throws a failed job's error. */
  async done(): Promise<void> {
    while (this.away !== null || this.steps.length > 0) {
      if (this.away === null && this.ready() === 0) throw new Error('an output to hash never arrived')
      this.send()
      if (this.away !== null) await this.away
      if (this.failure !== null) throw this.failure
    }
    if (this.failure !== null) throw this.failure
  }

  /** How many steps lead the queue with their bytes here. */
  private ready(): number {
    const i = this.steps.indexOf(PART)
    return i < 0 ? this.steps.length : i
  }

  /** Sends the steps that are ready, if no job is out. */
  private send(): void {
    if (this.away !== null || this.failure !== null) return
    const n = this.ready()
    if (n === 0) return
    const steps = this.steps.splice(0, n)
    // The parts those steps name: the first ones arrived.
    let count = 0
    for (const s of steps) if (s >= 0) count++
    const parts = this.parts.splice(0, count)
    const lengths = this.lengths.splice(0, count)
    for (const n of lengths) this.held -= n
    // The steps left name parts from 0 again.
    for (let i = 0; i < this.steps.length; i++) if (this.steps[i]! >= 0) this.steps[i] = this.steps[i]! - count
    // A listening worker's runner when there is one (never the caller's thread; the worker
    // keeps the outputs for its next jobs' output memory), else the decode's own (inline
    // while a cold pool starts, or `threads: 1`).
    const onWorker = this.run.onWorker?.() ?? null
    const run = onWorker ?? this.run
    const job = { kind: 'xxh32', format: this.format, input: EMPTY, parts, lengths, steps, state: this.state, keep: onWorker !== null } as const
    this.away = run(job).then(
      (r: JobResult) => {
        this.away = null
        this.state = r.hash!.state
        for (const d of r.hash!.digests) this.digested(d)
        // Run on this thread (inline, or a cold pool's first jobs): the outputs are still here.
        if (!job.keep) for (const part of parts) if (part.byteLength > 0) this.spent(new Uint8Array(part))
        // Outputs the worker did not keep: memory for the next jobs.
        for (const part of r.spare ?? []) this.spent(new Uint8Array(part))
        this.send()
      },
      (error: unknown) => {
        this.away = null
        this.failure = error
      },
    )
  }
}
