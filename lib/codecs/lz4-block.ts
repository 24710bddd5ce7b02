/**
 * The raw LZ4 block format (lz4/lz4 `doc/lz4_Block_format.md`) as pure functions over
 * caller-owned ranges: no allocation, no state besides an optional reusable hash table.
 *
 * A block is a list of sequences: a token (4 bits literal length, 4 bits match length),
 * optional length bytes (15 + 255 + ... + last < 255), the literals, a 2-byte
 * little-endian offset (1..65535) and optional match length bytes; the match length is
 * the nibble + 4 (`minmatch`). The last sequence has literals only.
 */

/** The input ended inside a sequence, or the block ended right after a match. */
export const ERR_INPUT = -1
/** The output would go past `dstEnd`. */
export const ERR_OUTPUT = -2
/** A match offset is 0 (block format: "0 is an invalid offset value") or reaches before the history. */
export const ERR_OFFSET = -3

/** Describes an error code of `decodeBlock` for messages. */
export function blockErrorMessage(code: number): string {
  switch (code) {
    case ERR_INPUT:
      return 'compressed block ends inside a sequence or right after a match'
    case ERR_OUTPUT:
      return 'compressed block decodes to more bytes than the room it is allowed'
    case ERR_OFFSET:
      return 'compressed block has a match offset of 0 or one that reaches before the start of the data'
    default:
      return `block decoding failed (${code})`
  }
}

/**
 * Byte runs up to this length are copied with a plain loop: `TypedArray#set` needs a
 * `subarray` view (an allocation) and `copyWithin` has a call overhead that only pays
 * for longer runs (measured in bench/lz4-micro.ts).
 */
const SHORT_COPY = 32

/**
 * Decodes the block `src[srcStart, srcEnd)` into `dst[dstStart, dstEnd)`. Returns the
 * number of bytes written, or a negative `ERR_*` code. On error `dst[dstStart, dstEnd)`
 * may hold partial output.
 *
 * History for matches (the frame format's linked blocks, up to 64 KiB back):
 * - `dst[dictStart, dstStart)`: bytes already in `dst` that matches may reach into.
 * - `ext[0, extLength)`: older bytes that come right before `dst[dictStart]` (an
 *   "external dictionary", e.g. output of a previous call kept by the frame decoder).
 * A match that reaches before all of those is `ERR_OFFSET`.
 *
 * Like the reference decoder's "wild copies", short runs are copied 4 bytes at a time
 * and may overwrite up to 20 bytes of `dst` after the returned end (never past
 * `dstEnd`); those bytes hold no output.
 */
export function decodeBlock(
  src: Uint8Array,
  srcStart: number,
  srcEnd: number,
  dst: Uint8Array,
  dstStart: number,
  dstEnd: number,
  dictStart = dstStart,
  ext: Uint8Array | null = null,
  extLength = 0,
): number {
  let ip = srcStart
  let op = dstStart
  // 4-byte copies for short matches: unaligned DataView access is inlined by V8's
  // optimizing compiler, where Int32Array would need 4-byte alignment.
  const view = new DataView(dst.buffer, dst.byteOffset, dst.byteLength)
  const srcView = new DataView(src.buffer, src.byteOffset, src.byteLength)
  // Literal runs ending before this may read up to 3 bytes past their end.
  const srcWildEnd = srcEnd - 3
  // Matches ending before this may overrun their end by up to 3 bytes (later output
  // overwrites them), so they copy 4 bytes at a time.
  const wildEnd = dstEnd - 3
  // An empty block is not valid: even empty content is one zero token (block format,
  // "End of block conditions"); the reference decoder also rejects srcSize 0.
  if (ip >= srcEnd) return ERR_INPUT
  // Shortcut region: a sequence with a short literal run (<= 14) and a short match
  // (<= 18) starting before these limits can be copied with fixed 16- and 20-byte
  // overruns without any bounds check.
  const srcFast = srcEnd - 32
  const dstFast = dstEnd - 64
  for (;;) {
    if (ip < srcFast && op < dstFast) {
      const t = src[ip]!
      if (t < 0xf0 && (t & 15) !== 15) {
        const lit = t >>> 4
        let i = ip + 1
        view.setInt32(op, srcView.getInt32(i, true), true)
        if (lit > 4) {
          view.setInt32(op + 4, srcView.getInt32(i + 4, true), true)
          view.setInt32(op + 8, srcView.getInt32(i + 8, true), true)
          view.setInt32(op + 12, srcView.getInt32(i + 12, true), true)
        }
        op += lit
        i += lit
        const offset = src[i]! | (src[i + 1]! << 8)
        const from = op - offset
        if (offset >= 4 && from >= dictStart) {
          ip = i + 2
          const mlen = (t & 15) + 4
          view.setInt32(op, view.getInt32(from, true), true)
          view.setInt32(op + 4, view.getInt32(from + 4, true), true)
          if (mlen > 8) {
            view.setInt32(op + 8, view.getInt32(from + 8, true), true)
            view.setInt32(op + 12, view.getInt32(from + 12, true), true)
            view.setInt32(op + 16, view.getInt32(from + 16, true), true)
          }
          op += mlen
          continue
        }
        // Undo: let the general path below handle this sequence's match.
        op -= lit
      }
    }
    const token = src[ip++]!
    // Literals.
    let length = token >>> 4
    if (length === 15) {
      let b = 255
      while (b === 255) {
        if (ip >= srcEnd) return ERR_INPUT
        b = src[ip++]!
        length += b
      }
    }
    if (length > 0) {
      const litEnd = ip + length
      if (litEnd > srcEnd) return ERR_INPUT
      if (op + length > dstEnd) return ERR_OUTPUT
      if (length <= SHORT_COPY && litEnd <= srcWildEnd && op + length <= wildEnd) {
        do {
          view.setInt32(op, srcView.getInt32(ip, true), true)
          op += 4
          ip += 4
        } while (ip < litEnd)
        op -= ip - litEnd
        ip = litEnd
      } else if (length <= SHORT_COPY) {
        do dst[op++] = src[ip++]!
        while (ip < litEnd)
      } else {
        dst.set(src.subarray(ip, litEnd), op)
        op += length
        ip = litEnd
      }
    }
    // The last sequence has no match part: the block ends after its literals.
    if (ip >= srcEnd) return op - dstStart
    if (ip + 1 >= srcEnd) return ERR_INPUT
    const offset = src[ip]! | (src[ip + 1]! << 8)
    ip += 2
    length = token & 15
    if (length === 15) {
      let b = 255
      while (b === 255) {
        if (ip >= srcEnd) return ERR_INPUT
        b = src[ip++]!
        length += b
      }
    }
    length += 4
    const end = op + length
    if (end > dstEnd) return ERR_OUTPUT
    let from = op - offset
    if (offset === 0) return ERR_OFFSET
    if (from < dictStart) {
      // The match starts in the external history (cold path: only at the start of a
      // call in linked-block frames).
      const back = dictStart - from
      if (ext === null || back > extLength) return ERR_OFFSET
      let e = extLength - back
      const fromExt = back < length ? back : length
      for (let k = 0; k < fromExt; k++) dst[op++] = ext[e++]!
      from = dictStart
      while (op < end) dst[op++] = dst[from++]!
    } else if (offset >= 4 && length <= SHORT_COPY && end <= wildEnd) {
      // 4 bytes at a time; correct for overlapping matches too, since with offset >= 4
      // each 4-byte read only covers bytes written before it.
      do {
        view.setInt32(op, view.getInt32(from, true), true)
        op += 4
        from += 4
      } while (op < end)
      op = end
    } else if (length <= SHORT_COPY) {
      // Forward byte copy; also right for overlapping matches (offset < length), where
      // the bytes being copied were written by this same loop.
      do dst[op++] = dst[from++]!
      while (op < end)
    } else if (offset >= length) {
      dst.copyWithin(op, from, from + length)
      op = end
    } else if (offset === 1) {
      dst.fill(dst[from]!, op, end)
      op = end
    } else {
      // Long overlapping match: the source is a period of `offset` bytes repeated;
      // copy it in chunks that double each time, each chunk non-overlapping.
      let period = offset
      while (op < end) {
        const n = end - op < period ? end - op : period
        dst.copyWithin(op, from, from + n)
        op += n
        period += n
      }
    }
    // A block must end with literals (block format, "End of block conditions" 1).
    if (ip >= srcEnd) return ERR_INPUT
  }
}

/**
 * The most bytes `encodeBlock` can produce for `n` input bytes: incompressible input
 * grows by one length byte per 255 literals plus the token (the reference's
 * `LZ4_COMPRESSBOUND`).
 */
export function maxCompressedSize(n: number): number {
  return n + Math.floor(n / 255) + 16
}

/**
 * Default hash table size: 2^13 entries (32 KiB). Measured on 16 MB corpora: as fast as
 * the reference's 2^12 (`LZ4_MEMORY_USAGE` 14) here, and compresses like `lz4 -1`
 * (text 0.421, node binary 0.542 of the input, vs 0.427 / 0.558 with 2^12).
 */
export const DEFAULT_HASH_LOG = 13

/** A hash table for `encodeBlock`; reuse it across calls to avoid allocation. */
export function createHashTable(hashLog = DEFAULT_HASH_LOG): Int32Array {
  return new Int32Array(1 << hashLog)
}

/** Block format "End of block conditions": the last 5 bytes are always literals. */
const LAST_LITERALS = 5
/** ... and the last match starts at least 12 bytes before the end. */
const MF_LIMIT = 12
/** Matches reach back at most 65535 bytes (the offset is 16 bits, 0 invalid). */
const MAX_OFFSET = 65535
/** After 2^SKIP_TRIGGER failed probes the search step grows by one (reference's acceleration). */
const SKIP_TRIGGER = 6

/** Writes a literal run (token already placed at `tokenPos`); returns the new `op`. */
function writeLiterals(src: Uint8Array, from: number, to: number, dst: Uint8Array, tokenPos: number, op: number): number {
  let n = to - from
  if (n >= 15) {
    dst[tokenPos] = 0xf0
    n -= 15
    while (n >= 255) {
      dst[op++] = 255
      n -= 255
    }
    dst[op++] = n
  } else {
    dst[tokenPos] = n << 4
  }
  if (to - from <= SHORT_COPY) {
    while (from < to) dst[op++] = src[from++]!
  } else {
    dst.set(src.subarray(from, to), op)
    op += to - from
  }
  return op
}

/**
 * Compresses `src[srcStart, srcEnd)` into `dst[dstStart, dstEnd)` as one independent
 * block, greedily (the reference's `LZ4_compress_fast` strategy: 4-byte hash of the
 * current position, one candidate per hash bucket, step growing on misses). `table`
 * is scratch (any power-of-two length; `createHashTable()`), overwritten each call.
 *
 * Returns the compressed size, or -1 if it does not fit in `dst[dstStart, dstEnd)`
 * (never when there are `maxCompressedSize(n)` bytes of room). The output respects the
 * end-of-block conditions, so every conformant decoder accepts it.
 */
export function encodeBlock(
  src: Uint8Array,
  srcStart: number,
  srcEnd: number,
  dst: Uint8Array,
  dstStart: number,
  dstEnd: number,
  table: Int32Array,
): number {
  let op = dstStart
  let anchor = srcStart
  // Blocks under 13 bytes cannot hold a match (block format, "End of block conditions" 3).
  if (srcEnd - srcStart >= MF_LIMIT + 1) {
    const shift = Math.clz32(table.length) + 1
    // 32-bit reads for hashing and comparing (unaligned DataView reads are inlined).
    const view = new DataView(src.buffer, src.byteOffset, src.byteLength)
    const dstView = new DataView(dst.buffer, dst.byteOffset, dst.byteLength)
    // Positions are stored as is; a candidate is trusted only after its 4 bytes compare
    // equal, but the fill keeps output deterministic and entries inside this range.
    table.fill(srcStart)
    const matchLimit = srcEnd - LAST_LITERALS
    const mfLimit = srcEnd - MF_LIMIT
    let ip = srcStart
    table[Math.imul(view.getInt32(ip, true), 0x9e3779b1) >>> shift] = ip
    ip++
    outer: for (;;) {
      // Search for a match: probe forward with a step that grows after misses.
      let ref = 0
      let seq = 0
      let forward = ip
      let probes = 1 << SKIP_TRIGGER
      let step = 1
      for (;;) {
        ip = forward
        forward += step
        step = probes++ >>> SKIP_TRIGGER
        if (ip > mfLimit) break outer
        seq = view.getInt32(ip, true)
        const h = Math.imul(seq, 0x9e3779b1) >>> shift
        ref = table[h]!
        table[h] = ip
        if (ip - ref <= MAX_OFFSET && ref < ip && view.getInt32(ref, true) === seq) break
      }
      // Extend the match backwards over equal bytes that were going to be literals.
      while (ip > anchor && ref > srcStart && src[ip - 1] === src[ref - 1]) {
        ip--
        ref--
      }
      // Room check for this sequence's token, literal length bytes, literals, offset
      // and the smallest possible tail (token + 5 last literals).
      const litLength = ip - anchor
      if (op + litLength + ((litLength + 240) / 255 | 0) + 1 + 2 + 1 + LAST_LITERALS > dstEnd) return -1
      let tokenPos = op++
      if (litLength < 15) {
        // Short run: token and a 4-byte-at-a-time copy. Safe to overrun: the source
        // run ends >= 12 bytes before srcEnd, and the room check above reserved
        // >= 9 bytes after the run in dst.
        dst[tokenPos] = litLength << 4
        for (let k = 0; k < litLength; k += 4) dstView.setInt32(op + k, view.getInt32(anchor + k, true), true)
        op += litLength
      } else {
        op = writeLiterals(src, anchor, ip, dst, tokenPos, op)
      }
      for (;;) {
        // Offset, then extend the match forwards (it stops 5 bytes before the end).
        const offset = ip - ref
        dst[op++] = offset
        dst[op++] = offset >>> 8
        let mp = ip + 4
        let rp = ref + 4
        while (mp < matchLimit - 3 && view.getInt32(mp, true) === view.getInt32(rp, true)) {
          mp += 4
          rp += 4
        }
        while (mp < matchLimit && src[mp] === src[rp]) {
          mp++
          rp++
        }
        let matchLength = mp - ip - 4
        ip = mp
        if (op + (matchLength / 255 | 0) + 1 + 1 + LAST_LITERALS > dstEnd) return -1
        if (matchLength >= 15) {
          dst[tokenPos] |= 15
          matchLength -= 15
          while (matchLength >= 255) {
            dst[op++] = 255
            matchLength -= 255
          }
          dst[op++] = matchLength
        } else {
          dst[tokenPos] |= matchLength
        }
        anchor = ip
        if (ip > mfLimit) break outer
        // Index a position inside the match, then test the current position at once:
        // a match right after a match is common and needs no literals.
        table[Math.imul(view.getInt32(ip - 2, true), 0x9e3779b1) >>> shift] = ip - 2
        seq = view.getInt32(ip, true)
        const h = Math.imul(seq, 0x9e3779b1) >>> shift
        ref = table[h]!
        table[h] = ip
        if (ip - ref <= MAX_OFFSET && ref < ip && view.getInt32(ref, true) === seq) {
          if (op + 1 + 2 + 1 + LAST_LITERALS > dstEnd) return -1
          tokenPos = op++
          dst[tokenPos] = 0
          continue
        }
        ip++
        break
      }
    }
  }
  // Last literals.
  const litLength = srcEnd - anchor
  if (op + 1 + litLength + ((litLength + 240) / 255 | 0) > dstEnd) return -1
  const tokenPos = op++
  op = writeLiterals(src, anchor, srcEnd, dst, tokenPos, op)
  return op - dstStart
}
