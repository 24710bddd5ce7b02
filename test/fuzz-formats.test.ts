// Property-based fuzzing of the decoders test/fuzz.test.ts does not cover (fast-check,
// fixed seeds): the raw LZ4 block decoder (`lz4-block`, every engine that loads), the
// Arrow IPC reader (`readArrow`, `arrowDecode`) and the Parquet footer decoder
// (`decodeFileMetaData`, `parquetMetadataSync`, `parquetMetadata`).
//
// Every outcome must be a result or a CodecError of the decoder's format: never another
// exception (RangeError, TypeError from inside), never a hang (inputs are a few KiB by
// construction, so every case is bounded), never a write outside the destination, and
// never silently different data where the format carries a checksum of it.
//
// FUZZ_RUNS sets the cases per decoder (default 10,000, what CI runs).
// Soak locally with e.g. FUZZ_RUNS=200000 node --import tsx test/fuzz-formats.test.ts
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import { basicMutations, plainData as plain, type Mutation } from './_mutations.js'
import {
  Bool, CompressionType, Dictionary, Field, Float64, Int32, Int64, List, Map_, RecordBatchFileWriter, RecordBatchStreamWriter,
  Struct, Table, tableToIPC, MapRow, Utf8, Vector, vectorFromArray, type RecordBatch,
} from 'apache-arrow'
import * as parquetWasm from 'parquet-wasm/node'
import { CodecError } from '../lib/errors.js'
import { Machine } from '../lib/machine.js'
import { Status } from '../lib/status.js'
import { loadCodec, type CodecModule, type Engine } from '../lib/registry.js'
import { readMessage } from '../lib/arrow/metadata.js'
import { readInt64 } from '../lib/arrow/body.js'
import { arrowDecode, arrowEncode, arrowEncodeFile, readArrow, registerArrowCodecs } from '../adapters/arrow/index.js'
import { decodeFileMetaData, parquetMetadata, parquetMetadataSync, type FileMetaData } from '../lib/parquet/index.js'
import { fixture } from './_fixtures.js'
import { collect, normalize } from './arrow-oracle.js'
import { concatBytes as concat } from './_bytes.js'
import { runMachine } from './_machine.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)
/** Cases per decoder, split over its properties by these shares. */
const share = (fraction: number) => Math.max(1, Math.round(RUNS * fraction))

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i])

function tally(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1
}

const show = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')

/** What went wrong in a case, for the failure message: the exception with its stack. */
function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : `non-Error thrown: ${String(e)}`
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

// --- Inputs and mutations (as test/fuzz.test.ts, plus hostile length fields) ------


/**
 * Values a hostile writer puts in length and offset fields: around 0, the int32 and
 * uint32 limits, the largest typed array, 2^53, and negatives.
 */
const HOSTILE = [
  0, 1, 2, 7, 8, 255, 256, 65535, 65536, 0x7ffffff8, 0x7fffffff, 0x80000000, 0xfffffff8, 0xffffffff, 2 ** 32, 2 ** 40, 2 ** 53 - 1, 2 ** 53,
  2 ** 62, -1, -2, -8, -(2 ** 31), -(2 ** 63),
]

function patchInt(b: Uint8Array, at: number, value: number, width: 4 | 8): Uint8Array {
  const c = b.slice()
  if (c.length < width) return c
  const i = Math.min(at, c.length - width)
  const v = new DataView(c.buffer, c.byteOffset, c.byteLength)
  if (width === 4) v.setUint32(i, value >>> 0, true)
  else v.setBigInt64(i, BigInt.asIntN(64, BigInt(value)), true)
  return c
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  ...basicMutations,
  // A hostile int32/int64 at a random offset, or a few bytes after a structural anchor
  // (the start of an Arrow message, a Parquet list header), where length fields live.
  fc.tuple(fc.nat(), fc.constantFrom(...HOSTILE), fc.constantFrom(4 as const, 8 as const), fc.nat(), fc.integer({ min: 0, max: 63 })).map(
    ([at, value, width, anchor, delta]) => ({
      kind: `hostile int${width * 8}`,
      apply: (b: Uint8Array, anchors?: readonly number[]) => {
        if (!b.length) return b
        const pos = anchors && anchors.length && anchor % 2 === 0 ? anchors[anchor % anchors.length]! + delta : at % b.length
        return patchInt(b, pos % b.length, value, width)
      },
    }),
  ),
)

/** 1 to 4 mutations applied in turn. */
const mutations = fc.array(mutation, { minLength: 1, maxLength: 4 })
const kindOf = (ms: Mutation[]) => (ms.length === 1 ? ms[0]!.kind : `${ms.length} mutations`)
const applyAll = (ms: Mutation[], b: Uint8Array, anchors?: readonly number[]) => ms.reduce((x, m) => m.apply(x, anchors), b)

// =================================================================================
// LZ4 block
// =================================================================================

function lz4BlockEncode(mod: CodecModule, data: Uint8Array): Uint8Array {
  const m = new Machine(mod.createEncoder({}), { format: 'lz4-block', mode: 'encode', blockSize: 1 << 16, maxOutputBytes: Infinity, concatenated: false })
  const parts: Uint8Array[] = []
  try {
    m.push(data)
    m.end()
    for (let c = m.next(); c; c = m.next()) parts.push(c.slice())
  } finally {
    m.dispose()
  }
  return concat(parts)
}

const GUARD = 24
const SENTINEL = 0xa5

/**
 * Decodes `block` with `outputSize` through the span decoder into a destination of
 * `room` bytes per call (0: one destination of outputSize + 40 bytes, the direct path),
 * each destination a view with guard bytes on both sides in its buffer. Returns the
 * output or the CodecError; throws (failing the property) on any other exception, a
 * write outside the destination, or past `outputSize` on the direct path.
 */
function lz4BlockDecode(mod: CodecModule, block: Uint8Array, outputSize: number, room: number): Uint8Array | CodecError {
  const d = mod.createDecoder({ outputSize })
  try {
    const parts: Uint8Array[] = []
    let pos = 0
    for (let call = 0; ; call++) {
      if (call > outputSize + 8) throw new Error(`lz4-block: no progress after ${call} calls (outputSize ${outputSize}, room ${room})`)
      const size = room === 0 ? outputSize + 40 : room
      const mem = new Uint8Array(GUARD + size + GUARD).fill(SENTINEL)
      const dst = mem.subarray(GUARD, GUARD + size)
      const status = d.transform(block.subarray(pos), dst, true)
      for (let i = 0; i < GUARD; i++) {
        if (mem[i] !== SENTINEL || mem[GUARD + size + i] !== SENTINEL) throw new Error(`lz4-block wrote outside its destination (byte ${i < GUARD && mem[i] !== SENTINEL ? i - GUARD : size + i})`)
      }
      if (room === 0) {
        // decodeBlock's "wild copies" stop at dstEnd = outputSize: the rest is untouched.
        for (let i = outputSize; i < size; i++) if (dst[i] !== SENTINEL) throw new Error(`lz4-block wrote past outputSize ${outputSize} (at ${i})`)
      }
      if (d.consumed < 0 || d.consumed > block.length - pos || d.written < 0 || d.written > size) {
        throw new Error(`lz4-block: consumed ${d.consumed} / written ${d.written} out of range`)
      }
      pos += d.consumed
      parts.push(dst.slice(0, d.written))
      if (status === Status.Done) return concat(parts)
      if (status === Status.InvalidData) {
        const f = d.failure
        if (!f) throw new Error('lz4-block: InvalidData without a failure')
        return new CodecError(f.code, 'lz4-block', f.message, f.offset)
      }
      if (status !== Status.DestinationTooSmall) throw new Error(`lz4-block: status ${status} on the final input`)
    }
  } finally {
    d.dispose()
  }
}

/** Through the stream driver, as the one-shot helpers and streams use it. */
function lz4BlockMachine(mod: CodecModule, block: Uint8Array, outputSize: number, split: number): Uint8Array | CodecError {
  const m = new Machine(mod.createDecoder({ outputSize }), { format: 'lz4-block', mode: 'decode', blockSize: 4096, maxOutputBytes: 1 << 20, concatenated: false })
  return runMachine(m, block, split)
}

/** Destination room per call: the direct path (0), tiny, or ordinary. */
const room = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 17, max: 4096 }))

for (const engine of ['js', 'wasm'] as Engine[]) {
  let mod: CodecModule | null = null
  let why = ''
  try {
    mod = await loadCodec('lz4-block', engine)
  } catch (e) {
    why = (e as Error).message.split('\n')[0]!
  }
  if (!mod) {
    console.log(`# skipped: fuzz lz4-block (${engine}): ${why}`)
    test.skip(`fuzz lz4-block (${engine})`, () => {})
    continue
  }
  const m = mod
  const label = `lz4-block (${engine})`
  const counts: Record<string, number> = {}
  let cases = 0

  test(`fuzz ${label}: mutated blocks, right and wrong outputSize: exact size or CodecError, no stray writes`, () => {
    fc.assert(
      fc.property(
        plain,
        fc.option(mutations, { freq: 5 }),
        fc.oneof(fc.constant(0), fc.integer({ min: -8, max: 8 }), fc.integer({ min: -400, max: 2000 })),
        room,
        fc.integer({ min: 1, max: 64 }),
        (data, muts, sizeDelta, dstRoom, split) => {
          cases++
          const block = lz4BlockEncode(m, data)
          const bad = muts ? applyAll(muts, block) : block
          const outputSize = Math.max(0, data.length + sizeDelta)
          // A quarter of the cases go through the stream driver (Machine) in chunks of `split`.
          const r = split % 4 === 0 ? lz4BlockMachine(m, bad, outputSize, split) : lz4BlockDecode(m, bad, outputSize, dstRoom)
          const key = `${muts ? kindOf(muts) : 'intact'}, ${outputSize === data.length ? 'right' : 'wrong'} size`
          if (r instanceof CodecError) {
            tally(counts, 'CodecError')
            return r.format === 'lz4-block'
          }
          // A success always has exactly outputSize bytes.
          if (r.length !== outputSize) throw new Error(`${key}: decoded ${r.length} bytes, outputSize ${outputSize}`)
          if (same(r, data)) {
            tally(counts, 'original')
            // The intact block with a wrong outputSize must never succeed.
            return muts !== null || outputSize === data.length
          }
          // Different bytes without an error: the block format has no checksum, so a
          // mutated block may decode to other bytes of the right size; the intact one never.
          tally(counts, 'different without error (no checksum in the block format)')
          return muts !== null
        },
      ),
      { includeErrorInReport: true, numRuns: share(0.7), seed: 0x1b10c },
    )
  })

  test(`fuzz ${label}: random bytes with random outputSize`, () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.integer({ min: 0, max: 4096 }), room, (block, outputSize, dstRoom) => {
        cases++
        const r = lz4BlockDecode(m, block, outputSize, dstRoom)
        tally(counts, r instanceof CodecError ? 'CodecError' : 'random block decoded')
        return r instanceof CodecError ? r.format === 'lz4-block' : r.length === outputSize
      }),
      { includeErrorInReport: true, numRuns: share(0.2), seed: 0xb10c },
    )
  })

  test(`fuzz ${label}: round trip through our lz4-block encoder`, () => {
    fc.assert(
      fc.property(plain, room, (data, dstRoom) => {
        cases++
        const r = lz4BlockDecode(m, lz4BlockEncode(m, data), data.length, dstRoom)
        tally(counts, 'round trip')
        return !(r instanceof CodecError) && same(r, data)
      }),
      { includeErrorInReport: true, numRuns: share(0.1), seed: 0x1d4 },
    )
    console.log(`# fuzz ${label}: ${cases} cases: ${show(counts)}`)
    assert.ok(cases >= RUNS)
    assert.ok((counts.CodecError ?? 0) > 0)
  })
}

// =================================================================================
// Arrow IPC
// =================================================================================

await registerArrowCodecs()

interface ArrowCase {
  name: string
  bytes: Uint8Array
  /**
   * Absolute [start, end) of each compressed frame (8-byte prefix + payload), and
   * whether the frame carries a content checksum.
   */
  frames: [number, number, boolean][]
  /** Absolute starts of the messages (their prefixes). */
  anchors: number[]
  /** Normalized values of the table as read intact. */
  values: string
}

function arrowTable(rows: number, seed: number): Table {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon']
  return new Table({
    i: vectorFromArray(Array.from({ length: rows }, (_, k) => (k % 7 === 3 ? null : (k * 31 + seed) % 1000)), new Int32()),
    big: vectorFromArray(Array.from({ length: rows }, (_, k) => BigInt(k * 1_000_003 - seed)), new Int64()),
    f: vectorFromArray(Array.from({ length: rows }, (_, k) => (k % 5 === 0 ? null : k / 4)), new Float64()),
    s: vectorFromArray(Array.from({ length: rows }, (_, k) => (k % 6 === 1 ? null : `${words[k % 5]}-${k % 9}`)), new Utf8()),
    b: vectorFromArray(Array.from({ length: rows }, (_, k) => k % 3 === 0), new Bool()),
    d: vectorFromArray(Array.from({ length: rows }, (_, k) => (k % 8 === 7 ? null : words[(k + seed) % 5]!)), new Dictionary(new Utf8(), new Int32(), 0)),
    l: vectorFromArray(Array.from({ length: rows }, (_, k) => (k % 9 === 4 ? null : Array.from({ length: k % 4 }, (_, j) => j + k))), new List(new Field('item', new Int32(), true))),
    st: vectorFromArray(
      Array.from({ length: rows }, (_, k) => (k % 10 === 2 ? null : { x: k % 13, y: words[k % 5]! })),
      new Struct([new Field('x', new Int32(), true), new Field('y', new Utf8(), true)]),
    ),
    m: vectorFromArray(
      Array.from({ length: rows }, (_, k) => new Map(Array.from({ length: k % 3 }, (_, j) => [`k${j}`, k + j] as [string, number]))),
      new Map_(new Field('entries', new Struct([new Field('key', new Utf8(), false), new Field('value', new Int32(), true)]), false) as never),
    ),
  })
}

/**
 * A value normalized with at most `BOUND` elements per nested list, map or vector: at
 * the default validation level offsets are checked at their ends only, so one list in
 * the middle may claim up to 2^31 elements (docs/arrow.md, "Validation").
 */
const BOUND = 64
function bounded(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || v instanceof Date) return normalize(v)
  // Map rows are proxies whose every property lookup (even Vector's Symbol.hasInstance
  // probe) lists all keys, and a map row may claim 2^31 of them: only iterate those.
  if (!(v instanceof MapRow) && v instanceof Vector) return Array.from({ length: Math.max(0, Math.min(v.length, BOUND)) }, (_, i) => bounded(v.get(i)))
  if (Array.isArray(v)) return v.map(bounded)
  const out: unknown[] = []
  for (const x of v as Iterable<unknown>) {
    if (out.length >= BOUND) break
    out.push(bounded(x))
  }
  return out
}

/**
 * Every value of every batch, normalized: reading the table must not throw. `loose`
 * (data read at the default validation level) bounds nested values (see `bounded`).
 */
function valuesOf(batches: readonly RecordBatch[], loose = false): string {
  const out: unknown[] = []
  for (const b of batches) {
    for (let c = 0; c < b.numCols; c++) {
      const col = b.getChildAt(c)!
      const n = Math.min(col.length, 1 << 16) // a hostile Null column may claim 2^31 rows
      for (let i = 0; i < n; i++) {
        try {
          out.push(loose ? bounded(col.get(i)) : normalize(col.get(i)))
        } catch (e) {
          // apache-arrow's own getters throw for valid int64 date/time values past 2^53
          // (util/bigint.ts bigIntToNumber): a limit of its presentation, not of the
          // reader; keep the raw value's place.
          if (e instanceof TypeError && /is not safe to convert to a number/.test(e.message)) out.push('unsafe int64')
          // At the default level a corrupt value's getter may throw apache-arrow's own
          // error (a view naming a missing variadic buffer, a list whose offsets point
          // past its child): docs/arrow.md, "Validation". The reader is done by then.
          else if (loose && e instanceof Error && !(e instanceof CodecError)) {
            out.push(`getter threw ${e.name}`)
            tally(arrowCounts, `default level: a getter threw ${e.name}`)
          } else throw e
        }
      }
    }
  }
  return JSON.stringify(out)
}

/**
 * Whether the frame at `at` declares a content checksum: bit 2 of byte 4 in both an
 * LZ4 frame (FLG, after the magic 04 22 4D 18; lz4_Frame_format.md) and a zstd frame
 * (Frame_Header_Descriptor, after 28 B5 2F FD; RFC 8878 3.1.1.1.1).
 */
function hasContentChecksum(bytes: Uint8Array, at: number): boolean {
  const lz4 = bytes[at] === 0x04 && bytes[at + 1] === 0x22 && bytes[at + 2] === 0x4d && bytes[at + 3] === 0x18
  const zstd = bytes[at] === 0x28 && bytes[at + 1] === 0xb5 && bytes[at + 2] === 0x2f && bytes[at + 3] === 0xfd
  return (lz4 || zstd) && (bytes[at + 4]! & 0x04) !== 0
}

/** Walks the messages of a stream (or a file's embedded stream): message starts and compressed frames. */
function arrowLayout(bytes: Uint8Array): { anchors: number[]; frames: [number, number, boolean][] } {
  const anchors: number[] = []
  const frames: [number, number, boolean][] = []
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let pos = bytes[0] === 0x41 ? 8 : 0 // "ARROW1" + 2 padding bytes
  while (pos + 8 <= bytes.length) {
    anchors.push(pos)
    let metaStart = pos + 4
    let len = view.getInt32(pos, true)
    if (len === -1) {
      len = view.getInt32(pos + 4, true)
      metaStart += 4
    }
    if (len === 0) break
    const message = readMessage(bytes.subarray(metaStart, metaStart + len), metaStart)
    const body = metaStart + len
    const batch = message.batch
    if (batch && batch.compression >= 0) {
      batch.bufferOffsets.forEach((off, i) => {
        const n = batch.bufferLengths[i]!
        if (n > 8 && readInt64(bytes, body + off) >= 0) frames.push([body + off, body + off + n, hasContentChecksum(bytes, body + off + 8)])
      })
    }
    pos = body + message.bodyLength
  }
  return { anchors, frames }
}

async function encodeOurs(t: Table, compression: 'lz4' | 'zstd' | null): Promise<Uint8Array> {
  const source = new ReadableStream<Table>({ start(c) { c.enqueue(t); c.close() } })
  return concat(await collect(source.pipeThrough(arrowEncode({ compression }))))
}

const arrowCases: ArrowCase[] = []
{
  const small = arrowTable(12, 1)
  const whole = arrowTable(70, 2).batches[0]!
  // Two batches sharing one dictionary (the file format cannot store a replaced one).
  const two = new Table([whole.slice(0, 40), whole.slice(40)])
  const sources: [string, () => Promise<Uint8Array>][] = []
  for (const [tname, t] of [['12 rows', small], ['2 batches', two]] as const) {
    for (const comp of [null, 'lz4', 'zstd'] as const) {
      sources.push([`ours stream ${tname} ${comp ?? 'plain'}`, () => encodeOurs(t, comp)])
      sources.push([`ours file ${tname} ${comp ?? 'plain'}`, () => arrowEncodeFile(t, { compression: comp })])
    }
    for (const [cname, type] of [['plain', null], ['lz4', CompressionType.LZ4_FRAME], ['zstd', CompressionType.ZSTD]] as const) {
      sources.push([`apache-arrow stream ${tname} ${cname}`, async () => RecordBatchStreamWriter.writeAll(t, { compressionType: type } as never).toUint8Array(true)])
      sources.push([`apache-arrow file ${tname} ${cname}`, async () => RecordBatchFileWriter.writeAll(t, { compressionType: type } as never).toUint8Array(true)])
    }
  }
  const integration = fixture('arrow-testing', 'arrow-ipc-stream', 'integration')
  const picks = [
    'cpp-21.0.0/generated_primitive.stream', 'cpp-21.0.0/generated_nested.stream', 'cpp-21.0.0/generated_dictionary.arrow_file',
    'cpp-21.0.0/generated_union.stream', 'cpp-21.0.0/generated_binary_view.stream', 'cpp-21.0.0/generated_map.stream',
    'cpp-21.0.0/generated_nested_dictionary.stream', 'cpp-21.0.0/generated_datetime.arrow_file', '2.0.0-compression/generated_lz4.stream',
    '2.0.0-compression/generated_zstd.arrow_file', '2.0.0-compression/generated_uncompressible_lz4.stream',
    '1.0.0-littleendian/generated_decimal.stream', '1.0.0-littleendian/generated_interval.stream',
  ]
  let fixtureCount = 0
  if (integration) {
    for (const p of picks) {
      let bytes: Uint8Array
      try {
        bytes = new Uint8Array(readFileSync(join(integration, p)))
      } catch {
        continue
      }
      // Small inputs keep every case bounded; these are all under ~40 KiB.
      if (bytes.length > 48 * 1024) continue
      fixtureCount++
      sources.push([p, async () => bytes])
    }
  }
  if (!fixtureCount) console.log('# skipped: arrow-testing integration fixtures (../shared/fixtures/arrow-testing); fuzzing our and apache-arrow\'s own streams only')
  for (const [name, make] of sources) {
    const bytes = await make()
    const { anchors, frames } = arrowLayout(bytes)
    const values = valuesOf((await readArrow(bytes)).batches)
    arrowCases.push({ name, bytes, anchors, frames, values })
  }
}

type ArrowOutcome = { batches: RecordBatch[]; values: string } | CodecError
type Level = 'default' | 'full'

/**
 * Reads `bytes` from memory (readArrow) or through arrowDecode in chunks of the given
 * sizes (cycled), at validation level `validate`.
 */
async function readArrowCase(bytes: Uint8Array, via: 'memory' | 'stream', splits: number[], maxMessageBytes: number | undefined, validate: Level = 'full'): Promise<ArrowOutcome> {
  const options = { maxMessageBytes, validate }
  let batches: RecordBatch[]
  try {
    if (via === 'memory') {
      batches = (await readArrow(bytes, options)).batches
    } else {
      const chunks: Uint8Array[] = []
      for (let at = 0, k = 0; at < bytes.length; k++) {
        const n = splits[k % splits.length]!
        chunks.push(bytes.slice(at, at + n))
        at += n
      }
      const source = new ReadableStream<Uint8Array>({ start(c) { for (const x of chunks) c.enqueue(x); c.close() } })
      batches = await collect(source.pipeThrough(arrowDecode(options)))
    }
  } catch (e) {
    if (e instanceof CodecError && e.format === 'arrow') return e
    throw e
  }
  // A result must be readable to the last value: the loader promised it checked every
  // length (and, with 'full', every offset and index), so reading cannot throw later.
  return { batches, values: valuesOf(batches, validate === 'default') }
}

const chunkSizes = fc.array(fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 17, max: 8192 })), { minLength: 1, maxLength: 6 })
// `maxMessageBytes: Infinity` has its own property below (it finds a RangeError).
const maxBytesOption = fc.constantFrom(undefined, 1 << 20)
const arrowCounts: Record<string, number> = {}
let arrowCaseCount = 0

/** Fails the property with the whole story when an outcome is not a result or an arrow CodecError. */
/**
 * Reads `bad` at both validation levels ('full' is what the property sees) and fails
 * with the whole story when an outcome is not a result or an arrow CodecError. The
 * levels must agree whenever 'full' reads: the default only skips checks. When 'full'
 * rejects, the default may read (the values are then what docs/arrow.md documents) or fail.
 */
async function arrowCheck(c: ArrowCase, bad: Uint8Array, via: 'memory' | 'stream', splits: number[], max: number | undefined, what: string): Promise<ArrowOutcome> {
  arrowCaseCount++
  const story = () => `${c.name}, ${what}, ${via}${via === 'stream' ? ` in chunks of ${splits.join('/')}` : ''}, maxMessageBytes ${max}`
  let full: ArrowOutcome
  let loose: ArrowOutcome
  try {
    full = await readArrowCase(bad, via, splits, max, 'full')
  } catch (e) {
    throw new Error(`${story()}, validate full: ${describe(e)}${bad.length <= 512 ? `\ninput: ${hex(bad)}` : ''}`)
  }
  try {
    loose = await readArrowCase(bad, via, splits, max, 'default')
  } catch (e) {
    throw new Error(`${story()}, validate default: ${describe(e)}${bad.length <= 512 ? `\ninput: ${hex(bad)}` : ''}`)
  }
  if (!(full instanceof CodecError)) {
    if (loose instanceof CodecError) throw new Error(`${story()}: validate full reads, the default fails with ${loose.code}: ${loose.message}`)
    if (valuesOf(loose.batches, true) !== valuesOf(full.batches, true)) throw new Error(`${story()}: the two validation levels read different values`)
  } else if (!(loose instanceof CodecError)) {
    tally(arrowCounts, 'full rejects, default reads')
  }
  return full
}

test(`fuzz arrow: mutated IPC streams and files (${arrowCases.length} sources) read or fail with a CodecError`, async () => {
  await fc.assert(
    fc.asyncProperty(fc.nat(), mutations, fc.constantFrom('memory' as const, 'stream' as const), chunkSizes, maxBytesOption, async (pick, muts, via, splits, max) => {
      const c = arrowCases[pick % arrowCases.length]!
      const bad = applyAll(muts, c.bytes, c.anchors)
      const r = await arrowCheck(c, bad, via, splits, max, kindOf(muts))
      tally(arrowCounts, r instanceof CodecError ? r.code : r.values === c.values ? 'read, same values' : 'read, other values')
      return true
    }),
    { includeErrorInReport: true, numRuns: share(0.75), seed: 0xa770 },
  )
})

test('fuzz arrow: corruption inside a checksummed compressed frame never gives silently different values', async () => {
  const compressed = arrowCases.filter((c) => c.frames.length > 0)
  assert.ok(compressed.length >= 4, `${compressed.length} sources with compressed frames`)
  let asserted = 0
  await fc.assert(
    fc.asyncProperty(fc.nat(), fc.nat(), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 3 }), fc.constantFrom('memory' as const, 'stream' as const), chunkSizes,
      async (pick, frame, edits, via, splits) => {
        const c = compressed[pick % compressed.length]!
        const [start, end, checksummed] = c.frames[frame % c.frames.length]!
        const bad = c.bytes.slice()
        for (const [at, x] of edits) bad[start + (at % (end - start))]! ^= x
        const r = await arrowCheck(c, bad, via, splits, undefined, `xor ${edits.map(([at, x]) => `${x}@${start + (at % (end - start))}`).join(',')}`)
        // LZ4 frames of ours (and of apache-arrow's writer through our registered
        // codecs) carry an XXH32 content checksum, zstd frames an XXH64 one. Arrow C++
        // writes frames without (the arrow-testing fixtures): damage there may read as
        // other values, as the format allows. A frame whose checksum flag the damage
        // itself cleared (zstd has no header checksum) is no longer checksummed either.
        const stillChecksummed = checksummed && hasContentChecksum(bad, start + 8)
        const kind = stillChecksummed ? 'checksummed' : checksummed ? 'checksum flag cleared' : 'unchecksummed'
        if (r instanceof CodecError) {
          tally(arrowCounts, `${kind} frame damage: ${r.code}`)
          return true
        }
        const sameValues = r.values === c.values
        tally(arrowCounts, `${kind} frame damage: read, ${sameValues ? 'same' : 'other'} values`)
        if (stillChecksummed) {
          asserted++
          if (!sameValues) throw new Error(`${c.name}: damage in the checksummed frame at [${start}, ${end}) read as different values without an error`)
        }
        return true
      }),
    { includeErrorInReport: true, numRuns: share(0.15), seed: 0xc0de },
  )
  assert.ok(asserted > 0 || (arrowCounts['checksummed frame damage: CHECKSUM_MISMATCH'] ?? 0) > 0)
})

test('fuzz arrow: a decompressed buffer whose length disagrees with its prefix is an error', async () => {
  const compressed = arrowCases.filter((c) => c.frames.length > 0)
  // The true decoded length of each frame: the intact read decodes it, and the writer
  // of every source here is ours (prefix = decoded length) or apache-arrow 21.2
  // (prefix = payload length: the reader decodes the real length).
  await fc.assert(
    fc.asyncProperty(fc.nat(), fc.nat(), fc.oneof(fc.integer({ min: -64, max: 64 }), fc.integer({ min: -100000, max: 100000 })), fc.constantFrom('memory' as const, 'stream' as const), chunkSizes,
      async (pick, frame, delta, via, splits) => {
        const c = compressed[pick % compressed.length]!
        const [start, end] = c.frames[frame % c.frames.length]!
        const prefix = readInt64(c.bytes, start)
        // Not a disagreement: the same prefix, the quirk's payload length (decoded by
        // its real length, see lib/arrow/body.ts), or a negative one (-1: stored raw, a
        // different claim): those move to the next values up.
        let patched = Math.max(0, prefix + delta)
        while (patched === prefix || patched === end - start - 8) patched++
        const bad = patchInt(c.bytes, start, patched, 8)
        const r = await arrowCheck(c, bad, via, splits, undefined, `prefix ${prefix} -> ${patched}`)
        if (r instanceof CodecError) {
          tally(arrowCounts, `length prefix disagrees: ${r.code}`)
          return true
        }
        // The only way to succeed: the patched prefix is the frame's true length (an
        // apache-arrow 21.2 prefix replaced by the right one); then the values are the same.
        tally(arrowCounts, 'length prefix patched to the true length: read')
        if (r.values !== c.values) throw new Error(`${c.name}: prefix ${prefix} -> ${patched} at ${start} read as different values without an error`)
        return prefix === end - start - 8
      }),
    { includeErrorInReport: true, numRuns: share(0.05), seed: 0x1e9 },
  )
})

// maxMessageBytes: Infinity lifts the limit; a hostile uncompressed-length prefix of a
// compressed buffer (an int64) must still fail with a CodecError, not with
// `RangeError: Invalid typed array length` from the allocation in lib/arrow/body.ts.
test('fuzz arrow: hostile length fields with maxMessageBytes: Infinity', async () => {
  await fc.assert(
    fc.asyncProperty(fc.nat(), fc.oneof(mutations, fc.tuple(fc.nat(), fc.constantFrom(...HOSTILE))), fc.constantFrom('memory' as const, 'stream' as const), chunkSizes, async (pick, how, via, splits) => {
      const c = arrowCases[pick % arrowCases.length]!
      let bad: Uint8Array
      let what: string
      if (Array.isArray(how) && typeof how[0] === 'number') {
        // A hostile value in a compressed buffer's int64 length prefix, when there is one.
        const [frame, value] = how as [number, number]
        const f = c.frames[frame % Math.max(1, c.frames.length)]
        bad = f ? patchInt(c.bytes, f[0], value, 8) : c.bytes
        what = f ? `prefix at ${f[0]} = ${value}` : 'intact'
      } else {
        bad = applyAll(how as Mutation[], c.bytes, c.anchors)
        what = kindOf(how as Mutation[])
      }
      const r = await arrowCheck(c, bad, via, splits, Infinity, what)
      tally(arrowCounts, `unlimited: ${r instanceof CodecError ? r.code : 'read'}`)
      return true
    }),
    { includeErrorInReport: true, numRuns: share(0.05), seed: 0x1f1 },
  )
})

test('arrow regression: a compressed buffer declaring 2^40 bytes with maxMessageBytes: Infinity is a CodecError', async () => {
  // Our own LZ4-compressed stream (runs without fixtures), the first compressed
  // buffer's 8-byte uncompressed-length prefix set to 2^40.
  const c = arrowCases.find((x) => x.name === 'ours stream 12 rows lz4')!
  const [start] = c.frames[0]!
  const bad = patchInt(c.bytes, start, 2 ** 40, 8)
  for (const via of ['memory', 'stream'] as const) {
    // readArrowCase returns a CodecError and rethrows anything else.
    const e = await readArrowCase(bad, via, [4096], Infinity)
    assert.ok(e instanceof CodecError && e.format === 'arrow', `${via}: ${describe(e)}`)
  }
})

test('fuzz arrow: random bytes, and random bytes after a valid schema message', async () => {
  const schemaOnly = arrowCases[0]!.bytes.subarray(0, arrowCases[0]!.anchors[1] ?? 0)
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), fc.boolean(), fc.constantFrom('memory' as const, 'stream' as const), chunkSizes, maxBytesOption, async (junk, afterSchema, via, splits, max) => {
      const bad = afterSchema ? concat([schemaOnly, junk]) : junk
      const r = await arrowCheck(arrowCases[0]!, bad, via, splits, max, afterSchema ? 'schema + random bytes' : 'random bytes')
      tally(arrowCounts, `random: ${r instanceof CodecError ? r.code : 'read'}`)
      return true
    }),
    { includeErrorInReport: true, numRuns: share(0.05), seed: 0x4a4d },
  )
  console.log(`# fuzz arrow: ${arrowCaseCount} cases: ${show(arrowCounts)}`)
  assert.ok(arrowCaseCount >= RUNS * 0.95, `${arrowCaseCount} cases`)
})

// =================================================================================
// Parquet footer
// =================================================================================

interface ParquetCase {
  name: string
  /** The Thrift FileMetaData alone. */
  footer: Uint8Array
}

/** Footer + length + magic: what parquetMetadataSync needs of a file. */
function withTrailer(footer: Uint8Array): Uint8Array {
  const out = new Uint8Array(footer.length + 8)
  out.set(footer)
  new DataView(out.buffer).setUint32(footer.length, footer.length, true)
  out.set([0x50, 0x41, 0x52, 0x31], footer.length + 4)
  return out
}

function footerOf(file: Uint8Array): Uint8Array | null {
  const n = file.length
  if (n < 12 || file[n - 1] !== 0x31 || file[n - 4] !== 0x50) return null // PAR1 only, not PARE
  const len = new DataView(file.buffer, file.byteOffset).getUint32(n - 8, true)
  return len <= n - 8 ? file.slice(n - 8 - len, n - 8) : null
}

const parquetCases: ParquetCase[] = []
{
  // Written by parquet-wasm (parquet-rs) from small apache-arrow tables: runs without fixtures.
  const props = [
    new parquetWasm.WriterPropertiesBuilder().setCompression(parquetWasm.Compression.UNCOMPRESSED).build(),
    new parquetWasm.WriterPropertiesBuilder().setCompression(parquetWasm.Compression.ZSTD).setMaxRowGroupSize(5).setCreatedBy('sluice fuzz').build(),
    new parquetWasm.WriterPropertiesBuilder().setDictionaryEnabled(false).setMaxRowGroupSize(3).setStatisticsEnabled(parquetWasm.EnabledStatistics.Page).build(),
  ]
  const tables: [string, Table][] = [
    ['mixed', arrowTable(12, 4)],
    ['flat', new Table({ a: vectorFromArray([1, 2, 3, null, 5], new Int32()), b: vectorFromArray(['x', 'yy', null, 'zzz', ''], new Utf8()) })],
  ]
  for (const [tname, t] of tables) {
    props.forEach((p, i) => {
      const file = parquetWasm.writeParquet(parquetWasm.Table.fromIPCStream(tableToIPC(t, 'stream')), p)
      parquetCases.push({ name: `parquet-wasm ${tname} #${i}`, footer: footerOf(file)! })
    })
  }
  const data = fixture('parquet-testing', 'data')
  let fixtureCount = 0
  if (data) {
    let names: string[] = []
    try {
      names = readdirSync(data).filter((f) => f.endsWith('.parquet')).sort()
    } catch {
      names = []
    }
    for (const f of names) {
      const footer = footerOf(new Uint8Array(readFileSync(join(data, f))))
      // Small footers keep every case bounded (most are under 4 KiB).
      if (!footer || footer.length > 8 * 1024) continue
      try {
        decodeFileMetaData(footer)
      } catch {
        continue // fixtures we reject intact (e.g. bad_data-like ones) add nothing here
      }
      parquetCases.push({ name: f, footer })
      fixtureCount++
    }
  }
  if (!fixtureCount) console.log('# skipped: parquet-testing fixtures (../shared/fixtures/parquet-testing); fuzzing parquet-wasm footers only')
}

const parquetCounts: Record<string, number> = {}
let parquetCaseCount = 0

/** Options that change what the decoder walks: column and row-group selection, statistics. */
const parquetOptions = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  fc.record({ statistics: fc.boolean() }),
  fc.record({ columns: fc.constantFrom(['a'], ['i'], ['s', 'l'], ['st.x'], ['m']) }, { requiredKeys: [] }),
  fc.record({ rowGroups: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }) }),
)

type ParquetOutcome = FileMetaData | CodecError

/** Decodes through one of the three entry points; returns the metadata or the CodecError. */
async function parquetDecode(footer: Uint8Array, via: number, options: object | undefined, tailSize: number): Promise<ParquetOutcome> {
  try {
    let meta: FileMetaData
    if (via === 0) meta = decodeFileMetaData(footer, options)
    else if (via === 1) meta = parquetMetadataSync(withTrailer(footer), options)
    else {
      const file = withTrailer(footer)
      meta = await parquetMetadata({ size: file.length, read: async (o, n) => file.slice(o, o + n) }, { ...options, tailSize })
    }
    // A result is plain data: walk all of it (nothing lazy may throw later).
    JSON.stringify(meta, (_, v) => (typeof v === 'bigint' ? String(v) : v))
    return meta
  } catch (e) {
    // INVALID_OPTION only for a selected column or row group the damaged footer lacks.
    if (e instanceof CodecError && e.format === 'parquet' && (e.code !== 'INVALID_OPTION' || options)) return e
    throw e
  }
}

async function parquetCheck(name: string, footer: Uint8Array, via: number, options: object | undefined, tailSize: number, what: string): Promise<ParquetOutcome> {
  parquetCaseCount++
  try {
    const r = await parquetDecode(footer, via, options, tailSize)
    tally(parquetCounts, r instanceof CodecError ? r.code : 'FileMetaData')
    return r
  } catch (e) {
    throw new Error(`${name}, ${what}, via ${['decodeFileMetaData', 'parquetMetadataSync', 'parquetMetadata'][via]}, options ${JSON.stringify(options)}: ${describe(e)}${footer.length <= 512 ? `\nfooter: ${hex(footer)}` : ''}`)
  }
}

// The offsets of list headers with a long-form size (0xF_ then a varint): where a
// hostile list size goes. Found by scanning for the header byte, which is enough to
// aim some mutations at them.
function listAnchors(footer: Uint8Array): number[] {
  const out: number[] = []
  for (let i = 0; i < footer.length; i++) if ((footer[i]! >> 4) === 0xf && (footer[i]! & 0xf) >= 1 && (footer[i]! & 0xf) <= 12) out.push(i + 1)
  return out
}

test(`fuzz parquet: mutated footers (${parquetCases.length} sources) decode or fail with a CodecError`, async () => {
  const anchors = parquetCases.map((c) => listAnchors(c.footer))
  await fc.assert(
    fc.asyncProperty(fc.nat(), mutations, fc.integer({ min: 0, max: 2 }), parquetOptions, fc.integer({ min: 0, max: 300 }), async (pick, muts, via, options, tailSize) => {
      const c = parquetCases[pick % parquetCases.length]!
      const bad = applyAll(muts, c.footer, anchors[pick % parquetCases.length])
      await parquetCheck(c.name, bad, via, options, tailSize, kindOf(muts))
      return true
    }),
    { includeErrorInReport: true, numRuns: share(0.7), seed: 0x9a4 },
  )
})

// --- Thrift compact structures built to be hostile: list sizes and nesting. ---------

/** Compact-protocol bytes of an unsigned varint. */
function varint(n: number): number[] {
  const out: number[] = []
  let v = n
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80)
    v = Math.floor(v / 0x80)
  }
  out.push(v)
  return out
}

/** A random compact-protocol value of `type` (1..12), nested at most `depth` deep, lists with hostile sizes. */
function thriftValue(type: number, depth: number): fc.Arbitrary<number[]> {
  switch (type) {
    case 1: case 2: return fc.constant([]) // bool: the value is in the field header
    case 3: return fc.integer({ min: 0, max: 255 }).map((b) => [b])
    case 4: case 5: case 6: return fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }).map(varint), fc.constant<number[]>([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))
    case 7: return fc.uint8Array({ minLength: 8, maxLength: 8 }).map((b) => [...b])
    case 8: return fc.tuple(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constantFrom(...HOSTILE.filter((h) => h >= 0 && h < 2 ** 35))), fc.uint8Array({ maxLength: 20 }))
      .map(([n, b]) => [...varint(n), ...b])
    default: return depth > 0 ? thriftStructOrList(depth - 1, type) : fc.constant([0])
  }
}

const anyValue = (depth: number) => fc.integer({ min: 1, max: 12 }).chain((t) => thriftValue(t, depth).map((v) => [t, v] as const))

function thriftStructOrList(depth: number, type: number): fc.Arbitrary<number[]> {
  if (type === 12) {
    return fc.array(fc.tuple(fc.integer({ min: 1, max: 15 }), anyValue(depth)), { maxLength: 4 })
      .map((fields) => [...fields.flatMap(([delta, [t, v]]) => [(delta << 4) | t, ...v]), 0])
  }
  // list, set (9, 10) or map (11): a declared size (often hostile) and fewer real elements.
  return fc.tuple(
    fc.oneof(fc.integer({ min: 0, max: 14 }), fc.constantFrom(15, 255, 65536, 1e8, 0x7fffffff, 0x80000000, 0xffffffff, 2 ** 34)),
    fc.integer({ min: 1, max: 12 }).chain((elem) => fc.tuple(fc.constant(elem), fc.array(thriftValue(elem, depth), { maxLength: 3 }))),
  ).map(([size, [elem, items]]) => {
    if (type === 11) return [...varint(size), size ? (elem << 4) | elem : 0, ...items.flat()]
    return [...(size < 15 ? [(size << 4) | elem] : [0xf0 | elem, ...varint(size)]), ...items.flat()]
  })
}

/** A FileMetaData-shaped struct: real field ids 1..7 with random (often wrong) types and hostile lists. */
const hostileFooter = fc
  .array(fc.tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 9, max: 12 }), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 5 })
  .chain((fields) =>
    fc.tuple(...fields.map(([id, type, depth]) => thriftStructOrList(depth, type).map((v) => ({ id, type, v })))).map((fs) => {
      const out: number[] = []
      let last = 0
      for (const f of fs.sort((a, b) => a.id - b.id)) {
        const delta = f.id - last
        out.push(delta > 0 && delta <= 15 ? (delta << 4) | f.type : f.type, ...(delta > 0 && delta <= 15 ? [] : varint(f.id * 2)))
        out.push(...f.v)
        last = f.id
      }
      out.push(0)
      return Uint8Array.from(out)
    }),
  )

/** `depth` nested structs (or lists of structs) in a field of FileMetaData, optionally closed. */
const deepNesting = fc.tuple(fc.integer({ min: 60, max: 5000 }), fc.integer({ min: 1, max: 12 }), fc.boolean(), fc.boolean()).map(([depth, id, lists, closed]) => {
  const open = lists ? [0x19, 0x1c] : [0x1c] // list<struct> of 1 element, then a struct field; or field 1 struct
  const out: number[] = [(id << 4) | (lists ? 9 : 12)]
  if (lists) out.push(0x1c)
  for (let i = 0; i < depth; i++) out.push(...open)
  if (closed) for (let i = 0; i <= depth; i++) out.push(0)
  out.push(0)
  return { depth, bytes: Uint8Array.from(out) }
})

test('fuzz parquet: hostile list sizes and deep nesting', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(hostileFooter, deepNesting.map((d) => d.bytes)), fc.integer({ min: 0, max: 2 }), parquetOptions, fc.integer({ min: 0, max: 300 }), async (footer, via, options, tailSize) => {
      // Bounded by construction: every input here is small, so no case can take long
      // unless the decoder loops on its own.
      assert.ok(footer.length < 64 * 1024)
      await parquetCheck('hostile', footer, via, options, tailSize, `${footer.length}-byte hostile footer`)
      return true
    }),
    { includeErrorInReport: true, numRuns: share(0.25), seed: 0xdee9 },
  )
})

test('fuzz parquet: random bytes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), fc.integer({ min: 0, max: 2 }), async (footer, via) => {
      await parquetCheck('random', footer, via, undefined, 64, 'random bytes')
      return true
    }),
    { includeErrorInReport: true, numRuns: share(0.05), seed: 0x7a4d },
  )
  console.log(`# fuzz parquet: ${parquetCaseCount} cases: ${show(parquetCounts)}`)
  assert.ok(parquetCaseCount >= RUNS * 0.95, `${parquetCaseCount} cases`)
  assert.ok((parquetCounts.FileMetaData ?? 0) > 0 && (parquetCounts.INVALID_DATA ?? 0) + (parquetCounts.TRUNCATED ?? 0) > 0)
})

test.run()
