/**
 * Checksums of a concatenation from the checksums of its parts, so that blocks
 * compressed apart (in workers, or inline one after another) give the one CRC-32 of a
 * gzip trailer (RFC 1952 section 8) and the one Adler-32 of a zlib trailer (RFC 1950
 * section 8.2) without reading the data twice. The same math as zlib's `crc32_combine`
 * and `adler32_combine`, written from the definitions:
 *
 * - CRC-32 is linear over GF(2): crc(A ‖ B) = crc(A) · x^(8·|B|) + crc(B), all modulo
 *   the polynomial. Multiplying by x^(8n) costs O(log n) polynomial multiplications
 *   with a table of x^(2^k) mod p.
 * - Adler-32 is two sums mod 65521: a = 1 + Σ bytes, b = Σ of the running a. Appending
 *   B adds a_B − 1 to a, and to b adds b_B plus |B| times (a_A − 1).
 */

/** The reflected CRC-32 polynomial (RFC 1952 section 8). */
const POLY = 0xedb88320

/** a(x) · b(x) modulo the CRC-32 polynomial, both reflected (bit 31 is x^0). */
function multiplyModP(a: number, b: number): number {
  let product = 0
  for (let m = 0x80000000; a !== 0 && m !== 0; m >>>= 1) {
    if (a & m) {
      product ^= b
      a ^= m
    }
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1
  }
  return product >>> 0
}

/**
 * x^(2^k) mod p for k = 0..31. The table wraps (k & 31): x's order modulo this
 * polynomial divides 2^32 − 1, so x^(2^32) = x (zlib's `x2n_table` relies on the same).
 */
let powers: Uint32Array | null = null
const buildPowers = /* @__PURE__ */ (): Uint32Array => {
  const t = new Uint32Array(32)
  t[0] = 0x40000000 // x^1, reflected
  for (let k = 1; k < 32; k++) t[k] = multiplyModP(t[k - 1]!, t[k - 1]!)
  return t
}

/** x^(n · 2^k) mod p. */
function xPowerModP(n: number, k: number): number {
  const t = (powers ??= buildPowers())
  let p = 0x80000000 // x^0
  while (n > 0) {
    if (n % 2 === 1) p = multiplyModP(t[k & 31]!, p)
    n = Math.floor(n / 2)
    k++
  }
  return p
}

/**
 * The CRC-32 of `A ‖ B` from `crcA` = CRC-32 of A, `crcB` = CRC-32 of B and
 * `lengthB` = |B| in bytes (any safe integer).
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  // x^(8·lengthB) = x^(lengthB · 2^3).
  return (multiplyModP(xPowerModP(lengthB, 3), crcA >>> 0) ^ crcB) >>> 0
}

/** Adler-32's modulus, the largest prime below 2^16 (RFC 1950 section 8.2). */
const BASE = 65521

/**
 * The Adler-32 of `A ‖ B` from `adlerA`, `adlerB` and `lengthB` = |B| (the Adler-32
 * of an empty input is 1).
 */
export function adler32Combine(adlerA: number, adlerB: number, lengthB: number): number {
  const rem = lengthB % BASE
  const aA = adlerA & 0xffff
  const bA = adlerA >>> 16
  const aB = adlerB & 0xffff
  const bB = adlerB >>> 16
  // a = aA + aB − 1; b = bA + bB + rem·(aA − 1), each reduced mod BASE (kept non-negative).
  const a = (aA + aB + BASE - 1) % BASE
  const b = (bA + bB + ((rem * aA) % BASE) + BASE - rem) % BASE
  return ((b << 16) | a) >>> 0
}
