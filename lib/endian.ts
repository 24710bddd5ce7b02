/**
 * Little-endian integer reads and writes over byte arrays, for the binary formats
 * (LZ4 frames, zstd frames, xxHash32). A module of its own, apart from bytes.ts: every
 * entry point loads bytes.ts up front, and a codec importing it would move it into a
 * chunk of its own that every user then downloads (the repository's test/bundle-size.test.ts).
 */

/** The unsigned 32-bit little-endian integer at `b[at, at + 4)`. */
export function readU32LE(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0
}

/** The signed 32-bit little-endian integer at `b[at, at + 4)`. */
export function readI32LE(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)
}

/** Writes `v` as a 32-bit little-endian integer at `b[at, at + 4)`. */
export function writeU32LE(b: Uint8Array, at: number, v: number): void {
  b[at] = v
  b[at + 1] = v >>> 8
  b[at + 2] = v >>> 16
  b[at + 3] = v >>> 24
}
