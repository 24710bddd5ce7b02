// Arrow IPC: int32 + utf8 at 100k / 500k / 1M rows (65,536-row batches), LZ4 and ZSTD.
// Ours (sluice/arrow) vs apache-arrow 21 with lz4js + zstd-codec registered, and
// apache-arrow with our codecs registered. Write, read from one Uint8Array, read from a
// 64 KiB-chunk ReadableStream. Prints ms (fastest run, ours and the peer alternating), MB/s of uncompressed data, memory
// held after one operation (heap + ArrayBuffers, after a GC when --expose-gc), ratios.
//
// Usage: node --expose-gc --import tsx bench/arrow.ts [rows...]
import {
  CompressionType, compressionRegistry, RecordBatchStreamWriter, Table, tableFromIPC, Utf8, vectorFromArray,
} from 'apache-arrow'
import { arrowDecode, arrowEncode, readArrow, registerArrowCodecs } from '../adapters/arrow/index.js'
import { chunked, collect, registerPeerCodecs } from '../test/arrow-oracle.js'

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

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return out
}

async function ourWrite(t: Table, compression: 'lz4' | 'zstd'): Promise<Uint8Array> {
  const source = new ReadableStream<Table>({ start(c) { c.enqueue(t); c.close() } })
  return concat(await collect(source.pipeThrough(arrowEncode({ compression }))))
}

function heldBytes(): number {
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

/**
 * Fastest of `runs` runs of each op (after a warm-up), the ops alternating run by run so
 * that both see the same machine load; the minimum is the figure least disturbed by
 * other processes. Also the memory one run leaves held (its result and garbage).
 */
async function measure(ops: (() => unknown)[], runs: number): Promise<{ ms: number; mem: number }[]> {
  for (const op of ops) await op()
  const best = ops.map(() => Infinity)
  for (let r = 0; r < runs; r++) {
    for (let i = 0; i < ops.length; i++) {
      const t0 = performance.now()
      await ops[i]!()
      best[i] = Math.min(best[i]!, performance.now() - t0)
    }
  }
  const out: { ms: number; mem: number }[] = []
  for (let i = 0; i < ops.length; i++) {
    gc?.()
    const before = heldBytes()
    const keep = await ops[i]!()
    out.push({ ms: best[i]!, mem: heldBytes() - before })
    void keep
  }
  return out
}

const peers = {
  // Registered only while the apache-arrow rows run (the registry is global).
  async usePeerCodecs() { await registerPeerCodecs() },
  async useOurCodecs() { await registerArrowCodecs() },
}

console.log(`# Arrow IPC bench, Node ${process.version}, ${gc ? 'with' : 'without'} --expose-gc; ${BATCH}-row batches`)
console.log('rows      codec  operation              ours ms  MB/s   mem MB | arrow+peer ms  MB/s  ratio | arrow+ours ms  ratio')
for (const rows of ROWS) {
  const table = makeTable(rows)
  const raw = uncompressedBytes(table)
  const mb = raw / 1e6
  const runs = rows >= 1_000_000 ? 3 : rows >= 500_000 ? 4 : 7
  for (const [codec, type] of [['lz4', CompressionType.LZ4_FRAME], ['zstd', CompressionType.ZSTD]] as const) {
    // Inputs for the read rows: our stream, and apache-arrow's (its 21.2 prefixes).
    const ours = await ourWrite(table, codec)
    await peers.usePeerCodecs()
    const theirs = RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true)
    const ops: [string, () => unknown, () => unknown][] = [
      ['write', () => ourWrite(table, codec), () => RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true)],
      ['read from memory', () => readArrow(ours), () => tableFromIPC(theirs)],
      ['read 64 KiB stream', () => collect(chunked(ours, 65536).pipeThrough(arrowDecode())), () => tableFromIPC(chunked(theirs, 65536) as never)],
    ]
    for (const [name, mine, peer] of ops) {
      await peers.usePeerCodecs()
      let a: { ms: number; mem: number }
      let b: { ms: number; mem: number } | null = null
      try {
        ;[a, b] = (await measure([mine, peer], runs)) as [typeof a, typeof a]
      } catch (e) {
        console.log(`# apache-arrow+peer ${codec} ${name} failed: ${String((e as Error)?.message ?? e)}`)
        ;[a] = (await measure([mine], runs)) as [typeof a]
      }
      await peers.useOurCodecs()
      const [c] = (await measure([peer, mine], runs)) as [typeof a]
      compressionRegistry.set(type, null as never)
      const f = (x: number, w: number, d = 1) => x.toFixed(d).padStart(w)
      console.log(
        `${String(rows).padEnd(9)} ${codec.padEnd(6)} ${name.padEnd(20)} ${f(a.ms, 9)} ${f(mb / (a.ms / 1000), 6, 0)} ${f(a.mem / 1e6, 8)} | ` +
        `${b ? `${f(b.ms, 13)} ${f(mb / (b.ms / 1000), 5, 0)} ${f(b.ms / a.ms, 6, 2)}x` : '       failed'} | ${f(c.ms, 13)} ${f(c.ms / a.ms, 6, 2)}x`,
      )
    }
    console.log(`${String(rows).padEnd(9)} ${codec.padEnd(6)} sizes: ${mb.toFixed(1)} MB raw, ours ${(ours.length / 1e6).toFixed(2)} MB, apache-arrow+peer ${(theirs.length / 1e6).toFixed(2)} MB`)
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
    const peer = await status(() => tableFromIPC(RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true)))
    console.log(`1M rows in one batch, ${codec}: ours write+read ${mine}; apache-arrow+peer write+read ${peer}`)
  }
}
