// Child process of test/gigabytes.test.ts: one gigabyte-sized case per process, run
// with a V8 heap limit while the parent watches its RSS. Prints one JSON line:
// {"ok", "detail", "base", "peak", ...}: `base` is the RSS before the case's big
// allocations, `peak` the process's maximum resident set size (getrusage), so it covers
// every allocation made.
//
// Usage: node --import tsx --expose-gc test/_gigabyte-child.ts <case> [args...]
//   pack <format> <file>          the 1 GiB corpus compressed by the format's CLI, to <file>
//   encode <format>               one-shot encode() of the 1 GiB corpus, checked by the CLI
//   decode <format> <file>        one-shot decode() of a CLI-made file, checked byte for byte
//   chunk <surface>               the corpus as ONE 1 GiB chunk through a stream surface
//   long <format> [web]           a 5 GiB stream decoded through decodeStream(format), or with
//                                 `web` through DecompressionStream(format) (no option, no cap)
//   skip-error                    an error 4 GiB into a zstd stream: its offset, exactly
//   byob                          1 GiB of zstd zeros through zstdDecode() into one 64 KiB BYOB buffer
import { spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import * as zlib from 'node:zlib'
import { encodeResponse, decodeResponse } from '../adapters/fetch/index.js'
import { nodeEncode } from '../adapters/node/index.js'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import type { Format } from '../lib/codec.js'
import { CompressionStream, DecompressionStream, decodeStream, zstdDecode, zstdEncode } from '../streams/index.js'

const MiB = 1 << 20
const GiB = 1 << 30
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const rss = (): number => process.memoryUsage().rss
const peak = (): number => process.resourceUsage().maxRSS * 1024

// ---------------------------------------------------------------------------------------
// The corpus: 1 GiB (or any length) of text-like bytes, a 16 KiB block of words repeated
// (inside every codec's window, so that compressing and decoding it are quick), with
// the position written every 64 KiB (so that a block decoded to the wrong place shows).
// Made or checked piece by piece, never held twice.

const BLOCK = 16 * 1024
const base = (() => {
  const words = new TextEncoder().encode('the quick brown fox jumps over the lazy dog; sluice streams zstd, gzip and lz4 frames of any size. ')
  const b = new Uint8Array(BLOCK)
  let s = 0x9e3779b9
  for (let i = 0; i < b.length; ) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    const w = (s >>> 8) % (words.length - 12)
    const n = Math.min(b.length - i, 4 + ((s >>> 3) & 7))
    b.set(words.subarray(w, w + n), i)
    i += n
  }
  return b
})()

/** Writes the corpus bytes `[at, at + out.length)` into `out`. */
function corpus(out: Uint8Array, at: number): void {
  for (let o = 0; o < out.length; ) {
    const p = at + o
    const off = p % BLOCK
    const n = Math.min(out.length - o, BLOCK - off)
    out.set(base.subarray(off, off + n), o)
    o += n
  }
  // The position, every 64 KiB: 8 bytes little-endian.
  const first = Math.ceil(at / 65536) * 65536
  for (let p = first; p < at + out.length; p += 65536) {
    for (let k = 0; k < 8 && p + k < at + out.length; k++) out[p - at + k] = Math.floor(p / 256 ** k) & 0xff
  }
}

/** The whole corpus of `n` bytes, in one array. */
function corpusOf(n: number): Uint8Array {
  const out = new Uint8Array(n)
  corpus(out, 0)
  return out
}

/** Compares streamed bytes with what they should be, and counts them. */
class Checker {
  at = 0
  bad = -1
  private readonly scratch = new Uint8Array(4 * MiB)
  constructor(private readonly expected: (out: Uint8Array, at: number) => void) {}
  take(chunk: Uint8Array): void {
    for (let o = 0; o < chunk.length; ) {
      const n = Math.min(chunk.length - o, this.scratch.length)
      const want = this.scratch.subarray(0, n)
      this.expected(want, this.at)
      if (this.bad < 0 && Buffer.compare(chunk.subarray(o, o + n), want) !== 0) this.bad = this.at
      this.at += n
      o += n
    }
  }
}

/** The reference CLI that decodes `format`, as [command, arguments]. */
const CLI: Record<string, [string, string[]]> = {
  zstd: ['zstd', ['-d', '-c', '-q']],
  lz4: ['lz4', ['-d', '-c', '-q']],
  gzip: ['gzip', ['-d', '-c']],
}

/** Pipes `data` (or the chunks `write` gives) through a CLI; checks its output against the corpus. */
async function throughCli(command: string, args: string[], write: (stdin: NodeJS.WritableStream) => Promise<void>): Promise<Checker> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  const check = new Checker(corpus)
  child.stdout.on('data', (c: Buffer) => check.take(c))
  const done = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)))
  await write(child.stdin)
  child.stdin.end()
  const code = await done
  if (code !== 0) throw new Error(`${command} exited ${code}`)
  return check
}

/** Writes `bytes` to a Node writable with its backpressure. */
async function writeAll(stdin: NodeJS.WritableStream, bytes: Uint8Array): Promise<void> {
  for (let o = 0; o < bytes.length; o += 4 * MiB) {
    if (!stdin.write(bytes.subarray(o, o + 4 * MiB))) await new Promise((r) => stdin.once('drain', r))
  }
}

/** Reads a WHATWG stream into a Node writable (a CLI's stdin). */
async function pipeWeb(stream: ReadableStream<Uint8Array>, stdin: NodeJS.WritableStream): Promise<void> {
  const reader = stream.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    if (!stdin.write(r.value)) await new Promise((res) => stdin.once('drain', res))
  }
}

/** A Buffer viewed as a Uint8Array (`new Uint8Array(buffer)` would copy it). */
const bytesOf = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)

function report(result: Record<string, unknown>): void {
  const cpu = process.cpuUsage()
  console.log(JSON.stringify({ ...result, peak: peak(), cpu: (cpu.user + cpu.system) / 1e6 }))
}

/** The engine loaded and the first allocations made, so that `base` is the case's own. */
async function warm(format: Format): Promise<number> {
  await decode(format, await encode(format, base.subarray(0, 64 * 1024)))
  gc()
  return rss()
}

const [mode, arg, file] = process.argv.slice(2) as [string, string, string]

if (mode === 'pack') {
  // The corpus through the format's CLI (no content size: it reads a pipe), to the file.
  const [command, args] = { zstd: ['zstd', ['-1', '-c', '-q']], lz4: ['lz4', ['-1', '-c', '-q']], gzip: ['gzip', ['-1', '-c']] }[arg] as [string, string[]]
  const out = openSync(file, 'w')
  const child = spawn(command, args, { stdio: ['pipe', out, 'inherit'] })
  const stdin = child.stdin!
  const done = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)))
  const piece = new Uint8Array(16 * MiB)
  for (let at = 0; at < GiB; at += piece.length) {
    corpus(piece, at)
    if (!stdin.write(piece.slice())) await new Promise((r) => stdin.once('drain', r))
  }
  stdin.end()
  const code = await done
  closeSync(out)
  report({ ok: code === 0 })
} else if (mode === 'encode') {
  const format = arg as Format
  const before = await warm(format)
  const input = corpusOf(GiB)
  const encoded = await encode(format, input)
  const after = peak()
  const [command, args] = CLI[format]!
  const check = await throughCli(command, args, (stdin) => writeAll(stdin, encoded))
  report({ ok: check.bad < 0 && check.at === GiB, detail: `${format}: ${encoded.length} bytes, the CLI decoded ${check.at} bytes${check.bad >= 0 ? `, wrong at ${check.bad}` : ''}`, base: before, casePeak: after, input: GiB, output: encoded.length })
} else if (mode === 'decode') {
  const format = arg as Format
  const packed = bytesOf(readFileSync(file))
  const before = await warm(format)
  const out = await decode(format, packed)
  const after = peak()
  const check = new Checker(corpus)
  check.take(out)
  const exact = out.byteOffset === 0 && out.buffer.byteLength === out.length
  report({ ok: check.bad < 0 && out.length === GiB && exact, detail: `${format}: ${packed.length} bytes decoded to ${out.length}${exact ? '' : ' (not an exact buffer)'}${check.bad >= 0 ? `, wrong at ${check.bad}` : ''}`, base: before, casePeak: after, input: packed.length, output: out.length })
} else if (mode === 'chunk') {
  const surface = arg
  const before = await warm('zstd')
  // The encoders' input; decodeResponse's is a frame of it, made straight from the corpus.
  const input = surface === 'decodeResponse' ? new Uint8Array(0) : corpusOf(GiB)
  let check: Checker
  const one = (bytes: Uint8Array) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes)
        c.close()
      },
    })
  if (surface === 'factory') {
    check = await throughCli('zstd', ['-d', '-c', '-q'], (stdin) => pipeWeb(one(input).pipeThrough(zstdEncode()), stdin))
  } else if (surface === 'web') {
    check = await throughCli('zstd', ['-d', '-c', '-q'], (stdin) => pipeWeb(one(input).pipeThrough(new CompressionStream('zstd') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>), stdin))
  } else if (surface === 'node') {
    check = await throughCli('zstd', ['-d', '-c', '-q'], async (stdin) => {
      const e = nodeEncode('zstd')
      e.on('data', (c: Buffer) => {
        if (!stdin.write(c)) {
          e.pause()
          stdin.once('drain', () => e.resume())
        }
      })
      const ended = new Promise((resolve, reject) => e.on('end', resolve).on('error', reject))
      e.end(input)
      await ended
    })
  } else if (surface === 'encodeResponse') {
    const request = new Request('http://localhost/', { headers: { 'accept-encoding': 'zstd' } })
    const response = await encodeResponse(request, new Response(one(input), { headers: { 'content-type': 'text/plain' } }))
    if (response.headers.get('content-encoding') !== 'zstd') throw new Error('not encoded')
    check = await throughCli('zstd', ['-d', '-c', '-q'], (stdin) => pipeWeb(response.body!, stdin))
  } else if (surface === 'decodeResponse') {
    // One 1 GiB chunk of zstd: a frame of raw blocks (RFC 8878 3.1.1.2), written here.
    const frame = rawZstdCorpus(GiB)
    const response = new Response(one(frame), { headers: { 'content-encoding': 'zstd' } })
    check = new Checker(corpus)
    const reader = decodeResponse(response).body!.getReader()
    for (let r = await reader.read(); !r.done; r = await reader.read()) check.take(r.value)
  } else throw new Error(`unknown surface ${surface}`)
  report({ ok: check.bad < 0 && check.at === GiB, detail: `${surface}: ${check.at} bytes back${check.bad >= 0 ? `, wrong at ${check.bad}` : ''}`, base: before, casePeak: peak(), input: GiB })
} else if (mode === 'long') {
  const format = arg as Format
  const { chunks, total, expected } = longStream(format)
  await warm(format)
  gc()
  const before = rss()
  let last = { bytesIn: 0, bytesOut: 0 }
  const check = new Checker(expected)
  let inBytes = 0
  const source = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = chunks.next()
      if (next.done) c.close()
      else {
        inBytes += next.value.length
        c.enqueue(next.value)
      }
    },
  })
  // The web class has no options (no onProgress, no maxOutputBytes): its count is ours.
  const web = file === 'web'
  const decoder = web ? (new DecompressionStream(format) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>) : decodeStream(format, { onProgress: (p) => (last = p) })
  const reader = source.pipeThrough(decoder).getReader()
  let maxRss = 0
  let reads = 0
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    check.take(r.value)
    if ((++reads & 255) === 0) maxRss = Math.max(maxRss, rss())
  }
  const ok = check.bad < 0 && check.at === total && (web || (last.bytesOut === total && last.bytesIn === inBytes))
  report({ ok, detail: `${web ? 'DecompressionStream ' : ''}${format}: ${inBytes} bytes in, ${check.at} out${web ? '' : ` (progress: ${last.bytesIn} in, ${last.bytesOut} out)`}${check.bad >= 0 ? `, wrong at ${check.bad}` : ''}`, base: before, growth: maxRss - before })
} else if (mode === 'skip-error') {
  // Two skippable frames of 2^31 bytes each (RFC 8878 3.1.2), then a byte that starts
  // no frame: INVALID_DATA exactly there, past 2^32.
  const at = 2 * (8 + 2 ** 31)
  const zero = new Uint8Array(16 * MiB)
  function* chunks(): Generator<Uint8Array> {
    for (let f = 0; f < 2; f++) {
      yield Uint8Array.of(0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0x80) // magic 0x184D2A50, size 2^31
      for (let n = 0; n < 2 ** 31; n += zero.length) yield zero
    }
    yield Uint8Array.of(0x42, 0x42, 0x42, 0x42, 0x42)
  }
  const gen = chunks()
  const before = rss()
  const source = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = gen.next()
      if (next.done) c.close()
      else c.enqueue(next.value)
    },
  })
  let error = null as { code?: string; offset?: number; message?: string } | null
  try {
    const reader = source.pipeThrough(zstdDecode()).getReader()
    while (!(await reader.read()).done) {
      /* no output */
    }
  } catch (e) {
    error = e as typeof error
  }
  report({ ok: error?.code === 'INVALID_DATA' && error.offset === at, detail: `${error?.code} at ${error?.offset} (expected ${at}): ${error?.message}`, base: before, growth: rss() - before })
} else if (mode === 'byob') {
  // The issue's check: 1 GiB of zstd-compressed zeros through zstdDecode(), read with a
  // BYOB reader into one reused 64 KiB buffer; RSS counted after the first 64 MiB.
  const frame = zstdZeros(GiB)
  const d = zstdDecode()
  const writer = d.writable.getWriter()
  const fed = writer.write(frame).then(() => writer.close())
  const reader = d.readable.getReader({ mode: 'byob' })
  let buffer = new ArrayBuffer(64 * 1024)
  let total = 0
  let before = 0
  let maxRss = 0
  for (let reads = 0; ; reads++) {
    const { done, value } = await reader.read(new Uint8Array(buffer))
    if (done) break
    total += value!.byteLength
    buffer = value!.buffer
    if (before === 0 && total >= 64 * MiB) {
      gc()
      before = rss()
      if (process.env.SLUICE_DEBUG) console.error('start', process.memoryUsage())
    } else if (before !== 0 && (reads & 255) === 0) {
      const r = rss()
      if (r > maxRss) {
        maxRss = r
        if (process.env.SLUICE_DEBUG) console.error(total >> 20, 'MiB', process.memoryUsage())
      }
    }
  }
  await fed
  maxRss = Math.max(maxRss, rss())
  report({ ok: total === GiB, detail: `${total} bytes through one 64 KiB buffer`, base: before, growth: maxRss - before })
} else throw new Error(`unknown case ${mode}`)

/** A zstd frame of `n` corpus bytes in raw blocks of 128 KiB (RFC 8878 3.1.1.2: Block_Type 0), no content size. */
function rawZstdCorpus(n: number): Uint8Array {
  const blockMax = 128 * 1024
  const blocks = Math.max(1, Math.ceil(n / blockMax))
  const out = new Uint8Array(6 + blocks * 3 + n)
  out.set([0x28, 0xb5, 0x2f, 0xfd, 0x00, (23 - 10) << 3]) // no content size, window 8 MiB
  let at = 6
  for (let b = 0; b < blocks; b++) {
    const size = Math.min(blockMax, n - b * blockMax)
    const header = (b === blocks - 1 ? 1 : 0) | (size << 3)
    out[at++] = header & 0xff
    out[at++] = (header >>> 8) & 0xff
    out[at++] = (header >>> 16) & 0xff
    corpus(out.subarray(at, at + size), b * blockMax)
    at += size
  }
  return out
}

/** A zstd frame of `total` zeros in RLE blocks (~4 bytes per 128 KiB), no content size. */
function zstdZeros(total: number): Uint8Array {
  const blockMax = 128 * 1024
  const blocks = Math.ceil(total / blockMax)
  const out = new Uint8Array(6 + blocks * 4)
  out.set([0x28, 0xb5, 0x2f, 0xfd, 0x00, (23 - 10) << 3])
  let at = 6
  for (let b = 0; b < blocks; b++) {
    const size = Math.min(blockMax, total - b * blockMax)
    const header = (b === blocks - 1 ? 1 : 0) | (1 << 1) | (size << 3) // Block_Type 1: RLE
    out[at++] = header & 0xff
    out[at++] = (header >>> 8) & 0xff
    out[at++] = (header >>> 16) & 0xff
    out[at++] = 0
  }
  return out
}

/**
 * A 5 GiB stream of `format`, made as it is read (never held): its chunks, its decoded
 * length and what the decoded bytes must be.
 * - gzip: one member of zeros, deflate segments of 1 MiB each ended by a sync flush, then
 *   the trailer: CRC-32 and ISIZE, the length modulo 2^32 (RFC 1952 2.3.1);
 * - zstd: one frame of RLE blocks of zeros declaring its 64-bit content size (RFC 8878
 *   3.1.1.1.4: an 8-byte Frame_Content_Size);
 * - lz4: one frame declaring its 64-bit content size (LZ4 frame format: Content Size),
 *   of 4 MiB blocks that repeat a 16 KiB piece of the corpus.
 */
function longStream(format: Format): { chunks: Iterator<Uint8Array>; total: number; expected: (out: Uint8Array, at: number) => void } {
  const total = 5 * GiB
  if (format === 'gzip') {
    const segment = new Uint8Array(zlib.deflateRawSync(new Uint8Array(MiB), { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH }))
    const zeroMiB = new Uint8Array(MiB)
    let crc = 0
    for (let n = 0; n < total; n += MiB) crc = zlib.crc32(zeroMiB, crc)
    const trailer = new Uint8Array(8)
    new DataView(trailer.buffer).setUint32(0, crc >>> 0, true)
    new DataView(trailer.buffer).setUint32(4, total % 2 ** 32, true)
    // Many segments per chunk: fewer, larger writes.
    const batch = 64
    const many = new Uint8Array(segment.length * batch)
    for (let i = 0; i < batch; i++) many.set(segment, i * segment.length)
    function* chunks(): Generator<Uint8Array> {
      yield Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255)
      for (let n = 0; n < total; n += batch * MiB) yield many
      yield Uint8Array.of(0x03, 0x00) // a final, empty fixed-Huffman block
      yield trailer
    }
    return { chunks: chunks(), total, expected: (out) => out.fill(0) }
  }
  if (format === 'zstd') {
    const blockMax = 128 * 1024
    const blocks = total / blockMax
    const header = new Uint8Array(4 + 1 + 1 + 8)
    header.set([0x28, 0xb5, 0x2f, 0xfd, 0xc0, (23 - 10) << 3]) // FCS_flag 3: 8 bytes
    new DataView(header.buffer).setBigUint64(6, BigInt(total), true)
    const rle = (last: boolean) => {
      const h = (last ? 1 : 0) | (1 << 1) | (blockMax << 3)
      return [h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff, 0]
    }
    const batch = 8192
    const many = new Uint8Array(batch * 4)
    for (let i = 0; i < batch; i++) many.set(rle(false), i * 4)
    function* chunks(): Generator<Uint8Array> {
      yield header
      for (let b = 0; b < blocks - 1; b += batch) {
        const n = Math.min(batch, blocks - 1 - b)
        yield n === batch ? many : many.subarray(0, n * 4)
      }
      yield Uint8Array.from(rle(true))
    }
    return { chunks: chunks(), total, expected: (out) => out.fill(0) }
  }
  if (format === 'lz4') {
    // A block of 4 MiB: 16 KiB of literals, one match at offset 16 KiB up to 5 bytes
    // before the end, then those 5 bytes as literals (LZ4 block format: the last 5 bytes
    // are literals, the last match starts 12 or more bytes before the end).
    const period = 16 * 1024
    const blockSize = 4 * MiB
    const piece = base.subarray(0, period)
    const matchLength = blockSize - period - 5
    const seq: number[] = [0xff] // literal length 15+, match length 15+
    for (let n = period - 15; ; n -= 255) {
      if (n < 255) {
        seq.push(n)
        break
      }
      seq.push(255)
    }
    const literals = seq.length
    const tail: number[] = [period & 0xff, period >>> 8]
    for (let n = matchLength - 4 - 15; ; n -= 255) {
      if (n < 255) {
        tail.push(n)
        break
      }
      tail.push(255)
    }
    const last = piece.subarray((blockSize - 5) % period, ((blockSize - 5) % period) + 5)
    const body = new Uint8Array(literals + period + tail.length + 1 + 5)
    body.set(seq, 0)
    body.set(piece, literals)
    body.set(tail, literals + period)
    body[literals + period + tail.length] = 0x50 // 5 literals, no match
    body.set(last, literals + period + tail.length + 1)
    const block = new Uint8Array(4 + body.length)
    new DataView(block.buffer).setUint32(0, body.length, true)
    block.set(body, 4)
    // Frame: FLG (version 01, independent blocks, content size), BD (4 MiB blocks), the
    // 8-byte content size, HC = (xxh32 of the descriptor >> 8) & 0xff.
    const descriptor = new Uint8Array(2 + 8)
    descriptor.set([0x68, 0x70])
    new DataView(descriptor.buffer).setBigUint64(2, BigInt(total), true)
    const header = new Uint8Array(4 + descriptor.length + 1)
    header.set([0x04, 0x22, 0x4d, 0x18])
    header.set(descriptor, 4)
    header[header.length - 1] = (xxh32(descriptor) >>> 8) & 0xff
    const batch = 16
    const many = new Uint8Array(block.length * batch)
    for (let i = 0; i < batch; i++) many.set(block, i * block.length)
    function* chunks(): Generator<Uint8Array> {
      yield header
      for (let n = 0; n < total; n += batch * blockSize) yield many
      yield new Uint8Array(4) // EndMark
    }
    const expected = (out: Uint8Array, at: number) => {
      for (let o = 0; o < out.length; ) {
        const off = (at + o) % blockSize % period
        const n = Math.min(out.length - o, period - off)
        out.set(piece.subarray(off, off + n), o)
        o += n
      }
    }
    return { chunks: chunks(), total, expected }
  }
  throw new Error(`no long stream for ${format}`)
}

/** xxHash32 with seed 0 (the LZ4 frame header checksum), written out from the spec. */
function xxh32(data: Uint8Array): number {
  const P1 = 0x9e3779b1, P2 = 0x85ebca77, P3 = 0xc2b2ae3d, P4 = 0x27d4eb2f, P5 = 0x165667b1
  const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0
  let i = 0
  let h: number
  const u32 = (at: number) => (data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16) | (data[at + 3]! << 24)) >>> 0
  if (data.length >= 16) {
    let v1 = (P1 + P2) >>> 0, v2 = P2, v3 = 0, v4 = (0 - P1) >>> 0
    const round = (v: number, x: number) => Math.imul(rotl((v + Math.imul(x, P2)) >>> 0, 13), P1) >>> 0
    for (; i + 16 <= data.length; i += 16) {
      v1 = round(v1, u32(i))
      v2 = round(v2, u32(i + 4))
      v3 = round(v3, u32(i + 8))
      v4 = round(v4, u32(i + 12))
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) >>> 0
  } else h = P5
  h = (h + data.length) >>> 0
  for (; i + 4 <= data.length; i += 4) h = Math.imul(rotl((h + Math.imul(u32(i), P3)) >>> 0, 17), P4) >>> 0
  for (; i < data.length; i++) h = Math.imul(rotl((h + Math.imul(data[i]!, P5)) >>> 0, 11), P1) >>> 0
  h ^= h >>> 15
  h = Math.imul(h, P2) >>> 0
  h ^= h >>> 13
  h = Math.imul(h, P3) >>> 0
  h ^= h >>> 16
  return h >>> 0
}
