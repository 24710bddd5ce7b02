/**
 * The Snappy block format (google/snappy `format_description.txt`): a varint preamble
 * with the decoded length, then elements. An element's tag byte says in its low two bits
 * what follows:
 *
 *     00  literal: length - 1 in the upper six bits, or 60..63 there for 1..4 more bytes
 *         (little-endian) holding length - 1; then the bytes themselves
 *     01  copy, 1-byte offset: length 4..11 in bits 2-4, offset's high 3 bits in 5-7,
 *         its low 8 bits in the next byte (offset < 2048)
 *     10  copy, 2-byte offset: length 1..64 in the upper six bits, offset in 2 bytes LE
 *     11  copy, 4-byte offset: as 10 with the offset in 4 bytes LE
 *
 * Copies reach back `offset` bytes into the output written so far (offset 0 is invalid,
 * overlap repeats bytes). Pure functions over caller-owned arrays: the decoder core
 * (`decodeElements`, resumable, for the span codecs and the one-shot helpers) and the
 * compressor (`encodeBlock`, google/snappy's greedy hash search per 64 KiB fragment).
 */

/** Input ends inside an element (one-shot decoding only; the span codecs wait for more). */
export const ERR_INPUT = -1
/** An element would write past the decoded length the preamble declares. */
export const ERR_OUTPUT = -2
/** A copy's offset is 0 or reaches before the start of the output. */
export const ERR_OFFSET = -3

/** `decodeElements` stopped at the end of `src` between elements. */
export const R_END = 0
/** `decodeElements` stopped at an element not complete in `src` (or a literal partly copied). */
export const R_MORE = 1
/** `decodeElements` stopped because `op` reached `softEnd`. */
export const R_ROOM = 2
/** `decodeElements` needs `out` to reach `state.need` bytes (below `hardEnd`). */
export const R_GROW = 3

/** Messages for the ERR_* codes. */
export function snappyErrorMessage(code: number): string {
  switch (code) {
    case ERR_INPUT:
      return 'input ends inside an element'
    case ERR_OUTPUT:
      return 'an element writes past the decoded length the preamble declares'
    case ERR_OFFSET:
      return 'a copy reaches before the start of the output (or has offset 0)'
    default:
      return `error ${code}`
  }
}

/**
 * The preamble: the decoded length as a little-endian base-128 varint of at most 5
 * bytes, below 2^32 (format_description.txt section 1).
 */
export interface Preamble {
  /** The decoded length. */
  length: number
  /** Bytes the varint takes. */
  size: number
}

/** `readPreamble` results. */
export const PRE_OK = 0
export const PRE_MORE = 1
export const PRE_BAD = 2

/** Reads the preamble at `src[start]` into `into`; PRE_MORE when `end` comes first. */
export function readPreamble(src: Uint8Array, start: number, end: number, into: Preamble): number {
  let value = 0
  for (let i = 0; i < 5; i++) {
    if (start + i >= end) return PRE_MORE
    const b = src[start + i]!
    // The fifth byte holds bits 28-31: anything above 15 is a length of 2^32 or more.
    if (i === 4 && b > 15) return PRE_BAD
    value += (b & 0x7f) * 2 ** (7 * i)
    if (b < 0x80) {
      into.length = value
      into.size = i + 1
      return PRE_OK
    }
  }
  return PRE_BAD
}

/** Writes `n` (< 2^32) as a varint at `dst[at]`; returns the position after it. */
export function writeVarint(dst: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    dst[at++] = (n & 0x7f) | 0x80
    n = Math.floor(n / 128)
  }
  dst[at++] = n
  return at
}

/**
 * The most bytes `n` bytes of a Snappy block can decode to: the densest element is a
 * 3-byte copy of 64 bytes (a 2-byte one yields at most 11), so 64/3 per byte.
 */
export function mostSnappyDecoded(n: number): number {
  return Math.floor((n * 64) / 3)
}

/** The largest block `encodeBlock` writes for `n` input bytes (google/snappy `MaxCompressedLength`). */
export function maxCompressedLength(n: number): number {
  return 32 + n + Math.floor(n / 6)
}

/** Where `decodeElements` continues: input and output positions and a literal in progress. */
export interface ElementState {
  ip: number
  op: number
  /** Bytes of a literal whose header was consumed and whose bytes are still to come. */
  literalLeft: number
  /** With R_GROW: the output end the next element needs. */
  need: number
}

/**
 * Decodes the elements of `src[state.ip, srcEnd)` into `out` at `state.op`, the output
 * starting at `out[base]`: copies may reach back to `base`, never past `hardEnd` (the
 * declared end). Stops at the end of the input (R_END), at an element not complete in
 * `src` (R_MORE; its bytes are left, except a literal's, which are copied as they come),
 * before an element when `op >= softEnd` (R_ROOM), before an element that would pass
 * `out.length` (R_GROW, `state.need` says how far), or at an error (ERR_*).
 */
export function decodeElements(state: ElementState, src: Uint8Array, srcEnd: number, out: Uint8Array, base: number, softEnd: number, hardEnd: number): number {
  let ip = state.ip
  let op = state.op
  const cap = Math.min(out.length, hardEnd)
  let result = R_END
  if (state.literalLeft > 0) {
    const n = Math.min(state.literalLeft, srcEnd - ip, cap - op)
    out.set(src.subarray(ip, ip + n), op)
    ip += n
    op += n
    state.literalLeft -= n
    if (state.literalLeft > 0) {
      state.ip = ip
      state.op = op
      if (op === cap && cap < hardEnd) {
        state.need = op + state.literalLeft
        return R_GROW
      }
      return R_MORE
    }
  }
  while (ip < srcEnd) {
    if (op >= softEnd) {
      result = R_ROOM
      break
    }
    const tag = src[ip]!
    const kind = tag & 3
    if (kind === 0) {
      let len = tag >>> 2
      let at = ip + 1
      if (len >= 60) {
        const extra = len - 59
        if (at + extra > srcEnd) {
          result = R_MORE
          break
        }
        len = src[at]!
        if (extra > 1) len |= src[at + 1]! << 8
        if (extra > 2) len |= src[at + 2]! << 16
        if (extra > 3) len = (len | (src[at + 3]! << 24)) >>> 0
        at += extra
      }
      len += 1
      if (len > hardEnd - op) {
        state.ip = ip
        state.op = op
        return ERR_OUTPUT
      }
      if (op + len > cap) {
        state.need = op + len
        result = R_GROW
        break
      }
      const avail = srcEnd - at
      if (avail < len) {
        // A literal split across inputs: copy what is here, the rest comes next call.
        out.set(src.subarray(at, srcEnd), op)
        op += avail
        ip = srcEnd
        state.literalLeft = len - avail
        result = R_MORE
        break
      }
      if (len <= 16) {
        for (let k = 0; k < len; k++) out[op + k] = src[at + k]!
      } else {
        out.set(src.subarray(at, at + len), op)
      }
      ip = at + len
      op += len
      continue
    }
    let len: number
    let offset: number
    if (kind === 1) {
      if (ip + 2 > srcEnd) {
        result = R_MORE
        break
      }
      len = 4 + ((tag >>> 2) & 7)
      offset = ((tag >>> 5) << 8) | src[ip + 1]!
      ip += 2
    } else if (kind === 2) {
      if (ip + 3 > srcEnd) {
        result = R_MORE
        break
      }
      len = (tag >>> 2) + 1
      offset = src[ip + 1]! | (src[ip + 2]! << 8)
      ip += 3
    } else {
      if (ip + 5 > srcEnd) {
        result = R_MORE
        break
      }
      len = (tag >>> 2) + 1
      offset = (src[ip + 1]! | (src[ip + 2]! << 8) | (src[ip + 3]! << 16) | (src[ip + 4]! << 24)) >>> 0
      ip += 5
    }
    if (offset === 0 || offset > op - base) {
      state.ip = ip - (kind === 1 ? 2 : kind === 2 ? 3 : 5)
      state.op = op
      return ERR_OFFSET
    }
    if (len > hardEnd - op) {
      state.ip = ip - (kind === 1 ? 2 : kind === 2 ? 3 : 5)
      state.op = op
      return ERR_OUTPUT
    }
    if (op + len > cap) {
      ip -= kind === 1 ? 2 : kind === 2 ? 3 : 5
      state.need = op + len
      result = R_GROW
      break
    }
    let from = op - offset
    if (offset >= len && len > 16) {
      out.copyWithin(op, from, from + len)
      op += len
    } else {
      const stop = op + len
      while (op < stop) out[op++] = out[from++]!
    }
  }
  state.ip = ip
  state.op = op
  return result
}

/**
 * Decodes the whole block `src[start, end)` (preamble included) into
 * `dst[at, at + length)`, `length` being the preamble's (read by the caller). Returns
 * the decoded length, or an ERR_* code; ERR_INPUT also when elements end before the
 * output is complete.
 */
export function decodeBlockInto(src: Uint8Array, start: number, end: number, dst: Uint8Array, at: number, length: number, state: ElementState): number {
  state.ip = start
  state.op = at
  state.literalLeft = 0
  const r = decodeElements(state, src, end, dst, at, Infinity, at + length)
  if (r < 0) return r
  if (r !== R_END || state.op !== at + length) return r === R_GROW ? ERR_OUTPUT : ERR_INPUT
  return length
}

/** Fragments are compressed separately, as google/snappy does (`kBlockSize`). */
const FRAGMENT = 65536
/** Largest hash table: 2^14 entries (google/snappy `kMaxHashTableSize`). */
const MAX_HASH_LOG = 14
/** Fragments shorter than this are written as one literal (google/snappy `kInputMarginBytes`). */
const INPUT_MARGIN = 15

/** A hash table for `encodeBlock` (16-bit positions inside a fragment). */
export function createSnappyTable(): Uint16Array {
  return new Uint16Array(1 << MAX_HASH_LOG)
}

const load32 = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)

function emitLiteral(src: Uint8Array, from: number, len: number, dst: Uint8Array, op: number): number {
  const n = len - 1
  if (n < 60) {
    dst[op++] = n << 2
  } else if (n < 0x100) {
    dst[op++] = 60 << 2
    dst[op++] = n
  } else if (n < 0x10000) {
    dst[op++] = 61 << 2
    dst[op++] = n & 0xff
    dst[op++] = n >>> 8
  } else {
    dst[op++] = 62 << 2
    dst[op++] = n & 0xff
    dst[op++] = (n >>> 8) & 0xff
    dst[op++] = n >>> 16
  }
  if (len <= 16) {
    for (let k = 0; k < len; k++) dst[op + k] = src[from + k]!
  } else {
    dst.set(src.subarray(from, from + len), op)
  }
  return op + len
}

/** Writes a copy of `len` (>= 4) bytes from `offset` (< 65536) back; google/snappy `EmitCopy`. */
function emitCopy(offset: number, len: number, dst: Uint8Array, op: number): number {
  while (len >= 68) {
    dst[op] = (63 << 2) | 2
    dst[op + 1] = offset & 0xff
    dst[op + 2] = offset >>> 8
    op += 3
    len -= 64
  }
  if (len > 64) {
    dst[op] = (59 << 2) | 2
    dst[op + 1] = offset & 0xff
    dst[op + 2] = offset >>> 8
    op += 3
    len -= 60
  }
  if (len < 12 && offset < 2048) {
    dst[op] = 1 | ((len - 4) << 2) | ((offset >>> 8) << 5)
    dst[op + 1] = offset & 0xff
    return op + 2
  }
  dst[op] = 2 | ((len - 1) << 2)
  dst[op + 1] = offset & 0xff
  dst[op + 2] = offset >>> 8
  return op + 3
}

/** Compresses one fragment `src[start, end)` (<= 64 KiB) into `dst[op]`; returns the end. */
function compressFragment(src: Uint8Array, start: number, end: number, dst: Uint8Array, op: number, table: Uint16Array): number {
  const len = end - start
  let nextEmit = start
  if (len >= INPUT_MARGIN) {
    let hashLog = 8
    while (hashLog < MAX_HASH_LOG && 1 << hashLog < len) hashLog++
    const shift = 32 - hashLog
    table.fill(0, 0, 1 << hashLog)
    const ipLimit = end - INPUT_MARGIN
    let ip = start + 1
    let nextHash = Math.imul(load32(src, ip), 0x1e35a7bd) >>> shift
    outer: for (;;) {
      // Look for a 4-byte match, probing further apart the longer none is found.
      let skip = 32
      let nextIp = ip
      let candidate: number
      do {
        ip = nextIp
        const hash = nextHash
        nextIp = ip + (skip++ >>> 5)
        if (nextIp > ipLimit) break outer
        nextHash = Math.imul(load32(src, nextIp), 0x1e35a7bd) >>> shift
        candidate = start + table[hash]!
        table[hash] = ip - start
      } while (load32(src, ip) !== load32(src, candidate))
      op = emitLiteral(src, nextEmit, ip - nextEmit, dst, op)
      // Emit copies while the next position matches too.
      for (;;) {
        let a = candidate + 4
        let b = ip + 4
        while (b < end && src[a] === src[b]) {
          a++
          b++
        }
        op = emitCopy(ip - candidate, b - ip, dst, op)
        ip = b
        nextEmit = ip
        if (ip >= ipLimit) break outer
        table[Math.imul(load32(src, ip - 1), 0x1e35a7bd) >>> shift] = ip - 1 - start
        const h = Math.imul(load32(src, ip), 0x1e35a7bd) >>> shift
        candidate = start + table[h]!
        table[h] = ip - start
        if (load32(src, ip) !== load32(src, candidate)) break
      }
      nextHash = Math.imul(load32(src, ++ip), 0x1e35a7bd) >>> shift
    }
  }
  if (nextEmit < end) op = emitLiteral(src, nextEmit, end - nextEmit, dst, op)
  return op
}

/**
 * Compresses `src[start, end)` (< 2^32 bytes) as one Snappy block, preamble included,
 * into `dst[op]`, which needs `maxCompressedLength(end - start)` bytes of room. Returns
 * the position after the block.
 */
export function encodeBlock(src: Uint8Array, start: number, end: number, dst: Uint8Array, op: number, table: Uint16Array): number {
  op = writeVarint(dst, op, end - start)
  for (let p = start; p < end; p += FRAGMENT) op = compressFragment(src, p, Math.min(end, p + FRAGMENT), dst, op, table)
  return op
}
