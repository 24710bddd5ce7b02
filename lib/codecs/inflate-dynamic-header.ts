/**
 * The dynamic Huffman block header of raw DEFLATE (RFC 1951 section 3.2.7), parsed in
 * one place for both inflaters (inflate.ts, the `js` engine; inflate-wasm.ts, the `wasm`
 * engine's driver): HLIT, HDIST and HCLEN, the code length code, the literal/length and
 * distance code lengths (with the repeat codes 16, 17, 18), and the two tables built
 * from them (inflate-tables.ts `buildTable`).
 *
 * The header is parsed as one unit from bytes the caller holds: from bit `p` (just after
 * BFINAL and BTYPE) to the end of its bytes. Input that ends inside the header gives
 * `HEADER_NEED`, and the caller keeps the bytes from `p` on and parses again when more
 * arrive (a header is at most 563 bytes: `DYNAMIC_HEADER_MAX_BYTES`). Each field is
 * judged as soon as its bits are there, so invalid data is reported at the bit where it
 * became certain (`errorBit`: the bit after the field that proved it), never after a
 * request for bytes that cannot help.
 */
import { buildTable, CLEN_ORDER, CLEN_PAYLOAD, DIST_PAYLOAD, DIST_ROOT, LIT_PAYLOAD, LIT_ROOT } from './inflate-tables.js'

/** `parseDynamicHeader()`: the bytes end inside the header; parse again from the same bit with more. */
export const HEADER_NEED = -1
/** `parseDynamicHeader()`: invalid data; `errorMessage` and `errorBit` say what and where. */
export const HEADER_ERROR = -2

/**
 * The most bytes a dynamic header spans, from the one its first bit is in: 3 + 14 + 19 * 3
 * + 316 * (7 + 7) = 4,498 bits with BFINAL and BTYPE (RFC 1951 section 3.2.7: 286 + 30
 * code lengths, each at most a 7-bit code and 7 extra bits), starting at any bit of a byte.
 */
export const DYNAMIC_HEADER_MAX_BYTES = 564

/** What the parser works in and leaves: fields of each inflater, reused from block to block. */
export interface DynamicHeaderState {
  /** Code lengths: 19 code length code lengths, then HLIT + 257 and HDIST + 1 (19 + 286 + 30 entries). */
  readonly lens: Uint8Array
  /** The code length code's table: 128 entries (its codes have at most 7 bits). */
  readonly clenTable: Int32Array
  /** After a header was parsed: the root widths of the literal/length and distance tables. */
  litBits: number
  distBits: number
  /** After `HEADER_ERROR`: the bit after the field that proved the data invalid, and why. */
  errorBit: number
  errorMessage: string
}

/**
 * `n` (<= 16) bits at bit `p` of `h`. Reads the 3 bytes from `p >> 3`: past the end of
 * `h` they read as zeros, which the caller has checked lie beyond the bits it uses.
 */
export function bitsAt(h: Uint8Array, p: number, n: number): number {
  const a = p >>> 3
  return ((h[a]! | (h[a + 1]! << 8) | (h[a + 2]! << 16)) >>> (p & 7)) & ((1 << n) - 1)
}

/** Records an error in `s`; returns `HEADER_ERROR`. */
function invalid(s: DynamicHeaderState, bit: number, message: string): number {
  s.errorBit = bit
  s.errorMessage = message
  return HEADER_ERROR
}

/**
 * Parses the dynamic header that starts at bit `p` of `h` (just after BFINAL and BTYPE),
 * reading no bit at or past `endBits` (a byte boundary), and builds its tables into `lit`
 * and `dist` (root widths in `s.litBits`, `s.distBits`). Returns the bit after the
 * header, `HEADER_NEED` or `HEADER_ERROR` (`s.errorMessage`, `s.errorBit`).
 */
export function parseDynamicHeader(h: Uint8Array, p: number, endBits: number, s: DynamicHeaderState, lit: Int32Array, dist: Int32Array): number {
  // HLIT (5 bits) and HDIST (5 bits) are judged before HCLEN arrives. RFC 1951 section
  // 3.2.7 allows 257-286 and 1-30; zlib rejects more.
  if (p + 5 > endBits) return HEADER_NEED
  const litCount = bitsAt(h, p, 5) + 257
  p += 5
  if (litCount > 286) return invalid(s, p, `dynamic block declares ${litCount} literal/length codes; the maximum is 286`)
  if (p + 5 > endBits) return HEADER_NEED
  const distCount = bitsAt(h, p, 5) + 1
  p += 5
  if (distCount > 30) return invalid(s, p, `dynamic block declares ${distCount} distance codes; the maximum is 30`)
  if (p + 4 > endBits) return HEADER_NEED
  const clenCount = bitsAt(h, p, 4) + 4
  p += 4
  if (p + 3 * clenCount > endBits) return HEADER_NEED
  const lens = s.lens
  const table = s.clenTable
  lens.fill(0, 0, 19)
  for (let k = 0; k < clenCount; k++) {
    lens[CLEN_ORDER[k]!] = bitsAt(h, p, 3)
    p += 3
  }
  const clenBits = buildTable(lens, 0, 19, CLEN_PAYLOAD, table, 7, false)
  if (clenBits < 0) return invalid(s, p, `code length code is ${clenBits === -1 ? 'over-subscribed' : 'incomplete'}`)
  const total = litCount + distCount
  let filled = 0
  // A local bit buffer: `bits` real bits in `hold` (above them zeros), next byte at `a`.
  // The code length code is complete with codes of <= 7 bits, so its table has no
  // subtables and every entry is a code; a symbol and its extra bits take <= 14 bits.
  const mask = (1 << clenBits) - 1
  const end = endBits >>> 3
  let a = p >>> 3
  let hold = 0
  let bits = 0
  if (a < end) {
    hold = h[a++]! >>> (p & 7)
    bits = 8 - (p & 7)
  }
  while (filled < total) {
    while (bits < 14 && a < end) {
      hold |= h[a++]! << bits
      bits += 8
    }
    const e = table[hold & mask]!
    const len = e & 15
    if (len > bits) return HEADER_NEED
    hold >>>= len
    bits -= len
    const symbol = e >>> 16
    if (symbol < 16) {
      lens[19 + filled++] = symbol
      continue
    }
    if (symbol === 16 && filled === 0) return invalid(s, a * 8 - bits, 'repeat code 16 with no previous code length')
    const extra = symbol === 16 ? 2 : symbol === 17 ? 3 : 7
    if (extra > bits) return HEADER_NEED
    const count = (symbol === 18 ? 11 : 3) + (hold & ((1 << extra) - 1))
    hold >>>= extra
    bits -= extra
    if (filled + count > total) return invalid(s, a * 8 - bits, `code length repeat of ${count} runs past the ${total} declared lengths`)
    // A plain loop: runs are short (3-138) and typed array fill() calls cost more here.
    const value = symbol === 16 ? lens[19 + filled - 1]! : 0
    for (let j = 19 + filled, stop = j + count; j < stop; j++) lens[j] = value
    filled += count
  }
  p = a * 8 - bits
  // RFC 1951 section 3.2.7: a block must be able to end.
  if (lens[19 + 256] === 0) return invalid(s, p, 'dynamic block has no end-of-block code')
  const litBits = buildTable(lens, 19, litCount, LIT_PAYLOAD, lit, LIT_ROOT, true)
  if (litBits < 0) return invalid(s, p, `literal/length code is ${litBits === -1 ? 'over-subscribed' : litBits === -2 ? 'incomplete' : 'too large'}`)
  const distBits = buildTable(lens, 19 + litCount, distCount, DIST_PAYLOAD, dist, DIST_ROOT, true)
  if (distBits < 0) return invalid(s, p, `distance code is ${distBits === -1 ? 'over-subscribed' : distBits === -2 ? 'incomplete' : 'too large'}`)
  s.litBits = litBits
  s.distBits = distBits
  return p
}
