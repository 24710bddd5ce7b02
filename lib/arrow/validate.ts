/**
 * The O(n) checks of Arrow IPC buffers, run by `validate: 'full'` (Arrow C++ splits
 * them off the same way: `Validate()` is O(1) per buffer, `ValidateFull()` looks at
 * every value; arrow-rs likewise has `validate` and `validate_full`).
 *
 * Each kernel is one loop over one typed-array class, so that the engine sees a single
 * element kind per loop (monomorphic, no `Number()` of mixed values). Index checks come
 * in two passes: `indicesFit*` ORs sign bits over the whole buffer without a branch
 * (the common case: all values fine, one pass), and only when that fails does
 * `indexOutside*` look for the first position that fails, from `from` on; whether a hit
 * is a null slot (whose value the format leaves undefined) is the caller's to decide,
 * which then resumes after it.
 */

/** First `i` in [from, n) with `a[i]` outside [0, size), or -1. */
export function indexOutside8(a: Int8Array, from: number, n: number, size: number): number {
  const m = size - 1
  for (let i = from; i < n; i++) if (a[i]! < 0 || a[i]! > m) return i
  return -1
}

/** Whether every one of the first `n` values of `a` is inside [0, size). */
export function indicesFit8(a: Int8Array, n: number, size: number): boolean {
  // Sign bit of v | (size - 1 - v): set when v < 0 or v >= size (exact for size <= 2^31).
  const m = size - 1
  let bad = 0
  let i = 0
  for (; i + 4 <= n; i += 4) {
    const a0 = a[i]!, a1 = a[i + 1]!, a2 = a[i + 2]!, a3 = a[i + 3]!
    bad |= a0 | a1 | a2 | a3 | (m - a0) | (m - a1) | (m - a2) | (m - a3)
  }
  for (; i < n; i++) bad |= a[i]! | (m - a[i]!)
  return bad >= 0
}

/** First `i` in [from, n) with `a[i]` outside [0, size), or -1: unsigned, only `a[i] >= size`. */
export function indexOutsideU8(a: Uint8Array, from: number, n: number, size: number): number {
  for (let i = from; i < n; i++) if (a[i]! >= size) return i
  return -1
}

/** Whether every one of the first `n` values of `a` is inside [0, size). */
export function indicesFitU8(a: Uint8Array, n: number, size: number): boolean {
  // Unsigned values are never negative: the sign bit of size - 1 - v is set when v >= size.
  const m = size - 1
  let bad = 0
  let i = 0
  for (; i + 4 <= n; i += 4) bad |= (m - a[i]!) | (m - a[i + 1]!) | (m - a[i + 2]!) | (m - a[i + 3]!)
  for (; i < n; i++) bad |= m - a[i]!
  return bad >= 0
}

/** First `i` in [from, n) with `a[i]` outside [0, size), or -1. */
export function indexOutside16(a: Int16Array, from: number, n: number, size: number): number {
  const m = size - 1
  for (let i = from; i < n; i++) if (a[i]! < 0 || a[i]! > m) return i
  return -1
}

/** Whether every one of the first `n` values of `a` is inside [0, size). */
export function indicesFit16(a: Int16Array, n: number, size: number): boolean {
  // Sign bit of v | (size - 1 - v): set when v < 0 or v >= size (exact for size <= 2^31).
  const m = size - 1
  let bad = 0
  let i = 0
  for (; i + 4 <= n; i += 4) {
    const a0 = a[i]!, a1 = a[i + 1]!, a2 = a[i + 2]!, a3 = a[i + 3]!
    bad |= a0 | a1 | a2 | a3 | (m - a0) | (m - a1) | (m - a2) | (m - a3)
  }
  for (; i < n; i++) bad |= a[i]! | (m - a[i]!)
  return bad >= 0
}

/** First `i` in [from, n) with `a[i]` outside [0, size), or -1: unsigned, only `a[i] >= size`. */
export function indexOutsideU16(a: Uint16Array, from: number, n: number, size: number): number {
  for (let i = from; i < n; i++) if (a[i]! >= size) return i
  return -1
}

/** Whether every one of the first `n` values of `a` is inside [0, size). */
export function indicesFitU16(a: Uint16Array, n: number, size: number): boolean {
  // Unsigned values are never negative: the sign bit of size - 1 - v is set when v >= size.
  const m = size - 1
  let bad = 0
  let i = 0
  for (; i + 4 <= n; i += 4) bad |= (m - a[i]!) | (m - a[i + 1]!) | (m - a[i + 2]!) | (m - a[i + 3]!)
  for (; i < n; i++) bad |= m - a[i]!
  return bad >= 0
}

/** Int32 indices; also Uint32 ones viewed as Int32 (those >= 2^31 turn negative: out of range). */
export function indexOutside32(a: Int32Array, from: number, n: number, size: number): number {
  const m = size - 1
  for (let i = from; i < n; i++) if (a[i]! < 0 || a[i]! > m) return i
  return -1
}

/** Whether every one of the first `n` values of `a` is inside [0, size). */
export function indicesFit32(a: Int32Array, n: number, size: number): boolean {
  // Sign bit of v | (size - 1 - v): set when v < 0 or v >= size (exact for size <= 2^31).
  const m = size - 1
  let bad = 0
  let i = 0
  for (; i + 4 <= n; i += 4) {
    const a0 = a[i]!, a1 = a[i + 1]!, a2 = a[i + 2]!, a3 = a[i + 3]!
    bad |= a0 | a1 | a2 | a3 | (m - a0) | (m - a1) | (m - a2) | (m - a3)
  }
  for (; i < n; i++) bad |= a[i]! | (m - a[i]!)
  return bad >= 0
}

export function indicesFit64(words: Int32Array, n: number, size: number): boolean {
  return indexOutside64(words, 0, n, size) < 0
}

/**
 * 64-bit indices as pairs of int32 words (little-endian: low word first): in range
 * when the high word is 0 and the low word, unsigned, is below `size` (< 2^32).
 */
export function indexOutside64(words: Int32Array, from: number, n: number, size: number): number {
  for (let i = from; i < n; i++) if ((words[2 * i + 1]! | 0) !== 0 || words[2 * i]! >>> 0 >= size) return i
  return -1
}

/**
 * First `i` in [1, n] with `o[i] < o[i - 1]`, or -1 (offsets must not decrease), for
 * `o[0] >= 0`. The first pass ORs every value and every difference: with all values
 * non-negative the differences are exact int32s, so the sign bit is set iff a value is
 * negative or a difference is, and either means a decrease (from `o[0] >= 0`).
 */
export function offsetDecrease32(o: Int32Array, n: number): number {
  let prev = o[0]!
  let bad = prev
  let i = 1
  for (; i + 3 <= n; i += 4) {
    const a0 = o[i]!, a1 = o[i + 1]!, a2 = o[i + 2]!, a3 = o[i + 3]!
    bad |= a0 | a1 | a2 | a3 | (a0 - prev) | (a1 - a0) | (a2 - a1) | (a3 - a2)
    prev = a3
  }
  for (; i <= n; i++) {
    const v = o[i]!
    bad |= v | (v - prev)
    prev = v
  }
  if (bad >= 0) return -1
  prev = o[0]!
  for (i = 1; i <= n; i++) {
    const v = o[i]!
    if (v < prev) return i
    prev = v
  }
  return -1
}

export function offsetDecrease64(o: BigInt64Array, n: number): number {
  let prev = o[0]!
  for (let i = 1; i <= n; i++) {
    const v = o[i]!
    if (v < prev) return i
    prev = v
  }
  return -1
}

/**
 * First view in [from, n) of a Binary/Utf8 view array (16 bytes each, as int32 words:
 * size, then 12 inline bytes or prefix, buffer index, offset; Columnar.rst "Variable-size
 * Binary View Layout") that is negative-sized or, longer than 12 bytes, points outside
 * its variadic buffer (`sizes` holds each buffer's length). -1 when none.
 */
export function viewOutside(words: Int32Array, from: number, n: number, sizes: Float64Array): number {
  const buffers = sizes.length
  for (let i = from; i < n; i++) {
    const size = words[4 * i]!
    if (size <= 12) {
      if (size < 0) return i
      continue
    }
    const index = words[4 * i + 2]!
    const offset = words[4 * i + 3]!
    if (index < 0 || index >= buffers || offset < 0 || offset + size > sizes[index]!) return i
  }
  return -1
}
