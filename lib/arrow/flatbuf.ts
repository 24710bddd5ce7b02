import { CodecError } from '../errors.js'

/**
 * A bounds-checked reader for the FlatBuffers tables Arrow IPC uses (Message, Schema,
 * Footer), written against the FlatBuffers binary format spec
 * (https://flatbuffers.dev/internals/) instead of the `flatbuffers` runtime, so that
 * every hostile offset or length becomes a `CodecError` with the position, never an
 * out-of-range read, a `RangeError` or an allocation sized by the input.
 *
 * Positions are byte offsets into `bytes`; `base` is where `bytes` starts in the whole
 * stream, only used to report absolute offsets in errors.
 */
export class FlatReader {
  /** The flatbuffer (one Message's metadata, or a file footer). */
  readonly bytes: Uint8Array
  readonly view: DataView
  /** Absolute stream offset of `bytes[0]`, for error messages. */
  readonly base: number

  constructor(bytes: Uint8Array, base: number) {
    this.bytes = bytes
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.base = base
  }

  fail(message: string, pos: number): never {
    throw new CodecError('INVALID_DATA', 'arrow', message, this.base + pos)
  }

  /** Throws unless `[pos, pos + size)` lies inside the buffer. */
  check(pos: number, size: number, what: string): void {
    if (pos < 0 || size < 0 || pos + size > this.bytes.length) {
      this.fail(`${what}: ${size} bytes at ${pos} run past the ${this.bytes.length}-byte flatbuffer`, Math.max(0, Math.min(pos, this.bytes.length)))
    }
  }

  u8(pos: number): number {
    this.check(pos, 1, 'byte')
    return this.bytes[pos]!
  }
  i16(pos: number): number {
    this.check(pos, 2, 'int16')
    return this.view.getInt16(pos, true)
  }
  i32(pos: number): number {
    this.check(pos, 4, 'int32')
    return this.view.getInt32(pos, true)
  }
  /**
   * An int64 as a JS number. Arrow lengths and offsets are int64, but no buffer a
   * runtime can allocate exceeds 2^53, so larger (or negative, when `signed` is
   * false) values are rejected here rather than silently rounded.
   */
  i64(pos: number, what: string): number {
    this.check(pos, 8, what)
    const lo = this.view.getUint32(pos, true)
    const hi = this.view.getInt32(pos + 4, true)
    if (hi < -0x200000 || hi >= 0x200000) this.fail(`${what} ${this.view.getBigInt64(pos, true)} is out of the safe integer range`, pos)
    return hi * 0x100000000 + lo
  }

  /** The root table's position (the uoffset at `pos`). */
  root(pos = 0): number {
    return this.indirect(pos, 'root table')
  }

  /** Follows the uoffset stored at `pos`. */
  indirect(pos: number, what: string): number {
    this.check(pos, 4, what)
    const target = pos + this.view.getUint32(pos, true)
    if (target >= this.bytes.length) this.fail(`${what} offset points to ${target}, past the ${this.bytes.length}-byte flatbuffer`, pos)
    return target
  }

  /**
   * The absolute position of field `slot` of the table at `table`, or 0 when the field
   * is absent (the vtable is too short or holds 0).
   */
  field(table: number, slot: number): number {
    this.check(table, 4, 'table')
    const vtable = table - this.view.getInt32(table, true)
    this.check(vtable, 4, 'vtable')
    const vtableSize = this.view.getUint16(vtable, true)
    const tableSize = this.view.getUint16(vtable + 2, true)
    if (vtableSize < 4 || (vtableSize & 1) !== 0) this.fail(`vtable size ${vtableSize} is invalid`, vtable)
    this.check(vtable, vtableSize, 'vtable')
    const entry = 4 + slot * 2
    if (entry + 2 > vtableSize) return 0
    const rel = this.view.getUint16(vtable + entry, true)
    if (rel === 0) return 0
    if (rel >= tableSize) this.fail(`field ${slot} at ${rel} lies outside its ${tableSize}-byte table`, vtable + entry)
    return table + rel
  }

  /** Scalar field readers with the schema's default when the field is absent. */
  fieldU8(table: number, slot: number, fallback: number): number {
    const p = this.field(table, slot)
    return p ? this.u8(p) : fallback
  }
  fieldBool(table: number, slot: number): boolean {
    const p = this.field(table, slot)
    return p ? this.u8(p) !== 0 : false
  }
  fieldI16(table: number, slot: number, fallback: number): number {
    const p = this.field(table, slot)
    return p ? this.i16(p) : fallback
  }
  fieldI32(table: number, slot: number, fallback: number): number {
    const p = this.field(table, slot)
    return p ? this.i32(p) : fallback
  }
  fieldI64(table: number, slot: number, fallback: number, what: string): number {
    const p = this.field(table, slot)
    return p ? this.i64(p, what) : fallback
  }
  /** The table a field points to, or 0 when absent. */
  fieldTable(table: number, slot: number, what: string): number {
    const p = this.field(table, slot)
    return p ? this.indirect(p, what) : 0
  }

  /** A string field as text, or `null` when absent. */
  fieldString(table: number, slot: number, what: string): string | null {
    const p = this.field(table, slot)
    if (!p) return null
    const s = this.indirect(p, what)
    const n = this.u32(s, what)
    this.check(s + 4, n, what)
    return decodeUtf8(this.bytes.subarray(s + 4, s + 4 + n))
  }

  u32(pos: number, what: string): number {
    this.check(pos, 4, what)
    return this.view.getUint32(pos, true)
  }

  /**
   * A vector field: `{ start, length }` with `start` the first element, checked to hold
   * `length * elementSize` bytes (so a hostile count cannot make us allocate or loop
   * past the data). `length` is 0 when the field is absent.
   */
  fieldVector(table: number, slot: number, elementSize: number, what: string): { start: number; length: number } {
    const p = this.field(table, slot)
    if (!p) return { start: 0, length: 0 }
    const v = this.indirect(p, what)
    const length = this.u32(v, what)
    if (length * elementSize > this.bytes.length - v - 4) {
      this.fail(`${what}: ${length} elements of ${elementSize} bytes do not fit in the ${this.bytes.length - v - 4} bytes left`, v)
    }
    return { start: v + 4, length }
  }
}

const utf8 = /* @__PURE__ */ new TextDecoder('utf-8')

function decodeUtf8(bytes: Uint8Array): string {
  // Field names and metadata are short; TextDecoder replaces invalid sequences with
  // U+FFFD instead of throwing, as the C++ and Java readers accept them unchecked.
  return utf8.decode(bytes)
}
