// Round-trip identity for every format and a spread of levels: decode(encode(x)) === x
// through the streams, with random chunk splits on both sides (fixed seeds), for
// arbitrary-shaped inputs: empty, 1 byte, incompressible, highly repetitive, and real
// text larger than 4 MiB. Every engine of every format (the format table's enginesOf);
// an engine this runtime lacks is skipped with the reason printed.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import type { Format } from '../lib/codec.js'
import { enginesOf } from '../lib/formats.js'
import { loadCodec } from '../lib/registry.js'
import { decodeStream, encodeStream } from '../streams/index.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'

/**
 * Levels per format: the fastest, the default, the strongest (capped where very slow).
 * The dictionary transports need a dictionary: test/dictionary-transport.test.ts.
 */
const levels: Record<Exclude<Format, 'lz4-block' | 'dcz' | 'dcb'>, number[]> = {
  gzip: [0, 1, 6, 9],
  deflate: [1, 6, 9],
  'deflate-raw': [1, 6, 9],
  lz4: [1, 9],
  zstd: [1, 3, 19],
  brotli: [0, 5, 11],
  snappy: [1],
  'snappy-raw': [1],
}

const big = filesCorpus(join(root, 'node_modules/typescript/lib'), (4 << 20) + 12345, /\.d\.ts$/)
const repetitive = new Uint8Array(1 << 20).map((_, i) => (i % 251) ^ ((i >> 12) & 3))
const inputs: Array<[string, Uint8Array]> = [
  ['empty', new Uint8Array(0)],
  ['1 byte', new Uint8Array([7])],
  ['incompressible 200 KB', randomBytes(200_000, 99)],
  ['repetitive 1 MiB', repetitive],
  ['real text 4 MiB + 12345', big],
]

/** xorshift32, for chunk sizes. */
function rng(seed: number) {
  let x = seed | 0 || 1
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
}

/** Splits `data` into random chunks (1 byte up to 2 * mean), including empty ones. */
function split(data: Uint8Array, seed: number, mean: number): Uint8Array[] {
  const r = rng(seed)
  const parts: Uint8Array[] = []
  for (let at = 0; at < data.length; ) {
    const n = r() < 0.05 ? 0 : 1 + Math.floor(r() * 2 * mean)
    parts.push(data.subarray(at, at + n))
    at += n
  }
  if (r() < 0.5) parts.push(new Uint8Array(0))
  return parts
}

async function through(parts: Uint8Array[], stream: TransformStream<Uint8Array, Uint8Array>): Promise<Uint8Array> {
  const src = new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(p)
      c.close()
    },
  })
  const out: Uint8Array[] = []
  await src.pipeThrough(stream).pipeTo(new WritableStream({ write: (c) => void out.push(c) }))
  const all = new Uint8Array(out.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of out) {
    all.set(c, at)
    at += c.length
  }
  return all
}

for (const [format, lv] of Object.entries(levels) as Array<[Exclude<Format, 'lz4-block'>, number[]]>) for (const engine of enginesOf(format)) {
  const label = `${format} (engine ${engine})`
  try {
    await loadCodec(format, engine)
  } catch (e) {
    console.log(`# skipped: ${label} round trip (${(e as Error).message.split('\n')[0]})`)
    test.skip(`${label}: round trip`, () => {})
    continue
  }
  test(`${label}: round trip at levels ${lv.join(', ')} with random splits on both sides`, async () => {
    let seed = 1
    for (const level of lv) {
      for (const [name, data] of inputs) {
        // The strongest levels of the slow formats on the 4 MiB input take seconds each.
        if (data === big && level !== lv[0] && (format === 'brotli' || format === 'zstd') && level > 5) continue
        seed++
        const mean = data.length > 100_000 ? 50_000 : 37
        const packed = await through(split(data, seed, mean), encodeStream(format, { level, engine }) as TransformStream<Uint8Array, Uint8Array>)
        const back = await through(split(packed, seed * 7, Math.max(3, mean >> 2)), decodeStream(format, { engine }) as TransformStream<Uint8Array, Uint8Array>)
        assert.is(back.length, data.length, `${label} level ${level} ${name}: length`)
        assert.ok(Buffer.compare(back, data) === 0, `${label} level ${level} ${name}: bytes differ`)
      }
    }
  })
}

test.run()
