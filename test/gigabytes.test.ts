// Any size, through every surface (issue 30), at sizes that matter, each case in a child
// process (test/_gigabyte-child.ts) with a V8 heap limit, its RSS watched from here and
// the process killed above a ceiling, so that a failure cannot eat the machine:
// - one-shot encode() of 1 GiB (zstd, gzip, LZ4), checked by the reference CLI, and
//   one-shot decode() of CLI-made files to 1 GiB: peak memory within input + output + a
//   constant (the input is read in place; the output grows in place, or is allocated
//   once at a declared size; measured: 40-65 MiB, of which 16 MiB is moving a grown
//   output into its final array; asserted: 96 MiB);
// - a single 1 GiB chunk through a stream factory, CompressionStream, the Node adapter,
//   encodeResponse and decodeResponse (checked by the zstd CLI or byte for byte);
// - 5 GiB streams of gzip, zstd and LZ4 decoded in bounded memory through
//   decodeStream(): past 2^32, gzip's ISIZE is the length modulo 2^32, zstd's and LZ4's
//   content sizes are 64-bit, the output is counted and checked, and onProgress's
//   counts are exact; DecompressionStream('gzip') too (the web class has no option: it
//   decodes any length by default); an error 4 GiB into a zstd stream has its exact offset;
// - 1 GiB of zstd zeros read into one reused 64 KiB BYOB buffer grows RSS by < 24 MiB.
// Memory bounds are the design's (input + output + a constant), with room for a loaded
// 2-core machine; the measured numbers are printed.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cliMissing, type Cli } from './_cli.js'

const child = fileURLToPath(new URL('./_gigabyte-child.ts', import.meta.url))
const MiB = 1 << 20
const GiB = 1 << 30
const mb = (n: number) => (n / MiB).toFixed(0)

const cache = join(tmpdir(), 'sluice-gigabytes')
mkdirSync(cache, { recursive: true })

interface Result {
  ok: boolean
  detail: string
  base: number
  peak: number
  casePeak?: number
  growth?: number
  input?: number
  output?: number
  /** CPU seconds the child used. */
  cpu: number
}

/** The RSS of `pid` from /proc, in bytes (0 when it cannot be read). */
function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

/** Runs one case in a child with a heap limit; kills it when its RSS passes `ceiling`. */
function run(args: string[], ceiling: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--max-old-space-size=192', '--max-semi-space-size=2', '--expose-gc', '--import', 'tsx', child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    let killed = ''
    p.stdout.on('data', (c: Buffer) => (out += c))
    p.stderr.on('data', (c: Buffer) => (err += c))
    const watch = setInterval(() => {
      const r = rssOf(p.pid!)
      if (r > ceiling && !killed) {
        killed = `RSS ${mb(r)} MiB passed the ceiling of ${mb(ceiling)} MiB`
        p.kill('SIGKILL')
      }
    }, 50)
    const timer = setTimeout(() => {
      killed ||= 'timed out after 10 minutes'
      p.kill('SIGKILL')
    }, 600_000)
    p.on('close', (code) => {
      clearInterval(watch)
      clearTimeout(timer)
      if (killed) return reject(new Error(`${args.join(' ')}: ${killed}`))
      const last = out.trim().split('\n').pop() ?? ''
      try {
        resolve(JSON.parse(last) as Result)
      } catch {
        reject(new Error(`${args.join(' ')}: exited ${code}: ${err.slice(-1500)}`))
      }
    })
  })
}

/** `cli` is installed, or the case is skipped with the reason. */
function needs(cli: Cli, what: string): boolean {
  const missing = cliMissing(cli)
  if (missing) console.log(`# skipped: ${what}: ${missing}`)
  return missing === null
}

for (const format of ['zstd', 'gzip', 'lz4'] as const) {
  test(`one-shot encode() of 1 GiB, ${format}: the ${format} CLI decodes it; peak memory within input + output + 96 MiB`, async () => {
    if (!needs(format, `one-shot ${format} encode of 1 GiB`)) return
    const r = await run(['encode', format], 2 * GiB)
    const grew = r.casePeak! - r.base
    console.log(`# encode ${format} 1 GiB: ${r.detail}; peak ${mb(r.base)} + ${mb(grew)} MiB (input ${mb(r.input!)} + output ${mb(r.output!)} MiB); ${r.cpu.toFixed(1)} s CPU`)
    assert.ok(r.ok, r.detail)
    assert.ok(grew <= r.input! + r.output! + 96 * MiB, `peak grew ${mb(grew)} MiB`)
  })

  test(`one-shot decode() of a file the ${format} CLI wrote, to 1 GiB: exact bytes; peak memory within input + output + 96 MiB`, async () => {
    if (!needs(format, `one-shot ${format} decode to 1 GiB`)) return
    const file = join(cache, `corpus-1g.${format}`)
    if (!existsSync(file)) {
      // Written beside it and renamed once whole: a run killed while packing (a deadline,
      // the RSS watch) left a cut file here before, and every later run failed on it.
      const partial = `${file}.${process.pid}.partial`
      const p = await run(['pack', format, partial], 512 * MiB)
      assert.ok(p.ok, `the ${format} CLI failed`)
      renameSync(partial, file)
    }
    const r = await run(['decode', format, file], 2 * GiB + 256 * MiB)
    const grew = r.casePeak! - r.base
    console.log(`# decode ${format} to 1 GiB: ${r.detail}; peak ${mb(r.base)} + ${mb(grew)} MiB (input ${mb(r.input!)} + output ${mb(r.output!)} MiB); ${r.cpu.toFixed(1)} s CPU`)
    assert.ok(r.ok, r.detail)
    assert.ok(grew <= r.input! + r.output! + 96 * MiB, `peak grew ${mb(grew)} MiB`)
  })
}

// A WHATWG stream copies what is unconsumed of a chunk when it hands output out (a
// consumer may detach the chunk then): 1 GiB more. The Node adapter reads it in place.
for (const [surface, copies] of [['factory', 1], ['web', 1], ['node', 0], ['encodeResponse', 1], ['decodeResponse', 1]] as const) {
  test(`one 1 GiB chunk through ${surface === 'web' ? 'CompressionStream' : surface === 'factory' ? 'zstdEncode()' : surface === 'node' ? "nodeEncode('zstd')" : surface}: every byte back`, async () => {
    if (!needs('zstd', `a 1 GiB chunk through ${surface}`)) return
    const r = await run(['chunk', surface], (2 + copies) * GiB + 512 * MiB)
    const grew = r.casePeak! - r.base
    console.log(`# chunk ${surface}: ${r.detail}; peak ${mb(r.base)} + ${mb(grew)} MiB; ${r.cpu.toFixed(1)} s CPU`)
    assert.ok(r.ok, r.detail)
    // The input (for decodeResponse the frame), its copy where the surface makes one, and
    // a constant: the encoder's, and the CLI's output read meanwhile (64 KiB Buffers,
    // garbage until V8 collects it).
    const held = GiB + copies * GiB
    assert.ok(grew <= held + 192 * MiB, `peak grew ${mb(grew)} MiB`)
  })
}

for (const format of ['gzip', 'zstd', 'lz4'] as const) {
  test(`a 5 GiB ${format} stream through decodeStream(): every byte counted and checked, progress exact, bounded memory`, async () => {
    const r = await run(['long', format], 512 * MiB)
    console.log(`# 5 GiB ${format}: ${r.detail}; RSS grew ${mb(r.growth!)} MiB; ${r.cpu.toFixed(1)} s CPU`)
    assert.ok(r.ok, r.detail)
    assert.ok(r.growth! < 96 * MiB, `RSS grew ${mb(r.growth!)} MiB`)
  })
}

test("a 5 GiB gzip stream through DecompressionStream('gzip'), which has no option to raise a cap: every byte, bounded memory", async () => {
  const r = await run(['long', 'gzip', 'web'], 512 * MiB)
  console.log(`# 5 GiB gzip, DecompressionStream: ${r.detail}; RSS grew ${mb(r.growth!)} MiB; ${r.cpu.toFixed(1)} s CPU`)
  assert.ok(r.ok, r.detail)
  assert.ok(r.growth! < 96 * MiB, `RSS grew ${mb(r.growth!)} MiB`)
})

test('an error 4 GiB into a zstd stream: INVALID_DATA at its exact offset, past 2^32', async () => {
  const r = await run(['skip-error'], 512 * MiB)
  console.log(`# skip-error: ${r.detail}; RSS grew ${mb(r.growth!)} MiB; ${r.cpu.toFixed(1)} s CPU`)
  assert.ok(r.ok, r.detail)
})

test('1 GiB of zstd zeros through zstdDecode() into one reused 64 KiB BYOB buffer: RSS grows < 24 MiB after the first 64 MiB', async () => {
  const r = await run(['byob'], 512 * MiB)
  console.log(`# byob zstd 1 GiB: ${r.detail}; RSS after the first 64 MiB grew ${(r.growth! / MiB).toFixed(1)} MiB; ${r.cpu.toFixed(1)} s CPU`)
  assert.ok(r.ok, r.detail)
  assert.ok(r.growth! < 24 * MiB, `RSS grew ${(r.growth! / MiB).toFixed(1)} MiB`)
})

test.run()
