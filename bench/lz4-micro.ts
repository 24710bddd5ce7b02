// Quick LZ4 comparison in one process: sluice's lz4 codecs (engine 'js' = TypeScript,
// engine 'wasm' = the same frame logic on the hand-written wasm kernel) vs lz4js,
// @foxglove/wasm-lz4 (liblz4's LZ4F_decompress in emscripten wasm) and lz4-napi, on ~16 MB
// real corpora (BENCH_MB to change). Prints MB/s (uncompressed bytes per second) from
// process CPU time (user + system) and from wall time, each the best of several runs,
// and ratios to the peers measured in the same run. CPU time is the figure to read: the
// machine is shared (load 5-18), which skews wall time far more.
//
// Usage: node --import tsx bench/lz4-micro.ts [--encode] [text|binary|json ...]
//   --encode   also measure encoders (ours vs lz4js vs lz4-napi)
import { createRequire } from 'node:module'
import type { Decoder, Encoder } from '../lib/codec.js'
import { lz4, lz4Block } from '../lib/codecs/lz4.js'
import { loadLz4Wasm } from '../lib/codecs/lz4-wasm.js'
const { lz4: lz4Wasm, lz4Block: lz4BlockWasm } = await loadLz4Wasm()
import { createHashTable, decodeBlock, encodeBlock, maxCompressedSize } from '../lib/codecs/lz4-block.js'
import { Status } from '../lib/status.js'
import { corpus } from './corpus.js'

const require = createRequire(import.meta.url)
const lz4js = require('lz4js') as { compress(d: Uint8Array): Uint8Array; decompress(d: Uint8Array, max?: number): Uint8Array }
const napi = require('lz4-napi') as {
  compressFrameSync(d: Buffer, o?: { contentChecksum?: boolean }): Buffer
  decompressFrameSync(d: Buffer): Buffer
  compressSync(d: Buffer): Buffer
  uncompressSync(d: Buffer): Buffer
}
const foxglove = require('@foxglove/wasm-lz4') as ((src: Uint8Array, size: number) => Buffer) & { isLoaded: Promise<boolean> }
await foxglove.isLoaded

interface Speed {
  /** MB/s from the best run's process CPU time. */
  cpu: number
  /** MB/s from the best run's wall time. */
  wall: number
}

/** Best-of-runs MB/s by CPU time and by wall time (each its own best). */
function time(fn: () => void, bytes: number): Speed {
  const cpu = (): number => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  fn()
  let bestCpu = Infinity
  let bestWall = Infinity
  const start = performance.now()
  for (let n = 0; n < 5 || (performance.now() - start < 1000 && n < 15); n++) {
    const c0 = cpu()
    const w0 = performance.now()
    fn()
    bestWall = Math.min(bestWall, performance.now() - w0)
    bestCpu = Math.min(bestCpu, cpu() - c0)
  }
  // process.cpuUsage() has microsecond resolution; guard against a 0 reading.
  return { cpu: bytes / 1e6 / (Math.max(bestCpu, 0.01) / 1000), wall: bytes / 1e6 / (bestWall / 1000) }
}

function encodeOneShot(enc: Encoder, data: Uint8Array, dst: Uint8Array): number {
  enc.reset()
  if (enc.transform(data, dst, true) !== Status.Done) throw new Error('encode did not finish in one call')
  return enc.written
}

function decodeExact(dec: Decoder, frame: Uint8Array, dst: Uint8Array): void {
  dec.reset()
  const s = dec.transform(frame, dst, true)
  if (s !== Status.Done || dec.written !== dst.length) throw new Error(`decode status ${s}, ${dec.written} of ${dst.length}: ${JSON.stringify(dec.failure)}`)
}

/** 64 KiB input chunks and a 64 KiB dst, as a stream driver would call the decoder. */
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

const args = process.argv.slice(2)
const withEncode = args.includes('--encode')
const names = args.filter((a) => !a.startsWith('--'))
for (const name of names.length ? names : ['text', 'binary']) {
  const raw = corpus(name)
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.length)
  const out = new Uint8Array(raw.length + (raw.length >> 7) + 1024)
  const row = (label: string, s: Speed, extra = ''): void =>
    console.log(`${name.padEnd(7)} ${label.padEnd(52)} cpu ${s.cpu.toFixed(0).padStart(5)} MB/s  wall ${s.wall.toFixed(0).padStart(5)} MB/s ${extra}`)
  console.log(`# ${name}: ${raw.length} bytes`)

  if (withEncode) {
    const results: Record<string, Speed> = {}
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
    console.log(`${name.padEnd(7)} encode ratio (cpu): ${(ours.cpu / jsEnc.cpu).toFixed(2)}x lz4js, ${(ours.cpu / napiEnc.cpu).toFixed(2)}x lz4-napi`)
  }

  // Frame decode: the same frames (ours, 64 KiB blocks) for everyone.
  const frame = out.slice(0, encodeOneShot(lz4.createEncoder({}), raw, out))
  const frameNoSum = out.slice(0, encodeOneShot(lz4.createEncoder({ contentChecksum: false }), raw, out))
  const dst = new Uint8Array(raw.length)
  const chunkDst = new Uint8Array(65536)
  const check = (label: string): void => {
    if (Buffer.compare(Buffer.from(dst.buffer, dst.byteOffset, dst.length), buf) !== 0) throw new Error(`${label}: output differs`)
    dst.fill(0)
  }
  const r: Record<string, Speed> = {}
  for (const [engine, mod] of [['js', lz4], ['wasm', lz4Wasm]] as const) {
    const dec = mod.createDecoder({})
    r[`${engine} sum`] = time(() => decodeExact(dec, frame, dst), raw.length)
    check(`${engine} exact`)
    row(`sluice ${engine.padEnd(4)} exact dst, content checksum`, r[`${engine} sum`]!)
    r[`${engine} nosum`] = time(() => decodeExact(dec, frameNoSum, dst), raw.length)
    check(`${engine} exact, no checksum`)
    row(`sluice ${engine.padEnd(4)} exact dst, no checksum`, r[`${engine} nosum`]!)
    r[`${engine} stream`] = time(() => decodeStreaming(dec, frame, 65536, chunkDst), raw.length)
    row(`sluice ${engine.padEnd(4)} 64 KiB chunks in and out, checksum`, r[`${engine} stream`]!)
    r[`${engine} stream nosum`] = time(() => decodeStreaming(dec, frameNoSum, 65536, chunkDst), raw.length)
    row(`sluice ${engine.padEnd(4)} 64 KiB chunks in and out, no checksum`, r[`${engine} stream nosum`]!)
  }
  const lz4jsSize = time(() => lz4js.decompress(frame, raw.length), raw.length)
  row('lz4js decompress (given size; checksum not verified)', lz4jsSize)
  const lz4jsNoSize = time(() => lz4js.decompress(frame), raw.length)
  row('lz4js decompress (no size, as apache-arrow calls it)', lz4jsNoSize)
  const fox = time(() => foxglove(frame, raw.length), raw.length)
  if (Buffer.compare(foxglove(frame, raw.length), buf) !== 0) throw new Error('foxglove output differs')
  row('@foxglove/wasm-lz4 (exact size, checksum)', fox)
  const foxNoSum = time(() => foxglove(frameNoSum, raw.length), raw.length)
  row('@foxglove/wasm-lz4 (exact size, no checksum)', foxNoSum)
  const fb = Buffer.from(frame)
  const napiFrame = time(() => napi.decompressFrameSync(fb), raw.length)
  row('lz4-napi decompressFrameSync (checksum)', napiFrame)

  // Raw block decode (one block of the whole corpus).
  const block = new Uint8Array(maxCompressedSize(raw.length))
  const blockSize = encodeBlock(raw, 0, raw.length, block, 0, block.length, createHashTable())
  const blockData = block.slice(0, blockSize)
  const blockJs = time(() => decodeBlock(blockData, 0, blockSize, dst, 0, dst.length), raw.length)
  check('decodeBlock')
  row('sluice js   raw block (decodeBlock)', blockJs)
  const blockDecoder = (mod: typeof lz4Block): (() => void) => {
    const dec = mod.createDecoder({ outputSize: raw.length })
    return () => decodeExact(dec, blockData, dst)
  }
  const blockJsCodec = time(blockDecoder(lz4Block), raw.length)
  row('sluice js   raw block (lz4-block codec)', blockJsCodec)
  const blockWasm = time(blockDecoder(lz4BlockWasm), raw.length)
  check('wasm raw block')
  row('sluice wasm raw block (lz4-block codec)', blockWasm)
  const napiBlock = Buffer.concat([Buffer.from([raw.length & 255, (raw.length >>> 8) & 255, (raw.length >>> 16) & 255, raw.length >>> 24]), blockData])
  const napiRaw = time(() => napi.uncompressSync(napiBlock), raw.length)
  row('lz4-napi uncompressSync (raw block)', napiRaw)

  const x = (a: Speed, b: Speed): string => `${(a.cpu / b.cpu).toFixed(2)}x`
  const w = r['wasm sum']!
  const j = r['js sum']!
  console.log(
    `${name.padEnd(7)} ratios (cpu): wasm/js exact ${x(w, j)} (no checksum ${x(r['wasm nosum']!, r['js nosum']!)}, streaming ${x(r['wasm stream']!, r['js stream']!)}); ` +
      `wasm vs lz4js given size ${x(w, lz4jsSize)}, without size ${x(w, lz4jsNoSize)}; vs @foxglove/wasm-lz4 ${x(w, fox)} (no checksum ${x(r['wasm nosum']!, foxNoSum)}); ` +
      `vs lz4-napi frame ${x(w, napiFrame)}; raw block wasm/js ${x(blockWasm, blockJsCodec)}, wasm/napi ${x(blockWasm, napiRaw)}`,
  )
}
