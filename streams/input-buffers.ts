/**
 * The memory the worker pool copies job inputs into (issue 32, "input slices handed to
 * workers with one copy at most"). The pool copies each job's `input` into a buffer of
 * its own and transfers it; the worker transfers that buffer back with its answer, and
 * a later job's input is copied into it. A new buffer per job costs the caller's thread
 * an allocation, the first write of its pages when the allocator hands out memory it
 * returned to the system, and the collector's work for one more external buffer: reading
 * the Arrow file of the repository's bench/threads.ts (16 MiB of ZSTD IPC in 64 jobs) with `threads: 2`,
 * buffers used again took the caller's thread from 27.6 to 18.4 ms of CPU per read and
 * the whole process from 151.8 to 138.6 ms (medians of 6 interleaved runs, load 6-7).
 *
 * A buffer moves (transfer, no copy) in both directions and stays one buffer (in Node, a
 * 1 MiB buffer sent back and forth 2,000 times ran 9 collections where a new buffer per
 * round ran 38). What is kept is bounded (`KEEP_BYTES`, and no buffer above `KEEP_ONE`)
 * and dropped when the pool's last worker ends.
 */

/** The most memory kept for inputs between jobs (bytes): a few jobs in flight on many workers. */
const KEEP_BYTES = 16 * 1024 * 1024
/** A buffer above this is not kept: one huge input does not pin its size. */
const KEEP_ONE = 4 * 1024 * 1024
/** New buffers get room to spare (an eighth, in whole 4 KiB pages), so that inputs of about the same size fit the ones handed back. */
const PAGE = 4096

export class InputBuffers {
  private readonly free: ArrayBuffer[] = []
  private bytes = 0

  /** Buffers kept (for tests). */
  get kept(): number {
    return this.free.length
  }

  /**
   * A copy of `input` in a transferable buffer of the pool's own, which never is the
   * caller's (transferring it cannot detach the caller's memory): the smallest buffer
   * handed back that holds it, else new memory.
   */
  copy(input: Uint8Array): Uint8Array<ArrayBuffer> {
    const n = input.length
    let best = -1
    for (let i = 0; i < this.free.length; i++) {
      const size = this.free[i]!.byteLength
      if (size >= n && (best < 0 || size < this.free[best]!.byteLength)) best = i
    }
    let buffer: ArrayBuffer
    if (n > 0 && best >= 0) {
      buffer = this.free[best]!
      this.free[best] = this.free[this.free.length - 1]!
      this.free.pop()
      this.bytes -= buffer.byteLength
    } else {
      buffer = new ArrayBuffer(n === 0 ? 0 : Math.ceil((n + (n >>> 3)) / PAGE) * PAGE)
    }
    const view = new Uint8Array(buffer, 0, n)
    view.set(input)
    return view
  }

  /** A buffer a worker handed back: kept for a later input, within the bounds. */
  give(buffer: ArrayBuffer): void {
    const size = buffer.byteLength
    if (size === 0 || size > KEEP_ONE || this.bytes + size > KEEP_BYTES) return
    this.free.push(buffer)
    this.bytes += size
  }

  /** Drops every buffer kept. */
  clear(): void {
    this.free.length = 0
    this.bytes = 0
  }
}
