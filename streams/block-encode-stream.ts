/**
 * Encoding streams in block mode (issue 22): `threads` / `blockSize` on the encoder
 * factories, `CompressionStream` and `encodeResponse`. The blocks are lib/parallel/blocks.ts
 * `BlockEncoder`'s, the same state machine the one-shot `encode()` drives, so a stream
 * gives the same bytes as `encode()` of the same input and options whatever the chunking
 * (the last full block is held back until the next write or the close says whether it is
 * the last). The blocks run as jobs on the ordered-job shell (./ordered-job-stream.ts:
 * jobs in flight bounded, outputs in order, reader backpressure, cancel and abort
 * dropping queued jobs, one failure rule).
 *
 * - `flush()` (and `flush: 'write'`) ends the current block: everything written so far
 *   is in the output, decodable without the rest.
 * - A job's failure (a worker that crashed: `ENGINE_UNAVAILABLE`) errors the stream.
 */
import type { Format } from '../lib/codec.js'
import type { BlockPlan } from '../lib/parallel/block-options.js'
import { BlockEncoder } from '../lib/parallel/blocks.js'
import type { Job, CodecFactories } from '../lib/parallel/jobs.js'
import type { StreamClasses, SurfaceRules } from './codec-stream.js'
import { OrderedJobs, type OrderedJobPair } from './ordered-job-stream.js'

/** What the block-mode stream was opened with, its options checked (streams/threads-impl.ts). */
export interface BlockStreamOptions {
  readonly threads: number
  readonly flush: 'none' | 'write'
  readonly signal: AbortSignal | undefined
  readonly streams: StreamClasses | undefined
  readonly rules: Required<SurfaceRules>
}

/**
 * The block-mode stream itself, part of streams/threads-impl.ts, which parallel-stream.ts
 * loads when such a stream is first used. Options were checked by `openBlockStream` there.
 */
export function openBlockPair(format: Format, plan: BlockPlan, options: BlockStreamOptions, codecs: CodecFactories): OrderedJobPair {
  const { threads, signal, streams, rules } = options
  const jobs = new OrderedJobs({ format, threads, codecs, signal, streams, rules, outputPerJob: plan.blockSize })
  // The block encoder is made on the first write (or the close).
  let encoder!: BlockEncoder
  let opening: Promise<void> | null = null
  const open = (): Promise<void> =>
    (opening ??= BlockEncoder.open(plan).then((e) => {
      encoder = e
    }))
  let headerSent = false

  /** Queues the blocks' jobs, after the stream's header; their outputs go out in order. */
  const submit = async (blocks: Job[]): Promise<void> => {
    if (!headerSent) {
      headerSent = true
      jobs.emit(encoder.header())
    }
    for (const job of blocks) await jobs.job(job, (result) => jobs.emit(encoder.take(result)))
  }
  /** Ends the current block and waits until everything written so far is out. */
  const endBlock = async (): Promise<void> => {
    await submit(encoder.flush())
    await jobs.drain()
  }

  return jobs.pair({
    async write(bytes) {
      await open()
      await submit(encoder.push(bytes))
      if (options.flush === 'write') await endBlock()
    },
    async close() {
      await open()
      await submit(encoder.end())
      await jobs.drain()
      jobs.emit(encoder.trailer())
    },
    async flush() {
      await open()
      await endBlock()
    },
  })
}
