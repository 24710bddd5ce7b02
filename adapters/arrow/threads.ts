/**
 * The Arrow reader's and writer's `threads` (issue 22), loaded with a dynamic import
 * the first time a reader or writer is asked for more than one thread, so that Arrow
 * users who never ask do not load the worker pool (streams/runner-for.ts). Resolves
 * `threads` (`'auto'`, and `ENGINE_UNAVAILABLE` where the runtime has no workers) and
 * runs body buffers as jobs (lib/arrow/body-parallel.ts) on runners from
 * `runnerFor()`, which keeps small bodies on the caller's thread until a large one
 * started the pool (`SMALL_BODY_BYTES`).
 */
import type { Decoder } from '../../lib/codec.js'
import { decodeBodyBuffersParallel, layoutBodyParallel } from '../../lib/arrow/body-parallel.js'
import type { Body, BodyBuffers } from '../../lib/arrow/body-write.js'
import type { RecordBatchDesc } from '../../lib/arrow/metadata.js'
import type { JobRunner } from '../../lib/parallel/jobs.js'
import { MIN_PARALLEL_BYTES } from '../../lib/options.js'
import { runnerFor } from '../../streams/runner-for.js'
import { checkThreads } from '../../streams/threads.js'

/**
 * Bodies below `MIN_PARALLEL_BYTES` go to the workers too once a body of that size did
 * (the pool is started and the stream is large), down to this size: decoded here they
 * are the caller's time (the last, shorter batch of a 1M-row table written in 65,536-row
 * batches is about a fiftieth of its decoding), while a job's round trip costs about
 * 0.1 ms, about what 128 KiB of zstd takes to decode.
 */
const SMALL_BODY_BYTES = 128 * 1024

/** Body decoding and encoding on `threads` threads. */
export interface ArrowThreads {
  /** The threads resolved (above one). */
  readonly threads: number
  /** lib/arrow/body.ts `decodeBodyBuffers` as jobs (see `decodeBodyBuffersParallel`). */
  decode(batch: RecordBatchDesc, body: Uint8Array, bodyOffset: number, decoder: Decoder, maxBytes: number, aliasRaw: boolean, sizeHint: ((index: number, decoded: Uint8Array[]) => number) | null): Promise<Uint8Array[]>
  /** lib/arrow/body-write.ts `layoutBody` with an encoder of `compression` at `level`, as jobs. */
  layout(a: BodyBuffers, length: number, compression: number, level: number | undefined): Promise<Body>
}

/**
 * `threads` (its form checked where the reader or writer was made) resolved: null for
 * one thread, else the parallel body code. Throws `ENGINE_UNAVAILABLE` for a number
 * above one where the runtime has no workers. `signal` drops queued jobs.
 */
export function arrowThreads(value: unknown, signal?: AbortSignal): ArrowThreads | null {
  const threads = checkThreads('arrow', value)
  if (threads <= 1) return null
  const inFlight = 2 * threads
  // One cap on the jobs in flight for all of this reader's or writer's bodies: the
  // reader decodes the next message's while the caller takes the current one.
  const slots = new Slots(inFlight)
  let large = false
  const runner = (bytes: number): JobRunner => {
    const run = runnerFor(threads, large && bytes >= SMALL_BODY_BYTES ? Math.max(bytes, MIN_PARALLEL_BYTES) : bytes, signal)
    if (bytes >= MIN_PARALLEL_BYTES) large = true
    return async (job) => {
      await slots.take()
      try {
        return await run(job)
      } finally {
        slots.give()
      }
    }
  }
  return {
    threads,
    decode: (batch, body, bodyOffset, decoder, maxBytes, aliasRaw, sizeHint) => decodeBodyBuffersParallel(batch, body, bodyOffset, decoder, maxBytes, aliasRaw, sizeHint, runner, inFlight),
    layout: (a, length, compression, level) => layoutBodyParallel(a, length, compression, level, runner, inFlight),
  }
}

/** A count of slots, handed out first come, first served. */
class Slots {
  private free: number
  private readonly waiting: (() => void)[] = []

  constructor(count: number) {
    this.free = count
  }

  take(): Promise<void> | void {
    if (this.free > 0) {
      this.free--
      return
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve))
  }

  /** Returns a slot: to the longest waiter, else to the free count. */
  give(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.free++
  }
}
