/**
 * apache-arrow `Data` to the field nodes and buffers of a message body, depth-first as
 * Columnar.rst ("Buffer Layout", "Recordbatch body structure") lays them out: sliced
 * data re-based to start at 0, bitmaps re-packed from bit 0. The reader's twin is
 * load.ts; lib/arrow/body-write.ts places the buffers in the body.
 */
import { DataType, makeData, type Data } from 'apache-arrow'
import { CodecError } from '../../lib/errors.js'
import { TypeTag } from '../../lib/arrow/metadata.js'
import type { BodyBuffers } from '../../lib/arrow/body-write.js'

const EMPTY = new Uint8Array(0)

/**
 * The first `byteLength` bytes of `v`. apache-arrow can hand out Data whose buffers are
 * shorter than its length implies (`_changeLengthAndBackfillNullBitmap` extends a
 * column with nulls without growing its values), so a short buffer is zero-padded.
 */
function bytesOf(v: ArrayBufferView | undefined | null, byteLength?: number): Uint8Array {
  if (!v) return byteLength ? new Uint8Array(byteLength) : EMPTY
  const want = byteLength ?? v.byteLength
  if (want <= v.byteLength) return new Uint8Array(v.buffer, v.byteOffset, want)
  const out = new Uint8Array(want)
  out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))
  return out
}

/** `length` bits of `bitmap` starting at bit `offset`, re-packed from bit 0 when needed. */
function sliceBits(bitmap: Uint8Array, offset: number, length: number): Uint8Array {
  const n = (length + 7) >> 3
  if ((offset & 7) === 0) {
    const start = offset >> 3
    if (start + n <= bitmap.length) return bitmap.subarray(start, start + n)
  }
  const out = new Uint8Array(n)
  for (let i = 0; i < length; i++) {
    const j = offset + i
    if ((bitmap[j >> 3]! >> (j & 7)) & 1) out[i >> 3]! |= 1 << (i & 7)
  }
  return out
}

/** Offsets rebased to start at 0 (a copy only when they do not already). */
function rebase(offsets: Int32Array | BigInt64Array, length: number): { bytes: Uint8Array; begin: number; end: number } {
  let view = offsets.subarray(0, length + 1) as Int32Array | BigInt64Array
  if (view.length < length + 1) {
    // Backfilled nulls (see bytesOf): the missing offsets repeat the last one.
    const last = view.length > 0 ? view[view.length - 1]! : 0
    const full = view instanceof BigInt64Array ? new BigInt64Array(length + 1).fill(BigInt(last)) : new Int32Array(length + 1).fill(Number(last))
    full.set(view as never)
    view = full
  }
  const begin = Number(view[0] ?? 0)
  const end = Number(view[length] ?? 0)
  if (begin === 0) return { bytes: bytesOf(view), begin, end }
  if (view instanceof BigInt64Array) {
    const b = BigInt(begin)
    return { bytes: bytesOf(view.map((x) => x - b)), begin, end }
  }
  return { bytes: bytesOf(view.map((x) => x - begin)), begin, end }
}

/**
 * Child `i` of `data`, or when apache-arrow left it out (empty Data built from an
 * empty array has no `children`), `length` nulls of the child's type.
 */
export function childOf(data: Data, i: number, type: DataType, length: number): Data {
  const c = data.children?.[i]
  if (c) return c
  return makeData({ type, length, nullCount: length, nullBitmap: new Uint8Array((length + 7) >> 3) } as never)
}

export function assemble(type: DataType, data: Data, out: BodyBuffers): void {
  const { length } = data
  const nullCount = data.nullCount
  out.nodes.push(length, nullCount)
  const validity = (): void => {
    out.buffers.push(nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0 ? sliceBits(data.nullBitmap, data.offset, length) : EMPTY)
  }
  if (DataType.isDictionary(type)) {
    validity()
    const width = type.indices.bitWidth >> 3
    out.buffers.push(bytesOf(data.values as ArrayBufferView, length * width))
    return
  }
  switch (type.typeId) {
    case TypeTag.Null:
      return
    case TypeTag.Bool:
      validity()
      out.buffers.push(data.values ? sliceBits(data.values as Uint8Array, data.offset, length) : new Uint8Array((length + 7) >> 3))
      return
    case TypeTag.Int: case TypeTag.FloatingPoint: case TypeTag.Decimal: case TypeTag.Date: case TypeTag.Time:
    case TypeTag.Timestamp: case TypeTag.Interval: case TypeTag.Duration: case TypeTag.FixedSizeBinary: {
      validity()
      const bytesPerElement = (type.ArrayType as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT
      out.buffers.push(bytesOf(data.values as ArrayBufferView | undefined, length * data.stride * bytesPerElement))
      return
    }
    case TypeTag.Binary: case TypeTag.Utf8: case TypeTag.LargeBinary: case TypeTag.LargeUtf8: {
      validity()
      const large = type.typeId === TypeTag.LargeBinary || type.typeId === TypeTag.LargeUtf8
      const { bytes, begin, end } = rebase(data.valueOffsets ?? (large ? new BigInt64Array(0) : new Int32Array(0)), length)
      out.buffers.push(bytes)
      out.buffers.push(bytesOf(data.values as Uint8Array | undefined, end).subarray(begin, end))
      return
    }
    case TypeTag.BinaryView: case TypeTag.Utf8View: {
      validity()
      const views = bytesOf(data.values as Uint8Array | undefined, (data.offset + length) * 16)
      out.buffers.push(views.subarray(data.offset * 16, (data.offset + length) * 16))
      const variadic = data.variadicBuffers ?? []
      for (const b of variadic) out.buffers.push(bytesOf(b))
      out.variadicCounts.push(variadic.length)
      return
    }
    case TypeTag.List: case TypeTag.LargeList: case TypeTag.Map: {
      validity()
      const { bytes, begin, end } = rebase(data.valueOffsets ?? (type.typeId === TypeTag.LargeList ? new BigInt64Array(0) : new Int32Array(0)), length)
      out.buffers.push(bytes)
      const child = childOf(data, 0, type.children[0]!.type, end)
      assemble(type.children[0]!.type, begin === 0 && end === child.length ? child : child.slice(begin, end - begin), out)
      return
    }
    case TypeTag.FixedSizeList: case TypeTag.Struct: {
      validity()
      const n = type.typeId === TypeTag.Struct ? length : length * (type as unknown as { listSize: number }).listSize
      type.children.forEach((f, i) => assemble(f.type, childOf(data, i, f.type, n), out))
      return
    }
    case TypeTag.Union: {
      // V5 unions have no validity bitmap (Columnar.rst, "Union Layout").
      out.buffers.push(bytesOf(data.typeIds as Int8Array, length))
      if ((type as unknown as { mode: number }).mode === 1) {
        if (data.offset > 0) throw new CodecError('UNSUPPORTED', 'arrow', 'writing a sliced dense union is not supported')
        out.buffers.push(bytesOf(data.valueOffsets as Int32Array, length * 4))
      }
      type.children.forEach((f, i) => assemble(f.type, childOf(data, i, f.type, 0), out))
      return
    }
  }
  throw new CodecError('UNSUPPORTED', 'arrow', `cannot write type ${String(type)}`)
}

export function emptyData(type: DataType): Data {
  return makeData({ type } as never)
}
