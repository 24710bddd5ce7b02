/**
 * XXH64 (Cyan4973/xxHash `doc/xxhash_spec.md`, "XXH64 algorithm"), sluice's one: the
 * checksum of zstd (RFC 8878 section 3.1.1: a frame's Content_Checksum is its low 32
 * bits, seed 0), of the zstd seekable format's seek table entries (the same low 32 bits
 * of the frame's content) and the hash of Parquet's bloom filters (parquet-format
 * BloomFilter.md, "Technical Approach": the whole 64 bits, `xxhash64`). A leaf module:
 * `sluice/parquet` loads it without any codec.
 *
 * 64-bit arithmetic on two 32-bit halves (`hi`, `lo`) kept in module variables, so the
 * loop allocates nothing and never touches BigInt (measured far slower per lane).
 */

// The five 64-bit primes of the specification, as [high, low] halves.
const P1H = 0x9e3779b1, P1L = 0x85ebca87
const P2H = 0xc2b2ae3d, P2L = 0x27d4eb4f
const P3H = 0x165667b1, P3L = 0x9e3779f9
const P4H = 0x85ebca77, P4L = 0xc2b2ae63
const P5H = 0x27d4eb2f, P5L = 0x165667c5

/** The result of the last 64-bit operation. */
let rh = 0
let rl = 0

/** High 32 bits of the unsigned 32 x 32 product. */
function mulHigh(a: number, b: number): number {
  const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16
  const m1 = a1 * b0, m2 = a0 * b1
  const mid = ((a0 * b0) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff)
  return (a1 * b1 + (m1 >>> 16) + (m2 >>> 16) + (mid >>> 16)) >>> 0
}

/** (ah, al) * (bh, bl) mod 2^64 into (rh, rl). */
function mul(ah: number, al: number, bh: number, bl: number): void {
  rh = (Math.imul(ah, bl) + Math.imul(al, bh) + mulHigh(al, bl)) >>> 0
  rl = Math.imul(al, bl) >>> 0
}

/** (ah, al) + (bh, bl) mod 2^64 into (rh, rl). */
function add(ah: number, al: number, bh: number, bl: number): void {
  const l = al + bl
  rl = l >>> 0
  rh = (ah + bh + (l > 0xffffffff ? 1 : 0)) >>> 0
}

/** Rotate (h, l) left by r (1..63, not 32) into (rh, rl). */
function rotl(h: number, l: number, r: number): void {
  if (r > 32) {
    const t = h
    h = l
    l = t
    r -= 32
  }
  rh = ((h << r) | (l >>> (32 - r))) >>> 0
  rl = ((l << r) | (h >>> (32 - r))) >>> 0
}

/** XXH64's round: acc = rotl(acc + input * P2, 31) * P1, into (rh, rl). */
function round(acch: number, accl: number, inh: number, inl: number): void {
  mul(inh, inl, P2H, P2L)
  add(acch, accl, rh, rl)
  rotl(rh, rl, 31)
  mul(rh, rl, P1H, P1L)
}

function u32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0
}

/**
 * The 32-byte stripes of `data` from `at` while `at <= limit`, on the four accumulators
 * in `acc` (high, low words): per lane, acc = rotl(acc + lane * P2, 31) * P1. Written out
 * on locals and a typed array: numbers above 2^30 stored in module variables would each
 * be boxed, which made this loop several times slower.
 */
function stripes(data: Uint8Array, at: number, limit: number, acc: Uint32Array): number {
  const p2l0 = P2L & 0xffff, p2l1 = P2L >>> 16, p1l0 = P1L & 0xffff, p1l1 = P1L >>> 16
  while (at <= limit) {
    for (let j = 0; j < 8; j += 2, at += 8) {
      const inl = (data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16) | (data[at + 3]! << 24)) >>> 0
      const inh = (data[at + 4]! | (data[at + 5]! << 8) | (data[at + 6]! << 16) | (data[at + 7]! << 24)) >>> 0
      // lane * P2 mod 2^64
      let a0 = inl & 0xffff, a1 = inl >>> 16
      let m1 = a1 * p2l0, m2 = a0 * p2l1
      let mid = ((a0 * p2l0) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff)
      let ph = (Math.imul(inh, P2L) + Math.imul(inl, P2H) + a1 * p2l1 + (m1 >>> 16) + (m2 >>> 16) + (mid >>> 16)) >>> 0
      let pl = Math.imul(inl, P2L) >>> 0
      // + acc
      const sum = acc[j + 1]! + pl
      pl = sum >>> 0
      ph = (acc[j]! + ph + (sum > 0xffffffff ? 1 : 0)) >>> 0
      // rotl 31
      const th = ((ph << 31) | (pl >>> 1)) >>> 0
      const tl = ((pl << 31) | (ph >>> 1)) >>> 0
      // * P1
      a0 = tl & 0xffff
      a1 = tl >>> 16
      m1 = a1 * p1l0
      m2 = a0 * p1l1
      mid = ((a0 * p1l0) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff)
      acc[j] = Math.imul(th, P1L) + Math.imul(tl, P1H) + a1 * p1l1 + (m1 >>> 16) + (m2 >>> 16) + (mid >>> 16)
      acc[j + 1] = Math.imul(tl, P1L)
    }
  }
  return at
}

/**
 * XXH64 of `data` with `seed` (as its unsigned high and low 32 bits), as its high and
 * low 32 bits (unsigned); `xxh64Low32()` gives the part zstd stores.
 */
export function xxh64(data: Uint8Array, seedHigh = 0, seedLow = 0): [high: number, low: number] {
  const n = data.length
  let i = 0
  let hh: number, hl: number
  if (n >= 32) {
    // v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1.
    add(P1H, P1L, P2H, P2L)
    add(rh, rl, seedHigh, seedLow)
    let v1h = rh, v1l = rl
    add(seedHigh, seedLow, P2H, P2L)
    let v2h = rh, v2l = rl
    let v3h = seedHigh, v3l = seedLow
    add(~P1H >>> 0, ~P1L >>> 0, 0, 1)
    add(rh, rl, seedHigh, seedLow)
    let v4h = rh, v4l = rl
    const limit = n - 32
    const acc = Uint32Array.of(v1h, v1l, v2h, v2l, v3h, v3l, v4h, v4l)
    i = stripes(data, i, limit, acc)
    ;[v1h, v1l, v2h, v2l, v3h, v3l, v4h, v4l] = acc
    rotl(v1h, v1l, 1)
    hh = rh; hl = rl
    rotl(v2h, v2l, 7)
    add(hh, hl, rh, rl)
    hh = rh; hl = rl
    rotl(v3h, v3l, 12)
    add(hh, hl, rh, rl)
    hh = rh; hl = rl
    rotl(v4h, v4l, 18)
    add(hh, hl, rh, rl)
    hh = rh; hl = rl
    // Merge each accumulator: h = (h ^ round(0, v)) * P1 + P4.
    for (const [vh, vl] of [[v1h, v1l], [v2h, v2l], [v3h, v3l], [v4h, v4l]] as const) {
      round(0, 0, vh, vl)
      mul((hh ^ rh) >>> 0, (hl ^ rl) >>> 0, P1H, P1L)
      add(rh, rl, P4H, P4L)
      hh = rh; hl = rl
    }
  } else {
    add(seedHigh, seedLow, P5H, P5L)
    hh = rh; hl = rl
  }
  // h += length (below 2^53: the high half is the quotient).
  add(hh, hl, Math.floor(n / 0x100000000) >>> 0, n >>> 0)
  hh = rh; hl = rl
  for (; i + 8 <= n; i += 8) {
    round(0, 0, u32(data, i + 4), u32(data, i))
    rotl((hh ^ rh) >>> 0, (hl ^ rl) >>> 0, 27)
    mul(rh, rl, P1H, P1L)
    add(rh, rl, P4H, P4L)
    hh = rh; hl = rl
  }
  if (i + 4 <= n) {
    mul(0, u32(data, i), P1H, P1L)
    rotl((hh ^ rh) >>> 0, (hl ^ rl) >>> 0, 23)
    mul(rh, rl, P2H, P2L)
    add(rh, rl, P3H, P3L)
    hh = rh; hl = rl
    i += 4
  }
  for (; i < n; i++) {
    mul(0, data[i]!, P5H, P5L)
    rotl((hh ^ rh) >>> 0, (hl ^ rl) >>> 0, 11)
    mul(rh, rl, P1H, P1L)
    hh = rh; hl = rl
  }
  // Avalanche: h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32.
  hl = (hl ^ (hh >>> 1)) >>> 0
  mul(hh, hl, P2H, P2L)
  hh = rh
  hl = rl
  const low = (hl ^ ((hl >>> 29) | (hh << 3))) >>> 0
  hh = (hh ^ (hh >>> 29)) >>> 0
  mul(hh, low, P3H, P3L)
  return [rh, (rl ^ rh) >>> 0]
}

/** The low 32 bits of XXH64 (seed 0): zstd's Content_Checksum and the seek table's. */
export function xxh64Low32(data: Uint8Array): number {
  return xxh64(data)[1]
}

/**
 * XXH64 of `data` (unsigned 64-bit), with `seed` (default 0, the seed of Parquet's
 * bloom filters).
 */
export function xxhash64(data: Uint8Array, seed = 0n): bigint {
  const [high, low] = seed === 0n ? xxh64(data) : xxh64(data, Number(BigInt.asUintN(64, seed) >> 32n), Number(BigInt.asUintN(32, seed)))
  return (BigInt(high) << 32n) | BigInt(low)
}
