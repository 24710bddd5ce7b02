// One fresh process of bench/parquet-cold.ts, plain JavaScript so that Node loads it
// without a TypeScript loader (as a user's program would load the decoder):
//
//   node bench/parquet-cold-child.mjs <ours|hyparquet|baseline> <file.parquet> [ours-specifier]
//
// Reads the file and copies its footer and trailer into a buffer of their own, then
// (except for the baseline) imports the decoder module (ours: `ours-specifier`, default
// `sluice/parquet`, which the package's `exports` resolve to dist/esm/parquet.js;
// hyparquet: from node_modules) and decodes that footer once, in full. Prints one JSON
// line:
//   total:  ms from the process's time origin (`performance.timeOrigin`, when Node
//           started) to the end of the decode, wall clock
//   import: ms of the `import()`, wall; decode: ms of the first decode, wall
//   cpu:    CPU ms of the whole process from its start (`process.cpuUsage()`: user and
//           system, every thread: V8's compiler and GC helpers included)
//   cpuWork: CPU ms of the import and the decode alone (cpuUsage after minus before)
//   columns: column chunks decoded (a check that the decode happened)
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const [which, path, oursSpecifier = 'sluice/parquet'] = process.argv.slice(2)
const file = readFileSync(path)
const n = file.length
const tail = new Uint8Array(file.subarray(n - 8 - file.readUInt32LE(n - 8)))

const cpu0 = process.cpuUsage()
const t0 = performance.now()
let t1 = t0
let columns = 0
if (which === 'ours') {
  const { parquetMetadataSync } = await import(oursSpecifier)
  t1 = performance.now()
  columns = parquetMetadataSync(tail).row_groups[0].columns.length
} else if (which === 'hyparquet') {
  const { parquetMetadata } = await import('hyparquet')
  t1 = performance.now()
  columns = parquetMetadata(tail.buffer).row_groups[0].columns.length
} else if (which !== 'baseline') {
  throw new Error(`unknown decoder ${which}`)
}
const t2 = performance.now()
const cpu = process.cpuUsage()
const work = process.cpuUsage(cpu0)
console.log(
  JSON.stringify({
    total: t2,
    import: t1 - t0,
    decode: t2 - t1,
    cpu: (cpu.user + cpu.system) / 1000,
    cpuWork: (work.user + work.system) / 1000,
    columns,
  }),
)
