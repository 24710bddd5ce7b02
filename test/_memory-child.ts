// Child process for test/memory.test.ts: decodes a generated bomb through a stream and
// prints {"code", "out", "baseRss", "peakRss"} as JSON. Peak RSS is the process's
// maximum resident set size (getrusage), so it covers every allocation made.
//
// Usage: node --import tsx --expose-gc test/_memory-child.ts pack <scenario> <format> <file>
//        node --import tsx --expose-gc test/_memory-child.ts decode <scenario> <format> <file> <limitBytes>
// Packing runs in its own process, so the decoding process's peak RSS is the decoder's.
import { readFileSync, writeFileSync } from 'node:fs'
import * as zlib from 'node:zlib'
import { decodeStream, encodeStream, zstdDecode, gzipDecode } from '../streams/index.js'
import type { Format } from '../lib/codec.js'
import { concatBytes } from './_bytes.js'

const [mode, scenario, format, file, limitArg] = process.argv.slice(2) as [string, string, Format, string, string]
const limit = Number(limitArg)
const GiB = 1 << 30
const transport = format === 'dcz' || format === 'dcb'
/** The dictionary of the dcz/dcb bombs: 4 KiB of fixed bytes (any will do: zeros need none). */
const dictionary = new Uint8Array(4096).map((_, i) => (i * 2654435761) >>> 24)

/** A zstd frame of `total` zero bytes made of RLE blocks (RFC 8878 3.1.1.2): ~4 bytes per 128 KiB. */
function zstdZeros(total: number): Uint8Array {
  const blockMax = 128 * 1024
  const blocks = Math.ceil(total / blockMax)
  const out = new Uint8Array(4 + 2 + blocks * 4)
  out.set([0x28, 0xb5, 0x2f, 0xfd], 0)
  // Frame header descriptor: no content size, no checksum, not single-segment; window 8 MiB.
  out[4] = 0x00
  out[5] = (23 - 10) << 3 // Window_Descriptor: exponent 13 -> 2^(10+13) = 8 MiB
  let at = 6
  for (let b = 0; b < blocks; b++) {
    const size = Math.min(blockMax, total - b * blockMax)
    const last = b === blocks - 1 ? 1 : 0
    const header = last | (1 << 1) | (size << 3) // Block_Type 1 = RLE
    out[at++] = header & 0xff
    out[at++] = (header >>> 8) & 0xff
    out[at++] = (header >>> 16) & 0xff
    out[at++] = 0 // the repeated byte
  }
  return out
}

/** Compresses `total` zero bytes with `format`, streaming, without holding them. */
async function packZeros(f: Format, total: number): Promise<Uint8Array> {
  if (f === 'zstd') return zstdZeros(total)
  // RFC 9842 section 5: the header (a skippable frame with the dictionary's SHA-256), then the frame.
  if (f === 'dcz') {
    const sha = new Uint8Array(await crypto.subtle.digest('SHA-256', dictionary))
    return concatBytes([Uint8Array.of(0x5e, 0x2a, 0x4d, 0x18, 0x20, 0, 0, 0), sha, zstdZeros(total)])
  }
  if (f === 'gzip' || f === 'deflate' || f === 'deflate-raw') {
    const z = f === 'gzip' ? zlib.createGzip({ level: 9 }) : f === 'deflate' ? zlib.createDeflate({ level: 9 }) : zlib.createDeflateRaw({ level: 9 })
    const parts: Buffer[] = []
    z.on('data', (c: Buffer) => parts.push(c))
    const zero = Buffer.alloc(1 << 20)
    for (let i = 0; i < total; i += zero.length) if (!z.write(zero)) await new Promise((r) => z.once('drain', r))
    await new Promise((r) => z.end(r))
    return new Uint8Array(Buffer.concat(parts))
  }
  // LZ4, brotli and dcb: through this library's own streaming encoder.
  const zero = new Uint8Array(1 << 20)
  let left = total
  const src = new ReadableStream<Uint8Array>({
    pull(c) {
      if (left <= 0) return c.close()
      left -= zero.length
      c.enqueue(zero)
    },
  })
  const parts: Uint8Array[] = []
  await src.pipeThrough(encodeStream(f, f === 'brotli' || f === 'dcb' ? { level: 1, ...(f === 'dcb' ? { dictionary } : {}) } : {})).pipeTo(new WritableStream({ write: (c) => void parts.push(c.slice()) }))
  return concatBytes(parts)
}

const source = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes)
      c.close()
    },
  })

let out = 0
async function drainSlowly(stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader()
  for (let k = 0; ; k++) {
    const { done, value } = await reader.read()
    if (done) return
    out += value.length
    // A slow consumer: yield to the event loop (timers included) every 64 reads.
    if ((k & 63) === 0) await new Promise((r) => setTimeout(r, 1))
  }
}

if (mode === 'pack') {
  // gzip around a zstd bomb for the chain: two decoders in a pipeThrough chain.
  const packed = scenario === 'chain' ? new Uint8Array(zlib.gzipSync(zstdZeros(GiB))) : await packZeros(format, GiB)
  writeFileSync(file, packed)
} else {
  const packed = new Uint8Array(readFileSync(file))
  ;(globalThis as { gc?: () => void }).gc?.()
  const baseRss = process.memoryUsage().rss
  let code = 'none'
  try {
    const decoded =
      scenario === 'chain'
        ? source(packed).pipeThrough(gzipDecode()).pipeThrough(zstdDecode({ maxOutputBytes: limit }))
        : source(packed).pipeThrough(decodeStream(format, { maxOutputBytes: limit, ...(transport ? { dictionary } : {}) }))
    await drainSlowly(decoded)
  } catch (e) {
    code = (e as { code?: string }).code ?? String(e)
  }
  const peakRss = process.resourceUsage().maxRSS * 1024
  console.log(JSON.stringify({ scenario, format, packed: packed.length, code, out, baseRss, peakRss }))
}
