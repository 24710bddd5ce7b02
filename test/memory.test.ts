// Decompression bombs and backpressure, measured in child processes (peak RSS):
// - bomb: 1 GiB of zeros compressed (also behind a dcz/dcb header, RFC 9842), decoded
//   with maxOutputBytes 64 MiB -> LIMIT_EXCEEDED, and the process's peak RSS stays within
//   its baseline + the limit;
// - backpressure: the same 1 GiB decoded in full through a slow reader, alone and in a
//   pipeThrough chain of two decoders: memory stays bounded (no read-ahead queueing).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const child = fileURLToPath(new URL('./_memory-child.ts', import.meta.url))
const MiB = 1 << 20
const GiB = 1 << 30

const cache = join(tmpdir(), 'sluice-bombs')
mkdirSync(cache, { recursive: true })

function measure(scenario: string, format: string, limit: number) {
  const file = join(cache, `${scenario}-${format}.bin`)
  if (!existsSync(file)) {
    const p = spawnSync(process.execPath, ['--import', 'tsx', child, 'pack', scenario, format, file], { encoding: 'utf8', timeout: 240_000 })
    if (p.status !== 0) throw new Error(`packing failed: ${(p.stderr ?? '').slice(-800)}`)
  }
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', child, 'decode', scenario, format, file, String(limit)], { encoding: 'utf8', timeout: 240_000 })
  const last = (r.stdout ?? '').trim().split('\n').pop() ?? ''
  try {
    return JSON.parse(last) as { code: string; out: number; packed: number; baseRss: number; peakRss: number }
  } catch {
    throw new Error(`child failed (${r.status ?? r.signal}): ${(r.stderr ?? '').slice(-800)}`)
  }
}

const mb = (n: number) => (n / MiB).toFixed(0)

// dcz and dcb: the same bombs behind an RFC 9842 header, decoded with their dictionary.
for (const format of ['gzip', 'deflate', 'deflate-raw', 'zstd', 'lz4', 'brotli', 'dcz', 'dcb']) {
  test(`bomb ${format}: 1 GiB of zeros, maxOutputBytes 64 MiB -> LIMIT_EXCEEDED, peak RSS bounded`, () => {
    const r = measure('bomb', format, 64 * MiB)
    console.log(`# bomb ${format}: ${r.packed} bytes in, ${mb(r.out)} MiB out before the limit; RSS ${mb(r.baseRss)} -> peak ${mb(r.peakRss)} MiB`)
    assert.is(r.code, 'LIMIT_EXCEEDED')
    assert.ok(r.out <= 64 * MiB)
    // The bound: the limit plus a few chunks (what a consumer that kept everything would
    // hold). The output here is discarded as read; what grows is garbage not yet
    // collected and the engine's window.
    assert.ok(r.peakRss - r.baseRss < 64 * MiB + 8 * MiB, `peak grew ${mb(r.peakRss - r.baseRss)} MiB`)
  })
}

test('backpressure: 1 GiB from a 32 KB zstd input through a slow reader, bounded memory', () => {
  const r = measure('bomb', 'zstd', Infinity)
  console.log(`# backpressure zstd: ${r.packed} bytes -> ${mb(r.out)} MiB; RSS ${mb(r.baseRss)} -> peak ${mb(r.peakRss)} MiB`)
  assert.is(r.code, 'none')
  assert.is(r.out, GiB)
  assert.ok(r.peakRss - r.baseRss < 128 * MiB, `peak grew ${mb(r.peakRss - r.baseRss)} MiB for 1024 MiB decoded`)
})

test('backpressure: gzip -> zstd pipeThrough chain, 1 GiB out, bounded memory', () => {
  const r = measure('chain', 'zstd', Infinity)
  console.log(`# backpressure chain gzip->zstd: ${r.packed} bytes -> ${mb(r.out)} MiB; RSS ${mb(r.baseRss)} -> peak ${mb(r.peakRss)} MiB`)
  assert.is(r.code, 'none')
  assert.is(r.out, GiB)
  assert.ok(r.peakRss - r.baseRss < 128 * MiB, `peak grew ${mb(r.peakRss - r.baseRss)} MiB for 1024 MiB decoded`)
})

test.run()
