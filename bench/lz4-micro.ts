// Quick LZ4 comparison in one process: sluice's lz4 codecs (engine 'js' = TypeScript,
// engine 'wasm' = the same frame logic on the hand-written wasm kernel) vs lz4js,
// @foxglove/wasm-lz4 (liblz4's LZ4F_decompress in emscripten wasm) and lz4-napi, on ~16 MB
// real corpora (BENCH_MB to change).
//
// Rows run interleaved (A, B, C, A, B, C, ...) for ROUNDS rounds after a warm-up round,
// each timed by process CPU time (user + system): the machine is shared, and load skews
// wall time far more. Prints the median MB/s (uncompressed bytes per CPU second) per row
// and ratios of medians to the peers of the same run.
//
// Usage: node --import tsx bench/lz4-micro.ts [--encode] [--decode] [--parts] [--rounds=N] [text|binary|json ...]
//   --encode   encoders (sluice wasm and js engines vs lz4js vs lz4-napi)
//   --decode   frame and raw block decoders (the default when neither is given)
//   --parts    where a wasm frame decode goes: the kernel's block decoder and xxHash32
//              alone, on blocks already in wasm memory (no copies, no JS)
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Decoder, Encoder } from '../lib/codec.js'
import { lz4, lz4Block } from '../lib/codecs/lz4.js'
import { loadLz4Wasm } from '../lib/codecs/lz4-wasm.js'
import { createHashTable, decodeBlock, encodeBlock, maxCompressedSize } from '../lib/codecs/lz4-block.js'
import { Status } from '../lib/status.js'
import { corpus } from './corpus.js'

const { lz4: lz4Wasm, lz4Block: lz4BlockWasm } = await loadLz4Wasm()
const require = createRequire(import.meta.url)
const lz4js = require('lz4js') as {
  compress(d: Uint8Array): Uint8Array
  decompress(d: Uint8Array, max?: number): Uint8Array
  compressFrame(src: Uint8Array, dst: Uint8Array): number
  decompressFrame(src: Uint8Array, dst: Uint8Array): number
}
const napi = require('lz4-napi') as {
  compressFrameSync(d: Buffer): Buffer
  decompressFrameSync(d: Buffer): Buffer
  uncompressSync(d: Buffer): Buffer
}
const foxglove = require('@foxglove/wasm-lz4') as ((src: Uint8Array, size: number) => Buffer) & { isLoaded: Promise<boolean> }
await foxglove.isLoaded

const args = process.argv.slice(2)
const withEncode = args.includes('--encode')
const withParts = args.includes('--parts')
const withDecode = args.includes('--decode') || (!withEncode && !withParts)
const ROUNDS = Number(args.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 11)
const names = args.filter((a) => !a.startsWith('--'))

const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** Runs the rows interleaved; returns each row's median MB/s by CPU time. */
function measure(rows: Array<[string, () => void]>, bytes: number): Map<string, number> {
  const times = rows.map((): number[] => [])
  for (let round = -1; round < ROUNDS; round++) {
    for (let k = 0; k < rows.length; k++) {
      const t0 = cpuMs()
      rows[k]![1]()
      const t = cpuMs() - t0
      if (round >= 0) times[k]!.push(t)
    }
  }
  const result = new Map<string, number>()
  rows.forEach(([label], k) => {
    const sorted = times[k]!.sort((a, b) => a - b)
    // process.cpuUsage() has microsecond resolution; guard against a 0 reading.
    result.set(label, bytes / 1e3 / Math.max(sorted[sorted.length >> 1]!, 0.01))
  })
  return result
}

function print(name: string, speeds: Map<string, number>, peers: string[]): void {
  for (const [label, mbps] of speeds) {
    const ratios = peers.map((p) => `${(mbps / speeds.get(p)!).toFixed(2)}x ${p.split(' ')[0]}${p.includes('reused dst') ? ' (reused dst)' : ''}`).join(', ')
    console.log(`${name.padEnd(7)} ${label.padEnd(56)} ${mbps.toFixed(0).padStart(5)} MB/s  ${ratios}`)
  }
}

function encodeOneShot(enc: Encoder, data: Uint8Array, dst: Uint8Array): number {
  enc.reset()
  if (enc.transform(data, dst, true) !== Status.Done) throw new Error('encode did not finish in one call')
  return enc.written
}

/** 64 KiB input pieces into 64 KiB destinations, as the stream driver calls an encoder. */
function encodeStreaming(enc: Encoder, data: Uint8Array, dst: Uint8Array): number {
  enc.reset()
  let total = 0
  for (let pos = 0; ; ) {
    const piece = data.subarray(pos, pos + 65536)
    pos += piece.length
    const final = pos >= data.length
    let s = enc.transform(piece, dst, final)
    total += enc.written
    while (s === Status.DestinationTooSmall) {
      s = enc.transform(piece.subarray(0, 0), dst, final)
      total += enc.written
    }
    if (final) return total
  }
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

for (const name of names.length ? names : ['text', 'binary']) {
  const raw = corpus(name)
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.length)
  const out = new Uint8Array(maxCompressedSize(raw.length) + 1024)
  console.log(`# ${name}: ${raw.length} bytes, ${ROUNDS} interleaved rounds, median MB/s by CPU time`)

  if (withEncode) {
    const sizes = new Map<string, number>()
    const rows: Array<[string, () => void]> = []
    const chunkDst = new Uint8Array(65536)
    for (const [engine, mod] of [['wasm', lz4Wasm], ['js', lz4]] as const) {
      for (const [label, opts] of [
        ['64K blocks, content checksum', {}],
        ['4M blocks, content checksum', { blockSize: 4194304 }],
        ['level 3 (64Ki hash)', { level: 3 }],
      ] as const) {
        const enc = mod.createEncoder(opts)
        rows.push([`sluice ${engine} encode ${label}`, () => sizes.set(label, encodeOneShot(enc, raw, out))])
      }
      const enc = mod.createEncoder({})
      rows.push([`sluice ${engine} encode 64 KiB pieces in and out`, () => encodeStreaming(enc, raw, chunkDst)])
    }
    rows.push(['lz4js compress', () => sizes.set('lz4js', lz4js.compress(raw).length)])
    // Without its two allocations per call (bound-sized output, then a copy to exact
    // size): fresh memory costs a page fault per 4 KiB on first touch, which on a VM
    // can dominate and swing from run to run.
    rows.push(['lz4js compressFrame into a reused dst', () => lz4js.compressFrame(raw, out)])
    rows.push(['lz4-napi compressFrameSync', () => sizes.set('napi', napi.compressFrameSync(buf).length)])
    print(name, measure(rows, raw.length), ['lz4js compress', 'lz4js compressFrame into a reused dst', 'lz4-napi compressFrameSync'])
    console.log(`${name.padEnd(7)} compressed/input: ${[...sizes].map(([k, v]) => `${k} ${(v / raw.length).toFixed(3)}`).join(', ')}`)
  }

  // Frame decode: the same frames (ours, 64 KiB blocks) for everyone.
  const frame = out.slice(0, encodeOneShot(lz4.createEncoder({}), raw, out))
  const frameNoSum = out.slice(0, encodeOneShot(lz4.createEncoder({ contentChecksum: false }), raw, out))
  const dst = new Uint8Array(raw.length)

  if (withDecode) {
    const chunkDst = new Uint8Array(65536)
    const rows: Array<[string, () => void]> = []
    for (const [engine, mod] of [['wasm', lz4Wasm], ['js', lz4]] as const) {
      const dec = mod.createDecoder({})
      decodeExact(dec, frame, dst)
      if (!buf.equals(dst)) throw new Error(`${engine}: output differs`)
      rows.push([`sluice ${engine} exact dst, content checksum`, () => decodeExact(dec, frame, dst)])
      rows.push([`sluice ${engine} exact dst, no checksum`, () => decodeExact(dec, frameNoSum, dst)])
      rows.push([`sluice ${engine} 64 KiB chunks in and out, checksum`, () => decodeStreaming(dec, frame, 65536, chunkDst)])
    }
    const jsFrame = lz4js.compress(raw)
    rows.push(['lz4js decompress', () => lz4js.decompress(jsFrame)])
    const jsDst = new Uint8Array(raw.length + 65536)
    rows.push(['lz4js decompressFrame into a reused dst', () => lz4js.decompressFrame(jsFrame, jsDst)])
    rows.push(['lz4js decompress of our frame (given size; no checksum check)', () => lz4js.decompress(frame, raw.length)])
    if (!foxglove(frame, raw.length).equals(buf)) throw new Error('foxglove output differs')
    rows.push(['@foxglove/wasm-lz4 (exact size, checksum)', () => foxglove(frame, raw.length)])
    const fb = Buffer.from(frame)
    rows.push(['lz4-napi decompressFrameSync', () => napi.decompressFrameSync(fb)])
    // Raw block decode (one block of the whole corpus).
    const block = new Uint8Array(maxCompressedSize(raw.length))
    const blockData = block.slice(0, encodeBlock(raw, 0, raw.length, block, 0, block.length, createHashTable()))
    for (const [engine, mod] of [['wasm', lz4BlockWasm], ['js', lz4Block]] as const) {
      const dec = mod.createDecoder({ outputSize: raw.length })
      rows.push([`sluice ${engine} raw block (lz4-block codec)`, () => decodeExact(dec, blockData, dst)])
    }
    const napiBlock = Buffer.concat([Buffer.from([raw.length & 255, (raw.length >>> 8) & 255, (raw.length >>> 16) & 255, raw.length >>> 24]), blockData])
    rows.push(['lz4-napi uncompressSync (raw block)', () => napi.uncompressSync(napiBlock)])
    print(name, measure(rows, raw.length), ['lz4js decompress', 'lz4js decompressFrame into a reused dst', 'lz4-napi decompressFrameSync'])
  }

  if (withParts) {
    // The kernel alone: every 64 KiB block of the frame staged in wasm memory once, then
    // decoded (or its output hashed) in place, as WasmFrameKernel calls it.
    const x = (await WebAssembly.instantiate(readFileSync(new URL('../lib/codecs/wasm/gen/lz4.wasm', import.meta.url)), {})).instance.exports as unknown as {
      memory: WebAssembly.Memory
      decode(src: number, srcEnd: number, dst: number, dstEnd: number, dictStart: number): number
      xxh32(p: number, length: number, seed: number): number
    }
    const table = createHashTable()
    const blocks: Uint8Array[] = []
    for (let b = 0; b < raw.length; b += 65536) blocks.push(out.slice(0, encodeBlock(raw, b, Math.min(raw.length, b + 65536), out, 0, out.length, table)))
    const WIN = 1024
    let p = WIN + 65536 + 1024
    x.memory.grow(Math.ceil((p + raw.length + blocks.length * 64) / 65536))
    const mem = new Uint8Array(x.memory.buffer)
    const at = blocks.map((b) => {
      mem.set(b, p)
      p += b.length + 64
      return p - b.length - 64
    })
    const sizes = blocks.map((b) => b.length)
    const outs = blocks.map((_, i) => Math.min(65536, raw.length - i * 65536))
    const rows: Array<[string, () => void]> = [
      ['wasm kernel: block decode only', () => { for (let i = 0; i < at.length; i++) x.decode(at[i]!, at[i]! + sizes[i]!, WIN, WIN + 65536, WIN) }],
      ['wasm kernel: xxh32 of each decoded block only', () => { for (let i = 0; i < at.length; i++) x.xxh32(WIN, outs[i]!, 0) }],
      ['wasm kernel: block decode, then xxh32 of it', () => { for (let i = 0; i < at.length; i++) x.xxh32(WIN, x.decode(at[i]!, at[i]! + sizes[i]!, WIN, WIN + 65536, WIN), 0) }],
      ['wasm kernel: copy-out only (memory -> dst, 64 KiB at a time)', () => { for (let i = 0; i < at.length; i++) dst.set(mem.subarray(WIN, WIN + outs[i]!), i * 65536) }],
      ['wasm kernel: input staging only (frame -> memory)', () => { for (let i = 0; i < at.length; i++) mem.set(blocks[i]!, WIN + 65536 + 1024) }],
    ]
    const dec = lz4Wasm.createDecoder({})
    rows.push(['sluice wasm exact dst, content checksum', () => decodeExact(dec, frame, dst)])
    rows.push(['sluice wasm exact dst, no checksum', () => decodeExact(dec, frameNoSum, dst)])
    print(name, measure(rows, raw.length), ['sluice wasm exact dst, content checksum'])

    // The compressor alone: each 64 KiB block of input copied into wasm memory and
    // compressed there (table of 2^13 entries cleared per block), vs the whole frame encoder.
    const xc = x as unknown as { compress(src: number, srcEnd: number, dst: number, dstEnd: number, table: number, hashLog: number): number; xxh32(p: number, length: number, seed: number): number }
    const TABLE = x.memory.buffer.byteLength
    const OUT = TABLE + (4 << 16) + 64
    const RAW = OUT + 65536 + 64
    x.memory.grow(Math.ceil((RAW + raw.length + 64 - TABLE) / 65536))
    const big = new Uint8Array(x.memory.buffer)
    big.set(raw, RAW)
    const enc = lz4Wasm.createEncoder({})
    const encRows: Array<[string, () => void]> = [
      ['wasm kernel: compress only (64 KiB blocks)', () => { for (let b = RAW; b < RAW + raw.length; b += 65536) xc.compress(b, b + 65536, OUT, OUT + 65535, TABLE, 13) }],
      ['wasm kernel: staging input only (64 KiB blocks)', () => { for (let b = 0; b < raw.length; b += 65536) big.set(raw.subarray(b, b + 65536), RAW + b) }],
      ['wasm kernel: xxh32 of each input block only', () => { for (let b = RAW; b < RAW + raw.length; b += 65536) xc.xxh32(b, 65536, 0) }],
      ['sluice wasm encode 64K blocks, content checksum', () => encodeOneShot(enc, raw, out)],
    ]
    print(name, measure(encRows, raw.length), ['sluice wasm encode 64K blocks, content checksum'])
  }
}
