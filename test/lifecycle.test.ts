// Resource release and isolation:
// - 10,000 create/use/cancel cycles per codec (cancel the readable, abort the writable,
//   abort through an AbortSignal, error mid-stream) show no growth in heap or in resident
//   memory (wasm heaps included) beyond noise;
// - 100 concurrent streams of mixed formats through the shared engines give exactly the
//   right outputs (no cross-talk through shared wasm memory or pools).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Format } from '../lib/codec.js'
import { decodeStream, encode } from '../streams/index.js'
import { resolveEngine } from '../lib/codec-options.js'
import { loadCodec } from '../lib/registry.js'
import { samples } from './_corpus.js'

const CYCLES = Number(process.env.LIFECYCLE_CYCLES ?? 10_000)
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const MiB = 1 << 20

/** Collects garbage until it stops shrinking (array buffer stores are freed afterwards, off-thread). */
async function settle(): Promise<void> {
  let last = Infinity
  for (let i = 0; i < 10; i++) {
    gc()
    await new Promise((r) => setTimeout(r, 20))
    const now = jsMemory()
    if (now >= last - 64 * 1024) return
    last = now
  }
}

/** JS heap plus ArrayBuffer memory (codec windows, blocks, tables). */
const jsMemory = () => {
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

const formats: Format[] = ['gzip', 'deflate', 'deflate-raw', 'lz4', 'zstd', 'brotli']
const available: Format[] = []
for (const f of formats) {
  try {
    await loadCodec(f, resolveEngine(f, undefined))
    available.push(f)
  } catch (e) {
    console.log(`# skipped: ${f} lifecycle (${(e as Error).message.split('\n')[0]})`)
    test.skip(`lifecycle ${f}`, () => {})
  }
}

const text = samples()[3]![1].subarray(0, 200_000)

/** One cycle: start decoding, read one chunk, then end it the way `how` says. */
async function cycle(format: Format, packed: Uint8Array, how: number): Promise<void> {
  const ac = new AbortController()
  const s = decodeStream(format, { signal: ac.signal, chunkSize: 4096 })
  const writer = s.writable.getWriter()
  const reader = s.readable.getReader()
  void writer.write(packed.subarray(0, 2048)).catch(() => {})
  // The first 2 KiB may not complete a block (no output yet): wait for a chunk or a tick.
  await Promise.race([reader.read().catch(() => {}), new Promise((r) => setImmediate(r))])
  switch (how % 4) {
    case 0:
      await reader.cancel('cancelled').catch(() => {})
      break
    case 1:
      await writer.abort('aborted').catch(() => {})
      break
    case 2:
      ac.abort()
      break
    default:
      // Corrupt bytes mid-stream, with a reader draining: the stream errors by itself
      // (or, for a format without checksums, decodes junk to its end and is truncated).
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {})
      await writer.write(new Uint8Array(4096).fill(0xa5)).catch(() => {})
      await writer.close().catch(() => {})
  }
  await reader.closed.catch(() => {})
  await writer.closed.catch(() => {})
}

// The process itself grows while it warms up (compiled code, allocator arenas): run a
// round of every format first so that the first format measured does not pay for it.
test('warm-up: a round of cycles of every format', async () => {
  for (const format of available) {
    const packed = await encode(format, text)
    for (let i = 0; i < 400; i++) await cycle(format, packed, i)
  }
})

for (const format of available) {
  test(`${format}: ${CYCLES} create/use/cancel cycles leave no growth`, async () => {
    const packed = await encode(format, text)
    // A leak grows with the cycles: compare the second half with the first, after
    // warm-up (JIT, engine load, allocator arenas settle in the first half).
    for (let i = 0; i < CYCLES / 2; i++) await cycle(format, packed, i)
    await settle()
    const heap0 = jsMemory()
    const rss0 = process.memoryUsage().rss
    for (let i = 0; i < CYCLES / 2; i++) await cycle(format, packed, i)
    await settle()
    const heap1 = jsMemory()
    const rss1 = process.memoryUsage().rss
    console.log(`# ${format}: ${CYCLES} cycles; over the last ${CYCLES / 2}: heap + array buffers ${((heap1 - heap0) / MiB).toFixed(1)} MiB, rss ${((rss1 - rss0) / MiB).toFixed(1)} MiB`)
    assert.ok(heap1 - heap0 < 4 * MiB, `heap grew ${(heap1 - heap0) / MiB} MiB`)
    // RSS also covers wasm heaps (a leaked engine context costs 100 KB+ per cycle, so
    // hundreds of MiB here); the allocator's own drift stays well below this bound.
    assert.ok(rss1 - rss0 < 32 * MiB, `rss grew ${(rss1 - rss0) / MiB} MiB`)
  })
}

test('100 concurrent streams of mixed formats produce exactly their own outputs', async () => {
  const inputs = samples().filter(([, d]) => d.length > 0)
  const jobs: Array<Promise<void>> = []
  for (let i = 0; i < 100; i++) {
    const format = available[i % available.length]!
    const [name, data] = inputs[i % inputs.length]!
    const raw = data.subarray(0, 50_000 + ((i * 7919) % 50_000))
    jobs.push(
      (async () => {
        const packed = await encode(format, raw)
        const parts: Uint8Array[] = []
        // Interleave: small chunks with yields, so all streams are in flight at once.
        const src = new ReadableStream<Uint8Array>({
          async pull(c) {
            const at = parts.length * 997
            parts.push(new Uint8Array(0))
            if (at >= packed.length) return c.close()
            await new Promise((r) => setTimeout(r, 0))
            c.enqueue(packed.subarray(at, at + 997))
          },
        })
        const out: number[] = []
        await src.pipeThrough(decodeStream(format, { chunkSize: 1024 })).pipeTo(new WritableStream({ write: (c) => void out.push(...c) }))
        assert.is(out.length, raw.length, `${format} ${name} #${i}`)
        for (let k = 0; k < raw.length; k++) if (out[k] !== raw[k]) assert.unreachable(`${format} ${name} #${i} differs at ${k}`)
      })(),
    )
  }
  await Promise.all(jobs)
})

test.run()
