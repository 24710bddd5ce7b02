/**
 * Memory that jobs' outputs reuse (issue 32): a caller that copies each job's output
 * into one result hands the output's buffer back (`ScratchBuffers`), or a worker keeps
 * the outputs its `xxh32` jobs hashed (`keepSpare`, hash-job.ts), and the next job
 * writes its output there (`outputMemory`) instead of into fresh memory, whose first
 * write costs the system a page fault per page.
 */

/**
 * `size` bytes for a job's output: the start of `scratch` when it holds them (memory an
 * earlier job's output had, handed back by the caller once it copied that output
 * away), else a buffer this realm kept (`keepSpare`) that holds them, else new memory.
 * Fresh memory costs its first write (the system's page faults, most of a decode's time
 * at a gigabyte a second); written memory does not.
 */
export function outputMemory(scratch: ArrayBuffer | null | undefined, size: number): Uint8Array {
  if (scratch && scratch.byteLength >= size) return new Uint8Array(scratch, 0, size)
  for (let i = spare.length - 1; i >= 0; i--) {
    if (spare[i]!.byteLength >= size) return new Uint8Array(spare.splice(i, 1)[0]!, 0, size)
  }
  return new Uint8Array(size)
}

/**
 * Outputs a worker's `xxh32` jobs hashed (hash-job.ts), kept for its next jobs' output
 * memory. At most `SPARE_COUNT`: the jobs a pool posts to one worker ahead of its
 * answers (streams/pool.ts `DEPTH`); the rest go back to the caller, whose next jobs
 * bring them to whichever worker runs them (`scratch`), so that a worker that hashes
 * little still writes into written memory. Freed with the worker when it ends idle.
 */
const spare: ArrayBuffer[] = []
const SPARE_COUNT = 2

/** Keeps `buffer` (an output hashed here) for a later job's output; false when `SPARE_COUNT` are kept already. */
export function keepSpare(buffer: ArrayBuffer): boolean {
  if (buffer.byteLength === 0 || spare.length >= SPARE_COUNT) return false
  spare.push(buffer)
  return true
}

/**
 * The buffers of outputs a caller has copied away, handed to its next jobs as their
 * `scratch` (a job's output buffer is its own: `JobResult.owned`, transferred back by a
 * worker). Used where the caller copies every output into one array (the one-shot
 * parallel decodes); a stream that hands outputs to its reader cannot.
 */
export class ScratchBuffers {
  private readonly free: ArrayBuffer[] = []

  /** Memory for the next job, or null. */
  take(): ArrayBuffer | null {
    return this.free.pop() ?? null
  }

  /** `output` was copied away: its buffer serves a later job. */
  give(output: Uint8Array): void {
    const buffer = output.buffer
    if (buffer instanceof ArrayBuffer && buffer.byteLength > 0) this.free.push(buffer)
  }
}
