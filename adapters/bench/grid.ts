/**
 * Which rows `sluice bench` runs: formats × levels × thread counts. The default grid
 * covers each format's fast, default and strong end, and stops short of the slowest
 * levels (zstd 10 to 19, brotli 10 and 11: 0.1 to 3 MB/s in WebAssembly, minutes per
 * round on a 30 MB file); `--levels` adds them.
 */
import type { Format } from '../../lib/codec.js'
import { FORMATS, rowOf } from '../../lib/formats.js'
import type { Threads } from '../../streams/thread-options.js'
import type { BenchSpec } from './measure.js'

/**
 * The default formats and their levels: gzip (zlib-ng's fastest, default and best),
 * zstd (1, its default 3, 9), brotli (its fast path 1, default 5, 9), LZ4 (1 and a high
 * level), Snappy (no levels).
 */
export const DEFAULT_GRID: Readonly<Partial<Record<Format, readonly number[]>>> = Object.freeze({
  gzip: [1, 6, 9],
  zstd: [1, 3, 9],
  brotli: [1, 5, 9],
  lz4: [1, 9],
  snappy: [1],
})

/** Levels for a format outside the default grid: deflate's as gzip's, else the format's default. */
function defaultLevels(format: Format): readonly number[] {
  const own = DEFAULT_GRID[format]
  if (own) return own
  if (format === 'deflate' || format === 'deflate-raw') return DEFAULT_GRID.gzip!
  return [rowOf(format).levels[2]]
}

/** The rows to run, and what was left out and why. */
export interface Grid {
  specs: BenchSpec[]
  notes: string[]
}

/**
 * The rows for `formats` (default: the default grid's), `levels` (default: each format's
 * in the default grid; levels outside a format's range are left out for that format,
 * with a note) and `threads` (default: 1; formats without independent blocks get one
 * row at 1, with a note).
 */
export function gridOf(formats?: readonly Format[], levels?: readonly number[], threads: readonly Threads[] = [1]): Grid {
  const notes: string[] = []
  const specs: BenchSpec[] = []
  for (const format of formats ?? (Object.keys(DEFAULT_GRID) as Format[])) {
    if (!FORMATS.includes(format)) throw new RangeError(`unknown format '${format}'`)
    const [min, max] = rowOf(format).levels
    const wanted = levels ?? defaultLevels(format)
    const kept = wanted.filter((l) => l >= min && l <= max)
    const dropped = wanted.filter((l) => l < min || l > max)
    if (dropped.length > 0) notes.push(`${format}: level${dropped.length > 1 ? 's' : ''} ${dropped.join(', ')} left out (${format} has ${min} to ${max})`)
    // Formats without independent blocks run on one thread (compress-plan.ts): one row.
    const counts = rowOf(format).blocks ? threads : [1]
    if (counts !== threads && threads.some((t) => t !== 1)) notes.push(`${format}: no independent blocks, runs on one thread`)
    for (const level of [...new Set(kept)]) for (const t of [...new Set(counts)]) specs.push({ format, level, threads: t })
  }
  return { specs, notes }
}

/** `1,3,9`, `1-9`, `1-4,19`: levels in the order given (`sluice bench --levels`, the playground's levels field); a RangeError for anything else. */
export function parseLevels(text: string): number[] {
  const levels: number[] = []
  for (const part of text.split(',')) {
    const m = /^(\d{1,2})(?:-(\d{1,2}))?$/.exec(part.trim())
    if (!m) throw new RangeError(`--levels takes levels and ranges such as 1,3,9 or 1-9, got '${text}'`)
    const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])]
    if (to < from) throw new RangeError(`--levels: the range ${part} runs backwards`)
    for (let l = from; l <= to; l++) levels.push(l)
  }
  return levels
}
