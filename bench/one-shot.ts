// One-shot calls against the kernels they run (issue 32, "one-shot calls at the kernel's
// speed"): for every format, the public `encode()`/`decode()` of the root entry on 8 MiB
// of text, beside the same format's span codec called directly (created once, reset,
// one `transform` into an output the caller allocates: exact size for decode, the
// format's bound for encode), and beside the peers the issue names: hysnappy and npm
// `snappy` for 'snappy-raw', lz4js for an LZ4 frame the lz4 CLI wrote.
//
// The headline rows are the public calls; "kernel" rows are what a user calling the codec
// by hand would get. Ratios are of medians of CPU time (bench/_measure.ts: the rows of a
// group alternate run by run, so they see the same load) from the same run; above 1 the
// public call is faster.
//
// Usage: node --import tsx --expose-gc bench/one-shot.ts [--rounds=N] [format ...]
// (default every format but the dictionary ones; `lz4` needs the lz4 CLI for its frame.)
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { snappyUncompress as hysnappyUncompress } from 'hysnappy'
import type { Decoder, Encoder, Format } from '../lib/codec.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { Status } from '../lib/status.js'
import { decode, encode } from '../streams/one-shot.js'
import { measure } from './_measure.js'
import { nodeModulesText } from './corpus.js'

const require = createRequire(import.meta.url)
const napiSnappy = require('snappy') as { uncompressSync(d: Uint8Array, o?: { asBuffer: boolean }): Buffer }
const lz4js = require('lz4js') as { decompress(d: Uint8Array, max?: number): Uint8Array }

const SIZE = 8 * 1024 * 1024
const FORMATS: Format[] = ['snappy-raw', 'snappy', 'lz4', 'lz4-block', 'zstd', 'gzip', 'deflate', 'deflate-raw', 'brotli']

/** Drives `codec` over all of `src` into `dst` (room enough); returns the bytes written. */
function run(codec: Decoder | Encoder, src: Uint8Array, dst: Uint8Array): number {
  codec.reset()
  let ip = 0
  let op = 0
  for (;;) {
    const s = codec.transform(src.subarray(ip), dst.subarray(op), true)
    ip += codec.consumed
    op += codec.written
    if (s === Status.Done) return op
    if (s !== Status.DestinationTooSmall || (codec.consumed === 0 && codec.written === 0)) throw new Error(`kernel stopped: status ${s} at ${ip}/${op}`)
  }
}

/** The same bytes, by value. */
function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))
}

type Row = [name: string, op: () => unknown]

async function group(title: string, bytes: number, rows: Row[], rounds: number): Promise<number[]> {
  const res = await measure(rows.map((r) => r[1]), rounds)
  const ref = res[0]!.ms
  console.log(`\n## ${title}`)
  for (let i = 0; i < rows.length; i++) {
    const { ms } = res[i]!
    const mbs = bytes / 1e6 / (ms / 1000)
    console.log(`${rows[i]![0].padEnd(44)} ${ms.toFixed(2).padStart(8)} ms ${mbs.toFixed(0).padStart(6)} MB/s   public ÷ this ${(ms / ref).toFixed(2)}×`)
  }
  return res.map((r) => r.ms)
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const rounds = Number(args.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 15)
  const picked = args.filter((a) => !a.startsWith('--')) as Format[]
  const formats = picked.length ? picked : FORMATS
  const raw = nodeModulesText(SIZE)
  console.log(`# one-shot vs kernel: ${raw.length} bytes of text, ${rounds} interleaved rounds, median CPU ms; node ${process.version}`)
  const summary: string[] = []
  for (const format of formats) {
    // Decode: the input as our encoder writes it, except LZ4 (the CLI's frame: no content size).
    const packed = format === 'lz4' ? new Uint8Array(execFileSync('lz4', ['-c', '-q'], { input: raw, maxBuffer: 2 * SIZE })) : await encode(format, raw)
    // lz4-block has no framing: the caller passes the size (as Parquet and Arrow do).
    const options = (format === 'lz4-block' ? { outputSize: raw.length } : {}) as object
    const dec = await createDecoder(format, options)
    const decRows: Row[] = [
      [`decode('${format}')`, () => decode(format, packed, options)],
      [`kernel: span decoder, exact output`, () => {
        const out = new Uint8Array(raw.length)
        if (run(dec, packed, out) !== raw.length) throw new Error('short')
        return out
      }],
    ]
    if (format === 'snappy-raw') {
      decRows.push(['hysnappy snappyUncompress (wasm)', () => hysnappyUncompress(packed, raw.length)])
      decRows.push(['snappy uncompressSync (napi-rs)', () => napiSnappy.uncompressSync(packed, { asBuffer: true })])
    }
    if (format === 'lz4') decRows.push(['lz4js decompress', () => lz4js.decompress(packed)])
    if (!same(await decode(format, packed, options), raw)) throw new Error(`${format}: decode differs`)
    const d = await group(`${format} decode (${packed.length} → ${raw.length} bytes)`, raw.length, decRows, rounds)
    let line = `${format.padEnd(12)} decode: public/kernel ${(d[1]! / d[0]!).toFixed(2)}×`
    if (format === 'snappy-raw') line += `, vs hysnappy ${(d[2]! / d[0]!).toFixed(2)}×, vs npm snappy ${(d[3]! / d[0]!).toFixed(2)}×`
    if (format === 'lz4') line += `, vs lz4js ${(d[2]! / d[0]!).toFixed(2)}×`

    const enc = await createEncoder(format)
    const room = new Uint8Array(run(enc, raw, new Uint8Array(raw.length * 2 + 65536)) + 65536)
    const encRows: Row[] = [
      [`encode('${format}')`, () => encode(format, raw)],
      [`kernel: span encoder, bound-size output`, () => {
        const out = new Uint8Array(room.length)
        return out.subarray(0, run(enc, raw, out))
      }],
    ]
    const e = await group(`${format} encode (${raw.length} bytes)`, raw.length, encRows, rounds)
    line += `; encode: public/kernel ${(e[1]! / e[0]!).toFixed(2)}×`
    summary.push(line)
  }
  console.log('\n# ratios (CPU time, same run; above 1: the public call is faster)')
  for (const s of summary) console.log(s)
}

await main()
