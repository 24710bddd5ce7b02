// Runs every test file under test/ (each in its own process, as uvu runs them) and
// prints the totals as the last line: `N passed, N failed, N skipped`.
//
// Usage: node test/run.mjs [pattern]
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = dirname(fileURLToPath(import.meta.url))

// The wasm engines are extracted from their packages by `npm install` (the prepare
// script); do it here too for an install made with --ignore-scripts.
if (!existsSync(join(dir, '..', 'lib', 'codecs', 'wasm', 'gen', 'lz4.b64.ts'))) {
  for (const script of ['extract-wasm.mjs', 'build-wasm-kernels.mjs']) spawnSync(process.execPath, [join(dir, '..', 'scripts', script)], { stdio: 'inherit' })
}
const pattern = process.argv[2] ? new RegExp(process.argv[2]) : null
const files = readdirSync(dir)
  .filter((f) => /\.test\.ts$/.test(f) && (!pattern || pattern.test(f)))
  .sort()

let passed = 0
let failed = 0
let skipped = 0
const broken = []
for (const file of files) {
  const t0 = Date.now()
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', join(dir, file)], {
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 15 * 60 * 1000,
  })
  const out = (r.stdout ?? '') + (r.stderr ?? '')
  // uvu prints "  Total:     N", "  Passed:    N", "  Skipped:   N" at the end of a file.
  const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? NaN)
  const pass = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? NaN)
  const skip = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0)
  process.stdout.write(out.replace(/\n+$/, '') + '\n')
  if (Number.isNaN(total) || Number.isNaN(pass)) {
    failed += 1
    broken.push(`${file}: exited ${r.status ?? r.signal} without a uvu summary`)
  } else {
    passed += pass
    failed += total - pass
    skipped += skip
    if (r.status !== 0 && total === pass) {
      failed += 1
      broken.push(`${file}: exited ${r.status ?? r.signal} after its tests`)
    }
  }
  console.log(`# ${file}: ${((Date.now() - t0) / 1000).toFixed(1)} s`)
}
for (const b of broken) console.log(`# FAILED ${b}`)
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exitCode = failed > 0 ? 1 : 0
