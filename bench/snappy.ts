// Snappy: raw block decode and encode ('snappy-raw') and framing-format decode
// ('snappy') against hysnappy (google/snappy in wasm), npm `snappy` (napi-rs, native),
// snappyjs and hyparquet's JavaScript decoder, on 8 MiB of the text and binary corpora.
//
// Standalone (`node --import tsx --expose-gc bench/snappy.ts [--rounds=N] [text|binary]`)
// every row runs interleaved with the others in one process (A, B, C, A, B, C, ...
// after a warm-up round), timed by process CPU time, and the ratios to the peers are of
// medians from the same run. `npm run bench -- snappy` runs the same rows through
// bench/run.ts, one process per row (`snappyGroups` below).
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { snappyUncompress as hyparquetSnappy } from 'hyparquet'
import { snappyCompress as hysnappyCompress, snappyUncompress as hysnappyUncompress } from 'hysnappy'
import type { Decoder } from '../lib/codec.js'
import { snappy, snappyRaw } from '../lib/codecs/snappy.js'
import { loadSnappyWasm } from '../lib/codecs/snappy-wasm.js'
import { createSnappyTable, decodeBlockInto, encodeBlock, maxCompressedLength, readPreamble, type ElementState } from '../lib/codecs/snappy-block.js'
import { Status } from '../lib/status.js'
import { corpus } from './corpus.js'
import type { Group, Row } from './rows.js'

const require = createRequire(import.meta.url)
const napi = require('snappy') as { compressSync(d: Uint8Array): Buffer; uncompressSync(d: Uint8Array, o?: { asBuffer: boolean }): Buffer }
const snappyjs = require('snappyjs') as { compress(d: Uint8Array): Uint8Array; uncompress(d: Uint8Array): Uint8Array }

/** The workload: 8 MiB of each corpus (whatever BENCH_MB says, if it is larger). */
const SIZE = 8 * 1024 * 1024
const slice = (raw: Uint8Array): Uint8Array => raw.subarray(0, Math.min(SIZE, raw.length))

/** Our raw block of `raw` (the same bytes every decoder row decodes). */
function block(raw: Uint8Array): Uint8Array {
  const out = new Uint8Array(maxCompressedLength(raw.length))
  return out.slice(0, encodeBlock(raw, 0, raw.length, out, 0, createSnappyTable()))
}

/** Our framing stream of `raw` (64 KiB chunks). */
function frames(raw: Uint8Array): Uint8Array {
  const enc = snappy.createEncoder({})
  const out = new Uint8Array(Math.ceil(raw.length / 65536) * (8 + maxCompressedLength(65536)) + 64)
  if (enc.transform(raw, out, true) !== Status.Done) throw new Error('frame encode did not finish')
  return out.slice(0, enc.written)
}

/** Decodes `stream` fed in 64 KiB chunks into 64 KiB destinations, as a stream driver would. */
function decodeChunked(dec: Decoder, stream: Uint8Array, dst: Uint8Array, expected: number): void {
  dec.reset()
  let total = 0
  let pending: Uint8Array | null = null
  for (let pos = 0; ; ) {
    const piece = stream.subarray(pos, pos + 65536)
    pos += piece.length
    const final = pos >= stream.length
    let src: Uint8Array = pending ? concat(pending, piece) : piece
    for (;;) {
      const s = dec.transform(src, dst, final)
      total += dec.written
      src = src.subarray(dec.consumed)
      if (s === Status.Done) {
        if (total !== expected) throw new Error(`decoded ${total}, expected ${expected}`)
        return
      }
      if (s === Status.InvalidData) throw new Error(JSON.stringify(dec.failure))
      if (s === Status.NeedMoreData) break
    }
    pending = src.length ? src.slice() : null
    if (final) throw new Error('truncated')
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

const wasm = await loadSnappyWasm()

const row = (name: string, prepare: (raw: Uint8Array) => () => unknown): Row => ({ name, prepare: async (raw) => prepare(slice(raw)) })

/** Ours through the exact-size path hyparquet uses: preamble, one allocation, decode (TypeScript). */
function oursRaw(input: Uint8Array): Uint8Array {
  const p = { length: 0, size: 0 }
  readPreamble(input, 0, input.length, p)
  const out = new Uint8Array(p.length)
  if (decodeBlockInto(input, p.size, input.length, out, 0, p.length, state) !== p.length) throw new Error('decode failed')
  return out
}

/** The same with the wasm kernel. */
function oursRawWasm(input: Uint8Array): Uint8Array {
  const p = { length: 0, size: 0 }
  readPreamble(input, 0, input.length, p)
  const out = new Uint8Array(p.length)
  if (wasm.kernel.decodeInto(input, p.size, input.length, out, 0, p.length) !== p.length) throw new Error('decode failed')
  return out
}
const state: ElementState = { ip: 0, op: 0, literalLeft: 0, need: 0 }

export const snappyGroups: Group[] = [
  {
    name: 'snappy-raw decode (8 MiB)',
    corpora: ['text', 'binary'],
    reference: 'hysnappy snappyUncompress (wasm)',
    rows: [
      row('sluice snappy-raw, exact size (wasm)', (raw) => {
        const b = block(raw)
        return () => oursRawWasm(b)
      }),
      row('sluice snappy-raw, exact size (js)', (raw) => {
        const b = block(raw)
        return () => oursRaw(b)
      }),
      row('sluice snappy-raw span codec, 64 KiB chunks (js)', (raw) => {
        const b = block(raw)
        const dec = snappyRaw.createDecoder({})
        const dst = new Uint8Array(65536)
        return () => decodeChunked(dec, b, dst, raw.length)
      }),
      row('hysnappy snappyUncompress (wasm)', (raw) => {
        const b = block(raw)
        return () => hysnappyUncompress(b, raw.length)
      }),
      row('snappy uncompressSync (napi-rs)', (raw) => {
        const b = block(raw)
        return () => napi.uncompressSync(b, { asBuffer: true })
      }),
      row('snappyjs uncompress', (raw) => {
        const b = block(raw)
        return () => snappyjs.uncompress(b)
      }),
      row('hyparquet snappyUncompress (js)', (raw) => {
        const b = block(raw)
        return () => hyparquetSnappy(b, new Uint8Array(raw.length))
      }),
    ],
  },
  {
    name: 'snappy-raw encode (8 MiB)',
    corpora: ['text', 'binary'],
    reference: 'hysnappy snappyCompress (wasm)',
    rows: [
      row('sluice snappy-raw (js)', (raw) => {
        const table = createSnappyTable()
        const out = new Uint8Array(maxCompressedLength(raw.length))
        return () => encodeBlock(raw, 0, raw.length, out, 0, table)
      }),
      row('sluice snappy-raw (wasm)', (raw) => {
        const out = new Uint8Array(maxCompressedLength(raw.length))
        return () => {
          const enc = wasm.snappyRaw.createEncoder({})
          if (enc.transform(raw, out, true) !== Status.Done) throw new Error('encode did not finish')
          return enc.written
        }
      }),
      row('sluice snappy framing (wasm)', (raw) => {
        const out = new Uint8Array(Math.ceil(raw.length / 65536) * (8 + maxCompressedLength(65536)) + 64)
        return () => {
          const enc = wasm.snappy.createEncoder({})
          if (enc.transform(raw, out, true) !== Status.Done) throw new Error('encode did not finish')
          return enc.written
        }
      }),
      row('hysnappy snappyCompress (wasm)', (raw) => () => hysnappyCompress(raw)),
      row('snappy compressSync (napi-rs)', (raw) => () => napi.compressSync(raw)),
      row('snappyjs compress', (raw) => () => snappyjs.compress(raw)),
    ],
  },
  {
    name: 'snappy framing decode (8 MiB, 64 KiB chunks)',
    corpora: ['text', 'binary'],
    reference: 'sluice snappy-raw, exact size (wasm)',
    rows: [
      row('sluice snappy framing, 64 KiB chunks in and out (wasm)', (raw) => {
        const f = frames(raw)
        const dec = wasm.snappy.createDecoder({})
        const dst = new Uint8Array(65536)
        return () => decodeChunked(dec, f, dst, raw.length)
      }),
      row('sluice snappy-raw, exact size (wasm)', (raw) => {
        const b = block(raw)
        return () => oursRawWasm(b)
      }),
      row('sluice snappy framing, 64 KiB chunks in and out (js)', (raw) => {
        const f = frames(raw)
        const dec = snappy.createDecoder({})
        const dst = new Uint8Array(65536)
        return () => decodeChunked(dec, f, dst, raw.length)
      }),
      row('sluice snappy-raw, exact size (js)', (raw) => {
        const b = block(raw)
        return () => oursRaw(b)
      }),
    ],
  },
]

// ---------------------------------------------------------------------------------
// Standalone: interleaved rows in one process.

const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const rounds = Number(args.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 11)
  const names = args.filter((a) => !a.startsWith('--'))
  for (const name of names.length ? names : ['text', 'binary']) {
    const raw = slice(corpus(name))
    console.log(`\n# ${name}: ${raw.length} bytes, ${rounds} interleaved rounds, median MB/s by CPU time; sizes: ours ${block(raw).length}, hysnappy ${hysnappyCompress(raw).length}, napi ${napi.compressSync(raw).length}, snappyjs ${snappyjs.compress(raw).length}`)
    for (const group of snappyGroups) {
      const ops = await Promise.all(group.rows.map(async (r) => [r.name, await r.prepare(raw)] as const))
      const times = ops.map((): number[] => [])
      for (let round = -1; round < rounds; round++) {
        for (let k = 0; k < ops.length; k++) {
          const i = round % 2 ? ops.length - 1 - k : k
          const t0 = cpuMs()
          ops[i]![1]()
          if (round >= 0) times[i]!.push(cpuMs() - t0)
        }
      }
      const speed = times.map((t) => raw.length / 1e3 / Math.max(t.sort((a, b) => a - b)[t.length >> 1]!, 0.01))
      const ref = speed[ops.findIndex(([n]) => n === group.reference)]!
      console.log(`## ${group.name}`)
      ops.forEach(([n], i) => {
        const peers = ops.map(([m], j) => (j !== i && !m.startsWith('sluice') ? `${(speed[i]! / speed[j]!).toFixed(2)}x ${m.split(' ')[0]}` : '')).filter(Boolean)
        console.log(`${n.padEnd(56)} ${speed[i]!.toFixed(0).padStart(5)} MB/s  ${(speed[i]! / ref).toFixed(2)}x ref${n.startsWith('sluice') ? '  ' + peers.join(', ') : ''}`)
      })
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
