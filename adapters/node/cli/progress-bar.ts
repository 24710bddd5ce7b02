/**
 * The progress bar on stderr, fed by the codecs' `onProgress` reports: bytes, percent,
 * MB/s and ETA when the input size is known, bytes and MB/s otherwise. Drawn only when
 * stderr is a terminal (and `-q` is not given); the line is cleared when done, so
 * nothing is left behind in a terminal and nothing at all goes to a pipe or file.
 */
import type { Progress } from '../../../lib/progress.js'
import { formatBytes } from '../../../lib/format-bytes.js'

function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  const m = Math.floor(s / 60)
  return m >= 60 ? `${Math.floor(m / 60)}:${String(m % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}` : `${m}:${String(s % 60).padStart(2, '0')}`
}

export interface BarTarget {
  isTTY?: boolean
  columns?: number
  write(text: string): unknown
}

export class ProgressBar {
  readonly #out: BarTarget
  readonly #label: string
  readonly #totalIn: number | undefined
  readonly #showOutput: boolean
  readonly #start = Date.now()
  #drawn = false

  /**
   * `totalIn`: the input's size when known (a file), used when the report has none;
   * `showOutput`: whether the line ends with the output so far (`-> 4.2 MiB`).
   */
  constructor(out: BarTarget, label: string, totalIn?: number, showOutput = true) {
    this.#out = out
    this.#label = label
    this.#totalIn = totalIn
    this.#showOutput = showOutput
  }

  /** The `onProgress` callback. */
  readonly update = (p: Progress): void => {
    const total = p.totalIn ?? this.#totalIn
    const seconds = (Date.now() - this.#start) / 1000
    const rate = seconds > 0 ? p.bytesIn / seconds : 0
    const parts = [this.#label]
    if (total !== undefined && total > 0) {
      const fraction = Math.min(1, p.bytesIn / total)
      parts.push(`${(fraction * 100).toFixed(0).padStart(3)}%`, `${formatBytes(p.bytesIn)} / ${formatBytes(total)}`)
      parts.push(`${(rate / 1e6).toFixed(1)} MB/s`)
      if (rate > 0 && fraction < 1) parts.push(`ETA ${formatDuration((total - p.bytesIn) / rate)}`)
    } else {
      parts.push(formatBytes(p.bytesIn), `${(rate / 1e6).toFixed(1)} MB/s`)
    }
    if (this.#showOutput) parts.push(`-> ${formatBytes(p.bytesOut)}`)
    let line = parts.join('  ')
    const width = (this.#out.columns ?? 80) - 1
    if (line.length > width) line = line.slice(0, width)
    this.#out.write(`\r${line}\x1b[K`)
    this.#drawn = true
  }

  /** Clears the line (call once the file is done, or failed). */
  clear(): void {
    if (this.#drawn) this.#out.write('\r\x1b[K')
    this.#drawn = false
  }
}
