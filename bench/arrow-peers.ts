// Arrow IPC reads of files the peers wrote themselves: apache-arrow 21's own writer,
// with lz4js and zstd-codec registered in its compressionRegistry for the compressed
// ones (as apache-arrow's tests do; its 21.2 writer stores each buffer's compressed
// length in the 8-byte prefix, see lib/arrow/body.ts), read by us and by apache-arrow.
// Prints the median CPU ms of each contender (alternating run by run) and the ratio;
// "x faster" is peer ms / our ms, "x its time" our ms / peer ms.
//
//   uncompressed  1M rows x 5 columns (int32, dictionary<utf8>, utf8, list<int32>,
//                 struct{int16, utf8}), one batch: readArrow() vs tableFromIPC()
//                 (target <= 1.5x its time), and validate: 'full' over the default in
//                 ns per value of the O(n) checks (target <= 1).
//   lz4 / zstd    1M rows int32 + dictionary<utf8> (10,000 strings) in 65,536-row
//                 batches: readArrow() vs apache-arrow + lz4js / zstd-codec from memory
//                 (targets >= 2.5x / >= 2x faster); arrowDecode() over 64 KiB chunks vs
//                 apache-arrow + lz4js from memory (target >= 2x faster).
//
// Usage: node --expose-gc --import tsx bench/arrow-peers.ts
import {
  CompressionType, compressionRegistry, Dictionary, Field, Int16, Int32, List, RecordBatchStreamWriter, Struct, Table,
  tableFromIPC, tableToIPC, Utf8, vectorFromArray,
} from 'apache-arrow'
import { arrowDecode, readArrow } from '../adapters/arrow/index.js'
import { registerPeerCodecs } from './_arrow-peers.js'
import { collect } from './corpus.js'
import { measure } from './_measure.js'

const ROWS = 1_000_000
const BATCH = 65_536

function fiveColumns(rows: number): Table {
  return new Table({
    id: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => (i * 2654435761) % 100_000)),
    cat: vectorFromArray(Array.from({ length: rows }, (_, i) => `cat-${(i * 7919) % 1000}`), new Dictionary(new Utf8(), new Int32())),
    name: vectorFromArray(Array.from({ length: rows }, (_, i) => `user-${(i * 40503) % 50_000}`), new Utf8()),
    list: vectorFromArray(Array.from({ length: rows }, (_, i) => [i, i + 1, i + 2].slice(0, i % 4)), new List(new Field('item', new Int32(), true))),
    st: vectorFromArray(
      Array.from({ length: rows }, (_, i) => ({ a: i % 30_000, b: `s${i % 100}` })),
      new Struct([new Field('a', new Int16(), true), new Field('b', new Utf8(), true)]),
    ),
  })
}

/** int32 + dictionary strings, one dictionary shared by 65,536-row batches. */
function intsAndDictionary(rows: number): Table {
  const whole = new Table({
    id: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => (i * 2654435761) % 100_000)),
    name: vectorFromArray(Array.from({ length: rows }, (_, i) => `user-${(i * 40503) % 10_000}-${i % 7 === 0 ? 'premium' : 'basic'}`), new Dictionary(new Utf8(), new Int32())),
  })
  const batch = whole.batches[0]!
  const batches = []
  for (let at = 0; at < rows; at += BATCH) batches.push(batch.slice(at, Math.min(rows, at + BATCH)))
  return new Table(batches)
}

/** A ReadableStream of `chunks`, one per pull (cut before the clock starts). */
function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!)
      else controller.close()
    },
  })
}

function slices(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.slice(at, at + size))
  return out
}

const f = (x: number, d = 2) => x.toFixed(d)
console.log(`# Arrow IPC reads of peer-written files, Node ${process.version}; median CPU ms, contenders alternating`)

{
  const table = fiveColumns(ROWS)
  const bytes = tableToIPC(table, 'stream')
  // Values the O(n) checks look at: dictionary indices, and the offsets of the utf8,
  // list and struct's utf8 columns and of the dictionary's strings.
  const dict = (table.getChild('cat')!.data[0]!.dictionary!).length
  const checked = ROWS + 3 * (ROWS + 1) + (dict + 1)
  // The floor of any O(n) check: one read of those same values (a sum over the arrays).
  const read = await readArrow(bytes)
  const arrays: Int32Array[] = []
  for (const b of read.batches) {
    const [, cat, name, list, st] = b.data.children
    arrays.push(cat!.values as Int32Array, name!.valueOffsets as Int32Array, list!.valueOffsets as Int32Array, st!.children[1]!.valueOffsets as Int32Array)
  }
  const sumAll = (): number => {
    let s = 0
    for (const a of arrays) for (let i = 0; i < a.length; i++) s = (s + a[i]!) | 0
    return s
  }
  const [ours, full, peer, floor] = await measure([() => readArrow(bytes), () => readArrow(bytes, { validate: 'full' }), () => tableFromIPC(bytes), sumAll], 41)
  console.log(`uncompressed 1M x 5 cols (${(bytes.length / 1e6).toFixed(1)} MB, ${table.batches.length} batch): readArrow ${f(ours!.ms, 3)} ms, tableFromIPC ${f(peer!.ms, 3)} ms: ${f(ours!.ms / peer!.ms)}x its time (target <= 1.5)`)
  console.log(`uncompressed 1M x 5 cols: validate 'full' ${f(full!.ms)} ms, default ${f(ours!.ms, 3)} ms: ${f(((full!.ms - ours!.ms) * 1e6) / checked)} ns/value over ${checked} values (target <= 1); one plain read of the same values ${f((floor!.ms * 1e6) / checked)} ns/value`)
}

await registerPeerCodecs()
for (const [codec, type, target, runs] of [['lz4', CompressionType.LZ4_FRAME, 2.5, 9], ['zstd', CompressionType.ZSTD, 2, 7]] as const) {
  const table = intsAndDictionary(ROWS)
  const bytes = RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true)
  const chunks = slices(bytes, 65_536)
  const check = await readArrow(bytes)
  if (check.numRows !== ROWS || check.getChild('name')!.get(7) !== tableFromIPC(bytes).getChild('name')!.get(7)) throw new Error(`${codec}: the reads disagree`)
  const [mem, stream, peer] = await measure([() => readArrow(bytes), () => collect(streamOf(chunks).pipeThrough(arrowDecode())), () => tableFromIPC(bytes)], runs)
  const peerName = codec === 'lz4' ? 'lz4js' : 'zstd-codec'
  console.log(`${codec} 1M int32 + dictionary (${(bytes.length / 1e6).toFixed(1)} MB, apache-arrow + ${peerName} writer): readArrow ${f(mem!.ms, 1)} ms, apache-arrow + ${peerName} ${f(peer!.ms, 1)} ms: ${f(peer!.ms / mem!.ms)}x faster (target >= ${target})`)
  console.log(`${codec} 1M int32 + dictionary: arrowDecode 64 KiB chunks ${f(stream!.ms, 1)} ms vs apache-arrow + ${peerName} from memory ${f(peer!.ms, 1)} ms: ${f(peer!.ms / stream!.ms)}x faster${codec === 'lz4' ? ' (target >= 2)' : ''}`)
  compressionRegistry.set(type, null as never)
}
