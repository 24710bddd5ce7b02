// hyparquet full read of a DuckDB-written Snappy file (1M rows, 5 columns): with
// sluice's decompressors (SNAPPY by the wasm kernel) against hyparquet's defaults (its
// JavaScript Snappy decoder). Also the time spent in Snappy alone, each side measured
// by wrapping its decoder. Interleaved rounds, CPU time, medians from the same run.
//
// Usage: node --import tsx bench/hyparquet-snappy.ts [--rounds=N]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { parquetReadObjects, snappyUncompress } from 'hyparquet'
import { loadParquetCompressors } from '../adapters/hyparquet/index.js'

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 5)
const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-'))
const path = join(dir, 'duck.parquet')
const duck = await (await DuckDBInstance.create(':memory:')).connect()
await duck.run(
  `COPY (SELECT i AS id, i * 2 AS twice, 'name-' || (i % 1000) AS name, (i * 0.37) % 101 AS score, (i % 7)::INTEGER AS kind FROM range(1000000) t(i)) TO '${path}' (FORMAT parquet, COMPRESSION snappy)`,
)
duck.closeSync()
const bytes = readFileSync(path)
rmSync(dir, { recursive: true, force: true })
const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer

const ours = await loadParquetCompressors()
const cpu = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
let snappyMs = 0
const timed = <A extends unknown[]>(f: (...a: A) => Uint8Array) => (...a: A): Uint8Array => {
  const t0 = cpu()
  const out = f(...a)
  snappyMs += cpu() - t0
  return out
}
const oursTimed = { ...ours, SNAPPY: timed(ours.SNAPPY) }
const theirsTimed = { SNAPPY: timed((input: Uint8Array, n: number) => {
  const out = new Uint8Array(n)
  snappyUncompress(input, out)
  return out
}) }

const rows: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
  ['sluice compressors', () => parquetReadObjects({ file, compressors: ours }), () => parquetReadObjects({ file, compressors: oursTimed })],
  ['hyparquet defaults', () => parquetReadObjects({ file }), () => parquetReadObjects({ file, compressors: theirsTimed })],
]
const total = rows.map((): number[] => [])
const share = rows.map((): number[] => [])
for (let r = -1; r < rounds; r++) {
  for (let k = 0; k < rows.length; k++) {
    const i = r % 2 ? rows.length - 1 - k : k
    const t0 = cpu()
    await rows[i]![1]()
    const t = cpu() - t0
    snappyMs = 0
    await rows[i]![2]()
    if (r >= 0) {
      total[i]!.push(t)
      share[i]!.push(snappyMs)
    }
  }
}
const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!
console.log(`# DuckDB-written Snappy file, 1M rows x 5 columns, ${bytes.length} bytes; ${rounds} rounds, median CPU ms`)
rows.forEach(([name], i) =>
  console.log(`${name.padEnd(20)} full read ${med(total[i]!).toFixed(0).padStart(6)} ms (${(med(total[1]!) / med(total[i]!)).toFixed(2)}x)   Snappy alone ${med(share[i]!).toFixed(1).padStart(7)} ms (${(med(share[1]!) / med(share[i]!)).toFixed(2)}x)`),
)
