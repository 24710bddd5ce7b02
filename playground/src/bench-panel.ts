/**
 * The bench panel: a file (chosen, dropped or pasted as text) runs through the grid of
 * formats × levels that `sluice bench` runs (adapters/bench/grid.ts), one row at a time,
 * each in a fresh worker (jobs.ts), with progress; the rows fill a table (the chart's
 * accessible alternative, with a download per row) and two ratio-versus-speed charts,
 * encode and decode, with their Pareto fronts (adapters/bench/pareto.ts). The table's
 * sizes and the JSON download are what `sluice bench --json` prints for the same file.
 */
import { FORMATS, type Format, type Threads } from 'sluice'
import { formatBytes, formatRatio, suffixOf } from 'sluice/inspect'
import { DEFAULT_GRID, gridOf, parseLevels } from '../../adapters/bench/grid.js'
import type { BenchMeasure, BenchSpec } from '../../adapters/bench/measure.js'
import { markPareto } from '../../adapters/bench/pareto.js'
import { CSV_COLUMNS, toCsv, type BenchRow } from '../../adapters/bench/report.js'
import { colourOf, ratioSpeedChart, type ChartPoint } from './chart.js'
import { runJob, stopJobs } from './jobs.js'

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

/** The formats offered: every format but the RFC 9842 transports, which need a dictionary. */
const OFFERED = FORMATS.filter((f) => f !== 'dcz' && f !== 'dcb')

const rowId = (s: BenchSpec) => `row-${s.format}-${s.level}-${s.threads}`
const labelOf = (s: BenchSpec) => `${s.format} -${s.level}${s.threads === 1 ? '' : ` -T${s.threads === 'auto' ? 0 : s.threads}`}`
const mbps = (median: number, min: number, max: number) => `${median.toFixed(1)} (${min.toFixed(1)}–${max.toFixed(1)})`

/** The input of the last run, kept for "Run again" and the downloads. */
let input: { file: Blob; name: string } | null = null
/** The run's formats in grid order: their colours, the same in the charts, the legend and the table. */
let palette: Format[] = []
let stopped = false

/** Fills the formats fieldset and wires the panel's controls. */
export function setUpBench(): void {
  const fieldset = $('formats')
  for (const format of OFFERED) {
    const label = document.createElement('label')
    const box = Object.assign(document.createElement('input'), { type: 'checkbox', name: 'format', value: format, checked: format in DEFAULT_GRID })
    label.append(box, ` ${format}`)
    fieldset.append(label)
  }
  $<HTMLInputElement>('bench-file').addEventListener('change', (e) => {
    const file = (e.target as HTMLInputElement).files?.[0]
    if (file) void run(file, file.name)
  })
  dropZone($('bench-drop'), (file) => void run(file, file.name))
  $('bench-text-run').addEventListener('click', () => {
    const text = $<HTMLTextAreaElement>('bench-text').value
    if (text.length > 0) void run(new Blob([text]), 'pasted.txt')
  })
  $('bench-again').addEventListener('click', () => input && void run(input.file, input.name))
  $('bench-stop').addEventListener('click', () => {
    stopped = true
    stopJobs()
  })
}

/** Calls `use` with a file dropped on `zone`. */
export function dropZone(zone: HTMLElement, use: (file: File) => void): void {
  zone.addEventListener('dragover', (e) => {
    e.preventDefault()
    zone.classList.add('over')
  })
  zone.addEventListener('dragleave', () => zone.classList.remove('over'))
  zone.addEventListener('drop', (e) => {
    e.preventDefault()
    zone.classList.remove('over')
    const file = e.dataTransfer?.files[0]
    if (file) use(file)
  })
}

/** The grid the controls ask for, as `sluice bench --formats --levels -T` would run it. */
function chosenGrid(): ReturnType<typeof gridOf> {
  const formats = [...document.querySelectorAll<HTMLInputElement>('input[name=format]:checked')].map((box) => box.value as Format)
  const levelsText = $<HTMLInputElement>('levels').value.trim()
  const threadsText = $<HTMLSelectElement>('threads').value
  const threads: Threads = threadsText === 'auto' ? 'auto' : Number(threadsText)
  return gridOf(formats, levelsText === '' ? undefined : parseLevels(levelsText), [threads])
}

async function run(file: Blob, name: string): Promise<void> {
  stopJobs()
  stopped = false
  input = { file, name }
  const status = $('bench-status')
  let grid: ReturnType<typeof gridOf>
  try {
    grid = chosenGrid()
  } catch (error) {
    status.textContent = (error as Error).message
    return
  }
  palette = [...new Set(grid.specs.map((s) => s.format))]
  const rounds = Number($<HTMLInputElement>('rounds').value) || 3
  const progress = $<HTMLProgressElement>('bench-progress')
  const tbody = $('results').querySelector('tbody')!
  tbody.replaceChildren(...grid.specs.map(queuedRow))
  $('results').hidden = false
  $('bench-notes').textContent = grid.notes.join('; ')
  $('bench-stop').hidden = false
  $('charts').replaceChildren()
  const measured: BenchMeasure[] = []
  for (const [i, spec] of grid.specs.entries()) {
    if (stopped) break
    const cell = $(rowId(spec)).querySelector('.state')!
    const say = (fraction: number) => {
      status.textContent = `${name} (${formatBytes(file.size)}): ${labelOf(spec)}, row ${i + 1} of ${grid.specs.length}, ${Math.round(fraction * 100)}%`
      progress.value = (i + fraction) / grid.specs.length
      cell.textContent = `running, ${Math.round(fraction * 100)}%`
    }
    say(0)
    progress.hidden = false
    try {
      const { row } = await runJob({ type: 'measure', file, spec, rounds }, 'row', (done, total) => say(done / total))
      measured.push(row)
    } catch (error) {
      $(rowId(spec)).dataset.state = 'failed'
      cell.textContent = (error as Error).message
      continue
    }
    show(markPareto(measured), name)
  }
  progress.hidden = true
  $('bench-stop').hidden = true
  status.textContent = `${name} (${formatBytes(file.size)}): ${measured.length} of ${grid.specs.length} rows measured${stopped ? ' (stopped)' : ''}.`
}

function queuedRow(spec: BenchSpec): HTMLTableRowElement {
  const tr = document.createElement('tr')
  tr.id = rowId(spec)
  tr.dataset.state = 'queued'
  const th = Object.assign(document.createElement('th'), { scope: 'row', textContent: labelOf(spec) })
  const state = Object.assign(document.createElement('td'), { className: 'state', colSpan: 6, textContent: 'queued' })
  tr.append(th, state)
  return tr
}

/** Fills the measured rows (Pareto marks change as rows arrive) and redraws the charts. */
function show(rows: ReturnType<typeof markPareto<BenchMeasure>>, name: string): void {
  for (const row of rows) {
    const tr = $<HTMLTableRowElement>(rowId(row))
    const marks = [row.paretoEncode && 'encode', row.paretoDecode && 'decode'].filter(Boolean).join(', ')
    const cells = [
      `${row.outputBytes.toLocaleString('en')} B`,
      formatRatio(row.inputBytes, row.outputBytes),
      mbps(row.encodeMBps, row.encodeMBpsMin, row.encodeMBpsMax),
      mbps(row.decodeMBps, row.decodeMBpsMin, row.decodeMBpsMax),
      marks === '' ? '–' : `★ ${marks}`,
    ].map((text) => Object.assign(document.createElement('td'), { textContent: text }))
    const download = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Download', className: 'download' })
    download.setAttribute('aria-label', `Download ${name} as ${labelOf(row)}`)
    download.addEventListener('click', () => void downloadRow(row, download))
    const last = document.createElement('td')
    last.append(download)
    tr.replaceChildren(tr.querySelector('th')!, ...cells, last)
    tr.style.setProperty('--format', colourOf(row.format, palette))
    Object.assign(tr.dataset, { state: 'done', format: row.format, level: String(row.level), threads: String(row.threads), bytes: String(row.outputBytes), pareto: String(row.pareto) })
  }
  const point = (speed: (r: BenchMeasure) => number, front: (r: (typeof rows)[number]) => boolean) =>
    rows.map((r): ChartPoint => ({ id: rowId(r), label: labelOf(r), mark: String(r.level), format: r.format, ratio: r.ratio, speed: speed(r), front: front(r) }))
  const highlight = (id: string | null) => {
    for (const tr of document.querySelectorAll('#results tr.highlight')) tr.classList.remove('highlight')
    if (id) $(id).classList.add('highlight')
  }
  const figure = (svg: SVGSVGElement) => {
    const f = document.createElement('figure')
    f.append(svg)
    return f
  }
  $('charts').replaceChildren(
    figure(ratioSpeedChart(point((r) => r.encodeMBps, (r) => r.paretoEncode), palette, `Ratio and encode speed, ${name}`, 'encode', highlight)),
    figure(ratioSpeedChart(point((r) => r.decodeMBps, (r) => r.paretoDecode), palette, `Ratio and decode speed, ${name}`, 'decode', highlight)),
    legend(rows.map((r) => r.format)),
  )
  // The table's whole, as `sluice bench --json` and `--csv` print it.
  const ordered = rows.map((row) => Object.fromEntries(CSV_COLUMNS.map((c) => [c, c === 'file' ? name : row[c as keyof typeof row]])) as unknown as BenchRow)
  setLink($<HTMLAnchorElement>('bench-json'), new Blob([`${JSON.stringify(ordered, null, 2)}\n`], { type: 'application/json' }), `${name}.bench.json`)
  setLink($<HTMLAnchorElement>('bench-csv'), new Blob([toCsv(ordered)], { type: 'text/csv' }), `${name}.bench.csv`)
  $('bench-exports').hidden = false
}

function legend(formats: string[]): HTMLElement {
  const list = document.createElement('ul')
  list.className = 'legend'
  list.setAttribute('aria-label', 'Formats in the charts')
  for (const format of new Set(formats)) {
    const item = Object.assign(document.createElement('li'), { textContent: format })
    item.style.setProperty('--format', colourOf(format, palette))
    list.append(item)
  }
  const note = Object.assign(document.createElement('li'), { textContent: 'filled: on the Pareto front', className: 'front-note' })
  list.append(note)
  return list
}

function setLink(a: HTMLAnchorElement, blob: Blob, name: string): void {
  if (a.href.startsWith('blob:')) URL.revokeObjectURL(a.href)
  a.href = URL.createObjectURL(blob)
  a.download = name
}

/** Encodes the row's bytes in a worker, then saves them as `<name><suffix>`. */
async function downloadRow(spec: BenchSpec, button: HTMLButtonElement): Promise<void> {
  if (!input) return
  button.disabled = true
  button.textContent = 'Encoding…'
  try {
    const { blob } = await runJob({ type: 'encode', file: input.file, spec }, 'encoded')
    const a = document.createElement('a')
    setLink(a, blob, `${input.name}${suffixOf(spec.format) ?? `.${spec.format}`}`)
    document.body.append(a)
    a.click()
    a.remove()
    setTimeout(() => URL.revokeObjectURL(a.href), 60_000)
    button.textContent = 'Download'
  } catch (error) {
    button.textContent = `Failed: ${(error as Error).message}`
  } finally {
    button.disabled = false
  }
}
