// Task: read a remote Parquet file's footer (schema, row groups, statistics) by HTTP
// range requests, without downloading the file. Docs: docs/parquet.md.
import { createServer } from 'node:http'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { parquetMetadata, statisticsValue } from 'sluice/parquet'

const n = 300_000
const file = new Uint8Array(parquetWriteBuffer({
  columnData: [
    { name: 'id', data: Array.from({ length: n }, (_, i) => i), type: 'INT32' },
    { name: 'city', data: Array.from({ length: n }, (_, i) => ['Oslo', 'Lima', 'Pune'][i % 3]), type: 'STRING' },
  ],
  rowGroupSize: 100_000,
}))
const log = []
const server = createServer((req, res) => {
  const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')
  log.push(`${req.method}${m ? ` ${m[0]}` : ''}`)
  if (!m) return void res.writeHead(200, { 'content-length': file.length, 'accept-ranges': 'bytes' }).end(req.method === 'HEAD' ? undefined : file)
  const start = Number(m[1])
  const end = Math.min(Number(m[2]), file.length - 1)
  res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${file.length}`, 'content-length': end - start + 1 }).end(file.subarray(start, end + 1))
})
await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
const url = `http://127.0.0.1:${server.address().port}/cities.parquet`

/** { size, read(offset, length) } over HTTP range requests. */
async function httpRangeSource(url) {
  const size = Number((await fetch(url, { method: 'HEAD' })).headers.get('content-length'))
  return {
    size,
    async read(offset, length) {
      const r = await fetch(url, { headers: { range: `bytes=${offset}-${offset + length - 1}` } })
      if (r.status !== 206) throw new Error(`expected 206, got ${r.status}`)
      return new Uint8Array(await r.arrayBuffer())
    },
  }
}

try {
  const meta = await parquetMetadata(await httpRangeSource(url))
  const leaf = meta.schema.find((s) => s.name === 'id')
  const last = meta.row_groups.at(-1).columns[0].meta_data.statistics
  if (Number(meta.num_rows) !== n || meta.row_groups.length !== 3) throw new Error('wrong metadata')
  if (statisticsValue(last.max_value, leaf) !== n - 1) throw new Error('wrong statistics')
  const fetched = log.filter((l) => l.startsWith('GET')).length
  if (fetched > 2) throw new Error(`${fetched} range requests`)
  console.log(`ok: ${meta.num_rows} rows, ${meta.row_groups.length} row groups, columns ${meta.schema.slice(1).map((s) => s.name).join(', ')}; ${file.length}-byte file, requests: ${log.join(', ')}`)
} finally {
  server.close()
}
