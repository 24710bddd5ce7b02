// Random access into gzip (issue 31's target rows), in one run:
// 1. building the index while decoding vs decoding: gzipIndex() vs decode() of the same
//    .gz (the public calls), and the indexing decoder vs the plain one through the same
//    machine loop (the kernel cost alone); CPU time, rounds interleaved, median of the
//    per-pair ratios (target <= 1.15);
// 2. the index's size per spacing (sluice format, windows compressed) as a share of the
//    compressed file, beside indexed_gzip's (raw 32 KiB windows) (target <= 1% at the
//    default spacing);
// 3. a random 1 MiB read from a 1 GiB (decoded) .gz over loopback HTTP with its index:
//    openGzipIndexed over httpRangeSource (no span cache) vs the same read by hand (one
//    ranged fetch from the point before the offset to the end of the span holding the
//    read's end, the window inflated, a raw inflater started at the point's bit, decoded
//    up to the read's end, a subarray); range requests per read after the index; wall
//    time (the fetch is I/O), median of the per-pair ratios (targets: <= 1 request,
//    <= 1.3x).
// The content is log lines (deterministic synthetic: timestamps, hosts, paths, statuses,
// request ids; about 4.6:1 at gzip -6, like real logs), compressed by node:zlib at level
// 6 (gzip -6's zlib); the server is a node:http server in this process that honours Range.
//
// Usage: node --import tsx bench/gzip-index.ts [MiB for rows 1-2, default 128] [MiB for row 3, default 1024] [reads, default 30]
import { availableParallelism, loadavg } from 'node:os'
import zlib from 'node:zlib'
import { decode, encodeGzipIndex, gzipIndex, httpRangeSource, openGzipIndexed, type GzipIndex } from '../index.js'
import { Machine } from '../lib/machine.js'
import { createDecoder } from '../lib/registry.js'
import { createIndexingDecoder } from '../lib/gzip-index/indexing-decoder.js'
import { inflateWindow, loadIndexParts } from '../lib/gzip-index/engines.js'
import { InflaterAt } from '../lib/gzip-index/inflate-at.js'
import { pointBefore } from '../lib/gzip-index/gzip-index.js'
import { Status } from '../lib/status.js'
import { logText, serveRanges } from './_logs.js'
import { cpuMs as cpu, median } from './_measure.js'

const MiB = 1 << 20
const small = Number(process.argv[2] ?? 128)
const large = Number(process.argv[3] ?? 1024)
const reads = Number(process.argv[4] ?? 30)

/** gzip -6 of `data` through a node:zlib stream (gzipSync of a GiB would need it all twice). */
async function gzip6(data: Uint8Array): Promise<Uint8Array> {
  const z = zlib.createGzip({ level: 6 })
  const parts: Buffer[] = []
  z.on('data', (b: Buffer) => parts.push(b))
  const done = new Promise<void>((ok, fail) => (z.on('end', ok), z.on('error', fail)))
  for (let i = 0; i < data.length; i += 16 * MiB) if (!z.write(data.subarray(i, i + 16 * MiB))) await new Promise((ok) => z.once('drain', ok))
  z.end()
  await done
  return new Uint8Array(Buffer.concat(parts))
}

/** Two timed functions in turns, first one then the other first; returns each's times and the ratios a/b. */
async function pairs(rounds: number, a: () => Promise<unknown> | unknown, b: () => Promise<unknown> | unknown, clock: () => number): Promise<{ a: number[]; b: number[]; ratios: number[] }> {
  const out = { a: [] as number[], b: [] as number[], ratios: [] as number[] }
  const time = async (f: () => unknown) => {
    const t0 = clock()
    await f()
    return clock() - t0
  }
  for (let r = 0; r < rounds; r++) {
    const [ta, tb] = r % 2 ? [await time(a), await time(b)] : ((x: number, y: number) => [y, x])(await time(b), await time(a))
    out.a.push(ta!)
    out.b.push(tb!)
    out.ratios.push(ta! / tb!)
  }
  return out
}

console.log(`# node ${process.version}, ${availableParallelism()} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')} at start`)

// Rows 1 and 2: a smaller file, timed in CPU time.
{
  const content = logText(small * MiB)
  const gz = await gzip6(content)
  console.log(`# ${small} MiB of log lines, ${gz.length} bytes at gzip -6 (${(content.length / gz.length).toFixed(2)}:1)`)
  const sink = new Uint8Array(MiB)
  const drain = async (decoder: Awaited<ReturnType<typeof createDecoder>>) => {
    const machine = new Machine(decoder, { format: 'gzip', mode: 'decode', blockSize: MiB, maxOutputBytes: Infinity, concatenated: true })
    for (let i = 0; i < gz.length; i += MiB) {
      machine.push(gz.subarray(i, i + MiB))
      while (machine.nextInto(sink) > 0);
    }
    machine.end()
    while (machine.nextInto(sink) > 0);
    decoder.dispose()
  }
  await gzipIndex(gz) // warm-up
  await decode('gzip', gz)
  const pub = await pairs(7, () => gzipIndex(gz), () => decode('gzip', gz), cpu)
  const kernel = await pairs(7, async () => drain(await createIndexingDecoder('gzip')), async () => drain(await createDecoder('gzip')), cpu)
  const mbps = (ms: number) => (content.length / 1e6 / (ms / 1000)).toFixed(0)
  console.log(`index build vs plain decode: gzipIndex() ${mbps(median(pub.a))} MB/s vs decode() ${mbps(median(pub.b))} MB/s, median ratio ${median(pub.ratios).toFixed(3)}x; through one machine loop: ${mbps(median(kernel.a))} vs ${mbps(median(kernel.b))} MB/s, ${median(kernel.ratios).toFixed(3)}x (target <= 1.15)`)

  console.log('\n| spacing | points | sluice index | % of .gz | indexed_gzip index | % of .gz |')
  console.log('|---:|---:|---:|---:|---:|---:|')
  for (const spacing of [1, 2, 4, 8, 16]) {
    const index = await gzipIndex(gz, { spacing: spacing * MiB })
    const ours = (await encodeGzipIndex(index)).length
    const theirs = (await encodeGzipIndex(index, { format: 'indexed_gzip' })).length
    const pct = (n: number) => ((n / gz.length) * 100).toFixed(2)
    console.log(`| ${spacing} MiB${spacing === 4 ? ' (default)' : ''} | ${index.points.length} | ${ours} | ${pct(ours)}% | ${theirs} | ${pct(theirs)}% |`)
  }
}

// Row 3: 1 GiB of content, read at random over HTTP.
{
  const content = logText(large * MiB)
  const gz = await gzip6(content)
  const index: GzipIndex = await gzipIndex(gz)
  console.log(`\n# ${large} MiB of log lines, ${gz.length} bytes at gzip -6; index ${(await encodeGzipIndex(index)).length} bytes, ${index.points.length} points`)
  const server = await serveRanges(gz, 'logs.gz', 'application/gzip')
  const url = server.url
  try {
    const reader = await openGzipIndexed(await httpRangeSource(url), { index, cacheSpans: 0 })
    const parts = await loadIndexParts('wasm')
    const windows = parts.decoder('deflate-raw', parts.body('deflate-raw'))
    const points = index.points
    const byHand = async (offset: number): Promise<Uint8Array> => {
      // zran's steps: the point before, one ranged fetch to the end of the span holding
      // the read's last byte, the window, a raw inflater started at the bit, a subarray.
      const k = pointBefore(points, offset)
      const last = pointBefore(points, offset + MiB - 1)
      const from = Math.floor(points[k]!.compressedBitOffset / 8)
      const to = last + 1 < points.length ? Math.ceil(points[last + 1]!.compressedBitOffset / 8) + 1 : gz.length
      const res = await fetch(url, { headers: { range: `bytes=${from}-${to - 1}` } })
      const input = new Uint8Array(await res.arrayBuffer())
      const at = new InflaterAt(parts.body('deflate-raw'))
      at.start(points[k]!.compressedBitOffset, inflateWindow(windows, points[k]!, k, new Uint8Array(32768)))
      const out = new Uint8Array(offset + MiB - points[k]!.uncompressedOffset)
      const status = at.transform(input, out, false)
      at.dispose()
      if (at.written !== out.length || (status !== Status.DestinationTooSmall && status !== Status.Done)) throw new Error(`by hand: ${status} after ${at.written}`)
      return out.subarray(offset - points[k]!.uncompressedOffset)
    }
    let seed = 42
    const offsets = Array.from({ length: reads }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % (content.length - MiB))
    for (const o of offsets.slice(0, 2)) {
      const a = await reader.read(o, MiB)
      const b = await byHand(o)
      if (Buffer.compare(a, content.subarray(o, o + MiB)) !== 0 || Buffer.compare(b, a) !== 0) throw new Error(`read at ${o} differs`)
    }
    const perRead: number[] = []
    const ours: number[] = []
    const hand: number[] = []
    const ratios: number[] = []
    for (const [k, o] of offsets.entries()) {
      const run = async (which: 0 | 1) => {
        const t0 = performance.now()
        if (which === 0) {
          const before = server.requests()
          await reader.read(o, MiB)
          perRead.push(server.requests() - before)
        } else await byHand(o)
        return performance.now() - t0
      }
      const [a, b] = k % 2 ? [await run(0), await run(1)] : ((x: number, y: number) => [y, x])(await run(1), await run(0))
      ours.push(a)
      hand.push(b)
      ratios.push(a / b)
    }
    console.log(`random 1 MiB read of ${large} MiB over loopback HTTP: ${median(ours).toFixed(1)} ms vs by hand ${median(hand).toFixed(1)} ms, median ratio ${median(ratios).toFixed(3)}x (target <= 1.3); range requests per read after the index: max ${Math.max(...perRead)} (target <= 1)`)
    windows.dispose()
  } finally {
    server.close()
  }
}
console.log(`# load ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`)
