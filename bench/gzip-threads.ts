// gzip at data scale (issue 31): one 256 MiB (decoded) gzip member written by `gzip -6`
// and the same content in BGZF written by `bgzip`, decoded on 1 and 2 threads (and every
// core the machine has), without and with an index, against node:zlib's gunzipSync and
// @gmod/bgzf-filehandle 6.x (libdeflate in WebAssembly, one thread). Each row is the
// median of interleaved pair ratios (a, b, a, b, ...), so that load from other processes
// colours both sides alike; the core count, the load average and each side's CPU time
// over all threads (wall / CPU shows how much of the machine a row got) are printed.
//
//   npm run build && node --import tsx bench/gzip-threads.ts          256 MiB, 5 pairs per row
//   GZ_MB=64 GZ_PAIRS=7 node --import tsx bench/gzip-threads.ts
//
// The text is bench/corpus.ts's node_modules text, repeated to the size asked for (the
// repeats are megabytes apart, beyond deflate's 32 KiB window: they compress as new
// text). The gzip and bgzip CLIs write the inputs; the rows that need one say so and
// are left out without it. Runs the built package (dist/esm), as users do, so that its
// workers start the built worker file.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { nodeModulesText, root } from './corpus.js'

const built = (file: string): string => pathToFileURL(join(root, 'dist', 'esm', file)).href
if (!existsSync(join(root, 'dist', 'esm', 'index.js'))) throw new Error('bench/gzip-threads.ts runs the built package: npm run build first')
const { closeWorkers, decode, gzipIndex } = (await import(built('index.js'))) as typeof import('../index.js')

const MB = Number(process.env.GZ_MB ?? 256)
const PAIRS = Number(process.env.GZ_PAIRS ?? 5)
const cores = availableParallelism()

/** The corpus text repeated to `n` bytes. */
function textOf(n: number): Uint8Array {
  const base = nodeModulesText(Math.min(n, 64 * 2 ** 20))
  const out = new Uint8Array(n)
  for (let at = 0; at < n; at += base.length) out.set(base.subarray(0, Math.min(base.length, n - at)), at)
  return out
}

/** A CLI's output for the file holding `input`, or null when it is not installed. */
function cli(command: string, args: string[], input: Uint8Array): Uint8Array | null {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-gz-bench-'))
  try {
    const file = join(dir, 'text')
    writeFileSync(file, input)
    const r = spawnSync(command, [...args, file], { maxBuffer: 2 ** 31 })
    if (r.error || r.status !== 0) return null
    return new Uint8Array(r.stdout)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const text = textOf(MB * 2 ** 20)
const gz = cli('gzip', ['-6', '-c'], text)
const bgzf = cli('bgzip', ['-c'], text)
console.log(`# gzip threads bench: node ${process.version}, ${cores} cores (os.availableParallelism), load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${MB} MiB of text; ${PAIRS} interleaved pairs per row, median of pair ratios`)

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const cpuNow = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** Time (wall ms) and CPU (ms over all threads) of one call; checks the output's length. */
async function time(fn: () => Promise<Uint8Array> | Uint8Array): Promise<{ wall: number; cpu: number }> {
  const t = performance.now()
  const c = cpuNow()
  const out = await fn()
  const wall = performance.now() - t
  if (out.length !== text.length) throw new Error(`decoded ${out.length} bytes, not ${text.length}`)
  return { wall, cpu: cpuNow() - c }
}

/** Median over interleaved pairs of time(b) / time(a): above 1 means `a` is faster. */
async function pair(name: string, target: string, a: () => Promise<Uint8Array> | Uint8Array, b: () => Promise<Uint8Array> | Uint8Array): Promise<void> {
  await time(a)
  await time(b)
  const ratios: number[] = []
  const wa: number[] = []
  const wb: number[] = []
  const ca: number[] = []
  const cb: number[] = []
  for (let i = 0; i < PAIRS; i++) {
    const x = await time(a)
    const y = await time(b)
    ratios.push(y.wall / x.wall)
    wa.push(x.wall)
    wb.push(y.wall)
    ca.push(x.cpu)
    cb.push(y.cpu)
  }
  const mbps = (ms: number) => (text.length / 2 ** 20 / (ms / 1000)).toFixed(0)
  console.log(`${name.padEnd(64)} ${median(ratios).toFixed(2)}x  (target ${target}; ${mbps(median(wa))} vs ${mbps(median(wb))} MiB/s wall; CPU ${median(ca).toFixed(0)} vs ${median(cb).toFixed(0)} ms; load ${loadavg()[0].toFixed(1)})`)
}

const threadCounts = [...new Set([2, cores])].filter((n) => n > 1)
if (!gz) {
  console.log('# skipped: the gzip member rows (gzip CLI not installed)')
} else {
  const index = await gzipIndex(gz)
  console.log(`# gzip -6: ${gz.length} bytes (${(text.length / gz.length).toFixed(2)}:1); its index: ${index.points.length} points`)
  for (const threads of threadCounts) {
    await pair(`gzip -6 member, threads: ${threads} vs threads: 1`, threads === 2 ? '>= 1.35x' : '(info)', () => decode('gzip', gz, { threads }), () => decode('gzip', gz))
    await pair(`gzip -6 member with its index, threads: ${threads} vs threads: 1`, threads === 2 ? '>= 1.8x' : '(info)', () => decode('gzip', gz, { threads, index }), () => decode('gzip', gz))
    await pair(`gzip -6 member with its index, threads: ${threads} vs gunzipSync`, threads === 2 ? '>= 1.8x' : '(info)', () => decode('gzip', gz, { threads, index }), () => gunzipSync(gz))
  }
  await pair('gzip -6 member, threads: 1 vs gunzipSync', '(info)', () => decode('gzip', gz), () => gunzipSync(gz))
}

if (!bgzf) {
  console.log('# skipped: the BGZF rows (bgzip CLI not installed)')
} else {
  console.log(`# bgzip: ${bgzf.length} bytes`)
  const require = createRequire(join(root, 'bench', 'package.json'))
  let unzip: ((data: Uint8Array) => Promise<Uint8Array>) | null = null
  try {
    const entry = require.resolve('@gmod/bgzf-filehandle')
    unzip = ((await import(pathToFileURL(entry).href)) as { unzip: (data: Uint8Array) => Promise<Uint8Array> }).unzip
  } catch {
    console.log('# skipped: the @gmod/bgzf-filehandle row (npm run bench:install)')
  }
  for (const threads of threadCounts) {
    await pair(`BGZF, threads: ${threads} vs threads: 1`, threads === 2 ? '>= 1.8x' : '(info)', () => decode('gzip', bgzf, { threads }), () => decode('gzip', bgzf))
    const peer = unzip
    if (peer) await pair(`BGZF, threads: ${threads} vs @gmod/bgzf-filehandle 6 unzip`, threads === 2 ? '>= 1.3x' : '(info)', () => decode('gzip', bgzf, { threads }), () => peer(bgzf))
  }
}
await closeWorkers()
