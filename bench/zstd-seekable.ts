// The zstd seekable format against the same work done by hand, in one run (issue 25's
// target rows). The archive is a log file (deterministic synthetic lines: timestamps,
// hosts, paths, statuses, request ids), written at level 3 in 1 MiB frames, and served
// statically by a loopback node:http server that honours Range (in this process: client
// and server share the machine in both columns alike).
//
// Rows:
// 1. a random read of 1 MiB at a random offset over HTTP: openZstdSeekable over
//    httpRangeSource (table read once, no frame cache) vs by hand (one ranged fetch of
//    the covering frames, then decode() and a subarray); range requests per read after
//    the table; median of the per-pair time ratios (wall time: the fetch is I/O);
// 2. whole-archive decode through stream() (from memory) vs zstdDecode() of the same
//    bytes as one stream; CPU time, median of pair ratios;
// 3. seekable vs plain size at level 3.
// The 1 GiB `zstd --long=31` peak-RSS row is measured apart (docs/zstd-archives.md).
//
// Usage: node --import tsx bench/zstd-seekable.ts [MiB, default 256] [reads, default 40]
import { decode, httpRangeSource, openZstdSeekable, zstdDecode, zstdEncode } from '../index.js'
import { logText, serveRanges } from './_logs.js'
import { cpuMs as cpu, median } from './_measure.js'

const mib = Number(process.argv[2] ?? 256)
const reads = Number(process.argv[3] ?? 40)
const FRAME = 1 << 20

/**
 * Encodes through a stream in 4 MiB writes: one-shot encode() of more than about 100 MiB
 * fails in the machine today (it copies the unconsumed input, at most 64 MiB, whenever it
 * hands out output), for plain zstd as for seekable.
 */
async function encodeStreamed(data: Uint8Array, options: Record<string, unknown>): Promise<Uint8Array> {
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < data.length; i += 4 << 20) c.enqueue(data.subarray(i, i + (4 << 20)))
      c.close()
    },
  })
  const parts: Uint8Array[] = []
  let total = 0
  for await (const part of source.pipeThrough(zstdEncode(options)) as unknown as AsyncIterable<Uint8Array>) {
    parts.push(part)
    total += part.length
  }
  const out = new Uint8Array(total)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const content = logText(mib * FRAME)
const archive = await encodeStreamed(content, { seekable: true, frameSize: FRAME, level: 3 })
const plain = await encodeStreamed(content, { level: 3 })
console.log(`# ${mib} MiB of log lines; seekable ${archive.length} bytes, plain ${plain.length} bytes`)
console.log(`seekable vs plain size, level 3, 1 MiB frames: ${(archive.length / plain.length).toFixed(4)}x (target <= 1.03)`)

// The static server: HEAD and ranged GETs, counted.
const server = await serveRanges(archive, 'logs.zst', 'application/zstd')
const url = server.url

try {
  const reader = await openZstdSeekable(await httpRangeSource(url), { cacheFrames: 0 })
  const frames = reader.frames
  let seed = 42
  const offsets = Array.from({ length: reads }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % (content.length - FRAME))
  const byHand = async (offset: number) => {
    // The covering frames from the same table, one ranged fetch, decode(), subarray.
    const first = frames.findIndex((f) => offset < f.offset + f.size)
    const last = frames.findIndex((f) => offset + FRAME <= f.offset + f.size)
    const from = frames[first]!.compressedOffset
    const to = frames[last]!.compressedOffset + frames[last]!.compressedSize
    const res = await fetch(url, { headers: { range: `bytes=${from}-${to - 1}` } })
    const out = await decode('zstd', new Uint8Array(await res.arrayBuffer()))
    return out.subarray(offset - frames[first]!.offset, offset - frames[first]!.offset + FRAME)
  }
  // Warm-up, and a check that both give the content.
  for (const o of offsets.slice(0, 2)) {
    const a = await reader.read(o, FRAME)
    const b = await byHand(o)
    if (Buffer.compare(a, content.subarray(o, o + FRAME)) !== 0 || Buffer.compare(b, a) !== 0) throw new Error(`read at ${o} differs`)
  }
  const ratios: number[] = []
  const perRead: number[] = []
  const ours: number[] = []
  const hand: number[] = []
  for (const [k, o] of offsets.entries()) {
    // Alternating order, so neither side always runs first.
    const run = async (which: 0 | 1) => {
      const t0 = performance.now()
      if (which === 0) {
        const before = server.requests()
        await reader.read(o, FRAME)
        perRead.push(server.requests() - before)
      } else await byHand(o)
      return performance.now() - t0
    }
    const [a, b] = k % 2 ? [await run(0), await run(1)] : ((x, y) => [y, x])(await run(1), await run(0))
    ours.push(a)
    hand.push(b)
    ratios.push(a / b)
  }
  console.log(
    `random 1 MiB read over loopback HTTP: ${median(ours).toFixed(2)} ms vs by hand ${median(hand).toFixed(2)} ms, median ratio ${median(ratios).toFixed(3)}x (target <= 1.25); range requests per read: max ${Math.max(...perRead)} (target <= 2)`,
  )

  // Whole-archive decode: stream() over the bytes in memory vs one zstdDecode() stream.
  const memory = await openZstdSeekable(archive, { cacheFrames: 0 })
  const viaSeekable = async () => {
    let n = 0
    for await (const c of memory.stream() as unknown as AsyncIterable<Uint8Array>) n += c.length
    return n
  }
  const viaStream = async () => {
    let n = 0
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < archive.length; i += 1 << 20) c.enqueue(archive.subarray(i, i + (1 << 20)))
        c.close()
      },
    })
    for await (const c of source.pipeThrough(zstdDecode()) as unknown as AsyncIterable<Uint8Array>) n += c.length
    return n
  }
  const wholeRatios: number[] = []
  const s: number[] = []
  const p: number[] = []
  for (let r = 0; r < 5; r++) {
    const time = async (f: () => Promise<number>) => {
      const t0 = cpu()
      if ((await f()) !== content.length) throw new Error('short decode')
      return cpu() - t0
    }
    const [a, b] = r % 2 ? [await time(viaSeekable), await time(viaStream)] : ((x, y) => [y, x])(await time(viaStream), await time(viaSeekable))
    s.push(a)
    p.push(b)
    wholeRatios.push(b / a)
  }
  console.log(
    `whole archive: stream() ${(content.length / 1e6 / (median(s) / 1000)).toFixed(0)} MB/s vs zstdDecode() ${(content.length / 1e6 / (median(p) / 1000)).toFixed(0)} MB/s, speed ratio ${median(wholeRatios).toFixed(3)}x (target >= 0.95)`,
  )
} finally {
  server.close()
}
