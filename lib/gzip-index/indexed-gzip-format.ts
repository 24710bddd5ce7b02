/**
 * indexed_gzip's index file (pauldmccarthy/indexed_gzip, zran.c `zran_export_index` and
 * `zran_import_index`, file version 1; version 0 read too). Integers in the writer's
 * byte order: little-endian, as on every platform its wheels are built for.
 *
 *     "GZIDX" (5) | version (1) | flags (1, 0) | compressed size (8) | uncompressed size (8)
 *     | spacing (4) | window size (4, >= 32768) | N (4)
 *     | N x { compressed offset (8), uncompressed offset (8), bits (1), data flag (1, v1) }
 *     | window size bytes, uncompressed, for each point whose data flag is 1
 *
 * A point is zran's: the compressed offset of the first whole byte after the block
 * start, `bits` of the byte before it belonging to the block (our bit offset is
 * `8 * offset - bits`). Points without data are member starts (in version 0 the first
 * point only). A window is the `window size` bytes of output before the point.
 * gzip only: indexed_gzip reads gzip files.
 */
import { CodecError } from '../errors.js'
import { WINDOW_SIZE, badIndex, checkPoint, type GzipIndex, type GzipIndexPoint } from './gzip-index.js'
import { IndexCursor, writeU64 } from './index-bytes.js'
import { deflateWindowSync, inflateWindowSync } from './window-sync.js'
import { INDEXED_GZIP_MAGIC } from './index-file-kind.js'

/**
 * Largest window size accepted: zran allows any size from 32 KiB up (only the last 32
 * KiB count, RFC 1951 section 2.2); 1 MiB bounds what a hostile header can make a
 * reader walk per point.
 */
const MAX_WINDOW = 1 << 20
const EMPTY: Uint8Array = new Uint8Array(0)

/** The index in indexed_gzip's format (version 1, 32 KiB windows). gzip indexes only. */
export function encodeIndexedGzipIndex(index: GzipIndex): Uint8Array {
  if (index.format !== 'gzip') throw new CodecError('INVALID_OPTION', 'gzip-index', `indexed_gzip reads gzip files only; this index is of a ${index.format} stream`)
  const points = index.points
  // A point without data is started as raw deflate at its byte: only byte-aligned ones can be.
  const hasData = points.map((p) => p.windowSize > 0 || p.compressedBitOffset % 8 !== 0)
  const withData = hasData.filter(Boolean).length
  const n = points.length
  const out = new Uint8Array(35 + 18 * n + WINDOW_SIZE * withData)
  const view = new DataView(out.buffer)
  out.set(INDEXED_GZIP_MAGIC)
  out[5] = 1
  out[6] = 0
  writeU64(out, 7, index.compressedSize, true)
  writeU64(out, 15, index.uncompressedSize, true)
  // zran's spacing only guides points it adds itself; it must be at least the window size.
  const spacing = n > 1 ? Math.max(WINDOW_SIZE, Math.min(0xffffffff, Math.round(index.uncompressedSize / n))) : 1 << 20
  view.setUint32(23, spacing, true)
  view.setUint32(27, WINDOW_SIZE, true)
  view.setUint32(31, n, true)
  let at = 35
  let w = 35 + 18 * n
  for (let i = 0; i < n; i++) {
    const p = points[i]!
    const bits = (8 - (p.compressedBitOffset % 8)) % 8
    writeU64(out, at, (p.compressedBitOffset + bits) / 8, true)
    writeU64(out, at + 8, p.uncompressedOffset, true)
    out[at + 16] = bits
    out[at + 17] = hasData[i] ? 1 : 0
    at += 18
    if (hasData[i]) {
      // The window's last byte is the one right before the point; shorter windows are
      // padded in front (no valid match reaches there).
      const window = p.windowSize > 0 ? inflateWindowSync(p.window, `point ${i}`) : EMPTY
      out.set(window, w + WINDOW_SIZE - window.length)
      w += WINDOW_SIZE
    }
  }
  return out
}

/** Reads an index in indexed_gzip's format (its magic checked by the caller). Throws `INVALID_DATA`. */
export function decodeIndexedGzipIndex(bytes: Uint8Array): GzipIndex {
  const c = new IndexCursor(bytes, 'indexed_gzip index', true)
  c.skip(5, 'magic')
  const version = c.u8('version')
  if (version > 1) throw badIndex(`indexed_gzip index version ${version} is newer than 1, the one this reader knows`, 5)
  c.u8('flags')
  const compressedSize = c.u64('compressed size')
  const uncompressedSize = c.u64('uncompressed size')
  c.u32('spacing')
  const windowSize = c.u32('window size')
  if (windowSize < WINDOW_SIZE || windowSize > MAX_WINDOW) throw badIndex(`indexed_gzip index window size ${windowSize} is not from 32768 to ${MAX_WINDOW}`, 27)
  const n = c.u32('point count')
  const entry = version >= 1 ? 18 : 17
  c.need(entry * n, `${n} points`)
  // First pass: the points and how many windows follow, all checked before allocating.
  const table = c.at
  const sizes = { compressedSize, uncompressedSize }
  let windows = 0
  let previous: { uncompressedOffset: number; compressedBitOffset: number } | null = null
  for (let i = 0; i < n; i++) {
    const offset = c.u64('compressed offset')
    const out = c.u64('uncompressed offset')
    const bits = c.u8('bits')
    const data = version >= 1 ? c.u8('data flag') : i === 0 ? 0 : 1
    if (bits > 7 || data > 1) throw badIndex(`indexed_gzip index point ${i}: bits ${bits} or data flag ${data} out of range`, c.at - 2)
    const bit = offset * 8 - bits
    // The window (if any) counts as 32 KiB here; its real size is known after decoding.
    const own = data ? Math.min(WINDOW_SIZE, out) : 0
    checkPoint(i, out, bit, own, own, previous, sizes, c.at - entry)
    if (data && own === 0) throw badIndex(`indexed_gzip index point ${i} has a window but no output before it`, c.at - entry)
    windows += data
    previous = { uncompressedOffset: out, compressedBitOffset: bit }
  }
  c.need(windows * windowSize, `${windows} windows of ${windowSize} bytes`)
  const points: GzipIndexPoint[] = []
  let w = c.at
  c.at = table
  for (let i = 0; i < n; i++) {
    const offset = c.u64('compressed offset')
    const out = c.u64('uncompressed offset')
    const bits = c.u8('bits')
    const data = version >= 1 ? c.u8('data flag') : i === 0 ? 0 : 1
    let window = EMPTY
    let size = 0
    if (data) {
      size = Math.min(WINDOW_SIZE, out)
      window = deflateWindowSync(bytes.subarray(w + windowSize - size, w + windowSize))
      w += windowSize
    }
    points.push(Object.freeze({ uncompressedOffset: out, compressedBitOffset: offset * 8 - bits, windowSize: size, window }))
  }
  return Object.freeze({ format: 'gzip', compressedSize, uncompressedSize, points: Object.freeze(points) })
}
