/**
 * The Huffman tables of raw DEFLATE (RFC 1951) that both inflate engines use: the
 * TypeScript `Inflater` (inflate.ts) and the wasm kernel's driver (inflate-wasm.ts,
 * whose `wasm/inflate.wat` reads the same entry format). Length and distance bases with
 * their extra bits, the code length order, the two-level table builder and the fixed
 * codes, built lazily and marked pure so that bundles drop what is unused.
 */

/** RFC 1951 section 3.2.5: base lengths and extra bits of symbols 257..285. */
const LENGTH_BASE = /* @__PURE__ */ new Uint16Array([
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
])
const LENGTH_EXTRA = /* @__PURE__ */ new Uint8Array([
  0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
])
/** RFC 1951 section 3.2.5: base distances and extra bits of distance symbols 0..29. */
const DIST_BASE = /* @__PURE__ */ new Uint16Array([
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
])
const DIST_EXTRA = /* @__PURE__ */ new Uint8Array([
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
])
/** RFC 1951 section 3.2.7: order in which the code length code lengths are stored. */
export const CLEN_ORDER = /* @__PURE__ */ new Uint8Array([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15])

/**
 * Table entries (Int32, never negative):
 * - bits 0-3: code length (for a link: 0);
 * - bits 4-7: extra bits of a length/distance base, or index bits of a subtable;
 * - bits 8-10: kind (below);
 * - bits 16-30: the literal byte, the length/distance base, or the subtable offset.
 */
export const KIND_MASK = 0x700
export const KIND_LITERAL = 0
export const KIND_BASE = 0x100
export const KIND_END = 0x200
export const KIND_LINK = 0x300
/** A code that exists but means nothing (fixed symbols 286, 287, distances 30, 31) or no code. */
export const KIND_BAD = 0x400

/** Root table index widths: 10 bits for literal/length codes, 8 for distances (zlib uses 9 and 6). */
export const LIT_ROOT = 10
export const DIST_ROOT = 8
/**
 * Table sizes: the root plus every subtable. A subtable under a root prefix holds a
 * complete subtree; one of depth d needs at least d + 1 codes, so with 286 symbols and
 * depth <= 5 there are at most 47 subtables of 32 entries (2528 in all), and with 30
 * distance symbols and depth <= 7 at most 672.
 */
export const LIT_TABLE_SIZE = 4096
export const DIST_TABLE_SIZE = 2048

/** What each symbol decodes to, without the code length. */
export const LIT_PAYLOAD = /* @__PURE__ */ (() => {
  const t = new Int32Array(288)
  for (let s = 0; s < 256; s++) t[s] = (s << 16) | KIND_LITERAL
  t[256] = KIND_END
  for (let s = 257; s < 286; s++) t[s] = (LENGTH_BASE[s - 257]! << 16) | KIND_BASE | (LENGTH_EXTRA[s - 257]! << 4)
  t[286] = t[287] = KIND_BAD
  return t
})()
export const DIST_PAYLOAD = /* @__PURE__ */ (() => {
  const t = new Int32Array(32)
  for (let s = 0; s < 30; s++) t[s] = (DIST_BASE[s]! << 16) | KIND_BASE | (DIST_EXTRA[s]! << 4)
  t[30] = t[31] = KIND_BAD
  return t
})()
export const CLEN_PAYLOAD = /* @__PURE__ */ (() => {
  const t = new Int32Array(19)
  for (let s = 0; s < 19; s++) t[s] = s << 16
  return t
})()

/** Byte bit-reversal, for turning canonical codes into LSB-first table indices. */
let reverse8: Uint8Array | null = null
const buildReverse8 = /* @__PURE__ */ (): Uint8Array => {
  const t = new Uint8Array(256)
  for (let i = 0; i < 256; i++) {
    let r = 0
    for (let b = 0; b < 8; b++) r |= ((i >> b) & 1) << (7 - b)
    t[i] = r
  }
  return t
}

/** buildTable's scratch: counts and first codes per length, reversed codes, subtable widths and offsets. */
let scratch: { counts: Uint16Array; next: Uint16Array; reversed: Uint16Array; subBits: Uint8Array; subStart: Uint16Array } | null = null
const newScratch = /* @__PURE__ */ () => ({
  counts: new Uint16Array(16),
  next: new Uint16Array(16),
  reversed: new Uint16Array(288),
  subBits: new Uint8Array(1 << LIT_ROOT),
  subStart: new Uint16Array(1 << LIT_ROOT),
})

/**
 * Builds a two-level decoding table (as zlib does) from code lengths
 * `lens[start..start+count)`: a root of up to `rootMax` index bits, and for codes
 * longer than the root a subtable per root prefix, linked from the root entry.
 * Returns the root's index width, or a negative number: -1 over-subscribed, -2
 * incomplete, -3 table too small (cannot happen for valid counts; see the sizes).
 *
 * Incomplete codes are rejected, as zlib does, except a single code of length 1 when
 * `allowSingle` (RFC 1951 section 3.2.7 allows one distance code; zlib also accepts it
 * for literal/length codes), and no codes at all (a block of literals only).
 */
export function buildTable(lens: Uint8Array, start: number, count: number, payload: Int32Array, table: Int32Array, rootMax: number, allowSingle: boolean): number {
  const rev = (reverse8 ??= buildReverse8())
  // Scratch shared by all calls (this runs once per block; allocating showed in profiles).
  const sc = (scratch ??= newScratch())
  const counts = sc.counts.fill(0)
  for (let s = 0; s < count; s++) counts[lens[start + s]!]!++
  let max = 15
  while (max > 0 && counts[max] === 0) max--
  if (max === 0) {
    if (!allowSingle) return -2
    table[0] = table[1] = KIND_BAD | 1
    return 1
  }
  let left = 1
  for (let len = 1; len <= 15; len++) {
    left = (left << 1) - counts[len]!
    if (left < 0) return -1
  }
  if (left > 0 && !(allowSingle && max === 1)) return -2
  // RFC 1951 section 3.2.2: the first code of each length, in canonical order.
  const next = sc.next
  for (let len = 1, code = 0; len <= 15; len++) {
    next[len] = code
    code = (code + counts[len]!) << 1
  }
  const root = Math.min(rootMax, max)
  const rootSize = 1 << root
  const rootMask = rootSize - 1
  // Only reachable for the one incomplete code allowed: the missing 1-bit code. (A
  // complete code writes every root entry below.)
  if (left > 0) table.fill(KIND_BAD | 1, 0, rootSize)
  const reversed = sc.reversed
  if (sc.subBits.length < rootSize) {
    sc.subBits = new Uint8Array(rootSize)
    sc.subStart = new Uint16Array(rootSize)
  }
  const subBits = max > root ? sc.subBits.fill(0, 0, rootSize) : null
  for (let s = 0; s < count; s++) {
    const len = lens[start + s]!
    if (len === 0) continue
    const code = next[len]!++
    const r = ((rev[code & 0xff]! << 8) | rev[code >>> 8]!) >>> (16 - len)
    reversed[s] = r
    if (len <= root) {
      const entry = payload[s]! | len
      for (let j = r; j < rootSize; j += 1 << len) table[j] = entry
    } else if (len - root > subBits![r & rootMask]!) {
      subBits![r & rootMask] = len - root
    }
  }
  if (!subBits) return root
  const subStart = sc.subStart
  let offset = rootSize
  for (let p = 0; p < rootSize; p++) {
    const b = subBits[p]!
    if (b === 0) continue
    if (offset + (1 << b) > table.length) return -3
    table[p] = (offset << 16) | KIND_LINK | (b << 4)
    subStart[p] = offset
    offset += 1 << b
  }
  for (let s = 0; s < count; s++) {
    const len = lens[start + s]!
    if (len <= root) continue
    const r = reversed[s]!
    const p = r & rootMask
    const size = 1 << subBits[p]!
    const base = subStart[p]!
    const entry = payload[s]! | len
    for (let j = r >>> root; j < size; j += 1 << (len - root)) table[base + j] = entry
  }
  return root
}

/** The fixed codes of RFC 1951 section 3.2.6 as tables, built on first use. */
let fixedTables: { lit: Int32Array; dist: Int32Array } | null = null
export const fixedCodeTables = /* @__PURE__ */ (): { lit: Int32Array; dist: Int32Array } => {
  if (fixedTables) return fixedTables
  const lens = new Uint8Array(288 + 32)
  lens.fill(8, 0, 144)
  lens.fill(9, 144, 256)
  lens.fill(7, 256, 280)
  lens.fill(8, 280, 288)
  lens.fill(5, 288, 320)
  const lit = new Int32Array(512)
  const dist = new Int32Array(32)
  buildTable(lens, 0, 288, LIT_PAYLOAD, lit, 9, false)
  buildTable(lens, 288, 32, DIST_PAYLOAD, dist, 5, false)
  return (fixedTables = { lit, dist })
}
