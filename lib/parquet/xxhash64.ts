/**
 * XXH64 (Cyan4973/xxHash `doc/xxhash_spec.md`, seed 0 by default), the hash of Parquet's
 * bloom filters (parquet-format BloomFilter.md, "Technical Approach"). In BigInt: a
 * bloom filter lookup hashes one short value, so clarity wins over speed here.
 */

const M = (1n << 64n) - 1n
const P1 = 11400714785074694791n
const P2 = 14029467366897019727n
const P3 = 1609587929392839161n
const P4 = 9650029242287828579n
const P5 = 2870177450012600261n

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M

function u64(b: Uint8Array, i: number): bigint {
  const lo = (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0
  const hi = (b[i + 4]! | (b[i + 5]! << 8) | (b[i + 6]! << 16) | (b[i + 7]! << 24)) >>> 0
  return (BigInt(hi) << 32n) | BigInt(lo)
}

const u32 = (b: Uint8Array, i: number): bigint => BigInt((b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0)

function round(acc: bigint, input: bigint): bigint {
  acc = (acc + input * P2) & M
  return (rotl(acc, 31n) * P1) & M
}

function merge(acc: bigint, value: bigint): bigint {
  acc ^= round(0n, value)
  return (acc * P1 + P4) & M
}

/** XXH64 of `data` (unsigned 64-bit). */
export function xxhash64(data: Uint8Array, seed = 0n): bigint {
  const n = data.length
  let i = 0
  let h: bigint
  if (n >= 32) {
    let v1 = (seed + P1 + P2) & M
    let v2 = (seed + P2) & M
    let v3 = seed & M
    let v4 = (seed - P1) & M
    for (; i + 32 <= n; i += 32) {
      v1 = round(v1, u64(data, i))
      v2 = round(v2, u64(data, i + 8))
      v3 = round(v3, u64(data, i + 16))
      v4 = round(v4, u64(data, i + 24))
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & M
    h = merge(h, v1)
    h = merge(h, v2)
    h = merge(h, v3)
    h = merge(h, v4)
  } else {
    h = (seed + P5) & M
  }
  h = (h + BigInt(n)) & M
  for (; i + 8 <= n; i += 8) {
    h ^= round(0n, u64(data, i))
    h = (rotl(h, 27n) * P1 + P4) & M
  }
  if (i + 4 <= n) {
    h ^= (u32(data, i) * P1) & M
    h = (rotl(h, 23n) * P2 + P3) & M
    i += 4
  }
  for (; i < n; i++) {
    h ^= (BigInt(data[i]!) * P5) & M
    h = (rotl(h, 11n) * P1) & M
  }
  h ^= h >> 33n
  h = (h * P2) & M
  h ^= h >> 29n
  h = (h * P3) & M
  h ^= h >> 32n
  return h
}
