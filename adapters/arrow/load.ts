import { makeData, type Data, type DataType, type Vector } from 'apache-arrow'
import { CodecError } from '../../lib/errors.js'
import { MetadataVersion, TypeTag, type FieldDesc, type RecordBatchDesc } from '../../lib/arrow/metadata.js'
import { byteWidth } from './schema.js'

type TypedCtor = {
  new (length: number): ArrayLike<number | bigint> & { buffer: ArrayBufferLike }
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): ArrayLike<number | bigint>
  readonly BYTES_PER_ELEMENT: number
}

/**
 * Builds apache-arrow `Data` from one message's field nodes and body buffers, walking
 * the schema depth-first as Columnar.rst ("Buffer Layout", "Recordbatch body
 * structure") lays them out. Every length is checked against the buffer that must hold
 * it, and every offsets buffer against the data it indexes, so a hostile message fails
 * here with a `CodecError` instead of producing views that read out of range later.
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
    /** Absolute offset of the message (errors only). */
    private readonly at: number,
  ) {}

  private fail(message: string): never {
    throw new CodecError('INVALID_DATA', 'arrow', message, this.at)
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
   * Offsets of a variable-size layout: `length + 1` values, non-decreasing, the last
   * within `limit` (the data bytes or the child's length). Returns the typed array.
   */
  private offsets(f: FieldDesc, length: number, large: boolean, limit: number): Int32Array | BigInt64Array {
    const b = this.nextBuffer(f)
    if (length === 0 && b.length === 0) return large ? new BigInt64Array(1) : new Int32Array(1)
    if (large) {
      const o = this.typed<BigInt64Array>(f, BigInt64Array as unknown as TypedCtor, b, length + 1, 'offsets')
      let prev = o[0]!
      if (prev < 0n) this.fail(`field ${JSON.stringify(f.name)}: first offset ${prev} is negative`)
      for (let i = 1; i <= length; i++) {
        const v = o[i]!
        if (v < prev) this.fail(`field ${JSON.stringify(f.name)}: offset ${i} (${v}) is below offset ${i - 1} (${prev})`)
        prev = v
      }
      if (prev > BigInt(limit)) this.fail(`field ${JSON.stringify(f.name)}: last offset ${prev} exceeds the ${limit} values available`)
      return o
    }
    const o = this.typed<Int32Array>(f, Int32Array as unknown as TypedCtor, b, length + 1, 'offsets')
    let prev = o[0]!
    if (prev < 0) this.fail(`field ${JSON.stringify(f.name)}: first offset ${prev} is negative`)
    for (let i = 1; i <= length; i++) {
      const v = o[i]!
      if (v < prev) this.fail(`field ${JSON.stringify(f.name)}: offset ${i} (${v}) is below offset ${i - 1} (${prev})`)
      prev = v
    }
    if (prev > limit) this.fail(`field ${JSON.stringify(f.name)}: last offset ${prev} exceeds the ${limit} values available`)
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
      const data = this.typed(f, Ctor, this.nextBuffer(f), length, 'indices')
      const dictionary = this.dictionaries.get(d.id)
      if (!dictionary) this.fail(`field ${name} uses dictionary ${d.id}, which no dictionary batch defined before it`)
      checkIndices(f, data as ArrayLike<number | bigint>, length, nullBitmap, dictionary.length)
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
        const variadicBuffers: Uint8Array[] = []
        for (let i = 0; i < n; i++) variadicBuffers.push(this.nextBuffer(f))
        checkViews(f, views, length, nullBitmap, variadicBuffers)
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
        for (let i = 0; i < length; i++) {
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

/** Every non-null index must point into the dictionary (Columnar.rst, "Dictionary-encoded Layout"). */
function checkIndices(f: FieldDesc, indices: ArrayLike<number | bigint>, length: number, validity: Uint8Array | undefined, size: number): void {
  for (let i = 0; i < length; i++) {
    if (validity && (validity[i >> 3]! & (1 << (i & 7))) === 0) continue
    const v = Number(indices[i]!)
    if (!(v >= 0 && v < size)) {
      throw new CodecError('INVALID_DATA', 'arrow', `field ${JSON.stringify(f.name)}: index ${v} at ${i} is outside its dictionary of ${size} values`)
    }
  }
}

/** Each non-null view longer than 12 bytes must point inside its variadic buffer (Columnar.rst, "Variable-size Binary View Layout"). */
function checkViews(f: FieldDesc, views: Uint8Array, length: number, validity: Uint8Array | undefined, buffers: Uint8Array[]): void {
  const dv = new DataView(views.buffer, views.byteOffset, views.byteLength)
  for (let i = 0; i < length; i++) {
    if (validity && (validity[i >> 3]! & (1 << (i & 7))) === 0) continue
    const size = dv.getInt32(i * 16, true)
    if (size < 0) throw new CodecError('INVALID_DATA', 'arrow', `field ${JSON.stringify(f.name)}: view ${i} has negative size ${size}`)
    if (size <= 12) continue
    const index = dv.getInt32(i * 16 + 8, true)
    const offset = dv.getInt32(i * 16 + 12, true)
    const b = buffers[index]
    if (index < 0 || !b || offset < 0 || offset + size > b.length) {
      throw new CodecError('INVALID_DATA', 'arrow', `field ${JSON.stringify(f.name)}: view ${i} points to ${size} bytes at ${offset} of variadic buffer ${index}`)
    }
  }
}
