/**
 * The two checksums of the deflate family: CRC-32 (gzip trailer and FHCRC, RFC 1952
 * section 8) and Adler-32 (zlib trailer, RFC 1950 section 8.2). Both are incremental:
 * pass the previous value back in to continue over the next span.
 */

/**
 * Slicing-by-16 tables for the reflected CRC-32 polynomial 0xEDB88320: table k maps a
 * byte to its CRC contribution k bytes further on, so the loop eats 16 bytes per step
 * (measured 1.2-1.6x the speed of slicing-by-8 on Node 20 here; the machine is noisy).
 * 16 KiB, built on first use.
 */
let crcTables: Int32Array | null = null

const buildCrcTables = /* @__PURE__ */ (): Int32Array => {
  const t = new Int32Array(256 * 16)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!
    for (let k = 1; k < 16; k++) {
      c = t[c & 0xff]! ^ (c >>> 8)
      t[k * 256 + n] = c
    }
  }
  return t
}

/** The slicing-by-16 tables (table k at `k * 256`), built on first use. */
export const crc32Tables = (): Int32Array => (crcTables ??= buildCrcTables())

/**
 * CRC-32 of `data[start..end)`, continuing from `crc` (0 for a new checksum): slicing by
 * 16, the four words read little-endian through a DataView (measured 1.35x faster than
 * sixteen byte loads on Node 20).
 */
export function crc32(data: Uint8Array, crc = 0, start = 0, end = data.length): number {
  const t = crc32Tables()
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  let c = ~crc
  let i = start
  const end16 = end - 15
  for (; i < end16; i += 16) {
    const a = c ^ view.getInt32(i, true)
    const b = view.getInt32(i + 4, true)
    const d = view.getInt32(i + 8, true)
    const e = view.getInt32(i + 12, true)
    c =
      t[3840 + (a & 0xff)]! ^
      t[3584 + ((a >>> 8) & 0xff)]! ^
      t[3328 + ((a >>> 16) & 0xff)]! ^
      t[3072 + (a >>> 24)]! ^
      t[2816 + (b & 0xff)]! ^
      t[2560 + ((b >>> 8) & 0xff)]! ^
      t[2304 + ((b >>> 16) & 0xff)]! ^
      t[2048 + (b >>> 24)]! ^
      t[1792 + (d & 0xff)]! ^
      t[1536 + ((d >>> 8) & 0xff)]! ^
      t[1280 + ((d >>> 16) & 0xff)]! ^
      t[1024 + (d >>> 24)]! ^
      t[768 + (e & 0xff)]! ^
      t[512 + ((e >>> 8) & 0xff)]! ^
      t[256 + ((e >>> 16) & 0xff)]! ^
      t[e >>> 24]!
  }
  for (; i < end; i++) c = t[(c ^ data[i]!) & 0xff]! ^ (c >>> 8)
  return ~c >>> 0
}

/**
 * Adler-32 of `data[start..end)`, continuing from `adler` (1 for a new checksum).
 * Sums are reduced modulo 65521 every 5552 bytes, the largest run for which the
 * unreduced sums stay below 2^32 (zlib's NMAX), so plain doubles never lose bits.
 */
export function adler32(data: Uint8Array, adler = 1, start = 0, end = data.length): number {
  let a = adler & 0xffff
  let b = adler >>> 16
  let i = start
  while (i < end) {
    const stop = Math.min(i + 5552, end)
    for (; i < stop; i++) {
      a += data[i]!
      b += a
    }
    a %= 65521
    b %= 65521
  }
  return ((b << 16) | a) >>> 0
}
