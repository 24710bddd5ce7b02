// Arrow IPC: int32 + utf8 at 100k / 500k / 1M rows (65,536-row batches), LZ4 and ZSTD.
// Ours (sluice/arrow) vs apache-arrow 21 with lz4js + zstd-codec registered, and
// apache-arrow with our codecs registered. Write, read from one Uint8Array, read from a
// 64 KiB-chunk ReadableStream. Prints ms (median CPU time of the process over several
// runs, the contenders alternating run by run), MB/s of uncompressed data, memory held
// after one operation (heap + ArrayBuffers, after a GC when --expose-gc), and ratios
// (peer ms / our ms: above 1 means we are faster).
//
// Levels: both sides write LZ4 frames with the greedy fast search (lz4js has no
// levels; ours level 1) and zstd at level 3 (zstd-codec is called with 3, ours defaults
// to 3); the sizes lines show the outputs are comparable.
//
// A "codec" line per codec shows how much of our read and write is the codec itself:
// every buffer of the stream decoded (encoded) alone into reused memory, no Arrow work
// and no allocation.
//
// A "stream/memory" line per codec measures the target that reading from 64 KiB chunks
// cost at most 1.3x reading the same bytes from memory: our two reads alternating run by
// run in one measurement, so that both see the same heap and the same garbage (in the
// rows above each of them alternates with apache-arrow's read instead, whose garbage
// differs), over three times as many runs as the other rows: single runs here vary by
// up to 2x.
//
// Usage: node --expose-gc --import tsx bench/arrow.ts [rows...]
import {
  CompressionType, compressionRegistry, RecordBatchStreamWriter, Table, tableFromIPC, Utf8, vectorFromArray,
} from 'apache-arrow'
import { arrowDecode, arrowEncode, readArrow, registerArrowCodecs } from '../adapters/arrow/index.js'
import { readInt64 } from '../lib/arrow/body.js'
import { bodyEncoderOptions } from '../lib/arrow/body-write.js'
import { IpcFramer } from '../lib/arrow/framing.js'
import { loadCodec } from '../lib/registry.js'
import { Status } from '../lib/status.js'
import { registerPeerCodecs } from './_arrow-peers.js'
import { concatBytes as concat } from './_bytes.js'
import { collect } from './corpus.js'
import { measure } from './_measure.js'

const gc = (globalThis as { gc?: () => void }).gc
const rowsList = process.argv.slice(2).map(Number).filter((n) => n > 0)
const ROWS = rowsList.length ? rowsList : [100_000, 500_000, 1_000_000]
const BATCH = 65_536

function makeTable(rows: number): Table {
  const batches = []
  for (let start = 0; start < rows; start += BATCH) {
    const n = Math.min(BATCH, rows - start)
    const ints = new Int32Array(n)
    const strs: string[] = new Array(n)
    for (let k = 0; k < n; k++) {
      const i = start + k
      ints[k] = (i * 2654435761) % 100_000
      strs[k] = `user-${(i * 40503) % 50_000}-${i % 7 === 0 ? 'premium' : 'basic'}`
    }
    batches.push(...new Table({ id: vectorFromArray(ints), name: vectorFromArray(strs, new Utf8()) }).batches)
  }
  return new Table(batches)
}

function uncompressedBytes(t: Table): number {
  let n = 0
  for (const b of t.batches) for (const c of b.data.children) n += c.byteLength
  return n
}

async function ourWrite(t: Table, compression: 'lz4' | 'zstd'): Promise<Uint8Array> {
  const source = new ReadableStream<Table>({ start(c) { c.enqueue(t); c.close() } })
  return concat(await collect(source.pipeThrough(arrowEncode({ compression }))))
}

/** `bytes` cut into chunks of `size` bytes, each a copy (as a network source delivers them). */
function slices(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.slice(at, at + size))
  return out
}

/**
 * A ReadableStream of chunks cut before the clock starts, one chunk per pull: the
 * timing covers the reader, not the making of its input. The readers neither modify
 * nor keep the chunks, so runs can share them.
 */
function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!)
      else controller.close()
    },
  })
}

/** The compressed body buffers of a stream: each payload (after its prefix) and its declared length. */
function compressedBuffers(stream: Uint8Array): { payload: Uint8Array; size: number }[] {
  const framer = new IpcFramer(2 ** 31)
  const out: { payload: Uint8Array; size: number }[] = []
  let pos = 0
  while (!framer.ended) {
    if (framer.transform(stream.subarray(pos), true) !== Status.Done) throw new Error('bad stream')
    pos += framer.consumed
    const batch = framer.message?.batch
    if (!batch || batch.compression < 0) continue
    batch.bufferOffsets.forEach((off, i) => {
      const len = batch.bufferLengths[i]!
      if (len < 8) return
      const size = readInt64(framer.body!, off)
      out.push({ payload: framer.body!.subarray(off + 8, off + len), size })
    })
  }
  return out
}

/**
 * Time spent in the codec alone: every buffer of `stream` decoded, and every raw
 * buffer encoded, into reused memory (ms of CPU, median of `runs`).
 */
async function codecOnly(stream: Uint8Array, codec: 'lz4' | 'zstd', runs: number): Promise<{ decode: number; encode: number }> {
  const mod = codec === 'lz4' ? await loadCodec('lz4', 'wasm') : await loadCodec('zstd', 'wasm')
  const decoder = mod.createDecoder({})
  const encoder = mod.createEncoder(bodyEncoderOptions(codec === 'lz4' ? 0 : 1, undefined))
  const buffers = compressedBuffers(stream)
  const largest = Math.max(...buffers.map((b) => Math.max(b.size, b.payload.length)))
  const scratch = new Uint8Array(largest + (largest >> 7) + 64)
  // The raw buffers, for the encoder: stored ones as they are, the others decoded.
  const raws = buffers.map(({ payload, size }) => {
    if (size === -1) return payload
    decoder.reset()
    const dst = new Uint8Array(size)
    if (decoder.transform(payload, dst, true) !== Status.Done) throw new Error('bad buffer')
    return dst
  })
  const decodeAll = (): void => {
    for (const { payload, size } of buffers) {
      if (size === -1) { scratch.set(payload); continue }
      decoder.reset()
      decoder.transform(payload, scratch.subarray(0, size), true)
    }
  }
  const encodeAll = (): void => {
    for (const raw of raws) {
      encoder.reset()
      encoder.transform(raw, scratch.subarray(0, raw.length - 1), true)
    }
  }
  const [d, e] = await measure([decodeAll, encodeAll], runs)
  decoder.dispose()
  encoder.dispose()
  return { decode: d!.ms, encode: e!.ms }
}

const peers = {
  // Registered only while the apache-arrow rows run (the registry is global).
  async usePeerCodecs() { await registerPeerCodecs() },
  async useOurCodecs() { await registerArrowCodecs() },
}

console.log(`# Arrow IPC bench, Node ${process.version}, ${gc ? 'with' : 'without'} --expose-gc; ${BATCH}-row batches`)
// A markdown table (scripts/bench-docs.mjs writes it into docs/performance.md), the
// lines about each row group after it as a list.
console.log('| rows | codec | operation | ours ms | MB/s | mem MB | apache-arrow + peer ms | MB/s | ratio | apache-arrow + our codecs ms | ratio |')
console.log('|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
const notes: string[] = []
for (const rows of ROWS) {
  const table = makeTable(rows)
  const raw = uncompressedBytes(table)
  const mb = raw / 1e6
  const runs = rows >= 1_000_000 ? 7 : rows >= 500_000 ? 9 : 15
  for (const [codec, type] of [['lz4', CompressionType.LZ4_FRAME], ['zstd', CompressionType.ZSTD]] as const) {
    // Inputs for the read rows: our stream, and apache-arrow's (its 21.2 prefixes).
    const ours = await ourWrite(table, codec)
    await peers.usePeerCodecs()
    const theirs = RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true)
    const ourChunks = slices(ours, 65536)
    const theirChunks = slices(theirs, 65536)
    const ops: [string, () => unknown, () => unknown][] = [
      ['write', () => ourWrite(table, codec), () => RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true)],
      ['read from memory', () => readArrow(ours), () => tableFromIPC(theirs)],
      ['read 64 KiB stream', () => collect(streamOf(ourChunks).pipeThrough(arrowDecode())), () => tableFromIPC(streamOf(theirChunks) as never)],
    ]
    for (const [name, mine, peer] of ops) {
      await peers.usePeerCodecs()
      let a: { ms: number; mem: number }
      let b: { ms: number; mem: number } | null = null
      try {
        ;[a, b] = (await measure([mine, peer], runs)) as [typeof a, typeof a]
      } catch (e) {
        notes.push(`${rows} ${codec}: apache-arrow+peer ${name} failed: ${String((e as Error)?.message ?? e)}`)
        ;[a] = (await measure([mine], runs)) as [typeof a]
      }
      await peers.useOurCodecs()
      const [c] = (await measure([peer, mine], runs)) as [typeof a]
      compressionRegistry.set(type, null as never)
      const f = (x: number, w: number, d = 1) => x.toFixed(d).padStart(w)
      console.log(
        `| ${rows} | ${codec} | ${name} | ${f(a.ms, 0)} | ${f(mb / (a.ms / 1000), 0, 0)} | ${f(a.mem / 1e6, 0)} | ` +
        `${b ? `${f(b.ms, 0)} | ${f(mb / (b.ms / 1000), 0, 0)} | ${f(b.ms / a.ms, 0, 2)}×` : 'failed | | '} | ${f(c.ms, 0)} | ${f(c.ms / a.ms, 0, 2)}× |`,
      )
    }
    notes.push(`${rows} ${codec} sizes: ${mb.toFixed(1)} MB raw, ours ${(ours.length / 1e6).toFixed(2)} MB, apache-arrow+peer ${(theirs.length / 1e6).toFixed(2)} MB`)
    const alone = await codecOnly(ours, codec, runs)
    const [rd, wr] = (await measure([() => readArrow(ours), () => ourWrite(table, codec)], runs)) as [{ ms: number; mem: number }, { ms: number; mem: number }]
    const [mem, str] = (await measure([() => readArrow(ours), () => collect(streamOf(ourChunks).pipeThrough(arrowDecode()))], 3 * runs)) as [{ ms: number; mem: number }, { ms: number; mem: number }]
    notes.push(`${rows} ${codec} stream/memory: read 64 KiB stream ${str.ms.toFixed(1)} ms / read from memory ${mem.ms.toFixed(1)} ms = ${(str.ms / mem.ms).toFixed(2)}x (alternating, target <= 1.3)`)
    notes.push(`${rows} ${codec} codec: decode alone ${alone.decode.toFixed(1)} ms = ${((100 * alone.decode) / rd.ms).toFixed(0)}% of read from memory (${rd.ms.toFixed(1)} ms); encode alone ${alone.encode.toFixed(1)} ms = ${((100 * alone.encode) / wr.ms).toFixed(0)}% of write (${wr.ms.toFixed(1)} ms)`)
  }
}

/**
 * `f` with stdout sent to stderr: zstd-codec's emscripten build prints "OOM" on stdout
 * when it aborts, and stdout is the markdown that bench:docs writes into the guide.
 */
async function toStderr<T>(f: () => Promise<T>): Promise<T> {
  const write = process.stdout.write
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof write
  try {
    return await f()
  } finally {
    process.stdout.write = write
  }
}

// 1M rows in one batch: zstd-codec runs out of its 16 MiB heap here (BASELINES.md).
{
  const rows = 1_000_000
  const ints = new Int32Array(rows).map((_, i) => (i * 2654435761) % 100_000)
  const strs = Array.from({ length: rows }, (_, i) => `user-${(i * 40503) % 50_000}-${i % 7 === 0 ? 'premium' : 'basic'}`)
  const table = new Table({ id: vectorFromArray(ints), name: vectorFromArray(strs, new Utf8()) })
  for (const [codec, type] of [['lz4', CompressionType.LZ4_FRAME], ['zstd', CompressionType.ZSTD]] as const) {
    const status = async (f: () => unknown) => {
      try {
        const t0 = performance.now()
        await f()
        return `ok ${(performance.now() - t0).toFixed(0)} ms`
      } catch (e) {
        return `FAILED (${String((e as Error)?.message ?? e).slice(0, 60)})`
      }
    }
    const mine = await status(async () => {
      const back = await readArrow(await ourWrite(table, codec))
      if (back.numRows !== rows) throw new Error(`read ${back.numRows} rows`)
    })
    await peers.usePeerCodecs()
    const peer = await toStderr(() => status(() => tableFromIPC(RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true))))
    notes.push(`1M rows in one batch, ${codec}: ours write+read ${mine}; apache-arrow+peer write+read ${peer}`)
  }
}
console.log('')
for (const note of notes) console.log(`- ${note}`)
