/**
 * The `.gzi` index of `bgzip -i` (htslib bgzf.c `bgzf_index_dump`/`bgzf_index_load`):
 * little-endian, a count N (8 bytes), then N pairs of the compressed offset of a BGZF
 * block (lib/codecs/bgzf.ts) and the uncompressed offset of its data (8 bytes each),
 * for every block after the first (which is at 0, 0), the EOF marker not listed.
 *
 * Offsets are of block headers, ours of deflate data: bgzip and htslib write 18-byte
 * headers (XLEN 6, SAMv1 section 4.1), so a point is 18 bytes after its block's start;
 * a block with another header is caught when it is read (the reader checks each point
 * against the block starts it decodes). The file records neither size: the reader
 * takes them from the file.
 */
import { CodecError } from '../errors.js'
import { BGZF_HEADER_SIZE } from '../codecs/bgzf.js'
import { badIndex, checkPoint, type GzipIndex, type GzipIndexPoint } from './gzip-index.js'
import { readU64, writeU64 } from './index-bytes.js'

const EMPTY: Uint8Array = new Uint8Array(0)

/** The block starts a `.gzi` lists (block 0 first), as [compressed, uncompressed] offsets. */
export function gziBlocks(bytes: Uint8Array): Array<[number, number]> {
  const n = (bytes.length - 8) / 16
  const blocks: Array<[number, number]> = [[0, 0]]
  for (let i = 0, at = 8; i < n; i++, at += 16) {
    const c = readU64(bytes, at, true)
    const u = readU64(bytes, at + 8, true)
    const [pc, pu] = blocks[blocks.length - 1]!
    // Blocks are at most 64 KiB each way (SAMv1 section 4.1).
    if (c <= pc || u < pu || c - pc > 0x10000 || u - pu > 0x10000) {
      throw badIndex(`.gzi entry ${i} (compressed ${c}, uncompressed ${u}) does not follow the block before (${pc}, ${pu}) by at most 64 KiB`, at)
    }
    blocks.push([c, u])
  }
  return blocks
}

/**
 * The index a `.gzi` describes, for a BGZF file of `compressedSize` bytes whose content
 * is `uncompressedSize` bytes.
 */
export function decodeGzi(bytes: Uint8Array, compressedSize: number, uncompressedSize: number): GzipIndex {
  const sizes = { compressedSize, uncompressedSize }
  const points: GzipIndexPoint[] = []
  let previous: GzipIndexPoint | null = null
  for (const [c, u] of gziBlocks(bytes)) {
    const bit = (c + BGZF_HEADER_SIZE) * 8
    checkPoint(points.length, u, bit, 0, 0, previous, sizes)
    previous = Object.freeze({ uncompressedOffset: u, compressedBitOffset: bit, windowSize: 0, window: EMPTY })
    points.push(previous)
  }
  return Object.freeze({ format: 'gzip', compressedSize, uncompressedSize, points: Object.freeze(points) })
}

/** A `.gzi` of an index of a BGZF file (every point a block start; gzipIndex() of BGZF makes one). */
export function encodeGzi(index: GzipIndex): Uint8Array {
  const points = index.points
  const bad = points.findIndex((p, i) => p.windowSize !== 0 || p.compressedBitOffset % 8 !== 0 || (i === 0 && p.compressedBitOffset !== BGZF_HEADER_SIZE * 8))
  if (index.format !== 'gzip' || points.length === 0 || bad >= 0) {
    throw new CodecError('INVALID_OPTION', 'gzip-index', `a .gzi lists BGZF blocks: every point must be a block's start with no window${bad >= 0 ? ` (point ${bad} is not)` : ''}; index a BGZF file with gzipIndex() to get one`)
  }
  const out = new Uint8Array(8 + 16 * (points.length - 1))
  writeU64(out, 0, points.length - 1, true)
  for (let i = 1; i < points.length; i++) {
    writeU64(out, 8 + 16 * (i - 1), points[i]!.compressedBitOffset / 8 - BGZF_HEADER_SIZE, true)
    writeU64(out, 16 + 16 * (i - 1), points[i]!.uncompressedOffset, true)
  }
  return out
}
