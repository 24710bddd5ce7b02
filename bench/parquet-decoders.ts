/**
 * One decoder of bench/parquet.ts, in a process of its own: each decoder's garbage is
 * collected on its own time (in one shared process, the megabytes hyparquet and
 * parquetjs leave behind were collected during the samples of whatever ran next).
 *
 * Started by bench/parquet.ts with the decoder's name; then answers messages:
 *   { load: path, columns }  -> { ok }: take the footer of that file (the last 8 bytes
 *                               say its length) and the columns a selective decode asks for
 *   { calibrate: warmMs, sampleMs } -> { batch }: warm up, choose the calls per sample
 *   { sample: true }         -> { ms }: CPU ms per call over one batch (after 2 ms
 *                               of untimed calls)
 * and { error } when the decoder throws.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { parquetMetadata as hyparquetMetadata } from 'hyparquet'
import * as wasm from 'parquet-wasm/node'
import { parquetMetadataSync } from '../lib/parquet/index.js'
import { ThriftCursor, skipStruct } from '../lib/parquet/thrift.js'

const require = createRequire(import.meta.url)
// parquetjs: the generated Thrift classes and its decode helper, as its reader uses them.
const parquetjsTypes = require('@dsnp/parquetjs/dist/gen-nodejs/parquet_types.js')
const parquetjsUtil = require('@dsnp/parquetjs/dist/lib/util.js')

/** The decoders, by name: each gets the footer with its trailer (`tail`) and the footer alone (`thrift`). */
const decoders: Record<string, (tail: Uint8Array, thrift: Uint8Array, columns: string[]) => () => unknown> = {
  floor: (_tail, thrift) => () => skipStruct(new ThriftCursor(thrift)),
  full: (tail) => () => parquetMetadataSync(tail),
  selective: (tail, _thrift, columns) => () => parquetMetadataSync(tail, { columns, statistics: false }),
  hyparquet: (tail) => () => hyparquetMetadata(tail.buffer as ArrayBuffer),
  'parquet-wasm': (tail) => () => wasm.readSchema(tail).free(),
  parquetjs: (_tail, thrift) => () =>
    parquetjsUtil.decodeThrift(new parquetjsTypes.FileMetaData(), Buffer.from(thrift.buffer, thrift.byteOffset, thrift.length)),
}

const name = process.argv[2]!
const make = decoders[name]
if (make === undefined) throw new Error(`unknown decoder ${name}`)

const cpu = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

let fn: () => unknown = () => undefined
let batch = 1

function handle(message: { load?: string; columns?: string[]; calibrate?: number; sampleMs?: number; sample?: boolean }): unknown {
  if (message.load !== undefined) {
    fn = () => undefined // drop the last file's closure before reading the next
    const file = readFileSync(message.load)
    const n = file.length
    const footerLength = file.readUInt32LE(n - 8)
    // Only the footer and its trailer, copied into an ArrayBuffer of its own.
    const tail = new Uint8Array(file.subarray(n - 8 - footerLength))
    fn = make!(tail, tail.subarray(0, footerLength), message.columns ?? [])
    return { ok: true }
  }
  if (message.calibrate !== undefined) {
    // Warm-up: at least `calibrate` ms, and 2,000 calls unless that takes 5 times as
    // long. The optimizing compiler runs in a helper thread; on a loaded machine it
    // gets its turn late, and the first thousand calls of a selective decode of 100
    // columns ran 5 to 8 times slower than the rest.
    const start = performance.now()
    const warm = message.calibrate
    for (let i = 0, t = 0; i < 3 || t < warm || (i < 2000 && t < 5 * warm); i++, t = performance.now() - start) fn()
    const t0 = cpu()
    fn()
    const once = Math.max(cpu() - t0, 0.001)
    batch = Math.max(1, Math.min(10000, Math.ceil(message.sampleMs! / once)))
    return { batch }
  }
  if (message.sample) {
    // The process waited while the others took their samples, and its code and data
    // left the caches meanwhile: untimed calls (at least one, and 2 ms) bring them
    // back, so that every decoder is timed warm (decoding, not cache refills).
    const start = performance.now()
    do fn()
    while (performance.now() - start < 2)
    const t0 = cpu()
    for (let i = 0; i < batch; i++) fn()
    return { ms: (cpu() - t0) / batch }
  }
  throw new Error(`unknown message ${JSON.stringify(message)}`)
}

process.on('message', (message: Parameters<typeof handle>[0]) => {
  let reply: unknown
  try {
    reply = handle(message)
  } catch (error) {
    reply = { error: String(error).slice(0, 200) }
  }
  process.send!(reply)
})
