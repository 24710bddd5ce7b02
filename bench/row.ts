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
// Two clocks: CPU time of the whole process (every thread: a codec that works on a
// thread pool or leaves work to the garbage collector's threads pays for it), which
// other jobs on a shared machine disturb little; and wall time, which they do.
await op()
await op()
const cpu: number[] = []
const wall: number[] = []
const start = performance.now()
while (cpu.length < 3 || performance.now() - start < 2000) {
  gc?.()
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  await op()
  wall.push(performance.now() - t0)
  const c = process.cpuUsage(c0)
  cpu.push((c.user + c.system) / 1000)
  if (cpu.length >= 50) break
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const mbps = (ms: number): number => raw.length / 1e6 / (ms / 1000)
console.log(JSON.stringify({ mbps: mbps(median(cpu)), wallMbps: mbps(median(wall)), iterations: cpu.length }))
