/**
 * onProgress: the one throttled meter (lib/progress.ts) as every surface reports it:
 * WHATWG streams, one-shot calls, Node streams and decodeFile, decodeResponse over a
 * real loopback server. Counts are checked against the data, the end report is checked
 * to come once and last, and the throttle against the number of chunks.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { gzipSync } from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { decodeFile, nodeEncode } from '../adapters/node/index.js'
import { decodeResponse, encodeResponse } from '../adapters/fetch/index.js'
import { CodecError } from '../lib/errors.js'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import type { Progress } from '../lib/progress.js'
import { gzipDecode, zstdEncode } from '../streams/index.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { listen } from './_http.js'
import { thrown } from './_caught.js'

const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 3_000_000, /\.d\.ts$/)
const gz = gzipSync(text)

/** Checks a report sequence: counts never go down, the last one is the whole stream. */
function checkReports(reports: Progress[], bytesIn: number, bytesOut: number, totalIn?: number): void {
  assert.ok(reports.length >= 1, 'at least the end report')
  for (let i = 1; i < reports.length; i++) {
    assert.ok(reports[i]!.bytesIn >= reports[i - 1]!.bytesIn && reports[i]!.bytesOut >= reports[i - 1]!.bytesOut, `report ${i} went backwards`)
  }
  const last = reports[reports.length - 1]!
  assert.equal(last, totalIn === undefined ? { bytesIn, bytesOut } : { bytesIn, bytesOut, totalIn })
}

async function readAll(readable: ReadableStream<Uint8Array>): Promise<{ bytes: number; chunks: number }> {
  let bytes = 0
  let chunks = 0
  for await (const chunk of readable as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength
    chunks++
  }
  return { bytes, chunks }
}

test('a WHATWG decoding stream reports throttled progress and one end report', async () => {
  const reports: Progress[] = []
  const out = await readAll(new Blob([gz]).stream().pipeThrough(gzipDecode({ onProgress: (p) => reports.push(p) })))
  assert.is(out.bytes, text.length)
  checkReports(reports, gz.length, text.length)
  // At most one report per output chunk, plus the end report.
  assert.ok(reports.length <= out.chunks + 1, `${reports.length} reports for ${out.chunks} chunks`)
})

test('an encoding stream reports what it consumed and wrote', async () => {
  const reports: Progress[] = []
  const out = await readAll(new Blob([text as Uint8Array<ArrayBuffer>]).stream().pipeThrough(zstdEncode({ onProgress: (p) => reports.push(p) })))
  checkReports(reports, text.length, out.bytes)
})

test('one-shot calls report once at the end with totalIn, on both decode paths', async () => {
  const reports: Progress[] = []
  const z = await encode('zstd', text, { onProgress: (p) => reports.push(p) })
  checkReports(reports, text.length, z.length, text.length)
  // A frame declaring its size takes the exact-size path; gzip members the machine.
  for (const [format, data] of [['zstd', z], ['gzip', gz]] as const) {
    const seen: Progress[] = []
    const back = await decode(format, data, { onProgress: (p) => seen.push(p) })
    assert.is(back.length, text.length)
    checkReports(seen, data.length, text.length, data.length)
  }
})

test('Node streams: nodeEncode reports, decodeFile adds the file size as totalIn', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-progress-'))
  try {
    const file = join(dir, 'text.gz')
    writeFileSync(file, gz)
    const reports: Progress[] = []
    let n = 0
    await pipeline(await decodeFile(file, 'gzip', { onProgress: (p) => reports.push(p) }), new Writable({ write(c, _e, cb) { n += c.length; cb() } }))
    assert.is(n, text.length)
    checkReports(reports, gz.length, text.length, gz.length)
    const enc: Progress[] = []
    const encoder = nodeEncode('lz4', { onProgress: (p) => enc.push(p) })
    let m = 0
    await pipeline([Buffer.from(text)], encoder, new Writable({ write(c, _e, cb) { m += c.length; cb() } }))
    checkReports(enc, text.length, m)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a bad onProgress is refused where it is passed', () => {
  const error = thrown(() => gzipDecode({ onProgress: 42 as never }))
  assert.instance(error, CodecError)
  assert.is((error as CodecError).code, 'INVALID_OPTION')
  assert.match((error as CodecError).message, /onProgress must be a function/)
})

test('decodeResponse: totalIn is the Content-Length, bytesIn the body as received', async () => {
  const reports: Progress[] = []
  // Built by hand: Node's fetch would decode gzip itself (see the next test for br).
  const res = decodeResponse(new Response(gz, { headers: { 'content-encoding': 'gzip', 'content-length': String(gz.length) } }), { onProgress: (p) => reports.push(p) })
  const out = await readAll(res.body!)
  assert.is(out.bytes, text.length)
  checkReports(reports, gz.length, text.length, gz.length)
})

test('encodeResponse: reports the body read and the encoded bytes, totalIn from Content-Length', async () => {
  const reports: Progress[] = []
  const request = new Request('http://127.0.0.1/', { headers: { 'accept-encoding': 'zstd' } })
  const response = new Response(text as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'text/plain', 'content-length': String(text.length) } })
  const encoded = await encodeResponse(request, response, { onProgress: (p) => reports.push(p) })
  assert.is(encoded.headers.get('content-encoding'), 'zstd')
  const out = await readAll(encoded.body!)
  checkReports(reports, text.length, out.bytes, text.length)
})

test("decodeResponse on a br body Node's fetch already decoded names the case and skip", async () => {
  const { brotliCompressSync } = await import('node:zlib')
  const br = brotliCompressSync(text.subarray(0, 200_000))
  const server = await listen((_req, res) => {
    res.writeHead(200, { 'content-encoding': 'br' })
    res.end(br)
  })
  try {
    const res = decodeResponse(await fetch(server.url))
    const error = await res.arrayBuffer().then(() => null, (e: unknown) => e)
    assert.instance(error, CodecError, String(error))
    assert.match((error as CodecError).message, /already be decoded.*skip: \['br'\]/)
    // With skip, the body is the runtime's decoding.
    const ok = decodeResponse(await fetch(server.url), { skip: ['br'] })
    assert.is((await ok.arrayBuffer()).byteLength, 200_000)
  } finally {
    await server.close()
  }
})

test.run()
