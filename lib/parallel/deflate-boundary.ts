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
import { buildTable, CLEN_ORDER, CLEN_PAYLOAD, DIST_PAYLOAD, DIST_ROOT, LIT_PAYLOAD, LIT_ROOT } from '../codecs/inflate-tables.js'

/** Block types (RFC 1951 section 3.2.3, BTYPE). */
export const STORED = 0
export const FIXED = 1
export const DYNAMIC = 2

/** `readBlockHeader()`: the input ends inside the header. */
export const BLOCK_INCOMPLETE = -1
/** `readBlockHeader()`: the header is invalid. */
export const BLOCK_INVALID = -2

/** A block header as `readBlockHeader()` read it. */
export interface BlockHeader {
  /** BTYPE: STORED, FIXED or DYNAMIC. */
  type: number
  /** BFINAL. */
  last: boolean
  /** Stored: LEN. */
  stored: number
  /** Stored: whether the bits skipped to the byte boundary were zero. */
  zeroPadding: boolean
  /** Dynamic: the root index widths of the tables built. */
  litRoot: number
  distRoot: number
  /** Why the header is invalid (after BLOCK_INVALID), with the bit where that was seen. */
  why: string
  whyBit: number
}

export const newBlockHeader = (): BlockHeader => ({ type: 0, last: false, stored: 0, zeroPadding: true, litRoot: 0, distRoot: 0, why: '', whyBit: 0 })

/** `n` (<= 25) bits at bit `p` (< 2^31) of `b`; bytes past the end read as zero. */
export function bitsAt(b: Uint8Array, p: number, n: number): number {
  const a = p >>> 3
  return (((b[a]! | (b[a + 1]! << 8) | (b[a + 2]! << 16) | (b[a + 3]! << 24)) >>> (p & 7)) & ((1 << n) - 1)) >>> 0
}

/** Scratch: code lengths (19 code length code lengths, then the rest) and the code length code table. */
const lens = /* @__PURE__ */ new Uint8Array(19 + 286 + 30)
const clenTable = /* @__PURE__ */ new Int32Array(128)

/**
 * Reads the block header at bit `p` of `b` (input up to bit `endBit`) into `h`; for a
 * dynamic block builds its tables into `lit` and `dist` (inflate-tables.ts format).
 * Returns the bit after the header (for a stored block: after NLEN, byte-aligned),
 * BLOCK_INCOMPLETE or BLOCK_INVALID (`h.why`, `h.whyBit`).
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
  if (p + 14 > endBit) return BLOCK_INCOMPLETE
  const litCount = bitsAt(b, p, 5) + 257
  const distCount = bitsAt(b, p + 5, 5) + 1
  const clenCount = bitsAt(b, p + 10, 4) + 4
  p += 14
  if (litCount > 286) return invalid(h, p, `dynamic block declares ${litCount} literal/length codes; the maximum is 286`)
  if (distCount > 30) return invalid(h, p, `dynamic block declares ${distCount} distance codes; the maximum is 30`)
  if (p + 3 * clenCount > endBit) return BLOCK_INCOMPLETE
  lens.fill(0, 0, 19)
  for (let k = 0; k < clenCount; k++, p += 3) lens[CLEN_ORDER[k]!] = bitsAt(b, p, 3)
  const clenBits = buildTable(lens, 0, 19, CLEN_PAYLOAD, clenTable, 7, false)
  if (clenBits < 0) return invalid(h, p, `code length code is ${clenBits === -1 ? 'over-subscribed' : 'incomplete'}`)
  const total = litCount + distCount
  const mask = (1 << clenBits) - 1
  for (let filled = 0; filled < total; ) {
    // The code length code is complete with codes of <= 7 bits: every entry is a code.
    const e = clenTable[bitsAt(b, p, 7) & mask]!
    const len = e & 15
    if (p + len > endBit) return BLOCK_INCOMPLETE
    p += len
    const symbol = e >>> 16
    if (symbol < 16) {
      lens[19 + filled++] = symbol
      continue
    }
    if (symbol === 16 && filled === 0) return invalid(h, p, 'repeat code 16 with no previous code length')
    const extra = symbol === 16 ? 2 : symbol === 17 ? 3 : 7
    if (p + extra > endBit) return BLOCK_INCOMPLETE
    const count = (symbol === 18 ? 11 : 3) + bitsAt(b, p, extra)
    p += extra
    if (filled + count > total) return invalid(h, p, `code length repeat of ${count} runs past the ${total} declared lengths`)
    const value = symbol === 16 ? lens[19 + filled - 1]! : 0
    lens.fill(value, 19 + filled, 19 + filled + count)
    filled += count
  }
  if (lens[19 + 256] === 0) return invalid(h, p, 'dynamic block has no end-of-block code')
  const litBits = buildTable(lens, 19, litCount, LIT_PAYLOAD, lit, LIT_ROOT, true)
  if (litBits < 0) return invalid(h, p, `literal/length code is ${litBits === -1 ? 'over-subscribed' : litBits === -2 ? 'incomplete' : 'too large'}`)
  const distBits = buildTable(lens, 19 + litCount, distCount, DIST_PAYLOAD, dist, DIST_ROOT, true)
  if (distBits < 0) return invalid(h, p, `distance code is ${distBits === -1 ? 'over-subscribed' : distBits === -2 ? 'incomplete' : 'too large'}`)
  h.litRoot = litBits
  h.distRoot = distBits
  return p
}

function invalid(h: BlockHeader, bit: number, why: string): number {
  h.why = why
  h.whyBit = bit
  return BLOCK_INVALID
}

/** Whether a header `readBlockHeader()` accepted is a candidate (see the module comment). */
export const isCandidate = (h: BlockHeader): boolean => !h.last && (h.type === DYNAMIC || (h.type === STORED && h.zeroPadding))
