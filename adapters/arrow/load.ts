import { makeData, type Data, type DataType, type Vector } from 'apache-arrow'
import { CodecError } from '../../lib/errors.js'
import { MetadataVersion, TypeTag, type FieldDesc, type RecordBatchDesc } from '../../lib/arrow/metadata.js'
import {
  indexOutside16, indexOutside32, indexOutside64, indexOutside8, indexOutsideU16, indexOutsideU8, indicesFit16, indicesFit32,
  indicesFit64, indicesFit8, indicesFitU16, indicesFitU8, offsetDecrease32, offsetDecrease64, viewOutside,
} from '../../lib/arrow/validate.js'
import { byteWidth } from './schema.js'

type TypedCtor = {
  new (length: number): ArrayLike<number | bigint> & { buffer: ArrayBufferLike }
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): ArrayLike<number | bigint>
  readonly BYTES_PER_ELEMENT: number
}

/**
 * Builds apache-arrow `Data` from one message's field nodes and body buffers, walking
 * the schema depth-first as Columnar.rst ("Buffer Layout", "Recordbatch body
 * structure") lays them out.
 *
 * Validation comes in two levels, as in Arrow C++ (`Validate` / `ValidateFull`) and
 * arrow-rs (`validate` / `validate_full`):
 * - always, O(1) per buffer: every buffer holds what its field node's length needs
 *   (validity bits, values of the type's width, `length + 1` offsets, 16-byte views),
 *   the first offset is at least 0 and at most the last, the last offset lies within
 *   the data buffer (or the child's length), child lengths cover their parent, the
 *   variadic buffer counts and the dictionary ids resolve. So every typed array made
 *   here lies inside its buffer, and nothing here reads past one.
 * - `full` adds the O(n) checks: offsets never decrease, every non-null dictionary
 *   index is inside its dictionary, every non-null view points inside its variadic
 *   buffer, union type ids name a child and dense union offsets lie inside it.
 * A failed check is a `CodecError` INVALID_DATA at the offset of the buffer (of the
 * value, when the buffer is stored uncompressed).
 */
export class BatchLoader {
  private node = 0
  private buffer = 0
  private variadic = 0

  constructor(
    private readonly batch: RecordBatchDesc,
    private readonly buffers: Uint8Array[],
    private readonly version: number,
    private readonly dictionaries: Map<number, Vector>,
    /** Absolute offset of the message body (errors only). */
    private readonly at: number,
    /** Run the O(n) checks too (`validate: 'full'`). */
    private readonly full = false,
  ) {}

  private fail(message: string, at = this.at): never {
    throw new CodecError('INVALID_DATA', 'arrow', message, at)
  }

  /**
   * Absolute offset of byte `byte` of buffer `i` when the body stores it as is, else
   * of the buffer's region (a compressed buffer's bytes have no place in the input).
   */
  private where(i: number, byte: number): number {
    const off = this.batch.bufferOffsets[i] ?? 0
    return this.batch.compression < 0 ? this.at + off + byte : this.at + off
  }

  private nextNode(f: FieldDesc): { length: number; nullCount: number } {
    const i = this.node++
    if (i >= this.batch.nodeLengths.length) this.fail(`the message has ${this.batch.nodeLengths.length} field nodes, field ${JSON.stringify(f.name)} needs more`)
    return { length: this.batch.nodeLengths[i]!, nullCount: this.batch.nodeNullCounts[i]! }
  }

  private nextBuffer(f: FieldDesc): Uint8Array {
    const i = this.buffer++
    if (i >= this.buffers.length) this.fail(`the message has ${this.buffers.length} buffers, field ${JSON.stringify(f.name)} needs more`)
    return this.buffers[i]!
  }

  /** The validity bitmap, or undefined when there are no nulls (the buffer may be empty). */
  private validity(f: FieldDesc, length: number, nullCount: number): Uint8Array | undefined {
    const b = this.nextBuffer(f)
    if (nullCount === 0) return undefined
    const need = (length + 7) >> 3
    if (b.length < need) this.fail(`field ${JSON.stringify(f.name)}: validity bitmap of ${b.length} bytes is too short for ${length} values`)
    return b.subarray(0, need)
  }

  /** A typed array over `count` elements, a view when aligned, else an aligned copy. */
  private typed<T>(f: FieldDesc, Ctor: TypedCtor, bytes: Uint8Array, count: number, what: string): T {
    const need = count * Ctor.BYTES_PER_ELEMENT
    if (bytes.length < need) this.fail(`field ${JSON.stringify(f.name)}: ${what} buffer of ${bytes.length} bytes is too short for ${count} values of ${Ctor.BYTES_PER_ELEMENT} bytes`)
    if (bytes.byteOffset % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(bytes.buffer, bytes.byteOffset, count) as T
    // Columnar.rst asks writers for 8-byte alignment, but a body read from a
    // caller's buffer at an odd offset (or a raw buffer after the 8-byte prefix in a
    // compressed message of an old writer) can land anywhere: copy to aligned memory.
    const out = new Ctor(count)
    new Uint8Array(out.buffer).set(bytes.subarray(0, need))
    return out as T
  }

  /**
   * Offsets of a variable-size layout: `length + 1` values, the first at least 0 and
   * at most the last, the last within `limit` (the data bytes or the child's length);
   * with `full`, non-decreasing. Returns the typed array.
   */
  private offsets(f: FieldDesc, length: number, large: boolean, limit: number): Int32Array | BigInt64Array {
    const index = this.buffer
    const b = this.nextBuffer(f)
    if (length === 0 && b.length === 0) return large ? new BigInt64Array(1) : new Int32Array(1)
    const name = JSON.stringify(f.name)
    if (large) {
      const o = this.typed<BigInt64Array>(f, BigInt64Array as unknown as TypedCtor, b, length + 1, 'offsets')
      const first = o[0]!
      const last = o[length]!
      if (first < 0n) this.fail(`field ${name}: first offset ${first} is negative`, this.where(index, 0))
      if (last < first) this.fail(`field ${name}: last offset ${last} is below the first (${first})`, this.where(index, 8 * length))
      if (last > BigInt(limit)) this.fail(`field ${name}: last offset ${last} exceeds the ${limit} values available`, this.where(index, 8 * length))
      if (this.full) {
        const i = offsetDecrease64(o, length)
        if (i >= 0) this.fail(`field ${name}: offset ${i} (${o[i]}) is below offset ${i - 1} (${o[i - 1]})`, this.where(index, 8 * i))
      }
      return o
    }
    const o = this.typed<Int32Array>(f, Int32Array as unknown as TypedCtor, b, length + 1, 'offsets')
    const first = o[0]!
    const last = o[length]!
    if (first < 0) this.fail(`field ${name}: first offset ${first} is negative`, this.where(index, 0))
    if (last < first) this.fail(`field ${name}: last offset ${last} is below the first (${first})`, this.where(index, 4 * length))
    if (last > limit) this.fail(`field ${name}: last offset ${last} exceeds the ${limit} values available`, this.where(index, 4 * length))
    if (this.full) {
      const i = offsetDecrease32(o, length)
      if (i >= 0) this.fail(`field ${name}: offset ${i} (${o[i]}) is below offset ${i - 1} (${o[i - 1]})`, this.where(index, 4 * i))
    }
    return o
  }

  /** Loads the field `f` (its value level when `asValue`, for dictionary batches). */
  load(f: FieldDesc, type: DataType, asValue = false): Data {
    const { length, nullCount } = this.nextNode(f)
    const t = f.type
    const name = JSON.stringify(f.name)
    if (f.dictionary && !asValue) {
      const d = f.dictionary
      const nullBitmap = this.validity(f, length, nullCount)
      const Ctor = (type as unknown as { indices: DataType }).indices.ArrayType as TypedCtor
      const index = this.buffer
      const data = this.typed<ArrayBufferView>(f, Ctor, this.nextBuffer(f), length, 'indices')
      const dictionary = this.dictionaries.get(d.id)
      if (!dictionary) this.fail(`field ${name} uses dictionary ${d.id}, which no dictionary batch defined before it`)
      if (this.full) {
        const i = checkIndices(data, length, nullBitmap, dictionary.length)
        if (i >= 0) {
          const v = (data as unknown as ArrayLike<number | bigint>)[i]!
          this.fail(`field ${name}: index ${v} at ${i} is outside its dictionary of ${dictionary.length} values`, this.where(index, i * Ctor.BYTES_PER_ELEMENT))
        }
      }
      return makeData({ type: type as never, length, nullCount, nullBitmap, data: data as never, dictionary } as never)
    }
    switch (t.tag) {
      case TypeTag.Null:
        return makeData({ type: type as never, length })
      case TypeTag.Bool: {
        const nullBitmap = this.validity(f, length, nullCount)
        const b = this.nextBuffer(f)
        const need = (length + 7) >> 3
        if (b.length < need) this.fail(`field ${name}: boolean data of ${b.length} bytes is too short for ${length} values`)
        return makeData({ type: type as never, length, nullCount, nullBitmap, data: b.subarray(0, need) })
      }
      case TypeTag.Int: case TypeTag.FloatingPoint: case TypeTag.Decimal: case TypeTag.Date: case TypeTag.Time:
      case TypeTag.Timestamp: case TypeTag.Interval: case TypeTag.Duration: case TypeTag.FixedSizeBinary: {
        const nullBitmap = this.validity(f, length, nullCount)
        const Ctor = type.ArrayType as TypedCtor
        const width = byteWidth(t)
        const data = width === 0
          ? new Uint8Array(0)
          : this.typed(f, Ctor, this.nextBuffer(f), (length * width) / Ctor.BYTES_PER_ELEMENT, 'data')
        if (width === 0) this.nextBuffer(f)
        return makeData({ type: type as never, length, nullCount, nullBitmap, data: data as never })
      }
      case TypeTag.Binary: case TypeTag.Utf8: case TypeTag.LargeBinary: case TypeTag.LargeUtf8: {
        const nullBitmap = this.validity(f, length, nullCount)
        const offsetsBuffer = this.buffer
        this.buffer++ // offsets come before data; read data first to know the limit
        const data = this.nextBuffer(f)
        const after = this.buffer
        this.buffer = offsetsBuffer
        const valueOffsets = this.offsets(f, length, t.tag === TypeTag.LargeBinary || t.tag === TypeTag.LargeUtf8, data.length)
        this.buffer = after
        return makeData({ type: type as never, length, nullCount, nullBitmap, valueOffsets: valueOffsets as never, data })
      }
      case TypeTag.BinaryView: case TypeTag.Utf8View: {
        const nullBitmap = this.validity(f, length, nullCount)
        const views = this.nextBuffer(f)
        if (views.length < length * 16) this.fail(`field ${name}: views buffer of ${views.length} bytes is too short for ${length} values`)
        const vi = this.variadic++
        if (vi >= this.batch.variadicCounts.length) this.fail(`field ${name}: the message has no variadic buffer count for it`)
        const n = this.batch.variadicCounts[vi]!
        if (n > this.buffers.length - this.buffer) this.fail(`field ${name}: ${n} variadic buffers declared, ${this.buffers.length - this.buffer} left`)
        const viewsAt = this.buffer - 1
        const variadicBuffers: Uint8Array[] = []
        for (let i = 0; i < n; i++) variadicBuffers.push(this.nextBuffer(f))
        if (this.full) {
          const i = checkViews(views, length, nullBitmap, variadicBuffers)
          if (i >= 0) {
            const dv = new DataView(views.buffer, views.byteOffset + 16 * i, 16)
            this.fail(`field ${name}: view ${i} points to ${dv.getInt32(0, true)} bytes at ${dv.getInt32(12, true)} of variadic buffer ${dv.getInt32(8, true)} (of ${n})`, this.where(viewsAt, 16 * i))
          }
        }
        return makeData({ type: type as never, length, nullCount, nullBitmap, views: views.subarray(0, length * 16), variadicBuffers } as never)
      }
      case TypeTag.List: case TypeTag.LargeList: case TypeTag.Map: {
        const nullBitmap = this.validity(f, length, nullCount)
        const offsetsAt = this.buffer++
        const child = this.load(f.children[0]!, (type.children[0]!).type)
        const after = this.buffer
        this.buffer = offsetsAt
        const valueOffsets = this.offsets(f, length, t.tag === TypeTag.LargeList, child.length)
        this.buffer = after
        return makeData({ type: type as never, length, nullCount, nullBitmap, valueOffsets: valueOffsets as never, child } as never)
      }
      case TypeTag.FixedSizeList: {
        const nullBitmap = this.validity(f, length, nullCount)
        const child = this.load(f.children[0]!, (type.children[0]!).type)
        if (child.length < length * t.width) this.fail(`field ${name}: child has ${child.length} values, ${length} lists of ${t.width} need ${length * t.width}`)
        return makeData({ type: type as never, length, nullCount, nullBitmap, child } as never)
      }
      case TypeTag.Struct: {
        const nullBitmap = this.validity(f, length, nullCount)
        const children = f.children.map((c, i) => {
          const d = this.load(c, type.children[i]!.type)
          if (d.length < length) this.fail(`field ${name}: child ${JSON.stringify(c.name)} has ${d.length} values, the struct ${length}`)
          return d
        })
        return makeData({ type: type as never, length, nullCount, nullBitmap, children })
      }
      case TypeTag.Union: {
        // Before V5, unions had a validity bitmap too (Columnar.rst, "Union Layout").
        if (this.version < MetadataVersion.V5) this.nextBuffer(f)
        const typeIds = this.typed<Int8Array>(f, Int8Array as unknown as TypedCtor, this.nextBuffer(f), length, 'type ids')
        const dense = t.mode === 1
        const offsetsRaw = dense ? this.nextBuffer(f) : null
        const children = f.children.map((c, i) => this.load(c, type.children[i]!.type))
        const ids = t.typeIds ?? f.children.map((_, i) => i)
        const childOf = new Int16Array(128).fill(-1)
        ids.forEach((id, i) => (childOf[id] = i))
        let valueOffsets: Int32Array | undefined
        if (dense) valueOffsets = this.typed<Int32Array>(f, Int32Array as unknown as TypedCtor, offsetsRaw!, length, 'union offsets')
        // Sparse unions need children as long as the union (O(1)); the ids and the dense
        // offsets are O(n) checks.
        if (!dense) for (const c of children) if (c.length < length) this.fail(`field ${name}: a child has ${c.length} values, the sparse union ${length}`)
        for (let i = 0; this.full && i < length; i++) {
          const id = typeIds[i]!
          const c = id >= 0 ? childOf[id]! : -1
          if (c < 0) this.fail(`field ${name}: value ${i} has type id ${id}, not one of ${ids.join(', ')}`)
          const at = dense ? valueOffsets![i]! : i
          if (at < 0 || at >= children[c]!.length) this.fail(`field ${name}: value ${i} points to ${at} in a child of ${children[c]!.length} values`)
        }
        return makeData({ type: type as never, length, nullCount, typeIds, valueOffsets, children } as never)
      }
    }
    return this.fail(`field ${name}: type ${t.tag} cannot be loaded`)
  }
}

/** Whether value `i` is valid (no bitmap: all are). */
function isValid(validity: Uint8Array | undefined, i: number): boolean {
  return validity === undefined || (validity[i >> 3]! & (1 << (i & 7))) !== 0
}

/**
 * The first non-null index outside a dictionary of `size` values (Columnar.rst,
 * "Dictionary-encoded Layout"), or -1. One monomorphic kernel per index width runs
 * over every slot; a hit in a null slot (any value is allowed there) resumes the scan.
 */
function checkIndices(data: ArrayBufferView, length: number, validity: Uint8Array | undefined, size: number): number {
  let find: (from: number) => number
  if (data instanceof Int32Array || data instanceof Uint32Array) {
    const a = data instanceof Int32Array ? data : new Int32Array(data.buffer, data.byteOffset, length)
    if (indicesFit32(a, length, size)) return -1
    find = (from) => indexOutside32(a, from, length, size)
  } else if (data instanceof Int8Array) {
    if (indicesFit8(data, length, size)) return -1
    find = (from) => indexOutside8(data, from, length, size)
  } else if (data instanceof Uint8Array) {
    if (indicesFitU8(data, length, size)) return -1
    find = (from) => indexOutsideU8(data, from, length, size)
  } else if (data instanceof Int16Array) {
    if (indicesFit16(data, length, size)) return -1
    find = (from) => indexOutside16(data, from, length, size)
  } else if (data instanceof Uint16Array) {
    if (indicesFitU16(data, length, size)) return -1
    find = (from) => indexOutsideU16(data, from, length, size)
  } else {
    const w = new Int32Array(data.buffer, data.byteOffset, 2 * length)
    if (indicesFit64(w, length, size)) return -1
    find = (from) => indexOutside64(w, from, length, size)
  }
  for (let i = find(0); i >= 0; i = find(i + 1)) if (isValid(validity, i)) return i
  return -1
}

/**
 * The first non-null view that is negative-sized or, longer than 12 bytes, points
 * outside its variadic buffer (Columnar.rst, "Variable-size Binary View Layout"), or -1.
 */
function checkViews(views: Uint8Array, length: number, validity: Uint8Array | undefined, buffers: Uint8Array[]): number {
  // 16-byte views as int32 words; an unaligned buffer is copied (rare: writers align).
  const words = views.byteOffset % 4 === 0
    ? new Int32Array(views.buffer, views.byteOffset, 4 * length)
    : new Int32Array(views.slice(0, 16 * length).buffer)
  const sizes = new Float64Array(buffers.length)
  for (let k = 0; k < buffers.length; k++) sizes[k] = buffers[k]!.length
  for (let i = viewOutside(words, 0, length, sizes); i >= 0; i = viewOutside(words, i + 1, length, sizes)) if (isValid(validity, i)) return i
  return -1
}
