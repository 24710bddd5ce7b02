// Quick decode comparison of the js inflate against fflate, pako and node:zlib one-shot,
// same run, same inputs (raw deflate, level 6). Prints MB/s of uncompressed output and
// ratios (ours / theirs, > 1 means ours is faster). Usage: node --import tsx bench/inflate-micro.ts [MB per corpus, default 8]
import zlib from 'node:zlib'
import { join } from 'node:path'
import { gunzipSync as fflateGunzip, inflateSync as fflateInflate } from 'fflate'
import * as pako from 'pako'
import { Inflater } from '../lib/codecs/inflate.js'
import { crc32 } from '../lib/codecs/checksum.js'
import { gzip } from '../lib/codecs/gzip.js'
import { nodeCodec } from '../adapters/node/engine.js'
import type { Decoder } from '../lib/codec.js'
import { binarySlice, filesCorpus } from '../test/_corpus.js'
import { root } from '../test/_fixtures.js'

const mb = Number(process.argv[2] ?? 8)
const n = mb * 1_000_000
const corpora: Array<[string, Uint8Array]> = [
  ['node_modules .js/.d.ts text', filesCorpus(join(root, 'node_modules'), n, /\.(js|d\.ts)$/)],
  ['node binary (first MBs)', binarySlice(0, n)],
]

function ours(comp: Uint8Array, out: Uint8Array): number {
  const inf = new Inflater()
  inf.run(comp, 0, out, 0, 0)
  return inf.outPos
}

/** Our gzip decoder through the span API with 64 KiB in and out chunks (what a stream driver does). */
function oursChunked(comp: Uint8Array, dst: Uint8Array, d: Decoder = gzip.createDecoder({})): number {
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

/**
 * Best time of each engine over `rounds` rounds, the engines taking turns within each
 * round, so that load from other processes on this shared machine hits all alike.
 * Returns MB/s (uncompressed bytes) per engine.
 */
function race(engines: Array<[string, () => unknown]>, bytes: number, rounds = 7): Array<[string, number]> {
  const best = engines.map(() => Infinity)
  for (const [, fn] of engines) fn()
  for (let r = 0; r < rounds; r++) {
    engines.forEach(([, fn], k) => {
      // CPU time of this process (all engines here run on this thread): less skewed
      // than wall time when other jobs compete for the cores.
      const t = process.cpuUsage()
      fn()
      const d = process.cpuUsage(t)
      best[k] = Math.min(best[k]!, (d.user + d.system) / 1000)
    })
  }
  return engines.map(([name], k) => [name, bytes / best[k]! / 1000])
}

for (const [name, data] of corpora) {
  // Plain Uint8Array copies: a Buffer has another map, which makes element access polymorphic.
  const raw = new Uint8Array(zlib.deflateRawSync(data, { level: 6 }))
  const gz = new Uint8Array(zlib.gzipSync(data, { level: 6 }))
  const out = new Uint8Array(data.length)
  const dst64 = new Uint8Array(65536)
  // Correctness first.
  const len = ours(raw, out)
  if (len !== data.length || Buffer.compare(out, data) !== 0) throw new Error('ours decoded wrong bytes')
  if (oursChunked(gz, dst64) !== data.length) throw new Error('chunked decoded wrong length')
  const results = race(
    [
      ['sluice js raw (one span)', () => ours(raw, out)],
      ['sluice js raw + crc32 (= gzip one span)', () => (ours(raw, out), crc32(out))],
      ['sluice js gzip, 64 KiB spans', () => oursChunked(gz, dst64)],
      ['sluice node engine gzip, 64 KiB spans', () => oursChunked(gz, dst64, nodeCodec('gzip').createDecoder({}))],
      ['fflate inflateSync raw (given out)', () => fflateInflate(raw, { out })],
      ['fflate inflateSync raw', () => fflateInflate(raw)],
      ['pako inflateRaw', () => pako.inflateRaw(raw)],
      ['node:zlib inflateRawSync', () => zlib.inflateRawSync(raw)],
      // gzip members, whole: fflate does not verify the CRC-32; pako and node:zlib do.
      ['fflate gunzipSync', () => fflateGunzip(gz)],
      ['pako ungzip', () => pako.ungzip(gz)],
      ['node:zlib gunzipSync', () => zlib.gunzipSync(gz)],
    ],
    data.length,
  )
  const base = results[0]![1]
  console.log(`\n${name}: ${(data.length / 1e6).toFixed(1)} MB -> ${(raw.length / 1e6).toFixed(1)} MB`)
  for (const [engine, mbs] of results) console.log(`  ${engine.padEnd(42)} ${mbs.toFixed(0).padStart(5)} MB/s  ours/theirs ${(base / mbs).toFixed(2)}`)
}
