/**
 * One-shot parallel decoding of LZ4 frames with independent blocks (lz4-cutter.ts cuts
 * them): the block groups decode as jobs, their outputs are put back in order, and each
 * frame's content size and content checksum (XXH32 of the whole content, computed here
 * on the outputs in order) are checked. Pure: the jobs run through a `JobRunner`.
 *
 * Returns null when the input does not split (fewer than two jobs, or any part that
 * only the serial decoder handles: dependent blocks, a legacy frame, an odd header, a
 * truncated frame), when the sum of the jobs' bounds exceeds `maxOutputBytes` (checked
 * before any job starts) or is below `minBytes` (too little to gain from jobs: the
 * serial decoder is faster on one thread), or when a check fails: the caller then decodes serially, which
 * judges the input and reports its usual error and offset.
 */
import { Xxh32 } from '../codecs/xxhash32.js'
import type { Engine } from '../formats.js'
import { runOrdered } from './blocks.js'
import { type Cut, type JobCut } from './cuts.js'
import type { JobRunner } from './jobs.js'
import { Lz4Cutter } from './lz4-cutter.js'

/** Decodes `bytes` in parallel, or returns null (see above). */
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
  const out = new Uint8Array(bound)
  let at = 0
  let next = 0
  let ok = true
  // The frame being read: its declared size, its content so far, its hash.
  let contentSize = -1
  let frameAt = 0
  let hash: Xxh32 | null = null
  /** Acts on the cuts before the next job (frame starts and ends); false when a check fails. */
  const checksUpTo = (stop: Cut | undefined): boolean => {
    for (; next < cuts.length && cuts[next] !== stop; next++) {
      const cut = cuts[next]!
      if (cut.kind === 'frame-start') {
        contentSize = cut.contentSize
        frameAt = at
        hash = cut.contentChecksum ? (hash ?? new Xxh32()) : null
        hash?.reset()
      } else if (cut.kind === 'frame-end') {
        if (contentSize >= 0 && at - frameAt !== contentSize) return false
        if (cut.checksum >= 0 && hash?.digest() !== cut.checksum) return false
      }
    }
    next++
    return true
  }
  await runOrdered(jobs.length, (i) => jobs[i]!.job, run, inFlight, (i, r) => {
    if (!ok || !checksUpTo(jobs[i])) return void (ok = false)
    out.set(r.output, at)
    hash?.update(r.output)
    at += r.output.length
  })
  if (!ok || !checksUpTo(undefined)) return null
  return at === out.length ? out : out.slice(0, at)
}
