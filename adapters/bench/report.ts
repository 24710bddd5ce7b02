/**
 * A finished bench row and its CSV form (RFC 4180), shared by `sluice bench --csv` and
 * any page that offers the same table for download. `--json` is the rows themselves.
 */
import type { BenchMeasure } from './measure.js'
import type { ParetoMarks } from './pareto.js'

/** A row as `sluice bench --json` prints it: the file, what was measured, the Pareto marks. */
export type BenchRow = { file?: string } & BenchMeasure & ParetoMarks

/** The CSV columns, in order: every field of a row. */
export const CSV_COLUMNS = [
  'file', 'format', 'level', 'threads', 'inputBytes', 'outputBytes', 'ratio',
  'encodeMBps', 'encodeMBpsMin', 'encodeMBpsMax', 'decodeMBps', 'decodeMBpsMin', 'decodeMBpsMax',
  'rounds', 'encodePasses', 'decodePasses', 'peakMemoryBytes', 'pareto', 'paretoEncode', 'paretoDecode',
] as const satisfies readonly (keyof BenchRow)[]

/** A field as RFC 4180 wants it: quoted when it holds a comma, a quote or a line break. */
function field(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** The rows as CSV with a header line, CRLF line ends (RFC 4180 section 2). */
export function toCsv(rows: readonly BenchRow[]): string {
  return [CSV_COLUMNS.join(','), ...rows.map((row) => CSV_COLUMNS.map((c) => field(row[c])).join(','))].map((line) => `${line}\r\n`).join('')
}
