/**
 * Deflate block headers read from a whole buffer at any bit, and the search for a
 * plausible block start (RFC 1951 section 3.2.3), for decoding one deflate stream on
 * several threads (the two-stage method of pugz and rapidgzip): a chunk of compressed
 * input after the first is decoded from the first bit in its range where a block could
 * start, a guess that the chunk before it confirms or refutes by where it really ends
 * (lib/parallel/inflate-chunk.ts, lib/parallel/inflate-parallel.ts).
 *
 * A *candidate* is a block header that is not final and is either
 * - dynamic (BTYPE 10) and valid by every rule the serial decoder applies: HLIT <= 29
 *   and HDIST <= 29 (286 and 30 codes, section 3.2.7), a complete code length code, no
 *   repeat without a previous length and none running past the declared count, an
 *   end-of-block code, and literal/length and distance codes that are neither
 *   over-subscribed nor incomplete (one distance code of one bit allowed); or
 * - stored (BTYPE 00) with the padding to the byte boundary zero (as every encoder
 *   writes it) and LEN the one's complement of NLEN (section 3.2.4).
 * A dynamic header is read by the inflaters' own parser (lib/codecs/inflate-dynamic-header.ts),
 * so that a candidate is exactly a header they accept.
 * Fixed-code blocks are never candidates: 3 bits would match one position in eight.
 * The search runs a prefilter in wasm (inflate-markers.wat `scan`: the 13 header bits,
 * a stored block's LEN and NLEN, the code length code's completeness) and reads the
 * headers that pass it whole here.
 *
 * The predicate is a pure function of the bits at the position, and the chunk decoder
 * ends a chunk at the first *true* block boundary at or past the next chunk's start that
 * is a candidate, so that when the search finds no false candidate first, the two agree
 * on the very bit. A random position passes the 13 header bits one time in ~9, the code
 * length code's completeness about one in 30 of those, and the rest rarely; what gets
 * through is decoded, and garbage fails at an invalid code or block header soon after.
 */
import { HEADER_ERROR, HEADER_NEED, parseDynamicHeader, type DynamicHeaderState } from '../codecs/inflate-dynamic-header.js'

/** Block types (RFC 1951 section 3.2.3, BTYPE). */
export const STORED = 0
export const FIXED = 1
export const DYNAMIC = 2

/** `readBlockHeader()`: the input ends inside the header. */
export const BLOCK_INCOMPLETE = HEADER_NEED
/** `readBlockHeader()`: the header is invalid. */
export const BLOCK_INVALID = HEADER_ERROR

/**
 * A block header as `readBlockHeader()` read it; a dynamic one's code lengths, root
 * widths (`litBits`, `distBits`) and error are the state of the one dynamic header
 * parser (lib/codecs/inflate-dynamic-header.ts), which the inflaters use too.
 */
export interface BlockHeader extends DynamicHeaderState {
  /** BTYPE: STORED, FIXED or DYNAMIC. */
  type: number
  /** BFINAL. */
  last: boolean
  /** Stored: LEN. */
  stored: number
  /** Stored: whether the bits skipped to the byte boundary were zero. */
  zeroPadding: boolean
}

export const newBlockHeader = (): BlockHeader => ({
  type: 0,
  last: false,
  stored: 0,
  zeroPadding: true,
  lens: new Uint8Array(19 + 286 + 30),
  clenTable: new Int32Array(128),
  litBits: 0,
  distBits: 0,
  errorBit: 0,
  errorMessage: '',
})

/** `n` (<= 25) bits at bit `p` (< 2^31) of `b`; bytes past the end read as zero. */
function bitsAt(b: Uint8Array, p: number, n: number): number {
  const a = p >>> 3
  return (((b[a]! | (b[a + 1]! << 8) | (b[a + 2]! << 16) | (b[a + 3]! << 24)) >>> (p & 7)) & ((1 << n) - 1)) >>> 0
}

/**
 * Reads the block header at bit `p` of `b` (input up to bit `endBit`, a byte boundary)
 * into `h`; for a dynamic block builds its tables into `lit` and `dist` (inflate-tables.ts
 * format). Returns the bit after the header (for a stored block: after NLEN,
 * byte-aligned), BLOCK_INCOMPLETE or BLOCK_INVALID (`h.errorMessage`, `h.errorBit`).
 */
export function readBlockHeader(b: Uint8Array, p: number, endBit: number, h: BlockHeader, lit: Int32Array, dist: Int32Array): number {
  if (p + 3 > endBit) return BLOCK_INCOMPLETE
  const head = bitsAt(b, p, 3)
  p += 3
  h.last = (head & 1) === 1
  h.type = head >>> 1
  if (h.type === STORED) {
    const pad = (8 - (p & 7)) & 7
    h.zeroPadding = bitsAt(b, p, pad) === 0
    p += pad
    if (p + 32 > endBit) return BLOCK_INCOMPLETE
    const len = bitsAt(b, p, 16)
    if ((len ^ bitsAt(b, p + 16, 16)) !== 0xffff) return invalid(h, p + 32, `stored block length ${len} does not match its complement (RFC 1951 section 3.2.4)`)
    h.stored = len
    return p + 32
  }
  if (h.type === FIXED) return p
  if (h.type === 3) return invalid(h, p, 'invalid block type 3 (reserved, RFC 1951 section 3.2.3)')
  return parseDynamicHeader(b, p, endBit, h, lit, dist)
}

function invalid(h: BlockHeader, bit: number, why: string): number {
  h.errorMessage = why
  h.errorBit = bit
  return BLOCK_INVALID
}

/** Whether a header `readBlockHeader()` accepted is a candidate (see the module comment). */
export const isCandidate = (h: BlockHeader): boolean => !h.last && (h.type === DYNAMIC || (h.type === STORED && h.zeroPadding))
