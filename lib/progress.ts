/**
 * Progress reports (`onProgress`): one throttle shared by the machine (every stream,
 * one-shot call and Node stream runs through it) and the HTTP adapters, so that every
 * surface reports on the same terms: at most once per output block and per
 * `PROGRESS_INTERVAL_MS`, never per byte, and always once at the end.
 *
 * Pure: the clock is `Date.now()`, no I/O.
 */
import { CodecError } from './errors.js'

/** What `onProgress` receives. */
export interface Progress {
  /** Input bytes consumed so far (compressed bytes when decoding). */
  bytesIn: number
  /** Output bytes produced so far (decoded bytes when decoding). */
  bytesOut: number
  /**
   * Input bytes expected in all, where known: a one-shot call's input length, a file's
   * size, a response's `Content-Length`. Absent otherwise.
   */
  totalIn?: number
}

/** The `onProgress` option: called with the counts so far (see `Progress`). */
export type ProgressCallback = (progress: Progress) => void

/**
 * 50 ms: twenty reports a second are smooth for a progress bar (a terminal or a page
 * repaints at about that rate) and cost nothing next to the codec work between them.
 */
export const PROGRESS_INTERVAL_MS = 50

/** Checks an `onProgress` option: a function or `undefined`. */
export function checkProgress(format: string, value: unknown): ProgressCallback | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'function') throw new CodecError('INVALID_OPTION', format, `onProgress must be a function, got ${value === null ? 'null' : typeof value}`)
  return value as ProgressCallback
}

/** Checks a known input size (`totalIn`): a non-negative safe integer or `undefined`. */
function checkTotal(value: number | undefined): number | undefined {
  return value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined
}

/** Throttles reports to one callback; see the module comment. */
export class ProgressMeter {
  readonly #callback: ProgressCallback
  readonly #totalIn: number | undefined
  #last = -Infinity
  #ended = false

  constructor(callback: ProgressCallback, totalIn?: number) {
    this.#callback = callback
    this.#totalIn = checkTotal(totalIn)
  }

  /** A report of these counts, unless one was made less than 50 ms ago. */
  update(bytesIn: number, bytesOut: number): void {
    if (this.#ended) return
    const now = Date.now()
    if (now - this.#last < PROGRESS_INTERVAL_MS) return
    this.#last = now
    this.#send(bytesIn, bytesOut)
  }

  /** The final report (once; later calls do nothing). */
  end(bytesIn: number, bytesOut: number): void {
    if (this.#ended) return
    this.#ended = true
    this.#send(bytesIn, bytesOut)
  }

  #send(bytesIn: number, bytesOut: number): void {
    const report: Progress = { bytesIn, bytesOut }
    if (this.#totalIn !== undefined) report.totalIn = this.#totalIn
    this.#callback(report)
  }
}
