/** `KeyValue` metadata entries, with long values decoded on first read. */
import {
  CompactType,
  fieldHeader,
  listArray,
  listOf,
  missingField,
  readBinaryLength,
  readString,
  skip,
  ThriftCursor,
  utf8Slice,
} from './thrift.js'
import type { KeyValue } from './types.js'

const { BINARY, STRUCT } = CompactType

/**
 * The required fields of `KeyValue` (only `key`; `hasKey` tracks it):
 * ```thrift
 * struct KeyValue {
 *   1: required string key
 *   2: optional string value
 * }
 * ```
 */
const KEY_VALUE_FIELDS = ['key'] as const

/**
 * Key-value values longer than this are decoded on first access. Writers store whole
 * documents there (`ARROW:schema`, base64: 613 kB in a 10,000-column file written by
 * parquet-rs; pandas and GeoParquet JSON), and decoding one costs more than walking
 * the rest of the footer. The getter is an own enumerable property, so spreading,
 * `JSON.stringify` and deep equality see the value; it becomes a plain data property
 * once read.
 */
const LAZY_STRING_BYTES = 1024

/**
 * Where the value of each lazily decoded entry is: its footer bytes and byte range.
 * The getter and setter are shared by every entry (V8 then shares one hidden class
 * among them); closures made per entry gave every entry a hidden class of its own,
 * allocated in old space and holding the closures there: each scavenge promoted them,
 * and a selective decode of 100 columns spent a third of its time in the collector.
 */
const lazyValues = /* @__PURE__ */ new WeakMap<KeyValue, { bytes: Uint8Array; start: number; end: number }>()

function getLazyValue(this: KeyValue): string | undefined {
  const where = lazyValues.get(this)
  if (where === undefined) return undefined // (unreachable: the getter is replaced once read)
  const value = utf8Slice(where.bytes, where.start, where.end)
  setLazyValue.call(this, value)
  return value
}

function setLazyValue(this: KeyValue, value: string | undefined): void {
  lazyValues.delete(this)
  Object.defineProperty(this, 'value', { value, writable: true, enumerable: true, configurable: true })
}

const LAZY_VALUE: PropertyDescriptor = { get: getLazyValue, set: setLazyValue, enumerable: true, configurable: true }

/** An entry whose value is decoded on first read (see `LAZY_STRING_BYTES`). */
function lazyEntry(key: string, bytes: Uint8Array, start: number, end: number): KeyValue {
  const entry = { key } as KeyValue
  lazyValues.set(entry, { bytes, start, end })
  return Object.defineProperty(entry, 'value', LAZY_VALUE)
}

export function readKeyValues(c: ThriftCursor, what: string): KeyValue[] {
  const size = listOf(c, STRUCT, what)
  const out = listArray<KeyValue>(size)
  for (let i = 0; i < size; i++) {
    const start = c.offset
    let key = ''
    let hasKey = false
    let value: string | undefined
    let valueStart = 0
    let valueEnd = 0
    let fid = 0
    for (;;) {
      const wire = fieldHeader(c, fid, 'KeyValue')
      if (wire === 0) break
      fid = c.fieldId
      if (fid === 1 && wire === BINARY) {
        key = readString(c)
        hasKey = true
      } else if (fid === 2 && wire === BINARY) {
        const length = readBinaryLength(c)
        valueStart = c.offset
        c.offset += length
        value = length <= LAZY_STRING_BYTES ? utf8Slice(c.bytes, valueStart, c.offset) : undefined
        valueEnd = c.offset
      } else skip(c, wire)
    }
    if (!hasKey) missingField(c, 'KeyValue', KEY_VALUE_FIELDS, 0, start)
    out[i] = valueEnd - valueStart > LAZY_STRING_BYTES ? lazyEntry(key, c.bytes, valueStart, valueEnd) : { key, value }
  }
  return out
}
