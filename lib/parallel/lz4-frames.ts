/**
 * Parallel decoding of LZ4 frames with independent blocks (lz4-cutter.ts cuts them into
 * groups of blocks that decode as jobs): the checks a frame's content gets once its
 * jobs' outputs are put back in order (`Lz4FrameChecks`, used here and by the stream of
 * streams/parallel-decode-stream.ts), and the one-shot decode (`decodeLz4Frames`), whose
 * content checksums are computed on workers, over the outputs in order, once they are
 * copied into the result (hash-chain.ts). Pure: the jobs run through a `JobRunner`.
 */
import { CodecError } from '../errors.js'
import { contentChecksumMismatch, contentSizeMismatch, pastContentSize } from '../codecs/lz4-frame-format.js'
import { Xxh32 } from '../codecs/xxhash32.js'
import type { Engine } from '../formats.js'
import { runOrdered } from './blocks.js'
import type { Cut, FrameEndCut, FrameStartCut, JobCut } from './cuts.js'
import type { JobRunner, Lz4BlocksJob } from './jobs.js'
import { ScratchBuffers } from './scratch.js'
import { Lz4Cutter } from './lz4-cutter.js'
import { HashChain } from './hash-chain.js'
import { ResultMemory } from './result-memory.js'

/**
 * Jobs a one-shot decode needs for its content checksums to run on workers
 * (hash-chain.ts): with fewer, the outputs come back nearly together and the hash, one
 * pass in order, cannot run beside the decoding; the caller's thread hashes each output
 * while it waits for the next, and the jobs' messages and transfers cost more than they
 * take off it (measured on the machine of the repository's bench/threads.ts: a 6 MiB
 * frame in 2 jobs 8.5 -> 12.6 ms, 16 MiB of 4 MiB blocks in 5 jobs 21.6 -> 22.3 ms,
 * CPU +4-5 ms with the hash on workers).
 */
const MIN_HASH_CHAIN_JOBS = 8

/**
 * The checks the serial decoder makes on a frame's content, made on the outputs of its
 * jobs taken in order: no block past the declared content size, the content size at the
 * end mark, and the content checksum (XXH32 of the whole content, which does not
 * combine from parts, so it is computed over the outputs in order: here, or with
 * `hashHere` false by the caller, which reads `hashing`). A failed check throws the
 * serial decoder's `CodecError`, at the offset it gives.
 */
export class Lz4FrameChecks {
  constructor(private readonly hashHere = true) {}

  /** The current frame's declared content size (or -1), and its content so far. */
  private contentSize = -1
  private decoded = 0
  /** The content hash, when the frame has a content checksum. */
  private hashes = false
  private hash: Xxh32 | null = null

  /** Whether the current frame has a content checksum. */
  get hashing(): boolean {
    return this.hashes
  }

  /** A frame starts (its `frame-start` cut). */
  start(cut: FrameStartCut): void {
    this.contentSize = cut.contentSize
    this.decoded = 0
    this.hashes = cut.contentChecksum
    if (this.hashes && this.hashHere) (this.hash ??= new Xxh32()).reset()
  }

  /** The next output of the frame, from the job whose input starts at offset `at`. */
  take(output: Uint8Array, at: number): void {
    this.decoded += output.length
    if (this.contentSize >= 0 && this.decoded > this.contentSize) throw new CodecError('INVALID_DATA', 'lz4', pastContentSize(this.contentSize), at)
    if (this.hashes && this.hashHere) this.hash!.update(output)
  }

  /** The frame ends (its `frame-end` cut). */
  end(cut: FrameEndCut): void {
    if (this.contentSize >= 0 && this.decoded !== this.contentSize) throw new CodecError('INVALID_DATA', 'lz4', contentSizeMismatch(this.decoded, this.contentSize), cut.at)
    if (cut.checksum >= 0 && this.hashes && this.hashHere) {
      const actual = this.hash!.digest()
      if (actual !== cut.checksum) throw new CodecError('CHECKSUM_MISMATCH', 'lz4', contentChecksumMismatch(cut.checksum, actual), cut.at + 4)
    }
  }
}

/**
 * Decodes `bytes` in parallel: the block groups decode as jobs and the frames' checks
 * are made on their outputs in order.
 *
 * Returns null when the input does not split (fewer than two jobs, or any part that
 * only the serial decoder handles: dependent blocks, a legacy frame, an odd header, a
 * truncated frame), when the sum of the jobs' bounds exceeds `maxOutputBytes` (checked
 * before any job starts) or is below `minBytes` (too little to gain from jobs: the
 * serial decoder is faster on one thread), or when a check fails: the caller then
 * decodes serially, which judges the input and reports its usual error and offset.
 */
export async function decodeLz4Frames(bytes: Uint8Array, options: { engine?: Engine; maxOutputBytes: number; minBytes?: number }, run: JobRunner, inFlight: number): Promise<Uint8Array | null> {
  const cutter = new Lz4Cutter(options)
  const cuts: Cut[] = [...cutter.push(bytes), ...cutter.end()]
  const jobs: JobCut[] = []
  let bound = 0
  for (const cut of cuts) {
    if (cut.kind === 'job') {
      jobs.push(cut)
      bound += cut.size
    } else if (cut.kind !== 'frame-start' && cut.kind !== 'frame-end') return null
  }
  if (jobs.length < 2 || bound > options.maxOutputBytes || bound < (options.minBytes ?? 0)) return null
  const scratch = new ScratchBuffers()
  /** The content checksums stored at the frames' ends, in order, for the digests to come. */
  const stored: number[] = []
  let ok = true
  const hashes = jobs.length < MIN_HASH_CHAIN_JOBS ? null : new HashChain(
    run,
    'lz4',
    (digest) => {
      if (digest !== stored.shift()) ok = false
    },
    (output) => scratch.give(output),
  )
  /** Whether each output put in and not yet copied is hashed, in order (the result copies them in that order). */
  const hashed: boolean[] = []
  const out = new ResultMemory(bound, run, (output) => {
    if (hashed.shift()) hashes!.arrive(output)
    else scratch.give(output)
  })
  let at = 0
  let next = 0
  const checks = new Lz4FrameChecks(hashes === null)
  /** Acts on the cuts before the next job (frame starts and ends). */
  const checksUpTo = (stop: Cut | undefined): void => {
    for (; next < cuts.length && cuts[next] !== stop; next++) {
      const cut = cuts[next]!
      if (cut.kind === 'frame-start') {
        checks.start(cut)
        if (hashes && checks.hashing) hashes.reset()
      } else if (cut.kind === 'frame-end') {
        checks.end(cut)
        if (hashes && cut.checksum >= 0 && checks.hashing) {
          stored.push(cut.checksum)
          hashes.digest()
        }
      }
    }
    next++
  }
  /** Runs checks; false when one fails (the jobs still running are waited for, their outputs dropped). */
  const passes = (check: () => void): boolean => {
    try {
      check()
    } catch (error) {
      if (!(error instanceof CodecError)) throw error
      ok = false
    }
    return ok
  }
  await runOrdered(jobs.length, (i) => ({ ...(jobs[i]!.job as Lz4BlocksJob), scratch: scratch.take() }), run, inFlight, (i, r) => {
    const taken = (): void => {
      checksUpTo(jobs[i])
      checks.take(r.output, jobs[i]!.start)
    }
    if (!ok || !passes(taken)) return
    const length = r.output.length
    const hashing = hashes !== null && checks.hashing
    if (hashing) hashes.part()
    hashed.push(hashing)
    const put = out.put(r.output, at)
    at += length
    return put ?? hashes?.backlog()
  })
  if (!ok || !passes(() => checksUpTo(undefined))) return null
  const result = await out.result(at)
  await hashes?.done()
  // A content checksum that did not match: the serial decoder reports it.
  return ok ? result : null
}
