/**
 * `Statistics`: the decoder, and `LazyStatistics`, which defers it to the first read of
 * a field; and `SizeStatistics`.
 */
import { CompactType, fieldHeader, readBinary, readI64, readI64List, skip, ThriftCursor } from './thrift.js'
import { sameBytes } from './plan.js'
import type { Int64, SizeStatistics, Statistics } from './types.js'

const { BOOLEAN_TRUE: TRUE, BOOLEAN_FALSE: FALSE, I64, BINARY, LIST } = CompactType

function readStatistics(c: ThriftCursor): Statistics {
  let max: Uint8Array | undefined
  let min: Uint8Array | undefined
  let nullCount: Int64 | undefined
  let distinctCount: Int64 | undefined
  let maxValue: Uint8Array | undefined
  let minValue: Uint8Array | undefined
  let isMaxValueExact: boolean | undefined
  let isMinValueExact: boolean | undefined
  let nanCount: Int64 | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'Statistics')
    if (wire === 0) break
    fid = c.fieldId
    if (wire === BINARY) {
      if (fid === 1) max = readBinary(c)
      else if (fid === 2) min = readBinary(c)
      else if (fid === 5) maxValue = readBinary(c)
      else if (fid === 6) minValue = readBinary(c)
      else skip(c, wire)
    } else if (wire === I64) {
      if (fid === 3) nullCount = readI64(c)
      else if (fid === 4) distinctCount = readI64(c)
      else if (fid === 9) nanCount = readI64(c)
      else skip(c, wire)
    } else if (wire === TRUE || wire === FALSE) {
      if (fid === 7) isMaxValueExact = wire === TRUE
      else if (fid === 8) isMinValueExact = wire === TRUE
    } else skip(c, wire)
  }
  // Writers that fill both the deprecated and the current fields (parquet-rs,
  // parquet-cpp) store the same bytes twice: share one view, half the allocations.
  if (maxValue !== undefined && max !== undefined && sameBytes(max, maxValue)) max = maxValue
  if (minValue !== undefined && min !== undefined && sameBytes(min, minValue)) min = minValue
  return {
    max,
    min,
    null_count: nullCount,
    distinct_count: distinctCount,
    max_value: maxValue,
    min_value: minValue,
    is_max_value_exact: isMaxValueExact,
    is_min_value_exact: isMinValueExact,
    nan_count: nanCount,
  }
}

/**
 * `ColumnMetaData.statistics`, decoded on first access. A wide footer holds one
 * Statistics struct per column chunk, and decoding them eagerly (an object and up to
 * four byte views each) cost more than the rest of the chunk: most readers look at the
 * statistics of a few columns, if any. The decode walks the struct with `skipStruct`,
 * which accepts exactly what `readStatistics` accepts, so the later decode cannot fail
 * (unless the footer bytes are modified meanwhile, like any view into them).
 *
 * The fields are getters (and setters) on the prototype, decoded together on the
 * first read: property reads, destructuring and `JSON.stringify` (through `toJSON`)
 * see the values; spreading, `Object.keys` and `structuredClone` see no own
 * properties: use `toJSON()` for a plain object.
 */
export class LazyStatistics implements Statistics {
  /** The footer bytes and the offset of the struct in them. */
  readonly #bytes: Uint8Array
  readonly #start: number
  /** The decoded struct, once read. */
  #values: Statistics | undefined

  constructor(bytes: Uint8Array, start: number) {
    this.#bytes = bytes
    this.#start = start
    this.#values = undefined
  }

  #decoded(): Statistics {
    return (this.#values ??= readStatistics(new ThriftCursor(this.#bytes, this.#start)))
  }

  get max(): Uint8Array | undefined {
    return this.#decoded().max
  }
  set max(value) {
    this.#decoded().max = value
  }
  get min(): Uint8Array | undefined {
    return this.#decoded().min
  }
  set min(value) {
    this.#decoded().min = value
  }
  get null_count(): Int64 | undefined {
    return this.#decoded().null_count
  }
  set null_count(value) {
    this.#decoded().null_count = value
  }
  get distinct_count(): Int64 | undefined {
    return this.#decoded().distinct_count
  }
  set distinct_count(value) {
    this.#decoded().distinct_count = value
  }
  get max_value(): Uint8Array | undefined {
    return this.#decoded().max_value
  }
  set max_value(value) {
    this.#decoded().max_value = value
  }
  get min_value(): Uint8Array | undefined {
    return this.#decoded().min_value
  }
  set min_value(value) {
    this.#decoded().min_value = value
  }
  get is_max_value_exact(): boolean | undefined {
    return this.#decoded().is_max_value_exact
  }
  set is_max_value_exact(value) {
    this.#decoded().is_max_value_exact = value
  }
  get is_min_value_exact(): boolean | undefined {
    return this.#decoded().is_min_value_exact
  }
  set is_min_value_exact(value) {
    this.#decoded().is_min_value_exact = value
  }
  get nan_count(): Int64 | undefined {
    return this.#decoded().nan_count
  }
  set nan_count(value) {
    this.#decoded().nan_count = value
  }

  /** The fields as a plain object (a copy). */
  toJSON(): Statistics {
    return { ...this.#decoded() }
  }

  /** Node's `util.inspect` (console.log) shows the fields, not an empty object. */
  [Symbol.for('nodejs.util.inspect.custom')](): Statistics {
    return this.toJSON()
  }
}

/**
 * `SizeStatistics` (ColumnMetaData field 16), hand-written like the hot structs: parquet-rs
 * writes one into every chunk of a byte-array column, so a wide footer holds thousands.
 * Read through the field table of `struct-table.ts` (a generic keyed store per field),
 * it made the full decode of 1,000 and 10,000 columns (the repository's bench/parquet.ts) 3 to 7% slower.
 */
export function readSizeStatistics(c: ThriftCursor): SizeStatistics {
  let unencoded: Int64 | undefined
  let repetition: Int64[] | undefined
  let definition: Int64[] | undefined
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'SizeStatistics')
    if (wire === 0) break
    fid = c.fieldId
    if (fid === 1 && wire === I64) unencoded = readI64(c)
    else if (fid === 2 && wire === LIST) repetition = readI64List(c, 'SizeStatistics.repetition_level_histogram')
    else if (fid === 3 && wire === LIST) definition = readI64List(c, 'SizeStatistics.definition_level_histogram')
    else skip(c, wire)
  }
  return {
    unencoded_byte_array_data_bytes: unencoded,
    repetition_level_histogram: repetition,
    definition_level_histogram: definition,
  }
}
