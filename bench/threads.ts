// Threads (issue 22): the target rows as ratios measured in one run, pairs interleaved
// (a, b, a, b, ...) and the median of the per-pair time ratios reported, so that load
// from other processes colours both sides alike. Prints the core count and the load
// average: on a shared machine the parallel rows are depressed by whatever else runs.
//
//   npm run build && node --import tsx bench/threads.ts   64 MiB inputs, 3 pairs per row
//   BENCH_MB=16 THREADS_PAIRS=5 node --import tsx bench/threads.ts
//   THREADS_ONLY=arrow THREADS_PAIRS=7 node --import tsx bench/threads.ts   the Arrow rows only
//   THREADS_ONLY='lz4|gzip L6 encode, threads: 2 vs threads' node --import tsx bench/threads.ts   rows whose names match
//
// The first-call row runs the built package (dist/esm, `npm run build`) in fresh
// processes; it is skipped with a note when dist/ is missing.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { CompressionType, RecordBatchStreamWriter, Table, tableFromIPC, Utf8, Dictionary, Int32, vectorFromArray } from 'apache-arrow'
import { registerPeerCodecs } from './_arrow-peers.js'
import { binarySlice, nodeModulesText, root } from './corpus.js'
import { pathToFileURL } from 'node:url'

// The built package (dist/esm, `npm run build`), as users run it: its workers start the
// built sluice-worker.js, not the sources through a TypeScript loader (whose module hooks
// would be measured too).
const built = (file: string): string => pathToFileURL(join(root, 'dist', 'esm', file)).href
if (!existsSync(join(root, 'dist', 'esm', 'index.js'))) throw new Error('bench/threads.ts runs the built package: npm run build first')
const { closeWorkers, decode, encode, zstdDecode } = (await import(built('index.js'))) as typeof import('../index.js')
const { arrowEncodeFile, readArrow } = (await import(built('arrow.js'))) as typeof import('../adapters/arrow/index.js')

const require = createRequire(join(root, 'bench', 'package.json'))
const napi = require('zstd-napi') as typeof import('zstd-napi')

const MB = Number(process.env.BENCH_MB ?? 64)
const PAIRS = Number(process.env.THREADS_PAIRS ?? 3)
/** `arrow`: only the Arrow rows; else a pattern (case-insensitive) of the rows to run. */
const ONLY = process.env.THREADS_ONLY
const only = ONLY && ONLY !== 'arrow' ? new RegExp(ONLY, 'i') : null
/** Whether the row named `name` runs. */
const runs = (name: string): boolean => !only || only.test(name)
const text = nodeModulesText((ONLY === 'arrow' ? 1 : MB) * 2 ** 20)


const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** CPU time of the whole process (every thread, workers included), ms. */
const cpuNow = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** What one timed call cost: wall, CPU of every thread, the caller thread's CPU (ms). */
interface Cost {
  wall: number
  cpu: number
  caller: number
}

/**
 * The caller thread's CPU time, ms: on Linux its scheduler statistics (the first field of
 * /proc/<pid>/task/<pid>/schedstat, nanoseconds on a CPU), elsewhere `performance
 * .eventLoopUtilization()`'s active time (the event loop outside its wait for events,
 * where everything the caller's thread does runs; wall time, so on a loaded machine it
 * also counts the time the thread waited for a core).
 */
const callerCpu: () => number = (() => {
  const file = `/proc/${process.pid}/task/${process.pid}/schedstat`
  try {
    readFileSync(file, 'utf8')
    return () => Number(readFileSync(file, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return () => performance.eventLoopUtilization().active
  }
})()
const callerClock = existsSync(`/proc/${process.pid}/task/${process.pid}/schedstat`) ? 'thread CPU (schedstat)' : 'event-loop active time'

/** Times `fn`: wall time, the process's CPU time (`process.cpuUsage()`: every thread, the workers' included) and the caller thread's. */
async function time(fn: () => unknown): Promise<Cost> {
  const t = performance.now()
  const c = cpuNow()
  const k = callerCpu()
  await fn()
  const caller = callerCpu() - k
  const cpu = cpuNow() - c
  return { wall: performance.now() - t, cpu, caller }
}

/**
 * The bound on the speedup over `threads: 1` on `n` cores that a call with serial
 * fraction `s` (the caller's busy time over the call's CPU) and CPU overhead `o` (its
 * CPU over `threads: 1`'s) implies, by Amdahl's law: the caller's share runs alone, the
 * rest spreads over `n` cores, and all of it costs `o` times the one-thread work.
 */
const amdahl = (s: number, o: number, n: number): number => 1 / (o * (s + (1 - s) / n))

/** Median over interleaved pairs of time(b) / time(a): above 1 means `a` is faster. `bytes`: the work's size, for MiB/s. */
async function pair(name: string, target: string, a: () => unknown, b: () => unknown, bytes = text.length): Promise<{ a: Cost; b: Cost } | null> {
  if (!runs(name)) return null
  await a()
  await b()
  const ratios: number[] = []
  const ca: Cost[] = []
  const cb: Cost[] = []
  for (let i = 0; i < PAIRS; i++) {
    const x = await time(a)
    const y = await time(b)
    ca.push(x)
    cb.push(y)
    ratios.push(y.wall / x.wall)
  }
  const mid = (cs: Cost[], k: keyof Cost): number => median(cs.map((c) => c[k]))
  const mbps = (ms: number) => (bytes / 2 ** 20 / (ms / 1000)).toFixed(0)
  // CPU ms over all threads: what the work costs; wall / CPU shows how much of the
  // machine the row got (under load, far less than its threads could use).
  console.log(`${name.padEnd(62)} ${median(ratios).toFixed(2)}x  (target ${target}; ${mbps(mid(ca, 'wall'))} vs ${mbps(mid(cb, 'wall'))} MiB/s wall; CPU ${mid(ca, 'cpu').toFixed(0)} vs ${mid(cb, 'cpu').toFixed(0)} ms)`)
  return { a: { wall: mid(ca, 'wall'), cpu: mid(ca, 'cpu'), caller: mid(ca, 'caller') }, b: { wall: mid(cb, 'wall'), cpu: mid(cb, 'cpu'), caller: mid(cb, 'caller') } }
}

/**
 * A `threads: 2` vs `threads: 1` row, and under it the parallel call's serial fraction
 * (the median over the pairs of the caller's busy time over the call's CPU), its CPU
 * against `threads: 1`'s, and the Amdahl bounds they imply for 4, 8 and 16 cores.
 */
async function scaling(name: string, target: string, t2: () => unknown, t1: () => unknown, bytes = text.length, targets = { serial: 0.05, overhead: 1.1 }): Promise<void> {
  const costs = await pair(name, target, t2, t1, bytes)
  if (!costs) return
  const { a, b } = costs
  const s = a.caller / a.cpu
  const o = a.cpu / b.cpu
  const bound = [4, 8, 16].map((n) => `${n}: ${amdahl(s, o, n).toFixed(1)}x`).join(', ')
  console.log(`${'  serial fraction, CPU threads 2 / threads 1'.padEnd(62)} ${(s * 100).toFixed(1)}%, ${o.toFixed(2)}x  (targets <= ${targets.serial * 100}%, <= ${targets.overhead}x; caller ${a.caller.toFixed(0)} of ${a.cpu.toFixed(0)} ms CPU; Amdahl ${bound})`)
}

console.log(`# threads bench: node ${process.version}, ${availableParallelism()} cores (os.availableParallelism), load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${(text.length / 2 ** 20).toFixed(0)} MiB of node_modules text; ${PAIRS} interleaved pairs per row, median of pair ratios; the caller's time is its ${callerClock}`)

if (ONLY === 'arrow') {
  await arrowRows()
  process.exit()
}

await scaling('gzip L6 encode, threads: 2 vs threads: 1', '>= 1.8x', () => encode('gzip', text, { level: 6, threads: 2 }), () => encode('gzip', text, { level: 6 }))
await pair('gzip L6 encode, threads: 2 vs node:zlib gzipSync', '>= 1.3x', () => encode('gzip', text, { level: 6, threads: 2 }), () => gzipSync(text, { level: 6 }))
await pair('zstd L3 encode, threads: 2 vs zstd-napi', '>= 1.3x', () => encode('zstd', text, { level: 3, threads: 2 }), () => napi.compress(text, { compressionLevel: 3 }))
await scaling('zstd L3 encode, threads: 2 vs threads: 1', '(info)', () => encode('zstd', text, { level: 3, threads: 2 }), () => encode('zstd', text, { level: 3 }))
const frames = await encode('zstd', text, { level: 3, threads: 2 })
await pair('zstd decode of 1 MiB frames, threads: 2 vs zstd-napi', '>= 1.0x', () => decode('zstd', frames, { threads: 2 }), () => napi.decompress(frames))
await scaling('zstd decode of 1 MiB frames, threads: 2 vs threads: 1', '>= 1.8x', () => decode('zstd', frames, { threads: 2 }), () => decode('zstd', frames))
await scaling('lz4 encode, threads: 2 vs threads: 1', '>= 1.7x', () => encode('lz4', text, { threads: 2 }), () => encode('lz4', text))
const lz4Frame = await encode('lz4', text, { blockSize: 262144 })
await scaling('lz4 decode, independent blocks, threads: 2 vs threads: 1', '>= 1.7x', () => decode('lz4', lz4Frame, { threads: 2 }), () => decode('lz4', lz4Frame))
/** All of `data` through a decoding stream in 1 MiB writes; the output's length. */
const viaStream = async (data: Uint8Array): Promise<number> => {
  const pair = zstdDecode({ threads: 2 })
  const reading = (async () => {
    const reader = pair.readable.getReader()
    let n = 0
    for (let r = await reader.read(); !r.done; r = await reader.read()) n += r.value.length
    return n
  })()
  const writer = pair.writable.getWriter()
  for (let i = 0; i < data.length; i += 2 ** 20) await writer.write(data.subarray(i, i + 2 ** 20))
  await writer.close()
  return reading
}
await pair('zstd decode, zstdDecode({ threads: 2 }) stream vs one-shot', '(info)', () => viaStream(frames), () => decode('zstd', frames, { threads: 2 }))

if (runs('size')) {
const gz1 = await encode('gzip', text, { level: 6 })
const gzBlocks = await encode('gzip', text, { level: 6, blockSize: 128 * 1024 })
const zstdOne = await encode('zstd', text, { level: 3 })
console.log(`${'size: gzip L6 128 KiB blocks vs one stream'.padEnd(62)} +${((gzBlocks.length / gz1.length - 1) * 100).toFixed(2)}%  (target <= 1%; ${gzBlocks.length} vs ${gz1.length} bytes)`)
console.log(`${'size: zstd L3 1 MiB frames vs one frame (text)'.padEnd(62)} +${((frames.length / zstdOne.length - 1) * 100).toFixed(2)}%  (target <= 3%; ${frames.length} vs ${zstdOne.length} bytes)`)
// The cost of fresh history per frame depends on the data: text from many similar files
// loses the most; machine code (the running node binary) far less.
{
  const binary = binarySlice(0, text.length)
  const one = await encode('zstd', binary, { level: 3 })
  const framed = await encode('zstd', binary, { level: 3, blockSize: 1 << 20 })
  console.log(`${'size: zstd L3 1 MiB frames vs one frame (node binary)'.padEnd(62)} +${((framed.length / one.length - 1) * 100).toFixed(2)}%  (target <= 3%; ${framed.length} vs ${one.length} bytes)`)
}
}

// Small inputs stay on the caller's thread: threads: 2 against threads: 1 on 64 KiB.
if (runs('gzip 64 KiB')) {
const small = text.subarray(0, 64 * 1024)
const smallRatios: number[] = []
// Each sample times 20 calls: one call of 64 KiB is about a millisecond, below the timer's noise.
const twenty = (options: object) => async () => {
  for (let i = 0; i < 20; i++) await encode('gzip', small, options)
}
await twenty({ threads: 2 })()
for (let i = 0; i < 9; i++) {
  const t2 = await time(twenty({ threads: 2 }))
  const t1 = await time(twenty({}))
  smallRatios.push(t2.wall / t1.wall)
}
console.log(`${'gzip 64 KiB, time threads: 2 / threads: 1 (stays inline)'.padEnd(62)} ${median(smallRatios).toFixed(2)}   (target <= 1.05)`)
}
await closeWorkers()

// First parallel call in a fresh process, against an empty worker's start and the same call on one thread.
const dist = join(root, 'dist', 'esm', 'index.js')
if (!runs('first call')) {
  // Not asked for.
} else if (!existsSync(dist)) {
  console.log('first parallel call: skipped, dist/esm is missing (npm run build)')
} else {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-threads-'))
  const emptyWorker = join(dir, 'empty.mjs')
  writeFileSync(emptyWorker, `import { parentPort } from 'node:worker_threads'\nparentPort.postMessage(0)\n`)
  const child = join(dir, 'child.mjs')
  writeFileSync(
    child,
    `import { Worker } from 'node:worker_threads'
const [what, mb] = process.argv.slice(2)
const data = new Uint8Array(Number(mb) * 2 ** 20).map((_, i) => (i * 31 ^ i >> 11) & 0x7f)
const t = performance.now()
if (what === 'worker') { const w = new Worker(${JSON.stringify(emptyWorker)}); await new Promise((r) => w.once('message', r)); void w.terminate() }
else { const { encode } = await import(${JSON.stringify(dist)}); await encode('gzip', data, what === 't2' ? { threads: 2 } : {}) }
console.log(performance.now() - t)`,
  )
  const run = (what: string, mb: number): number => Number(spawnSync(process.execPath, [child, what, String(mb)], { encoding: 'utf8' }).stdout.trim())
  for (const mb of [2, 8]) {
    const w: number[] = []
    const t2: number[] = []
    const t1: number[] = []
    for (let i = 0; i < 5; i++) {
      w.push(run('worker', mb))
      t2.push(run('t2', mb))
      t1.push(run('t1', mb))
    }
    console.log(`first call, gzip ${mb} MiB, fresh process: threads: 2 ${median(t2).toFixed(0)} ms, threads: 1 ${median(t1).toFixed(0)} ms, empty worker start ${median(w).toFixed(0)} ms`)
  }
  rmSync(dir, { recursive: true, force: true })
}

// Arrow IPC: 1M rows x 8 columns in 65,536-row batches (zstd-codec runs out of its
// 16 MiB heap on one 1M-row batch, BASELINES.md), written by apache-arrow's own writer
// with zstd-codec registered (as bench/arrow-peers.ts does), read by readArrow() with
// threads: 2 and by apache-arrow + zstd-codec (tableFromIPC), from memory.
async function arrowRows(): Promise<void> {
  const rows = 1_000_000
  const BATCH = 65_536
  const whole = new Table({
    id: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => (i * 2654435761) % 100_000)),
    name: vectorFromArray(Array.from({ length: rows }, (_, i) => `user-${(i * 40503) % 10_000}-${i % 7 === 0 ? 'premium' : 'basic'}`), new Dictionary(new Utf8(), new Int32())),
    qty: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => (i * 7919) % 1000)),
    price: vectorFromArray(Float64Array.from({ length: rows }, (_, i) => Math.round(((i * 40503) % 100_000) * 1.37) / 100)),
    time: vectorFromArray(Float64Array.from({ length: rows }, (_, i) => 1.7e12 + i * 1000 + (i % 13) * 7)),
    score: vectorFromArray(Float64Array.from({ length: rows }, (_, i) => Math.round(Math.sin(i) * 1e6) / 1e3)),
    shard: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => i % 64)),
    label: vectorFromArray(Array.from({ length: rows }, (_, i) => `item-${(i * 2654435761) % 500_000}`), new Utf8()),
  })
  const one = whole.batches[0]!
  const batches = []
  for (let at = 0; at < rows; at += BATCH) batches.push(one.slice(at, Math.min(rows, at + BATCH)))
  const table = new Table(batches)
  await registerPeerCodecs()
  const bytes = RecordBatchStreamWriter.writeAll(table, { compressionType: CompressionType.ZSTD } as never).toUint8Array(true)
  const check = await readArrow(bytes, { threads: 2 })
  if (check.numRows !== rows || check.getChild('label')!.get(777_777) !== tableFromIPC(bytes).getChild('label')!.get(777_777)) throw new Error('Arrow: the reads disagree')
  // The decoded columns (the read's buffers are exact; batch.slice() shares whole ones).
  let raw = 0
  for (const b of check.batches) for (const c of b.data.children) raw += c.byteLength
  console.log(`# Arrow: ${(bytes.length / 2 ** 20).toFixed(1)} MiB of ZSTD IPC stream, ${(raw / 2 ** 20).toFixed(0)} MiB of columns, ${table.batches.length} batches (MiB/s of columns)`)
  await pair('Arrow IPC ZSTD read, 1M rows x 8 columns written by apache-arrow, threads: 2 vs apache-arrow + zstd-codec', '>= 2.7x', () => readArrow(bytes, { threads: 2 }), () => tableFromIPC(bytes), raw)
  await scaling('Arrow IPC ZSTD read, same file, threads: 2 vs threads: 1', '(info)', () => readArrow(bytes, { threads: 2 }), () => readArrow(bytes), raw, { serial: 0.05, overhead: 1.2 })
  await pair('Arrow IPC ZSTD read, same file, threads: 1 vs apache-arrow + zstd-codec', '(info)', () => readArrow(bytes), () => tableFromIPC(bytes), raw)
  await pair('Arrow IPC ZSTD write (arrowEncodeFile), same table, threads: 2 vs threads: 1', '(info)', () => arrowEncodeFile(table, { compression: 'zstd', threads: 2 }), () => arrowEncodeFile(table, { compression: 'zstd' }), raw)
  await closeWorkers()
}
if (runs('Arrow')) await arrowRows()
