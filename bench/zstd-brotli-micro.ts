// Engine comparison for the zstd and brotli span codecs: decode and encode MB/s
// (uncompressed bytes per second) of every candidate engine, side by side in one run, on
// ~16 MiB of real text (node_modules .js/.d.ts files concatenated), with native
// references (zstd-napi, node:zlib). Short: each number is the best of 1-6 runs after an
// untimed warm-up, interleaved across engines, in CPU time of this process. Single runs
// vary several-fold on a busy machine (page faults of fresh 16 MiB outputs): read ratios.
//
// Usage: node --import tsx bench/zstd-brotli-micro.ts [MiB] [zstd|brotli]
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'
import type { Decoder, Encoder } from '../lib/codec.js'
import { loadBrotli } from '../lib/codecs/brotli.js'
const brotli = await loadBrotli()
import { loadZstd } from '../lib/codecs/zstd.js'
const zstd = await loadZstd()
import { emscriptenImports, WasmHeap } from '../lib/codecs/wasm/emscripten.js'
import { instantiate } from '../lib/codecs/wasm/instantiate.js'
import { Status } from '../lib/status.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const MiB = 2 ** 20
const size = Number(process.argv[2] ?? 16) * MiB

function corpus(limit: number): Uint8Array {
  const parts: Buffer[] = []
  let total = 0
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (total >= limit) return
      const p = join(dir, name)
      const st = statSync(p)
      if (st.isDirectory()) walk(p)
      else if (/\.(js|d\.ts)$/.test(name) && st.size < 4 * MiB) {
        const b = readFileSync(p)
        parts.push(b)
        total += b.length
      }
    }
  }
  walk(join(root, 'node_modules'))
  return new Uint8Array(Buffer.concat(parts).subarray(0, limit))
}

const data = corpus(size)
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0

interface Timing {
  /** Best MB/s over the rounds. */
  mbps: number
  /** Output of the untimed first run (checked). */
  out: Uint8Array
  runs: number
  fn: () => Uint8Array
}

const pending: Timing[] = []

/**
 * Registers `fn` for timing: runs it once now, untimed (that run pays for wasm tier-up,
 * which compiles on background threads that process CPU time would count, and for lazy
 * set-up), and checks its output. `timeAll()` then times every registered job in
 * interleaved rounds, so that a busy phase of the machine hits all engines alike, in
 * CPU time (user + system) of this process: every engine here runs synchronously on
 * the calling thread.
 */
function measure(runs: number, fn: () => Uint8Array, check: (out: Uint8Array) => boolean): Timing {
  const out = fn()
  if (!check(out)) throw new Error('wrong output')
  const timing: Timing = { mbps: 0, out, runs, fn }
  pending.push(timing)
  return timing
}

function timeAll(): void {
  const rounds = Math.max(...pending.map((t) => t.runs))
  for (let round = 0; round < rounds; round++) {
    for (const t of pending) {
      if (round >= t.runs) continue
      const t0 = process.cpuUsage()
      t.fn()
      const used = process.cpuUsage(t0)
      t.mbps = Math.max(t.mbps, data.length / (used.user + used.system))
    }
  }
  pending.length = 0
}

/** Drives a span decoder over `input` with 256 KiB output steps, like the stream driver. */
function spanDecode(decoder: Decoder, input: Uint8Array, expected: number): Uint8Array {
  const out = new Uint8Array(expected)
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

/** Drives a span encoder over `input` in 64 KiB pieces with 256 KiB output steps. */
function spanEncode(encoder: Encoder, input: Uint8Array): Uint8Array {
  const out = new Uint8Array(input.length + (input.length >>> 7) + 1024)
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
  return out.slice(0, op)
}

/** zstddec's `zstddec-stream` wasm driven raw through ZSTD_decompressStream (its own JS allocates per chunk). */
async function zstddecStreamRaw(): Promise<(input: Uint8Array, expected: number) => Uint8Array> {
  const heap = new WasmHeap()
  const bytes = readFileSync(join(root, 'lib/codecs/wasm/gen/zstd-dec.wasm'))
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

  const ours: Row = { engine: 'sluice zstd (@oneidentity/zstd-js wasm, span API)' }
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

  timeAll()
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

  const ours: Row = { engine: 'sluice brotli (brotli-dec-wasm / brotli-wasm, span API)' }
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
  dec.initSync({ module: readFileSync(join(root, 'node_modules/brotli-dec-wasm/pkg/brotli_dec_wasm_bg.wasm')) })
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

  timeAll()
  print(`brotli quality ${quality}`, rows, ours)
}

const only = process.argv[3]
if (only !== 'brotli') await benchZstd()
if (only !== 'zstd') await benchBrotli()
