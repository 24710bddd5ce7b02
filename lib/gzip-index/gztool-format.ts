/**
 * gztool's index file (circulosmeos/gztool, README "Index file format"; gztool.c
 * `serialize_index_to_file`), big-endian:
 *
 *     8 zero bytes | "gzipindx" (version 0) or "gzipindX" (version 1, line numbers)
 *     | v1: line number format (4)
 *     | have (8) | size (8)           both N when the index is complete
 *     | N x { uncompressed offset (8), compressed offset (8), bits (4),
 *             window length (4), window (zlib, RFC 1950) | v1: line number (8) }
 *     | uncompressed size (8) | v1: number of lines (8)
 *
 * A point is zran's (first whole byte and the bits before it, see
 * indexed-gzip-format.ts); windows are zlib streams of up to 32 KiB of output, and a
 * point may have none (length 0). gztool writes version 1 by default (`-x`); line
 * numbers are read past, and version 0 is written. The format records neither the
 * compressed size nor whether the file is gzip or zlib (gztool reads both): the reader
 * is told them (`openGzipIndexed` takes the source's size).
 */
import { adler32 } from '../codecs/checksum.js'
import { badIndex, checkPoint, MAX_COMPRESSED_WINDOW, type GzipIndex, type GzipIndexPoint } from './gzip-index.js'
import { IndexCursor, writeU64 } from './index-bytes.js'
import { deflateWindowSync, inflateWindowSync } from './window-sync.js'
import { gztoolVersion } from './index-file-kind.js'

const ID_V0 = 'gzipindx'
const EMPTY: Uint8Array = new Uint8Array(0)
/** zlib header of a window: CMF 0x78 (deflate, 32 KiB), FLG 0x9c (default level, FCHECK). */
const ZLIB_HEADER = [0x78, 0x9c] as const

/** The index in gztool's format, version 0 (no line numbers). */
export function encodeGztoolIndex(index: GzipIndex): Uint8Array {
  const windows = index.points.map((p, i) => {
    if (p.windowSize === 0) return EMPTY
    // Our windows are raw deflate; gztool's are zlib streams of the same deflate data.
    const adler = adler32(inflateWindowSync(p.window, `point ${i}`))
    const z = new Uint8Array(p.window.length + 6)
    z.set(ZLIB_HEADER)
    z.set(p.window, 2)
    new DataView(z.buffer).setUint32(z.length - 4, adler, false)
    return z
  })
  const n = index.points.length
  const out = new Uint8Array(32 + 24 * n + windows.reduce((s, w) => s + w.length, 0) + 8)
  const view = new DataView(out.buffer)
  for (let i = 0; i < 8; i++) out[8 + i] = ID_V0.charCodeAt(i)
  writeU64(out, 16, n, false)
  writeU64(out, 24, n, false)
  let at = 32
  for (let i = 0; i < n; i++) {
    const p = index.points[i]!
    const bits = (8 - (p.compressedBitOffset % 8)) % 8
    writeU64(out, at, p.uncompressedOffset, false)
    writeU64(out, at + 8, (p.compressedBitOffset + bits) / 8, false)
    view.setUint32(at + 16, bits, false)
    view.setUint32(at + 20, windows[i]!.length, false)
    out.set(windows[i]!, at + 24)
    at += 24 + windows[i]!.length
  }
  writeU64(out, at, index.uncompressedSize, false)
  return out
}

/**
 * Reads a gztool index (`gztoolVersion` >= 0) of a file of `compressedSize` bytes.
 * Throws `INVALID_DATA`, also for an index gztool left incomplete.
 */
export function decodeGztoolIndex(bytes: Uint8Array, compressedSize: number, format: 'gzip' | 'deflate' = 'gzip'): GzipIndex {
  const version = gztoolVersion(bytes)
  const c = new IndexCursor(bytes, 'gztool index', false)
  c.skip(16, 'header')
  if (version === 1) c.u32('line number format')
  const have = c.u64('point count')
  const size = c.u64('list size')
  if (have !== size) throw badIndex(`gztool index is incomplete (${have} of ${size} points written): let gztool finish it`, 16)
  // Each point takes at least 24 bytes (32 with line numbers): checked before anything else.
  const entry = version === 1 ? 32 : 24
  c.need(entry * have, `${have} points`)
  // First pass: positions, order and window lengths, before any window is allocated.
  const start = c.at
  const found: Array<[number, number, number]> = []
  let previous: { uncompressedOffset: number; compressedBitOffset: number } | null = null
  for (let i = 0; i < have; i++) {
    const out = c.u64('uncompressed offset')
    const offset = c.u64('compressed offset')
    const bits = c.u32('bits')
    const length = c.u32('window length')
    if (bits > 7) throw badIndex(`gztool index point ${i}: bits ${bits} is more than 7`, c.at - 8)
    if (length > MAX_COMPRESSED_WINDOW) throw badIndex(`gztool index point ${i}: a window of ${length} compressed bytes is longer than any 32 KiB window compresses to`, c.at - 4)
    c.skip(length, `window of point ${i}`)
    if (version === 1) c.u64('line number')
    found.push([out, offset * 8 - bits, length])
    if (previous !== null && (out < previous.uncompressedOffset || offset * 8 - bits <= previous.compressedBitOffset)) {
      throw badIndex(`gztool index point ${i} (uncompressed ${out}, bit ${offset * 8 - bits}) is not after point ${i - 1}: points must be in order`, c.at)
    }
    previous = { uncompressedOffset: out, compressedBitOffset: offset * 8 - bits }
  }
  const uncompressedSize = c.u64('uncompressed size')
  const sizes = { compressedSize, uncompressedSize }
  const points: GzipIndexPoint[] = []
  c.at = start
  let last: GzipIndexPoint | null = null
  for (let i = 0; i < have; i++) {
    const [out, bit, length] = found[i]!
    c.skip(24, 'point')
    const z = bytes.subarray(c.at, c.at + length)
    c.skip(length, 'window')
    if (version === 1) c.skip(8, 'line number')
    let window = EMPTY
    let windowSize = 0
    if (length > 0) {
      // A zlib stream (RFC 1950): CMF/FLG, the raw deflate data, Adler-32.
      if (length < 6 || (z[0]! & 15) !== 8 || ((z[0]! << 8) | z[1]!) % 31 !== 0 || (z[1]! & 0x20) !== 0) throw badIndex(`gztool index point ${i}: its window is not a zlib stream`)
      const raw = z.subarray(2, length - 4)
      const content = inflateWindowSync(raw, `gztool index point ${i}`)
      if (adler32(content) !== new DataView(z.buffer, z.byteOffset + length - 4, 4).getUint32(0, false)) throw badIndex(`gztool index point ${i}: its window's Adler-32 does not match`)
      // Output before the point that is not in the window is harmless; a longer window is not.
      windowSize = Math.min(content.length, out)
      window = windowSize === content.length ? raw.slice() : windowSize === 0 ? EMPTY : deflateWindowSync(content.subarray(content.length - windowSize))
    }
    checkPoint(i, out, bit, windowSize, window.length, last, sizes)
    last = Object.freeze({ uncompressedOffset: out, compressedBitOffset: bit, windowSize, window })
    points.push(last)
  }
  return Object.freeze({ format, compressedSize, uncompressedSize, points: Object.freeze(points) })
}
