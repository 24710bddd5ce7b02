/**
 * The page's Web Worker: every codec call of the page runs here, off the main thread.
 * The page starts a fresh worker per job (engines keep their WebAssembly memory once
 * grown, so a row never inherits the rows before it) and ends it when the job is done.
 *
 * - `measure`: one bench row with `sluice bench`'s own measuring code
 *   (adapters/bench/measure.ts), so sizes and speeds are counted as the CLI counts them.
 * - `encode`: the bytes of one row, for its download: the encoder `sluice compress`
 *   uses, fed the same 1 MiB reads, so the file has the row's size.
 * - `inspect`: what `sluice inspect` says of a file, and its decoded bytes.
 */
import { decompress } from 'sluice'
import { inspect, inspectText, type InspectReport } from 'sluice/inspect'
import { compressPair, encoderOptions, READ_BYTES } from '../../adapters/bench/compress-plan.js'
import { measureRow, type BenchSpec } from '../../adapters/bench/measure.js'
import type { Reply, Job } from './messages.js'

const scope = self as unknown as { postMessage(message: Reply): void; onmessage: ((event: MessageEvent<Job>) => void) | null }

scope.onmessage = ({ data: job }) => {
  run(job).then(scope.postMessage, (error: unknown) => scope.postMessage({ type: 'error', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }))
}

async function run(job: Job): Promise<Reply> {
  const input = new Uint8Array(await job.file.arrayBuffer())
  if (job.type === 'measure') {
    const row = await measureRow(input, job.spec, { rounds: job.rounds, onProgress: (done, total) => scope.postMessage({ type: 'progress', done, total }) })
    return { type: 'row', row }
  }
  if (job.type === 'encode') return { type: 'encoded', blob: await encodeAsCompressDoes(input, job.spec) }
  return inspectAndDecode(job.file, job.name)
}

/** The bytes `sluice compress` writes for `spec`: its encoder, fed READ_BYTES at a time. */
async function encodeAsCompressDoes(input: Uint8Array, spec: BenchSpec): Promise<Blob> {
  const pair = compressPair(spec.format, encoderOptions(spec.format, { level: spec.level, threads: spec.threads }, input.length))
  const output = collect(pair.readable)
  const writer = pair.writable.getWriter()
  for (let at = 0; at < input.length; at += READ_BYTES) await writer.write(input.subarray(at, at + READ_BYTES))
  await writer.close()
  return output
}

/**
 * The inspect report and text, then the decoded bytes: `decompress()` detects the format
 * by its magic number, as `sluice decompress` does, but for brotli, which has none (the
 * report knows it by the `.br` suffix). Arrow IPC and Parquet are containers with
 * compressed parts, not compressed streams: their report is all there is.
 */
async function inspectAndDecode(file: Blob, name: string): Promise<Reply> {
  let report: InspectReport | null = null
  let text: string
  try {
    report = await inspect(file, { name })
    text = inspectText(report, name)
  } catch (error) {
    text = `${name}: ${error instanceof Error ? error.message : String(error)}`
  }
  if (report && /^(arrow|parquet)/.test(report.kind)) return { type: 'inspected', kind: report.kind, text, decoded: null, decodeError: null }
  try {
    const decoded = await collect(file.stream().pipeThrough(decompress(report?.kind === 'brotli' ? { format: 'brotli' } : {})))
    return { type: 'inspected', kind: report?.kind ?? null, text, decoded, decodeError: null }
  } catch (error) {
    return { type: 'inspected', kind: report?.kind ?? null, text, decoded: null, decodeError: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * The stream's chunks as a Blob, read with a reader: `new Response(stream).blob()` would
 * replace the codec's CodecError (its code and offset) with a TypeError of its own.
 */
async function collect(stream: ReadableStream<Uint8Array>): Promise<Blob> {
  const parts: Uint8Array[] = []
  const reader = stream.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value)
  return new Blob(parts as BlobPart[])
}
