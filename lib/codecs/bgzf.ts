/**
 * BGZF, the blocked gzip of bioinformatics (the SAM/BAM specification, samtools hts-specs
 * SAMv1 section 4.1; written by `bgzip` and htslib): a file of gzip members of at most
 * 64 KiB each, every one with an extra subfield `BC` (SI1 66, SI2 67, SLEN 2) holding
 * BSIZE, the member's total size minus 1, so that a reader walks from member to member
 * without decoding. It ends with an empty member, the 28-byte EOF marker. Any gzip
 * decoder reads it as concatenated members.
 *
 * This module owns the format's facts: the header a writer puts down, the walk from one
 * block to the next (`bgzfBlockAt`), the EOF marker. The encoder is bgzf-encode.ts; the
 * `.gzi` index of `bgzip -i` is lib/gzip-index/gzi-format.ts.
 */
import { CodecError } from '../errors.js'

const FORMAT = 'gzip'

/** Input bytes per block as htslib writes them (BGZF_BLOCK_SIZE, 0xff00): a stored block then still fits. */
export const BGZF_BLOCK_INPUT = 0xff00
/** Largest block, header and trailer included (BSIZE is 16 bits: BGZF_MAX_BLOCK_SIZE). */
export const BGZF_MAX_BLOCK = 0x10000
/** The header bgzip writes: gzip with FEXTRA, XLEN 6, one subfield BC of 2 bytes. */
export const BGZF_HEADER_SIZE = 18
/** CRC32 and ISIZE after the deflate data (RFC 1952 section 2.3). */
export const BGZF_TRAILER_SIZE = 8

/** The EOF marker block (SAMv1 section 4.1.2): an empty member, 28 bytes. */
export const BGZF_EOF = /* @__PURE__ */ Uint8Array.of(
  0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43, 2, 0, 0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
)

/**
 * Writes the 18-byte header of a block of `blockSize` bytes in all at `out[0..18)`:
 * ID1 ID2 CM, FLG FEXTRA, MTIME 0, XFL 0, OS 255 (unknown), XLEN 6, BC, SLEN 2, BSIZE.
 */
export function writeBgzfHeader(out: Uint8Array, blockSize: number): void {
  out.set(BGZF_EOF.subarray(0, 16))
  out[16] = (blockSize - 1) & 0xff
  out[17] = (blockSize - 1) >>> 8
}

/** A block found at some offset by `bgzfBlockAt`. */
export interface BgzfBlock {
  /** Its size, header and trailer included (BSIZE + 1). */
  size: number
  /** Where its deflate data starts, from the block's first byte (12 + XLEN). */
  dataStart: number
}

/**
 * The BGZF block whose header starts at `b[at..)`: its size from the BC subfield, where
 * its deflate data starts. `null` when the bytes are a gzip member without BC (not
 * BGZF); `undefined` when more bytes are needed to tell (the header is incomplete).
 * Throws `INVALID_DATA` for a gzip header that cannot be right (`offset`: the file
 * offset of `b[at]`, for the message).
 */
export function bgzfBlockAt(b: Uint8Array, at: number, offset: number): BgzfBlock | null | undefined {
  if (b.length - at < 12) return undefined
  if (b[at] !== 0x1f || b[at + 1] !== 0x8b || b[at + 2] !== 8) {
    throw new CodecError('INVALID_DATA', FORMAT, `no gzip member header (1f 8b 08) where a BGZF block should start`, offset)
  }
  // SAMv1 section 4.1: FLG is 4 (FEXTRA alone), so the deflate data follows the extra field.
  if (b[at + 3] !== 4) return null
  const xlen = b[at + 10]! | (b[at + 11]! << 8)
  if (b.length - at < 12 + xlen) return undefined
  // RFC 1952 section 2.3.1.1: subfields SI1 SI2 LEN(2) data, one after another.
  for (let p = at + 12, end = at + 12 + xlen; p + 4 <= end; ) {
    const length = b[p + 2]! | (b[p + 3]! << 8)
    if (b[p] === 0x42 && b[p + 1] === 0x43 && length === 2 && p + 6 <= end) {
      const size = (b[p + 4]! | (b[p + 5]! << 8)) + 1
      if (size < 12 + xlen + BGZF_TRAILER_SIZE) {
        throw new CodecError('INVALID_DATA', FORMAT, `BGZF block size ${size} is smaller than its ${12 + xlen}-byte header and 8-byte trailer`, offset)
      }
      return { size, dataStart: 12 + xlen }
    }
    p += 4 + length
  }
  return null
}
