// Decode comparison of our two inflate engines (js, wasm) against fflate, pako, node:zlib
// and the native DecompressionStream, same run, same inputs (level 6): span API (one
// span, and 64 KiB spans as a stream driver feeds them) and whole streams through
// pipeThrough with 64 KiB input chunks. The engines take turns within each round, so
// load from other processes on this shared machine hits all alike; the time is this
// process's CPU time (incl. the threads node:zlib's async streams use), best of N
// rounds. Prints MB/s of uncompressed output and ratios to the wasm stream row and to
// DecompressionStream.
//
// Usage: node --import tsx bench/inflate-micro.ts [MB per corpus, default 8] [rounds, default 7]
import zlib from 'node:zlib'
import { join } from 'node:path'
import { gunzipSync as fflateGunzip, inflateSync as fflateInflate } from 'fflate'
import * as pako from 'pako'
import { Inflater } from '../lib/codecs/inflate.js'
import { crc32 } from '../lib/codecs/checksum.js'
import { gzip } from '../lib/codecs/deflate-js.js'
import { loadDeflateWasm } from '../lib/codecs/deflate-wasm.js'
import { nodeCodec } from '../adapters/node/engine.js'
import type { Decoder } from '../lib/codec.js'
import * as sluice from '../streams/index.js'
import { binarySlice, chunks, drain, filesCorpus, root, streamOf } from './corpus.js'

const mb = Number(process.argv[2] ?? 8)
const rounds = Number(process.argv[3] ?? 7)
const n = mb * 1_000_000
const corpora: Array<[string, Uint8Array]> = [
  ['node_modules .js/.d.ts text', filesCorpus(join(root, 'node_modules'), n, /\.(js|d\.ts)$/)],
  ['node binary (first MBs)', binarySlice(0, n)],
]
const wasm = await loadDeflateWasm()

function ours(comp: Uint8Array, out: Uint8Array): number {
  const inf = new Inflater()
  inf.run(comp, 0, out, 0, 0)
  return inf.outPos
}

/** A gzip decoder through the span API with 64 KiB input spans (what a stream driver does). */
function chunked(comp: Uint8Array, dst: Uint8Array, d: Decoder): number {
  let i = 0
  let total = 0
  for (;;) {
    const end = Math.min(comp.length, i + 65536)
    const s = d.transform(comp.subarray(i, end), dst, end === comp.length)
    i += d.consumed
    total += d.written
    if (s === 0 || s === 3) {
      d.dispose()
      return total
    }
  }
}

/** The whole member in one span (dst holds all of it). */
function oneSpan(comp: Uint8Array, dst: Uint8Array, d: Decoder): number {
  d.transform(comp, dst, true)
  d.dispose()
  return d.written
}

async function stream(parts: Uint8Array[], make: () => TransformStream<Uint8Array, Uint8Array>, expected: number): Promise<void> {
  const got = await drain(streamOf(parts).pipeThrough(make()))
  if (got !== expected) throw new Error(`stream gave ${got} bytes, expected ${expected}`)
}

/**
 * Best CPU time of each engine over `rounds` rounds, engines taking turns within each
 * round. Returns MB/s (uncompressed bytes) per engine.
 */
async function race(engines: Array<[string, () => unknown]>, bytes: number): Promise<Array<[string, number]>> {
  const best = engines.map(() => Infinity)
  for (const [, fn] of engines) await fn()
  for (const [, fn] of engines) await fn()
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < engines.length; k++) {
      const t = process.cpuUsage()
      await engines[k]![1]()
      const d = process.cpuUsage(t)
      best[k] = Math.min(best[k]!, (d.user + d.system) / 1000)
    }
  }
  return engines.map(([name], k) => [name, bytes / best[k]! / 1000])
}

const WASM_STREAM = 'sluice gzipDecode stream, engine wasm'
const NATIVE_STREAM = 'DecompressionStream (native)'

for (const [name, data] of corpora) {
  // Plain Uint8Array copies: a Buffer has another map, which makes element access polymorphic.
  const raw = new Uint8Array(zlib.deflateRawSync(data, { level: 6 }))
  const gz = new Uint8Array(zlib.gzipSync(data, { level: 6 }))
  const parts = chunks(gz)
  const out = new Uint8Array(data.length)
  const dst256 = new Uint8Array(256 * 1024)
  // Correctness first.
  if (ours(raw, out) !== data.length || Buffer.compare(out, data) !== 0) throw new Error('js decoded wrong bytes')
  out.fill(0)
  if (oneSpan(gz, out, wasm.gzip.createDecoder({})) !== data.length || Buffer.compare(out, data) !== 0) throw new Error('wasm decoded wrong bytes')
  if (chunked(gz, dst256, wasm.gzip.createDecoder({})) !== data.length) throw new Error('wasm chunked decoded wrong length')
  const results = await race(
    [
      [WASM_STREAM, () => stream(parts, () => sluice.gzipDecode({ engine: 'wasm' }), data.length)],
      ['sluice gzipDecode stream, engine js', () => stream(parts, () => sluice.gzipDecode({ engine: 'js' }), data.length)],
      ['sluice gzipDecode stream, engine node', () => stream(parts, () => sluice.gzipDecode({ engine: 'node' }), data.length)],
      [NATIVE_STREAM, () => stream(parts, () => new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>, data.length)],
      ['sluice wasm gzip, one span', () => oneSpan(gz, out, wasm.gzip.createDecoder({}))],
      ['sluice wasm gzip, 64 KiB in / 256 KiB out spans', () => chunked(gz, dst256, wasm.gzip.createDecoder({}))],
      ['sluice js gzip, 64 KiB in / 256 KiB out spans', () => chunked(gz, dst256, gzip.createDecoder({}))],
      ['sluice node engine gzip, 64 KiB / 256 KiB spans', () => chunked(gz, dst256, nodeCodec('gzip').createDecoder({}))],
      ['sluice js raw (one span)', () => ours(raw, out)],
      ['sluice js raw + crc32 (= gzip one span)', () => (ours(raw, out), crc32(out))],
      ['fflate inflateSync raw (given out)', () => fflateInflate(raw, { out })],
      ['pako inflateRaw', () => pako.inflateRaw(raw)],
      ['node:zlib inflateRawSync', () => zlib.inflateRawSync(raw)],
      // gzip members, whole: fflate does not verify the CRC-32; pako and node:zlib do.
      ['fflate gunzipSync', () => fflateGunzip(gz)],
      ['pako ungzip', () => pako.ungzip(gz)],
      ['node:zlib gunzipSync', () => zlib.gunzipSync(gz)],
    ],
    data.length,
  )
  const by = new Map(results)
  const base = by.get(WASM_STREAM)!
  const native = by.get(NATIVE_STREAM)!
  console.log(`\n${name}: ${(data.length / 1e6).toFixed(1)} MB -> ${(gz.length / 1e6).toFixed(1)} MB gzip; CPU time, best of ${rounds}`)
  console.log(`  ${'row'.padEnd(50)} ${'MB/s'.padStart(5)}  ${'vs native stream'.padStart(16)}  wasm stream / row`)
  for (const [engine, mbs] of results) {
    console.log(`  ${engine.padEnd(50)} ${mbs.toFixed(0).padStart(5)}  ${(mbs / native).toFixed(2).padStart(15)}x  ${(base / mbs).toFixed(2)}`)
  }
}
