// encodeResponse throughput per encoding, against hono's compress() and the platform's
// CompressionStream on the same bodies, in one run; MB/s of input over CPU time (the
// median of the timed runs; see bench/row.ts for why CPU time).
//
//   node --import tsx --expose-gc bench/encode-response.ts      (corpora of BENCH_MB MB, default 16)
//
// Rows:
//   sluice compress() <coding>     hono app + sluice/hono's compress({ encoding })
//   hono compress() <coding>       the same app + hono/compress (gzip, deflate: all it has)
//   encodeResponse <coding>        encodeResponse() on a Response, body read to the end
//   encodeResponse <coding> node   the same with engine 'node' (node:zlib) for the coding
//   CompressionStream <coding>     Response body piped through the platform's
//                                  CompressionStream (gzip, deflate; brotli/zstd where the
//                                  platform has them)
// Each body is streamed to the encoder in 64 KiB chunks, as a server would receive it.
// Prints markdown tables (`npm run bench:docs -- encode-response` writes them into
// docs/performance.md); "sluice / row" is the first row of the coding over this row.
import { Hono } from 'hono'
import { compress as honoCompress } from 'hono/compress'
import { compress } from '../adapters/hono/index.js'
import { encodeResponse, type ContentCoding } from '../adapters/fetch/index.js'
import { chunks, corpus, drain, streamOf } from './corpus.js'

type Op = () => Promise<number>

const gc = (globalThis as { gc?: () => void }).gc
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

async function measure(op: Op, bytes: number): Promise<{ mbps: number; out: number }> {
  let out = await op()
  await op()
  const cpu: number[] = []
  const start = performance.now()
  while (cpu.length < 3 || (performance.now() - start < 1500 && cpu.length < 20)) {
    gc?.()
    const c0 = process.cpuUsage()
    out = await op()
    const c = process.cpuUsage(c0)
    cpu.push((c.user + c.system) / 1000)
  }
  return { mbps: bytes / 1e6 / (median(cpu) / 1000), out }
}

const platformHas = (format: string): boolean => {
  try {
    new CompressionStream(format as CompressionFormat)
    return true
  } catch {
    return false
  }
}

const CODINGS: ContentCoding[] = ['zstd', 'br', 'gzip', 'deflate']
const PLATFORM_FORMAT: Record<ContentCoding, string> = { zstd: 'zstd', br: 'brotli', gzip: 'gzip', deflate: 'deflate' }

for (const name of ['text', 'json']) {
  const raw = corpus(name)
  const parts = chunks(raw)
  const type = name === 'json' ? 'application/json' : 'text/plain'
  const body = () => new Response(streamOf(parts), { headers: { 'content-type': type } })
  const app = (mw: ReturnType<typeof compress>) => {
    const a = new Hono()
    a.use(mw)
    a.get('/', () => body())
    return a
  }
  console.log(`\n# ${name} corpus, ${(raw.length / 1e6).toFixed(1)} MB in ${parts.length} chunks of 64 KiB; MB/s of input per CPU second (median), compression ratio (input / output)`)
  console.log('| row | MB/s | ratio | sluice compress() / row |')
  console.log('|---|---:|---:|---:|')
  for (const coding of CODINGS) {
    const rows: Array<[string, Op]> = []
    const ours = app(compress({ encoding: coding }))
    const req = () => new Request('http://bench/', { headers: { 'accept-encoding': coding } })
    rows.push([`sluice compress() ${coding}`, async () => drain((await ours.request(req())).body!)])
    if (coding === 'gzip' || coding === 'deflate') {
      const theirs = app(honoCompress({ encoding: coding }))
      rows.push([`hono compress() ${coding}`, async () => drain((await theirs.request(req())).body!)])
    }
    rows.push([`encodeResponse ${coding}`, async () => drain((await encodeResponse(req(), body())).body!)])
    if (coding !== 'zstd' || Number(process.versions.node.split('.')[0]) >= 23) {
      const engines = { [coding]: 'node' as const }
      rows.push([`encodeResponse ${coding} node`, async () => drain((await encodeResponse(req(), body(), { engines })).body!)])
    }
    if (platformHas(PLATFORM_FORMAT[coding])) {
      rows.push([`CompressionStream ${coding}`, async () => drain(body().body!.pipeThrough(new CompressionStream(PLATFORM_FORMAT[coding] as CompressionFormat)))])
    }
    let first = 0
    for (const [label, op] of rows) {
      const { mbps, out } = await measure(op, raw.length)
      if (first === 0) first = mbps
      const vs = first === mbps ? '' : `${(first / mbps).toFixed(2)}×`
      console.log(`| ${label} | ${mbps.toFixed(1)} | ${(raw.length / out).toFixed(2)} | ${vs} |`)
    }
  }
}
