// Engine comparison for the zstd and brotli span codecs: decode and encode MB/s
// (uncompressed bytes per second) of every candidate engine, side by side in one run, on
// ~16 MiB of real text (node_modules .js/.d.ts files concatenated), with native
// references (zstd-napi, node:zlib). Short: each number is the best of 1-6 runs after an
// untimed warm-up, interleaved across engines, in CPU time of this process. Single runs
// vary several-fold on a busy machine (page faults of fresh 16 MiB outputs): read ratios.
//
// `zstd-split` splits our zstd cost into the engine's own work and our driving, on the
// text corpus and on a binary one (the node executable): each engine's wasm called raw on
// data already in its memory (no copies between JS and wasm), libzstd's streaming calls
// driven raw with one copy out to JS, our span codec into a reused and a fresh
// destination, and our public API (decode()/encode(), the streams fed 64 KiB chunks),
// beside the packages' one-shot calls and zstd-napi; it prints the issue's target ratios.
// The binary corpus is the one `npm run bench` uses.
//
// Usage: node --import tsx bench/zstd-brotli-micro.ts [MiB] [zstd|brotli|zstd-split]
import { readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'
import type { Decoder, Encoder } from '../lib/codec.js'
import { loadBrotli } from '../lib/codecs/brotli.js'
const brotli = await loadBrotli()
import { loadZstd } from '../lib/codecs/zstd.js'
const zstd = await loadZstd()
import { emscriptenImports } from './_emscripten.js'
import { WasmHeap } from '../lib/codecs/wasm/wasm-heap.js'
import { instantiate } from '../lib/codecs/wasm/instantiate.js'
import { loadZstdDecoderEngine, loadZstdEncoderEngine, ZSTD_c_compressionLevel, ZSTD_e_continue, ZSTD_e_end } from '../lib/codecs/wasm/zstd-engine.js'
import { Status } from '../lib/status.js'
import * as sluice from '../streams/index.js'
import { binarySlice, chunks as splitChunks, drain, nodeModulesText, streamOf } from './corpus.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const MiB = 2 ** 20
const size = Number(process.argv[2] ?? 16) * MiB


/** The corpus every timed job measures (MB/s divide by its size). */
let data = nodeModulesText(size)
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0

interface Timing {
  /** Best MB/s over the rounds. */
  mbps: number
  /** Output of the untimed first run (checked). */
  out: Uint8Array
  runs: number
  fn: () => Uint8Array | Promise<Uint8Array>
}

const pending: Timing[] = []
const EMPTY = new Uint8Array(0)

/**
 * Registers `fn` for timing: runs it once now, untimed (that run pays for wasm tier-up,
 * which compiles on background threads that process CPU time would count, and for lazy
 * set-up), and checks its output. `timeAll()` then times every registered job in
 * interleaved rounds, so that a busy phase of the machine hits all engines alike, in
 * CPU time (user + system) of this process: every engine here runs on the calling
 * thread (the streams too: their promises settle in this thread's microtasks).
 */
function measure(runs: number, fn: () => Uint8Array, check: (out: Uint8Array) => boolean): Timing {
  const out = fn()
  if (!check(out)) throw new Error('wrong output')
  const timing: Timing = { mbps: 0, out, runs, fn }
  pending.push(timing)
  return timing
}

/** `measure()` for a job that returns a promise (our one-shot helpers and streams). */
async function measureAsync(runs: number, fn: () => Promise<Uint8Array>, check: (out: Uint8Array) => boolean): Promise<Timing> {
  const out = await fn()
  if (!check(out)) throw new Error('wrong output')
  const timing: Timing = { mbps: 0, out, runs, fn }
  pending.push(timing)
  return timing
}

async function timeAll(): Promise<void> {
  const rounds = Math.max(...pending.map((t) => t.runs))
  for (let round = 0; round < rounds; round++) {
    for (const t of pending) {
      if (round >= t.runs) continue
      const t0 = process.cpuUsage()
      const result = t.fn()
      if (result instanceof Promise) await result
      const used = process.cpuUsage(t0)
      t.mbps = Math.max(t.mbps, data.length / (used.user + used.system))
    }
  }
  pending.length = 0
}

/**
 * Drives a span decoder over `input` with 256 KiB output steps, like the stream driver,
 * into `into` when given (a reused destination: no page faults of fresh memory).
 */
function spanDecode(decoder: Decoder, input: Uint8Array, expected: number, into?: Uint8Array): Uint8Array {
  const out = into ?? new Uint8Array(expected)
  let ip = 0
  let op = 0
  for (;;) {
    const status = decoder.transform(input.subarray(ip), out.subarray(op, Math.min(out.length, op + 256 * 1024)), true)
    ip += decoder.consumed
    op += decoder.written
    if (status === Status.Done) break
    if (status !== Status.DestinationTooSmall) throw new Error(`status ${status}: ${decoder.failure?.message}`)
  }
  decoder.dispose()
  return out.subarray(0, op)
}

/** Drives a span encoder over `input` in 64 KiB pieces with 256 KiB output steps (into `into` when given). */
function spanEncode(encoder: Encoder, input: Uint8Array, into?: Uint8Array): Uint8Array {
  const out = into ?? new Uint8Array(input.length + (input.length >>> 7) + 1024)
  let op = 0
  for (let ip = 0; ip < input.length || ip === 0; ) {
    const end = Math.min(input.length, ip + 65536)
    const final = end === input.length
    let piece = input.subarray(ip, end)
    for (;;) {
      const status = encoder.transform(piece, out.subarray(op, op + 256 * 1024), final)
      op += encoder.written
      piece = piece.subarray(encoder.consumed)
      if (status === Status.Done) break
      if (status !== Status.DestinationTooSmall) throw new Error(`status ${status}: ${encoder.failure?.message}`)
    }
    ip = end
    if (final) break
  }
  encoder.dispose()
  return into ? out.subarray(0, op) : out.slice(0, op)
}

/** zstddec's `zstddec-stream` wasm driven raw through ZSTD_decompressStream (its own JS allocates per chunk). */
async function zstddecStreamRaw(): Promise<(input: Uint8Array, expected: number) => Uint8Array> {
  const heap = new WasmHeap()
  const bytes = readFileSync(join(root, 'lib/codecs/wasm/gen/zstddec.wasm'))
  const x = (await instantiate(bytes, emscriptenImports(heap))).exports as Record<string, (...a: number[]) => number> & { memory: WebAssembly.Memory }
  heap.attach(x.memory)
  return (input, expected) => {
    const IN = 131075
    const OUT = 256 * 1024
    const dctx = x.ZSTD_createDCtx!()
    const base = x.malloc!(24 + IN + OUT)
    const inS = base
    const outS = base + 12
    const inB = base + 24
    const outB = inB + IN
    const out = new Uint8Array(expected)
    let ip = 0
    let op = 0
    let staged = 0
    let pos = 0
    for (;;) {
      heap.refresh()
      if (pos === staged) {
        staged = Math.min(IN, input.length - ip)
        heap.bytes.set(input.subarray(ip, ip + staged), inB)
        pos = 0
      }
      const w = heap.words
      w[inS >>> 2] = inB
      w[(inS >>> 2) + 1] = staged
      w[(inS >>> 2) + 2] = pos
      w[outS >>> 2] = outB
      w[(outS >>> 2) + 1] = OUT
      w[(outS >>> 2) + 2] = 0
      const r = x.ZSTD_decompressStream!(dctx, outS, inS)
      heap.refresh()
      const np = heap.words[(inS >>> 2) + 2]!
      ip += np - pos
      pos = np
      const wo = heap.words[(outS >>> 2) + 2]!
      out.set(heap.bytes.subarray(outB, outB + wo), op)
      op += wo
      if (r < 0 && r > -120) throw new Error(`zstd error ${-r}`)
      if (r === 0) break
    }
    x.free!(base)
    x.ZSTD_freeDCtx!(dctx)
    return out.subarray(0, op)
  }
}

interface Row {
  engine: string
  decode?: Timing
  encode?: Timing
  ratio?: number
  note?: string
}

function print(title: string, rows: Row[], ours: Row): void {
  console.log(`\n## ${title} (${(data.length / MiB).toFixed(1)} MiB corpus)`)
  console.log('| engine | decode MB/s | × ours | encode MB/s | × ours | ratio | note |')
  console.log('|---|---|---|---|---|---|---|')
  const f = (v?: Timing): string => (v === undefined ? '—' : v.mbps.toFixed(0))
  const r = (v?: Timing, o?: Timing): string => (v === undefined || o === undefined ? '—' : (v.mbps / o.mbps).toFixed(2))
  for (const row of rows) {
    console.log(`| ${row.engine} | ${f(row.decode)} | ${r(row.decode, ours.decode)} | ${f(row.encode)} | ${r(row.encode, ours.encode)} | ${row.ratio?.toFixed(3) ?? '—'} | ${row.note ?? ''} |`)
  }
}

async function benchZstd(): Promise<void> {
  const napi = require('zstd-napi') as typeof import('zstd-napi')
  const level = 3
  // Reference frame: with content size (one-shot decoders need it), checksum on.
  const frame = new Uint8Array(napi.compress(data, { compressionLevel: level, checksumFlag: true }))
  const rows: Row[] = []
  const ok = (out: Uint8Array): boolean => same(out, data)
  const roundtrips = (out: Uint8Array): boolean => same(new Uint8Array(napi.decompress(out)), data)

  const ours: Row = { engine: 'sluice zstd (libzstd 1.5.7 wasm, span API)' }
  ours.decode = measure(6, () => spanDecode(zstd.createDecoder({}), frame, data.length), ok)
  const oursEnc = measure(4, () => spanEncode(zstd.createEncoder({ level }), data), roundtrips)
  ours.encode = oursEnc
  ours.ratio = data.length / oursEnc.out.length
  rows.push(ours)

  const raw = await zstddecStreamRaw()
  rows.push({ engine: 'zstddec-stream wasm, raw ZSTD_decompressStream', decode: measure(6, () => raw(frame, data.length), ok), note: 'decode only' })

  const { ZSTDDecoder } = await import('zstddec')
  const zd = new ZSTDDecoder()
  await zd.init()
  rows.push({ engine: 'zstddec decode() one-shot', decode: measure(6, () => zd.decode(frame, data.length), ok), note: 'needs the size; decode only' })

  const fox = require('@foxglove/wasm-zstd') as { isLoaded: Promise<void>; compress(b: Uint8Array, l: number): Uint8Array; decompress(b: Uint8Array, n: number): Uint8Array }
  await fox.isLoaded
  const foxEnc = measure(4, () => new Uint8Array(fox.compress(data, level)), roundtrips)
  rows.push({ engine: '@foxglove/wasm-zstd one-shot', decode: measure(6, () => new Uint8Array(fox.decompress(frame, data.length)), ok), encode: foxEnc, ratio: data.length / foxEnc.out.length, note: 'one-shot only; decode needs the exact size' })

  const boku = require('@bokuweb/zstd-wasm') as { init(): Promise<void>; compress(b: Uint8Array, l: number): Uint8Array; decompress(b: Uint8Array): Uint8Array }
  await boku.init()
  const bokuEnc = measure(4, () => boku.compress(data, level), roundtrips)
  rows.push({ engine: '@bokuweb/zstd-wasm one-shot', decode: measure(6, () => boku.decompress(frame), ok), encode: bokuEnc, ratio: data.length / bokuEnc.out.length, note: 'one-shot only' })

  // zstd-codec's module is a thenable: resolve with a wrapper, never the module itself.
  const codec = await new Promise<{ z: { Streaming: new () => { compressChunks(c: Uint8Array[], hint: number, l: number): Uint8Array; decompressChunks(c: Uint8Array[], hint: number): Uint8Array } } }>((resolve) =>
    (require('zstd-codec') as { ZstdCodec: { run(f: (z: never) => void): void } }).ZstdCodec.run((z) => resolve({ z })),
  )
  const streaming = new codec.z.Streaming()
  const chunks = (b: Uint8Array): Uint8Array[] => Array.from({ length: Math.ceil(b.length / MiB) }, (_, i) => b.subarray(i * MiB, (i + 1) * MiB))
  const zcEnc = measure(4, () => streaming.compressChunks(chunks(data), data.length, level), roundtrips)
  rows.push({ engine: 'zstd-codec Streaming (1 MiB chunks)', decode: measure(4, () => streaming.decompressChunks(chunks(frame), data.length), ok), encode: zcEnc, ratio: data.length / zcEnc.out.length, note: '16 MiB fixed heap: one-shot OOMs here' })

  const fzstd = await import('fzstd')
  rows.push({ engine: 'fzstd (pure JS)', decode: measure(1, () => fzstd.decompress(frame), ok), note: 'no checksum check' })

  const napiEnc = measure(4, () => new Uint8Array(napi.compress(data, { compressionLevel: level })), roundtrips)
  rows.push({ engine: 'zstd-napi (native reference)', decode: measure(6, () => new Uint8Array(napi.decompress(frame)), ok), encode: napiEnc, ratio: data.length / napiEnc.out.length, note: 'Node only' })

  await timeAll()
  print(`zstd level ${level}`, rows, ours)
  const best = Math.max(...rows.filter((r) => r !== ours && !/napi|fzstd/.test(r.engine) && r.decode).map((r) => r.decode!.mbps))
  const napiRow = rows[rows.length - 1]!
  const zc = rows.find((r) => r.engine.startsWith('zstd-codec'))!
  console.log(`\nzstd decode: ours / fastest wasm peer = ${(ours.decode!.mbps / best).toFixed(2)} (target >= 1), ours / zstd-napi = ${(ours.decode!.mbps / napiRow.decode!.mbps).toFixed(2)} (target >= 0.6)`)
  console.log(`zstd encode: ours / zstd-codec = ${(ours.encode!.mbps / zc.encode!.mbps).toFixed(2)} (target >= 2), ours / zstd-napi = ${(ours.encode!.mbps / napiRow.encode!.mbps).toFixed(2)}`)
}

async function benchBrotli(): Promise<void> {
  const quality = 5
  const params = { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length }
  const stream = new Uint8Array(zlib.brotliCompressSync(data, { params }))
  const ok = (out: Uint8Array): boolean => same(out, data)
  const roundtrips = (out: Uint8Array): boolean => same(new Uint8Array(zlib.brotliDecompressSync(out)), data)
  const rows: Row[] = []

  const ours: Row = { engine: 'sluice brotli (brotli 1.1.0 wasm, span API)' }
  ours.decode = measure(2, () => spanDecode(brotli.createDecoder({}), stream, data.length), ok)
  const oursEnc = measure(1, () => spanEncode(brotli.createEncoder({ level: quality }), data), roundtrips)
  ours.encode = oursEnc
  ours.ratio = data.length / oursEnc.out.length
  rows.push(ours)

  type Result = { buf: Uint8Array; code: number; input_offset: number; free(): void }
  type Stream = { decompress?(i: Uint8Array, n: number): Result; compress?(i: Uint8Array | undefined, n: number): Result; free(): void }
  const drive = (s: Stream, input: Uint8Array): Uint8Array => {
    const out = new Uint8Array(data.length)
    let ip = 0
    let op = 0
    for (;;) {
      const r = s.decompress!(input.subarray(ip, ip + 256 * 1024), 256 * 1024)
      ip += r.input_offset
      const buf = r.buf
      out.set(buf, op)
      op += buf.length
      const code = r.code
      r.free()
      if (code === 1) break
    }
    s.free()
    return out.subarray(0, op)
  }
  const dec = (await import('brotli-dec-wasm/web')) as unknown as { initSync(m: { module: BufferSource }): void; BrotliDecStream: new () => Stream }
  dec.initSync({ module: readFileSync(join(root, 'bench/node_modules/brotli-dec-wasm/pkg/brotli_dec_wasm_bg.wasm')) })
  rows.push({ engine: 'brotli-dec-wasm BrotliDecStream (package JS)', decode: measure(2, () => drive(new dec.BrotliDecStream(), stream), ok), note: 'decode only' })

  const bw = require('brotli-wasm') as { DecompressStream: new () => Stream; CompressStream: new (q: number) => Stream }
  const bwEncode = (): Uint8Array => {
    const s = new bw.CompressStream(quality)
    const parts: Uint8Array[] = []
    for (let ip = 0; ip < data.length; ) {
      const r = s.compress!(data.subarray(ip, ip + 256 * 1024), 256 * 1024)
      ip += r.input_offset
      parts.push(r.buf)
      r.free()
    }
    for (;;) {
      const r = s.compress!(undefined, 256 * 1024)
      parts.push(r.buf)
      const code = r.code
      r.free()
      if (code === 1) break
    }
    s.free()
    return new Uint8Array(Buffer.concat(parts))
  }
  const bwEnc = measure(1, bwEncode, roundtrips)
  rows.push({ engine: 'brotli-wasm Compress/DecompressStream (package JS)', decode: measure(2, () => drive(new bw.DecompressStream(), stream), ok), encode: bwEnc, ratio: data.length / bwEnc.out.length })

  const nodeEnc = measure(1, () => new Uint8Array(zlib.brotliCompressSync(data, { params })), roundtrips)
  rows.push({ engine: 'node:zlib one-shot (native reference)', decode: measure(2, () => new Uint8Array(zlib.brotliDecompressSync(stream)), ok), encode: nodeEnc, ratio: data.length / nodeEnc.out.length, note: 'Node only' })

  await timeAll()
  print(`brotli quality ${quality}`, rows, ours)
}

/** One-shot entry points of a zstd wasm, called on data already in its memory (ours: one module per role). */
interface RawZstd {
  malloc(size: number): number
  bytes(): Uint8Array
  decompress?(dst: number, capacity: number, src: number, size: number): number
  compress?(dst: number, capacity: number, src: number, size: number, level: number): number
}

/**
 * @foxglove/wasm-zstd's wasm without its glue: the glue names the minified exports and
 * imports (`Module["_decompress"]=Module["asm"]["j"]`), read from it here.
 */
async function foxgloveRaw(): Promise<RawZstd | null> {
  const glue = readFileSync(join(root, 'bench/node_modules/@foxglove/wasm-zstd/dist/wasm-zstd.js'), 'utf8')
  const exported = (fn: string): string | undefined => new RegExp(`Module\\["${fn}"\\]=Module\\["asm"\\]\\["(\\w+)"\\]`).exec(glue)?.[1]
  const memoryName = /wasmMemory=Module\["asm"\]\["(\w+)"\]/.exec(glue)?.[1]
  const importList = /asmLibraryArg=\{([^}]*)\}/.exec(glue)?.[1]
  const names = { malloc: exported('_malloc'), compress: exported('_compress'), decompress: exported('_decompress'), ctors: exported('___wasm_call_ctors') }
  if (!memoryName || !importList || !names.malloc || !names.compress || !names.decompress) return null
  const heap = new WasmHeap()
  const env = emscriptenImports(heap).env as Record<string, unknown>
  const a: Record<string, unknown> = {}
  for (const [, key, fn] of importList.matchAll(/"(\w+)":_(\w+)/g)) a[key!] = env[fn!]
  const wasm = readFileSync(join(root, 'bench/node_modules/@foxglove/wasm-zstd/dist/wasm-zstd.wasm'))
  const x = (await instantiate(wasm, { a: a as WebAssembly.ModuleImports })).exports as Record<string, (...args: number[]) => number>
  heap.attach(x[memoryName] as unknown as WebAssembly.Memory)
  if (names.ctors) x[names.ctors]!()
  return {
    malloc: x[names.malloc]!,
    bytes: () => (heap.refresh(), heap.bytes),
    decompress: x[names.decompress]!,
    compress: x[names.compress]!,
  }
}

/** Timed rounds per job in `zstd-split` (best round counts): more than the overview, whose ratios are coarser. */
const DECODE_ROUNDS = 10
const ENCODE_ROUNDS = 6

/** Where zstd time goes, on one corpus: engine work, the streaming copies, our driving. */
async function benchZstdSplit(name: string, input: Uint8Array): Promise<void> {
  const napi = require('zstd-napi') as typeof import('zstd-napi')
  const level = 3
  const frame = new Uint8Array(napi.compress(input, { compressionLevel: level, checksumFlag: true }))
  const n = input.length
  const ok = (out: Uint8Array): boolean => same(out, input)
  const roundtrips = (out: Uint8Array): boolean => same(new Uint8Array(napi.decompress(out)), input)
  const bound = n + (n >>> 7) + 65536
  // The timed jobs below divide by the size of `data`.
  const saved = data
  data = input

  const engine = await loadZstdDecoderEngine()
  const encoderEngine = await loadZstdEncoderEngine()
  const x = engine.exports
  const ex = encoderEngine.exports
  const oneShotD = x.ZSTD_createDStream()
  const oneShotC = ex.ZSTD_createCStream()
  const ownDec: RawZstd = {
    malloc: x.malloc,
    bytes: () => (engine.heap.refresh(), engine.heap.bytes),
    decompress: (dst, capacity, src, size) => x.ZSTD_decompressDCtx(oneShotD, dst, capacity, src, size),
  }
  const ownEnc: RawZstd = {
    malloc: ex.malloc,
    bytes: () => (encoderEngine.heap.refresh(), encoderEngine.heap.bytes),
    compress: (dst, capacity, src, size, level) => (ex.ZSTD_CCtx_setParameter(oneShotC, ZSTD_c_compressionLevel, level), ex.ZSTD_compress2(oneShotC, dst, capacity, src, size)),
  }
  const rawRow = (engineName: string, d: RawZstd, e: RawZstd = d): Row => {
    const src = d.malloc(frame.length)
    const dst = d.malloc(n + 1024)
    const plain = e.malloc(n)
    const packed = e.malloc(bound)
    d.bytes().set(frame, src)
    e.bytes().set(input, plain)
    let packedSize = 0
    const decode = measure(DECODE_ROUNDS, () => {
      const r = d.decompress!(dst, n + 1024, src, frame.length)
      if (r !== n) throw new Error(`${engineName}: decompress returned ${r}`)
      return d.bytes().subarray(dst, dst + n)
    }, ok)
    const encode = measure(ENCODE_ROUNDS, () => {
      packedSize = e.compress!(packed, bound, plain, n, level)
      if (packedSize <= 0) throw new Error(`${engineName}: compress returned ${packedSize}`)
      return e.bytes().slice(packed, packed + packedSize)
    }, roundtrips)
    return { engine: engineName, decode, encode, ratio: n / packedSize, note: 'input and output in wasm memory: no copies' }
  }
  const rows: Row[] = []
  const engineRow = rawRow('sluice engines, raw one-shot ZSTD_decompressDCtx / ZSTD_compress2', ownDec, ownEnc)
  rows.push(engineRow)
  const fox = await foxgloveRaw()
  if (fox) rows.push(rawRow('@foxglove/wasm-zstd wasm, raw one-shot', fox))

  // libzstd's streaming calls driven raw: the whole input already in wasm memory, 256 KiB
  // of output per call copied out to JS (the copy every streaming driver makes).
  const outStage = 256 * 1024
  const inStage = 64 * 1024
  const pos = x.malloc(8)
  const src = x.malloc(frame.length)
  const out = x.malloc(outStage)
  const sink = new Uint8Array(bound)
  const dctx = x.ZSTD_createDStream()
  const words = (): Uint32Array => (engine.heap.refresh(), engine.heap.words)
  const ePos = ex.malloc(8)
  const eSrc = ex.malloc(n)
  const eOut = ex.malloc(outStage)
  const cctx = ex.ZSTD_createCStream()
  const eWords = (): Uint32Array => (encoderEngine.heap.refresh(), encoderEngine.heap.words)
  const rawStreamDecode = (): Uint8Array => {
    engine.heap.refresh()
    engine.heap.bytes.set(frame, src)
    x.ZSTD_initDStream(dctx)
    let ip = 0
    let op = 0
    for (;;) {
      words()[pos >>> 2] = 0
      words()[(pos >>> 2) + 1] = 0
      const r = x.ZSTD_decompressStream_simpleArgs(dctx, out, outStage, pos + 4, src + ip, frame.length - ip, pos)
      const w = words()
      ip += w[pos >>> 2]!
      const produced = w[(pos >>> 2) + 1]!
      sink.set(engine.heap.bytes.subarray(out, out + produced), op)
      op += produced
      if (r < 0 && r > -120) throw new Error(`ZSTD_decompressStream error ${-r}`)
      if (r === 0) return sink.subarray(0, op)
    }
  }
  const rawStreamEncode = (): Uint8Array => {
    encoderEngine.heap.refresh()
    encoderEngine.heap.bytes.set(input, eSrc)
    ex.ZSTD_initCStream(cctx, level)
    let ip = 0
    let op = 0
    for (;;) {
      const size = Math.min(inStage, n - ip)
      const endOp = ip + size === n ? ZSTD_e_end : ZSTD_e_continue
      eWords()[ePos >>> 2] = 0
      eWords()[(ePos >>> 2) + 1] = 0
      const r = ex.ZSTD_compressStream2_simpleArgs(cctx, eOut, outStage, ePos + 4, eSrc + ip, size, ePos, endOp)
      const w = eWords()
      ip += w[ePos >>> 2]!
      const produced = w[(ePos >>> 2) + 1]!
      sink.set(encoderEngine.heap.bytes.subarray(eOut, eOut + produced), op)
      op += produced
      if (r < 0 && r > -120) throw new Error(`ZSTD_compressStream2 error ${-r}`)
      if (endOp === ZSTD_e_end && r === 0) return sink.subarray(0, op)
    }
  }
  const streamRow: Row = { engine: 'sluice engine, raw streaming calls + copy out', decode: measure(DECODE_ROUNDS, rawStreamDecode, ok), encode: measure(ENCODE_ROUNDS, rawStreamEncode, roundtrips), note: `${outStage >> 10} KiB out per call; encode in ${inStage >> 10} KiB pieces` }
  rows.push(streamRow)

  const reused = new Uint8Array(bound)
  const spanReused: Row = {
    engine: 'sluice span codec, reused destination',
    decode: measure(DECODE_ROUNDS, () => spanDecode(zstd.createDecoder({}), frame, n, reused.subarray(0, n)), ok),
    encode: measure(ENCODE_ROUNDS, () => spanEncode(zstd.createEncoder({ level }), input, reused), roundtrips),
    note: 'our driving: staging copies, calls, status',
  }
  rows.push(spanReused)
  const spanFresh: Row = {
    engine: 'sluice span codec, fresh destination',
    decode: measure(DECODE_ROUNDS, () => spanDecode(zstd.createDecoder({}), frame, n), ok),
    encode: measure(ENCODE_ROUNDS, () => spanEncode(zstd.createEncoder({ level }), input), roundtrips),
    note: 'as a one-shot call pays: new output memory',
  }
  rows.push(spanFresh)

  // The public API as users call it: one-shot helpers, and the TransformStreams fed 64 KiB
  // chunks (output checked once here, then only drained while timed).
  const oneShotDecode = await measureAsync(DECODE_ROUNDS, () => sluice.decode('zstd', frame), ok)
  const oneShotEncode = await measureAsync(ENCODE_ROUNDS, () => sluice.encode('zstd', input, { level }), roundtrips)
  const frameChunks = splitChunks(frame)
  const inputChunks = splitChunks(input)
  const collect = async (stream: ReadableStream<Uint8Array>): Promise<Uint8Array> => {
    const parts: Uint8Array[] = []
    const reader = stream.getReader()
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value)
    return new Uint8Array(Buffer.concat(parts))
  }
  if (!ok(await collect(streamOf(frameChunks).pipeThrough(sluice.zstdDecode())))) throw new Error('zstdDecode stream: wrong output')
  if (!roundtrips(await collect(streamOf(inputChunks).pipeThrough(sluice.zstdEncode({ level }))))) throw new Error('zstdEncode stream: wrong output')
  const drained = (stream: ReadableStream<Uint8Array>): Promise<Uint8Array> => drain(stream).then(() => EMPTY)
  const anything = (): boolean => true
  const apiOneShot: Row = { engine: 'sluice decode() / encode() one-shot', decode: oneShotDecode, encode: oneShotEncode, note: 'public API' }
  const apiStream: Row = {
    engine: 'sluice zstdDecode() / zstdEncode() streams, 64 KiB chunks',
    decode: await measureAsync(DECODE_ROUNDS, () => drained(streamOf(frameChunks).pipeThrough(sluice.zstdDecode())), anything),
    encode: await measureAsync(ENCODE_ROUNDS, () => drained(streamOf(inputChunks).pipeThrough(sluice.zstdEncode({ level }))), anything),
    note: 'public API',
  }
  rows.push(apiOneShot, apiStream)

  const foxPackage = require('@foxglove/wasm-zstd') as { isLoaded: Promise<void>; compress(b: Uint8Array, l: number): Uint8Array; decompress(b: Uint8Array, n: number): Uint8Array }
  await foxPackage.isLoaded
  const foxRow: Row = {
    engine: '@foxglove/wasm-zstd package one-shot',
    decode: measure(DECODE_ROUNDS, () => new Uint8Array(foxPackage.decompress(frame, n)), ok),
    encode: measure(ENCODE_ROUNDS, () => new Uint8Array(foxPackage.compress(input, level)), roundtrips),
    note: 'copies the whole input in and output out',
  }
  rows.push(foxRow)
  const codec = await new Promise<{ z: { Streaming: new () => { compressChunks(c: Uint8Array[], hint: number, l: number): Uint8Array } } }>((resolve) =>
    (require('zstd-codec') as { ZstdCodec: { run(f: (z: never) => void): void } }).ZstdCodec.run((z) => resolve({ z })),
  )
  const streaming = new codec.z.Streaming()
  const pieces = (b: Uint8Array): Uint8Array[] => Array.from({ length: Math.ceil(b.length / MiB) }, (_, i) => b.subarray(i * MiB, (i + 1) * MiB))
  const zcRow: Row = { engine: 'zstd-codec Streaming (1 MiB chunks)', encode: measure(ENCODE_ROUNDS, () => streaming.compressChunks(pieces(input), n, level), roundtrips) }
  rows.push(zcRow)
  const napiRow: Row = {
    engine: 'zstd-napi (native reference)',
    decode: measure(DECODE_ROUNDS, () => new Uint8Array(napi.decompress(frame)), ok),
    encode: measure(ENCODE_ROUNDS, () => new Uint8Array(napi.compress(input, { compressionLevel: level })), roundtrips),
  }
  rows.push(napiRow)

  await timeAll()
  x.ZSTD_freeDStream(dctx)
  ex.ZSTD_freeCStream(cctx)
  print(`zstd level ${level}, ${name}: where the time goes (× = share of the raw engine's speed)`, rows, engineRow)
  const r = (a?: Timing, b?: Timing): string => (a && b ? (a.mbps / b.mbps).toFixed(2) : '—')
  console.log(`\n${name} issue targets: decode one-shot / foxglove one-shot = ${r(apiOneShot.decode, foxRow.decode)}, stream / foxglove one-shot = ${r(apiStream.decode, foxRow.decode)} (>= 1); one-shot / zstd-napi = ${r(apiOneShot.decode, napiRow.decode)}, stream / zstd-napi = ${r(apiStream.decode, napiRow.decode)} (>= 0.6); stream / one-shot = ${r(apiStream.decode, apiOneShot.decode)} (>= 0.85)`)
  console.log(`${name} issue targets: encode one-shot / zstd-codec = ${r(apiOneShot.encode, zcRow.encode)}, stream / zstd-codec = ${r(apiStream.encode, zcRow.encode)} (>= 2)`)
  console.log(`\n${name} decode: span fresh / foxglove package = ${r(spanFresh.decode, foxRow.decode)} (target >= 1), span fresh / zstd-napi = ${r(spanFresh.decode, napiRow.decode)} (target >= 0.6)`)
  console.log(`${name} decode: raw streaming / raw one-shot = ${r(streamRow.decode, engineRow.decode)} (the streaming copies), span reused / raw streaming = ${r(spanReused.decode, streamRow.decode)} (our driving)`)
  console.log(`${name} encode: span fresh / zstd-codec = ${r(spanFresh.encode, zcRow.encode)} (target >= 2), raw one-shot / zstd-codec = ${r(engineRow.encode, zcRow.encode)}, span reused / raw streaming = ${r(spanReused.encode, streamRow.encode)} (our driving)`)
  data = saved
}

const only = process.argv[3]
if (only === 'zstd-split') {
  await benchZstdSplit('text', data)
  await benchZstdSplit('binary', binarySlice(0, Math.min(size, statSync(process.execPath).size)))
} else {
  if (only !== 'brotli') await benchZstd()
  if (only !== 'zstd') await benchBrotli()
}
