/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78; RFC 3720 appendix B.4), the
 * checksum of Snappy's framing format, and its masking (google/snappy
 * `framing_format.txt` section 3: "checksums are not stored directly, but masked").
 */

/**
 * Slicing-by-8 tables for 0x82F63B78: table k maps a byte to its CRC contribution k
 * bytes further on, so the loop eats 8 bytes per step. 8 KiB, built on first use.
 */
let tables: Int32Array | null = null

const buildTables = /* @__PURE__ */ (): Int32Array => {
  const t = new Int32Array(256 * 8)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1
    t[n] = c
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8)
      t[k * 256 + n] = c
    }
  }
  return t
}

/** CRC-32C of `data[start..end)`, continuing from `crc` (0 for a new checksum); unsigned. */
export function crc32c(data: Uint8Array, crc = 0, start = 0, end = data.length): number {
  const t = (tables ??= buildTables())
  let c = ~crc
  let i = start
  const end8 = end - 7
  for (; i < end8; i += 8) {
    const a = c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))
    c =
      t[1792 + (a & 0xff)]! ^
      t[1536 + ((a >>> 8) & 0xff)]! ^
      t[1280 + ((a >>> 16) & 0xff)]! ^
      t[1024 + (a >>> 24)]! ^
      t[768 + data[i + 4]!]! ^
      t[512 + data[i + 5]!]! ^
      t[256 + data[i + 6]!]! ^
      t[data[i + 7]!]!
  }
  for (; i < end; i++) c = t[(c ^ data[i]!) & 0xff]! ^ (c >>> 8)
  return ~c >>> 0
}

/**
 * The masked form Snappy's framing format stores (framing_format.txt section 3): rotate
 * right by 15 bits and add 0xa282ead8, so that a CRC over data containing CRCs stays
 * useful. Unsigned.
 */
export function maskCrc(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0
}
