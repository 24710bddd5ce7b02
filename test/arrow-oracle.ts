// Shared by the arrow-*.test.ts files: apache-arrow's own reader as the oracle (with the
// peer codecs lz4js and zstd-codec registered, as its docs suggest), value-by-value
// table comparison, and chunked ReadableStreams. (bench/arrow.ts registers the same
// peers itself, in bench/_arrow-peers.ts.)
import { createRequire } from 'node:module'
import { CompressionType, compressionRegistry, tableFromIPC, Table, type RecordBatch } from 'apache-arrow'
import { collect } from '../bench/corpus.js'

/** Every chunk of a stream, in order (the benches' helper). */
export { collect }

const require = createRequire(import.meta.url)

interface ZstdSimple {
  compress(data: Uint8Array, level?: number): Uint8Array
  decompress(data: Uint8Array): Uint8Array
}

let zstdSimple: ZstdSimple | null = null

/**
 * Loads zstd-codec. Its module is an emscripten thenable that hangs when awaited
 * (BASELINES.md), so it is wrapped in a plain promise through `run(callback)`.
 */
export function loadZstdCodec(): Promise<ZstdSimple> {
  if (zstdSimple) return Promise.resolve(zstdSimple)
  const { ZstdCodec } = require('zstd-codec') as { ZstdCodec: { run(cb: (z: { Simple: new () => ZstdSimple }) => void): void } }
  return new Promise((resolve) => ZstdCodec.run((z) => resolve((zstdSimple = new z.Simple()))))
}

/** Registers lz4js and zstd-codec in apache-arrow's (ESM) compressionRegistry. */
export async function registerPeerCodecs(): Promise<void> {
  const lz4js = require('lz4js') as { compress(d: Uint8Array): Uint8Array; decompress(d: Uint8Array): Uint8Array }
  const zstd = await loadZstdCodec()
  compressionRegistry.set(CompressionType.LZ4_FRAME, {
    encode: (d) => Uint8Array.from(lz4js.compress(d)),
    decode: (d) => Uint8Array.from(lz4js.decompress(d)),
  })
  compressionRegistry.set(CompressionType.ZSTD, {
    encode: (d) => zstd.compress(d, 3),
    decode: (d) => zstd.decompress(d),
  })
}

/** apache-arrow's reading of `bytes`, or the error message. */
export function oracle(bytes: Uint8Array): Table | string {
  try {
    return tableFromIPC(bytes)
  } catch (e) {
    return (e as Error).message
  }
}

/** A ReadableStream of copies of `bytes` in chunks of `size` bytes. */
export function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      // Enqueue a burst per pull so 1-byte chunking does not take a promise per byte.
      for (let k = 0; k < 64 && at < bytes.length; k++) {
        controller.enqueue(bytes.slice(at, at + size))
        at += size
      }
    },
  })
}


/** A JSON-comparable form of any value apache-arrow returns from `get()`. */
export function normalize(v: unknown): unknown {
  if (v === null || v === undefined) return null
  if (typeof v === 'bigint') return `${v}n`
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : v
  if (typeof v !== 'object') return v
  if (v instanceof Date) return `date:${v.getTime()}`
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number | bigint>, normalize)
  if (Array.isArray(v)) return v.map(normalize)
  const o = v as { toArray?: () => unknown; toJSON?: () => unknown; [Symbol.iterator]?: unknown }
  if (typeof o.toArray === 'function' && typeof (o as { get?: unknown }).get === 'function' && 'type' in o) return normalize(Array.from(o as Iterable<unknown>))
  if (typeof o.toJSON === 'function') return normalize(o.toJSON())
  if (v instanceof Map) return [...v].map(([k, x]) => [normalize(k), normalize(x)])
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x)]))
}

/** Describes the first difference between two tables, or returns null when equal. */
export function diffTables(ours: Table | RecordBatch[], theirs: Table): string | null {
  const a = Array.isArray(ours) ? (ours.length ? new Table(ours) : null) : ours
  if (a === null) return theirs.numRows === 0 ? null : `ours has no batches, theirs ${theirs.numRows} rows`
  if (String(a.schema) !== String(theirs.schema)) return `schema ${String(a.schema)} != ${String(theirs.schema)}`
  if (a.numRows !== theirs.numRows) return `rows ${a.numRows} != ${theirs.numRows}`
  for (let c = 0; c < theirs.numCols; c++) {
    const x = a.getChildAt(c)!
    const y = theirs.getChildAt(c)!
    if (x.nullCount !== y.nullCount) return `column ${c}: null count ${x.nullCount} != ${y.nullCount}`
    for (let i = 0; i < theirs.numRows; i++) {
      const p = JSON.stringify(normalize(x.get(i)))
      const q = JSON.stringify(normalize(y.get(i)))
      if (p !== q) return `column ${c} (${theirs.schema.fields[c]!.name}) row ${i}: ${p} != ${q}`
    }
  }
  return null
}
