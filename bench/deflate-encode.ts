// gzip encoding against the issue 23 targets, in one process: sluice's `wasm` engine
// (zlib-ng 2.2.4, lib/codecs/wasm/zlibng-deflate.wasm) and `js` engine (fflate) against
// the platform's CompressionStream('gzip') and node:zlib (native zlib), same inputs.
//
// Timing: CPU time of this process (incl. the threads node:zlib's streams use); each
// round runs every job once, in an order that reverses each round; a row's ratio is the
// median over rounds of (peer time / our time) in the same round, so load from the other
// processes on a shared machine hits both sides of a pair alike.
//
// Targets: stream encode with defaults vs CompressionStream('gzip') >= 1.5x; one-shot
// level 6 vs gzipSync level 6 >= 1.2x; size at level 6 <= 1.03x node:zlib's;
// encodeResponse gzip vs hono's compress() (CompressionStream) >= 1.3x (the same pairs
// as bench/encode-response.ts, here interleaved).
//
// Usage: node --import tsx bench/deflate-encode.ts [MB per corpus, default 8] [rounds, default 9]
import zlib from 'node:zlib'
import { join } from 'node:path'
import { Hono } from 'hono'
import { compress as honoCompress } from 'hono/compress'
import { encodeWhole as encode } from '../lib/whole-buffer.js'
import { encodeResponse } from '../adapters/fetch/index.js'
import * as sluice from '../streams/index.js'
import { binarySlice, chunks, drain, filesCorpus, root, streamOf } from './corpus.js'

const mb = Number(process.argv[2] ?? 8)
const rounds = Number(process.argv[3] ?? 9)
const n = mb * 1_000_000
const corpora: Array<[string, Uint8Array]> = [
  ['node_modules .js/.d.ts text', filesCorpus(join(root, 'node_modules'), n, /\.(js|d\.ts)$/)],
  ['node binary (first MBs)', binarySlice(0, n)],
]

const cpu = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

/** Bytes out of a stream job (and checked once: it must gunzip to the input). */
type Job = () => Promise<Uint8Array | number>

async function streamBytes(parts: Uint8Array[], make: () => TransformStream<Uint8Array, Uint8Array>): Promise<Uint8Array> {
  const out: Uint8Array[] = []
  const reader = streamOf(parts).pipeThrough(make()).getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    out.push(value)
  }
  return new Uint8Array(Buffer.concat(out))
}

async function bodyBytes(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer())
}

for (const [name, data] of corpora) {
  const parts = chunks(data)
  const body = () => new Response(streamOf(parts), { headers: { 'content-type': 'text/plain' } })
  const hono = new Hono()
  hono.use(honoCompress({ encoding: 'gzip' }))
  hono.get('/', () => body())
  const request = () => new Request('http://bench/', { headers: { 'accept-encoding': 'gzip' } })
  const jobs: Array<[string, Job]> = [
    ['encodeResponse gzip (wasm: zlib-ng)', async () => bodyBytes(await encodeResponse(request(), body()))],
    ['hono compress() gzip (CompressionStream)', async () => bodyBytes(await hono.request(request()))],
    ['sluice gzipEncode() stream, defaults (wasm: zlib-ng)', () => streamBytes(parts, () => sluice.gzipEncode())],
    ['CompressionStream(gzip)', () => streamBytes(parts, () => new CompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>)],
    ['sluice gzipEncode() stream, engine js (fflate)', () => streamBytes(parts, () => sluice.gzipEncode({ engine: 'js' }))],
    ['sluice encode(gzip, level 6) (wasm: zlib-ng)', () => encode('gzip', data, { level: 6 })],
    ['node:zlib gzipSync level 6', async () => zlib.gzipSync(data, { level: 6 })],
    ['sluice encode(gzip, level 6) engine js (fflate)', () => encode('gzip', data, { level: 6, engine: 'js' })],
    ['sluice encode(gzip, level 1) (wasm: zlib-ng)', () => encode('gzip', data, { level: 1 })],
    ['node:zlib gzipSync level 1', async () => zlib.gzipSync(data, { level: 1 })],
    ['sluice encode(gzip, level 9) (wasm: zlib-ng)', () => encode('gzip', data, { level: 9 })],
    ['node:zlib gzipSync level 9', async () => zlib.gzipSync(data, { level: 9 })],
  ]
  const sizes = new Map<string, number>()
  for (const [label, job] of jobs) {
    const out = (await job()) as Uint8Array
    if (Buffer.compare(zlib.gunzipSync(out), data) !== 0) throw new Error(`${label}: does not gunzip to the input`)
    sizes.set(label, out.length)
  }
  const times = jobs.map(() => [] as number[])
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < jobs.length; k++) {
      const i = r % 2 ? jobs.length - 1 - k : k
      const t0 = cpu()
      await jobs[i]![1]()
      times[i]!.push(cpu() - t0)
    }
  }
  const at = (label: string) => jobs.findIndex(([l]) => l === label)
  const pair = (ours: string, peer: string): number => median(times[at(ours)]!.map((t, r) => times[at(peer)]![r]! / t))
  // Markdown (scripts/bench-docs.mjs writes it into docs/performance-engines.md).
  console.log(`\n## ${name}: ${(data.length / 1e6).toFixed(1)} MB; CPU time, median of ${rounds} interleaved rounds`)
  console.log('| row | MB/s | bytes |\n|---|---:|---:|')
  for (const [k, [label]] of jobs.entries()) {
    console.log(`| ${label} | ${(data.length / 1000 / median(times[k]!)).toFixed(0)} | ${sizes.get(label)} |`)
  }
  const ratio = (what: string, ours: string, peer: string, target: string) =>
    console.log(`| ${what} | ${pair(ours, peer).toFixed(2)}× | ${target} |`)
  console.log('\nSpeed ratios, ours / peer (median of pair ratios):\n')
  console.log('| pair | ratio | target |\n|---|---:|---|')
  ratio('encodeResponse gzip vs hono compress()', 'encodeResponse gzip (wasm: zlib-ng)', 'hono compress() gzip (CompressionStream)', '≥ 1.3×')
  ratio('stream defaults vs CompressionStream(gzip)', 'sluice gzipEncode() stream, defaults (wasm: zlib-ng)', 'CompressionStream(gzip)', '≥ 1.5×')
  ratio('one-shot level 6 vs gzipSync level 6', 'sluice encode(gzip, level 6) (wasm: zlib-ng)', 'node:zlib gzipSync level 6', '≥ 1.2×')
  ratio('one-shot level 1 vs gzipSync level 1', 'sluice encode(gzip, level 1) (wasm: zlib-ng)', 'node:zlib gzipSync level 1', '—')
  ratio('one-shot level 9 vs gzipSync level 9', 'sluice encode(gzip, level 9) (wasm: zlib-ng)', 'node:zlib gzipSync level 9', '—')
  ratio('js engine one-shot level 6 vs gzipSync level 6', 'sluice encode(gzip, level 6) engine js (fflate)', 'node:zlib gzipSync level 6', '—')
  const size = (ours: string, peer: string) => (sizes.get(ours)! / sizes.get(peer)!).toFixed(3)
  console.log(`\nSize level 6 / node:zlib level 6: ${size('sluice encode(gzip, level 6) (wasm: zlib-ng)', 'node:zlib gzipSync level 6')} (target <= 1.03); level 1: ${size('sluice encode(gzip, level 1) (wasm: zlib-ng)', 'node:zlib gzipSync level 1')}; level 9: ${size('sluice encode(gzip, level 9) (wasm: zlib-ng)', 'node:zlib gzipSync level 9')}`)
}
