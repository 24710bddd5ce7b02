/**
 * Which index file format some bytes are in, by their first bytes (a `.gzi` by its
 * length): a leaf of its own, so that asking loads none of the formats' readers.
 */
import { readU64 } from './index-bytes.js'

/** The index file formats: sluice's, indexed_gzip's (`zran_export_index`), gztool's, bgzip's `.gzi`. */
export type GzipIndexFileFormat = 'sluice' | 'indexed_gzip' | 'gztool' | 'gzi'

/** The first 8 bytes of sluice's format: "sluiceGZ". */
export const SLUICE_INDEX_MAGIC = /* @__PURE__ */ Uint8Array.of(0x73, 0x6c, 0x75, 0x69, 0x63, 0x65, 0x47, 0x5a)
/** The first 5 bytes of indexed_gzip's: "GZIDX". */
export const INDEXED_GZIP_MAGIC = /* @__PURE__ */ Uint8Array.of(0x47, 0x5a, 0x49, 0x44, 0x58)

const starts = (bytes: Uint8Array, magic: Uint8Array): boolean => bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b)

/** The version (0 or 1) when `bytes` start like a gztool index (8 zero bytes, "gzipindx" or "gzipindX"), else -1. */
export function gztoolVersion(bytes: Uint8Array): number {
  if (bytes.length < 16) return -1
  for (let i = 0; i < 8; i++) if (bytes[i] !== 0) return -1
  const id = String.fromCharCode(...bytes.subarray(8, 16))
  return id === 'gzipindx' ? 0 : id === 'gzipindX' ? 1 : -1
}

/** Whether `bytes` can be a `.gzi`: a count (8 bytes) and exactly that many 16-byte pairs. */
export function isGzi(bytes: Uint8Array): boolean {
  if (bytes.length < 8 || (bytes.length - 8) % 16 !== 0) return false
  return readU64(bytes, 0, true) === (bytes.length - 8) / 16
}

/** Which index file format `bytes` are in, or null. */
export function gzipIndexFileFormat(bytes: Uint8Array): GzipIndexFileFormat | null {
  if (!(bytes instanceof Uint8Array)) return null
  if (starts(bytes, SLUICE_INDEX_MAGIC)) return 'sluice'
  if (starts(bytes, INDEXED_GZIP_MAGIC)) return 'indexed_gzip'
  if (gztoolVersion(bytes) >= 0) return 'gztool'
  if (isGzi(bytes)) return 'gzi'
  return null
}
