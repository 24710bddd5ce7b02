// What each gzip level trades on the `wasm` engine (zlib-ng 2.2.4; level 6 with its
// search narrowed, native/zlibng-deflate.c) against node:zlib (native zlib) at the same
// level: size ratio and one-shot speed ratio, text and binary corpora, in one process.
//
// Timing: CPU time of this process; each round runs every job once, in an order that
// reverses each round; a ratio is the median over rounds of (node:zlib time / our time)
// in the same round, so load from other processes hits both sides of a pair alike.
//
// Usage: node --import tsx bench/deflate-levels.ts [MB per corpus, default 4] [rounds, default 5]
import zlib from 'node:zlib'
import { join } from 'node:path'
import { encodeWhole as encode } from '../lib/whole-buffer.js'
import { binarySlice, filesCorpus, root } from './corpus.js'

const mb = Number(process.argv[2] ?? 4)
const rounds = Number(process.argv[3] ?? 5)
const n = mb * 1_000_000
const corpora: Array<[string, Uint8Array]> = [
  ['node_modules .js/.d.ts text', filesCorpus(join(root, 'node_modules'), n, /\.(js|d\.ts)$/)],
  ['node binary (first MBs)', binarySlice(0, n)],
]
const levels = [1, 2, 3, 4, 5, 6, 7, 8, 9]

const cpu = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

for (const [name, data] of corpora) {
  const jobs: Array<() => Promise<Uint8Array>> = []
  for (const level of levels) {
    jobs.push(() => encode('gzip', data, { level }))
    jobs.push(async () => new Uint8Array(zlib.gzipSync(data, { level })))
  }
  const sizes: number[] = []
  for (const [i, job] of jobs.entries()) {
    const out = await job()
    if (Buffer.compare(zlib.gunzipSync(out), data) !== 0) throw new Error(`job ${i}: does not gunzip to the input`)
    sizes.push(out.length)
  }
  const times = jobs.map(() => [] as number[])
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < jobs.length; k++) {
      const i = r % 2 ? jobs.length - 1 - k : k
      const t0 = cpu()
      await jobs[i]!()
      times[i]!.push(cpu() - t0)
    }
  }
  // Markdown (scripts/bench-docs.mjs writes it into docs/performance-engines.md).
  console.log(`\n## ${name}: ${(data.length / 1e6).toFixed(1)} MB; CPU time, median of ${rounds} interleaved rounds`)
  console.log('| level | size / node:zlib | speed / node:zlib | sluice MB/s | node:zlib MB/s |\n|---:|---:|---:|---:|---:|')
  for (const [j, level] of levels.entries()) {
    const ours = 2 * j
    const peer = ours + 1
    const speed = median(times[ours]!.map((t, r) => times[peer]![r]! / t))
    const mbs = (k: number) => (data.length / 1000 / median(times[k]!)).toFixed(0)
    console.log(`| ${level} | ${(sizes[ours]! / sizes[peer]!).toFixed(3)} | ${speed.toFixed(2)}× | ${mbs(ours)} | ${mbs(peer)} |`)
  }
}
