/**
 * `sluice inspect FILE|URL`: reads the file (a Parquet file's footer by ranges: a file
 * handle or HTTP range requests; anything else whole) and reports what the library's
 * inspector (lib/inspect/, `sluice/inspect`) says of it, as an object for `--json` and
 * as text for people.
 */
import { readFile } from 'node:fs/promises'
import type { RangeSource } from '../../../lib/range-source.js'
import { httpRangeSource } from '../../fetch/http-range-source.js'
import { fileRangeSource } from '../file-range-source.js'
import { inspectBytes, parquetOf, type InspectReport } from '../../../lib/inspect/inspect.js'
import { inspectText } from '../../../lib/inspect/text.js'

/** What `inspect` reports: the source, then the kind's fields. */
export type Report = { source: string } & InspectReport

/** The Parquet footer is read through a range source: a file handle or HTTP ranges. */
async function withRangeSource<T>(target: string, use: (source: RangeSource) => Promise<T>): Promise<T> {
  if (/^https?:\/\//i.test(target)) return use(await httpRangeSource(target))
  const source = await fileRangeSource(target)
  try {
    return await use(source)
  } finally {
    await source.close()
  }
}

async function wholeBytes(target: string): Promise<Uint8Array> {
  if (/^https?:\/\//i.test(target)) {
    const res = await fetch(target, { headers: { 'accept-encoding': 'identity' } })
    if (!res.ok) throw new Error(`GET ${target}: HTTP ${res.status}`)
    return new Uint8Array(await res.arrayBuffer())
  }
  return new Uint8Array(await readFile(target))
}

/** Inspects `target` (a path or an http(s) URL). */
export async function inspect(target: string): Promise<Report> {
  const name = target.replace(/[?#].*$/, '').toLowerCase()
  // Parquet first, by its trailer, without reading the file.
  const parquet = await withRangeSource(target, parquetOf).catch((error: unknown) => {
    if (/\.parquet$/.test(name)) throw error
    return null
  })
  if (parquet) return { source: target, ...parquet }
  return { source: target, ...(await inspectBytes(await wholeBytes(target), name)) }
}

/** `--json`: bigints as strings; byte arrays as hex. */
export function toJson(report: Report): string {
  return JSON.stringify(report, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)
}

/** The human summary. */
export function toText(report: Report): string {
  const { source, ...rest } = report
  return inspectText(rest as InspectReport, source)
}
