import { MetadataVersion, TypeTag, type FieldDesc, type RecordBatchDesc } from '../../lib/arrow/metadata.js'
import { readInt64 } from '../../lib/arrow/body.js'
import { byteWidth } from './schema.js'

/**
 * The byte length each body buffer of a message should have, from the schema and the
 * field nodes (Columnar.rst, "Buffer Layout"): validity bitmaps (empty without nulls),
 * values of fixed width, `length + 1` offsets, 16-byte views; a variable-size data
 * buffer's length is its offsets' last value, read from the offsets buffer decoded
 * before it. -1 where the layout does not say (variadic view buffers, a walk that ran
 * out of nodes). Only a hint for buffers whose prefix gives no size (the apache-arrow
 * 21.2 writer, see lib/arrow/body.ts): the frame still decides the length, and the
 * loader checks every buffer against what it needs.
 *
 * Returns `(index, decoded) => bytes`; the layout is walked on the first call.
 */
export function sizeHints(fields: FieldDesc[], batch: RecordBatchDesc, version: number, asValue: boolean): (index: number, decoded: Uint8Array[]) => number {
  let fixed: number[] | null = null
  /** For a variable-size data buffer: its offsets buffer, value count and offset width; else -1. */
  let from: number[] = []
  let counts: number[] = []
  let widths: number[] = []
  const walk = (): number[] => {
    const sizes: number[] = []
    from = []
    counts = []
    widths = []
    let node = 0
    const push = (n: number, offsets = -1, count = 0, width = 0): void => {
      sizes.push(n)
      from.push(offsets)
      counts.push(count)
      widths.push(width)
    }
    const visit = (f: FieldDesc, value: boolean): void => {
      const i = node++
      if (i >= batch.nodeLengths.length) return
      const length = batch.nodeLengths[i]!
      const validity = batch.nodeNullCounts[i]! > 0 ? (length + 7) >> 3 : 0
      if (f.dictionary && !value) {
        push(validity)
        push(length * (f.dictionary.indexBitWidth >> 3))
        return
      }
      const t = f.type
      switch (t.tag) {
        case TypeTag.Null:
          return
        case TypeTag.Bool:
          push(validity)
          push((length + 7) >> 3)
          return
        case TypeTag.Binary: case TypeTag.Utf8: case TypeTag.LargeBinary: case TypeTag.LargeUtf8: {
          const width = t.tag === TypeTag.LargeBinary || t.tag === TypeTag.LargeUtf8 ? 8 : 4
          push(validity)
          push((length + 1) * width)
          push(-1, sizes.length - 1, length, width)
          return
        }
        case TypeTag.BinaryView: case TypeTag.Utf8View:
          push(validity)
          push(length * 16)
          // Variadic buffers: their count is in the message, their sizes nowhere.
          return
        case TypeTag.List: case TypeTag.LargeList: case TypeTag.Map:
          push(validity)
          push((length + 1) * (t.tag === TypeTag.LargeList ? 8 : 4))
          visit(f.children[0]!, false)
          return
        case TypeTag.FixedSizeList: case TypeTag.Struct:
          push(validity)
          for (const c of f.children) visit(c, false)
          return
        case TypeTag.Union:
          if (version < MetadataVersion.V5) push(validity)
          push(length)
          if (t.mode === 1) push(length * 4)
          for (const c of f.children) visit(c, false)
          return
        default: {
          const w = byteWidth(t)
          push(validity)
          push(w > 0 ? length * w : -1)
        }
      }
    }
    for (const f of fields) visit(f, asValue)
    return sizes
  }
  return (index, decoded) => {
    fixed ??= walk()
    if (index >= fixed.length) return -1
    const n = fixed[index]!
    if (n >= 0 || from[index]! < 0) return n
    const o = decoded[from[index]!]
    const count = counts[index]!
    const width = widths[index]!
    if (!o || o.length < (count + 1) * width) return -1
    const at = count * width
    return width === 4 ? (o[at]! | (o[at + 1]! << 8) | (o[at + 2]! << 16) | (o[at + 3]! << 24)) : readInt64(o, at)
  }
}
