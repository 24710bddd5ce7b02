// Parquet bench helpers shared by bench/parquet.ts and bench/parquet-cold.ts: the files
// (written by parquet-wasm or hyparquet-writer, cached in .tmp/parquet-bench/) and the
// decoder processes of bench/parquet-decoders.ts.
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs'
import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Int32, Int64, Table, Utf8, makeVector, tableToIPC, vectorFromArray } from 'apache-arrow'
import { parquetWriteBuffer } from 'hyparquet-writer'
import * as wasm from 'parquet-wasm/node'

export const cacheDir = join(import.meta.dirname, '..', '.tmp', 'parquet-bench')

export type Writer = 'parquet-wasm' | 'hyparquet-writer'

/**
 * The columns of a file:
 * - 'double-string': half float64 (DOUBLE), half utf8 (STRING), one distinct value per
 *   row; parquet-rs's defaults otherwise (dictionary encoding on).
 * - 'mixed': in turn float64, utf8 with 4 distinct values (dictionary-encoded), int64
 *   (plain: dictionary off), utf8 with one distinct value per row (plain), int32 with 4
 *   distinct values (dictionary-encoded); parquet-wasm only.
 */
export type Mix = 'double-string' | 'mixed'

export interface Spec {
  key: string
  name: string
  columns: number
  rowGroups: number
  writer: Writer
  /** Default 'double-string'. */
  mix?: Mix
  /** Rows per file; default: one per row group with several groups, else 3. */
  rows?: number
}

function rowCount(spec: Spec): number {
  return spec.rows ?? (spec.rowGroups > 1 ? spec.rowGroups : 3)
}

/** Column `i`, row `r` of a 'double-string' file: a double in even columns, a string in odd ones. */
function value(i: number, r: number): number | string {
  return i % 2 === 0 ? (i + 1) * 0.5 + r : `v${i}-${r}`
}

const MIXED_KINDS = 5

/** The column of kind `i % MIXED_KINDS` of a 'mixed' file; `plain`: dictionary encoding off. */
function mixedColumn(i: number, rows: number): { vector: ReturnType<typeof makeVector>; plain: boolean } {
  switch (i % MIXED_KINDS) {
    case 0:
      return { vector: makeVector(Float64Array.from({ length: rows }, (_, r) => (i + 1) * 0.5 + r)), plain: false }
    case 1:
      return { vector: vectorFromArray(Array.from({ length: rows }, (_, r) => `cat-${i}-${r % 4}`), new Utf8()), plain: false }
    case 2:
      return { vector: vectorFromArray(Array.from({ length: rows }, (_, r) => BigInt(i * 1000 + r)), new Int64()), plain: true }
    case 3:
      return { vector: vectorFromArray(Array.from({ length: rows }, (_, r) => `value ${i} row ${r}`), new Utf8()), plain: true }
    default:
      return { vector: vectorFromArray(Array.from({ length: rows }, (_, r) => i + (r % 4)), new Int32()), plain: false }
  }
}

function writeWithParquetWasm(spec: Spec): Uint8Array {
  const rows = rowCount(spec)
  const vectors: Record<string, ReturnType<typeof makeVector>> = {}
  const plain: string[] = []
  for (let i = 0; i < spec.columns; i++) {
    if (spec.mix === 'mixed') {
      const column = mixedColumn(i, rows)
      vectors[`c${i}`] = column.vector
      if (column.plain) plain.push(`c${i}`)
    } else if (i % 2 === 0) {
      const values = new Float64Array(rows)
      for (let r = 0; r < rows; r++) values[r] = value(i, r) as number
      vectors[`c${i}`] = makeVector(values)
    } else {
      const values: string[] = []
      for (let r = 0; r < rows; r++) values.push(value(i, r) as string)
      vectors[`c${i}`] = vectorFromArray(values, new Utf8())
    }
  }
  const wasmTable = wasm.Table.fromIPCStream(tableToIPC(new Table(vectors), 'stream'))
  let props = new wasm.WriterPropertiesBuilder()
    .setMaxRowGroupSize(spec.rowGroups > 1 ? Math.ceil(rows / spec.rowGroups) : rows)
    .setCompression(wasm.Compression.UNCOMPRESSED)
  for (const name of plain) props = props.setColumnDictionaryEnabled(name, false)
  return wasm.writeParquet(wasmTable, props.build())
}

function writeWithHyparquetWriter(spec: Spec): Uint8Array {
  const rows = rowCount(spec)
  const columnData = []
  for (let i = 0; i < spec.columns; i++) {
    const data = Array.from({ length: rows }, (_, r) => value(i, r))
    columnData.push({ name: `c${i}`, data, type: i % 2 === 0 ? ('DOUBLE' as const) : ('STRING' as const) })
  }
  return new Uint8Array(
    parquetWriteBuffer({ columnData, codec: 'UNCOMPRESSED', statistics: true, rowGroupSize: spec.rowGroups > 1 ? 1 : rows }),
  )
}

/** Writes the file of `spec` unless it is in the cache; returns its path. */
export function generate(spec: Spec): string {
  mkdirSync(cacheDir, { recursive: true })
  const suffix = (spec.writer === 'parquet-wasm' ? '' : '-hw') + (spec.mix === 'mixed' ? `-mixed${rowCount(spec)}` : '')
  const path = join(cacheDir, `wide-${spec.columns}x${spec.rowGroups}${suffix}.parquet`)
  if (existsSync(path)) return path
  const t0 = performance.now()
  const bytes = spec.writer === 'parquet-wasm' ? writeWithParquetWasm(spec) : writeWithHyparquetWriter(spec)
  writeFileSync(path, bytes)
  // On stderr: stdout is the bench's markdown, which bench:docs writes into the guide.
  console.error(`# wrote ${path}: ${bytes.length} bytes in ${((performance.now() - t0) / 1000).toFixed(1)} s (${spec.writer})`)
  return path
}

/** The footer length, from the 8-byte trailer of the file at `path`. */
export function footerLength(path: string): number {
  const fd = openSync(path, 'r')
  try {
    const trailer = Buffer.alloc(8)
    readSync(fd, trailer, 0, 8, fstatSync(fd).size - 8)
    return trailer.readUInt32LE(0)
  } finally {
    closeSync(fd)
  }
}

/** A decoder process of bench/parquet-decoders.ts: one request at a time, answered in order. */
export class Decoder {
  readonly name: string
  readonly child: ChildProcess
  readonly #pending: ((reply: Record<string, unknown>) => void)[] = []
  /** Why it stopped answering (for the current file), if it did. */
  failed: string | null = null
  samples: number[] = []

  constructor(name: string) {
    this.name = name
    this.child = fork(join(import.meta.dirname, 'parquet-decoders.ts'), [name], {
      execArgv: ['--import', 'tsx', '--max-old-space-size=8192', ...(process.env.DECODER_FLAGS ?? '').split(' ').filter(Boolean)],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.child.on('message', (reply: Record<string, unknown>) => this.#pending.shift()?.(reply))
    this.child.on('exit', (code, signal) => {
      this.failed ??= `its process exited (${signal ?? code})`
      for (const resolve of this.#pending.splice(0)) resolve({ error: this.failed })
    })
  }

  async ask(message: object): Promise<Record<string, unknown>> {
    if (this.failed !== null) return { error: this.failed }
    const reply = await new Promise<Record<string, unknown>>((resolve) => {
      this.#pending.push(resolve)
      this.child.send(message)
    })
    if (reply.error !== undefined) this.failed = String(reply.error)
    return reply
  }
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function fmt(ms: number): string {
  return Number.isNaN(ms) ? 'n/a' : ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0)
}
