/**
 * The ratio-versus-speed chart, our own SVG (no chart library): speed on a log scale
 * across, ratio up, one point per bench row coloured by format, the Pareto front drawn
 * through the rows no other row beats on both. Accessible by construction: the `<svg>`
 * carries a `<title>` and a `<desc>` (which points to the results table, the chart's
 * accessible alternative), and every point is focusable (Tab) with a label that says
 * its format, level, ratio, speed and whether it is on the front; focusing or hovering a
 * point calls `onPoint`, which the page uses to highlight the table row.
 */

/** One point: a bench row as the chart needs it. */
export interface ChartPoint {
  /** The table row's id. */
  id: string
  /** `zstd -3`, `gzip -6 -T2`. */
  label: string
  /** What is written beside the point (its level): the colour says the format. */
  mark: string
  format: string
  ratio: number
  /** MB/s (10^6 bytes per second) of input. */
  speed: number
  /** On this chart's Pareto front. */
  front: boolean
}

const SVG = 'http://www.w3.org/2000/svg'
const WIDTH = 460
const HEIGHT = 300
const MARGIN = { left: 52, right: 14, top: 14, bottom: 44 }
/**
 * Okabe and Ito's colour-blind-safe hues, darkened where needed to 3:1 or more against
 * white (WCAG 1.4.11, graphics): blue, vermillion, bluish green, reddish purple, black,
 * ochre (their orange), grey. A run of more formats than colours repeats them; the
 * labels and the table tell them apart.
 */
const PALETTE = ['#0072B2', '#D55E00', '#007A5A', '#B2507F', '#000000', '#8F6A00', '#5E5E5E']

let charts = 0

/** The colour of `format`, by its place in `formats` (the same on every chart and legend). */
export function colourOf(format: string, formats: readonly string[]): string {
  return PALETTE[Math.max(0, formats.indexOf(format)) % PALETTE.length]!
}

function el<K extends keyof SVGElementTagNameMap>(name: K, attributes: Record<string, string | number>, parent?: Element): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, name)
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v))
  parent?.appendChild(node)
  return node
}

/** 1, 2, 5, 10, 20, 50 ... within [lo, hi], for a log axis. */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = []
  for (let decade = 10 ** Math.floor(Math.log10(lo)); decade <= hi; decade *= 10) {
    for (const m of [1, 2, 5]) if (decade * m >= lo && decade * m <= hi) ticks.push(decade * m)
  }
  return ticks
}

/** About five round steps across [lo, hi], for a linear axis. */
function linearTicks(lo: number, hi: number): number[] {
  const raw = (hi - lo) / 5
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!
  const ticks: number[] = []
  for (let t = Math.ceil(lo / step) * step; t <= hi + step / 1e6; t += step) ticks.push(Number(t.toPrecision(6)))
  return ticks
}

const speedText = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toPrecision(2))

/**
 * An SVG chart of `points`: `title` names it (`Ratio and encode speed`), `speedName`
 * the speed (`encode`).
 */
export function ratioSpeedChart(points: readonly ChartPoint[], formats: readonly string[], title: string, speedName: string, onPoint: (id: string | null) => void): SVGSVGElement {
  const n = ++charts
  const svg = el('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'group', 'aria-labelledby': `chart-${n}-title chart-${n}-desc`, class: 'chart' })
  el('title', { id: `chart-${n}-title` }, svg).textContent = title
  const front = points.filter((p) => p.front).sort((a, b) => a.speed - b.speed)
  el('desc', { id: `chart-${n}-desc` }, svg).textContent =
    `${points.length} rows: ${speedName} speed in MB/s across (log scale), ratio up. ` +
    `The Pareto front (no other row is both faster and smaller) runs through ${front.map((p) => p.label).join(', ') || 'no row'}. ` +
    'Each point can be focused with Tab; the results table below lists the same rows.'

  const speeds = points.map((p) => p.speed).filter((s) => s > 0)
  const ratios = points.map((p) => p.ratio)
  const [sLo, sHi] = [Math.min(...speeds) / 1.5, Math.max(...speeds) * 1.5]
  const pad = Math.max(0.05, (Math.max(...ratios) - Math.min(...ratios)) * 0.08)
  const [rLo, rHi] = [Math.max(0, Math.min(...ratios) - pad), Math.max(...ratios) + pad]
  const x = (s: number) => MARGIN.left + ((Math.log10(Math.max(s, sLo)) - Math.log10(sLo)) / (Math.log10(sHi) - Math.log10(sLo))) * (WIDTH - MARGIN.left - MARGIN.right)
  const y = (r: number) => HEIGHT - MARGIN.bottom - ((r - rLo) / (rHi - rLo)) * (HEIGHT - MARGIN.top - MARGIN.bottom)

  // Axes and grid: the desc says what they say, so assistive technology skips them.
  const axes = el('g', { class: 'axes', 'aria-hidden': 'true' }, svg)
  for (const t of logTicks(sLo, sHi)) {
    el('line', { x1: x(t), x2: x(t), y1: MARGIN.top, y2: HEIGHT - MARGIN.bottom, class: 'grid' }, axes)
    el('text', { x: x(t), y: HEIGHT - MARGIN.bottom + 16, 'text-anchor': 'middle' }, axes).textContent = speedText(t)
  }
  for (const t of linearTicks(rLo, rHi)) {
    el('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(t), y2: y(t), class: 'grid' }, axes)
    el('text', { x: MARGIN.left - 6, y: y(t) + 4, 'text-anchor': 'end' }, axes).textContent = `×${t}`
  }
  el('text', { x: (MARGIN.left + WIDTH - MARGIN.right) / 2, y: HEIGHT - 8, 'text-anchor': 'middle', class: 'axis-name' }, axes).textContent = `${speedName} MB/s (log scale) →`
  el('text', { x: 14, y: (MARGIN.top + HEIGHT - MARGIN.bottom) / 2, 'text-anchor': 'middle', class: 'axis-name', transform: `rotate(-90 14 ${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2})` }, axes).textContent = 'ratio (original / compressed) →'

  // The front as a staircase: from each front row, across to the next faster one, then down.
  if (front.length > 1) {
    const steps = front.flatMap((p, i) => (i === 0 ? [[x(p.speed), y(p.ratio)]] : [[x(p.speed), y(front[i - 1]!.ratio)], [x(p.speed), y(p.ratio)]]))
    el('polyline', { points: steps.map(([a, b]) => `${a!.toFixed(1)},${b!.toFixed(1)}`).join(' '), class: 'front', 'aria-hidden': 'true' }, svg)
  }

  for (const p of points) {
    const label = `${p.label}: ratio ×${p.ratio}, ${speedName} ${speedText(p.speed)} MB/s${p.front ? ', on the Pareto front' : ''}`
    const g = el('g', { class: `point${p.front ? ' on-front' : ''}`, tabindex: 0, role: 'img', 'aria-label': label, 'data-row': p.id }, svg)
    el('title', {}, g).textContent = label
    const colour = colourOf(p.format, formats)
    el('circle', { cx: x(p.speed), cy: y(p.ratio), r: p.front ? 6 : 5, fill: p.front ? colour : '#fff', stroke: colour, 'stroke-width': 2 }, g)
    el('text', { x: x(p.speed) + 8, y: y(p.ratio) - 6, class: 'mark', fill: colour, 'aria-hidden': 'true' }, g).textContent = p.mark
    for (const event of ['focus', 'mouseenter']) g.addEventListener(event, () => onPoint(p.id))
    for (const event of ['blur', 'mouseleave']) g.addEventListener(event, () => onPoint(null))
  }
  return svg
}
