// The first calls of a fresh process: `decode(format, frame)` N times on M MiB of text,
// CPU time of each call. The first call loads, compiles and instantiates the engine's
// wasm and runs it before V8 has optimised it; the best of the later calls is the warm
// speed. Run it in two checkouts, alternating, to compare engine builds.
//
// Usage: node --import tsx bench/first-call.ts [MiB] [calls] [zstd|brotli]
import { createRequire } from 'node:module'
import zlib from 'node:zlib'
import { decodeWhole as decode } from '../lib/whole-buffer.js'
import { nodeModulesText } from './corpus.js'

const size = Number(process.argv[2] ?? 4) * 2 ** 20
const calls = Number(process.argv[3] ?? 25)
const format = (process.argv[4] ?? 'zstd') as 'zstd' | 'brotli'
const data = nodeModulesText(size)
const napi = createRequire(import.meta.url)('zstd-napi') as typeof import('zstd-napi')
const frame = format === 'zstd' ? new Uint8Array(napi.compress(data, { compressionLevel: 3 })) : new Uint8Array(zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }))
const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const mbps = (ms: number): number => Math.round(data.length / 1e3 / ms)
const times: number[] = []
for (let i = 0; i < calls; i++) {
  const t0 = cpuMs()
  const out = await decode(format, frame)
  times.push(cpuMs() - t0)
  if (out.length !== data.length) throw new Error(`${format}: ${out.length} bytes decoded, expected ${data.length}`)
}
const later = times.slice(3).sort((a, b) => a - b)
console.log(`${format} decode() of ${(size / 2 ** 20).toFixed(0)} MiB, CPU MB/s: first call ${mbps(times[0]!)}, best of calls 4-${calls} ${mbps(later[0]!)}, median ${mbps(later[later.length >> 1]!)}`)
console.log(`each call: ${times.map(mbps).join(' ')}`)
