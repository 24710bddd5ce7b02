/**
 * Decoding streams with `threads` (issue 22): `zstdDecode({ threads })`,
 * `lz4Decode({ threads })`, `new DecompressionStream('zstd' | 'lz4', { threads })`.
 * The input is cut as it arrives (lib/parallel/zstd-cutter.ts: groups of whole frames
 * that state their content sizes; lib/parallel/lz4-cutter.ts: groups of independent
 * blocks), the cuts run as jobs on the realm's pool, and their outputs are emitted in
 * input order, so the stream gives the bytes the serial decoder gives.
 *
 * - What does not cut (a zstd frame without a content size or over the cutter's bound,
 *   a dependent LZ4 frame, anything odd) is decoded here, serially, by the same machine
 *   (lib/machine.ts) as every serial stream, fed as the bytes arrive: never kept whole.
 * - At most `2 × threads` jobs are in flight; a write returns once the reader has room
 *   (the readable side's `desiredSize`), so a slow reader throttles the pool; the cutter
 *   keeps at most one frame (zstd, bounded) or one group of blocks (LZ4).
 * - `maxOutputBytes`: a zstd group whose exact size would pass the limit is decoded by
 *   the serial machine with the limit left, which fails as always; LZ4 outputs are
 *   counted as they are emitted.
 * - A corrupt cut errors the stream with the `CodecError` the serial decoder gives, its
 *   offset in the whole input: a failed zstd job is decoded again here, serially; an LZ4
 *   job's error names its byte in the job, moved into the input.
 * - Cancelling the readable, aborting the writable or the `signal` drops the jobs still
 *   queued in the pool and errors the other side.
 */
import { toBytes, type BinaryInput } from '../lib/bytes.js'
import { CodecError } from '../lib/errors.js'
import type { Engine } from '../lib/formats.js'
import type { Machine } from '../lib/machine.js'
import type { prepareDecoder } from '../lib/prepare.js'
import { Xxh32 } from '../lib/codecs/xxhash32.js'
import { hex32, rebase, type Cut, type JobCut } from '../lib/parallel/cuts.js'
import type { JobEngines, JobResult, JobRunner } from '../lib/parallel/jobs.js'
import { Lz4Cutter } from '../lib/parallel/lz4-cutter.js'
import { ZstdCutter } from '../lib/parallel/zstd-cutter.js'
import type { StreamClasses } from './codec-stream.js'
import { jobRunner } from './job-runner.js'

/**
 * What the stream runs on, passed in by its shell (streams/parallel-stream.ts): the
 * registry's span codecs for the jobs, and the serial machine (lib/prepare.ts) for what
 * does not cut, so that the threads implementation imports neither.
 */
export interface DecodeEngines extends JobEngines {
  readonly prepareDecoder: typeof prepareDecoder
}

type Outcome = { result: JobResult; error?: undefined } | { result?: undefined; error: unknown }
type Queued = { cut: Cut; outcome?: Promise<Outcome> }

/** What the decoding stream was opened with, its options checked (streams/parallel-stream.ts). */
export interface DecodePairOptions {
  readonly engine: Engine
  readonly maxOutputBytes: number
  /** The codec's own options (zstd `maxWindowLog`, `dictionary`, ...). */
  readonly codec: Record<string, unknown>
  readonly chunkSize: number | undefined
  readonly signal: AbortSignal | undefined
  readonly streams: StreamClasses | undefined
  /** Whether chunks backed by a SharedArrayBuffer are accepted (not by `DecompressionStream`). */
  readonly allowShared: boolean
  /** Maps errors before they reach the user (`DecompressionStream`'s `TypeError`s). */
  readonly surface: (error: unknown) => unknown
}

/** The stream pair; `flush()` rejects (a decoder has no sync points to write), as a serial decoder's does. */
export type DecodePair = ReadableWritablePair<Uint8Array, BinaryInput> & { flush(): Promise<void> }

/**
 * The parallel decoding stream of `format`, part of streams/threads-impl.ts (loaded on
 * the stream's first use). `threads: 1` runs the same jobs inline.
 */
export function openDecodePair(format: 'zstd' | 'lz4', threads: number, options: DecodePairOptions, engines: DecodeEngines): DecodePair {
  const { maxOutputBytes: limit, signal } = options
  const RS = options.streams?.ReadableStream ?? ReadableStream
  const WS = options.streams?.WritableStream ?? WritableStream
  const cancel = new AbortController()
  const max = 2 * threads
  const { maxOutputBytes: _, ...codec } = options.codec
  const cutter = format === 'zstd' ? new ZstdCutter({ ...codec, engine: options.engine }) : new Lz4Cutter({ engine: options.engine, maxOutputBytes: limit })
  let run: JobRunner | null = null

  const queue: Queued[] = []
  let inFlight = 0
  let readable!: ReadableStreamDefaultController<Uint8Array>
  let failed: unknown = null
  let room: (() => void) | null = null
  let tail: Promise<void> = Promise.resolve()
  /** Bytes emitted, and (zstd) the exact sizes of the jobs in flight besides. */
  let emitted = 0
  let committed = 0
  // LZ4: the frame being emitted (its declared size, its content so far, its hash).
  let contentSize = -1
  let frameOut = 0
  let hash: Xxh32 | null = null
  // The serial section open, if any: its machine and where its input starts.
  let section: { machine: Machine; start: number } | null = null

  const fail = (reason: unknown, ours = true): void => {
    if (failed) return
    // Our own errors as the user sees them; a reason given to cancel or abort as it is.
    const why = reason ?? new CodecError('ABORTED', format, 'the stream was cancelled')
    failed = ours ? options.surface(why) : why
    cancel.abort()
    queue.length = 0
    section?.machine.dispose()
    section = null
    try {
      readable.error(failed)
    } catch {
      // Already closed or errored.
    }
    room?.()
    wake()
  }
  const emit = (bytes: Uint8Array): void => {
    if (bytes.length === 0 || failed) return
    emitted += bytes.length
    readable.enqueue(bytes)
  }
  /** Waits until the reader has room (backpressure), or the stream failed. */
  const readerRoom = async (): Promise<void> => {
    while (!failed && (readable.desiredSize ?? 1) <= 0) await new Promise<void>((r) => (room = r))
    room = null
    if (failed) throw failed
  }
  const capture = (p: Promise<JobResult>): Promise<Outcome> =>
    p.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    )

  /** A job's output, in order: the checks the serial decoder makes at the same point. */
  const took = (cut: JobCut, output: Uint8Array): void => {
    if (format === 'lz4') {
      frameOut += output.length
      if (contentSize >= 0 && frameOut > contentSize) throw new CodecError('INVALID_DATA', format, `block decodes past the declared content size ${contentSize}`, cut.start)
      if (emitted + output.length > limit) throw new CodecError('LIMIT_EXCEEDED', format, `output exceeds maxOutputBytes (${limit})`, cut.end)
      hash?.update(output)
    }
    emit(output)
  }
  /** A job failed: the serial decoder's error for the same bytes, at its offset in the input. */
  const jobError = async (cut: JobCut, error: unknown): Promise<Uint8Array> => {
    if (!(error instanceof CodecError) || error.code === 'ENGINE_UNAVAILABLE' || error.code === 'ABORTED') throw error
    if (format === 'lz4') throw rebase(error, cut.start)
    // Whole frames: decoded again here by the serial machine, as the serial stream would
    // (its output goes out as it comes; its error is the serial decoder's).
    await serialUnit(cut, true)
    return new Uint8Array(0)
  }
  /** Takes the oldest queued cut: emits a job's output, or makes an LZ4 frame's checks. */
  const takeOne = async (): Promise<void> => {
    const { cut, outcome } = queue.shift()!
    if (cut.kind === 'job') {
      const o = await outcome!
      inFlight--
      if (failed) throw failed
      const output = o.result ? o.result.output : await jobError(cut, o.error)
      took(cut, output)
      committed -= cut.size
      await readerRoom()
    } else if (cut.kind === 'frame-start') {
      contentSize = cut.contentSize
      frameOut = 0
      hash = cut.contentChecksum ? (hash ?? new Xxh32()) : null
      hash?.reset()
    } else if (cut.kind === 'frame-end') {
      if (contentSize >= 0 && frameOut !== contentSize) throw new CodecError('INVALID_DATA', format, `frame decoded to ${frameOut} bytes but its header declares ${contentSize}`, cut.at)
      if (cut.checksum >= 0 && hash) {
        const actual = hash.digest()
        if (actual !== cut.checksum) throw new CodecError('CHECKSUM_MISMATCH', format, `content checksum ${hex32(cut.checksum)} does not match the decoded content's ${hex32(actual)}`, cut.at + 4)
      }
    } else if (cut.kind === 'fail') {
      throw new CodecError(cut.code, format, cut.message, cut.offset)
    }
  }
  // One consumer takes the queue in order while jobs run, so that each output goes out
  // as soon as it and those before it are in (not at the next write); the writes wait
  // for it only when `max` jobs are in flight.
  let consumer: Promise<void> | null = null
  let waiting: (() => void)[] = []
  const wake = (): void => {
    const w = waiting
    waiting = []
    for (const r of w) r()
  }
  const consume = (): Promise<void> =>
    (consumer ??= (async () => {
      try {
        while (queue.length > 0 && !failed) {
          await takeOne()
          wake()
        }
      } catch (error) {
        fail(error)
      } finally {
        consumer = null
        wake()
      }
    })())
  /** Waits until the consumer took a cut (or failed). */
  const taken = (): Promise<void> => new Promise<void>((r) => waiting.push(r))
  const enqueue = (q: Queued): void => {
    queue.push(q)
    void consume()
  }
  const drain = async (): Promise<void> => {
    while (consumer) await consumer
    if (failed) throw failed
  }

  /** Runs the serial machine until it needs input (or, after `end()`, until it finished); emits its output. */
  const runSection = async (): Promise<void> => {
    const s = section!
    try {
      for (let out = s.machine.next(); out !== null; out = s.machine.next()) {
        emit(out)
        await readerRoom()
      }
    } catch (error) {
      throw error instanceof CodecError ? rebase(error, s.start) : error
    }
  }
  const endSection = async (): Promise<void> => {
    section!.machine.end()
    await runSection()
    section!.machine.dispose()
    section = null
  }
  /** Opens the serial machine at input offset `start`, after the outputs before it (`drain`: the writes; the consumer is at its place already). */
  const openSection = async (start: number, drained = false): Promise<void> => {
    if (!drained) await drain()
    const open = engines.prepareDecoder(format, { ...codec, engine: options.engine, maxOutputBytes: limit - emitted, chunkSize: options.chunkSize })
    let machine!: Machine
    await open((m) => (machine = m))
    if (failed) {
      machine.dispose()
      throw failed
    }
    section = { machine, start }
  }

  /** Whole frames decoded by the serial machine, in place of a job. */
  const serialUnit = async (cut: JobCut, drained = false): Promise<void> => {
    await openSection(cut.start, drained)
    section!.machine.push(cut.job.input)
    await runSection()
    await endSection()
  }

  /** Acts on the cuts of one write (or of the close), in order. */
  const process = async (cuts: Cut[]): Promise<void> => {
    for (const cut of cuts) {
      if (failed) throw failed
      switch (cut.kind) {
        case 'job':
          if (cut.exact && committed + emitted + cut.size > limit) {
            // Past maxOutputBytes: the serial machine, with the limit left, fails as always.
            await serialUnit(cut)
            break
          }
          while (inFlight >= max && !failed) await taken()
          if (failed) throw failed
          run ??= jobRunner(threads, Infinity, engines, cancel.signal)
          inFlight++
          committed += cut.size
          enqueue({ cut, outcome: capture(Promise.resolve().then(() => run!(cut.job))) })
          break
        case 'serial':
          if (!section) await openSection(cut.start)
          section!.machine.push(cut.bytes)
          await runSection()
          break
        case 'serial-end':
          if (section) await endSection()
          break
        default:
          // Frame starts and ends, failures: in order with the jobs' outputs.
          enqueue({ cut })
      }
    }
  }

  /** Runs `work` after the writes before it; any error fails the stream. */
  const serial = (work: () => Promise<void>): Promise<void> => {
    const next = tail.then(async () => {
      if (failed) throw failed
      try {
        await work()
      } catch (error) {
        fail(error)
        throw failed
      }
    })
    tail = next.then(
      () => {},
      () => {},
    )
    return next
  }

  const onAbort = () => fail(signal?.reason, signal?.reason === undefined)
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
        fail(reason, false)
      },
    },
    { highWaterMark: max * 1024 * 1024, size: (chunk) => chunk.length },
  )
  const into = new WS<BinaryInput>({
    write(chunk) {
      return serial(async () => {
        // A copy (not `slice()`, a view on a Node Buffer): the cutter keeps views of it
        // past this write.
        const bytes = new Uint8Array(toBytes(chunk, options.allowShared, format))
        await process(cutter.push(bytes))
        await readerRoom()
      })
    },
    close() {
      return serial(async () => {
        await process(cutter.end())
        await drain()
        signal?.removeEventListener('abort', onAbort)
        readable.close()
      })
    },
    abort(reason) {
      fail(reason, false)
    },
  })
  const flush = async (): Promise<void> => {
    throw options.surface(new CodecError('UNSUPPORTED', format, 'this stream has no flush'))
  }
  return { readable: out, writable: into, flush }
}
