/**
 * Memory that jobs' outputs reuse (issue 32): a caller that copies each job's output
 * into one result hands the output's buffer back (`ScratchBuffers`), and the next job
 * writes its output there (`outputMemory`) instead of into fresh memory, whose first
 * write costs the system a page fault per page.
 */

/**
 * `size` bytes for a job's output: the start of `scratch` when it holds them (memory an
 * earlier job's output had, handed back by the caller once it copied that output
 * away), else new memory. Fresh memory costs its first write (the system's page faults,
 * most of a decode's time at a gigabyte a second); written memory does not.
 */
export function outputMemory(scratch: ArrayBuffer | null | undefined, size: number): Uint8Array {
  return scratch && scratch.byteLength >= size ? new Uint8Array(scratch, 0, size) : new Uint8Array(size)
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
