// Page index decode: sluice's parquetPageIndex against hyparquet's readColumnIndex /
// readOffsetIndex on a file of 300 columns x 4 row groups with column indexes (written by
// hyparquet-writer), warm, both from memory. Rows interleaved, CPU time, median of
// rounds; the ratio is from the same run. Both decode every ColumnIndex and OffsetIndex;
// hyparquet also converts min/max to values, ours keeps the bytes (statisticsValue
// decodes them when asked), as parquet.thrift has them.
//
// Usage: node --import tsx bench/parquet-page-index.ts [--rounds=N]
import { parquetMetadata, readColumnIndex, readOffsetIndex } from 'hyparquet'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { parquetMetadataSync, parquetPageIndex } from '../lib/parquet/index.js'

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 15)
const COLUMNS = 300
const ROWS = 4000
const columnData = Array.from({ length: COLUMNS }, (_, c) =>
  c % 3 === 0
    ? { name: `s${c}`, data: Array.from({ length: ROWS }, (_, i) => `v${(i * (c + 1)) % 997}`), type: 'STRING' as const, columnIndex: true }
    : { name: `i${c}`, data: Int32Array.from({ length: ROWS }, (_, i) => i * c), type: 'INT32' as const, columnIndex: true },
)
const buffer = parquetWriteBuffer({ columnData, rowGroupSize: ROWS / 4, pageSize: 512 })
const file = new Uint8Array(buffer)
const ours = parquetMetadataSync(file)
const theirs = await parquetMetadata(buffer)
const leaves = theirs.schema.filter((e) => !e.num_children)

async function sluiceDecode(): Promise<number> {
  const index = await parquetPageIndex(file, ours)
  return index.length
}

function hyparquetDecode(): number {
  let n = 0
  for (const rg of theirs.row_groups) {
    rg.columns.forEach((chunk, c) => {
      const ci = readColumnIndex({ view: new DataView(buffer, Number(chunk.column_index_offset), chunk.column_index_length!), offset: 0 }, leaves[c]!)
      const oi = readOffsetIndex({ view: new DataView(buffer, Number(chunk.offset_index_offset), chunk.offset_index_length!), offset: 0 })
      n += ci.null_pages.length + oi.page_locations.length
    })
  }
  return n
}

const cpu = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const rows: Array<[string, () => unknown]> = [
  ['sluice parquetPageIndex', sluiceDecode],
  ['hyparquet readColumnIndex + readOffsetIndex', hyparquetDecode],
]
const times = rows.map((): number[] => [])
for (let r = -3; r < rounds; r++) {
  for (let k = 0; k < rows.length; k++) {
    const i = r % 2 ? rows.length - 1 - k : k
    const t0 = cpu()
    for (let rep = 0; rep < 5; rep++) await rows[i]![1]()
    if (r >= 0) times[i]!.push((cpu() - t0) / 5)
  }
}
const med = times.map((t) => t.sort((a, b) => a - b)[t.length >> 1]!)
const pages = ours.row_groups.reduce((n, rg) => n + rg.columns.length, 0)
console.log(`# ${COLUMNS} columns x ${ours.row_groups.length} row groups (${pages} chunks, ${file.length} bytes), ${rounds} rounds, median ms by CPU time`)
rows.forEach(([name], i) => console.log(`${name.padEnd(46)} ${med[i]!.toFixed(2).padStart(8)} ms  ${(med[1]! / med[i]!).toFixed(2)}x hyparquet`))
