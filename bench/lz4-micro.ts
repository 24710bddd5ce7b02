// Quick LZ4 comparison in one process: sluice's lz4 frame codec vs lz4js and lz4-napi
// on ~16 MB real corpora (BENCH_MB to change). Prints MB/s (uncompressed bytes per
// second of CPU time, best of runs) and ratios to the peers measured in the same run.
// Usage: node --import tsx bench/lz4-micro.ts [text|binary|json ...]
import { createRequire } from 'node:module'
import { lz4 } from '../lib/codecs/lz4.js'
import type { Decoder, Encoder } from '../lib/codec.js'
import { Status } from '../lib/status.js'
import { corpus } from './corpus.js'

const require = createRequire(import.meta.url)
const lz4js = require('lz4js') as { compress(d: Uint8Array): Uint8Array; decompress(d: Uint8Array, max?: number): Uint8Array }
const napi = require('lz4-napi') as {
  compressFrameSync(d: Buffer, o?: { contentChecksum?: boolean }): Buffer
  decompressFrameSync(d: Buffer): Buffer
}

/**
 * MB/s from process CPU time (user + system), best of several runs: this machine is
 * shared with other jobs (load 5-18), which skews wall-clock time far more than CPU time.
 */
function time(fn: () => void, bytes: number): number {
  const cpu = (): number => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  fn()
  let best = Infinity
  const start = performance.now()
  for (let n = 0; n < 5 || (performance.now() - start < 1500 && n < 20); n++) {
    const t0 = cpu()
    fn()
    best = Math.min(best, cpu() - t0)
  }
  return bytes / 1e6 / (best / 1000)
}

function encodeOneShot(enc: Encoder, data: Uint8Array, dst: Uint8Array): number {
  enc.reset()
  if (enc.transform(data, dst, true) !== Status.Done) throw new Error('encode did not finish in one call')
  return enc.written
}

function decodeExact(dec: Decoder, frame: Uint8Array, dst: Uint8Array): void {
  dec.reset()
  const s = dec.transform(frame, dst, true)
  if (s !== Status.Done || dec.written !== dst.length) throw new Error(`decode status ${s}, ${dec.written} of ${dst.length}`)
}

function decodeStreaming(dec: Decoder, frame: Uint8Array, chunk: number, dst: Uint8Array): number {
  dec.reset()
  let total = 0
  let src = frame.subarray(0, 0)
  let pos = 0
  let pend: Uint8Array | null = null
  for (;;) {
    if (src.length === 0 || pend) {
      const piece = frame.subarray(pos, pos + chunk)
      pos += piece.length
      src = pend ? Buffer.concat([pend, piece]) : piece
      pend = null
    }
    const s = dec.transform(src, dst, pos >= frame.length)
    total += dec.written
    src = src.subarray(dec.consumed)
    if (s === Status.Done) return total
    if (s === Status.InvalidData) throw new Error(JSON.stringify(dec.failure))
    if (s === Status.NeedMoreData) pend = src.length ? src.slice() : null
    if (s === Status.NeedMoreData && pos >= frame.length) throw new Error('truncated')
  }
}

const names = process.argv.slice(2).length ? process.argv.slice(2) : ['text', 'binary']
for (const name of names) {
  const raw = corpus(name)
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.length)
  const out = new Uint8Array(raw.length + (raw.length >> 7) + 1024)
  const row = (label: string, mbps: number, extra = ''): void => console.log(`${name.padEnd(7)} ${label.padEnd(44)} ${mbps.toFixed(0).padStart(6)} MB/s ${extra}`)
  console.log(`# ${name}: ${raw.length} bytes`)

  // Encode.
  const results: Record<string, number> = {}
  for (const [label, opts] of [
    ['sluice encode 64K blocks, content checksum', {}],
    ['sluice encode 4M blocks, content checksum', { blockSize: 4194304 }],
    ['sluice encode 64K blocks, no checksum', { contentChecksum: false }],
    ['sluice encode level 3 (64Ki hash)', { level: 3 }],
  ] as const) {
    const enc = lz4.createEncoder(opts)
    let size = 0
    results[label] = time(() => (size = encodeOneShot(enc, raw, out)), raw.length)
    row(label, results[label]!, `ratio ${(size / raw.length).toFixed(3)}`)
  }
  let jsSize = 0
  const jsEnc = time(() => (jsSize = lz4js.compress(raw).length), raw.length)
  row('lz4js compress', jsEnc, `ratio ${(jsSize / raw.length).toFixed(3)}`)
  let napiSize = 0
  const napiEnc = time(() => (napiSize = napi.compressFrameSync(buf).length), raw.length)
  row('lz4-napi compressFrameSync', napiEnc, `ratio ${(napiSize / raw.length).toFixed(3)}`)
  const ours = results['sluice encode 64K blocks, content checksum']!
  console.log(`${name.padEnd(7)} encode ratio: ${(ours / jsEnc).toFixed(2)}x lz4js, ${(ours / napiEnc).toFixed(2)}x lz4-napi`)

  // Decode: the same frames (ours, 64 KiB blocks, content checksum) for everyone.
  const enc = lz4.createEncoder({})
  const frame = out.slice(0, encodeOneShot(enc, raw, out))
  const frameNoSum = (() => {
    const e = lz4.createEncoder({ contentChecksum: false })
    return out.slice(0, encodeOneShot(e, raw, out))
  })()
  const dec = lz4.createDecoder({})
  const dst = new Uint8Array(raw.length)
  const dExact = time(() => decodeExact(dec, frame, dst), raw.length)
  if (Buffer.compare(Buffer.from(dst), buf) !== 0) throw new Error('mismatch')
  row('sluice decode exact dst, content checksum', dExact)
  const dNoSum = time(() => decodeExact(dec, frameNoSum, dst), raw.length)
  row('sluice decode exact dst, no checksum', dNoSum)
  const chunkDst = new Uint8Array(65536)
  const dStream = time(() => decodeStreaming(dec, frame, 65536, chunkDst), raw.length)
  row('sluice decode 64 KiB chunks in and out', dStream)
  const jsDec = time(() => lz4js.decompress(frame, raw.length), raw.length)
  row('lz4js decompress (given size)', jsDec)
  const jsDecNoSize = time(() => lz4js.decompress(frame), raw.length)
  row('lz4js decompress (no size, as apache-arrow calls it)', jsDecNoSize)
  const fb = Buffer.from(frame)
  const napiDec = time(() => napi.decompressFrameSync(fb), raw.length)
  row('lz4-napi decompressFrameSync', napiDec)
  console.log(`${name.padEnd(7)} decode ratio (exact, checksum): ${(dExact / jsDec).toFixed(2)}x lz4js given size, ${(dExact / jsDecNoSize).toFixed(2)}x lz4js without, ${(dExact / napiDec).toFixed(2)}x lz4-napi; streaming ${(dStream / jsDec).toFixed(2)}x lz4js given size`)
}
