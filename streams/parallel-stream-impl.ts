/**
 * Encoding streams in block mode (issue 22): `threads` / `blockSize` on the encoder
 * factories. The blocks are lib/parallel/blocks.ts `BlockEncoder`'s, the same state
 * machine the one-shot `encode()` drives, so a stream gives the same bytes as `encode()`
 * of the same input and options whatever the chunking (the last full block is held back
 * until the next write or the close says whether it is the last).
 *
 * - At most `2 × threads` jobs are in flight; a write that would start more waits for
 *   the oldest result, and a write returns only when the reader has room (the readable
 *   side's `desiredSize`), so a slow reader throttles the pool.
 * - `flush()` (and `flush: 'write'`) ends the current block: everything written so far
 *   is in the output, decodable without the rest.
 * - Cancelling the readable, aborting the writable or the `signal` drops the jobs still
 *   queued in the pool (their input copies with them) and errors the other side.
 * - A job's failure (a worker that crashed: `ENGINE_UNAVAILABLE`) errors the stream.
 */
import { toBytes, type BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import type { BlockEncoderPair } from './parallel-stream.js'
import type { StreamClasses } from './codec-stream.js'
import type { BlockPlan } from '../lib/parallel/block-options.js'
import { BlockEncoder } from '../lib/parallel/blocks.js'
import type { Job, JobResult, JobRunner } from '../lib/parallel/jobs.js'
import type { JobEngines } from '../lib/parallel/jobs.js'
import { jobRunner } from './job-runner.js'

type Outcome = { result: JobResult; error?: undefined } | { result?: undefined; error: unknown }

/**
 * The block-mode stream itself, part of streams/threads-impl.ts, which parallel-stream.ts
 * loads when such a stream is first used. Options were checked by `openBlockStream` there.
 */
export function openBlockPair(format: Format, plan: BlockPlan, threads: number, flushMode: 'none' | 'write', options: { signal?: AbortSignal; streams?: StreamClasses }, engines: JobEngines): BlockEncoderPair {
  const signal = options.signal
  // The stream classes the options name (a polyfill's), else the runtime's.
  const RS = options.streams?.ReadableStream ?? ReadableStream
  const WS = options.streams?.WritableStream ?? WritableStream
  const cancel = new AbortController()
  const max = 2 * threads
  // The block encoder and the pool's runner are made on the first write. Streams start
  // workers for any size (their length is not known in advance).
  let encoder!: BlockEncoder
  let run!: JobRunner
  let loading: Promise<void> | null = null
  const load = (): Promise<void> =>
    (loading ??= (async () => {
      encoder = await BlockEncoder.open(plan)
      run = jobRunner(threads, Infinity, engines, cancel.signal)
    })())

  const queue: Promise<Outcome>[] = []
  let readable!: ReadableStreamDefaultController<Uint8Array>
  let failed: unknown = null
  let room: (() => void) | null = null
  let tail: Promise<void> = Promise.resolve()
  let headerSent = false

  const fail = (reason: unknown): void => {
    if (failed) return
    failed = reason ?? new CodecError('ABORTED', format, 'aborted')
    cancel.abort()
    queue.length = 0
    try {
      readable.error(failed)
    } catch {
      // Already closed or errored.
    }
    room?.()
  }
  const emit = (bytes: Uint8Array): void => {
    if (bytes.length > 0 && !failed) readable.enqueue(bytes)
  }
  const capture = (p: Promise<JobResult>): Promise<Outcome> =>
    p.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    )
  const takeOne = async (): Promise<void> => {
    const outcome = await queue.shift()!
    if (failed) throw failed
    if (outcome.error !== undefined || !outcome.result) throw outcome.error
    emit(encoder.take(outcome.result))
  }
  const submit = async (jobs: Job[]): Promise<void> => {
    if (!headerSent) {
      headerSent = true
      emit(encoder.header())
    }
    for (const job of jobs) {
      while (queue.length >= max) await takeOne()
      queue.push(capture(Promise.resolve().then(() => run(job))))
    }
  }
  const drain = async (): Promise<void> => {
    while (queue.length > 0) await takeOne()
  }
  /** Waits until the reader has room (backpressure), or the stream failed. */
  const readerRoom = async (): Promise<void> => {
    while (!failed && (readable.desiredSize ?? 1) <= 0) await new Promise<void>((r) => (room = r))
    room = null
  }
  /** Runs `work` after the writes and flushes before it; any error fails the stream. */
  const serial = (work: () => Promise<void>): Promise<void> => {
    const next = tail.then(async () => {
      if (failed) throw failed
      try {
        await load()
        if (failed) throw failed
        await work()
      } catch (error) {
        fail(error)
        throw error
      }
    })
    // The chain itself must not reject (each caller gets `next`'s outcome).
    tail = next.then(
      () => {},
      () => {},
    )
    return next
  }

  const onAbort = () => fail(signal?.reason)
  if (signal?.aborted) queueMicrotask(onAbort)
  else signal?.addEventListener('abort', onAbort, { once: true })

  const out = new RS<Uint8Array>(
    {
      start(c) {
        readable = c
      },
      pull() {
        room?.()
      },
      cancel(reason) {
        fail(reason)
      },
    },
    { highWaterMark: max * plan.blockSize, size: (chunk) => chunk.length },
  )
  const into = new WS<BinaryInput>({
    write(chunk) {
      return serial(async () => {
        // A copy: the caller may reuse its buffer once the write resolved (`new
        // Uint8Array(view)` copies, where a Node Buffer's `slice()` is a view).
        const bytes = new Uint8Array(toBytes(chunk, true, format))
        await submit(encoder.push(bytes))
        if (flushMode === 'write') {
          await submit(encoder.flush())
          await drain()
        }
        await readerRoom()
      })
    },
    close() {
      return serial(async () => {
        await submit(encoder.end())
        await drain()
        emit(encoder.trailer())
        signal?.removeEventListener('abort', onAbort)
        readable.close()
      })
    },
    abort(reason) {
      fail(reason)
    },
  })
  return {
    readable: out,
    writable: into,
    flush: () =>
      serial(async () => {
        await submit(encoder.flush())
        await drain()
      }),
  }
}
