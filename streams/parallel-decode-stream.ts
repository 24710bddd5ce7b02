/**
 * Decoding streams with `threads` (issue 22): `zstdDecode({ threads })`,
 * `lz4Decode({ threads })`, `new DecompressionStream('zstd' | 'lz4', { threads })`.
 * The input is cut as it arrives (lib/parallel/zstd-cutter.ts: groups of whole frames
 * that state their content sizes; lib/parallel/lz4-cutter.ts: groups of independent
 * blocks), the cuts run as jobs on the ordered-job shell (./ordered-job-stream.ts: jobs
 * in flight bounded, outputs in input order, reader backpressure, cancel and abort
 * dropping queued jobs, one failure rule), so the stream gives the bytes the serial
 * decoder gives.
 *
 * - What does not cut (a zstd frame without a content size or over the cutter's bound,
 *   a dependent LZ4 frame, anything odd) is decoded here, serially, by the same machine
 *   (lib/machine.ts) as every serial stream, fed as the bytes arrive: never kept whole.
 * - The cutter keeps at most one frame (zstd, bounded) or one group of blocks (LZ4).
 * - `maxOutputBytes`: a zstd group whose exact size would pass the limit is decoded by
 *   the serial machine with the limit left, which fails as always; LZ4 outputs are
 *   counted as they are emitted.
 * - A corrupt cut errors the stream with the `CodecError` the serial decoder gives, its
 *   offset in the whole input: a failed zstd job is decoded again here, serially; an LZ4
 *   job's error names its byte in the job, moved into the input.
 */
import { CodecError } from '../lib/errors.js'
import type { Engine } from '../lib/formats.js'
import type { Machine } from '../lib/machine.js'
import type { prepareDecoder } from '../lib/prepare.js'
import { rebase, type Cut, type JobCut } from '../lib/parallel/cuts.js'
import type { CodecFactories } from '../lib/parallel/jobs.js'
import { Lz4Cutter } from '../lib/parallel/lz4-cutter.js'
import { Lz4FrameChecks } from '../lib/parallel/lz4-frames.js'
import { ZstdCutter } from '../lib/parallel/zstd-cutter.js'
import type { StreamClasses, SurfaceRules } from './codec-stream.js'
import { OrderedJobs, type OrderedJobPair } from './ordered-job-stream.js'

/**
 * What the decoding streams run on, passed in by their shell (streams/parallel-stream.ts):
 * the registry's span codecs for the jobs, and the serial machine (lib/prepare.ts) for
 * what does not cut, or the machine itself around a decoder that resumes where a
 * parallel inflate stopped (./parallel-inflate-stream.ts), so that the threads
 * implementation imports neither.
 */
export interface DecodeFactories extends CodecFactories {
  readonly prepareDecoder: typeof prepareDecoder
  readonly Machine: typeof Machine
}

/** What the decoding stream was opened with, its options checked (streams/threads-impl.ts). */
export interface DecodePairOptions {
  readonly threads: number
  readonly engine: Engine
  readonly maxOutputBytes: number
  /** The codec's own options (zstd `maxWindowLog`, `dictionary`, ...). */
  readonly codec: Record<string, unknown>
  readonly chunkSize: number | undefined
  readonly signal: AbortSignal | undefined
  readonly streams: StreamClasses | undefined
  /** Its errors and chunks as its user's surface has them (`DecompressionStream`'s `TypeError`s, no shared memory). */
  readonly rules: Required<SurfaceRules>
}

/** The stream pair; `flush()` rejects (a decoder has no sync points to write), as a serial decoder's does. */
export type DecodePair = OrderedJobPair

/** Output a job aims at (lib/parallel/cuts.ts `GROUP_BYTES`), for the readable side's queue. */
const JOB_OUTPUT = 1024 * 1024

/**
 * The parallel decoding stream of `format`, part of streams/threads-impl.ts (loaded on
 * the stream's first use). `threads: 1` runs the same jobs inline.
 */
export function openDecodePair(format: 'zstd' | 'lz4', options: DecodePairOptions, codecs: DecodeFactories): DecodePair {
  const { maxOutputBytes: limit, threads, signal, streams, rules } = options
  const { maxOutputBytes: _, ...codec } = options.codec
  const cutter = format === 'zstd' ? new ZstdCutter({ ...codec, engine: options.engine }) : new Lz4Cutter({ engine: options.engine, maxOutputBytes: limit })
  // The serial section open, if any: its machine and where its input starts.
  let section: { machine: Machine; start: number } | null = null
  const dispose = (): void => {
    section?.machine.dispose()
    section = null
  }
  const jobs = new OrderedJobs({ format, threads, codecs, signal, streams, rules, outputPerJob: JOB_OUTPUT, dispose })
  /** The exact sizes of the zstd jobs in flight (with `jobs.emitted`, the output to come). */
  let committed = 0

  // LZ4 frame checks, made as the serial decoder makes them once a frame's outputs are
  // in (lib/parallel/lz4-frames.ts): its declared content size, the XXH32 of its content;
  // `maxOutputBytes` here.
  const lz4Checks = new Lz4FrameChecks()
  const lz4Output = (cut: JobCut, output: Uint8Array): void => {
    lz4Checks.take(output, cut.start)
    if (jobs.emitted + output.length > limit) throw new CodecError('LIMIT_EXCEEDED', format, `output exceeds maxOutputBytes (${limit})`, cut.end)
  }

  /** A job's output, in order, after the checks the serial decoder makes at the same point. */
  const took = (cut: JobCut, output: Uint8Array): void => {
    if (format === 'lz4') lz4Output(cut, output)
    jobs.emit(output)
    committed -= cut.size
  }
  /** A job failed: the serial decoder's error for the same bytes, at its offset in the input. */
  const jobError = async (cut: JobCut, error: unknown): Promise<void> => {
    if (!(error instanceof CodecError) || error.code === 'ENGINE_UNAVAILABLE' || error.code === 'ABORTED') throw error
    if (format === 'lz4') throw rebase(error, cut.start)
    // Whole frames: decoded again here by the serial machine, as the serial stream would
    // (its output goes out as it comes; its error is the serial decoder's). The consumer
    // is at this job's place: the outputs before it are out.
    await decodeSerially(cut, true)
    committed -= cut.size
  }

  /** Runs the serial machine until it needs input (or, after `end()`, until it finished); emits its output. */
  const runSection = async (): Promise<void> => {
    const s = section!
    try {
      for (let out = s.machine.next(); out !== null; out = s.machine.next()) {
        jobs.emit(out)
        await jobs.readerRoom()
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
  /** Opens the serial machine at input offset `start`, after the outputs before it (`drained`: they are out already). */
  const openSection = async (start: number, drained = false): Promise<void> => {
    if (!drained) await jobs.drain()
    const open = codecs.prepareDecoder(format, { ...codec, engine: options.engine, maxOutputBytes: limit - jobs.emitted, chunkSize: options.chunkSize })
    let machine!: Machine
    await open((m) => (machine = m))
    try {
      jobs.check()
    } catch (error) {
      machine.dispose()
      throw error
    }
    section = { machine, start }
  }
  /** A job's whole frames decoded by the serial machine, in its place. */
  const decodeSerially = async (cut: JobCut, drained = false): Promise<void> => {
    await openSection(cut.start, drained)
    section!.machine.push(cut.job.input)
    await runSection()
    await endSection()
  }

  /** Acts on the cuts of one write (or of the close), in order. */
  const process = async (cuts: Cut[]): Promise<void> => {
    for (const cut of cuts) {
      jobs.check()
      switch (cut.kind) {
        case 'job':
          if (cut.exact && committed + jobs.emitted + cut.size > limit) {
            // Past maxOutputBytes: the serial machine, with the limit left, fails as always.
            await decodeSerially(cut)
            break
          }
          committed += cut.size
          await jobs.job(
            cut.job,
            (result) => took(cut, result.output),
            (error) => jobError(cut, error),
          )
          break
        case 'serial':
          if (!section) await openSection(cut.start)
          section!.machine.push(cut.bytes)
          await runSection()
          break
        case 'serial-end':
          if (section) await endSection()
          break
        case 'frame-start':
          jobs.step(() => lz4Checks.start(cut))
          break
        case 'frame-end':
          jobs.step(() => lz4Checks.end(cut))
          break
        case 'fail':
          // Input the serial decoder would refuse: the stream fails there, in order.
          jobs.step(() => {
            throw new CodecError(cut.code, format, cut.message, cut.offset)
          })
      }
    }
  }

  return jobs.pair({
    write: (bytes) => process(cutter.push(bytes)),
    close: () => process(cutter.end()),
  })
}
