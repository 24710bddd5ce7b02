/**
 * `sluice bench FILE...`: formats × levels × thread counts on the user's own files, each
 * row's ratio, encode and decode speed and peak memory, the Pareto-optimal rows marked;
 * a table, `--json` or `--csv`. The measurement is adapters/bench/ (no `node:` import,
 * so a page can run it too); this shell reads the files, runs each row in a child
 * process of its own (the same command, `bench --row=...`), draws the progress bar and
 * prints. A child per row because the engines keep their WebAssembly memory once grown:
 * in one process, a row would inherit the memory of the rows before it.
 */
import { fork } from 'node:child_process'
import { readFile, stat } from 'node:fs/promises'
import { availableParallelism, loadavg } from 'node:os'
import { basename } from 'node:path'
import type { Format } from '../../../lib/codec.js'
import { SettingsError, type CompressSettings } from '../../bench/compress-plan.js'
import { gridOf } from '../../bench/grid.js'
import { measureRow, type BenchMeasure, type BenchSpec } from '../../bench/measure.js'
import { markPareto } from '../../bench/pareto.js'
import { formatRatio } from '../../../lib/ratio.js'
import { CSV_COLUMNS, toCsv, type BenchRow } from '../../bench/report.js'
import { UsageError, type Args } from './args.js'
import { EXIT, type Exit, type Io } from './codec-files.js'
import { formatBytes } from '../../../lib/format-bytes.js'
import { ProgressBar } from './progress-bar.js'
import { formatOfOption } from './suffixes.js'

/** What the parent passes to a row's child process (`bench --row=JSON`). */
interface RowJob {
  file: string
  spec: BenchSpec
  rounds: number | undefined
  settings: Omit<CompressSettings, 'level' | 'threads' | 'dictionary'>
  dictionary: string | null
}

/** What a child sends back over its IPC channel. */
type RowMessage = { type: 'progress'; done: number; total: number } | { type: 'row'; row: BenchMeasure } | { type: 'error'; message: string }

/** The settings bench shares with compress (`--block-size`, `--seekable`, `--frame-size`, `--long`). */
function encoderSettings(args: Args): RowJob['settings'] {
  const settings: RowJob['settings'] = {}
  if (args.blockSize !== undefined) settings.blockSize = args.blockSize
  if (args.seekable) settings.seekable = true
  if (args.frameSize !== undefined) settings.frameSize = args.frameSize
  if (args.long !== undefined) settings.long = args.long
  return settings
}

/**
 * Runs `bench`. `script`: the command's own file, to run rows in child processes; without
 * it (main() called from code) rows run in this process and memory is not reported.
 */
export async function runBench(args: Args, io: Io, script?: string): Promise<Exit> {
  if (args.benchRow !== undefined) return runChild(args.benchRow)
  if (args.files.length === 0 || args.files.includes('-')) throw new UsageError('bench needs FILE (it reads each file several times)')
  if (args.json && args.csv) throw new UsageError('--json or --csv, not both')
  const formats = args.formats?.map((name): Format => {
    const format = formatOfOption(name)
    if (!format) throw new UsageError(`unknown format '${name}'`)
    return format
  }) ?? (args.format !== undefined ? [formatOfOption(args.format) ?? badFormat(args.format)] : undefined)
  const levels = args.levels ?? (args.level !== undefined ? [args.level] : undefined)
  const grid = gridOf(formats, levels, args.threads ?? [1])
  if (!args.quiet) for (const note of grid.notes) io.stderr.write(`sluice: bench: ${note}\n`)
  if (grid.specs.length === 0) throw new UsageError('no rows to run: no level given is in range for the formats given')
  const settings = encoderSettings(args)
  let exit: Exit = EXIT.OK
  const rows: BenchRow[] = []
  for (const file of args.files) {
    const size = (await stat(file)).size
    if (size === 0) {
      io.stderr.write(`sluice: ${file}: bench needs a file that is not empty\n`)
      exit = EXIT.ERROR
      continue
    }
    const measured: BenchMeasure[] = []
    for (const [i, spec] of grid.specs.entries()) {
      const label = `${basename(file)} ${spec.format} -${spec.level}${spec.threads === 1 ? '' : ` -T${spec.threads === 'auto' ? 0 : spec.threads}`} (${i + 1}/${grid.specs.length})`
      const bar = !args.quiet && io.stderr.isTTY ? new ProgressBar(io.stderr, label, undefined, false) : null
      const job: RowJob = { file, spec, rounds: args.rounds, settings, dictionary: args.dictionary ?? null }
      try {
        bar?.update({ bytesIn: 0, bytesOut: 0, totalIn: size * (2 * (args.rounds ?? 3) + 1) })
        const onProgress = (done: number, total: number) => bar?.update({ bytesIn: done, bytesOut: 0, totalIn: total })
        measured.push(script ? await inChild(script, job, onProgress) : await inProcess(job, onProgress, false))
      } catch (error) {
        if (error instanceof SettingsError) throw new UsageError(error.message)
        io.stderr.write(`sluice: ${file}: ${spec.format} -${spec.level}: ${error instanceof Error ? error.message : String(error)}\n`)
        exit = EXIT.ERROR
      } finally {
        bar?.clear()
      }
    }
    // Pareto fronts within one file's rows: speeds of different inputs do not compare.
    rows.push(...markPareto(measured).map((row) => ({ file, ...row })))
  }
  const ordered = rows.map((row) => Object.fromEntries(CSV_COLUMNS.map((c) => [c, row[c]])) as unknown as BenchRow)
  if (args.json) io.stdout.write(`${JSON.stringify(ordered, null, 2)}\n`)
  else if (args.csv) io.stdout.write(toCsv(ordered))
  else io.stdout.write(toTable(ordered, args.files))
  return exit
}

function badFormat(name: string): never {
  throw new UsageError(`unknown format '${name}'`)
}

/** Runs one row in a child process: the same command with `--row`. */
function inChild(script: string, job: RowJob, onProgress: (done: number, total: number) => void): Promise<BenchMeasure> {
  return new Promise((resolve, reject) => {
    // --expose-gc: the row collects garbage before each memory reading (measure.ts).
    const child = fork(script, ['bench', `--row=${JSON.stringify(job)}`], { execArgv: [...process.execArgv, '--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    let result: BenchMeasure | null = null
    let failure: string | null = null
    child.on('message', (message: RowMessage) => {
      if (message.type === 'progress') onProgress(message.done, message.total)
      else if (message.type === 'row') result = message.row
      else failure = message.message
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (result) resolve(result)
      else if (failure !== null) reject(failure.startsWith('SettingsError: ') ? new SettingsError(failure.slice(15)) : new Error(failure))
      else reject(new Error(`the row's process ended (${signal ?? `exit status ${code}`}) without a result`))
    })
  })
}

/** Runs one row here; `memory`: whether to read the resident set (only right in a process of its own). */
async function inProcess(job: RowJob, onProgress: (done: number, total: number) => void, memory: boolean): Promise<BenchMeasure> {
  const input = new Uint8Array(await readFile(job.file))
  const dictionary = job.dictionary === null ? undefined : (new Uint8Array(await readFile(job.dictionary)) as Uint8Array<ArrayBuffer>)
  return measureRow(input, job.spec, {
    rounds: job.rounds,
    settings: { ...job.settings, ...(dictionary ? { dictionary } : {}) },
    onProgress,
    ...(memory ? { memory: () => process.memoryUsage.rss(), gc: (globalThis as { gc?: () => void }).gc } : {}),
  })
}

/** A row's child process: measures, reports over IPC, disconnects. */
async function runChild(text: string): Promise<Exit> {
  const send = (message: RowMessage) => new Promise<void>((resolve) => (process.send ? process.send(message, undefined, {}, () => resolve()) : resolve()))
  try {
    const job = JSON.parse(text) as RowJob
    const row = await inProcess(job, (done, total) => void send({ type: 'progress', done, total }), true)
    await send({ type: 'row', row })
    return EXIT.OK
  } catch (error) {
    await send({ type: 'error', message: error instanceof SettingsError ? `SettingsError: ${error.message}` : error instanceof Error ? error.message : String(error) })
    return EXIT.ERROR
  } finally {
    process.disconnect?.()
  }
}

const mbps = (x: number): string => (x >= 1000 ? x.toFixed(0) : x.toFixed(1))
/** Half the range of the rounds, as a percent of the median. */
const spread = (median: number, min: number, max: number): string => `±${median > 0 ? Math.round(((max - min) / 2 / median) * 100) : 0}%`

/** The human table, one block per file. */
function toTable(rows: readonly BenchRow[], files: readonly string[]): string {
  const out: string[] = []
  for (const file of files) {
    const mine = rows.filter((r) => r.file === file)
    if (mine.length === 0) continue
    const first = mine[0]!
    out.push(`${file}: ${formatBytes(first.inputBytes)} (${first.inputBytes} B); ${first.rounds} round${first.rounds === 1 ? '' : 's'}; ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}`)
    const header = ['format', 'level', 'threads', 'ratio', 'compressed', 'encode MB/s', 'decode MB/s', 'memory', 'pareto']
    const lines = mine.map((r) => [
      r.format,
      String(r.level),
      String(r.threads),
      formatRatio(r.inputBytes, r.outputBytes),
      formatBytes(r.outputBytes),
      `${mbps(r.encodeMBps)} ${spread(r.encodeMBps, r.encodeMBpsMin, r.encodeMBpsMax)}`,
      `${mbps(r.decodeMBps)} ${spread(r.decodeMBps, r.decodeMBpsMin, r.decodeMBpsMax)}`,
      r.peakMemoryBytes === null ? '-' : formatBytes(r.peakMemoryBytes),
      [r.paretoEncode ? 'enc' : '', r.paretoDecode ? 'dec' : ''].filter(Boolean).join(' '),
    ])
    const widths = header.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c]!.length)))
    const right = new Set([1, 2, 4, 5, 6, 7])
    for (const cells of [header, ...lines]) out.push(cells.map((cell, c) => (c === cells.length - 1 ? cell : right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd())
    out.push('')
  }
  out.push('ratio: original / compressed (compressed as % of original). MB/s: input MB (10^6 bytes) per second,')
  out.push('median of the rounds ± half their range. memory: the most resident memory rose while the row first')
  out.push('encoded (from before its engines loaded) or decoded (from after encoding), in a process of its own.')
  out.push('pareto: no other row has a ratio and an encode (enc) or decode (dec) speed at least as high, one higher.')
  return `${out.join('\n')}\n`
}
