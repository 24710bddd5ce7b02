/**
 * The type mapping in both directions: the plain descriptions of lib/arrow/metadata.ts
 * (what the IPC metadata says) to apache-arrow's Schema, Field and DataType classes
 * (reading), and back (writing).
 */
import {
  Binary, BinaryView, Bool, DataType, Date_, Decimal, Dictionary, Duration, Field, FixedSizeBinary, FixedSizeList, Float,
  Int, Interval, LargeBinary, LargeList, LargeUtf8, List, Map_, Null, Schema, Struct, Time, Timestamp, Union, Utf8,
  Utf8View,
} from 'apache-arrow'
import { CodecError } from '../../lib/errors.js'
import { TypeTag, type FieldDesc, type SchemaDesc, type TypeDesc } from '../../lib/arrow/metadata.js'

// --- plain description -> apache-arrow (reading) ----------------------------------

/** Names of the types apache-arrow 21 has no class for (so they cannot be read into it). */
const unsupported: Partial<Record<number, string>> = {
  [TypeTag.RunEndEncoded]: 'RunEndEncoded',
  [TypeTag.ListView]: 'ListView',
  [TypeTag.LargeListView]: 'LargeListView',
  [TypeTag.NONE]: 'NONE',
}

/** The apache-arrow value type of a field (the dictionary's value type when encoded). */
export function valueType(f: FieldDesc): DataType {
  const t = f.type
  const children = () => f.children.map(toField)
  switch (t.tag) {
    case TypeTag.Null: return new Null()
    case TypeTag.Int: return new Int(t.signed, t.bitWidth as 8 | 16 | 32 | 64)
    case TypeTag.FloatingPoint: return new Float(t.precision)
    case TypeTag.Binary: return new Binary()
    case TypeTag.Utf8: return new Utf8()
    case TypeTag.LargeBinary: return new LargeBinary()
    case TypeTag.LargeUtf8: return new LargeUtf8()
    case TypeTag.BinaryView: return new BinaryView()
    case TypeTag.Utf8View: return new Utf8View()
    case TypeTag.Bool: return new Bool()
    case TypeTag.Decimal: return new Decimal(t.scale, t.precision, t.bitWidth)
    case TypeTag.Date: return new Date_(t.unit)
    case TypeTag.Time: return new Time(t.unit, t.bitWidth as 32 | 64)
    case TypeTag.Timestamp: return new Timestamp(t.unit, t.timezone)
    case TypeTag.Interval: return new Interval(t.unit)
    case TypeTag.Duration: return new Duration(t.unit)
    case TypeTag.List: return new List(toField(f.children[0]!))
    case TypeTag.LargeList: return new LargeList(toField(f.children[0]!))
    case TypeTag.FixedSizeList: return new FixedSizeList(t.width, toField(f.children[0]!))
    case TypeTag.FixedSizeBinary: return new FixedSizeBinary(t.width)
    case TypeTag.Struct: return new Struct(children())
    case TypeTag.Map: return new Map_(toField(f.children[0]!) as never, t.keysSorted)
    case TypeTag.Union: return new Union(t.mode, t.typeIds ?? f.children.map((_, i) => i), children())
  }
  throw new CodecError('UNSUPPORTED', 'arrow', `field ${JSON.stringify(f.name)} has type ${unsupported[t.tag] ?? t.tag}, which apache-arrow 21 cannot represent`)
}

export function fieldType(f: FieldDesc): DataType {
  const value = valueType(f)
  if (!f.dictionary) return value
  const d = f.dictionary
  return new Dictionary(value, new Int(d.indexSigned, d.indexBitWidth as 8 | 16 | 32 | 64) as never, d.id, d.ordered)
}

export function toField(f: FieldDesc): Field {
  return new Field(f.name, fieldType(f), f.nullable, f.metadata)
}

export function toSchema(s: SchemaDesc, version: number): Schema {
  return new Schema(s.fields.map(toField), s.metadata, null, version)
}

/** The bytes per value of fixed-width types, or 0. */
export function byteWidth(t: TypeDesc): number {
  switch (t.tag) {
    case TypeTag.Int: case TypeTag.Time: case TypeTag.Decimal: return t.bitWidth >> 3
    case TypeTag.FloatingPoint: return 2 << t.precision
    case TypeTag.Date: return t.unit === 0 ? 4 : 8
    case TypeTag.Timestamp: case TypeTag.Duration: return 8
    case TypeTag.Interval: return t.unit === 0 ? 4 : t.unit === 1 ? 8 : 16
    case TypeTag.FixedSizeBinary: return t.width
  }
  return 0
}

// --- apache-arrow -> plain description (writing) ----------------------------------

function typeDesc(t: DataType): TypeDesc {
  const d: TypeDesc = { tag: t.typeId as TypeDesc['tag'], bitWidth: 0, signed: false, precision: 0, scale: 0, unit: 0, timezone: null, mode: 0, typeIds: null, width: 0, keysSorted: false }
  const a = t as unknown as Record<string, unknown>
  switch (t.typeId) {
    case TypeTag.Int: d.bitWidth = a.bitWidth as number; d.signed = a.isSigned as boolean; break
    case TypeTag.FloatingPoint: d.precision = a.precision as number; break
    case TypeTag.Decimal: d.precision = a.precision as number; d.scale = a.scale as number; d.bitWidth = a.bitWidth as number; break
    case TypeTag.Date: case TypeTag.Interval: case TypeTag.Duration: d.unit = a.unit as number; break
    case TypeTag.Time: d.unit = a.unit as number; d.bitWidth = a.bitWidth as number; break
    case TypeTag.Timestamp: d.unit = a.unit as number; d.timezone = (a.timezone as string | null) ?? null; break
    case TypeTag.Union: d.mode = a.mode as number; d.typeIds = Array.from(a.typeIds as Int32Array); break
    case TypeTag.FixedSizeBinary: d.width = a.byteWidth as number; break
    case TypeTag.FixedSizeList: d.width = a.listSize as number; break
    case TypeTag.Map: d.keysSorted = Boolean(a.keysSorted); break
    case TypeTag.Null: case TypeTag.Binary: case TypeTag.Utf8: case TypeTag.Bool: case TypeTag.List: case TypeTag.Struct:
    case TypeTag.LargeBinary: case TypeTag.LargeUtf8: case TypeTag.LargeList: case TypeTag.BinaryView: case TypeTag.Utf8View:
      break
    default:
      throw new CodecError('UNSUPPORTED', 'arrow', `cannot write type ${String(t)}`)
  }
  return d
}

function fieldDesc(f: Field): FieldDesc {
  let t = f.type as DataType
  let dictionary: FieldDesc['dictionary'] = null
  if (DataType.isDictionary(t)) {
    dictionary = { id: Number(t.id), indexBitWidth: t.indices.bitWidth, indexSigned: t.indices.isSigned, ordered: Boolean(t.isOrdered) }
    t = t.dictionary
  }
  return {
    name: f.name,
    nullable: f.nullable,
    type: typeDesc(t),
    children: (t.children ?? []).map(fieldDesc),
    dictionary,
    metadata: f.metadata.size > 0 ? f.metadata : null,
  }
}

export function schemaDesc(s: Schema): SchemaDesc {
  return { endianness: 0, fields: s.fields.map(fieldDesc), metadata: s.metadata.size > 0 ? s.metadata : null }
}
