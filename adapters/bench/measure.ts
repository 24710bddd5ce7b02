/**
 * `sluice bench`'s measurement of one row (a format, a level, a thread count) on one
 * input, with no `node:` import: the CLI (adapters/node/cli/bench.ts) runs it in a child
 * process per row, and a page can run it in a Worker per row.
 *
 * The input is encoded and decoded through the streams `sluice compress` and `sluice
 * decompress` use (compress-plan.ts), fed in reads of `READ_BYTES`, so the row's output
 * size is the size `compress` writes, byte for byte. The clock starts after a warm-up
 * on a prefix of the input (which loads the engines, starts the workers and lets the JIT
 * see the driver), so neither engine loading nor warm-up is timed. Each of `rounds`
 * rounds times a few passes of encoding, then of decoding, over the whole input (as many
 * passes as take about `minRoundSeconds`, so small inputs are not timed below the
 * clock's resolution); speeds are input (uncompressed) bytes per second, MB = 10^6
 * bytes, wall time, as lzbench and `zstd -b` count them; the row reports the median
 * round and the slowest and fastest. After the timed rounds, one more decode is compared
 * with the input, byte for byte.
 */
import type { Format } from '../../lib/codec.js'
import type { Threads } from '../../streams/thread-options.js'
import { compressPair, decoderOptions, decompressPair, encoderOptions, READ_BYTES, type CompressSettings } from './compress-plan.js'
import { ratioOf } from '../../lib/ratio.js'

/** One row to run. */
export interface BenchSpec {
  format: Format
  level: number
  threads: Threads
}

/** What one row measured. */
export interface BenchMeasure extends BenchSpec {
  inputBytes: number
  /** The encoded size: what `sluice compress` writes at this format, level and thread count. */
  outputBytes: number
  /** inputBytes / outputBytes (ratio.ts), 4 decimals. */
  ratio: number
  /** Median over the rounds of input MB (10^6 bytes) encoded per second. */
  encodeMBps: number
  encodeMBpsMin: number
  encodeMBpsMax: number
  /** Median over the rounds of input (decoded) MB per second. */
  decodeMBps: number
  decodeMBpsMin: number
  decodeMBpsMax: number
  rounds: number
  /** Passes over the input in each timed round: encoding, decoding. */
  encodePasses: number
  decodePasses: number
  /**
   * The most the `memory` probe's reading rose above its reading before the row's first
   * encode (engines, workers, buffers, the encoded output held for decoding); null
   * without a probe.
   */
  peakMemoryBytes: number | null
}

/** Options of `measureRow`. */
export interface MeasureOptions {
  /** Timed rounds (default 3). */
  rounds?: number
  /** The least time one round spends in each direction (default 0.2 s): more passes when one is shorter. */
  minRoundSeconds?: number
  /** Encoder settings besides level and threads (blockSize, long, seekable, dictionary...), as `sluice compress` takes them. */
  settings?: Omit<CompressSettings, 'level' | 'threads'>
  /**
   * Bytes in use now (Node: `process.memoryUsage.rss`), read before the row and about
   * every 10 ms while it runs. Engines keep their WebAssembly memory once grown, so run
   * each row in a fresh process or Worker for the reading to be the row's own.
   */
  memory?: () => number
  /** Progress: bytes processed so far, and in all (known once the warm-up has run); about every 100 ms. */
  onProgress?: (done: number, total: number) => void
  /** The clock in milliseconds (default `performance.now`). */
  now?: () => number
}

/** The largest prefix the warm-up encodes: 1 MiB per thread, at most 16 MiB. */
const WARM_BYTES_PER_THREAD = 1 << 20
const WARM_BYTES_MAX = 16 << 20
/** How often the memory probe and the progress callback are called at most, in ms. */
const SAMPLE_MS = 10
const PROGRESS_MS = 100

/** Measures one row on `input`. Throws when the codec fails or the decoded bytes differ from the input. */
export async function measureRow(input: Uint8Array, spec: BenchSpec, options: MeasureOptions = {}): Promise<BenchMeasure> {
  const rounds = options.rounds ?? 3
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds must be a whole number from 1, got ${rounds}`)
  const now = options.now ?? (() => performance.now())
  const settings: CompressSettings = { ...options.settings, level: spec.level, threads: spec.threads }
  const decoding = decoderOptions(spec.format, settings)
  const meter = new Meter(now, options.memory, options.onProgress)

  // Warm-up, untimed: engines load, workers start, the JIT sees the driver.
  const threadCount = typeof spec.threads === 'number' ? spec.threads : 4
  const warm = input.subarray(0, Math.min(input.length, WARM_BYTES_MAX, WARM_BYTES_PER_THREAD * Math.max(1, threadCount)))
  const warmEncoded = await encodeOnce(spec.format, encoderOptions(spec.format, settings, warm.length).options, warm, meter, true)
  await decodeOnce(decoding, warmEncoded, meter, null)
  // A second, warm pass over the prefix says how long a pass over the input takes.
  let t0 = now()
  const warmEncoded2 = await encodeOnce(spec.format, encoderOptions(spec.format, settings, warm.length).options, warm, meter, true)
  const encodeEstimate = ((now() - t0) / 1000) * (input.length / Math.max(1, warm.length))
  t0 = now()
  await decodeOnce(decoding, warmEncoded2, meter, null)
  const decodeEstimate = ((now() - t0) / 1000) * (input.length / Math.max(1, warm.length))
  const minSeconds = options.minRoundSeconds ?? 0.2
  const encodePasses = passesFor(encodeEstimate, minSeconds)
  const decodePasses = passesFor(decodeEstimate, minSeconds)
  meter.plan(input.length * (rounds * (encodePasses + decodePasses) + 1))

  const plan = encoderOptions(spec.format, settings, input.length).options
  const encodeSpeeds: number[] = []
  const decodeSpeeds: number[] = []
  let encoded: Uint8Array | null = null
  for (let round = 0; round < rounds; round++) {
    t0 = now()
    for (let pass = 0; pass < encodePasses; pass++) {
      const out = await encodeOnce(spec.format, plan, input, meter, true)
      if (encoded !== null && out.length !== encoded.length) throw new Error(`${spec.format} -${spec.level}: the encoded size changed between passes (${encoded.length}, then ${out.length} bytes)`)
      encoded = out
    }
    encodeSpeeds.push(mbps(input.length * encodePasses, now() - t0))
    meter.sample()
    t0 = now()
    for (let pass = 0; pass < decodePasses; pass++) await decodeOnce(decoding, encoded!, meter, null)
    decodeSpeeds.push(mbps(input.length * decodePasses, now() - t0))
    meter.sample()
  }
  // Untimed: the decoded bytes are the input's.
  const decodedBytes = await decodeOnce(decoding, encoded!, meter, input)
  if (decodedBytes !== input.length) throw new Error(`${spec.format} -${spec.level}: decoded ${decodedBytes} bytes, the input has ${input.length}`)
  meter.done()
  return {
    ...spec,
    inputBytes: input.length,
    outputBytes: encoded!.length,
    ratio: ratioOf(input.length, encoded!.length) ?? 0,
    encodeMBps: median(encodeSpeeds),
    encodeMBpsMin: Math.min(...encodeSpeeds),
    encodeMBpsMax: Math.max(...encodeSpeeds),
    decodeMBps: median(decodeSpeeds),
    decodeMBpsMin: Math.min(...decodeSpeeds),
    decodeMBpsMax: Math.max(...decodeSpeeds),
    rounds,
    encodePasses,
    decodePasses,
    peakMemoryBytes: meter.peak(),
  }
}

/** Passes of `seconds` each that fill `minSeconds`: at least 1, at most 1000. */
function passesFor(seconds: number, minSeconds: number): number {
  if (!(seconds > 0)) return 1000
  return Math.max(1, Math.min(1000, Math.ceil(minSeconds / seconds)))
}

const mbps = (bytes: number, ms: number): number => round2(bytes / 1e6 / (Math.max(ms, 1e-3) / 1000))
const round2 = (x: number): number => Math.round(x * 100) / 100

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : round2((s[m - 1]! + s[m]!) / 2)
}

/** Memory readings and progress reports, at most every SAMPLE_MS and PROGRESS_MS, from the hot loops. */
class Meter {
  readonly #now: () => number
  readonly #memory: (() => number) | undefined
  readonly #onProgress: ((done: number, total: number) => void) | undefined
  readonly #baseline: number
  #highest: number
  #lastSample = -Infinity
  #lastReport = -Infinity
  #done = 0
  #total = 0

  constructor(now: () => number, memory: (() => number) | undefined, onProgress: ((done: number, total: number) => void) | undefined) {
    this.#now = now
    this.#memory = memory
    this.#onProgress = onProgress
    this.#baseline = this.#highest = memory ? memory() : 0
  }

  /** The bytes the timed passes and the check will process; counting starts here. */
  plan(total: number): void {
    this.#total = total
    this.#done = 0
  }

  /** `bytes` of input processed (counted once the plan is made). */
  tick(bytes: number): void {
    if (this.#total > 0) this.#done += bytes
    if (!this.#memory && !this.#onProgress) return
    const t = this.#now()
    if (this.#memory && t - this.#lastSample >= SAMPLE_MS) this.sample(t)
    if (this.#onProgress && this.#total > 0 && t - this.#lastReport >= PROGRESS_MS) {
      this.#lastReport = t
      this.#onProgress(Math.min(this.#done, this.#total), this.#total)
    }
  }

  sample(t = this.#now()): void {
    if (!this.#memory) return
    this.#lastSample = t
    const m = this.#memory()
    if (m > this.#highest) this.#highest = m
  }

  done(): void {
    this.sample()
    this.#onProgress?.(this.#total, this.#total)
  }

  peak(): number | null {
    return this.#memory ? Math.max(0, this.#highest - this.#baseline) : null
  }
}

/**
 * Writes `input` to `pair` in reads of READ_BYTES while reading its output; rejects with
 * the pair's error. The meter counts the uncompressed side: what is written when
 * `counted` is 'input' (encoding), what is read when 'output' (decoding).
 */
async function pump(pair: ReadableWritablePair<Uint8Array, BufferSource>, input: Uint8Array, meter: Meter, counted: 'input' | 'output', sink: (chunk: Uint8Array) => void): Promise<void> {
  const writer = pair.writable.getWriter()
  const reader = pair.readable.getReader()
  const feed = async () => {
    for (let at = 0; at < input.length; at += READ_BYTES) {
      const chunk = input.subarray(at, Math.min(input.length, at + READ_BYTES))
      await writer.write(chunk as Uint8Array<ArrayBuffer>)
      if (counted === 'input') meter.tick(chunk.length)
    }
    await writer.close()
  }
  const drain = async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      sink(r.value)
      if (counted === 'output') meter.tick(r.value.length)
    }
  }
  try {
    await Promise.all([feed(), drain()])
  } catch (error) {
    // One side failed: stop the other, so no stream is left pending.
    await Promise.allSettled([writer.abort(error), reader.cancel(error)])
    throw error
  }
}

/** Encodes `input` as `sluice compress` does; returns the encoded bytes (or an empty array unless `keep`). */
async function encodeOnce(format: Format, options: Record<string, unknown>, input: Uint8Array, meter: Meter, keep: boolean): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  let total = 0
  await pump(compressPair(format, { options, notes: [] }), input, meter, 'input', (chunk) => {
    total += chunk.length
    if (keep) parts.push(chunk)
  })
  if (!keep) return new Uint8Array(0)
  const out = new Uint8Array(total)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** Decodes `encoded` as `sluice decompress` does; returns the decoded length. With `expected`, compares every byte. */
async function decodeOnce(options: ReturnType<typeof decoderOptions>, encoded: Uint8Array, meter: Meter, expected: Uint8Array | null): Promise<number> {
  let total = 0
  await pump(decompressPair(options), encoded, meter, 'output', (chunk) => {
    if (expected !== null) {
      if (total + chunk.length > expected.length) throw new Error(`decoded more bytes than the input's ${expected.length}`)
      for (let i = 0; i < chunk.length; i++) if (chunk[i] !== expected[total + i]) throw new Error(`decoded bytes differ from the input at byte ${total + i}`)
    }
    total += chunk.length
  })
  return total
}
