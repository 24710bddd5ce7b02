// Task: read an Arrow IPC stream with ZSTD-compressed bodies from fetch, batch by batch,
// and read it with apache-arrow's own reader too. Docs: docs/arrow.md.
import { createServer } from 'node:http'
import { tableFromArrays, tableFromIPC } from 'apache-arrow'
import { arrowDecode, arrowEncode, registerArrowCodecs } from 'sluice/arrow'

const n = 200_000
const table = tableFromArrays({
  ts: Float64Array.from({ length: n }, (_, i) => 1.7e12 + i * 1000),
  sensor: Int32Array.from({ length: n }, (_, i) => i % 64),
  value: Float32Array.from({ length: n }, (_, i) => Math.sin(i / 100)),
})
// tableStream: a ReadableStream of RecordBatches or Tables (here four slices of 50,000
// rows), what arrowEncode takes.
const tableStream = ReadableStream.from([0, 1, 2, 3].map((k) => table.slice(k * 50_000, (k + 1) * 50_000)))
const ipc = new Uint8Array(await new Response(tableStream.pipeThrough(arrowEncode({ compression: 'zstd' }))).arrayBuffer())
const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/vnd.apache.arrow.stream' }).end(ipc))
await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
try {
  const response = await fetch(`http://127.0.0.1:${server.address().port}/sensors.arrows`)
  let rows = 0
  let batches = 0
  for await (const batch of response.body.pipeThrough(arrowDecode())) {
    rows += batch.numRows
    batches++
  }
  if (rows !== n) throw new Error(`read ${rows} rows`)

  // apache-arrow's own reader needs the codecs registered, and registering is async.
  await registerArrowCodecs()
  const read = tableFromIPC(ipc)
  if (read.numRows !== n || read.getChild('sensor').get(65) !== 1) throw new Error('apache-arrow read wrong data')
  console.log(`ok: ${rows} rows in ${batches} batches from ${ipc.length} bytes of Arrow IPC with ZSTD bodies; apache-arrow's reader agrees`)
} finally {
  server.close()
}
