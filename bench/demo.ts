// `npm run demo`: the library's job on real data from this machine, over a loopback
// HTTP server, with nothing to set up beyond `npm install` (no C toolchain, no
// command-line tools: every engine used is the package's own wasm or TypeScript).
//
//   1. fetch().body.pipeThrough(zstdDecode()) of a compressed document;
//   2. an Arrow IPC stream with ZSTD bodies, fetched and decoded batch by batch;
//   3. a Parquet footer read by two HTTP range requests;
//   4. a dictionary delta (RFC 9842 dcz) against plain zstd;
//   5. a response compressed per Accept-Encoding (encodeResponse).
//
// Each step runs twice; the timings printed are the second run's (engines loaded, code
// warm), and say so. The data: TypeScript's own declaration files in node_modules.
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { request as httpRequest, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Int32, Table, Utf8, vectorFromArray, type RecordBatch } from 'apache-arrow'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { arrowDecode, arrowEncode } from '../adapters/arrow/index.js'
import { decodeResponse, encodeResponse, useAsDictionary } from '../adapters/fetch/index.js'
import { toNodeListener } from '../adapters/node/index.js'
import { parquetMetadata } from '../lib/parquet/index.js'
import { encode, zstdDecode } from '../streams/index.js'
import { filesCorpus, root } from './corpus.js'

const TS_LIB = join(root, 'node_modules/typescript/lib')
const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`
const kb = (n: number) => `${(n / 1e3).toFixed(1)} KB`
const rate = (bytes: number, ms: number) => `${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.compare(a, b) === 0

/** Runs `step` twice and returns the second run's result and time (the first warms up). */
async function warm<T>(step: () => Promise<T>): Promise<{ value: T; ms: number }> {
  await step()
  const t0 = performance.now()
  const value = await step()
  return { value, ms: performance.now() - t0 }
}

// --- the data -----------------------------------------------------------------------
const document = filesCorpus(TS_LIB, 8_000_000, /\.d\.ts$/)
const documentZst = await encode('zstd', document, { level: 19 })

/** Rows: every line of TypeScript's lib .d.ts files, with its file, number and length. */
const lines = { file: [] as string[], line: [] as number[], length: [] as number[], text: [] as string[] }
for (const f of readdirSync(TS_LIB).filter((n) => n.endsWith('.d.ts')).sort()) {
  readFileSync(join(TS_LIB, f), 'utf8').split('\n').forEach((text, i) => {
    lines.file.push(f)
    lines.line.push(i + 1)
    lines.length.push(text.length)
    lines.text.push(text)
  })
}
const rowCount = lines.text.length
const BATCH_ROWS = 10_000
const arrowBytes = await (async () => {
  const chunks: Uint8Array[] = []
  const encoder = arrowEncode({ compression: 'zstd' })
  const writing = encoder.readable.pipeTo(new WritableStream({ write: (c) => void chunks.push(c) }))
  const writer = encoder.writable.getWriter()
  for (let at = 0; at < rowCount; at += BATCH_ROWS) {
    const end = Math.min(rowCount, at + BATCH_ROWS)
    // Plain Utf8 columns (tableFromArrays would dictionary-encode strings, one dictionary per chunk).
    await writer.write(
      new Table({
        file: vectorFromArray(lines.file.slice(at, end), new Utf8()),
        line: vectorFromArray(lines.line.slice(at, end), new Int32()),
        length: vectorFromArray(lines.length.slice(at, end), new Int32()),
        text: vectorFromArray(lines.text.slice(at, end), new Utf8()),
      }),
    )
  }
  await writer.close()
  await writing
  return Buffer.concat(chunks)
})()
const arrowTextBytes = lines.text.reduce((n, t) => n + Buffer.byteLength(t), 0)

const parquetBytes = new Uint8Array(
  parquetWriteBuffer({
    columnData: [
      { name: 'file', data: lines.file, type: 'STRING' },
      { name: 'line', data: Int32Array.from(lines.line), type: 'INT32' },
      { name: 'length', data: Int32Array.from(lines.length), type: 'INT32' },
    ],
    rowGroupSize: 10_000,
  }),
)

// Two releases of one file: the older is the dictionary for the newer (RFC 9842's use).
const OLDER = join(root, 'node_modules/@arethetypeswrong/core/node_modules/typescript/lib/lib.es5.d.ts')
const newer = new Uint8Array(readFileSync(join(TS_LIB, 'lib.es5.d.ts')))
const hasOlder = existsSync(OLDER)
// Without the older release installed: yesterday's build is today's minus its last 5%.
const older = hasOlder ? new Uint8Array(readFileSync(OLDER)) : newer.subarray(0, Math.floor(newer.length * 0.95))

// --- the server ----------------------------------------------------------------------
const seen: string[] = []
const handler = async (req: Request): Promise<Response> => {
  const path = new URL(req.url).pathname
  seen.push(`${req.method} ${path}${req.headers.get('range') ? ` Range: ${req.headers.get('range')}` : ''}`)
  switch (path) {
    case '/lib.d.ts.zst':
      return new Response(documentZst as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'application/zstd', 'content-length': String(documentZst.length) } })
    case '/lines.arrows':
      return new Response(arrowBytes, { headers: { 'content-type': 'application/vnd.apache.arrow.stream' } })
    case '/lines.parquet': {
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.get('range') ?? '')
      if (req.method === 'HEAD' || !range) return new Response(req.method === 'HEAD' ? null : parquetBytes, { headers: { 'content-length': String(parquetBytes.length), 'accept-ranges': 'bytes' } })
      const [a, b] = [Number(range[1]), Math.min(Number(range[2]), parquetBytes.length - 1)]
      return new Response(parquetBytes.slice(a, b + 1), { status: 206, headers: { 'content-range': `bytes ${a}-${b}/${parquetBytes.length}` } })
    }
    case '/v1/lib.es5.d.ts':
      return new Response(older as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'text/plain', 'use-as-dictionary': useAsDictionary({ match: '/v*/lib.es5.d.ts' }) } })
    case '/v2/lib.es5.d.ts':
      return encodeResponse(req, new Response(newer as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'text/plain' } }), { dictionaries: [older] })
    case '/page':
      return encodeResponse(req, new Response(newer.slice(0, 200_000), { headers: { 'content-type': 'text/html' } }))
  }
  return new Response('not found', { status: 404 })
}
const server = createServer(toNodeListener(handler))
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

console.log('sluice demo: real data from this machine over a loopback HTTP server.')
console.log('Timings are of a second run after a warm-up run (engines loaded); the machine may be busy.\n')
let failures = 0
const check = (ok: boolean, what: string) => {
  if (!ok) {
    failures++
    console.log(`   FAILED: ${what}`)
  }
}

// 1 -----------------------------------------------------------------------------------
console.log('1. fetch(url).body.pipeThrough(zstdDecode())')
{
  const { value, ms } = await warm(async () => {
    const res = await fetch(`${base}/lib.d.ts.zst`)
    const parts: Uint8Array[] = []
    await res.body!.pipeThrough(zstdDecode()).pipeTo(new WritableStream({ write: (c) => void parts.push(c) }))
    return Buffer.concat(parts)
  })
  check(same(value, document), 'decoded document differs')
  console.log(`   TypeScript's lib/*.d.ts, ${mb(document.length)} as a ${mb(documentZst.length)} .zst (level 19): decoded in ${ms.toFixed(0)} ms, ${rate(document.length, ms)} (after warm-up), identical`)
}

// 2 -----------------------------------------------------------------------------------
console.log('\n2. Arrow IPC with ZSTD bodies: fetch(url).body.pipeThrough(arrowDecode()), batch by batch')
{
  const { value, ms } = await warm(async () => {
    const res = await fetch(`${base}/lines.arrows`)
    const reader = res.body!.pipeThrough(arrowDecode()).getReader()
    const batches: Array<{ rows: number; first: string }> = []
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      const batch = r.value as RecordBatch
      batches.push({ rows: batch.numRows, first: `${batch.getChild('file')?.get(0)}:${batch.getChild('line')?.get(0)}` })
    }
    return batches
  })
  const rows = value.reduce((n, b) => n + b.rows, 0)
  check(rows === rowCount, `rows ${rows} != ${rowCount}`)
  console.log(`   ${rowCount} rows (every line of TypeScript's lib .d.ts files: file, line, length, text), ${mb(arrowTextBytes)} of text`)
  console.log(`   ${value.length} record batches, ${mb(arrowBytes.length)} on the wire`)
  for (const b of value.slice(0, 3)) console.log(`   batch: ${b.rows} rows, starting at ${b.first}`)
  if (value.length > 3) console.log(`   … ${value.length - 3} more batches`)
  console.log(`   fetched and decoded in ${ms.toFixed(0)} ms: ${(rowCount / (ms / 1000) / 1e6).toFixed(2)} M rows/s, ${rate(arrowBytes.length, ms)} of IPC stream (after warm-up)`)
}

// 3 -----------------------------------------------------------------------------------
console.log('\n3. A Parquet footer by HTTP range requests (sluice/parquet, a range source over fetch)')
{
  const { value, ms } = await warm(async () => {
    seen.length = 0
    const head = await fetch(`${base}/lines.parquet`, { method: 'HEAD' })
    const size = Number(head.headers.get('content-length'))
    let reads = 0
    const source = {
      size,
      async read(offset: number, length: number) {
        reads++
        const res = await fetch(`${base}/lines.parquet`, { headers: { range: `bytes=${offset}-${offset + length - 1}` } })
        return new Uint8Array(await res.arrayBuffer())
      },
    }
    // A small speculative tail (1 KiB), so this footer takes its two reads: the tail, then the rest.
    const meta = await parquetMetadata(source, { tailSize: 1024 })
    return { meta, reads, size, requests: [...seen] }
  })
  check(Number(value.meta.num_rows) === rowCount, 'Parquet row count')
  console.log(`   ${mb(value.size)} file (hyparquet-writer, snappy), footer ${kb(value.meta.metadata_length)}: ${value.meta.row_groups.length} row groups, ${value.meta.num_rows} rows`)
  for (const r of value.requests) console.log(`   ${r}`)
  console.log(`   ${value.reads} range reads, ${ms.toFixed(1)} ms including the HEAD (after warm-up)`)
}

// 4 -----------------------------------------------------------------------------------
console.log('\n4. A dictionary delta (RFC 9842): v2 of a file against v1, which the client has')
{
  const v1res = await fetch(`${base}/v1/lib.es5.d.ts`)
  const dictionary = new Uint8Array(await v1res.arrayBuffer())
  const hash = `:${Buffer.from(await crypto.subtle.digest('SHA-256', dictionary)).toString('base64')}:`
  const get = async (accept: string) => {
    const res = await fetch(`${base}/v2/lib.es5.d.ts`, { headers: { 'accept-encoding': accept, 'available-dictionary': hash } })
    const coding = res.headers.get('content-encoding')
    const wire = new Uint8Array(await res.arrayBuffer())
    const decoded = new Uint8Array(await decodeResponse(new Response(wire, { headers: { 'content-encoding': coding ?? 'identity' } }), { dictionaries: [dictionary] }).arrayBuffer())
    return { coding, wire: wire.length, decoded }
  }
  const delta = await warm(() => get('dcz, zstd'))
  const plain = await get('zstd')
  check(same(delta.value.decoded, newer) && same(plain.decoded, newer), 'delta or plain body differs')
  console.log(`   v1: ${hasOlder ? 'lib.es5.d.ts of an older TypeScript release in node_modules' : 'the first 95% of lib.es5.d.ts (no older release installed)'}, ${mb(older.length)}, served with Use-As-Dictionary`)
  console.log(`   v2: lib.es5.d.ts of the installed TypeScript, ${mb(newer.length)}`)
  console.log(`   Content-Encoding ${delta.value.coding}: ${kb(delta.value.wire)}; plain ${plain.coding}: ${kb(plain.wire)} (${(plain.wire / delta.value.wire).toFixed(1)}x larger)`)
  console.log(`   request, dcz encoding and decoding in ${delta.ms.toFixed(0)} ms (after warm-up); both decode to v2 exactly`)
}

// 5 -----------------------------------------------------------------------------------
console.log('\n5. A response compressed per Accept-Encoding (encodeResponse behind node:http)')
{
  /** The raw response, as the client's socket sees it (node:http does not decode). */
  const raw = (accept: string) =>
    new Promise<{ coding: string; bytes: number; vary: string }>((resolve, reject) => {
      const r = httpRequest(`${base}/page`, { headers: accept ? { 'accept-encoding': accept } : {} }, (res) => {
        let n = 0
        res.on('data', (c: Buffer) => (n += c.length))
        res.on('end', () => resolve({ coding: String(res.headers['content-encoding'] ?? 'identity'), bytes: n, vary: String(res.headers.vary ?? '') }))
        res.on('error', reject)
      })
      r.on('error', reject)
      r.end()
    })
  for (const accept of ['gzip, deflate, br, zstd', 'gzip, deflate, br', 'gzip', 'br;q=1, gzip;q=0.5', '']) {
    const { value, ms } = await warm(() => raw(accept))
    console.log(`   Accept-Encoding: ${(accept || '(none)').padEnd(24)} -> ${value.coding.padEnd(8)} ${kb(value.bytes).padStart(9)} of 200.0 KB, ${ms.toFixed(1)} ms (after warm-up), Vary: ${value.vary}`)
  }
}

server.closeAllConnections()
server.close()
console.log(failures === 0 ? '\nAll steps checked their output against the original data.' : `\n${failures} check(s) failed.`)
process.exitCode = failures ? 1 : 0
