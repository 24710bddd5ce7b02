/**
 * gzip member headers (RFC 1952 section 2.3) read from a whole buffer, for parallel
 * decoding: where a member's deflate data starts, and its BGZF block size when it has
 * one (the SAM/BAM specification section 4.1: an extra subfield `BC` of 2 bytes holding
 * the member's total size minus 1). The serial decoder (lib/codecs/deflate.ts) parses
 * the same header a byte at a time as input arrives and reports errors; this reader only
 * says whether a complete, valid header is at a given offset, which is what the chunk
 * decoder and the boundary finder need (a member start is a place decoding can begin
 * with no history). Invalid headers are the serial decoder's to report.
 */
import { crc32 } from '../codecs/checksum.js'

/** RFC 1952 section 2.3.1: FLG bits. */
const FHCRC = 2
const FEXTRA = 4
const FNAME = 8
const FCOMMENT = 16
const FRESERVED = 0xe0

/** `memberHeader()`: the input ends inside the header. */
export const HEADER_INCOMPLETE = -1
/** `memberHeader()`: not a valid gzip member header. */
export const HEADER_INVALID = -2

/** What `memberHeader()` found besides the header's end. */
export interface MemberHeader {
  /** The offset of the first byte of deflate data. */
  dataStart: number
  /** BGZF: the member's total size (BSIZE + 1, header to trailer), else -1. */
  blockSize: number
}

/**
 * Reads the gzip member header at `bytes[at..end)`: returns the offset of its deflate
 * data, `HEADER_INCOMPLETE` or `HEADER_INVALID`; fills `into` when given. The checks
 * are the serial decoder's: ID1 ID2, CM 8, no reserved flag bits, FHCRC when present.
 */
export function memberHeader(bytes: Uint8Array, at: number, end = bytes.length, into?: MemberHeader): number {
  if (at + 10 > end) {
    // Judged on what is there, so that a prefix that can never be a header says so.
    for (let k = 0; k < Math.min(4, end - at); k++) if (!fixedByteOk(k, bytes[at + k]!)) return HEADER_INVALID
    return HEADER_INCOMPLETE
  }
  for (let k = 0; k < 4; k++) if (!fixedByteOk(k, bytes[at + k]!)) return HEADER_INVALID
  const flags = bytes[at + 3]!
  let p = at + 10
  let blockSize = -1
  if (flags & FEXTRA) {
    if (p + 2 > end) return HEADER_INCOMPLETE
    const xlen = bytes[p]! | (bytes[p + 1]! << 8)
    p += 2
    if (p + xlen > end) return HEADER_INCOMPLETE
    blockSize = bgzfSize(bytes, p, p + xlen)
    p += xlen
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (!(flags & flag)) continue
    const zero = bytes.subarray(0, end).indexOf(0, p)
    if (zero < 0) return HEADER_INCOMPLETE
    p = zero + 1
  }
  if (flags & FHCRC) {
    if (p + 2 > end) return HEADER_INCOMPLETE
    const crc = crc32(bytes, 0, at, p)
    if ((bytes[p]! | (bytes[p + 1]! << 8)) !== (crc & 0xffff)) return HEADER_INVALID
    p += 2
  }
  if (into) {
    into.dataStart = p
    into.blockSize = blockSize
  }
  return p
}

function fixedByteOk(k: number, b: number): boolean {
  return k === 0 ? b === 0x1f : k === 1 ? b === 0x8b : k === 2 ? b === 8 : (b & FRESERVED) === 0
}

/**
 * The BGZF block size in the extra field `bytes[from..to)` (subfields SI1 SI2 LEN data,
 * RFC 1952 section 2.3.1.1): `BC` with LEN 2 holds BSIZE, the member's size minus 1;
 * -1 when there is none or the subfields do not fill the field exactly.
 */
function bgzfSize(bytes: Uint8Array, from: number, to: number): number {
  let size = -1
  let p = from
  while (p + 4 <= to) {
    const len = bytes[p + 2]! | (bytes[p + 3]! << 8)
    if (p + 4 + len > to) return -1
    if (bytes[p] === 66 && bytes[p + 1] === 67 && len === 2) size = (bytes[p + 4]! | (bytes[p + 5]! << 8)) + 1
    p += 4 + len
  }
  return p === to ? size : -1
}
