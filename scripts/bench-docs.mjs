// `npm run bench:docs -- NAME...`: runs the named benches (scripts/bench-regions.mjs
// BENCHES) one after another and writes each one's markdown into its region of the doc
// that cites it, under the date, the machine, the load and the exact command. Nothing
// is written for a bench that fails. Without a name, lists the benches and their
// commands.
//
// The benches measure ratios to peers in the same run; on a shared machine the load
// average in the header says how much to trust them. Some need the peers
// (`npm run bench:install`) or a reference CLI (lz4), as their own comments say.
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BENCHES, commandOf, machine, renderBody, replaceRegion } from './bench-regions.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const names = process.argv.slice(2)
if (names.length === 0) {
  for (const name of Object.keys(BENCHES)) console.log(`${name.padEnd(18)} ${BENCHES[name].doc}: ${commandOf(name)}`)
  process.exit(0)
}
let failed = 0
for (const name of names) {
  const bench = BENCHES[name]
  if (!bench) {
    console.error(`no bench named '${name}' (known: ${Object.keys(BENCHES).join(', ')})`)
    failed++
    continue
  }
  const file = join(root, bench.doc)
  try {
    replaceRegion(readFileSync(file, 'utf8'), name, '')
  } catch (e) {
    console.error(`${name}: ${bench.doc}: ${e.message}; not run`)
    failed++
    continue
  }
  const m = machine()
  const date = new Date()
  console.log(`# ${name}: ${commandOf(name)} (load ${m.load.toFixed(1)})`)
  const t0 = performance.now()
  const r = spawnSync(process.execPath, bench.argv, {
    cwd: root,
    env: { ...process.env, ...bench.env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  })
  const seconds = (performance.now() - t0) / 1000
  process.stdout.write(r.stdout ?? '')
  if (r.status !== 0) {
    console.error(`${name}: exit ${r.status ?? r.signal}; its region is left as it was`)
    failed++
    continue
  }
  const body = renderBody(name, { date, machine: m, loadEnd: loadavg()[0], seconds, stdout: r.stdout })
  writeFileSync(file, replaceRegion(readFileSync(file, 'utf8'), name, body))
  console.log(`# ${name}: written to ${bench.doc} (${seconds.toFixed(0)} s)`)
}
process.exit(failed ? 1 : 0)
