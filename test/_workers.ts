// The worker pool warmed up for a suite: a cold pool runs its jobs on the caller's
// thread while its workers start (one at a time), so a suite that must see jobs run on
// workers first waits until they listen.
import * as assert from 'uvu/assert'
import { encode } from '../index.js'
import { workerPool } from '../streams/pool.js'

/** Starts `n` workers (through calls with `threads: n` on `input`, at least 1 MiB) and waits until they listen. */
export async function warmWorkers(n: number, input: Uint8Array): Promise<void> {
  const pool = workerPool()
  for (let i = 0; i < 300 && pool.readyWorkers < n; i++) {
    await encode('zstd', input, { threads: n })
    await new Promise((r) => setTimeout(r, 10))
  }
  assert.is(pool.readyWorkers, n, `${n} workers listen`)
}
