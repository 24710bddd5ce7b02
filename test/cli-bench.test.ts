/**
 * `sluice bench` (adapters/node/cli/bench.ts) run as users run it: every row of the
 * default grid, and rows on two threads, have the size `sluice compress` writes at that
 * format, level and thread count; `--json` and `--csv` parse and agree; the Pareto marks
 * follow their definition; the table names its columns; a progress bar is drawn on a
 * terminal (`script`). No timing is asserted: the speeds are only checked to be there.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { DEFAULT_GRID } from '../adapters/bench/grid.js'
import { paretoFront } from '../adapters/bench/pareto.js'
import { CSV_COLUMNS, type BenchRow } from '../adapters/bench/report.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { requireCli } from './_cli.js'
import { SLUICE_SH, sluiceIn, type Run } from './_sluice.js'

const dir = mkdtempSync(join(tmpdir(), 'sluice-cli-bench-'))
/** Real text, 1 MB: TypeScript's declarations. */
const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 1_000_000, /\.d\.ts$/)
writeFileSync(join(dir, 'text.txt'), text)
const sluice = (args: readonly string[]): Run => sluiceIn(dir, args)

function benchJson(args: readonly string[]): BenchRow[] {
  const r = sluice(['bench', '--json', '--rounds=1', ...args])
  assert.is(r.status, 0, r.stderr)
  return JSON.parse(r.stdout.toString()) as BenchRow[]
}

/** The size `sluice compress` writes for a row. */
function compressedSize(row: BenchRow): number {
  const threads = row.threads === 1 ? [] : [`-T${row.threads === 'auto' ? 0 : row.threads}`]
  const r = sluice(['compress', '-q', '-F', row.format, `-${row.level}`, ...threads, '-c', 'text.txt'])
  assert.is(r.status, 0, r.stderr)
  return r.stdout.length
}

test('the default grid: every row\'s size is what sluice compress writes; ratio, speeds, memory and Pareto marks are there and follow their definitions', () => {
  const rows = benchJson(['text.txt'])
  assert.equal(rows.map((r) => `${r.format} ${r.level}`), Object.entries(DEFAULT_GRID).flatMap(([f, levels]) => levels!.map((l) => `${f} ${l}`)))
  for (const row of rows) {
    assert.equal(Object.keys(row), [...CSV_COLUMNS], 'fields in the documented order')
    assert.is(row.file, 'text.txt')
    assert.is(row.inputBytes, text.length)
    assert.is(row.outputBytes, compressedSize(row), `${row.format} -${row.level}: bench's size is compress's`)
    assert.is(row.ratio, Math.round((row.inputBytes / row.outputBytes) * 10000) / 10000)
    assert.is(row.threads, 1)
    assert.is(row.rounds, 1)
    assert.ok(row.encodeMBps > 0 && row.decodeMBps > 0, JSON.stringify(row))
    // Each row runs in a process of its own, whose resident memory is read.
    assert.type(row.peakMemoryBytes, 'number')
  }
  const enc = paretoFront(rows, (r) => r.ratio, (r) => r.encodeMBps)
  const dec = paretoFront(rows, (r) => r.ratio, (r) => r.decodeMBps)
  assert.equal(rows.map((r) => [r.paretoEncode, r.paretoDecode, r.pareto]), rows.map((_, i) => [enc[i], dec[i], enc[i] || dec[i]]))
  // The densest row is on both fronts: nothing has a higher ratio.
  const densest = rows.reduce((a, b) => (b.ratio > a.ratio ? b : a))
  assert.ok(densest.paretoEncode && densest.paretoDecode, `${densest.format} -${densest.level}`)
})

test('-T 2 and --levels: rows on two threads have the size of compress -T 2; formats without blocks run once, on one thread', () => {
  const rows = benchJson(['--formats=zstd,gz,br', '--levels=3', '-T', '1,2', 'text.txt'])
  assert.equal(rows.map((r) => `${r.format} ${r.level} ${r.threads}`), ['zstd 3 1', 'zstd 3 2', 'gzip 3 1', 'gzip 3 2', 'brotli 3 1'])
  for (const row of rows) assert.is(row.outputBytes, compressedSize(row), `${row.format} -${row.level} -T${row.threads}`)
  const none = sluice(['bench', '--formats=gzip', '--levels=12', 'text.txt'])
  assert.is(none.status, 1)
  assert.match(none.stderr, /no rows to run/)
  assert.is(sluice(['bench']).status, 1, 'bench needs FILE')
})

test('--csv has the JSON\'s fields; the table names its columns and marks the Pareto rows', () => {
  const csv = sluice(['bench', '--csv', '--rounds=1', '--formats=lz4,snappy', 'text.txt'])
  assert.is(csv.status, 0, csv.stderr)
  const lines = csv.stdout.toString().split('\r\n')
  assert.is(lines[0], CSV_COLUMNS.join(','))
  assert.is(lines.length, 2 + 3, 'header, lz4 1, lz4 9, snappy 1, and the final line end')
  const first = Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, lines[1]!.split(',')[i]]))
  assert.equal([first.file, first.format, first.level, first.inputBytes], ['text.txt', 'lz4', '1', String(text.length)])
  const table = sluice(['bench', '--rounds=1', '--formats=lz4', '--levels=1', 'text.txt'])
  assert.is(table.status, 0, table.stderr)
  const out = table.stdout.toString()
  assert.match(out, /^text\.txt: 976\.6 KiB \(1000000 B\); 1 round; \d+ cores, load [\d.]+\n/)
  assert.match(out, /format\s+level\s+threads\s+ratio\s+compressed\s+encode MB\/s\s+decode MB\/s\s+memory\s+pareto/)
  // One row is on both fronts of itself.
  assert.match(out, /\nlz4\s+1\s+1\s+×\d+\.\d{3} \(\d+\.\d\d%\)\s+.+\s+[\d.]+ ±\d+%\s+[\d.]+ ±\d+%\s+.+\s+enc dec\n/)
})

const SCRIPT = requireCli('script', 'the progress bar on a terminal (script from util-linux)')
;(SCRIPT ? test : test.skip)('a progress bar per row on a terminal stderr, cleared when the row is done; none with -q', () => {
  const run = (flags: string) => spawnSync('script', ['-qec', `${SLUICE_SH} bench ${flags} --rounds=2 --formats=lz4,snappy --levels=1 text.txt`, '/dev/null'], { cwd: dir, encoding: 'utf8', env: { ...process.env, COLUMNS: '100' } })
  const shown = run('')
  assert.is(shown.status, 0, shown.stdout)
  assert.match(shown.stdout, /\rtext\.txt lz4 -1 \(1\/2\)\s+\d+%/)
  assert.match(shown.stdout, /\rtext\.txt snappy -1 \(2\/2\)\s+\d+%/)
  assert.match(shown.stdout, /\r\x1b\[K/, 'the line is cleared')
  const quiet = run('-q')
  assert.is(quiet.status, 0)
  assert.not.match(quiet.stdout, /\(1\/2\)/)
})

test.after(() => rmSync(dir, { recursive: true, force: true }))
test.run()
