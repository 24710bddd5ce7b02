/**
 * The byte-level helpers the index formats share: 64-bit integers as two 32-bit halves
 * (every offset of an index is a safe integer, < 2^53), little- and big-endian, and a
 * cursor that refuses to read past the end of an index.
 */
import { badIndex } from './gzip-index.js'

/** The unsigned 64-bit integer at `b[at..at+8)`, little-endian (`le`) or big-endian; -1 when it is 2^53 or more. */
export function readU64(b: Uint8Array, at: number, le: boolean): number {
  const v = new DataView(b.buffer, b.byteOffset + at, 8)
  const hi = v.getUint32(le ? 4 : 0, le)
  const lo = v.getUint32(le ? 0 : 4, le)
  return hi >= 0x200000 ? -1 : hi * 2 ** 32 + lo
}

/** Writes `value` (a safe integer, >= 0) as an unsigned 64-bit integer at `b[at..at+8)`. */
export function writeU64(b: Uint8Array, at: number, value: number, le: boolean): void {
  const v = new DataView(b.buffer, b.byteOffset + at, 8)
  v.setUint32(le ? 4 : 0, Math.floor(value / 2 ** 32), le)
  v.setUint32(le ? 0 : 4, value >>> 0, le)
}

/** Reads fields of an index in order, refusing to read past its end. */
export class IndexCursor {
  at = 0
  private readonly view: DataView

  constructor(
    readonly bytes: Uint8Array,
    readonly what: string,
    readonly le: boolean,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  /** Throws unless `n` more bytes are there (`field` names what is read, for the message). */
  need(n: number, field: string): void {
    if (this.at + n > this.bytes.length) throw badIndex(`${this.what} ends after ${this.bytes.length} bytes, inside its ${field} (${n} bytes at ${this.at})`, this.bytes.length)
  }

  u8(field: string): number {
    this.need(1, field)
    return this.bytes[this.at++]!
  }

  u32(field: string): number {
    this.need(4, field)
    const v = this.view.getUint32(this.at, this.le)
    this.at += 4
    return v
  }

  /** A 64-bit integer that must be a safe integer. */
  u64(field: string): number {
    this.need(8, field)
    const v = readU64(this.bytes, this.at, this.le)
    if (v < 0) throw badIndex(`${this.what}: ${field} at ${this.at} is 2^53 or more`, this.at)
    this.at += 8
    return v
  }

  skip(n: number, field: string): void {
    this.need(n, field)
    this.at += n
  }
}
