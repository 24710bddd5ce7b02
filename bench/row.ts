// Runs one benchmark row in this process and prints `{"mbps": N}` as its last line.
// Usage (from bench/run.ts): node --import tsx bench/row.ts <group> <row> <corpus>
import { corpus } from './corpus.js'
import { groups } from './rows.js'

const [groupName, rowName, corpusName] = process.argv.slice(2)
const group = groups.find((g) => g.name === groupName)
const row = group?.rows.find((r) => r.name === rowName)
if (!group || !row || !corpusName) throw new Error(`no row ${groupName} / ${rowName}`)

const raw = corpus(corpusName)
const op = await row.prepare(raw)
const gc = (globalThis as { gc?: () => void }).gc

// Warm up (JIT, engine loading), then run for at least 2 s and 3 iterations; report the
// median iteration, which is less sensitive than the mean to the machine's other load.
await op()
await op()
const times: number[] = []
const start = performance.now()
while (times.length < 3 || performance.now() - start < 2000) {
  gc?.()
  const t0 = performance.now()
  await op()
  times.push(performance.now() - t0)
  if (times.length >= 50) break
}
times.sort((a, b) => a - b)
const median = times[times.length >> 1]!
console.log(JSON.stringify({ mbps: raw.length / 1e6 / (median / 1000), iterations: times.length }))
