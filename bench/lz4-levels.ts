// LZ4 levels 1 to 12: sluice's `encode('lz4', data, { level })` (wasm engine; with --js
// the TypeScript one too) against the lz4 CLI at the same level with the same frame
// settings (`lz4 -N -B4 -BI`: 64 KiB independent blocks, content checksum, as our
// defaults), and lz4-napi's compressFrameSync (lz4_flex, one level: for scale). Per
// level: the sizes and their ratio, encode MB/s of uncompressed bytes per CPU second and
// the ratio to the CLI's, on ~16 MB real corpora (BENCH_MB to change).
//
// Ours and the CLI run interleaved, ROUNDS rounds after a warm-up, each timed by CPU
// time (ours: process.cpuUsage around the call; the CLI: its user + system time as bash's
// `times` reports for its children, file reading and process start included, a few ms;
// `times` counts in 10 ms ticks, so a fast level runs the CLI several times per round, to
// half a second), so that the shared machine's load skews neither side; the medians are
// printed.
//
// Usage: node --import tsx bench/lz4-levels.ts [--levels=3,9,12] [--rounds=N] [--js] [text|binary ...]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeWhole as encode } from '../lib/whole-buffer.js'
import { corpus } from './corpus.js'

const require = createRequire(import.meta.url)
const args = process.argv.slice(2)
const LEVELS = (args.find((a) => a.startsWith('--levels='))?.slice(9) ?? '1,2,3,4,5,6,7,8,9,10,11,12').split(',').map(Number)
const ROUNDS = Number(args.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 3)
const withJs = args.includes('--js')
const names = args.filter((a) => !a.startsWith('--'))

const version = spawnSync('lz4', ['--version'], { encoding: 'utf8' })
if (version.status !== 0) throw new Error('this bench needs the lz4 CLI (apt-get install -y lz4)')
let napi: { compressFrameSync(d: Buffer): Buffer } | null = null
try {
  napi = require('lz4-napi')
} catch {
  console.log('# lz4-napi is not installed: its row is left out')
}

const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

/** CPU milliseconds (user + system) of one `lz4 -N -B4 -BI file`, its output discarded, over `runs` runs. */
function cliMs(level: number, file: string, runs: number): number {
  const r = spawnSync('bash', ['-c', `for i in $(seq ${runs}); do lz4 -${level} -B4 -BI -c -q "$1" > /dev/null || exit 1; done; times`, 'bench', file], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`lz4 -${level}: ${r.stderr}`)
  // `times`: the shell's user and system time, then its children's ("0m1.234s 0m0.012s").
  const children = r.stdout.trim().split('\n').pop()!
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]))
  return ((seconds[0]! + seconds[1]!) * 1000) / runs
}

/** The CLI's frame for `level` (its size is compared). */
function cliFrame(level: number, file: string): Uint8Array {
  const r = spawnSync('lz4', [`-${level}`, '-B4', '-BI', '-c', '-q', file], { maxBuffer: 1 << 30 })
  if (r.status !== 0) throw new Error(`lz4 -${level}: ${r.stderr}`)
  return new Uint8Array(r.stdout)
}

async function oursMs(data: Uint8Array, level: number, engine: 'wasm' | 'js'): Promise<[number, number]> {
  const t0 = cpuMs()
  const out = await encode('lz4', data, { level, engine })
  return [cpuMs() - t0, out.length]
}

const dir = mkdtempSync(join(tmpdir(), 'sluice-lz4-levels-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
console.log(`# node ${process.version}, ${version.stdout.trim().replace(/^\*+ | \*+$/g, '')}, corpora ${process.env.BENCH_MB ?? 16} MB, ${ROUNDS} rounds (medians), MB/s of uncompressed bytes per CPU second`)
for (const name of names.length > 0 ? names : ['text', 'binary']) {
  const data = corpus(name)
  const file = join(dir, name)
  writeFileSync(file, data)
  const mb = data.length / 1e6
  console.log(`\n## ${name} (${data.length} bytes)`)
  console.log(`| level | sluice bytes | lz4 -N -B4 -BI bytes | size vs lz4 | sluice MB/s | lz4 MB/s | speed vs lz4 |${withJs ? ' sluice js MB/s | js vs lz4 |' : ''}`)
  console.log(`|---:|---:|---:|---:|---:|---:|---:|${withJs ? '---:|---:|' : ''}`)
  for (const level of LEVELS) {
    const theirs = cliFrame(level, file).length
    let size = 0
    const ours: number[] = []
    const js: number[] = []
    const cli: number[] = []
    let runs = 1
    for (let round = -1; round < ROUNDS; round++) {
      const [ms, n] = await oursMs(data, level, 'wasm')
      const c = cliMs(level, file, runs)
      const j = withJs ? (await oursMs(data, level, 'js'))[0] : 0
      if (round < 0) {
        size = n
        // Enough runs for 500 ms of the CLI's CPU time (at least 50 ticks).
        runs = Math.max(1, Math.ceil(500 / Math.max(c, 10)))
        continue
      }
      ours.push(ms)
      cli.push(c)
      js.push(j)
    }
    const speed = mb / (median(ours) / 1000)
    const cliSpeed = mb / (median(cli) / 1000)
    const jsSpeed = mb / (median(js) / 1000)
    const diff = ((size / theirs - 1) * 100).toFixed(3)
    console.log(
      `| ${level} | ${size} | ${theirs} | ${diff}% | ${speed.toFixed(1)} | ${cliSpeed.toFixed(1)} | ${(speed / cliSpeed).toFixed(2)}× |` +
        (withJs ? ` ${jsSpeed.toFixed(1)} | ${(jsSpeed / cliSpeed).toFixed(2)}× |` : ''),
    )
  }
  if (napi) {
    const times: number[] = []
    let size = 0
    for (let round = -1; round < ROUNDS; round++) {
      const t0 = cpuMs()
      size = napi.compressFrameSync(Buffer.from(data.buffer, data.byteOffset, data.length)).length
      if (round >= 0) times.push(cpuMs() - t0)
    }
    console.log(`| lz4-napi compressFrameSync (lz4_flex, no levels) | ${size} | | | ${(mb / (median(times) / 1000)).toFixed(1)} | | |${withJs ? ' | |' : ''}`)
  }
}
