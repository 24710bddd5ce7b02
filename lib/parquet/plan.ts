/**
 * The state of one footer decode: the `Plan` (what was asked for, and what the schema
 * taught), the index tables reused across decodes (`Scratch`), and the table of lists
 * that repeat in every column chunk and are decoded once (`interned`).
 */
import { CodecError } from '../errors.js'
import { FORMAT, listArray, ThriftCursor } from './thrift.js'
import type { MetadataOptions } from './types.js'

// ---------------------------------------------------------------------------------
// Decoding state

/** What a decode was asked for, and what it learned from the schema. */
export interface Plan {
  /** Decode statistics, size and geospatial statistics. */
  statistics: boolean
  /** Requested leaf paths as UTF-8 bytes (dotted), or null for all columns. */
  columns: number[][] | null
  /** The requested paths as given, for messages. */
  columnNames: string[]
  /** Requested row group indexes, or null for all. */
  rowGroups: Set<number> | null
  /**
   * Set once the schema is decoded: 1 per selected leaf (file leaf order; entries past
   * `leafCount` are stale), or null for all.
   */
  wanted: Uint8Array | null
  /**
   * Set once the schema is decoded: the path of every leaf (file leaf order), or with
   * `columns` of every selected leaf (selection order: the k-th selected leaf is k).
   */
  leafPaths: (readonly string[])[]
  /** Schema element index of each path segment of path k: leafSegments[leafSegmentStart[k] ..]. */
  leafSegments: number[]
  leafSegmentStart: number[]
  /** Byte range of each schema element's name in the footer, by element index. */
  nameStart: Int32Array
  nameEnd: Int32Array
  /** Number of leaves in the file's schema; -1 until the schema is seen. */
  leafCount: number
  /** Row groups were decoded before the schema (field order is free in Thrift). */
  rowGroupsBeforeSchema: boolean
  /** Lists decoded once and shared by every chunk with the same bytes (see `interned`). */
  interned: InternTable
  /** Index tables of this decode (see `Scratch`). */
  scratch: Scratch
  /**
   * Byte ranges of the last `encodings` and `encoding_stats` lists that
   * `skipColumnChunk` walked (start === end: none yet).
   */
  skippedEncodingsStart: number
  skippedEncodingsEnd: number
  skippedStatsStart: number
  skippedStatsEnd: number
}

/**
 * Index tables reused from one decode to the next. A typed array over 64 bytes gets a
 * backing store allocated outside the JS heap, and a handful of them cost more than
 * scanning a 100-column schema. Decoding is synchronous and no decoded object keeps
 * these, so one set serves every decode (a nested decode would get its own). Tables
 * grown past `SCRATCH_KEEP` entries are held only weakly after the decode rather than
 * pinning megabytes after one very wide file: the next wide decode reuses them unless a
 * collection took them first (allocating and first touching 2.7 MB of fresh tables
 * cost a selective decode of 100,000 columns a fifth of its time). Contents are stale:
 * users zero what they need.
 */
class Scratch {
  /** Entries each table holds. */
  capacity = 0
  /** Per schema element: where its struct starts, and its name's byte range. */
  elementStart = EMPTY_INT32
  nameStart = EMPTY_INT32
  nameEnd = EMPTY_INT32
  /** Per schema element (`columns` option): num_children, parent, kept children. */
  children = EMPTY_INT32
  parent = EMPTY_INT32
  keptChildren = EMPTY_INT32
  /** Per schema element: 1 has a physical type, 2 has num_children. */
  flags = EMPTY_UINT8
  /** Per schema element: kept in the pruned schema. */
  kept = EMPTY_UINT8
  /** Per leaf: selected. */
  wanted = EMPTY_UINT8
  /** Name prefilter of `scanSchema`, indexed by `filterKey`. */
  readonly filter = new Uint8Array(4096)
  /** Shared lists (see `interned`); emptied after each decode, so nothing decoded is kept. */
  readonly interned = makeInternTable()

  /** Forgets the lists of the decode that ended. */
  release(): void {
    const table = this.interned
    table.value.fill(undefined)
    table.last.fill(0)
    table.next.fill(0)
  }

  /** Makes every table hold at least `n` entries. */
  reserve(n: number): void {
    if (n <= this.capacity) return
    const capacity = Math.max(n, this.capacity * 2, 256)
    this.capacity = capacity
    this.elementStart = new Int32Array(capacity)
    this.nameStart = new Int32Array(capacity)
    this.nameEnd = new Int32Array(capacity)
    this.children = new Int32Array(capacity)
    this.parent = new Int32Array(capacity)
    this.keptChildren = new Int32Array(capacity)
    this.flags = new Uint8Array(capacity)
    this.kept = new Uint8Array(capacity)
    this.wanted = new Uint8Array(capacity)
  }
}

const EMPTY_INT32 = new Int32Array(0)
const EMPTY_UINT8 = new Uint8Array(0)
const SCRATCH_KEEP = 1 << 14
/** The idle scratch tables, or null while a decode uses them. */
let idleScratch: Scratch | null = null
/** Idle tables grown past `SCRATCH_KEEP`, held weakly (null while a decode uses them). */
let wideScratch: WeakRef<Scratch> | null = null

/** Scratch tables for one decode: the idle ones (the wide ones first), or new ones. */
export function takeScratch(): Scratch {
  const wide = wideScratch?.deref()
  wideScratch = null
  if (wide !== undefined) return wide
  const idle = idleScratch ?? new Scratch()
  idleScratch = null
  return idle
}

/** Makes `scratch` the idle tables again, once its decode is done. */
export function returnScratch(scratch: Scratch): void {
  scratch.release()
  if (scratch.capacity <= SCRATCH_KEEP) idleScratch = scratch
  else wideScratch = new WeakRef(scratch)
}

/**
 * Decoded lists shared by every chunk whose list has the same encoded bytes.
 * `encodings` and `encoding_stats` repeat a few byte strings in every column chunk of
 * a wide file; comparing a few bytes costs much less than allocating the arrays and
 * objects again. A compact-protocol value is self-delimiting, so when the bytes at the
 * cursor start with the complete encoding of a list decoded before, decoding would
 * read exactly those bytes and give an equal list: no need to find the end first.
 * Up to `INTERN_ENTRIES` lists per kind are kept (most files have one to four).
 * Shared values are read-only by contract (see types.ts).
 */
interface InternTable {
  /** Byte range in the footer of entry `kind * INTERN_ENTRIES + i`. */
  start: Int32Array
  end: Int32Array
  /** Decoded value of each entry (undefined: free). */
  value: unknown[]
  /** Per kind: the entry that matched last (tried first), and the next one to replace. */
  last: Int32Array
  next: Int32Array
}

const INTERN_ENTRIES = 8 // per kind; 2 kinds

function makeInternTable(): InternTable {
  return {
    start: new Int32Array(INTERN_ENTRIES * 2),
    end: new Int32Array(INTERN_ENTRIES * 2),
    value: [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined,
      undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined],
    last: new Int32Array(2),
    next: new Int32Array(2),
  }
}

/** Whether the bytes at `at` start with `bytes[start, end)`. */
export function startsWith(bytes: Uint8Array, at: number, start: number, end: number): boolean {
  const n = end - start
  if (at + n > bytes.length) return false
  for (let i = 0; i < n; i++) if (bytes[at + i] !== bytes[start + i]) return false
  return true
}

/**
 * The shared value for the list at the cursor when one with the same bytes was
 * decoded before (the cursor then moves past it); otherwise undefined, cursor unmoved.
 */
export function interned(c: ThriftCursor, table: InternTable, kind: number): unknown {
  const at = c.offset
  const bytes = c.bytes
  const last = table.last[kind]!
  const value = table.value[last]
  if (value === undefined) return undefined
  const start = table.start
  const end = table.end
  if (startsWith(bytes, at, start[last]!, end[last]!)) {
    c.offset = at + end[last]! - start[last]!
    return value
  }
  const first = kind * INTERN_ENTRIES
  for (let i = first; i < first + INTERN_ENTRIES; i++) {
    const v = table.value[i]
    if (v === undefined) break
    if (i !== last && startsWith(bytes, at, start[i]!, end[i]!)) {
      table.last[kind] = i
      c.offset = at + end[i]! - start[i]!
      return v
    }
  }
  return undefined
}

/** Records the value decoded from the list at [start, c.offset). */
export function intern(c: ThriftCursor, table: InternTable, kind: number, start: number, value: unknown): void {
  const i = kind * INTERN_ENTRIES + table.next[kind]!
  table.next[kind] = (table.next[kind]! + 1) % INTERN_ENTRIES
  table.start[i] = start
  table.end[i] = c.offset
  table.value[i] = value
  table.last[kind] = i
}

/** UTF-8 bytes of `text` as numbers (paths are short: no encoder call for ASCII). */
function utf8Bytes(text: string): number[] {
  const out = listArray<number>(text.length)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x80) return Array.from(new TextEncoder().encode(text))
    out[i] = code
  }
  return out
}

export function makePlan(options: MetadataOptions | undefined, scratch: Scratch): Plan {
  let columns: number[][] | null = null
  const columnNames: string[] = []
  let rowGroups: Set<number> | null = null
  let statistics = true
  if (options !== undefined) {
    if (options === null || typeof options !== 'object') {
      throw new CodecError('INVALID_OPTION', FORMAT, 'options must be an object')
    }
    if (options.columns !== undefined) {
      if (!Array.isArray(options.columns)) throw new CodecError('INVALID_OPTION', FORMAT, 'columns must be an array of paths')
      columns = []
      const paths = options.columns as unknown[]
      for (let i = 0; i < paths.length; i++) {
        const path = paths[i]
        let dotted: string
        if (typeof path === 'string') dotted = path
        else if (Array.isArray(path) && path.length > 0 && path.every((s) => typeof s === 'string')) dotted = path.join('.')
        else throw new CodecError('INVALID_OPTION', FORMAT, `column path ${String(path)} is not a string or an array of strings`)
        if (dotted === '') throw new CodecError('INVALID_OPTION', FORMAT, 'column path is empty')
        if (columnNames.includes(dotted)) continue
        columnNames.push(dotted)
        columns.push(utf8Bytes(dotted))
      }
    }
    if (options.rowGroups !== undefined) {
      if (!Array.isArray(options.rowGroups)) throw new CodecError('INVALID_OPTION', FORMAT, 'rowGroups must be an array of indexes')
      rowGroups = new Set()
      for (const index of options.rowGroups as unknown[]) {
        if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
          throw new CodecError('INVALID_OPTION', FORMAT, `row group index ${String(index)} is not a non-negative integer`)
        }
        rowGroups.add(index)
      }
    }
    if (options.statistics !== undefined) {
      if (typeof options.statistics !== 'boolean') throw new CodecError('INVALID_OPTION', FORMAT, 'statistics must be a boolean')
      statistics = options.statistics
    }
  }
  return {
    statistics,
    columns,
    columnNames,
    rowGroups,
    wanted: null,
    leafPaths: [],
    leafSegments: [],
    leafSegmentStart: [],
    nameStart: EMPTY_INT32,
    nameEnd: EMPTY_INT32,
    leafCount: -1,
    rowGroupsBeforeSchema: false,
    interned: scratch.interned,
    scratch,
    skippedEncodingsStart: 0,
    skippedEncodingsEnd: 0,
    skippedStatsStart: 0,
    skippedStatsEnd: 0,
  }
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length
  if (n !== b.length) return false
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false
  return true
}
