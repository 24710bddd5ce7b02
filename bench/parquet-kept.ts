/**
 * What keeping a decoded footer costs: full decodes of one footer back to back, in a
 * fresh process per mode, each result either dropped at once ("dropped") or kept until
 * the next decode has run ("kept"), as a caller that holds on to its metadata does. The
 * figures of bench/parquet.ts are for dropped results, like every peer there; a kept
 * result has to be copied out of V8's young generation by the scavenges that the next
 * allocations trigger.
 *
 * Run: node --import tsx bench/parquet-kept.ts [file.parquet] [calls]
 * (default: the 10,000-column hyparquet-writer file that `bench/parquet.ts --generate`
 * caches in .tmp/parquet-bench/). Prints the CPU time per decode of each mode after a
 * warm-up of a third as many calls.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parquetMetadataSync } from '../lib/parquet/index.js'

const self = fileURLToPath(import.meta.url)
const file = process.argv[2] ?? join(import.meta.dirname, '..', '.tmp', 'parquet-bench', 'wide-10000x1-hw.parquet')
const calls = Number(process.argv[3] ?? 1500)
const mode = process.argv[4]

if (mode === undefined) {
  if (!existsSync(file)) throw new Error(`${file} is missing: run node --import tsx bench/parquet.ts --generate first`)
  for (const m of ['dropped', 'kept', 'dropped', 'kept']) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', self, file, String(calls), m], { encoding: 'utf8' })
    process.stdout.write(r.stdout || r.stderr)
  }
} else {
  const whole = readFileSync(file)
  const footerLength = whole.readUInt32LE(whole.length - 8)
  const tail = new Uint8Array(whole.subarray(whole.length - 8 - footerLength))
  let kept: unknown = null
  const run = mode === 'kept' ? () => { kept = parquetMetadataSync(tail) } : () => { parquetMetadataSync(tail) }
  for (let i = 0; i < calls / 3; i++) run()
  const c0 = process.cpuUsage()
  for (let i = 0; i < calls; i++) run()
  const c = process.cpuUsage(c0)
  console.log(`${mode.padEnd(8)} ${((c.user + c.system) / 1000 / calls).toFixed(2)} ms CPU per decode (${calls} back to back, ${footerLength} footer bytes)`)
  void kept
}
