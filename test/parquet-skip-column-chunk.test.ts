// `skipColumnChunk` (lib/parquet/column-chunk.ts), the hand-written skip over the column
// chunks a selective decode does not keep, accepts exactly the bytes `skipStruct` (the
// generic Thrift walk) accepts, and ends where it ends: on every column chunk of every
// footer of parquet-testing, and on those chunks mutated (bit flips, truncations,
// insertions, deletions, swapped halves, junk), walked in file order with one plan, so
// that its memory of the last `encodings` and `encoding_stats` lists is exercised as a
// decode exercises it; and on chunks nested up to the depth limit.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import { CodecError } from '../lib/errors.js'
import { skipColumnChunk } from '../lib/parquet/column-chunk.js'
import { makePlan, returnScratch, takeScratch } from '../lib/parquet/plan.js'
import { CompactType, MAX_DEPTH, readFieldHeader, readListHeader, skip, skipStruct, ThriftCursor } from '../lib/parquet/thrift.js'
import { basicMutations } from './_mutations.js'
import { concatBytes } from './_bytes.js'
import { fixture } from './_fixtures.js'

const { LIST, STRUCT } = CompactType
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)

/** A footer and where each of its column chunks starts and ends (found by `skipStruct`). */
interface Footer {
  name: string
  bytes: Uint8Array
  chunks: Array<[start: number, end: number]>
}

/** The footer of a Parquet file (not encrypted), or null. */
function footerOf(file: Uint8Array): Uint8Array | null {
  const n = file.length
  if (n < 12 || String.fromCharCode(...file.subarray(n - 4)) !== 'PAR1') return null
  const length = new DataView(file.buffer, file.byteOffset + n - 8, 4).getUint32(0, true)
  return length + 8 <= n ? file.subarray(n - 8 - length, n - 8) : null
}

/** Calls `take` with each field of the struct at `c`; the fields it does not take (false) are skipped. */
function eachField(c: ThriftCursor, take: (fid: number, wire: number) => boolean): void {
  for (let fid = 0, wire = readFieldHeader(c, 0); wire !== 0; wire = readFieldHeader(c, fid)) {
    fid = c.fieldId
    if (!take(fid, wire)) skip(c, wire)
  }
}

/** FileMetaData.row_groups (4) -> RowGroup.columns (1): each ColumnChunk's byte range. */
function chunksOf(footer: Uint8Array): Array<[number, number]> {
  const out: Array<[number, number]> = []
  const c = new ThriftCursor(footer)
  eachField(c, (fid, wire) => {
    if (fid !== 4 || wire !== LIST) return false
    for (let g = readListHeader(c); g > 0; g--) {
      eachField(c, (gid, w) => {
        if (gid !== 1 || w !== LIST) return false
        for (let k = readListHeader(c); k > 0; k--) {
          const start = c.offset
          skipStruct(c)
          out.push([start, c.offset])
        }
        return true
      })
    }
    return true
  })
  return out
}

const footers: Footer[] = []
const dir = fixture('parquet-testing')
function collect(folder: string): void {
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) collect(path)
    else if (name.endsWith('.parquet')) {
      const bytes = footerOf(new Uint8Array(readFileSync(path)))
      if (!bytes) continue
      try {
        const chunks = chunksOf(bytes)
        if (chunks.length > 0) footers.push({ name: path.slice(dir!.length + 1), bytes, chunks })
      } catch (error) {
        if (!(error instanceof CodecError)) throw error // bad_data/: footers that do not walk
      }
    }
  }
}
if (dir) {
  try {
    collect(dir)
  } catch {
    // unreadable: reported as absent below
  }
}

/** `ok <end>` or `error`: what a skip made of the struct at `at`. */
function outcome(skipper: (c: ThriftCursor) => void, bytes: Uint8Array, at: number): string {
  const c = new ThriftCursor(bytes, at)
  try {
    skipper(c)
    return `ok ${c.offset}`
  } catch (error) {
    if (!(error instanceof CodecError)) throw error
    return 'error'
  }
}

/**
 * Walks the chunks at `starts` of `bytes` in order with one plan, as a selective decode
 * does, checking each against `skipStruct`; returns how many were rejected.
 */
function walkAndCompare(what: string, bytes: Uint8Array, starts: readonly number[]): number {
  const scratch = takeScratch()
  const plan = makePlan(undefined, scratch)
  let rejected = 0
  try {
    for (const at of starts) {
      const generic = outcome(skipStruct, bytes, at)
      const fast = outcome((c) => skipColumnChunk(c, plan), bytes, at)
      assert.is(fast, generic, `${what}: the chunk at ${at}`)
      if (generic === 'error') rejected++
    }
  } finally {
    returnScratch(scratch)
  }
  return rejected
}

if (!dir || footers.length === 0) {
  console.log(`# skipped: parquet-testing fixtures not found (${dir ?? 'no ../shared/fixtures'})`)
  test.skip('parquet-testing footers', () => {})
} else {
  test(`every column chunk of ${footers.length} parquet-testing footers: skipColumnChunk ends where skipStruct ends`, () => {
    let chunks = 0
    for (const f of footers) {
      assert.is(walkAndCompare(f.name, f.bytes, f.chunks.map(([start]) => start)), 0, f.name)
      chunks += f.chunks.length
    }
    console.log(`# ${chunks} column chunks`)
  })

  test(`mutated column chunks (${RUNS} cases): skipColumnChunk accepts and rejects what skipStruct does`, () => {
    let rejected = 0
    let compared = 0
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.array(fc.oneof(...basicMutations), { minLength: 1, maxLength: 3 }), (fi, ci, mutations) => {
        const f = footers[fi % footers.length]!
        const k = ci % f.chunks.length
        const [start, end] = f.chunks[k]!
        let chunk = f.bytes.subarray(start, end)
        for (const m of mutations) chunk = m.apply(chunk)
        const bytes = concatBytes([f.bytes.subarray(0, start), chunk, f.bytes.subarray(end)])
        // The chunks before it (unchanged, so the plan remembers their lists), the mutated
        // one, and the one after it where it now starts.
        const shift = chunk.length - (end - start)
        const starts = f.chunks.slice(0, k + 1).map(([s]) => s)
        if (k + 1 < f.chunks.length) starts.push(f.chunks[k + 1]![0] + shift)
        rejected += walkAndCompare(`${f.name}, chunk ${k}, ${mutations.map((m) => m.kind).join(' + ')}`, bytes, starts)
        compared += starts.length
        return true
      }),
      { numRuns: RUNS, seed: 0x29c0 },
    )
    console.log(`# ${compared} chunks compared, ${rejected} rejected by both`)
    assert.ok(rejected > RUNS / 20, `only ${rejected} mutated chunks were invalid`)
  })

  test('a column chunk holding structs nested up to the depth limit and past it: both skips agree', () => {
    // ColumnChunk { 3: ColumnMetaData { 99: struct { 1: struct { ... } } } }: the depth
    // limit (MAX_DEPTH) counts the chunk and its metadata as skipStruct does.
    const f = footers.find((f) => metaDataOf(f.bytes.subarray(...f.chunks[0]!)) >= 0)
    assert.ok(f, 'a footer whose first chunk has meta_data')
    const original = f.bytes.subarray(...f.chunks[0]!)
    const metaAt = metaDataOf(original)
    const seen = new Set<string>()
    for (let depth = MAX_DEPTH - 4; depth <= MAX_DEPTH + 1; depth++) {
      // Field 99 of ColumnMetaData (long form: type byte, then the id as a zigzag varint).
      const nested = [0x0c, 0xc6, 0x01, ...new Array<number>(depth - 1).fill(0x1c), ...new Array<number>(depth).fill(0)]
      const chunk = concatBytes([original.subarray(0, metaAt), Uint8Array.from(nested), original.subarray(metaAt)])
      const generic = outcome(skipStruct, chunk, 0)
      const plan = makePlan(undefined, takeScratch())
      const fast = outcome((c) => skipColumnChunk(c, plan), chunk, 0)
      assert.is(fast, generic, `nested ${depth} deep`)
      returnScratch(plan.scratch)
      seen.add(generic === 'error' ? 'error' : 'ok')
    }
    assert.equal([...seen].sort(), ['error', 'ok'], 'depths on both sides of the limit')
  })
}

/** Where the fields of ColumnChunk.meta_data (field 3) start in `chunk`, or -1. */
function metaDataOf(chunk: Uint8Array): number {
  const c = new ThriftCursor(chunk)
  let at = -1
  eachField(c, (fid, wire) => {
    if (fid === 3 && wire === STRUCT && at < 0) at = c.offset
    return false
  })
  return at
}

test.run()
