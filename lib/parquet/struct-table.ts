/**
 * A declarative form for the cold Thrift structs of a footer (the ones rarely present,
 * or few per file), the way arrow-rs declares its cold structs and hand-writes the hot
 * ones: a struct is a table from field id to the property it fills, the compact wire
 * type it must have and how its value is read; unions are a table from member id to
 * the struct (or empty struct) it holds. One small decoder interprets the tables.
 *
 * It decodes straight into the final object: `make()` gives the object with every
 * property in place (one shape per struct), and each field is stored into it as it is
 * read. Like the hand-written decoders, it
 * - skips unknown fields and fields of an unexpected wire type (what Apache Thrift's
 *   generated readers do), i32 fields accepting i16 (one wire encoding: a zigzag
 *   varint); readers of list fields reject lists of a wrong element type (`listOf`);
 * - tracks required fields in a bitmask (bit k: the k-th required field in id order)
 *   and fails with the struct and field named, at the struct's offset;
 * - counts its nesting in `c.depth`, against the cap `skip()` applies (`MAX_DEPTH`).
 */
import {
  CompactType,
  MAX_DEPTH,
  type ThriftCursor,
  fieldHeader,
  listArray,
  listOf,
  missingField,
  skip,
  skipStruct,
  tooDeep,
} from './thrift.js'

const { BOOLEAN_TRUE: TRUE, BOOLEAN_FALSE: FALSE, I16, I32, STRUCT } = CompactType

/** Wire type of boolean fields: the value is in the field header (true or false). */
export const BOOL = -1

/** One field of a struct table. */
export interface FieldDef<K extends string> {
  /** The property of the final object the value goes to. */
  readonly name: K
  /** The compact wire type (`CompactType`), or `BOOL`. */
  readonly wire: number
  /** Reads the value; null for booleans. */
  readonly read: ((c: ThriftCursor) => unknown) | null
  readonly required: boolean
}

/** An optional field. */
export function field<K extends string>(name: K, wire: number, read: ((c: ThriftCursor) => unknown) | null = null): FieldDef<K> {
  return { name, wire, read, required: false }
}

/** A required field: missing, it fails the decode. */
export function required<K extends string>(name: K, wire: number, read: ((c: ThriftCursor) => unknown) | null = null): FieldDef<K> {
  return { name, wire, read, required: true }
}

/** A field as the decoder uses it. */
interface Slot {
  readonly name: string
  /** Bit k set: wire type k is accepted. */
  readonly accepts: number
  readonly read: ((c: ThriftCursor) => unknown) | null
  /** Its bit in the required-field mask, or 0. */
  readonly bit: number
}

/** A struct table, made by `struct()`. `R`: what `finish` turns the object into. */
export interface StructTable<T, R = T> {
  /** The IDL name, for messages. */
  readonly name: string
  /** A new object of the final shape; every field is stored into it. */
  readonly make: () => T
  /** Fields by field id (sparse). */
  readonly slots: readonly (Slot | undefined)[]
  /** Names of the required fields, by bit. */
  readonly requiredNames: readonly string[]
  readonly requiredMask: number
  /** Turns the decoded object into the result (default: the object itself). */
  readonly finish: ((value: T) => R) | null
}

/** Declares a struct: its IDL name, a maker of the final object, its fields by id. */
export function struct<T, R = T>(
  name: string,
  make: () => T,
  fields: { readonly [id: number]: FieldDef<keyof T & string> },
  finish: ((value: T) => R) | null = null,
): StructTable<T, R> {
  const slots: (Slot | undefined)[] = []
  const requiredNames: string[] = []
  const ids = Object.keys(fields)
    .map(Number)
    .sort((a, b) => a - b)
  for (const id of ids) {
    const def = fields[id]!
    if (def.required && requiredNames.length === 31) throw new RangeError(`${name}: too many required fields`)
    const accepts =
      def.wire === BOOL ? (1 << TRUE) | (1 << FALSE) : def.wire === I32 ? (1 << I32) | (1 << I16) : 1 << def.wire
    const bit = def.required ? 1 << (requiredNames.push(def.name) - 1) : 0
    slots[id] = { name: def.name, accepts, read: def.read, bit }
  }
  const requiredMask = requiredNames.length === 0 ? 0 : -1 >>> (32 - requiredNames.length)
  return { name, make, slots, requiredNames, requiredMask, finish }
}

/** Decodes the struct that starts at `c.offset` by its table. */
export function readStruct<T, R>(c: ThriftCursor, table: StructTable<T, R>): R {
  const start = c.offset
  if (++c.depth > MAX_DEPTH) tooDeep(c, start)
  const out = table.make()
  const slots = table.slots
  let seen = 0
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, table.name)
    if (wire === 0) break
    fid = c.fieldId
    const slot = fid < slots.length ? slots[fid] : undefined
    if (slot === undefined || ((slot.accepts >>> wire) & 1) === 0) {
      skip(c, wire)
      continue
    }
    ;(out as Record<string, unknown>)[slot.name] = slot.read === null ? wire === TRUE : slot.read(c)
    seen |= slot.bit
  }
  c.depth--
  if ((seen & table.requiredMask) !== table.requiredMask) {
    missingField(c, table.name, table.requiredNames, seen, start)
  }
  return table.finish === null ? (out as unknown as R) : table.finish(out)
}

/** A union member: a struct table, or a maker for a member read as an empty struct. */
export type UnionMember<T> = StructTable<any, T> | ((id: number) => T)

/** A union table, made by `union()`. */
export interface UnionTable<T, N> {
  readonly name: string
  /** Members by field id (sparse). */
  readonly members: readonly (UnionMember<T> | undefined)[]
  /** The member for ids not in `members`. */
  readonly other: UnionMember<T>
  /** The result when no member is set. */
  readonly none: () => N
}

/** Declares a union: members by id, the member for other ids, the result for none. */
export function union<T, N>(
  name: string,
  members: { readonly [id: number]: UnionMember<T> },
  other: UnionMember<T>,
  none: () => N,
): UnionTable<T, N> {
  const dense: (UnionMember<T> | undefined)[] = []
  for (const id of Object.keys(members).map(Number)) dense[id] = members[id]
  return { name, members: dense, other, none }
}

/**
 * Decodes a union: the first member set (a struct field) is decoded, every other field
 * skipped.
 */
export function readUnion<T, N>(c: ThriftCursor, table: UnionTable<T, N>): T | N {
  const start = c.offset
  if (++c.depth > MAX_DEPTH) tooDeep(c, start)
  let result: T | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, table.name)
    if (wire === 0) break
    fid = c.fieldId
    if (result !== undefined || wire !== STRUCT) {
      skip(c, wire)
      continue
    }
    const member = (fid < table.members.length ? table.members[fid] : undefined) ?? table.other
    if (typeof member === 'function') {
      skipStruct(c)
      result = member(fid)
    } else result = readStruct(c, member)
  }
  c.depth--
  return result === undefined ? table.none() : result
}

/** Decodes a list of structs by their table; `what` names the list in messages. */
export function readStructList<T, R>(c: ThriftCursor, table: StructTable<T, R>, what: string): R[] {
  const size = listOf(c, STRUCT, what)
  const out = listArray<R>(size)
  for (let i = 0; i < size; i++) out[i] = readStruct(c, table)
  return out
}
