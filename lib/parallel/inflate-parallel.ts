/**
 * One-shot parallel decoding of one gzip, zlib or raw deflate stream (issue 31), by the
 * two-stage method of pugz and rapidgzip: the compressed input is cut into chunks of
 * `chunkBytes`; the first decodes from the stream's start, each other from the first
 * candidate block (or gzip member) header in its range with its history unknown
 * (inflate-chunk.ts); the chunks are then taken in order (inflate-chain.ts), each only
 * if it starts where the one before it ended, else decoded again from there with the
 * history known. A wrong guess costs time, never correctness: every byte of the output
 * comes from a chunk that starts where the stream decoded so far ends.
 *
 * Returns null when the input is not for this path (a zlib stream with a preset
 * dictionary, fewer than two chunks) or when anything is off: a check that fails, bytes
 * after the stream (trailing data, padding), a chunk that cannot grow: the caller then
 * decodes serially, which judges the input and reports its usual error and offset.
 * Errors that are not the input's (`ENGINE_UNAVAILABLE`, `ABORTED`) are thrown.
 */
import { readU32LE } from '../endian.js'
import { CodecError } from '../errors.js'
import { InflateChain, type ChainPosition, type TakenChunk } from './inflate-chain.js'
import { MAX_CHUNK_INPUT, type InflateChunkInfo, type InflateChunkJob, type PositionKind } from './inflate-chunk.js'
import type { JobResult, JobRunner } from './jobs.js'

/**
 * Compressed bytes per chunk: at most 4 MiB (about 19 MiB of output on text at gzip
 * -6, rapidgzip's default too), so that the part decoded before the markers die out
 * (often a few MiB on indented source text) is a small share; at least 1 MiB, and
 * otherwise about four chunks per thread, so that the last chunks balance the threads.
 */
export function deflateChunkBytes(bytes: number, threads: number): number {
  return Math.min(4 * 1024 * 1024, Math.max(1024 * 1024, Math.ceil(bytes / (4 * threads))))
}
/** A chunk's input runs this far past the next chunk's start: where it really ends is the first candidate boundary after it. */
const MARGIN_BYTES = 256 * 1024
/** A chunk ends at its first boundary past this much output (a bound on a job's memory for highly compressible input). */
const CHUNK_OUTPUT = 64 * 1024 * 1024

export interface InflateParallelOptions {
  readonly maxOutputBytes: number
  /** gzip: whether members may follow each other (the serial decoder's `concatenated`). */
  readonly concatenated: boolean
  /** Compressed bytes per chunk; smaller in tests, so that small inputs make many chunks. */
  readonly chunkBytes?: number
  /** How far a chunk's input runs past the next chunk's start. */
  readonly marginBytes?: number
  /** Record block boundaries about this many output bytes apart (for an index); 0 for none. */
  readonly spacing?: number
}

type Format = 'gzip' | 'deflate' | 'deflate-raw'

/** The result: the output, and (with `spacing`) the boundaries recorded (absolute bit, output offset, ...). */
export interface InflateParallelResult {
  readonly data: Uint8Array
  readonly points: readonly number[]
}

/** Where the deflate data (or the first member) starts, or -1 when the stream is not for this path. */
function streamStart(bytes: Uint8Array, format: Format): ChainPosition | null {
  if (format === 'gzip') return { bit: 0, kind: 'member' }
  if (format === 'deflate-raw') return { bit: 0, kind: 'block' }
  // RFC 1950 section 2.2: CMF, FLG; a preset dictionary (FDICT) goes to the serial decoder.
  if (bytes.length < 2) return null
  const cmf = bytes[0]!
  const flg = bytes[1]!
  if ((cmf & 15) !== 8 || cmf >> 4 > 7 || ((cmf << 8) | flg) % 31 !== 0 || flg & 0x20) return null
  return { bit: 16, kind: 'block' }
}

/** Decodes `bytes` in parallel (see the module comment), or returns null. */
export async function inflateParallel(bytes: Uint8Array, format: Format, options: InflateParallelOptions, run: JobRunner, inFlight: number): Promise<InflateParallelResult | null> {
  const start = streamStart(bytes, format)
  if (!start) return null
  const chunk = options.chunkBytes ?? deflateChunkBytes(bytes.length, inFlight >>> 1)
  const margin = options.marginBytes ?? MARGIN_BYTES
  const spacing = options.spacing ?? 0
  /** Output buffers of chunks already copied out, handed to the next jobs to write into. */
  const free: ArrayBuffer[] = []
  const first = start.bit / 8
  const count = Math.ceil((bytes.length - first) / chunk)
  if (count < 2) return null
  /** Chunk k's range starts at byte nominal(k). */
  const nominal = (k: number): number => (k >= count ? bytes.length : first + k * chunk)
  /** The job decoding from a known position (`window`: its history) to chunk k's end, its input running `extra` past it. */
  const knownJob = (k: number, at: ChainPosition, window: Uint8Array | null, extra: number): { job: InflateChunkJob; base: number } => {
    const base = Math.floor(at.bit / 8)
    const end = Math.min(bytes.length, Math.max(nominal(k + 1) + extra, base + 1), base + MAX_CHUNK_INPUT)
    const job: InflateChunkJob = {
      kind: 'inflate-chunk',
      format,
      input: bytes.subarray(base, end),
      from: at.bit - base * 8,
      at: at.kind as PositionKind,
      searchEnd: 0,
      window,
      stop: k + 1 < count ? (nominal(k + 1) - base) * 8 : -1,
      last: end === bytes.length,
      maxOutput: CHUNK_OUTPUT,
      spacing,
      scratch: free.pop() ?? null,
    }
    return { job, base }
  }
  /** Chunk k's own job: from the stream's start, or a search of its range. */
  const chunkJob = (k: number): { job: InflateChunkJob; base: number } => {
    if (k === 0) return knownJob(0, start, new Uint8Array(0), margin)
    const base = nominal(k)
    const end = Math.min(bytes.length, nominal(k + 1) + margin)
    const job: InflateChunkJob = {
      kind: 'inflate-chunk',
      format,
      input: bytes.subarray(base, end),
      from: 0,
      at: 'search',
      searchEnd: (nominal(k + 1) - base) * 8,
      window: null,
      stop: k + 1 < count ? (nominal(k + 1) - base) * 8 : -1,
      last: end === bytes.length,
      maxOutput: CHUNK_OUTPUT,
      spacing,
      scratch: free.pop() ?? null,
    }
    return { job, base }
  }

  type Outcome = { result: JobResult; base: number; error?: undefined } | { result?: undefined; base: number; error: unknown }
  const outcomes: (Promise<Outcome> | undefined)[] = []
  const submit = (k: number): void => {
    if (k >= count || outcomes[k]) return
    const { job, base } = chunkJob(k)
    outcomes[k] = Promise.resolve()
      .then(() => run(job))
      .then(
        (result) => ({ result, base }),
        (error: unknown) => ({ error, base }),
      )
  }
  const settle = async (): Promise<void> => {
    await Promise.all(outcomes.filter((o) => o !== undefined))
  }

  const chain = new InflateChain(format, start, options)
  const out = new OutputBuffer(format === 'gzip' && bytes.length >= 18 ? readU32LE(bytes, bytes.length - 4) : bytes.length * 4, options.maxOutputBytes)
  // Chunks taken, in order, with their symbols' resolve jobs: settled and copied out
  // from the front as those finish.
  const taken: { chunk: TakenChunk; resolved: Promise<Outcome> | null; ready: boolean }[] = []
  const resolve = (chunk: TakenChunk): Promise<Outcome> | null =>
    chunk.symbols
      ? Promise.resolve()
          .then(() => run({ kind: 'inflate-resolve', format, input: chunk.symbols!, window: chunk.window }))
          .then(
            (result) => ({ result, base: 0 }),
            (error: unknown) => ({ error, base: 0 }),
          )
      : null
  const settleFront = async (): Promise<void> => {
    const { chunk, resolved } = taken.shift()!
    let check = 0
    if (resolved) {
      const o = await resolved
      if (!o.result) throw o.error
      out.push(o.result.output)
      check = o.result.check
    }
    chain.settle(chunk, check)
    out.push(chunk.bytes)
    if (chunk.bytes.buffer instanceof ArrayBuffer && chunk.bytes.buffer.byteLength > 0) free.push(chunk.bytes.buffer)
  }
  /** Chunks whose outcome was taken or passed over. */
  let done = 0
  try {
    while (!chain.ended) {
      // The chunk whose range holds the position: the one that should start there.
      const pos = chain.position
      let k = Math.min(count - 1, Math.floor((pos.bit / 8 - first) / chunk))
      while (k + 1 < count && nominal(k + 1) * 8 <= pos.bit) k++
      for (let j = done; j < Math.min(k + inFlight, count); j++) submit(j)
      let info: InflateChunkInfo | null = null
      let output: Uint8Array | null = null
      let base = 0
      if (k >= done) {
        for (let j = done; j < k; j++) outcomes[j] = undefined
        done = k + 1
        const o = await outcomes[k]!
        outcomes[k] = undefined
        if (!o.result) throw o.error
        if (chain.continues(o.result.chunk!, o.base)) {
          info = o.result.chunk!
          output = o.result.output
          base = o.base
        }
      }
      // Not where the stream is: decoded again from there, the history known, its input
      // doubled while it gets nowhere (one block longer than the input given).
      for (let extra = margin; !info; extra *= 2) {
        const { job, base: b } = knownJob(k, pos, pos.kind === 'block' ? chain.history() : null, extra)
        const r = await run(job)
        if (chain.continues(r.chunk!, b)) {
          info = r.chunk!
          output = r.output
          base = b
        } else if (job.last || job.input.length >= MAX_CHUNK_INPUT) {
          return null
        }
      }
      const next = chain.take(info, output!, base)
      const entry = { chunk: next, resolved: resolve(next), ready: false }
      if (entry.resolved) void entry.resolved.then(() => (entry.ready = true))
      else entry.ready = true
      taken.push(entry)
      // Copied out as soon as they are ready (their buffers go to the next jobs), and
      // always before more than `inFlight` wait.
      while (taken.length > 0 && (taken[0]!.ready || taken.length > inFlight)) await settleFront()
    }
    while (taken.length > 0) await settleFront()
    // Bytes after the stream (another member's would have been decoded): the serial
    // decoder's to judge.
    if (chain.position.bit !== bytes.length * 8) return null
    return { data: out.result(), points: chain.points }
  } catch (error) {
    if (!(error instanceof CodecError) || error.code === 'ENGINE_UNAVAILABLE' || error.code === 'ABORTED') throw error
    return null
  } finally {
    await settle()
    await Promise.all(taken.map((t) => t.resolved))
  }
}

/** The output, grown as it comes (by half again), first sized by a guess (gzip's last ISIZE). */
class OutputBuffer {
  private bytes: Uint8Array
  private length = 0

  constructor(guess: number, limit: number) {
    this.bytes = new Uint8Array(Math.max(0, Math.min(guess, limit, 2 ** 31)))
  }

  push(piece: Uint8Array): void {
    const need = this.length + piece.length
    if (need > this.bytes.length) {
      const grown = new Uint8Array(Math.max(need, Math.floor(this.bytes.length * 1.5)))
      grown.set(this.bytes.subarray(0, this.length))
      this.bytes = grown
    }
    this.bytes.set(piece, this.length)
    this.length = need
  }

  result(): Uint8Array {
    return this.length === this.bytes.length ? this.bytes : this.bytes.slice(0, this.length)
  }
}
