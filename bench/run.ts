// `npm run bench [filter]`: the codec benchmark. Each row runs in its own process (so
// one engine's heap and JIT state do not colour another's), on the same real corpora,
// and the table prints MB/s of uncompressed bytes (per second of CPU time and of wall
// time) and the ratio to the group's reference row measured in the same run.
//
//   npm run bench                 all rows
//   npm run bench -- gzip         rows whose group or name contains "gzip"
//   BENCH_MB=4 npm run bench      smaller corpora (default 16 MB each)
//   BENCH_MALLOC=steady npm run bench
//                                 every row's process (ours and the peers' alike) runs
//                                 with glibc's malloc thresholds fixed, see below
//
// Why BENCH_MALLOC exists: on this project's machines (Firecracker VMs) a page of
// memory that the process returns to the kernel costs several microseconds to fault
// back in, and whether glibc returns it depends on the process's history. Its mmap
// threshold starts at 128 KiB and rises only when a larger block is freed, so in a
// fresh process each 256 KiB output block of a stream is a new mapping, faulted in page
// by page and unmapped when collected; after one large free the same blocks come from
// the heap and are reused. A streaming row then runs at half its speed or at full speed
// depending on what its process happened to allocate first (gzip text through the wasm
// engine: 165-212 MB/s against 420-441 with the thresholds fixed). Peers that emit
// 16 KiB chunks (node:zlib, DecompressionStream) stay below the threshold and are not
// affected. With BENCH_MALLOC=steady every row sees the state a long-running process
// usually settles in; without it, the state of a fresh process.
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

const steady = process.env.BENCH_MALLOC === 'steady'
const env = steady ? { ...process.env, MALLOC_MMAP_THRESHOLD_: String(32 * 2 ** 20), MALLOC_TRIM_THRESHOLD_: String(64 * 2 ** 20) } : process.env

print(`# node ${process.version}, corpora ${process.env.BENCH_MB ?? 16} MB each${steady ? ', glibc malloc thresholds fixed (BENCH_MALLOC=steady)' : ''}; MB/s of uncompressed bytes per second of CPU time (all threads of the row's process) and of wall time; ratio = row / reference row of the group, same run`)
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
        env,
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
