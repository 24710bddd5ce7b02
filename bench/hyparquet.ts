/**
 * hyparquet with our decompressors (adapters/hyparquet) vs hyparquet-compressors, on
 * the parquet-testing files that use GZIP, ZSTD, BROTLI, LZ4 or LZ4_RAW, same run:
 *
 * - read: `parquetReadObjects` of the whole file (footer, pages, row assembly), ms;
 * - pages: only the decompressor calls hyparquet made for that file, replayed, in MB/s
 *   of decoded bytes (the part the decompressors own).
 *
 * Each measurement alternates ours and the peer in rounds (the first one only warms up)
 * and keeps the median.
 * `large_string_map.brotli.parquet` (one 1 GiB page) is left out unless `--large`.
 *
 * Run: node --import tsx bench/hyparquet.ts [--large]
 */
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parquetReadObjects, type Compressors } from 'hyparquet'
import { compressors as peer } from 'hyparquet-compressors'
import { loadParquetCompressors, type ParquetCodec } from '../adapters/hyparquet/index.js'
import { parquetMetadataSync } from '../lib/parquet/index.js'

const CODECS: readonly ParquetCodec[] = ['GZIP', 'ZSTD', 'BROTLI', 'LZ4', 'LZ4_RAW']
const large = process.argv.includes('--large')
const dataDir = join(import.meta.dirname, '..', '..', 'shared', 'fixtures', 'parquet-testing', 'data')

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n)
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.parquet') ? [p] : []
    })
}

interface Page {
  codec: ParquetCodec
  input: Uint8Array
  outputLength: number
}

/** Time per call of `fn`, repeated until ~`budget` ms have passed (at least once). */
function timeOf(fn: () => unknown, budget: number): number {
  let n = 0
  const t0 = performance.now()
  do {
    fn()
    n++
  } while (performance.now() - t0 < budget)
  return (performance.now() - t0) / n
}

async function timeAsync(fn: () => Promise<unknown>, budget: number): Promise<number> {
  let n = 0
  const t0 = performance.now()
  do {
    await fn()
    n++
  } while (performance.now() - t0 < budget)
  return (performance.now() - t0) / n
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

const ours = await loadParquetCompressors()
console.log(`# node ${process.version}; hyparquet + sluice decompressors vs hyparquet-compressors, same run; median of 3 alternating rounds after one warm-up round`)
console.log('| file | codecs | pages | decoded MB | read ms ours | read ms peer | read ratio | pages MB/s ours | pages MB/s peer | pages ratio |')
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
const totals = { ours: 0, peer: 0, bytes: 0 }
for (const path of walk(dataDir)) {
  const name = relative(dataDir, path)
  let codecs: Set<string>
  try {
    const meta = parquetMetadataSync(readFileSync(path), { statistics: false })
    codecs = new Set(meta.row_groups.flatMap((rg) => rg.columns.flatMap((c) => (c.meta_data ? [String(c.meta_data.codec)] : []))))
  } catch {
    continue
  }
  if (!CODECS.some((c) => codecs.has(c))) continue
  if (name === 'large_string_map.brotli.parquet' && !large) {
    console.log(`| ${name} | BROTLI | 1 | 1024 | — | — | — | — | — | left out (1 GiB page; --large) |`)
    continue
  }
  const b = readFileSync(path)
  const file = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer
  // Record the pages through the peer.
  const pages: Page[] = []
  const recorder: Compressors = {}
  for (const codec of CODECS) {
    recorder[codec] = (input, outputLength) => {
      pages.push({ codec, input: input.slice(), outputLength })
      return peer[codec]!(input, outputLength)
    }
  }
  let readable = true
  try {
    await parquetReadObjects({ file, compressors: recorder })
  } catch {
    readable = false // large_string_map: hyparquet fails after decompressing
  }
  const bytes = pages.reduce((s, p) => s + p.outputLength, 0)
  const replay = (set: Compressors) => () => {
    for (const p of pages) set[p.codec]!(p.input, p.outputLength)
  }
  const budget = bytes > 1e8 ? 1 : 60
  const rr: { ours: number[]; peer: number[] } = { ours: [], peer: [] }
  const pr: { ours: number[]; peer: number[] } = { ours: [], peer: [] }
  // Round 0 warms the JIT up and is not kept.
  for (let round = 0; round <= (bytes > 1e8 ? 1 : 3); round++) {
    const keep = round > 0 ? (xs: number[], x: number) => xs.push(x) : () => 0
    if (readable) {
      keep(rr.ours, await timeAsync(() => parquetReadObjects({ file, compressors: ours }), budget))
      keep(rr.peer, await timeAsync(() => parquetReadObjects({ file, compressors: peer }), budget))
    }
    if (pages.length) {
      keep(pr.ours, timeOf(replay(ours), budget))
      keep(pr.peer, timeOf(replay(peer), budget))
    }
  }
  const mbps = (ms: number) => bytes / 1e6 / (ms / 1000)
  const ro = readable ? median(rr.ours) : NaN
  const rp = readable ? median(rr.peer) : NaN
  const po = pages.length ? median(pr.ours) : NaN
  const pp = pages.length ? median(pr.peer) : NaN
  if (pages.length) {
    totals.ours += po
    totals.peer += pp
    totals.bytes += bytes
  }
  const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '—')
  console.log(
    `| ${name} | ${[...codecs].join(', ')} | ${pages.length} | ${f(bytes / 1e6, 3)} | ${f(ro)} | ${f(rp)} | ${f(rp / ro)}× | ${f(mbps(po), 0)} | ${f(mbps(pp), 0)} | ${f(pp / po)}× |`,
  )
}
console.log(`\nAll pages (sum of per-file medians): ours ${(totals.bytes / 1e6 / (totals.ours / 1000)).toFixed(0)} MB/s, peer ${(totals.bytes / 1e6 / (totals.peer / 1000)).toFixed(0)} MB/s, peer time / ours ${(totals.peer / totals.ours).toFixed(2)}×`)
console.log('ratio = peer time / our time (above 1: ours is faster)')
