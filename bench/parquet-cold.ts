/**
 * Parquet footer, fresh process and warm: ours against hyparquet on one 300-column file
 * with statistics, written by parquet-wasm (parquet-rs): float64, int64 and int32
 * columns, and utf8 columns both dictionary-encoded and plain (bench/_parquet.ts,
 * 'mixed'; 1,000 rows in one row group, uncompressed; the footer carries parquet-rs's
 * `ARROW:schema` too).
 *
 * Fresh process: `--runs` rounds (default 20); each round starts one child process of
 * bench/parquet-cold-child.mjs per kind, in an order rotated from round to round:
 * - baseline: starts Node and reads the file, nothing else;
 * - ours: the same, then `import('sluice/parquet')` (the package's `exports` resolve it
 *   to the built dist/esm/parquet.js: run `npm run -s build` first; no TypeScript loader)
 *   and one full `parquetMetadataSync` of the footer bytes in memory;
 * - hyparquet: the same with `import('hyparquet')` from node_modules and its
 *   `parquetMetadata`.
 * Reported, medians over the rounds: the wall ms from the child's time origin
 * (`performance.timeOrigin`: when Node started) to the end of the decode, the same less
 * the baseline's median, and, measured inside the child around the import and the
 * decode alone, their wall ms and the CPU ms of every thread of the process (V8's
 * background compiler and GC threads included). The ratios are hyparquet / ours.
 *
 * Warm: each decoder in a process of its own (bench/parquet-decoders.ts, through tsx
 * on the sources), warmed up, then `--rounds` interleaved samples (default 15) of about
 * 10 ms of back-to-back decodes of the same footer; CPU ms per decode, medians.
 *
 * Run: npm run -s build && node --import tsx bench/parquet-cold.ts [--runs=N] [--rounds=N] [--sample-ms=N] [--verbose]
 *   --runs=0: the warm figures only; --sample-ms: the length of a warm sample (default 10)
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Decoder, fmt, footerLength, generate, median } from './_parquet.js'

const arg = (name: string, fallback: number) => {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`))
  return a ? Number(a.slice(name.length + 3)) : fallback
}
const RUNS = arg('runs', 20)
const ROUNDS = arg('rounds', 15)
const SAMPLE_MS = arg('sample-ms', 10)
const verbose = process.argv.includes('--verbose')

const root = join(import.meta.dirname, '..')
const dist = join(root, 'dist', 'esm', 'parquet.js')
if (!existsSync(dist)) throw new Error(`${dist} is missing: run npm run -s build first`)
const sources = join(root, 'lib', 'parquet')
const newest = Math.max(...readdirSync(sources).map((f) => statSync(join(sources, f)).mtimeMs))
if (newest > statSync(dist).mtimeMs) console.log('# warning: lib/parquet/ is newer than dist/esm/parquet.js: run npm run -s build')

const path = generate({ key: '300x1-mixed', name: '300 cols', columns: 300, rowGroups: 1, writer: 'parquet-wasm', mix: 'mixed', rows: 1000 })
const child = join(import.meta.dirname, 'parquet-cold-child.mjs')

/**
 * How the child imports ours: as a user does, by the package name (`sluice/parquet`, a
 * self-reference through the package's `exports`), where that resolves from bench/;
 * otherwise (bench/ has a package.json of its own) by the path of dist/esm/parquet.js,
 * which skips the package lookup that hyparquet's bare specifier pays (about 1 ms of
 * CPU of a fresh process on the machine of the README's figures).
 */
function oursSpecifier(): string {
  const probe = spawnSync(process.execPath, [child, 'ours', path], { cwd: root, encoding: 'utf8' })
  return probe.status === 0 ? 'sluice/parquet' : pathToFileURL(dist).href
}
const oursImport = oursSpecifier()

interface Run {
  total: number
  import: number
  decode: number
  cpu: number
  cpuWork: number
  columns: number
  /** import + decode, wall (set here). */
  work: number
}

const load = () => loadavg().map((x) => x.toFixed(1)).join(' ')
console.log(`# node ${process.version}; ${path.slice(root.length + 1)}: 300 columns, footer ${footerLength(path).toLocaleString('en')} bytes; load average ${load()}; ours imported as ${oursImport.startsWith("file:") ? oursImport.slice(oursImport.indexOf("/dist/") + 1) : oursImport}`)
const KINDS = ['baseline', 'ours', 'hyparquet'] as const
const runs: Record<(typeof KINDS)[number], Run[]> = { baseline: [], ours: [], hyparquet: [] }
for (let round = 0; round < RUNS; round++) {
  for (let k = 0; k < KINDS.length; k++) {
    const kind = KINDS[(round + k) % KINDS.length]!
    const r = spawnSync(process.execPath, [child, kind, path, oursImport], { cwd: root, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`${kind} child failed: ${r.stderr}`)
    const run = JSON.parse(r.stdout) as Run
    if (kind !== 'baseline' && run.columns !== 300) throw new Error(`${kind} decoded ${run.columns} column chunks, expected 300`)
    run.work = run.import + run.decode
    runs[kind].push(run)
  }
}

if (RUNS > 0) {
  const m = (kind: keyof typeof runs, key: keyof Run) => median(runs[kind].map((r) => r[key]))
  const base = m('baseline', 'total')
    console.log(`# fresh process: ${RUNS} rounds of one child each (baseline, ours, hyparquet; order rotated), medians; baseline (start Node, read the file) ${fmt(base)} ms wall`)
  console.log('| fresh process | start to decoded, wall ms | less baseline | import, wall ms | first decode, wall ms | import + decode, wall ms | import + decode, CPU ms |')
  console.log('|---|---|---|---|---|---|---|')
  for (const kind of ['ours', 'hyparquet'] as const) {
    console.log(`| ${kind} | ${fmt(m(kind, 'total'))} | ${fmt(m(kind, 'total') - base)} | ${fmt(m(kind, 'import'))} | ${fmt(m(kind, 'decode'))} | ${fmt(m(kind, 'work'))} | ${fmt(m(kind, 'cpuWork'))} |`)
  }
  const ratio = (key: keyof Run) => (m('hyparquet', key) / m('ours', key)).toFixed(2)
  console.log(
    `| hyparquet / ours | ${ratio('total')} | ${((m('hyparquet', 'total') - base) / (m('ours', 'total') - base)).toFixed(2)} | ${ratio('import')} | ${ratio('decode')} | ${ratio('work')} | ${ratio('cpuWork')} |`,
  )
  if (verbose) {
    for (const kind of KINDS) console.log(`# ${kind}: ${runs[kind].map((r) => `${fmt(r.total)}/${fmt(r.cpuWork)}`).join(' ')}`)
  }
}

// Warm: each decoder in its own process, interleaved samples.
const decoders = [new Decoder('full'), new Decoder('hyparquet')]
for (const d of decoders) {
  await d.ask({ load: path, columns: [] })
  await d.ask({ calibrate: 200, sampleMs: SAMPLE_MS })
}
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < decoders.length; k++) {
    const d = decoders[(round + k) % decoders.length]!
    const reply = await d.ask({ sample: true })
    if (typeof reply.ms === 'number') d.samples.push(reply.ms)
  }
}
for (const d of decoders) d.child.kill()
const [ours, hyp] = decoders.map((d) => {
  if (d.failed !== null) throw new Error(`${d.name} failed: ${d.failed}`)
  return median(d.samples)
})
console.log(`# warm: ${ROUNDS} interleaved samples of ~${SAMPLE_MS} ms per decoder, each in its own process; CPU ms per decode, medians`)
console.log('| warm full decode | ours | hyparquet | hyparquet / ours |')
console.log('|---|---|---|---|')
console.log(`| CPU ms per decode | ${fmt(ours!)} | ${fmt(hyp!)} | ${(hyp! / ours!).toFixed(1)} |`)
if (verbose) for (const d of decoders) console.log(`# ${d.name}: ${d.samples.map(fmt).join(' ')}`)
console.log(`# load average at the end ${load()}`)
