/**
 * The inspect panel: a compressed file (chosen or dropped) is inspected and decoded in a
 * worker (jobs.ts, worker.ts): its kind, what `sluice inspect` prints of it (gzip header
 * fields, zstd frames and seek tables, LZ4 frames, Arrow IPC batches, Parquet footers),
 * and its decoded size, ratio and bytes.
 */
import { formatBytes, formatOfName, formatRatio } from 'sluice/inspect'
import { dropZone } from './bench-panel.js'
import { runJob } from './jobs.js'

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

/** Wires the panel's file input and drop zone. */
export function setUpInspect(): void {
  $<HTMLInputElement>('inspect-file').addEventListener('change', (e) => {
    const file = (e.target as HTMLInputElement).files?.[0]
    if (file) void show(file)
  })
  dropZone($('inspect-drop'), (file) => void show(file))
}

async function show(file: File): Promise<void> {
  const status = $('inspect-status')
  const kind = $('inspect-kind')
  const decoded = $('inspect-decoded')
  status.textContent = `Inspecting ${file.name} (${formatBytes(file.size)})…`
  kind.textContent = ''
  decoded.replaceChildren()
  $('inspect-text').textContent = ''
  try {
    const result = await runJob({ type: 'inspect', file, name: file.name }, 'inspected')
    kind.textContent = result.kind ?? 'not a kind inspect knows'
    $('inspect-text').textContent = result.text
    if (result.decoded) {
      const size = result.decoded.size
      const a = Object.assign(document.createElement('a'), { href: URL.createObjectURL(result.decoded), download: formatOfName(file.name)?.stem ?? `${file.name}.out`, textContent: 'Download the decoded bytes' })
      const summary = Object.assign(document.createElement('span'), { id: 'inspect-decoded-bytes', textContent: `Decoded: ${size.toLocaleString('en')} B (${formatBytes(size)}), ratio ${formatRatio(size, file.size)}. ` })
      summary.dataset.bytes = String(size)
      decoded.append(summary, a, preview(await result.decoded.slice(0, 2048).arrayBuffer()))
    } else if (result.decodeError) {
      decoded.textContent = `Not decoded: ${result.decodeError}`
    } else {
      decoded.textContent = 'A container of compressed parts, not a compressed stream: its report above is what there is to see.'
    }
    status.textContent = `${file.name}: done.`
  } catch (error) {
    status.textContent = `${file.name}: ${(error as Error).message}`
  }
}

/** The first decoded bytes as text when they are UTF-8, else nothing. */
function preview(head: ArrayBuffer): HTMLElement {
  const pre = document.createElement('pre')
  pre.className = 'preview'
  try {
    // A character cut at the 2 KiB boundary is not an error: `stream` leaves it pending.
    pre.textContent = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true })
    pre.setAttribute('aria-label', 'The first decoded bytes')
  } catch {
    pre.hidden = true
  }
  return pre
}
