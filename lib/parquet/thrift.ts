/**
 * A reader for the Thrift compact protocol, the encoding of every Parquet footer.
 *
 * Spec: https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
 *
 * The reader is a plain cursor (`bytes`, `offset`) and free functions over it, so hot
 * decoders can inline the common cases. Binary values are zero-copy `subarray` views of
 * the input. Integers: i8/i16/i32 are `number`; i64 is a `number` whenever its value is
 * a safe integer (|v| <= 2^53 - 1, true of every size, offset and count a real file can
 * hold) and a `bigint` only beyond.
 *
 * Errors are thrown as `CodecError`s with format `'parquet'` and the absolute offset:
 * - `TRUNCATED` when the input ends inside a value (more bytes could make it valid;
 *   `thriftStatus()` maps it to `Status.NeedMoreData`),
 * - `INVALID_DATA` when no further bytes can make it valid (`Status.InvalidData`),
 * - `LIMIT_EXCEEDED` when nesting goes deeper than `MAX_DEPTH`.
 * `walkThrift()` is the status-returning form used to validate or measure a footer.
 */
import { CodecError, type Failure } from '../errors.js'
import { Status } from '../status.js'
import type { Int64 } from './types.js'

/** Compact protocol type ids (field headers and list/map element types). */
export const CompactType = Object.freeze({
  /** End of a struct. */
  STOP: 0,
  /** A bool field whose value is true (in the field header). */
  BOOLEAN_TRUE: 1,
  /** A bool field whose value is false (in the field header). */
  BOOLEAN_FALSE: 2,
  /** i8. */
  BYTE: 3,
  /** i16, zigzag varint. */
  I16: 4,
  /** i32, zigzag varint. */
  I32: 5,
  /** i64, zigzag varint. */
  I64: 6,
  /** 8 bytes, little-endian. */
  DOUBLE: 7,
  /** Length-prefixed bytes (also strings). */
  BINARY: 8,
  /** A list: size and element type, then the elements. */
  LIST: 9,
  /** A set, encoded as a list. */
  SET: 10,
  /** A map: size, key and value types, then the pairs. */
  MAP: 11,
  /** A nested struct, ended by STOP. */
  STRUCT: 12,
  /** Added in Thrift 0.19 (THRIFT-5563): 16 raw bytes. */
  UUID: 13,
} as const)

const { BOOLEAN_TRUE: TRUE, BOOLEAN_FALSE: FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT, UUID } =
  CompactType

/**
 * Deepest nesting of structs, lists and maps that `skip()` follows. Apache Thrift's
 * own readers stop at 64 (`TProtocol` DEFAULT_RECURSION_DEPTH); Parquet's IDL nests at
 * most 6 deep, so only hostile input gets near it, and it keeps a crafted footer of
 * nested list headers from overflowing the stack.
 */
export const MAX_DEPTH = 64

export const FORMAT = 'parquet'

/** A position in compact-protocol bytes. */
export class ThriftCursor {
  /** The bytes being read; `bytes.length` is the end of the input. */
  readonly bytes: Uint8Array
  /** The next byte to read, an index into `bytes`. */
  offset: number
  /** Absolute position of `bytes[0]` in the file, added to offsets in error messages. */
  readonly origin: number
  /** Current nesting depth of `skip()`. */
  depth = 0
  /** Element type of the list/set read by the last `readListHeader()`. */
  elementType = 0
  /** Field id of the header read by the last `readFieldHeader()`. */
  fieldId = 0
  /** Lazily made view for doubles. */
  private view: DataView | null = null

  constructor(bytes: Uint8Array, offset = 0, origin = 0) {
    this.bytes = bytes
    this.offset = offset
    this.origin = origin
  }

  /** A DataView over `bytes`, made on first use (only doubles need one). */
  dataView(): DataView {
    return (this.view ??= new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength))
  }
}

/** Throws `TRUNCATED`: the input ended inside a value that starts at `start`. */
export function truncated(c: ThriftCursor, what: string, need: number, start = c.offset): never {
  const have = c.bytes.length - start
  throw new CodecError(
    'TRUNCATED',
    FORMAT,
    `input ends inside ${what}: needs ${need} bytes, ${have < 0 ? 0 : have} remain`,
    c.origin + start,
  )
}

/** Throws `INVALID_DATA` at `at` (an index into `c.bytes`). */
export function invalid(c: ThriftCursor, message: string, at = c.offset): never {
  throw new CodecError('INVALID_DATA', FORMAT, message, c.origin + at)
}

/**
 * The status a reader error stands for: `NeedMoreData` for end of input, `InvalidData`
 * for everything else (including limits: more input cannot make those valid).
 */
export function thriftStatus(error: CodecError): Status {
  return error.code === 'TRUNCATED' ? Status.NeedMoreData : Status.InvalidData
}

/** One byte, unsigned. */
export function readByte(c: ThriftCursor): number {
  const pos = c.offset
  if (pos >= c.bytes.length) truncated(c, 'a byte', 1)
  c.offset = pos + 1
  return c.bytes[pos]!
}

/**
 * An unsigned LEB128 varint of at most 5 bytes (compact i16/i32, lengths and sizes),
 * as a number in [0, 2^32). The one-byte case comes first: most values in a footer are
 * small.
 */
export function readVarint32(c: ThriftCursor): number {
  const bytes = c.bytes
  let pos = c.offset
  if (pos < bytes.length) {
    const b = bytes[pos]!
    if (b < 0x80) {
      c.offset = pos + 1
      return b
    }
  }
  const start = pos
  let result = 0
  let shift = 0
  for (;;) {
    if (pos >= bytes.length) truncated(c, 'a varint', pos - start + 1, start)
    const b = bytes[pos++]!
    if (shift === 28) {
      // The 5th byte holds the top 4 bits of a 32-bit value; anything more is not a
      // 32-bit varint (compact protocol spec, "Integer encoding").
      if (b > 0x0f) invalid(c, `varint does not fit in 32 bits (5th byte 0x${b.toString(16)})`, start)
      c.offset = pos
      return result + b * 0x10000000
    }
    result |= (b & 0x7f) << shift
    if (b < 0x80) {
      c.offset = pos
      return result >>> 0
    }
    shift += 7
  }
}

/** A zigzag i16/i32 (also list sizes stay unsigned: use readVarint32 for those). */
export function readI32(c: ThriftCursor): number {
  const bytes = c.bytes
  const pos = c.offset
  if (pos < bytes.length) {
    const b = bytes[pos]!
    if (b < 0x80) {
      c.offset = pos + 1
      return (b >>> 1) ^ -(b & 1)
    }
  }
  const n = readVarint32(c)
  return (n >>> 1) ^ -(n & 1)
}

/**
 * A zigzag i64: a number when it is a safe integer, a bigint beyond (see the header).
 * Values of up to 4 varint bytes (|v| < 2^27: every count, size and offset of a file
 * under 128 MiB) are read here, small enough for the JIT to inline into the decoders;
 * longer ones go to `readI64Long`.
 */
export function readI64(c: ThriftCursor): number | bigint {
  const bytes = c.bytes
  const pos = c.offset
  if (pos + 4 <= bytes.length) {
    const b0 = bytes[pos]!
    if (b0 < 0x80) {
      c.offset = pos + 1
      return (b0 >>> 1) ^ -(b0 & 1)
    }
    const b1 = bytes[pos + 1]!
    let zz = (b0 & 0x7f) | ((b1 & 0x7f) << 7)
    if (b1 < 0x80) {
      c.offset = pos + 2
      return (zz >>> 1) ^ -(zz & 1)
    }
    const b2 = bytes[pos + 2]!
    zz |= (b2 & 0x7f) << 14
    if (b2 < 0x80) {
      c.offset = pos + 3
      return (zz >>> 1) ^ -(zz & 1)
    }
    const b3 = bytes[pos + 3]!
    if (b3 < 0x80) {
      zz |= b3 << 21
      c.offset = pos + 4
      return (zz >>> 1) ^ -(zz & 1)
    }
  }
  return readI64Long(c)
}

/** `readI64` for varints of 5 bytes or more, and near the end of the input. */
function readI64Long(c: ThriftCursor): number | bigint {
  const bytes = c.bytes
  let pos = c.offset
  // Up to 7 bytes (49 bits) accumulate exactly in a double; longer varints go through
  // bigint and come back as a number when they fit.
  const start = pos
  let low = 0 // bits 0..27 from the first 4 bytes
  let high = 0 // bits 28.. as a plain number
  let scale = 1
  for (let i = 0; i < 7; i++) {
    if (pos >= bytes.length) truncated(c, 'a varint', pos - start + 1, start)
    const b = bytes[pos++]!
    if (i < 4) low |= (b & 0x7f) << (7 * i)
    else {
      high += (b & 0x7f) * scale
      scale *= 128
    }
    if (b < 0x80) {
      c.offset = pos
      // zigzag: value = (zz >>> 1) ^ -(zz & 1), done in doubles for zz < 2^49
      const zz = high * 0x10000000 + low
      const half = Math.floor(zz / 2)
      return low & 1 ? -half - 1 : half
    }
  }
  let zz = BigInt(high) * 0x10000000n + BigInt(low)
  let shift = 49n
  for (let i = 7; ; i++) {
    if (i === 10) invalid(c, 'varint longer than 10 bytes', start)
    if (pos >= bytes.length) truncated(c, 'a varint', pos - start + 1, start)
    const b = bytes[pos++]!
    zz |= BigInt(b & 0x7f) << shift
    if (b < 0x80) break
    shift += 7n
  }
  c.offset = pos
  zz = BigInt.asUintN(64, zz)
  const value = (zz >> 1n) ^ -(zz & 1n)
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value
}

/** A little-endian IEEE 754 double (compact protocol keeps doubles little-endian). */
export function readDouble(c: ThriftCursor): number {
  const pos = c.offset
  if (pos + 8 > c.bytes.length) truncated(c, 'a double', 8)
  c.offset = pos + 8
  return c.dataView().getFloat64(pos, true)
}

/**
 * The length prefix of a binary/string; checks the bytes are there, leaves the cursor
 * on the first byte of the value.
 */
export function readBinaryLength(c: ThriftCursor): number {
  const length = readVarint32(c)
  if (length > c.bytes.length - c.offset) {
    // More than 2^31 - 1 cannot be a Thrift binary (Java and C++ sizes are int32).
    if (length > 0x7fffffff) invalid(c, `binary length ${length} is negative as an i32`)
    truncated(c, 'a binary value', length)
  }
  return length
}

/** A binary value as a zero-copy view of the input. */
export function readBinary(c: ThriftCursor): Uint8Array {
  const length = readBinaryLength(c)
  const start = c.offset
  c.offset = start + length
  const bytes = c.bytes
  // A plain view (not `subarray`, which looks up a species constructor each call and
  // returns a Buffer for Buffer input).
  return new Uint8Array(bytes.buffer, bytes.byteOffset + start, length)
}

const utf8 = /* @__PURE__ */ new TextDecoder()

/**
 * Decodes `bytes[start, end)` as UTF-8 (invalid sequences become U+FFFD, as
 * `TextDecoder` does). Short ASCII strings, nearly all names in a footer, are made in
 * one `String.fromCharCode` call (one string allocated; appending characters one by
 * one allocates a string per character), without the decoder call, which costs more
 * than the decoding itself at this size.
 */
export function utf8Slice(bytes: Uint8Array, start: number, end: number): string {
  const length = end - start
  if (length <= 8) {
    if (length === 0) return ''
    let ascii = 0
    for (let i = start; i < end; i++) ascii |= bytes[i]!
    if (ascii < 0x80) {
      const f = String.fromCharCode
      switch (length) {
        case 1:
          return f(bytes[start]!)
        case 2:
          return f(bytes[start]!, bytes[start + 1]!)
        case 3:
          return f(bytes[start]!, bytes[start + 1]!, bytes[start + 2]!)
        case 4:
          return f(bytes[start]!, bytes[start + 1]!, bytes[start + 2]!, bytes[start + 3]!)
        case 5:
          return f(bytes[start]!, bytes[start + 1]!, bytes[start + 2]!, bytes[start + 3]!, bytes[start + 4]!)
        case 6:
          return f(bytes[start]!, bytes[start + 1]!, bytes[start + 2]!, bytes[start + 3]!, bytes[start + 4]!, bytes[start + 5]!)
        case 7:
          return f(
            bytes[start]!, bytes[start + 1]!, bytes[start + 2]!, bytes[start + 3]!,
            bytes[start + 4]!, bytes[start + 5]!, bytes[start + 6]!,
          )
        default:
          return f(
            bytes[start]!, bytes[start + 1]!, bytes[start + 2]!, bytes[start + 3]!,
            bytes[start + 4]!, bytes[start + 5]!, bytes[start + 6]!, bytes[start + 7]!,
          )
      }
    }
  } else if (length <= 24) {
    let ascii = 0
    for (let i = start; i < end; i++) ascii |= bytes[i]!
    if (ascii < 0x80) {
      // 8 characters at a time; the concatenations of the pieces make flat strings
      let s = utf8Slice(bytes, start, start + 8)
      for (let i = start + 8; i < end; i += 8) s += utf8Slice(bytes, i, i + 8 < end ? i + 8 : end)
      return s
    }
  }
  return utf8.decode(bytes.subarray(start, end))
}

/** A string value (binary decoded as UTF-8). */
export function readString(c: ThriftCursor): string {
  const length = readBinaryLength(c)
  const start = c.offset
  c.offset = start + length
  return utf8Slice(c.bytes, start, start + length)
}

/**
 * A list or set header: returns the element count and leaves the element type in
 * `c.elementType`. The count is checked against the bytes left (every element takes at
 * least one byte), so a hostile count such as 2^31 - 1 fails here, before anything is
 * allocated for it.
 */
export function readListHeader(c: ThriftCursor): number {
  const start = c.offset
  const header = readByte(c)
  let size = header >> 4
  c.elementType = header & 0x0f
  if (size === 15) {
    size = readVarint32(c)
    if (size > 0x7fffffff) invalid(c, `list size ${size} is negative as an i32`, start)
  }
  const min = size * fixedSize(c.elementType)
  if (min > c.bytes.length - c.offset) truncated(c, `a list of ${size} elements`, min, c.offset)
  return size
}

/** The smallest encoded size of one element of a compact type. */
function fixedSize(type: number): number {
  return type === DOUBLE ? 8 : type === UUID ? 16 : 1
}

/**
 * Reads a struct field header. Returns the field type (0 for STOP) and leaves the field
 * id in `c.fieldId`; `previous` is the last field id of the same struct (the compact
 * protocol stores the delta from it, or the id itself as a zigzag i16 when the delta
 * is 0 or more than 15).
 */
export function readFieldHeader(c: ThriftCursor, previous: number): number {
  const header = readByte(c)
  const type = header & 0x0f
  if (type === 0) return 0
  const delta = header >> 4
  c.fieldId = delta !== 0 ? previous + delta : readI32(c)
  return type
}

/**
 * Skips one value of compact type `type`, nested values included. Unknown fields of
 * known structs and fields nobody asked for go through here.
 */
export function skip(c: ThriftCursor, type: number): void {
  const bytes = c.bytes
  switch (type) {
    case TRUE:
    case FALSE:
      return
    case BYTE:
      if (c.offset >= bytes.length) truncated(c, 'a byte', 1)
      c.offset++
      return
    case I16:
    case I32:
    case I64: {
      // a varint of at most 10 bytes
      let pos = c.offset
      const limit = pos + 10
      for (;;) {
        if (pos >= bytes.length) truncated(c, 'a varint', pos - c.offset + 1)
        if (pos >= limit) invalid(c, 'varint longer than 10 bytes')
        if (bytes[pos++]! < 0x80) break
      }
      c.offset = pos
      return
    }
    case DOUBLE:
      if (c.offset + 8 > bytes.length) truncated(c, 'a double', 8)
      c.offset += 8
      return
    case UUID:
      if (c.offset + 16 > bytes.length) truncated(c, 'a uuid', 16)
      c.offset += 16
      return
    case BINARY: {
      const length = readBinaryLength(c) // moves c.offset past the prefix
      c.offset += length
      return
    }
    case STRUCT:
      skipStruct(c)
      return
    case LIST:
    case SET: {
      const start = c.offset
      const size = readListHeader(c)
      const elementType = c.elementType
      if (size === 0) return
      if (elementType === TRUE || elementType === FALSE || elementType === BYTE) {
        // one byte each; readListHeader checked they are there
        c.offset += size
        return
      }
      if (elementType === DOUBLE || elementType === UUID) {
        c.offset += size * fixedSize(elementType)
        return
      }
      if (elementType === STRUCT) {
        if (++c.depth > MAX_DEPTH) tooDeep(c, start)
        for (let i = 0; i < size; i++) skipStruct(c)
        c.depth--
        return
      }
      if (elementType === I16 || elementType === I32 || elementType === I64 || elementType === BINARY) {
        for (let i = 0; i < size; i++) skip(c, elementType)
        return
      }
      if (elementType === LIST || elementType === SET || elementType === MAP) {
        if (++c.depth > MAX_DEPTH) tooDeep(c, start)
        for (let i = 0; i < size; i++) skip(c, elementType)
        c.depth--
        return
      }
      invalid(c, `list element type ${elementType} is not a compact protocol type`, start)
    }
    // falls through (unreachable: invalid() throws)
    case MAP: {
      const start = c.offset
      const size = readVarint32(c)
      if (size === 0) return
      if (size > 0x7fffffff) invalid(c, `map size ${size} is negative as an i32`, start)
      const kinds = readByte(c)
      const keyType = kinds >> 4
      const valueType = kinds & 0x0f
      if (keyType === 0 || valueType === 0 || keyType > UUID || valueType > UUID) {
        invalid(c, `map key/value types ${keyType}/${valueType} are not compact protocol types`, start)
      }
      // every entry takes at least 2 bytes
      if (size * 2 > bytes.length - c.offset) truncated(c, `a map of ${size} entries`, size * 2)
      if (++c.depth > MAX_DEPTH) tooDeep(c, start)
      for (let i = 0; i < size; i++) {
        skip(c, keyType)
        skip(c, valueType)
      }
      c.depth--
      return
    }
    default:
      invalid(c, `field type ${type} is not a compact protocol type`, c.offset - 1)
  }
}

export function tooDeep(c: ThriftCursor, at: number): never {
  throw new CodecError('LIMIT_EXCEEDED', FORMAT, `nesting deeper than ${MAX_DEPTH} levels (not an option: real footers nest at most 6 deep)`, c.origin + at)
}

/**
 * Skips the fields of a struct up to and including its STOP byte. The loop handles
 * the frequent field types inline: this is the whole cost of the skip-walk floor and
 * of every column chunk a selective decode passes over.
 */
export function skipStruct(c: ThriftCursor): void {
  if (++c.depth > MAX_DEPTH) tooDeep(c, c.offset)
  const bytes = c.bytes
  const end = bytes.length
  let pos = c.offset
  for (;;) {
    if (pos >= end) {
      c.offset = pos
      truncated(c, 'a struct', 1)
    }
    const header = bytes[pos++]!
    const type = header & 0x0f
    if (type === 0) break
    if (header < 0x10) {
      // Long form: the field id follows as a zigzag varint. Read (not skipped) the way
      // `readFieldHeader` reads it, at most 32 bits, so a struct that skips without
      // error also decodes without error (lazily decoded structs rely on it).
      c.offset = pos
      readI32(c)
      pos = c.offset
    }
    if (type === I32 || type === I64 || type === I16) {
      const limit = pos + 10
      for (;;) {
        if (pos >= end) {
          c.offset = pos
          truncated(c, 'a varint', 1)
        }
        if (bytes[pos++]! < 0x80) break
        if (pos >= limit) {
          c.offset = pos
          invalid(c, 'varint longer than 10 bytes')
        }
      }
    } else if (type === BINARY) {
      // inline one-byte length
      const b = pos < end ? bytes[pos]! : 0x80
      if (b < 0x80 && pos + 1 + b <= end) {
        pos += 1 + b
      } else {
        c.offset = pos
        const length = readBinaryLength(c)
        pos = c.offset + length
      }
    } else if (type !== TRUE && type !== FALSE) {
      c.offset = pos
      skip(c, type)
      pos = c.offset
    }
  }
  c.offset = pos
  c.depth--
}

/**
 * Walks one struct starting at `offset`, skipping every value and allocating nothing:
 * a validity check, and the floor any decoder of the same bytes is measured against.
 * Returns `Done` (with `cursor.offset` after the struct), `NeedMoreData` when the input
 * ends first, or `InvalidData`; `failure` (when given) receives the reason.
 */
export function walkThrift(bytes: Uint8Array, offset = 0, failure?: { value: Failure | null }): Status {
  const c = new ThriftCursor(bytes, offset)
  try {
    skipStruct(c)
    if (failure) failure.value = null
    return Status.Done
  } catch (error) {
    if (!(error instanceof CodecError)) throw error
    if (failure) failure.value = { code: error.code, message: error.message, offset: error.offset }
    return thriftStatus(error)
  }
}

// ---------------------------------------------------------------------------------
// Helpers for the hand-written struct decoders
//
// Where the IDL says i32, i16 (4) is accepted too: both are zigzag varints on the wire,
// `(type | 1) === I32`.

/**
 * The `seen` bit of the required field `name` in a hand-written decoder: 1 << its index
 * in `fields` (the struct's required fields in IDL order, as `missingField` names them).
 * A name not in the list throws when the module loads, so a misspelt one cannot pass.
 */
export function requiredBit(fields: readonly string[], name: string): number {
  const i = fields.indexOf(name)
  if (i < 0) throw new Error(`${name} is not one of the required fields ${fields.join(', ')}`)
  return 1 << i
}

/** The `seen` mask of a struct with every one of its required `fields` read. */
export function allRequired(fields: readonly string[]): number {
  return 2 ** fields.length - 1
}

/** Fails with the first required field of `struct` that is not in `seen`. */
export function missingField(c: ThriftCursor, struct: string, fields: readonly string[], seen: number, at: number): never {
  let i = 0
  while (seen & (1 << i)) i++
  throw new CodecError(
    'INVALID_DATA',
    FORMAT,
    `${struct}.${fields[i]} is required but missing`,
    c.origin + at,
  )
}

/** Reads a field header inline: returns the type (0 at STOP), sets `c.fieldId`. */
export function fieldHeader(c: ThriftCursor, previous: number, struct: string): number {
  const pos = c.offset
  if (pos >= c.bytes.length) truncated(c, `a ${struct} field header`, 1)
  const header = c.bytes[pos]!
  c.offset = pos + 1
  const type = header & 0x0f
  if (type === 0) return 0
  c.fieldId = header >= 0x10 ? previous + (header >> 4) : readI32(c)
  return type
}

/**
 * Throws for a struct whose field header would start at `pos`, past the end. The hot
 * decoders below read headers inline with the position in a local (`pos`) and the
 * bytes hoisted out of the loop, the way `skipStruct` does: reading the cursor's
 * fields for every header costs them a third of their time. They store `pos` back in
 * `c.offset` around every call that reads through the cursor.
 */
export function headerTruncated(c: ThriftCursor, pos: number, struct: string): never {
  c.offset = pos
  truncated(c, `a ${struct} field header`, 1)
}

/**
 * The value of an integer field (compact type i16, i32 or i64: all zigzag varints).
 * Hot decoders read every integer field through this one call site, then assign by
 * field id, so the JIT inlines one copy of the short-varint path instead of calling a
 * reader per field. Values of up to 4 bytes are read here; longer ones, and the end of
 * the input, go to `readI32` (i16/i32: at most 32 bits, as before) or `readI64`.
 */
export function readInteger(c: ThriftCursor, wire: number): Int64 {
  const bytes = c.bytes
  const pos = c.offset
  if (pos + 4 <= bytes.length) {
    let b = bytes[pos]!
    let zz = b & 0x7f
    let next = pos + 1
    if (b >= 0x80) {
      b = bytes[next++]!
      zz |= (b & 0x7f) << 7
      if (b >= 0x80) {
        b = bytes[next++]!
        zz |= (b & 0x7f) << 14
        if (b >= 0x80) {
          b = bytes[next++]!
          zz |= (b & 0x7f) << 21
        }
      }
    }
    if (b < 0x80) {
      c.offset = next
      return (zz >>> 1) ^ -(zz & 1)
    }
  }
  return wire === I64 ? readI64(c) : readI32(c)
}

/**
 * A list header whose elements must be of `elementType` (an empty list may name any
 * type). Returns the size.
 */
export function listOf(c: ThriftCursor, elementType: number, what: string): number {
  const start = c.offset
  const size = readListHeader(c)
  // i16 and i32 share one wire encoding (a zigzag varint); some writers declare
  // list<i32> elements as i16 (bad_data/ARROW-GH-41317.parquet), which reads the same.
  const actual = elementType === I32 && c.elementType === 4 ? I32 : c.elementType
  if (size !== 0 && actual !== elementType) {
    invalid(c, `${what} is a list of compact type ${c.elementType}, expected ${elementType}`, start)
  }
  return size
}

/**
 * An array for a list of `size` elements, filled by index: allocated at its final
 * size (an array grown by `push` reserves about half as much again, and gets copied
 * at every growth). `size` was checked against the bytes left by `readListHeader`.
 * Past 65,536 the array grows as it is filled instead: V8 keeps an array made
 * with `new Array(n)` that large in a slow dictionary representation.
 */
export function listArray<T>(size: number): T[] {
  return size <= 65536 ? new Array<T>(size) : []
}

export function readI64List(c: ThriftCursor, what: string): Int64[] {
  const size = listOf(c, I64, what)
  const out = listArray<Int64>(size)
  for (let i = 0; i < size; i++) out[i] = readI64(c)
  return out
}

export function readI32List(c: ThriftCursor, what: string): number[] {
  const size = listOf(c, I32, what)
  const out = listArray<number>(size)
  for (let i = 0; i < size; i++) out[i] = readI32(c)
  return out
}

export function readStringList(c: ThriftCursor, what: string): string[] {
  const size = listOf(c, BINARY, what)
  const out = listArray<string>(size)
  for (let i = 0; i < size; i++) out[i] = readString(c)
  return out
}

/**
 * The end of the struct whose first field header is at `pos`, when every field in it
 * is simple: short-form headers, integers, booleans, doubles, binary values with
 * lengths under 16 KiB, and short lists (under 15 elements) of integers or binary
 * values; otherwise -1, and the caller walks the struct the general way (which also
 * reports what is wrong). Statistics and SizeStatistics, one of each in every column
 * chunk, are such structs: this pure loop skips them without a call per field.
 * Accepts only what `skipStruct` accepts (the same varint and length limits), so a
 * struct skipped here also decodes without error later (`LazyStatistics`).
 */
export function skipSimpleStruct(bytes: Uint8Array, pos: number): number {
  const end = bytes.length
  for (;;) {
    if (pos >= end) return -1
    const header = bytes[pos++]!
    const type = header & 0x0f
    if (type === 0) return pos
    if (header < 0x10) return -1 // long-form field id
    if (type === I64 || type === I32 || type === I16) {
      pos = skipVarint(bytes, pos)
      if (pos < 0) return -1
    } else if (type === BINARY) {
      pos = skipBinary(bytes, pos)
      if (pos < 0) return -1
    } else if (type === DOUBLE) {
      pos += 8
      if (pos > end) return -1
    } else if (type === LIST) {
      if (pos >= end) return -1
      const list = bytes[pos++]!
      const element = list & 0x0f
      let n = list >> 4
      if (n === 15) return -1
      if (element === I64 || element === I32 || element === I16) {
        for (; n > 0 && pos >= 0; n--) pos = skipVarint(bytes, pos)
      } else if (element === BINARY) {
        for (; n > 0 && pos >= 0; n--) pos = skipBinary(bytes, pos)
      } else if (n !== 0) return -1
      if (pos < 0) return -1
    } else if (type !== TRUE && type !== FALSE) return -1
  }
}

/** The end of the varint at `pos` (at most 10 bytes, as `skip` allows), or -1. */
export function skipVarint(bytes: Uint8Array, pos: number): number {
  const limit = pos + 10 < bytes.length ? pos + 10 : bytes.length
  while (pos < limit) if (bytes[pos++]! < 0x80) return pos
  return -1
}

/** The end of the binary value at `pos` (length in one or two bytes), or -1. */
function skipBinary(bytes: Uint8Array, pos: number): number {
  const end = bytes.length
  if (pos >= end) return -1
  let length = bytes[pos++]!
  if (length >= 0x80) {
    if (pos >= end) return -1
    const high = bytes[pos++]!
    if (high >= 0x80) return -1
    length = (length & 0x7f) | (high << 7)
  }
  pos += length
  return pos <= end ? pos : -1
}

/**
 * The end of a list of binary values at `pos` when it is short (under 15 elements, each
 * under 128 bytes, so every length takes one byte) and complete; otherwise `pos`, and
 * the caller walks the list the general way (which also reports what is wrong).
 */
export function skipShortStrings(bytes: Uint8Array, pos: number): number {
  const end = bytes.length
  const header = pos < end ? bytes[pos]! : 0
  if ((header & 0x0f) !== BINARY || header >= 0xf0) return pos
  let at = pos + 1
  for (let n = header >> 4; n > 0; n--) {
    const length = at < end ? bytes[at]! : 0x80
    if (length >= 0x80 || at + 1 + length > end) return pos
    at += 1 + length
  }
  return at
}
