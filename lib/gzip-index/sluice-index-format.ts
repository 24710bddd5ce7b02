/**
 * sluice's own index file format, version 1 (docs/gzip-archives.md shows it too). All
 * integers little-endian:
 *
 *     offset  size  field
 *     0       8     magic "sluiceGZ" (73 6C 75 69 63 65 47 5A)
 *     8       1     version: 1
 *     9       1     format: 0 gzip, 1 deflate (zlib), 2 deflate-raw
 *     10      2     flags: 0 (a reader refuses bits it does not know)
 *     12      4     N, the number of points
 *     16      8     compressed size of the file, in bytes
 *     24      8     uncompressed size of its content, in bytes
 *     32      4     CRC-32 of bytes 0 to 31
 *     36      24*N  points: uncompressed offset (8), compressed offset in bits (8),
 *                   window size (4, 0 to 32768), compressed window length (4)
 *     ...           the windows, raw deflate (RFC 1951), in point order
 *     end - 4 4     CRC-32 of everything from offset 36 to here
 *
 * The header has its own CRC so that a damaged count or size is caught before the
 * points are walked; everything is checked (lengths, order, bounds, both CRCs) before
 * anything is allocated for the points.
 */
import { crc32 } from '../codecs/checksum.js'
import { readU32LE, writeU32LE } from '../endian.js'
import { GZIP_INDEX_FORMATS, badIndex, checkPoint, type GzipIndex, type GzipIndexPoint } from './gzip-index.js'
import { readU64, writeU64 } from './index-bytes.js'
import { SLUICE_INDEX_MAGIC } from './index-file-kind.js'

const VERSION = 1
const HEADER = 36
const ENTRY = 24

/** The index in this format. */
export function encodeSluiceIndex(index: GzipIndex): Uint8Array {
  const n = index.points.length
  let windows = 0
  for (const p of index.points) windows += p.window.length
  const out = new Uint8Array(HEADER + ENTRY * n + windows + 4)
  out.set(SLUICE_INDEX_MAGIC)
  out[8] = VERSION
  out[9] = GZIP_INDEX_FORMATS.indexOf(index.format)
  writeU32LE(out, 12, n)
  writeU64(out, 16, index.compressedSize, true)
  writeU64(out, 24, index.uncompressedSize, true)
  writeU32LE(out, 32, crc32(out, 0, 0, 32))
  let at = HEADER
  let w = HEADER + ENTRY * n
  for (const p of index.points) {
    writeU64(out, at, p.uncompressedOffset, true)
    writeU64(out, at + 8, p.compressedBitOffset, true)
    writeU32LE(out, at + 16, p.windowSize)
    writeU32LE(out, at + 20, p.window.length)
    at += ENTRY
    out.set(p.window, w)
    w += p.window.length
  }
  writeU32LE(out, w, crc32(out, 0, HEADER, w))
  return out
}

/** Reads an index in this format (its magic checked by the caller). Throws `INVALID_DATA`. */
export function decodeSluiceIndex(bytes: Uint8Array): GzipIndex {
  const what = 'sluice index'
  if (bytes.length < HEADER + 4) throw badIndex(`${what} of ${bytes.length} bytes is shorter than its ${HEADER + 4} bytes of header and checksum`, 0)
  if (bytes[8] !== VERSION) throw badIndex(`${what} version ${bytes[8]} is not 1, the one this reader knows`, 8)
  const headerCrc = crc32(bytes, 0, 0, 32)
  if (headerCrc !== readU32LE(bytes, 32)) throw badIndex(`${what} header CRC-32 ${hex(readU32LE(bytes, 32))} does not match its bytes' ${hex(headerCrc)}`, 32)
  const format = GZIP_INDEX_FORMATS[bytes[9]!]
  if (format === undefined) throw badIndex(`${what} format byte ${bytes[9]} is not 0 (gzip), 1 (deflate) or 2 (deflate-raw)`, 9)
  if (bytes[10] !== 0 || bytes[11] !== 0) throw badIndex(`${what} sets flags 0x${(bytes[10]! | (bytes[11]! << 8)).toString(16)} this reader does not know`, 10)
  const n = readU32LE(bytes, 12)
  const compressedSize = readU64(bytes, 16, true)
  const uncompressedSize = readU64(bytes, 24, true)
  if (compressedSize < 0 || uncompressedSize < 0) throw badIndex(`${what} sizes are 2^53 or more`, 16)
  const tableEnd = HEADER + ENTRY * n
  if (tableEnd + 4 > bytes.length) throw badIndex(`${what} lists ${n} points, ${ENTRY * n} bytes, more than its ${bytes.length} bytes hold`, 12)
  // Every entry checked before anything is allocated for them.
  const sizes = { compressedSize, uncompressedSize }
  let windows = 0
  let previous: { uncompressedOffset: number; compressedBitOffset: number } | null = null
  for (let i = 0, at = HEADER; i < n; i++, at += ENTRY) {
    const uncompressedOffset = readU64(bytes, at, true)
    const compressedBitOffset = readU64(bytes, at + 8, true)
    checkPoint(i, uncompressedOffset, compressedBitOffset, readU32LE(bytes, at + 16), readU32LE(bytes, at + 20), previous, sizes, at)
    windows += readU32LE(bytes, at + 20)
    previous = { uncompressedOffset, compressedBitOffset }
  }
  if (tableEnd + windows + 4 !== bytes.length) throw badIndex(`${what}: its points' windows take ${windows} bytes, but ${bytes.length - tableEnd - 4} follow the points`, tableEnd)
  const bodyCrc = crc32(bytes, 0, HEADER, bytes.length - 4)
  if (bodyCrc !== readU32LE(bytes, bytes.length - 4)) throw badIndex(`${what} CRC-32 ${hex(readU32LE(bytes, bytes.length - 4))} does not match its points' and windows' ${hex(bodyCrc)}`, bytes.length - 4)
  const points: GzipIndexPoint[] = []
  for (let i = 0, at = HEADER, w = tableEnd; i < n; i++, at += ENTRY) {
    const length = readU32LE(bytes, at + 20)
    points.push(
      Object.freeze({
        uncompressedOffset: readU64(bytes, at, true),
        compressedBitOffset: readU64(bytes, at + 8, true),
        windowSize: readU32LE(bytes, at + 16),
        window: bytes.slice(w, w + length),
      }),
    )
    w += length
  }
  return Object.freeze({ format, compressedSize, uncompressedSize, points: Object.freeze(points) })
}

const hex = (v: number): string => '0x' + v.toString(16).padStart(8, '0')
