/**
 * The memory a job's output is written into (issue 32): fresh memory costs its first
 * write, the system's page faults (about 0.7 ms per MiB on the 2-core machine of
 * bench/threads.ts, most of a decode's time at a gigabyte a second); memory written
 * before does not. So a job reuses memory an earlier job's output had: handed back by
 * the caller with the job (`scratch`), or kept by the worker from its `xxh32` jobs
 * (hash-job.ts), whose outputs the caller copied away before it sent them.
 */
/**
 * `size` bytes for a job's output: the start of `scratch` when it holds them (memory an
 * earlier job's output had, handed back by the caller once it copied that output
 * away), else one this realm kept (`keepSpare`) that holds them, else new memory.
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
 * memory: written pages, where fresh memory costs its first write. At most `SPARE_COUNT`:
 * the jobs a pool posts to one worker ahead of its answers (streams/pool.ts `DEPTH`); the
 * rest go back to the caller, whose next jobs bring them to whichever worker runs them
 * (`scratch`), so that a worker that hashes little still writes into written memory.
 * Freed with the worker when it ends idle.
 */
const spare: ArrayBuffer[] = []
const SPARE_COUNT = 2

/** Keeps `buffer` (an output hashed here) for a later job's output; false when `SPARE_COUNT` are kept already. */
export function keepSpare(buffer: ArrayBuffer): boolean {
  if (buffer.byteLength === 0 || spare.length >= SPARE_COUNT) return false
  spare.push(buffer)
  return true
}
