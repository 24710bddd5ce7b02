/**
 * `SchemaElement` and the schema list: decoded in full, or, with the `columns` option,
 * scanned without making objects so that only the selected leaves and their ancestors
 * are decoded.
 */
import { CodecError } from '../errors.js'
import {
  CompactType,
  fieldHeader,
  FORMAT,
  headerTruncated,
  invalid,
  listArray,
  listOf,
  missingField,
  readBinaryLength,
  readI32,
  skip,
  ThriftCursor,
  utf8Slice,
} from './thrift.js'
import { readLogicalType } from './cold-structs.js'
import { CONVERTED_TYPES, enumName, PARQUET_TYPES, REPETITION_TYPES } from './enums.js'
import { type Plan } from './plan.js'
import type { ConvertedType, FieldRepetitionType, LogicalType, ParquetType, SchemaElement } from './types.js'

const { I16, I32, I64, BINARY, STRUCT } = CompactType

// ---------------------------------------------------------------------------------
// Schema

/** The required fields of `SchemaElement` (only `name`; `hasName` tracks it). */
const SCHEMA_ELEMENT_FIELDS = ['name'] as const

/**
 * ```thrift
 * struct SchemaElement {
 *   1: optional Type type
 *   2: optional i32 type_length
 *   3: optional FieldRepetitionType repetition_type
 *   4: required string name
 *   5: optional i32 num_children
 *   6: optional ConvertedType converted_type
 *   7: optional i32 scale
 *   8: optional i32 precision
 *   9: optional i32 field_id
 *   10: optional LogicalType logicalType
 * }
 * ```
 * (parquet-format's parquet.thrift; field 11, `i32 vector_length` for repetition
 * `VECTOR`, is read too, see types.ts.) Decodes one SchemaElement; records the byte range
 * of its name in `nameRange`.
 */
function readSchemaElement(c: ThriftCursor, nameRange: Int32Array): SchemaElement {
  const start = c.offset
  let type: ParquetType | undefined
  let typeLength: number | undefined
  let repetitionType: FieldRepetitionType | number | undefined
  let name = ''
  let hasName = false
  let numChildren: number | undefined
  let convertedType: ConvertedType | number | undefined
  let scale: number | undefined
  let precision: number | undefined
  let fieldId: number | undefined
  let logicalType: LogicalType | undefined
  let vectorLength: number | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'SchemaElement')
    if (wire === 0) break
    fid = c.fieldId
    if ((wire | 1) === I32) {
      switch (fid) {
        case 1: {
          const at = c.offset
          const value = readI32(c)
          type = PARQUET_TYPES[value]
          // The physical types are a closed set: every reader must understand them
          // all, so another value means the footer is corrupt (bad_data/PARQUET-1481).
          if (type === undefined) invalid(c, `SchemaElement.type ${value} is not a Parquet physical type`, at)
          continue
        }
        case 2:
          typeLength = readI32(c)
          continue
        case 3:
          repetitionType = enumName(REPETITION_TYPES, readI32(c))
          continue
        case 5:
          numChildren = readI32(c)
          continue
        case 6:
          convertedType = enumName(CONVERTED_TYPES, readI32(c))
          continue
        case 7:
          scale = readI32(c)
          continue
        case 8:
          precision = readI32(c)
          continue
        case 9:
          fieldId = readI32(c)
          continue
        case 11:
          vectorLength = readI32(c)
          continue
      }
    } else if (fid === 4 && wire === BINARY) {
      const length = readBinaryLength(c)
      const at = c.offset
      c.offset = at + length
      nameRange[0] = at
      nameRange[1] = at + length
      name = utf8Slice(c.bytes, at, at + length)
      hasName = true
      continue
    } else if (fid === 10 && wire === STRUCT) {
      logicalType = readLogicalType(c)
      continue
    }
    skip(c, wire)
  }
  if (!hasName) missingField(c, 'SchemaElement', SCHEMA_ELEMENT_FIELDS, 0, start)
  return {
    type,
    type_length: typeLength,
    repetition_type: repetitionType,
    name,
    num_children: numChildren,
    converted_type: convertedType,
    scale,
    precision,
    field_id: fieldId,
    logical_type: logicalType,
    vector_length: vectorLength,
  }
}

const nameScratch = new Int32Array(2)

/**
 * Most levels of groups in a schema. Every leaf's path holds one entry per level, so
 * without a cap a hostile footer of n elements could ask for n^2/4 path entries (half
 * the elements nested, half leaves at the bottom). Real schemas stay far below this.
 */
const MAX_SCHEMA_DEPTH = 256

function schemaTooDeep(c: ThriftCursor, element: number): never {
  throw new CodecError('LIMIT_EXCEEDED', 'parquet', `schema element ${element} nests groups deeper than ${MAX_SCHEMA_DEPTH} levels (not an option: real schemas stay far below)`, c.origin)
}

/** Decodes every schema element and learns the leaf paths (no `columns` option). */
export function readSchema(c: ThriftCursor, plan: Plan): SchemaElement[] {
  const size = listOf(c, STRUCT, 'FileMetaData.schema')
  if (size === 0) invalid(c, 'FileMetaData.schema is empty: it needs at least the root')
  const schema = listArray<SchemaElement>(size)
  const scratch = plan.scratch
  scratch.reserve(size)
  const nameStart = scratch.nameStart
  const nameEnd = scratch.nameEnd
  for (let i = 0; i < size; i++) {
    schema[i] = readSchemaElement(c, nameScratch)
    nameStart[i] = nameScratch[0]!
    nameEnd[i] = nameScratch[1]!
  }
  plan.nameStart = nameStart
  plan.nameEnd = nameEnd
  // Walk the depth-first list with a stack of [element, children left].
  const stackElement: number[] = [0]
  const stackLeft: number[] = [childCount(schema[0]!)]
  const paths: string[][] = [[]]
  const leafPaths = plan.leafPaths
  const segments = plan.leafSegments
  const segmentStart = plan.leafSegmentStart
  for (let i = 1; i < size; i++) {
    while (stackLeft.length > 1 && stackLeft[stackLeft.length - 1] === 0) {
      stackLeft.pop()
      stackElement.pop()
      paths.pop()
    }
    if (stackLeft[stackLeft.length - 1] === 0) break // more elements than the root claims
    stackLeft[stackLeft.length - 1]!--
    const element = schema[i]!
    const parentPath = paths[paths.length - 1]!
    const path = parentPath.length === 0 ? [element.name] : parentPath.concat(element.name)
    const children = childCount(element)
    if (children > 0) {
      if (stackElement.length >= MAX_SCHEMA_DEPTH) schemaTooDeep(c, i)
      stackElement.push(i)
      stackLeft.push(children)
      paths.push(path)
    } else if (element.type !== undefined || element.num_children === undefined) {
      leafPaths.push(path)
      segmentStart.push(segments.length)
      for (let k = 1; k < stackElement.length; k++) segments.push(stackElement[k]!)
      segments.push(i)
    }
  }
  segmentStart.push(segments.length)
  plan.leafCount = leafPaths.length
  return schema
}

function childCount(element: SchemaElement): number {
  const n = element.num_children
  return n !== undefined && n > 0 ? n : 0
}

/**
 * The `columns` path: scans the schema without making objects (name byte ranges,
 * child counts, leaf flags), matches the requested paths on the name bytes, then
 * decodes only the root, the selected leaves and their ancestors.
 */
export function scanSchema(c: ThriftCursor, plan: Plan): SchemaElement[] {
  const listStart = c.offset
  const size = listOf(c, STRUCT, 'FileMetaData.schema')
  if (size === 0) invalid(c, 'FileMetaData.schema is empty: it needs at least the root', listStart)
  const bytes = c.bytes
  const scratch = plan.scratch
  scratch.reserve(size)
  const elementStart = scratch.elementStart
  const nameStart = scratch.nameStart
  const nameEnd = scratch.nameEnd
  const children = scratch.children.fill(0, 0, size)
  const leafFlag = scratch.flags.fill(0, 0, size) // 1: has a physical type, 2: has num_children
  // The scan reads headers inline (see `headerTruncated`): on a wide file it walks as
  // many schema elements as the floor does, so it must cost about what skipping does.
  const end = bytes.length
  let pos = c.offset
  for (let i = 0; i < size; i++) {
    const start = pos
    elementStart[i] = start
    let fid = 0
    let hasName = false
    for (;;) {
      if (pos >= end) headerTruncated(c, pos, 'SchemaElement')
      const header = bytes[pos++]!
      const wire = header & 0x0f
      if (wire === 0) break
      if (header >= 0x10) fid += header >> 4
      else {
        c.offset = pos
        fid = readI32(c)
        pos = c.offset
      }
      if (wire === BINARY && fid === 4) {
        let length = pos < end ? bytes[pos]! : 0x80
        if (length < 0x80 && pos + 1 + length <= end) pos++
        else {
          c.offset = pos
          length = readBinaryLength(c)
          pos = c.offset
        }
        nameStart[i] = pos
        pos += length
        nameEnd[i] = pos
        hasName = true
      } else if ((wire === I32 || wire === I16) && (fid === 5 || fid === 1)) {
        const at = pos
        let value: number
        const b = pos < end ? bytes[pos]! : 0x80
        if (b < 0x80) {
          value = (b >>> 1) ^ -(b & 1)
          pos++
        } else {
          c.offset = pos
          value = readI32(c)
          pos = c.offset
        }
        if (fid === 5) {
          children[i] = value
          leafFlag[i] |= 2
        } else {
          if (value < 0 || value >= PARQUET_TYPES.length) {
            invalid(c, `SchemaElement.type ${value} is not a Parquet physical type`, at)
          }
          leafFlag[i] |= 1
        }
      } else if (wire >= I16 && wire <= I64 && pos < end && bytes[pos]! < 0x80) {
        pos++ // a one-byte integer nobody asked for
      } else {
        c.offset = pos
        skip(c, wire)
        pos = c.offset
      }
    }
    if (!hasName) {
      c.offset = pos
      missingField(c, 'SchemaElement', SCHEMA_ELEMENT_FIELDS, 0, start)
    }
  }
  c.offset = pos
  plan.nameStart = nameStart
  plan.nameEnd = nameEnd

  // Match. A requested path r is matched segment by segment along the depth-first
  // walk: state[level][r] is where in r the next name must start (-1: no match).
  const requested = plan.columns!
  const R = requested.length
  const found = new Uint8Array(R)
  // Prefilter for children of the root (the bulk of a wide schema): a node can only
  // match if (length, first byte, last byte) of its name is that of a prefix of some
  // requested path ending at a dot or at its end.
  const filter = scratch.filter.fill(0)
  for (let i = 0; i < R; i++) {
    const r = requested[i]!
    for (let end = 1; end <= r.length; end++) {
      if (end === r.length || r[end] === 0x2e) filter[filterKey(r, 0, end)] = 1
    }
  }
  const kept = scratch.kept.fill(0, 0, size)
  const parent = scratch.parent
  const keptChildren = scratch.keptChildren.fill(0, 0, size)
  kept[0] = 1
  parent[0] = -1
  const stackElement: number[] = [0]
  const stackLeft: number[] = [children[0]! > 0 ? children[0]! : 0]
  const stackSelected: boolean[] = [false]
  const states: Int32Array[] = [new Int32Array(R)] // level 0: every r starts at 0
  const stackActive: boolean[] = [true]
  let leafIndex = 0
  const wantedLeaves: number[] = []
  const leafElements: number[] = []
  for (let i = 1; i < size; i++) {
    while (stackLeft.length > 1 && stackLeft[stackLeft.length - 1] === 0) {
      stackLeft.pop()
      stackElement.pop()
      stackSelected.pop()
      stackActive.pop()
    }
    const top = stackLeft.length - 1
    if (stackLeft[top] === 0) break
    stackLeft[top]!--
    const level = top + 1
    parent[i] = stackElement[top]!
    let selected = stackSelected[top]!
    let active = false
    if (!selected && stackActive[top]) {
      const ns = nameStart[i]!
      const ne = nameEnd[i]!
      if (top !== 0 || filter[filterKey(bytes, ns, ne)] === 1) {
        const parentState = states[top]!
        const state = (states[level] ??= new Int32Array(R))
        for (let r = 0; r < R; r++) {
          state[r] = -1
          const pos = parentState[r]!
          if (pos < 0) continue
          const path = requested[r]!
          const end = pos + (ne - ns)
          if (end > path.length) continue
          let same = true
          for (let k = ns, p = pos; k < ne; k++, p++) {
            if (bytes[k] !== path[p]) {
              same = false
              break
            }
          }
          if (!same) continue
          if (end === path.length) {
            selected = true
            found[r] = 1
          } else if (path[end] === 0x2e) {
            state[r] = end + 1
            active = true
          }
        }
      }
    }
    const count = children[i]! > 0 ? children[i]! : 0
    if (count > 0) {
      if (stackElement.length >= MAX_SCHEMA_DEPTH) schemaTooDeep(c, i)
      stackElement.push(i)
      stackLeft.push(count)
      stackSelected.push(selected)
      stackActive.push(active)
    } else if ((leafFlag[i]! & 1) !== 0 || (leafFlag[i]! & 2) === 0) {
      if (selected) {
        wantedLeaves.push(leafIndex)
        leafElements.push(i)
        // keep the leaf and its ancestors
        for (let e = i; e >= 0 && kept[e] === 0; e = parent[e]!) {
          kept[e] = 1
          keptChildren[parent[e]!]!++
        }
      }
      leafIndex++
    }
  }
  for (let r = 0; r < R; r++) {
    if (found[r] === 0) {
      throw new CodecError('INVALID_OPTION', FORMAT, `column ${JSON.stringify(plan.columnNames[r])} is not in the schema`)
    }
  }
  // Decode what is kept.
  const after = c.offset
  const schema: SchemaElement[] = []
  const index = scratch.children // (done with the child counts) schema index of kept elements
  for (let i = 0; i < size; i++) {
    if (kept[i] === 0) continue
    c.offset = elementStart[i]!
    const element = readSchemaElement(c, nameScratch)
    if (element.num_children !== undefined && element.num_children > 0) element.num_children = keptChildren[i]!
    index[i] = schema.length
    schema.push(element)
  }
  c.offset = after
  // at most one leaf per element: the tables hold leafIndex entries
  const wanted = scratch.wanted.fill(0, 0, leafIndex)
  const leafPaths = plan.leafPaths
  const segments = plan.leafSegments
  const segmentStart = plan.leafSegmentStart
  // Paths and segments of the selected leaves, indexed by selection order (k).
  for (let k = 0; k < wantedLeaves.length; k++) {
    wanted[wantedLeaves[k]!] = 1
    const from = segments.length
    segmentStart.push(from)
    for (let e = leafElements[k]!; e > 0; e = parent[e]!) segments.push(e)
    // leaf first -> root first
    for (let x = from, y = segments.length - 1; x < y; x++, y--) {
      const t = segments[x]!
      segments[x] = segments[y]!
      segments[y] = t
    }
    const path = listArray<string>(segments.length - from)
    for (let d = 0; d < path.length; d++) path[d] = schema[index[segments[from + d]!]!]!.name
    leafPaths.push(path)
  }
  plan.wanted = wanted
  plan.leafCount = leafIndex
  return schema
}

function filterKey(bytes: ArrayLike<number>, start: number, end: number): number {
  const length = end - start
  return ((length & 15) << 8) ^ (bytes[start]! << 4) ^ bytes[end - 1]!
}
