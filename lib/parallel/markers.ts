/**
 * Marker resolution, the second stage of decoding a deflate chunk whose history was
 * unknown (inflate-chunk.ts): once the 32 KiB before the chunk are known, each 16-bit
 * symbol becomes a byte, a literal (< 256) as itself and a marker (256 + j) as byte j of
 * that window (j = 0 the oldest, 32767 the byte just before the chunk).
 *
 * Markers can live long: on indented source text a run of spaces copied from the window
 * is copied again line after line, and chunks of several MiB are often decoded to their
 * end in symbols. So a chunk's symbols are resolved, and their CRC-32 or Adler-32
 * computed, by a job of their own (`resolveJob`, in a worker beside the other chunks'
 * decoding, on the marker kernel's `resolve`); the caller's thread resolves only the
 * last 32 KiB of a chunk, which is the next chunk's window (`resolveMarkers`).
 */
import { adler32 } from '../codecs/checksum.js'
import { CodecError } from '../errors.js'
import { chunkKernel, ensureMemory, IN } from './chunk-kernel.js'

/** The unknown window's size, in bytes (RFC 1951 section 2.2: distances reach 32768 back). */
const HISTORY = 32768

/**
 * Writes the bytes of `symbols` into `out` from `at`, markers taken from `window` (the
 * bytes before the chunk in its member or stream, its last 32 KiB or fewer at a member's
 * or stream's start). Returns false when a marker points before the start of `window`:
 * a distance farther back than the data, which the stream was not allowed to use.
 */
export function resolveMarkers(symbols: Uint16Array, window: Uint8Array, out: Uint8Array, at: number): boolean {
  // window[j - shift] is marker j's byte; j < shift is before the window's start.
  const shift = HISTORY - window.length
  const n = symbols.length
  for (let i = 0; i < n; i++) {
    const s = symbols[i]!
    if (s < 256) {
      out[at + i] = s
      continue
    }
    const j = s - 256 - shift
    if (j < 0) return false
    out[at + i] = window[j]!
  }
  return true
}

/**
 * A chunk's symbols to resolve: `input` holds them (2 bytes each, little-endian),
 * `window` the bytes before the chunk. The result is their bytes and the bytes' CRC-32
 * (gzip), Adler-32 (zlib) or 0 (raw deflate).
 */
export interface InflateResolveJob {
  readonly kind: 'inflate-resolve'
  readonly format: 'gzip' | 'deflate' | 'deflate-raw'
  readonly input: Uint8Array
  readonly window: Uint8Array
}

/** Runs a resolve job on this thread. */
export async function resolveJob(job: InflateResolveJob): Promise<{ output: Uint8Array; check: number }> {
  const k = await chunkKernel()
  const n = job.input.length >>> 1
  const win = IN
  const src = IN + HISTORY
  if (!ensureMemory(k, src + 2 * n)) throw new CodecError('ENGINE_UNAVAILABLE', job.format, 'could not grow the marker kernel\'s memory')
  const heap = new Uint8Array(k.memory.buffer)
  const window = job.window.subarray(Math.max(0, job.window.length - HISTORY))
  heap.set(window, win + HISTORY - window.length)
  heap.set(job.input.subarray(0, 2 * n), src)
  // In place: byte i is written at src + i after symbol i was read from src + 2i.
  if (k.resolve(src, src, n, win, HISTORY - window.length) < 0) {
    throw new CodecError('INVALID_DATA', job.format, 'a distance reaches farther back than the data')
  }
  const check = job.format === 'gzip' ? k.crc32(0, src, n) >>> 0 : job.format === 'deflate' ? adler32(heap, 1, src, src + n) : 0
  return { output: heap.slice(src, src + n), check }
}
