// The raw wasm engines against the targets, in one process: our builds of
// libzstd 1.5.7 and brotli 1.1.0 (lib/codecs/wasm/*.wasm, scripts/build-engines.mjs),
// the third-party builds sluice shipped before them (@oneidentity/zstd-js, brotli-dec-wasm,
// brotli-wasm, called through their packages), and the peers (@foxglove/wasm-zstd,
// zstd-napi, node:zlib). Every job copies its input into the engine and its output out
// to a fresh JS array, as a caller's one-shot call must. CPU time of this process, best
// of N interleaved rounds after an untimed run whose output is checked.
//
// Targets (ratios in one run): zstd decode one-shot / @foxglove >= 1.0, zstd streaming
// decode / our one-shot >= 0.9, zstd encode level 3 / zstd-napi >= 0.6, brotli decode /
// node:zlib >= 0.7, brotli encode q5 / node:zlib >= 0.6; wasm bytes per role not larger
// than the build each role used before.
//
// Usage: node --import tsx bench/engines.ts [MiB] [rounds] [all|zstd|brotli|sizes]
// (text corpus; BENCH_BINARY=1 for the node binary; BENCH_ZSTD_WASM=<file> adds the same
// zstd jobs on another build of libzstd's exports (a decoder-only one: the decode jobs),
// e.g. the former one-module zstd.wasm:
// `git show 123b5f1:lib/codecs/wasm/zstd.wasm > .tmp/zstd-full.wasm`)
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'
import { BrotliDecoderEngine, BrotliEncoderEngine, type BrotliStep, OPERATION_FINISH, OPERATION_PROCESS, RESULT_SUCCESS } from '../lib/codecs/wasm/brotli-engine.js'
import { emscriptenImports } from './_emscripten.js'
import { WasmHeap } from '../lib/codecs/wasm/wasm-heap.js'
import { instantiate } from '../lib/codecs/wasm/instantiate.js'
import {
  loadZstdDecoderEngine,
  loadZstdEncoderEngine,
  ZSTD_c_compressionLevel,
  type ZstdDecoderExports,
  type ZstdEncoderExports,
} from '../lib/codecs/wasm/zstd-engine.js'
import { loadZstd } from '../lib/codecs/zstd.js'
import { decodeGrowing } from '../lib/decode-buffer.js'
import { Status } from '../lib/status.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
import { nodeModulesText } from './corpus.js'
const MiB = 2 ** 20
const size = Number(process.argv[2] ?? 16) * MiB
const rounds = Number(process.argv[3] ?? 5)


const data = process.env.BENCH_BINARY ? new Uint8Array(readFileSync(process.execPath).subarray(0, size)) : nodeModulesText(size)
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0

interface Job {
  name: string
  fn: () => Uint8Array
  mbps: number
}
const jobs: Job[] = []
function job(name: string, fn: () => Uint8Array, check: (out: Uint8Array) => boolean): Job {
  const out = fn()
  if (!check(out)) throw new Error(`${name}: wrong output`)
  const j = { name, fn, mbps: 0 }
  jobs.push(j)
  return j
}
function timeAll(): void {
  for (let round = 0; round < rounds; round++) {
    for (const j of jobs) {
      const t0 = process.cpuUsage()
      j.fn()
      const used = process.cpuUsage(t0)
      j.mbps = Math.max(j.mbps, data.length / (used.user + used.system))
    }
  }
}

// ---------------------------------------------------------------------------------------
// zstd

type ZstdExports = ZstdDecoderExports & ZstdEncoderExports
/**
 * A libzstd wasm's decoder exports and heap, and its encoder's (the same for a one-module
 * build; none for a decoder-only one).
 */
interface ZstdBuild {
  x: ZstdDecoderExports
  heap: WasmHeap
  e?: { x: ZstdEncoderExports; heap: WasmHeap }
}

/** One-shot and streaming calls over a libzstd wasm that exports the streaming API. */
function zstdJobs(label: string, build: ZstdBuild, frame: Uint8Array, level: number, oneShot: boolean): { dec?: Job; stream: Job; enc?: Job } {
  const { x, heap } = build
  const ok = (out: Uint8Array): boolean => same(out, data)
  const dctx = x.ZSTD_createDStream()
  let dec: Job | undefined
  let enc: Job | undefined
  if (oneShot) {
    dec = job(`${label} one-shot decode`, () => {
      const src = x.malloc(frame.length)
      const dst = x.malloc(data.length)
      heap.refresh()
      heap.bytes.set(frame, src)
      const n = x.ZSTD_decompressDCtx(dctx, dst, data.length, src, frame.length)
      heap.refresh()
      const out = heap.bytes.slice(dst, dst + n)
      x.free(src)
      x.free(dst)
      return out
    }, ok)
  }
  if (oneShot && build.e) {
    const { x: ex, heap: eh } = build.e
    const cctx = ex.ZSTD_createCStream()
    enc = job(`${label} one-shot encode L${level}`, () => {
      const x = ex
      const heap = eh
      const bound = x.ZSTD_compressBound(data.length)
      const src = x.malloc(data.length)
      const dst = x.malloc(bound)
      heap.refresh()
      heap.bytes.set(data, src)
      x.ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)
      const n = x.ZSTD_compress2(cctx, dst, bound, src, data.length)
      heap.refresh()
      const out = heap.bytes.slice(dst, dst + n)
      x.free(src)
      x.free(dst)
      return out
    }, (out) => same(new Uint8Array(napi.decompress(out)), data))
  }
  const IN = 131075
  const OUT = 256 * 1024
  const base = x.malloc(16 + IN + OUT)
  const stream = job(`${label} streaming decode`, () => {
    x.ZSTD_initDStream(dctx)
    const out = new Uint8Array(data.length)
    const inPos = base
    const outPos = base + 4
    const inB = base + 16
    const outB = inB + IN
    let ip = 0
    let op = 0
    let staged = 0
    let pos = 0
    for (;;) {
      heap.refresh()
      if (pos === staged) {
        staged = Math.min(IN, frame.length - ip)
        heap.bytes.set(frame.subarray(ip, ip + staged), inB)
        pos = 0
      }
      heap.words[inPos >>> 2] = pos
      heap.words[outPos >>> 2] = 0
      const r = x.ZSTD_decompressStream_simpleArgs(dctx, outB, OUT, outPos, inB, staged, inPos)
      heap.refresh()
      const np = heap.words[inPos >>> 2]!
      ip += np - pos
      pos = np
      const wo = heap.words[outPos >>> 2]!
      out.set(heap.bytes.subarray(outB, outB + wo), op)
      op += wo
      if (r < 0 && r > -120) throw new Error(`zstd error ${-r}`)
      if (r === 0) break
    }
    return out.subarray(0, op)
  }, ok)
  return { dec, stream, enc }
}

const napi = require('zstd-napi') as typeof import('zstd-napi')

/** A wasm32-wasi reactor build of ours with the decoder's exports and maybe the encoder's (BENCH_ZSTD_WASM). */
async function ownBuild(path: string): Promise<ZstdBuild> {
  const heap = new WasmHeap()
  const instance = await instantiate(readFileSync(path), {})
  const x = instance.exports as unknown as ZstdExports & { _initialize(): void }
  heap.attach(x.memory)
  x._initialize()
  return { x, heap, e: typeof x.ZSTD_createCStream === 'function' ? { x, heap } : undefined }
}

async function previousZstd(): Promise<ZstdBuild> {
  const text = readFileSync(join(root, 'bench/node_modules/@oneidentity/zstd-js/wasm/index.js'), 'utf8')
  const m = /base64,([A-Za-z0-9+/=]{1000,})/.exec(text)!
  const heap = new WasmHeap()
  const instance = await instantiate(Buffer.from(m[1]!, 'base64'), emscriptenImports(heap))
  const x = instance.exports as unknown as ZstdExports & { emscripten_stack_init?: () => void; __wasm_call_ctors?: () => void }
  heap.attach(x.memory)
  x.emscripten_stack_init?.()
  x.__wasm_call_ctors?.()
  return { x, heap, e: { x, heap } }
}

async function benchZstd(): Promise<void> {
  const level = 3
  const frame = new Uint8Array(napi.compress(data, { compressionLevel: level }))
  const [dec, enc] = [await loadZstdDecoderEngine(), await loadZstdEncoderEngine()]
  const o = zstdJobs('ours (libzstd 1.5.7, zstd-dec/enc)', { x: dec.exports, heap: dec.heap, e: { x: enc.exports, heap: enc.heap } }, frame, level, true)
  const other = process.env.BENCH_ZSTD_WASM
  const alt = other ? zstdJobs(`${other.split('/').pop()}`, await ownBuild(other), frame, level, true) : undefined
  // The codec over the same engine, as lib/whole-buffer.ts drives it (no stream machine):
  // what the span contract and its checks cost on top of the raw calls.
  const codec = await loadZstd()
  const codecDec = job('codec (lib/codecs/zstd.ts) one-shot decode', () => {
    const decoder = codec.createDecoder({})
    // The frame declares its size: decoded once into an array of exactly that size.
    const out = decodeGrowing(decoder, frame, Infinity, { format: 'zstd', what: 'frame', declaredBy: 'its header', base: 0, concatenated: false })
    decoder.dispose()
    return out
  }, (out) => same(out, data))
  const codecEnc = job(`codec one-shot encode L${level}, no checksum`, () => {
    const encoder = codec.createEncoder({ level, checksum: false })
    const dst = new Uint8Array(enc.exports.ZSTD_compressBound(data.length))
    if (encoder.transform(data, dst, true) !== Status.Done) throw new Error(`codec: ${encoder.failure?.message}`)
    const n = encoder.written
    encoder.dispose()
    return dst.subarray(0, n)
  }, (out) => same(new Uint8Array(napi.decompress(out)), data))
  const prev = await previousZstd()
  const p = zstdJobs('before (@oneidentity/zstd-js)', prev, frame, level, false)
  const fox = require('@foxglove/wasm-zstd') as { isLoaded: Promise<void>; compress(b: Uint8Array, l: number): Uint8Array; decompress(b: Uint8Array, n: number): Uint8Array }
  await fox.isLoaded
  const foxDec = job('@foxglove/wasm-zstd decompress', () => new Uint8Array(fox.decompress(frame, data.length)), (out) => same(out, data))
  const foxEnc = job(`@foxglove/wasm-zstd compress L${level}`, () => new Uint8Array(fox.compress(data, level)), (out) => same(new Uint8Array(napi.decompress(out)), data))
  const napiDec = job('zstd-napi decompress', () => new Uint8Array(napi.decompress(frame)), (out) => same(out, data))
  const napiEnc = job(`zstd-napi compress L${level}`, () => new Uint8Array(napi.compress(data, { compressionLevel: level })), (out) => same(new Uint8Array(napi.decompress(out)), data))
  timeAll()
  print('zstd')
  const r = (a: Job, b: Job): string => (a.mbps / b.mbps).toFixed(2)
  console.log(`\n- zstd decode one-shot: ours / @foxglove = ${r(o.dec!, foxDec)} (target >= 1.0); streaming / ours one-shot = ${r(o.stream, o.dec!)} (target >= 0.9); streaming ours / before = ${r(o.stream, p.stream)}; ours / zstd-napi = ${r(o.dec!, napiDec)}`)
  console.log(`- zstd encode L${level}: ours / zstd-napi = ${r(o.enc!, napiEnc)} (target >= 0.6); ours / @foxglove = ${r(o.enc!, foxEnc)}`)
  console.log(`- zstd codec one-shot / raw one-shot: decode ${r(codecDec, o.dec!)}, encode ${r(codecEnc, o.enc!)}`)
  if (alt) console.log(`- zstd ours / ${other}: one-shot decode ${r(o.dec!, alt.dec!)}, streaming decode ${r(o.stream, alt.stream)}, encode ${alt.enc ? r(o.enc!, alt.enc) : '—'}`)
  jobs.length = 0
}

// ---------------------------------------------------------------------------------------
// brotli

type BindgenResult = { buf: Uint8Array; code: number; input_offset: number; free(): void }
type BindgenStream = { decompress?(i: Uint8Array, n: number): BindgenResult; compress?(i: Uint8Array | undefined, n: number): BindgenResult; free(): void }

function driveBindgen(s: BindgenStream, input: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length)
  let ip = 0
  let op = 0
  for (;;) {
    const r = s.decompress!(input.subarray(ip, ip + 256 * 1024), 256 * 1024)
    ip += r.input_offset
    out.set(r.buf, op)
    op += r.buf.length
    const code = r.code
    r.free()
    if (code === 1) break
  }
  s.free()
  return out.subarray(0, op)
}

async function benchBrotli(): Promise<void> {
  const quality = 5
  const stream = new Uint8Array(zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality } }))
  const ok = (out: Uint8Array): boolean => same(out, data)
  const roundtrips = (out: Uint8Array): boolean => same(new Uint8Array(zlib.brotliDecompressSync(out)), data)
  const step: BrotliStep = { code: 0, inputUsed: 0, produced: 0, error: '' }
  const STEP = 256 * 1024

  const decoder = await BrotliDecoderEngine.load()
  const oursDec = job('ours (brotli 1.1.0) decode', () => {
    const state = decoder.create()
    const out = new Uint8Array(data.length)
    let ip = 0
    let op = 0
    for (;;) {
      decoder.step(state, stream, ip, Math.min(stream.length, ip + STEP), out, op, Math.min(STEP, out.length - op), step)
      if (step.code === 0) throw new Error(step.error)
      ip += step.inputUsed
      op += step.produced
      if (step.code === RESULT_SUCCESS) break
    }
    decoder.free(state)
    return out.subarray(0, op)
  }, ok)
  const encoder = await BrotliEncoderEngine.load()
  const oursEnc = job(`ours (brotli 1.1.0) encode q${quality}`, () => {
    // node:zlib's one-shot call hands brotli the whole input at once, from which brotli
    // derives its size hint (encode.c UpdateSizeHint); ours feeds 256 KiB steps, so it
    // passes the hint itself, as lib/codecs/brotli.ts does. Both then write the same bytes.
    const state = encoder.create(quality, { sizeHint: data.length })
    const out = new Uint8Array(data.length + 1024)
    let ip = 0
    let op = 0
    // The last piece goes in with FINISH, as node:zlib's one-shot call hands its input:
    // finishing after it with no input adds an empty last meta-block (one byte) when the
    // input ends where a meta-block does (16 MiB of this corpus does).
    for (;;) {
      const end = Math.min(data.length, ip + STEP)
      encoder.step(state, data, ip, end, out, op, STEP, step, end === data.length ? OPERATION_FINISH : OPERATION_PROCESS)
      if (step.code === 0) throw new Error(step.error)
      ip += step.inputUsed
      op += step.produced
      if (end === data.length && ip === data.length && step.code === RESULT_SUCCESS) break
    }
    encoder.free(state)
    return out.slice(0, op)
  }, (out) => roundtrips(out) && out.length === zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality } }).length)

  const dec = (await import('brotli-dec-wasm/web')) as unknown as { initSync(m: { module: BufferSource }): void; BrotliDecStream: new () => BindgenStream }
  dec.initSync({ module: readFileSync(join(root, 'bench/node_modules/brotli-dec-wasm/pkg/brotli_dec_wasm_bg.wasm')) })
  const prevDec = job('before (brotli-dec-wasm) decode', () => driveBindgen(new dec.BrotliDecStream(), stream), ok)
  const bw = require('brotli-wasm') as { CompressStream: new (q: number) => BindgenStream }
  const prevEnc = job(`before (brotli-wasm) encode q${quality}`, () => {
    const s = new bw.CompressStream(quality)
    const parts: Uint8Array[] = []
    for (let ip = 0; ip < data.length; ) {
      const r = s.compress!(data.subarray(ip, ip + STEP), STEP)
      ip += r.input_offset
      parts.push(r.buf)
      r.free()
    }
    for (;;) {
      const r = s.compress!(undefined, STEP)
      parts.push(r.buf)
      const code = r.code
      r.free()
      if (code === 1) break
    }
    s.free()
    return new Uint8Array(Buffer.concat(parts))
  }, roundtrips)
  const nodeDec = job('node:zlib brotliDecompressSync', () => new Uint8Array(zlib.brotliDecompressSync(stream)), ok)
  const nodeEnc = job(`node:zlib brotliCompressSync q${quality}`, () => new Uint8Array(zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality } })), roundtrips)
  timeAll()
  print('brotli')
  const r = (a: Job, b: Job): string => (a.mbps / b.mbps).toFixed(2)
  console.log(`\n- brotli decode: ours / node:zlib = ${r(oursDec, nodeDec)} (target >= 0.7); before / node:zlib = ${r(prevDec, nodeDec)}`)
  console.log(`- brotli encode q${quality}: ours / node:zlib = ${r(oursEnc, nodeEnc)} (target >= 0.6); before / node:zlib = ${r(prevEnc, nodeEnc)}`)
  jobs.length = 0
}

function print(title: string): void {
  console.log(`\n## ${title}, ${(data.length / MiB).toFixed(1)} MiB ${process.env.BENCH_BINARY ? 'binary' : 'text'}, best of ${rounds}`)
  // Markdown (scripts/bench-docs.mjs writes it into docs/performance-engines.md).
  console.log('| job | MB/s |\n|---|---:|')
  for (const j of jobs) console.log(`| ${j.name} | ${j.mbps.toFixed(0)} |`)
}

// ---------------------------------------------------------------------------------------
// wasm bytes per role

/** A wasm module embedded in a JS file as a base64 string. */
function embedded(file: string, pattern: RegExp): number {
  const m = pattern.exec(readFileSync(join(root, 'bench/node_modules', file), 'utf8'))
  if (!m) throw new Error(`no embedded wasm in ${file}`)
  return Buffer.from(m[1]!, 'base64').length
}
const fileBytes = (path: string): number => readFileSync(join(root, path)).length

/**
 * The module each role loads, ours and the third-party build sluice used for it before
 * (@oneidentity/zstd-js for both zstd roles, brotli-dec-wasm, brotli-wasm).
 */
function wasmSizes(): void {
  const ours = { zstdDec: fileBytes('lib/codecs/wasm/zstd-dec.wasm'), zstdEnc: fileBytes('lib/codecs/wasm/zstd-enc.wasm'), brDec: fileBytes('lib/codecs/wasm/brotli-dec.wasm'), brEnc: fileBytes('lib/codecs/wasm/brotli-enc.wasm') }
  const zstdJs = embedded('@oneidentity/zstd-js/wasm/index.js', /base64,([A-Za-z0-9+/=]{1000,})/)
  const roles: Array<[string, number, string, number]> = [
    ['zstd decode', ours.zstdDec, '@oneidentity/zstd-js, both roles', zstdJs],
    ['zstd encode', ours.zstdEnc, '@oneidentity/zstd-js, both roles', zstdJs],
    ['brotli decode', ours.brDec, 'brotli-dec-wasm', fileBytes('bench/node_modules/brotli-dec-wasm/pkg/brotli_dec_wasm_bg.wasm')],
    ['brotli encode', ours.brEnc, 'brotli-wasm (encoder and decoder)', fileBytes('bench/node_modules/brotli-wasm/pkg.web/brotli_wasm_bg.wasm')],
  ]
  console.log('\n## wasm bytes per role (target: not larger than before)')
  console.log('| role | ours, bytes | before, bytes | the build before | ours / before |\n|---|---:|---:|---|---:|')
  for (const [role, mine, name, before] of roles) {
    console.log(`| ${role} | ${mine.toLocaleString('en-US')} | ${before.toLocaleString('en-US')} | ${name} | ${(mine / before).toFixed(2)} |`)
  }
  // Not a build sluice used, for scale: what a zstd module holding the decoder alone weighs.
  console.log(`\n(a decoder-only libzstd build, zstddec's zstddec-stream: ${embedded('zstddec/dist/zstddec-stream.mjs', /const wasm = "([A-Za-z0-9+/=]+)"/)} B)`)
}

const which = process.argv[4] ?? 'all'
if (which === 'all' || which === 'sizes') wasmSizes()
if (which === 'all' || which === 'zstd') await benchZstd()
if (which === 'all' || which === 'brotli') await benchBrotli()
