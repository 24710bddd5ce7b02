/**
 * The memory of a one-shot parallel decode's result (issue 32, "the caller's thread
 * orders and hands out"). A result's bytes are copied once, into one array, on the
 * caller's thread: what would make the copy a memcpy of warm cache lines is the first
 * write to fresh memory, which the system pays page by page (on the 2-core machine of
 * the repository's bench/threads.ts, 64 MiB of fresh memory copies in 44–60 ms, the
 * same bytes into memory written before in 7 ms: most of the caller's time in a
 * parallel decode).
 *
 * So a worker makes the array and writes each of its pages once (`memory` job of
 * jobs.ts), then transfers it: a move, no copy, and the pages stay written. The
 * decode's outputs that arrive before it are kept and copied in when it comes. What
 * they may hold is bounded (`STASH_BYTES`): past it, taking the next output waits for
 * the memory (the decode's jobs wait with it, as for a slow reader). When no worker
 * listens yet (a cold pool runs its first jobs inline) or the job fails, the array is
 * made here, as before. The result is the same bytes either way; only where its pages
 * are first written changes.
 */
import type { JobRunner } from './jobs.js'

/** Outputs kept while the memory is on its way, at most (bytes): the peak memory this costs over the result's own. */
export const STASH_BYTES = 8 * 1024 * 1024

/** Results smaller than this are made here: the message's round trip costs more than their pages. */
export const MIN_PREPARED_BYTES = 4 * 1024 * 1024

const EMPTY = new Uint8Array(0)

/** The result array of `size` bytes, its outputs put at given offsets in any order of arrival. */
export class ResultMemory {
  private bytes: Uint8Array | null = null
  /** Outputs that came before the memory: bytes and offset. */
  private stash: Array<[Uint8Array, number]> = []
  private stashed = 0
  private readonly arriving: Promise<void> | null = null

  /** `copied`: called with each output once it is copied in (its buffer may serve again). */
  constructor(
    private readonly size: number,
    run: JobRunner,
    private readonly copied: (output: Uint8Array) => void = () => {},
  ) {
    const onWorker = run.onWorker?.()
    if (!onWorker || size < MIN_PREPARED_BYTES) {
      this.bytes = new Uint8Array(size)
      return
    }
    this.arriving = onWorker({ kind: 'memory', size, input: EMPTY }).then(
      (r) => {
        if (this.bytes === null && r.output.length === size && r.output.byteOffset === 0) this.adopt(r.output)
      },
      // A worker that failed: the memory is made here (`result()`); the decode goes on.
      () => {},
    )
  }

  /** Puts `output` at offset `at`: a copy now, or once the memory comes (a promise when the outputs kept reach `STASH_BYTES`: wait for it before the next). */
  put(output: Uint8Array, at: number): Promise<void> | undefined {
    if (this.bytes) {
      this.bytes.set(output, at)
      this.copied(output)
      return undefined
    }
    this.stash.push([output, at])
    this.stashed += output.length
    return this.stashed >= STASH_BYTES ? this.arrived() : undefined
  }

  /**
   * The result, its first `length` bytes, once every output is in. Short of `size` (an
   * LZ4 frame's last block decodes to less than its bound): a copy, as every one-shot
   * result's buffer is its own, never a view of a larger one (lib/whole-buffer.ts).
   */
  async result(length = this.size): Promise<Uint8Array> {
    await this.arrived()
    const bytes = this.bytes!
    return length === bytes.length ? bytes : bytes.slice(0, length)
  }

  /** Once the memory is here (the worker's, or made here when it failed). */
  private async arrived(): Promise<void> {
    if (this.bytes === null) await this.arriving
    if (this.bytes === null) this.adopt(new Uint8Array(this.size))
  }

  private adopt(bytes: Uint8Array): void {
    this.bytes = bytes
    for (const [output, at] of this.stash) {
      bytes.set(output, at)
      this.copied(output)
    }
    this.stash = []
    this.stashed = 0
  }
}
