/**
 * `sluice bench`'s measurement of one row (a format, a level, a thread count) on one
 * input, with no `node:` import: the CLI (adapters/node/cli/bench.ts) runs it in a child
 * process per row, and a page can run it in a Worker per row.
 *
 * The input is encoded and decoded through the streams `sluice compress` and `sluice
 * decompress` use (compress-plan.ts), fed in reads of `READ_BYTES`, so the row's output
 * size is the size `compress` writes, byte for byte. Untimed passes come first (they
 * load the engines, start the workers, let the JIT see the driver, read the memory and
 * compare the decoded bytes with the input), so neither engine loading nor warm-up is
 * timed. Each of `rounds` rounds then times a few passes of encoding, then of decoding,
 * over the whole input (as many passes as take about `minRoundSeconds`, so that small
 * inputs are not timed below the clock's resolution); speeds are input (uncompressed)
 * bytes per second, MB = 10^6 bytes, wall time, as lzbench and `zstd -b` count them; the
 * row reports the median round and the slowest and fastest.
 */
import { joinBytes } from '../../lib/bytes.js'
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
   * The most the `memory` probe's reading rose during the row's first encode (above its
   * reading before the engines loaded) or its first decode (above its reading after the
   * encode, the encoded bytes held): engines, workers, buffers in flight. Null without a
   * probe.
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
   * Bytes in use now (Node: `process.memoryUsage.rss`), read after every chunk of the
   * row's first encode (from before the engines load) and of its first decode (from
   * after the encode). Engines keep their WebAssembly memory once grown, so run each
   * row in a fresh process or Worker for the reading to be the row's own.
   */
  memory?: () => number
  /** A full garbage collection (Node with `--expose-gc`: `globalThis.gc`), run before each memory reading so that garbage does not count. */
  gc?: () => void
  /** Progress: bytes processed so far, and in all; about every 100 ms. */
  onProgress?: (done: number, total: number) => void
  /** The clock in milliseconds (default `performance.now`). */
  now?: () => number
}

/** How often the progress callback is called at most, in ms. */
const PROGRESS_MS = 100

/**
 * Measures one row on `input`. Throws when the codec fails or the decoded bytes differ
 * from the input. The passes, in order: with a memory probe, a first encode whose
 * output is dropped (memory read after every chunk); an encode that keeps its output
 * (untimed: it says how long a pass takes); a decode compared with the input byte for
 * byte (memory read after every chunk); a decode that says how long a pass takes; then
 * the timed rounds.
 */
export async function measureRow(input: Uint8Array, spec: BenchSpec, options: MeasureOptions = {}): Promise<BenchMeasure> {
  const rounds = options.rounds ?? 3
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds must be a whole number from 1, got ${rounds}`)
  const now = options.now ?? (() => performance.now())
  const settings: CompressSettings = { ...options.settings, level: spec.level, threads: spec.threads }
  const plan = encoderOptions(spec.format, settings, input.length).options
  const decoding = decoderOptions(spec.format, settings)
  const probe = options.memory ? new MemoryProbe(options.memory, options.gc) : null
  const meter = new Meter(now, options.onProgress)
  const untimed = (probe ? 1 : 0) + 3
  meter.plan(input.length * (untimed + 2 * rounds))

  // Untimed: engines load, workers start, the JIT sees the driver; memory; the check.
  let peak: number | null = null
  if (probe) {
    probe.start()
    await encodeOnce(spec.format, plan, input, meter, null, probe.sample)
    peak = probe.rise()
  }
  let t0 = now()
  const kept: Uint8Array[] = []
  const outputBytes = await encodeOnce(spec.format, plan, input, meter, kept)
  const encodeEstimate = (now() - t0) / 1000
  const encoded = joinBytes(kept, outputBytes)
  probe?.start()
  const decodedBytes = await decodeOnce(decoding, encoded, meter, input, probe?.sample)
  if (decodedBytes !== input.length) throw new Error(`${spec.format} -${spec.level}: decoded ${decodedBytes} bytes, the input has ${input.length}`)
  if (probe) peak = Math.max(peak!, probe.rise())
  t0 = now()
  await decodeOnce(decoding, encoded, meter, null)
  const decodeEstimate = (now() - t0) / 1000
  const minSeconds = options.minRoundSeconds ?? 0.2
  const encodePasses = passesFor(encodeEstimate, minSeconds)
  const decodePasses = passesFor(decodeEstimate, minSeconds)
  meter.plan(meter.done + input.length * rounds * (encodePasses + decodePasses))

  const encodeSpeeds: number[] = []
  const decodeSpeeds: number[] = []
  for (let round = 0; round < rounds; round++) {
    t0 = now()
    for (let pass = 0; pass < encodePasses; pass++) {
      const size = await encodeOnce(spec.format, plan, input, meter, null)
      if (size !== outputBytes) throw new Error(`${spec.format} -${spec.level}: the encoded size changed between passes (${outputBytes}, then ${size} bytes)`)
    }
    encodeSpeeds.push(mbps(input.length * encodePasses, now() - t0))
    t0 = now()
    for (let pass = 0; pass < decodePasses; pass++) await decodeOnce(decoding, encoded, meter, null)
    decodeSpeeds.push(mbps(input.length * decodePasses, now() - t0))
  }
  meter.finish()
  return {
    ...spec,
    inputBytes: input.length,
    outputBytes,
    ratio: ratioOf(input.length, outputBytes) ?? 0,
    encodeMBps: median(encodeSpeeds),
    encodeMBpsMin: Math.min(...encodeSpeeds),
    encodeMBpsMax: Math.max(...encodeSpeeds),
    decodeMBps: median(decodeSpeeds),
    decodeMBpsMin: Math.min(...decodeSpeeds),
    decodeMBpsMax: Math.max(...decodeSpeeds),
    rounds,
    encodePasses,
    decodePasses,
    peakMemoryBytes: peak,
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

/** The highest memory reading above a baseline, each reading after a garbage collection when one can be asked for. */
class MemoryProbe {
  readonly #read: () => number
  readonly #gc: (() => void) | undefined
  #base = 0
  #highest = 0

  constructor(read: () => number, gc: (() => void) | undefined) {
    this.#read = read
    this.#gc = gc
  }

  /** A new baseline: the reading now. */
  start(): void {
    this.#gc?.()
    this.#base = this.#highest = this.#read()
  }

  readonly sample = (): void => {
    this.#gc?.()
    const m = this.#read()
    if (m > this.#highest) this.#highest = m
  }

  /** The most the readings rose above the baseline. */
  rise(): number {
    return Math.max(0, this.#highest - this.#base)
  }
}

/** Progress reports from the hot loops, at most every PROGRESS_MS. */
class Meter {
  readonly #now: () => number
  readonly #onProgress: ((done: number, total: number) => void) | undefined
  #lastReport = -Infinity
  done = 0
  #total = 0

  constructor(now: () => number, onProgress: ((done: number, total: number) => void) | undefined) {
    this.#now = now
    this.#onProgress = onProgress
  }

  /** The bytes all the passes will process (input bytes: encoding's input, decoding's output). */
  plan(total: number): void {
    this.#total = total
  }

  tick(bytes: number): void {
    this.done += bytes
    if (!this.#onProgress) return
    const t = this.#now()
    if (t - this.#lastReport >= PROGRESS_MS) {
      this.#lastReport = t
      this.#onProgress(Math.min(this.done, this.#total), this.#total)
    }
  }

  finish(): void {
    this.#onProgress?.(this.#total, this.#total)
  }
}

/**
 * Writes `input` to `pair` in reads of READ_BYTES while reading its output; rejects with
 * the pair's error. The meter counts the uncompressed side: what is written when
 * `counted` is 'input' (encoding), what is read when 'output' (decoding). `sample` runs
 * after every chunk either way.
 */
async function pump(pair: ReadableWritablePair<Uint8Array, BufferSource>, input: Uint8Array, meter: Meter, counted: 'input' | 'output', sink: (chunk: Uint8Array) => void, sample?: () => void): Promise<void> {
  const writer = pair.writable.getWriter()
  const reader = pair.readable.getReader()
  const feed = async () => {
    for (let at = 0; at < input.length; at += READ_BYTES) {
      const chunk = input.subarray(at, Math.min(input.length, at + READ_BYTES))
      await writer.write(chunk as Uint8Array<ArrayBuffer>)
      if (counted === 'input') meter.tick(chunk.length)
      sample?.()
    }
    await writer.close()
  }
  const drain = async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      sink(r.value)
      if (counted === 'output') meter.tick(r.value.length)
      sample?.()
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

/** Encodes `input` as `sluice compress` does; returns the encoded size, the chunks pushed to `keep` when given. */
async function encodeOnce(format: Format, options: Record<string, unknown>, input: Uint8Array, meter: Meter, keep: Uint8Array[] | null, sample?: () => void): Promise<number> {
  let total = 0
  await pump(compressPair(format, { options, notes: [] }), input, meter, 'input', (chunk) => {
    total += chunk.length
    keep?.push(chunk)
  }, sample)
  return total
}

/** Decodes `encoded` as `sluice decompress` does; returns the decoded length. With `expected`, compares every byte. */
async function decodeOnce(options: ReturnType<typeof decoderOptions>, encoded: Uint8Array, meter: Meter, expected: Uint8Array | null, sample?: () => void): Promise<number> {
  let total = 0
  await pump(decompressPair(options), encoded, meter, 'output', (chunk) => {
    if (expected !== null) {
      if (total + chunk.length > expected.length) throw new Error(`decoded more bytes than the input's ${expected.length}`)
      for (let i = 0; i < chunk.length; i++) if (chunk[i] !== expected[total + i]) throw new Error(`decoded bytes differ from the input at byte ${total + i}`)
    }
    total += chunk.length
  }, sample)
  return total
}
