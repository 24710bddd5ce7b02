/**
 * The one list of runtime cases: the same cases run in Node 20 and 22, Node 20 with
 * web-streams-polyfill's classes (and no global streams), Deno, Bun, workerd and
 * headless Chromium (see `scripts/runtimes.mjs`). A case uses only web APIs and the
 * library's public API (`sluice` and `sluice/fetch`, imported by each runtime's entry
 * through the package's `exports` conditions), so what passes here is what users get.
 *
 * A case that a runtime cannot run throws `Skip` with the reason; the harness counts it
 * as skipped, never as passed.
 */
import type * as Root from '../../index.js'
import type * as FetchAdapter from '../../adapters/fetch/index.js'
import { plainBase64, vectors } from './vectors.js'
import { concatBytes as concat } from '../_bytes.js'

export type Lib = typeof Root
export type FetchLib = typeof FetchAdapter

export interface Context {
  /** Which runtime this is, e.g. `node22`, `chromium`. */
  runtime: string
  lib: Lib
  /** `sluice/fetch`, or null where the entry could not import it. */
  fetchLib: FetchLib | null
  /** The stream classes the cases build on (the runtime's or web-streams-polyfill's). */
  RS: typeof ReadableStream
  /** Spread into every factory's options: `{ streams }` when the classes are not the globals. */
  streamOptions: { streams?: { ReadableStream: typeof ReadableStream; WritableStream: typeof WritableStream } }
  /** Whether the runtime's global stream classes are used (the drop-in classes need them). */
  globalStreams: boolean
  /** Base URL of the local HTTP test server (`http://127.0.0.1:port/`), or null. */
  server: string | null
  /** Why decodeResponse cannot be tested here, when it cannot. */
  noFetch?: string
}

/** Thrown by a case that cannot run in this runtime; the message is the reason. */
export class Skip extends Error {
  override name = 'Skip'
}

export interface Case {
  name: string
  run(ctx: Context): Promise<void>
}

type Format = 'gzip' | 'deflate' | 'deflate-raw' | 'lz4' | 'zstd' | 'brotli'
const FORMATS: readonly Format[] = ['gzip', 'deflate', 'deflate-raw', 'lz4', 'zstd', 'brotli']
/** The formats the web platform's CompressionStream standardises. */
const STANDARD: readonly Format[] = ['gzip', 'deflate', 'deflate-raw']

// ---------------------------------------------------------------------------
// Helpers (web APIs only)

function fail(message: string): never {
  throw new Error(message)
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  const values = new Uint8Array(128)
  for (let i = 0; i < 64; i++) values[alphabet.charCodeAt(i)] = i
  const clean = text.replace(/=+$/, '')
  const out = new Uint8Array((clean.length * 3) >>> 2)
  let bits = 0
  let acc = 0
  let o = 0
  for (let i = 0; i < clean.length; i++) {
    acc = (acc << 6) | values[clean.charCodeAt(i)]!
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[o++] = (acc >>> bits) & 255
    }
  }
  return out
}

function sameBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  if (actual.length !== expected.length) fail(`${what}: ${actual.length} bytes, expected ${expected.length}`)
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) fail(`${what}: byte ${i} is ${actual[i]}, expected ${expected[i]}`)
  }
}

/** ~200 KB of compressible text with some binary: deterministic (an LCG), so every runtime sees the same bytes. */
const sample = /* @__PURE__ */ (() => {
  const words = ['stream', 'codec', 'frame', 'block', 'window', 'literal', 'match', 'offset', 'huffman', 'sluice', 'chunk', 'reader']
  let seed = 12345
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8)
  const parts: string[] = []
  let length = 0
  while (length < 180_000) {
    const w = words[rand() % words.length]! + (rand() % 7 === 0 ? `${rand() % 1000}\n` : ' ')
    parts.push(w)
    length += w.length
  }
  const text = new TextEncoder().encode(parts.join(''))
  const noise = new Uint8Array(20_000)
  for (let i = 0; i < noise.length; i++) noise[i] = rand() & 255
  return concat([text, noise])
})()

/** Splits `bytes` into chunks of awkward sizes (1 byte, primes, 64 KiB). */
function chunked(bytes: Uint8Array): Uint8Array[] {
  const sizes = [1, 7, 1000, 65536, 3, 20011]
  const chunks: Uint8Array[] = []
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length]!
    chunks.push(bytes.slice(at, at + n))
    at += n
  }
  return chunks
}

/** A readable stream of `chunks`, built on the context's classes, pulled one chunk at a time. */
function streamOf(ctx: Context, chunks: readonly Chunk[]): ReadableStream<BufferSource> {
  let i = 0
  return new ctx.RS<BufferSource>(
    {
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++] as BufferSource)
        else controller.close()
      },
    },
    { highWaterMark: 0 },
  )
}

/** Reads `readable` to its end or its error: the bytes that arrived, and the error or null. */
async function countUntilError(readable: ReadableStream<Uint8Array>): Promise<{ received: number; error: unknown }> {
  const reader = readable.getReader()
  let received = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return { received, error: null }
      received += value.length
    }
  } catch (error) {
    return { received, error }
  }
}

async function collect(readable: ReadableStream<Uint8Array>, limit = Infinity): Promise<Uint8Array> {
  const reader = readable.getReader()
  const parts: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (!(value instanceof Uint8Array)) fail(`stream produced ${Object.prototype.toString.call(value)}, expected Uint8Array`)
    parts.push(value)
    total += value.length
    if (total > limit) fail(`stream produced more than ${limit} bytes`)
  }
  return concat(parts)
}

/** Anything a test writes: byte views of any buffer, and (on purpose) non-bytes. */
type Chunk = ArrayBufferView | ArrayBuffer | string

type Pair = { writable: WritableStream<BufferSource>; readable: ReadableStream<Uint8Array> }

function pipe(ctx: Context, chunks: readonly Chunk[], ...pairs: Pair[]): ReadableStream<Uint8Array> {
  let stream = streamOf(ctx, chunks) as ReadableStream<Uint8Array>
  for (const pair of pairs) stream = stream.pipeThrough(pair as ReadableWritablePair<Uint8Array, Uint8Array>)
  return stream
}

/** Awaits `promise`, expecting a rejection; returns the error. */
async function rejection(promise: Promise<unknown>, what: string): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  return fail(`${what}: resolved, expected an error`)
}

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : `(no code: ${String(error)})`
}

function expectCode(ctx: Context, error: unknown, codes: readonly string[], what: string): void {
  if (!(error instanceof ctx.lib.CodecError)) fail(`${what}: ${String(error)} is not a CodecError`)
  if (!codes.includes(error.code)) fail(`${what}: code ${error.code} (${error.message}), expected ${codes.join(' or ')}`)
}

const decodeFactory = (lib: Lib, format: Format) =>
  ({ gzip: lib.gzipDecode, deflate: lib.deflateDecode, 'deflate-raw': lib.deflateRawDecode, lz4: lib.lz4Decode, zstd: lib.zstdDecode, brotli: lib.brotliDecode })[format]
const encodeFactory = (lib: Lib, format: Format) =>
  ({ gzip: lib.gzipEncode, deflate: lib.deflateEncode, 'deflate-raw': lib.deflateRawEncode, lz4: lib.lz4Encode, zstd: lib.zstdEncode, brotli: lib.brotliEncode })[format]

/** The runtime's own `CompressionStream`/`DecompressionStream`, if it has them for `format`. */
function nativeClasses(format: Format): { C: typeof CompressionStream; D: typeof DecompressionStream } | null {
  const g = globalThis as { CompressionStream?: typeof CompressionStream; DecompressionStream?: typeof DecompressionStream }
  if (typeof g.CompressionStream !== 'function' || typeof g.DecompressionStream !== 'function') return null
  try {
    new g.DecompressionStream(format as CompressionFormat)
    new g.CompressionStream(format as CompressionFormat)
  } catch {
    return null
  }
  return { C: g.CompressionStream, D: g.DecompressionStream }
}

function needGlobals(ctx: Context): void {
  if (!ctx.globalStreams) throw new Skip("the runtime's own CompressionStream needs the global stream classes, which this run removed")
}

// ---------------------------------------------------------------------------
// The cases

export const cases: Case[] = []
const add = (name: string, run: (ctx: Context) => Promise<void>) => cases.push({ name, run })

for (const format of FORMATS) {
  add(`${format}: stream round trip, awkward chunk sizes`, async (ctx) => {
    const encoded = await collect(pipe(ctx, chunked(sample), encodeFactory(ctx.lib, format)({ ...ctx.streamOptions })))
    if (encoded.length >= sample.length) fail(`encoded ${sample.length} bytes to ${encoded.length}: no compression`)
    const decoded = await collect(pipe(ctx, chunked(encoded), decodeFactory(ctx.lib, format)({ ...ctx.streamOptions, chunkSize: 4096 })))
    sameBytes(decoded, sample, `${format} round trip`)
  })
}

for (const format of FORMATS) {
  add(`${format}: CompressionStream -> DecompressionStream (drop-in classes)`, async (ctx) => {
    const decoded = await collect(pipe(ctx, chunked(sample), new ctx.lib.CompressionStream(format, ctx.streamOptions), new ctx.lib.DecompressionStream(format, ctx.streamOptions)))
    sameBytes(decoded, sample, `${format} classes`)
  })
}

for (const format of FORMATS) {
  add(`${format}: BYOB reads of the decoder's readable into one reused buffer; flush: 'write' where the engine can`, async (ctx) => {
    const encoded = await collect(pipe(ctx, chunked(sample), encodeFactory(ctx.lib, format)({ ...ctx.streamOptions })))
    const pair = decodeFactory(ctx.lib, format)({ ...ctx.streamOptions })
    const writer = pair.writable.getWriter()
    const fed = (async () => {
      for (const c of chunked(encoded)) await writer.write(c)
      await writer.close()
    })()
    const reader = (pair.readable as ReadableStream<Uint8Array>).getReader({ mode: 'byob' })
    let buffer = new ArrayBuffer(1000)
    const parts: Uint8Array[] = []
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer))
      if (done) break
      parts.push(value!.slice())
      buffer = value!.buffer as ArrayBuffer
    }
    await fed
    sameBytes(concat(parts), sample, `${format} BYOB`)
    if (format === 'brotli') return // the wasm brotli encoder has no flush
    const flushing = encodeFactory(ctx.lib, format)({ ...ctx.streamOptions, flush: 'write' })
    const w = flushing.writable.getWriter()
    const r = flushing.readable.getReader()
    const piece = sample.subarray(0, 2000)
    const written = w.write(piece)
    const out: Uint8Array[] = []
    // After the write, the output so far decodes to the piece (read until it does).
    for (let reads = 0; reads < 50; reads++) {
      out.push((await r.read()).value!)
      const d = decodeFactory(ctx.lib, format)({ ...ctx.streamOptions })
      const dw = d.writable.getWriter()
      dw.write(concat(out)).catch(() => undefined)
      const dr = d.readable.getReader()
      let got = 0
      while (got < piece.length) {
        const x = await dr.read()
        if (x.done) break
        got += x.value.length
      }
      dr.cancel().catch(() => undefined)
      if (got >= piece.length) break
    }
    await written
    await r.cancel()
  })
}

for (const format of STANDARD) {
  add(`${format}: interoperates with the runtime's own CompressionStream/DecompressionStream`, async (ctx) => {
    needGlobals(ctx)
    const native = nativeClasses(format)
    if (!native) throw new Skip(`this runtime has no native CompressionStream('${format}')`)
    const ours = await collect(pipe(ctx, [sample], new ctx.lib.CompressionStream(format, ctx.streamOptions), new native.D(format as CompressionFormat) as unknown as Pair))
    sameBytes(ours, sample, `ours -> native ${format}`)
    const theirs = await collect(pipe(ctx, [sample], new native.C(format as CompressionFormat) as unknown as Pair, new ctx.lib.DecompressionStream(format, ctx.streamOptions)))
    sameBytes(theirs, sample, `native -> ours ${format}`)
  })
}

for (const format of FORMATS) {
  add(`${format}: one-shot encode/decode and the span API`, async (ctx) => {
    const encoded = (await ctx.lib.encode(format, sample, { level: format === 'zstd' ? 5 : undefined })) as Uint8Array<ArrayBuffer>
    sameBytes(await ctx.lib.decode(format, encoded), sample, `${format} one-shot`)
    const decoder = await ctx.lib.createDecoder(format)
    const dst = new Uint8Array(sample.length)
    const status = decoder.transform(encoded, dst, true)
    if (status !== ctx.lib.Status.Done) fail(`span decoder returned ${ctx.lib.statusName(status)}, expected Done`)
    if (decoder.consumed !== encoded.length) fail(`consumed ${decoder.consumed} of ${encoded.length}`)
    sameBytes(dst.subarray(0, decoder.written), sample, `${format} span decode`)
    decoder.dispose()
  })
}

const plain = /* @__PURE__ */ fromBase64(plainBase64)
for (const [name, vector] of Object.entries(vectors)) {
  add(`known vector ${name} (${vector.made}): stream and one-shot`, async (ctx) => {
    const bytes = fromBase64(vector.base64)
    // One byte at a time through the stream: every header and block boundary is split.
    const ones: Uint8Array[] = []
    for (let i = 0; i < bytes.length; i++) ones.push(bytes.subarray(i, i + 1))
    sameBytes(await collect(pipe(ctx, ones, decodeFactory(ctx.lib, vector.format)({ ...ctx.streamOptions }))), plain, `${name} streamed`)
    sameBytes(await ctx.lib.decode(vector.format, bytes), plain, `${name} one-shot`)
  })
}

/** A corrupted copy of each format's vector, and the codes it may fail with. */
const corruptions: Record<Format, { vector: string; corrupt(bytes: Uint8Array): void; codes: string[] }> = {
  // RFC 1952 §2.3.1: the CRC32 of the data is the trailer's first 4 bytes.
  gzip: { vector: 'gzip', corrupt: (b) => void (b[b.length - 6]! ^= 0x55), codes: ['CHECKSUM_MISMATCH'] },
  // RFC 1950 §2.2: the Adler-32 of the data ends the stream.
  deflate: { vector: 'deflate', corrupt: (b) => void (b[b.length - 1]! ^= 0x55), codes: ['CHECKSUM_MISMATCH'] },
  // RFC 1951 §3.2.3: block type 3 is reserved (an error).
  'deflate-raw': { vector: 'deflate-raw', corrupt: (b) => void (b[0] = 0x07), codes: ['INVALID_DATA'] },
  // LZ4 frame format §2: -BX stores a block checksum after each block.
  lz4: { vector: 'lz4', corrupt: (b) => void (b[40]! ^= 0x55), codes: ['CHECKSUM_MISMATCH', 'INVALID_DATA'] },
  // RFC 8878 §3.1.1: --check appends the low 32 bits of the XXH64 of the content.
  zstd: { vector: 'zstd', corrupt: (b) => void (b[b.length - 2]! ^= 0x55), codes: ['CHECKSUM_MISMATCH'] },
  // RFC 7932 has no checksum; WBITS 0b0100001 is its one invalid window size (§9.1), which
  // large-window brotli (RFC 9841) uses as its marker: a window above the limit.
  brotli: { vector: 'brotli', corrupt: (b) => void (b[0] = 0x11), codes: ['LIMIT_EXCEEDED'] },
}

for (const format of FORMATS) {
  add(`${format}: corrupt input errors the stream with a CodecError`, async (ctx) => {
    const { vector, corrupt, codes } = corruptions[format]
    const bytes = fromBase64(vectors[vector]!.base64)
    corrupt(bytes)
    const error = await rejection(collect(pipe(ctx, chunked(bytes), decodeFactory(ctx.lib, format)({ ...ctx.streamOptions }))), `corrupt ${format}`)
    expectCode(ctx, error, codes, `corrupt ${format}`)
    expectCode(ctx, await rejection(ctx.lib.decode(format, bytes), `one-shot corrupt ${format}`), codes, `one-shot corrupt ${format}`)
  })
  add(`${format}: truncated input errors with TRUNCATED`, async (ctx) => {
    const bytes = fromBase64(vectors[corruptions[format].vector]!.base64)
    const cut = bytes.subarray(0, bytes.length - 3)
    expectCode(ctx, await rejection(collect(pipe(ctx, [cut], decodeFactory(ctx.lib, format)({ ...ctx.streamOptions }))), `truncated ${format}`), ['TRUNCATED'], `truncated ${format}`)
  })
}

for (const format of ['gzip', 'zstd', 'lz4', 'brotli'] as const) {
  add(`${format}: a bomb stops at maxOutputBytes with LIMIT_EXCEEDED`, async (ctx) => {
    const zeros = new Uint8Array(8 << 20)
    const bomb = await ctx.lib.encode(format, zeros)
    const limit = 1 << 20
    const { received, error } = await countUntilError(pipe(ctx, [bomb], decodeFactory(ctx.lib, format)({ ...ctx.streamOptions, maxOutputBytes: limit })))
    if (error === null) fail(`decoded all ${received} bytes past the ${limit}-byte limit`)
    expectCode(ctx, error, ['LIMIT_EXCEEDED'], `${format} bomb`)
    if (received > limit) fail(`received ${received} bytes, more than the ${limit}-byte limit`)
  })
}

add('DecompressionStream: unknown format throws a TypeError', async (ctx) => {
  let error: unknown = null
  try {
    new ctx.lib.DecompressionStream('zip', ctx.streamOptions)
  } catch (e) {
    error = e
  }
  if (!(error instanceof TypeError)) fail(`got ${String(error)}, expected a TypeError`)
  let error2: unknown = null
  try {
    new ctx.lib.CompressionStream('lz4-block', ctx.streamOptions)
  } catch (e) {
    error2 = e
  }
  if (!(error2 instanceof TypeError)) fail(`CompressionStream('lz4-block'): got ${String(error2)}, expected a TypeError`)
})

add('DecompressionStream: corrupt, truncated and trailing input give TypeErrors with the CodecError as cause', async (ctx) => {
  const gz = fromBase64(vectors.gzip!.base64)
  const trailing = concat([gz, new Uint8Array([1, 2, 3])])
  const corrupt = gz.slice()
  corrupt[gz.length - 6]! ^= 0x55
  const inputs: Array<[string, Uint8Array, string]> = [
    ['corrupt', corrupt, 'CHECKSUM_MISMATCH'],
    ['truncated', gz.subarray(0, gz.length - 1), 'TRUNCATED'],
    ['trailing', trailing, 'TRAILING_DATA'],
    // The web platform's gzip is one member: a second one is trailing data.
    ['two members', fromBase64(vectors['gzip-two-members']!.base64), 'TRAILING_DATA'],
  ]
  for (const [what, bytes, code] of inputs) {
    const error = await rejection(collect(pipe(ctx, [bytes], new ctx.lib.DecompressionStream('gzip', ctx.streamOptions))), what)
    if (!(error instanceof TypeError)) fail(`${what}: ${String(error)} is not a TypeError`)
    if (!(error.cause instanceof ctx.lib.CodecError) || error.cause.code !== code) fail(`${what}: cause ${String(error.cause)}, expected a CodecError ${code}`)
  }
})

add('DecompressionStream: accepts ArrayBuffer and DataView chunks, rejects strings with a TypeError', async (ctx) => {
  const gz = fromBase64(vectors.gzip!.base64)
  const ab = gz.buffer.slice(gz.byteOffset, gz.byteOffset + 100)
  const dv = new DataView(gz.buffer, gz.byteOffset + 100, gz.length - 100)
  sameBytes(await collect(pipe(ctx, [ab, dv], new ctx.lib.DecompressionStream('gzip', ctx.streamOptions))), plain, 'ArrayBuffer + DataView chunks')
  const error = await rejection(collect(pipe(ctx, ['not bytes'], new ctx.lib.DecompressionStream('gzip', ctx.streamOptions))), 'string chunk')
  if (!(error instanceof TypeError)) fail(`string chunk: ${String(error)} is not a TypeError`)
})

add('DecompressionStream: a SharedArrayBuffer-backed chunk is a TypeError (WebIDL BufferSource)', async (ctx) => {
  if (typeof SharedArrayBuffer !== 'function') throw new Skip('SharedArrayBuffer is not available (not cross-origin isolated)')
  const gz = fromBase64(vectors.gzip!.base64)
  const shared = new Uint8Array(new SharedArrayBuffer(gz.length))
  shared.set(gz)
  const error = await rejection(collect(pipe(ctx, [shared], new ctx.lib.DecompressionStream('gzip', ctx.streamOptions))), 'shared chunk')
  if (!(error instanceof TypeError)) fail(`shared chunk: ${String(error)} is not a TypeError`)
})

add('zstd and lz4 DecompressionStream decode concatenated frames', async (ctx) => {
  for (const name of ['zstd-two-frames', 'lz4-two-frames'] as const) {
    const v = vectors[name]!
    sameBytes(await collect(pipe(ctx, [fromBase64(v.base64)], new ctx.lib.DecompressionStream(v.format, ctx.streamOptions))), plain, name)
  }
})

add('bad options throw a CodecError INVALID_OPTION synchronously', async (ctx) => {
  const attempts: Array<[string, () => unknown]> = [
    ['gzip level 10', () => ctx.lib.gzipEncode({ ...ctx.streamOptions, level: 10 })],
    ['zstd maxOutputBytes -1', () => ctx.lib.zstdDecode({ ...ctx.streamOptions, maxOutputBytes: -1 })],
    ['lz4 chunkSize 1', () => ctx.lib.lz4Decode({ ...ctx.streamOptions, chunkSize: 1 })],
  ]
  for (const [what, attempt] of attempts) {
    let error: unknown = null
    try {
      attempt()
    } catch (e) {
      error = e
    }
    expectCode(ctx, error, ['INVALID_OPTION'], what)
  }
})

add('an AbortSignal errors the stream with its reason', async (ctx) => {
  if (typeof AbortController !== 'function') throw new Skip('no AbortController')
  const controller = new AbortController()
  const reason = new Error('stop here')
  const encoded = await ctx.lib.encode('gzip', sample)
  const reader = pipe(ctx, chunked(encoded), ctx.lib.gzipDecode({ ...ctx.streamOptions, signal: controller.signal, chunkSize: 1024 })).getReader()
  await reader.read()
  controller.abort(reason)
  const error = await rejection((async () => { for (;;) if ((await reader.read()).done) return })(), 'aborted read')
  if (error !== reason) fail(`got ${String(error)}, expected the abort reason`)
})

for (const format of ['gzip', 'brotli'] as const) {
  add(`${format}: engine 'node' works where node:zlib exists, else fails with ENGINE_UNAVAILABLE (no silent fallback)`, async (ctx) => {
    const proc = (globalThis as { process?: { versions?: { node?: string } } }).process
    const hasNodeZlib = typeof proc?.versions?.node === 'string'
    const packed = await ctx.lib.encode(format, sample)
    const attempt = collect(pipe(ctx, [packed], decodeFactory(ctx.lib, format)({ ...ctx.streamOptions, engine: 'node' })))
    if (hasNodeZlib) sameBytes(await attempt, sample, `${format} via node:zlib`)
    else expectCode(ctx, await rejection(attempt, `engine 'node' without node:zlib`), ['ENGINE_UNAVAILABLE'], `engine 'node'`)
  })
}

add("zstd: engine 'node' decodes on Node >= 22.15; elsewhere it works or fails with ENGINE_UNAVAILABLE", async (ctx) => {
  const g = globalThis as { process?: { versions?: { node?: string }; release?: { name?: string } }; Deno?: unknown; Bun?: unknown }
  const [major = 0, minor = 0] = (g.process?.versions?.node ?? '0.0').split('.').map(Number)
  const realNode = g.process?.release?.name === 'node' && !g.Deno && !g.Bun
  const mustWork = realNode && (major > 22 || (major === 22 && minor >= 15))
  const packed = await ctx.lib.encode('zstd', sample)
  // Two frames in awkward pieces: each frame's end is found from its headers.
  const attempt = collect(pipe(ctx, chunked(concat([packed, packed])), ctx.lib.zstdDecode({ ...ctx.streamOptions, engine: 'node' })))
  let out: Uint8Array
  try {
    out = await attempt
  } catch (error) {
    if (mustWork) throw error
    expectCode(ctx, error, ['ENGINE_UNAVAILABLE'], `engine 'node' zstd`)
    return
  }
  sameBytes(out, concat([sample, sample]), 'zstd via node:zlib')
})

// ---------------------------------------------------------------------------
// decodeResponse against the local HTTP server (scripts/runtimes.mjs serves it).

function needServer(ctx: Context): { fetchLib: FetchLib; base: string } {
  if (ctx.noFetch) throw new Skip(ctx.noFetch)
  if (!ctx.fetchLib) throw new Skip('sluice/fetch is not built (adapters/fetch missing)')
  if (!ctx.server) throw new Skip('no local HTTP server reachable from this runtime')
  if (typeof fetch !== 'function') throw new Skip('no fetch')
  return { fetchLib: ctx.fetchLib, base: ctx.server }
}

/**
 * Whether this runtime's fetch decoded the `br` layer of `coding` by itself. `br` has no
 * magic number, so decodeResponse cannot tell, and the caller says so with `skip`.
 * Runtimes differ: Node 20's undici decodes `br` alone but no layer at all once the list
 * holds a coding it does not know (zstd). The server sends the encoded length in
 * `x-encoded-length`; a body of another length was decoded on the way.
 */
async function runtimeDecodedBrotli(base: string, coding: string): Promise<boolean> {
  const res = await fetch(new URL(`encoded?coding=${encodeURIComponent(coding)}`, base))
  const received = (await res.arrayBuffer()).byteLength
  return received !== Number(res.headers.get('x-encoded-length'))
}

for (const coding of ['gzip', 'zstd', 'br', 'deflate', 'gzip, zstd', 'zstd, gzip, br'] as const) {
  add(`decodeResponse: Content-Encoding "${coding}" from a local server, with the runtime's fetch`, async (ctx) => {
    const { fetchLib, base } = needServer(ctx)
    const skip = coding.includes('br') && (await runtimeDecodedBrotli(base, coding)) ? ['br'] : []
    const res = await fetch(new URL(`encoded?coding=${encodeURIComponent(coding)}`, base))
    if (res.status !== 200) fail(`server answered ${res.status}`)
    const decoded = fetchLib.decodeResponse(res, { skip })
    if (decoded.headers.get('content-encoding') !== null) fail('content-encoding is still set on the decoded response')
    sameBytes(new Uint8Array(await decoded.arrayBuffer()), plain, `decodeResponse ${coding}`)
  })
}

add('decodeResponse: a zstd bomb stops at maxOutputBytes', async (ctx) => {
  const { fetchLib, base } = needServer(ctx)
  const res = await fetch(new URL('bomb', base))
  const limit = 1 << 20
  const { received, error } = await countUntilError(fetchLib.decodeResponse(res, { maxOutputBytes: limit }).body!)
  if (error === null) {
    // 64 MiB of zeros arrived: this runtime's fetch decoded zstd itself (Chromium does),
    // so no layer was left for decodeResponse and its limit does not apply.
    if (received === 64 << 20) throw new Skip(`this runtime's fetch decodes zstd itself (${received} bytes arrived decoded): maxOutputBytes cannot apply`)
    fail(`decoded ${received} bytes without an error`)
  }
  expectCode(ctx, error, ['LIMIT_EXCEEDED'], 'zstd bomb')
  if (received > limit) fail(`received ${received} bytes, more than the ${limit}-byte limit`)
})

// Threads (issue 22): a parallel case where the runtime has workers (Node, Deno, Bun:
// node:worker_threads of the ESM build; Chromium: module Web Workers loading
// sluice-worker.js beside the page's bundle), ENGINE_UNAVAILABLE on workerd.
add('threads: gzip and zstd on 2 workers give the block-mode bytes and decode (zstd and LZ4 in parallel, one-shot and a stream); workerd refuses threads > 1', async (ctx) => {
  // Above the 1 MiB below which jobs stay on the caller's thread.
  const big = new Uint8Array(2 * 1024 * 1024 + 12345)
  for (let at = 0; at < big.length; at += sample.length) big.set(sample.subarray(0, Math.min(sample.length, big.length - at)), at)
  if (ctx.runtime === 'workerd') {
    const error = await ctx.lib.encode('gzip', big, { threads: 2 }).then(
      () => null,
      (e: unknown) => e,
    )
    if (error === null) fail('threads: 2 ran on workerd, which has no workers')
    expectCode(ctx, error, ['ENGINE_UNAVAILABLE'], 'workerd threads: 2')
    // A decoding stream with threads: 2 errors the same way when it starts.
    const frames = await ctx.lib.encode('zstd', big, { blockSize: 256 * 1024 })
    const streamError = await collect(pipe(ctx, [frames], ctx.lib.zstdDecode({ ...ctx.streamOptions, threads: 2 }))).then(
      () => null,
      (e: unknown) => e,
    )
    if (streamError === null) fail('a decoding stream with threads: 2 ran on workerd')
    expectCode(ctx, streamError, ['ENGINE_UNAVAILABLE'], 'workerd zstdDecode threads: 2')
    // 'auto' is one thread there: block mode inline, the same bytes as threads: 1.
    sameBytes(await ctx.lib.encode('gzip', big, { threads: 'auto' }), await ctx.lib.encode('gzip', big, { blockSize: 128 * 1024 }), "workerd threads: 'auto'")
    return
  }
  const two = await ctx.lib.encode('gzip', big, { threads: 2 })
  sameBytes(two, await ctx.lib.encode('gzip', big, { threads: 1, blockSize: 128 * 1024 }), 'gzip threads 2 vs 1')
  sameBytes(await ctx.lib.decode('gzip', two), big, 'gzip threads round trip')
  const frames = await ctx.lib.encode('zstd', big, { threads: 2, blockSize: 256 * 1024 })
  sameBytes(await ctx.lib.decode('zstd', frames, { threads: 2 }), big, 'zstd frames decoded on workers')
  // Parallel decoding: LZ4 independent blocks one-shot, zstd frames as a stream.
  const lz = await ctx.lib.encode('lz4', big, { blockSize: 65536 })
  sameBytes(await ctx.lib.decode('lz4', lz, { threads: 2 }), big, 'lz4 blocks decoded on workers')
  sameBytes(await collect(pipe(ctx, chunked(frames), ctx.lib.zstdDecode({ ...ctx.streamOptions, threads: 2 }))), big, 'zstd decoding stream on workers')
  await ctx.lib.closeWorkers()
})

add("zstd seekable on engine 'node': the same archive layout where node:zlib has zstd, else ENGINE_UNAVAILABLE", async (ctx) => {
  const g = globalThis as { process?: { versions?: { node?: string }; release?: { name?: string } }; Deno?: unknown; Bun?: unknown }
  const [major = 0, minor = 0] = (g.process?.versions?.node ?? '0.0').split('.').map(Number)
  const mustWork = g.process?.release?.name === 'node' && !g.Deno && !g.Bun && (major > 22 || (major === 22 && minor >= 15))
  let archive: Uint8Array
  try {
    archive = await ctx.lib.encode('zstd', plain, { seekable: { checksums: true }, frameSize: 1000, engine: 'node' })
  } catch (error) {
    if (mustWork) throw error
    expectCode(ctx, error, ['ENGINE_UNAVAILABLE'], `engine 'node' seekable`)
    return
  }
  const reader = await ctx.lib.openZstdSeekable(archive)
  if (reader.frames.length !== Math.ceil(plain.length / 1000)) fail(`${reader.frames.length} frames`)
  sameBytes(await reader.read(2500, 5000), plain.subarray(2500, 7500), 'read(2500, 5000) of a node:zlib archive')
  sameBytes(await ctx.lib.decode('zstd', archive), plain, 'decoded whole')
})

add('zstd --long=31: a 2^31 window is LIMIT_EXCEEDED on wasm (a 32-bit libzstd), naming the need', async (ctx) => {
  const { base } = needServer(ctx)
  const file = new Uint8Array(await (await fetch(new URL('long31.zst', base))).arrayBuffer())
  const error = await rejection(ctx.lib.decode('zstd', file, { maxWindowLog: 31 }), 'wasm --long=31')
  expectCode(ctx, error, ['LIMIT_EXCEEDED'], 'wasm --long=31')
  if (!/64-bit/.test(String((error as Error).message))) fail(`message does not name the need: ${String((error as Error).message)}`)
})

add("zstd --long=31: engine 'node' (64-bit libzstd, Node >= 22.15) decodes it with maxWindowLog 31", async (ctx) => {
  const { base } = needServer(ctx)
  const g = globalThis as { process?: { versions?: { node?: string }; release?: { name?: string } }; Deno?: unknown; Bun?: unknown }
  const [major = 0, minor = 0] = (g.process?.versions?.node ?? '0.0').split('.').map(Number)
  if (!(g.process?.release?.name === 'node' && !g.Deno && !g.Bun && (major > 22 || (major === 22 && minor >= 15)))) throw new Skip("engine 'node' zstd needs Node >= 22.15")
  const file = new Uint8Array(await (await fetch(new URL('long31.zst', base))).arrayBuffer())
  sameBytes(await ctx.lib.decode('zstd', file, { maxWindowLog: 31, engine: 'node' }), plain, "engine 'node' --long=31")
})

add('zstd seekable: one range of an archive read over HTTP ranges', async (ctx) => {
  const { base } = needServer(ctx)
  const source = await ctx.lib.httpRangeSource(new URL('seekable.zst', base).href)
  const archive = await ctx.lib.openZstdSeekable(source)
  if (archive.size !== plain.length) fail(`size ${archive.size}, expected ${plain.length}`)
  if (archive.frames.length !== Math.ceil(plain.length / 1000)) fail(`${archive.frames.length} frames`)
  sameBytes(await archive.read(5000, 2500), plain.subarray(5000, 7500), 'read(5000, 2500)')
  // The size, the table, then one request for the three frames that cover the range.
  if (source.requests !== 3) fail(`${source.requests} requests, expected 3`)
})

export { plain as plainText, fromBase64 }
