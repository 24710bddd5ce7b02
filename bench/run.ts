// `npm run bench [filter]`: the codec benchmark. Each row runs in its own process (so
// one engine's heap and JIT state do not colour another's), on the same real corpora,
// and the table prints MB/s of uncompressed bytes (per second of CPU time and of wall
// time) and the ratio to the group's reference row measured in the same run.
//
//   npm run bench                 all rows
//   npm run bench -- gzip         rows whose group or name contains "gzip"
//   BENCH_MB=4 npm run bench      smaller corpora (default 16 MB each)
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { groups } from './rows.js'

const filter = process.argv[2]?.toLowerCase()
const self = fileURLToPath(new URL('./row.ts', import.meta.url))

interface Result {
  /** MB/s of CPU time (all threads), median iteration. */
  mbps?: number
  /** MB/s of wall time, median iteration. */
  wallMbps?: number
  error?: string
}

const lines: string[] = []
const print = (s: string) => {
  console.log(s)
  lines.push(s)
}

print(`# node ${process.version}, corpora ${process.env.BENCH_MB ?? 16} MB each; MB/s of uncompressed bytes per second of CPU time (all threads of the row's process) and of wall time; ratio = row / reference row of the group, same run`)
for (const group of groups) {
  const rows = group.rows.filter((r) => !filter || `${group.name} ${r.name}`.toLowerCase().includes(filter))
  if (rows.length === 0) continue
  for (const corpus of group.corpora) {
    print(`\n## ${group.name} — ${corpus}`)
    print(`| row | MB/s (CPU time) | vs ${group.reference} | MB/s (wall) | vs ${group.reference} (wall) |`)
    print('|---|---:|---:|---:|---:|')
    const results = new Map<string, Result>()
    for (const row of rows) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', self, group.name, row.name, corpus], {
        encoding: 'utf8',
        timeout: 5 * 60 * 1000,
        maxBuffer: 16 * 1024 * 1024,
      })
      const last = (r.stdout ?? '').trim().split('\n').pop() ?? ''
      let res: Result
      try {
        res = JSON.parse(last) as Result
      } catch {
        res = { error: ((r.stderr ?? '') + last).trim().split('\n').slice(-3).join(' ').slice(0, 200) || `exit ${r.status}` }
      }
      results.set(row.name, res)
    }
    const ref = results.get(group.reference)
    const ratio = (x: number | undefined, r: number | undefined) => (x && r ? (x / r).toFixed(2) + '×' : '—')
    for (const row of rows) {
      const res = results.get(row.name)!
      if (res.mbps === undefined) print(`| ${row.name} | n/a | ${res.error ?? ''} | | |`)
      else print(`| ${row.name} | ${res.mbps.toFixed(0)} | ${ratio(res.mbps, ref?.mbps)} | ${res.wallMbps?.toFixed(0) ?? '—'} | ${ratio(res.wallMbps, ref?.wallMbps)} |`)
    }
  }
}
