// One-shot encode() and decode() at 64 MiB, 256 MiB and 1 GiB, gzip and zstd, against
// node:zlib's gzipSync/gunzipSync and zstd-napi's compress/decompress (bench/package.json),
// in the same run: the time ratio (CPU time, median of the rounds, each call in a
// process of its own) and each call's peak RSS over what the process held before it
// (/proc/self/status VmHWM, reset just before the call through /proc/self/clear_refs).
// The targets (issue 30): peak RSS at most input + output + 64 MiB, and throughput at
// 1 GiB at least 0.9 x our own at 64 MiB.
//
// Usage: node --import tsx bench/one-shot-sizes.ts [rounds]   (Linux; npm run bench:install)
// The input: the text of node_modules (bench/corpus.ts), 64 MiB of it repeated to size.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'
import { decodeWhole, encodeWhole } from '../lib/whole-buffer.js'
import { nodeModulesText } from './corpus.js'

const MiB = 2 ** 20
const SIZES = [64 * MiB, 256 * MiB, 1024 * MiB]
const FORMATS = ['gzip', 'zstd'] as const
type Impl = 'sluice' | 'peer'
type Op = 'encode' | 'decode'
const cache = join(tmpdir(), 'sluice-bench-sizes')
const self = fileURLToPath(import.meta.url)
const napi = (): typeof import('zstd-napi') => createRequire(import.meta.url)('zstd-napi') as typeof import('zstd-napi')

/** The text corpus, `size` bytes: 64 MiB of node_modules (kept in a file) repeated. */
function input(size: number): Uint8Array {
  const file = join(cache, 'text-64m.bin')
  if (!existsSync(file)) {
    mkdirSync(cache, { recursive: true })
    writeFileSync(file, nodeModulesText(64 * MiB))
  }
  const read = readFileSync(file)
  // A view: `new Uint8Array(buffer)` would copy.
  const block = new Uint8Array(read.buffer, read.byteOffset, read.byteLength)
  if (size === block.length) return block
  const out = new Uint8Array(size)
  for (let at = 0; at < size; at += block.length) out.set(block.subarray(0, Math.min(block.length, size - at)), at)
  return out
}

/** The compressed file both decoders read: written by the peer (gzip level 6, zstd level 3). */
function packed(format: string, size: number): string {
  const file = join(cache, `${format}-${size}.bin`)
  if (!existsSync(file)) {
    mkdirSync(cache, { recursive: true })
    const data = input(size)
    writeFileSync(file, format === 'gzip' ? zlib.gzipSync(data) : napi().compress(data, { compressionLevel: 3 }))
  }
  return file
}

const hwm = (): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024
const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** One call in this process: its CPU time and peak RSS over what the process held before. */
async function child(impl: Impl, format: string, op: Op, size: number): Promise<void> {
  const file = op === 'decode' ? readFileSync(packed(format, size)) : null
  const data = file ? new Uint8Array(file.buffer, file.byteOffset, file.byteLength) : input(size)
  const call =
    impl === 'sluice'
      ? op === 'encode'
        ? () => encodeWhole(format as 'gzip', data)
        : () => decodeWhole(format as 'gzip', data, { maxOutputBytes: Infinity })
      : format === 'gzip'
        ? op === 'encode'
          ? () => zlib.gzipSync(data)
          : () => zlib.gunzipSync(data)
        : op === 'encode'
          ? () => napi().compress(data, { compressionLevel: 3 })
          : () => napi().decompress(data)
  // Warm: the engine loaded and compiled on a small input.
  if (impl === 'sluice') await (op === 'encode' ? encodeWhole(format as 'gzip', data.subarray(0, MiB)) : decodeWhole(format as 'gzip', await encodeWhole(format as 'gzip', new Uint8Array(MiB))))
  // Garbage collected, and its memory given back (V8 frees array buffers concurrently).
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  await new Promise((r) => setTimeout(r, 300))
  gc?.()
  writeFileSync('/proc/self/clear_refs', '5')
  const before = hwm()
  const t0 = cpuMs()
  const out = await call()
  const ms = cpuMs() - t0
  console.log(JSON.stringify({ ms, peak: hwm() - before, input: data.length, output: out.length }))
}

interface Row {
  ms: number
  peak: number
  input: number
  output: number
}

function run(impl: Impl, format: string, op: Op, size: number): Row {
  // A fixed mmap threshold: glibc's grows after large frees, and memory freed before the
  // call (the input's making) would then serve the call's allocations unseen by VmHWM.
  const env = { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' }
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', self, 'child', impl, format, op, String(size)], { encoding: 'utf8', maxBuffer: 1 << 20, env })
  const last = (r.stdout ?? '').trim().split('\n').pop() ?? ''
  try {
    return JSON.parse(last) as Row
  } catch {
    throw new Error(`${impl} ${format} ${op} ${size}: exited ${r.status}: ${(r.stderr ?? '').slice(-1000)}`)
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1]! : (s[(s.length >> 1) - 1]! + s[s.length >> 1]!) / 2
}

const [mode, ...rest] = process.argv.slice(2)
if (mode === 'child') {
  const [impl, format, op, size] = rest as [Impl, string, Op, string]
  await child(impl, format, op, Number(size))
} else {
  const rounds = Number(mode ?? 3)
  const peer = { gzip: 'node:zlib gzipSync/gunzipSync', zstd: 'zstd-napi' }
  console.log(`one-shot calls, ${rounds} rounds (alternating, CPU time medians); peak RSS over the process before the call; MiB = 2^20 bytes`)
  console.log('| format | op | size | sluice MB/s | peer MB/s | time ratio (sluice/peer) | sluice peak RSS | peer peak RSS | input + output + 64 MiB |')
  console.log('|---|---|---|---|---|---|---|---|---|')
  const ours: Record<string, number> = {}
  for (const format of FORMATS) {
    for (const op of ['encode', 'decode'] as const) {
      for (const size of SIZES) {
        if (op === 'decode') packed(format, size)
        const got: Record<Impl, Row[]> = { sluice: [], peer: [] }
        for (let k = 0; k < rounds; k++) for (const impl of (k % 2 ? ['peer', 'sluice'] : ['sluice', 'peer']) as Impl[]) got[impl].push(run(impl, format, op, size))
        const s = median(got.sluice.map((r) => r.ms))
        const p = median(got.peer.map((r) => r.ms))
        const a = got.sluice[0]!
        const mbps = (ms: number) => Math.round(size / 1e3 / ms)
        ours[`${format} ${op} ${size}`] = mbps(s)
        const mib = (n: number) => `${Math.round(n / MiB)} MiB`
        console.log(`| ${format} | ${op} | ${mib(size)} | ${mbps(s)} | ${mbps(p)} (${peer[format]}) | ${(s / p).toFixed(2)} | ${mib(Math.max(...got.sluice.map((r) => r.peak)))} | ${mib(Math.max(...got.peer.map((r) => r.peak)))} | ${mib(a.input + a.output + 64 * MiB)} |`)
      }
    }
  }
  for (const format of FORMATS) for (const op of ['encode', 'decode']) {
    const at64 = ours[`${format} ${op} ${SIZES[0]}`]!
    const at1g = ours[`${format} ${op} ${SIZES[2]}`]!
    console.log(`${format} ${op}: throughput at 1 GiB ${(at1g / at64).toFixed(2)} x at 64 MiB`)
  }
}
