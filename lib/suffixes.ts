/**
 * File name suffixes of the formats, from the format table (lib/formats.ts, each row's
 * `suffix`): what the CLI writes and recognises, what `inspect` goes by for formats
 * without a magic number (brotli), and what the playground page names its downloads. A
 * format added to the table with a suffix is recognised everywhere with no change here.
 */
import { FORMATS, rowOf, type Format } from './formats.js'

/** The suffix `format`'s files carry (`.zst`), or null when it has none. */
export function suffixOf(format: Format): string | null {
  return rowOf(format).suffix ?? null
}

/** The format whose suffix ends `name` (case-insensitive), and the name without it; null when none does. */
export function formatOfName(name: string): {
  /** The format the suffix names. */
  format: Format
  /** The name without the suffix. */
  stem: string
} | null {
  const lower = name.toLowerCase()
  for (const format of FORMATS) {
    const suffix = suffixOf(format)
    if (suffix && lower.endsWith(suffix) && lower.length > suffix.length && !/[\\/]$/.test(lower.slice(0, -suffix.length))) return { format, stem: name.slice(0, -suffix.length) }
  }
  return null
}
