// BYOB vs default reads of a decoder's output, in one run: MB/s of decoded output over
// CPU time (median of the timed runs), for gzip, zstd and LZ4 of the text corpus. Prints
// a markdown table (`npm run bench:docs -- byob` writes it into docs/performance.md).
//
//   node --import tsx --expose-gc bench/byob.ts      (corpus of BENCH_MB MB, default 16)
//
// default: getReader(), one chunk per read (chunks of the machine's blocks);
// byob:    getReader({ mode: 'byob' }) into one reused 64 KiB buffer.
import type { Format } from '../lib/codec.js'
import { decodeStream, encode } from '../streams/index.js'
import { chunks, corpus } from './corpus.js'

const gc = (globalThis as { gc?: () => void }).gc
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

async function run(format: Format, packed: Uint8Array[], byob: boolean): Promise<number> {
  const d = decodeStream(format)
  const writer = d.writable.getWriter()
  const fed = (async () => {
    for (const p of packed) await writer.write(p)
    await writer.close()
  })()
  let total = 0
  if (byob) {
    const reader = d.readable.getReader({ mode: 'byob' })
    let buffer = new ArrayBuffer(64 * 1024)
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer))
      if (done) break
      total += value!.byteLength
      buffer = value!.buffer
    }
  } else {
    const reader = d.readable.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      total += value.byteLength
    }
  }
  await fed
  return total
}

const raw = corpus('text')
console.log(`# text corpus, ${(raw.length / 1e6).toFixed(1)} MB decoded; output MB/s per CPU second, median of at least 3 timed runs`)
console.log('| decoder | default reads, MB/s | BYOB reads (64 KiB buffer), MB/s | BYOB / default |')
console.log('|---|---:|---:|---:|')
for (const format of ['gzip', 'zstd', 'lz4'] as Format[]) {
  const packed = chunks(await encode(format, raw))
  let base = 0
  for (const byob of [false, true]) {
    await run(format, packed, byob)
    const cpu: number[] = []
    const start = performance.now()
    while (cpu.length < 3 || (performance.now() - start < 1500 && cpu.length < 20)) {
      gc?.()
      const c0 = process.cpuUsage()
      await run(format, packed, byob)
      const c = process.cpuUsage(c0)
      cpu.push((c.user + c.system) / 1000)
    }
    const mbps = raw.length / 1e6 / (median(cpu) / 1000)
    if (!byob) base = mbps
    else console.log(`| ${format} | ${base.toFixed(0)} | ${mbps.toFixed(0)} | ${(mbps / base).toFixed(2)}× |`)
  }
}
