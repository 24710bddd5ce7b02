/**
 * Parallel decoding of one gzip, zlib or raw deflate stream (issue 31): the order in
 * which chunks are cut, run and put back together, for the one-shot decode
 * (inflate-parallel.ts, input all there) and the decoding stream (input arriving), which
 * differ only in their `InflateSource` and in what they do with the output (`emit`).
 *
 * Two plans:
 * - `guess` (no index), the two-stage method of pugz and rapidgzip: the compressed input
 *   is cut into chunks of `chunkBytes`; the first decodes from the stream's start, each
 *   other from the first candidate block (or gzip member) header in its range with its
 *   history unknown (inflate-chunk.ts); a chunk is taken only if it starts where the one
 *   before it ended (inflate-chain.ts), else the stream is decoded again from there with
 *   its history known, its input doubled while it gets nowhere. A wrong guess costs
 *   time, never correctness.
 * - `index`: spans between an index's points (lib/gzip-index/gzip-index.ts), grouped to
 *   about `groupBytes` of output, each decoded from its point with the point's window and
 *   ending at the next group's point, which it must meet exactly.
 * - `members`: groups of whole members (BGZF), each decoded from its first member's
 *   header through its last one's trailer, into at most the size their ISIZEs add up to.
 *
 * Markers are resolved by jobs of their own (markers.ts) and the chunks' outputs emitted
 * in order. When `emit` copies them (`recycle`), the buffers of outputs emitted go back
 * to the next jobs as their scratch, so that workers do not write fresh pages for every
 * chunk.
 *
 * The run ends `ok` at the stream's end (the position after its last trailer), or not:
 * a check that failed (`error`), a chunk that cannot grow, an index that does not match.
 * Either way `chain` says where the output emitted ends, with the history and checksums
 * there, from which the caller decodes the rest serially (the stream) or everything
 * again (one-shot), so that errors are the serial decoder's.
 */
import { CodecError } from '../errors.js'
import type { GzipIndex } from '../gzip-index/gzip-index.js'
import { InflateChain, type ChainPosition, type SettledState, type TakenChunk } from './inflate-chain.js'
import { MAX_CHUNK_INPUT, type InflateChunkJob, type PositionKind } from './inflate-chunk.js'
import type { JobResult, JobRunner } from './jobs.js'

/** The compressed input, as it arrives. */
export interface InflateSource {
  /** Resolves once bytes `[0, end)` arrived or the input ended; to how many of them are there. */
  until(end: number): Promise<number>
  /** Bytes that arrived so far. */
  available(): number
  /** The bytes `[from, to)`, arrived; never changed afterwards. */
  slice(from: number, to: number): Uint8Array
  /** The input's length once it ended, else -1. */
  length(): number
  /** Bytes before `byte` will not be asked for again. */
  release(byte: number): void
  /** Resolves when more input arrives or the input ends. */
  changed(): Promise<void>
}

/** How the stream is cut. */
export type InflatePlan =
  | { readonly kind: 'guess'; readonly chunkBytes: number; readonly marginBytes: number }
  | {
      readonly kind: 'index'
      readonly index: GzipIndex
      /** The decompressed window of point `i`. */
      readonly window: (i: number) => Promise<Uint8Array>
      readonly groupBytes: number
    }
  /** Groups of whole gzip members whose places and sizes are known (BGZF: bgzf.ts), each from its first member's header to its last one's trailer. */
  | { readonly kind: 'members'; readonly groups: readonly { readonly start: number; readonly end: number; readonly size: number }[] }

export interface InflateRunOptions {
  readonly format: 'gzip' | 'deflate' | 'deflate-raw'
  readonly start: ChainPosition
  readonly maxOutputBytes: number
  readonly concatenated: boolean
  readonly plan: InflatePlan
  /** Record every block start (for an index): `chain.points`. */
  readonly points: boolean
  /** Jobs in flight at most. */
  readonly inFlight: number
  /**
   * Whether `emit` is done with each piece when it returns (it copies it), so that the
   * piece's memory can be handed to a later job to write into. A stream hands its pieces
   * to its reader, who keeps them: not then.
   */
  readonly recycle: boolean
}

export interface InflateRunResult {
  /** Whether the stream was decoded to its end. */
  readonly ok: boolean
  /** The `CodecError` of a check that failed, when that is why it stopped. */
  readonly error: CodecError | null
  readonly chain: InflateChain
  /**
   * Where the output emitted ends, for a serial decoder to go on from: the position, the
   * history there, the checks' state there (the member's checksum and size so far), and
   * the bytes emitted.
   */
  readonly resume: { readonly position: ChainPosition; readonly window: Uint8Array; readonly state: SettledState; readonly emitted: number }
}

/** A chunk ends at its first boundary past this much output (a bound on a job's memory for highly compressible input). */
const CHUNK_OUTPUT = 64 * 1024 * 1024

/** A failure that ends the run (not the input's: no `CodecError`). */
class Stop {
  constructor(readonly error: CodecError | null) {}
}

/** Runs the plan; `emit` takes the output in order (and may wait, for backpressure), with the chain it came from. */
export async function runInflate(source: InflateSource, options: InflateRunOptions, run: JobRunner, emit: (piece: Uint8Array, chain: InflateChain) => void | Promise<void>): Promise<InflateRunResult> {
  const { format, plan, inFlight } = options
  const chain = new InflateChain(format, options.start, options)
  const free: ArrayBuffer[] = []
  const first = options.start.bit / 8
  // A chunk never holds more than the limit lets through (a bomb stops early).
  const chunkOutput = Math.min(CHUNK_OUTPUT, options.maxOutputBytes + 1)

  /** One unit of work: a job whose input starts at `base`, and what it should start at. */
  interface Unit {
    readonly job: () => Promise<{ job: InflateChunkJob; base: number } | null>
    /** Where its range ends (guess: the next chunk's start), for a decode again from a position in it. */
    readonly stop: number
    /** The chunk's range starts here (a byte). */
    readonly from: number
  }

  // The units: guessed chunks (the count known once the input ended), or index spans.
  const spans = plan.kind === 'index' ? indexSpans(plan.index, options.start, plan.groupBytes) : plan.kind === 'members' ? memberSpans(plan.groups) : null
  const unitCount = (): number => {
    if (spans) return spans.length
    const n = source.length()
    return n < 0 ? Infinity : Math.max(1, Math.ceil((n - first) / (plan as { chunkBytes: number }).chunkBytes))
  }
  const nominal = (k: number): number => first + k * (plan as { chunkBytes: number }).chunkBytes
  const base = (bit: number): number => Math.floor(bit / 8)

  /** A job from a known position `at` (its history `window`) to the end of unit `k`, its input running `extra` past it. */
  const knownJob = async (k: number, at: ChainPosition, window: Uint8Array | null, extra: number): Promise<{ job: InflateChunkJob; base: number }> => {
    const b = base(at.bit)
    const count = unitCount()
    const stop = spans ? spans[k]!.stopBit : k + 1 < count ? nominal(k + 1) * 8 : -1
    const want = Math.min(b + MAX_CHUNK_INPUT, spans ? spans[k]!.endByte : stop < 0 ? Infinity : Math.ceil(stop / 8) + extra)
    const end = Math.max(await source.until(want === Infinity ? Number.MAX_SAFE_INTEGER : want), Math.min(b + 1, source.available()))
    const job: InflateChunkJob = {
      kind: 'inflate-chunk',
      format,
      input: source.slice(b, end),
      from: at.bit - b * 8,
      at: at.kind as PositionKind,
      searchEnd: 0,
      window,
      stop: stop < 0 ? -1 : stop - b * 8,
      exact: spans !== null && stop >= 0,
      last: end === source.length(),
      maxOutput: spans ? spans[k]!.size + 1 : chunkOutput,
      points: options.points,
      scratch: free.pop() ?? null,
    }
    return { job, base: b }
  }
  /** Unit k's own job: from the stream's start, an index point, or a search of its range. */
  const unitJob = async (k: number): Promise<{ job: InflateChunkJob; base: number } | null> => {
    if (k === 0) return knownJob(0, options.start, new Uint8Array(0), guessMargin())
    if (spans) {
      const s = spans[k]!
      const window = s.kind === 'block' ? await (plan as { window: (i: number) => Promise<Uint8Array> }).window(s.point) : null
      return knownJob(k, { bit: s.startBit, kind: s.kind }, window, 16)
    }
    const { chunkBytes, marginBytes } = plan as { chunkBytes: number; marginBytes: number }
    const b = nominal(k)
    const end = await source.until(nominal(k + 1) + marginBytes)
    if (end <= b) return null
    const count = unitCount()
    const job: InflateChunkJob = {
      kind: 'inflate-chunk',
      format,
      input: source.slice(b, end),
      from: 0,
      at: 'search',
      searchEnd: Math.min(chunkBytes, end - b) * 8,
      window: null,
      stop: k + 1 < count ? chunkBytes * 8 : -1,
      last: end === source.length(),
      maxOutput: chunkOutput,
      points: options.points,
      scratch: free.pop() ?? null,
    }
    return { job, base: b }
  }
  const guessMargin = (): number => (plan.kind === 'guess' ? plan.marginBytes : 16)
  /** The input unit k's job needs: to the next unit's start and the margin past it (or the end). */
  const needs = (k: number): number => (spans ? spans[k]!.endByte : nominal(k + 1) + guessMargin())

  type Outcome = { result: JobResult; base: number; error?: undefined } | { result?: undefined; base: number; error: unknown }
  const outcomes = new Map<number, Promise<Outcome | null>>()
  const capture = (p: Promise<{ job: InflateChunkJob; base: number } | null>): Promise<Outcome | null> =>
    p.then(
      async (made) => {
        if (!made) return null
        try {
          return { result: await run(made.job), base: made.base }
        } catch (error) {
          return { error, base: made.base }
        }
      },
      (error: unknown) => ({ error, base: 0 }),
    )
  /** Next unit not yet started; units before `done` were taken or passed over. */
  let next = 0
  let done = 0
  /** Starts the units whose input is there, up to `inFlight` past `k` (unit `k` itself whatever its input). */
  const submit = (k: number): void => {
    const count = unitCount()
    // Units before `k` start before the position: never needed.
    if (next < k) next = k
    while (next < count && next < k + inFlight && (next <= k || source.available() >= needs(next) || source.length() >= 0)) {
      outcomes.set(next, capture(unitJob(next)))
      next++
    }
  }

  // Chunks taken, in order, with their symbols' resolve jobs: settled and emitted from the
  // front as those finish.
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
  let emitted = 0
  // The front stays in the list until it is settled: a failure resumes at its start.
  const settleFront = async (): Promise<void> => {
    const { chunk, resolved } = taken[0]!
    let check = 0
    let symbols: Uint8Array | null = null
    if (resolved) {
      const o = await resolved
      if (!o.result) throw o.error
      symbols = o.result.output
      check = o.result.check
    }
    chain.settle(chunk, check)
    taken.shift()
    if (symbols && symbols.length > 0) await emit(symbols, chain)
    if (chunk.bytes.length > 0) await emit(chunk.bytes, chain)
    emitted += (symbols?.length ?? 0) + chunk.bytes.length
    const buffer = chunk.bytes.buffer
    if (options.recycle && buffer instanceof ArrayBuffer && buffer.byteLength > 0) free.push(buffer)
  }

  let error: CodecError | null = null
  let ok = false
  try {
    while (!chain.ended) {
      const pos = chain.position
      // The unit whose range holds the position: the one that should start there.
      let k: number
      if (spans) {
        k = done
        if (k >= spans.length) throw new Stop(null)
      } else {
        k = Math.max(0, Math.floor((pos.bit / 8 - first) / (plan as { chunkBytes: number }).chunkBytes))
        if (k >= unitCount()) k = Math.max(0, unitCount() - 1)
      }
      submit(k)
      let info = null
      let output: Uint8Array | null = null
      let at = 0
      if (k >= done) {
        for (let j = done; j < k; j++) outcomes.delete(j)
        done = k + 1
        const pending = outcomes.get(k)!
        // While it runs, start the units whose input arrives meanwhile.
        let settled = false
        void pending.then(
          () => (settled = true),
          () => (settled = true),
        )
        while (!settled && source.length() < 0) {
          await Promise.race([pending, source.changed()])
          submit(k)
        }
        const o = await pending
        outcomes.delete(k)
        if (o && !o.result) throw o.error
        if (o && chain.continues(o.result!.chunk!, o.base)) {
          info = o.result!.chunk!
          output = o.result!.output
          at = o.base
        }
      }
      if (!info && spans) throw new Stop(null)
      // Not where the stream is: decoded again from there, the history known, its input
      // doubled while it gets nowhere (one block longer than the input given).
      for (let extra = guessMargin(); !info; extra *= 2) {
        const { job, base: b } = await knownJob(k, pos, pos.kind === 'block' ? chain.history() : null, extra)
        const r = await run(job)
        if (chain.continues(r.chunk!, b)) {
          info = r.chunk!
          output = r.output
          at = b
        } else if (job.last || job.input.length >= MAX_CHUNK_INPUT) {
          throw new Stop(null)
        }
      }
      const chunk = chain.take(info, output!, at)
      const entry = { chunk, resolved: resolve(chunk), ready: false }
      if (entry.resolved) void entry.resolved.then(() => (entry.ready = true))
      else entry.ready = true
      taken.push(entry)
      // Emitted as soon as they are ready (their buffers go to the next jobs), and always
      // before more than `inFlight` wait.
      while (taken.length > 0 && (taken[0]!.ready || taken.length > inFlight)) await settleFront()
      // Kept: from the unit that holds the position (its search may still be started) or
      // the position itself, and every unit started and not yet taken.
      const keep = spans ? base(chain.position.bit) : Math.min(base(chain.position.bit), nominal(Math.max(0, Math.floor((chain.position.bit / 8 - first) / (plan as { chunkBytes: number }).chunkBytes))))
      // And the chunks taken and not yet emitted: a serial decoder would resume at the first.
      const front = taken.length > 0 ? base(taken[0]!.chunk.start.bit) : keep
      source.release(Math.min(keep, front, ...[...outcomes.keys()].map((j) => (spans ? base(spans[j]!.startBit) : nominal(j)))))
    }
    while (taken.length > 0) await settleFront()
    ok = true
  } catch (e) {
    if (e instanceof Stop) error = e.error
    else if (e instanceof CodecError && e.code !== 'ENGINE_UNAVAILABLE' && e.code !== 'ABORTED') error = e
    else throw e
  } finally {
    // No job is left running unobserved.
    await Promise.all([...outcomes.values(), ...taken.map((t) => t.resolved)])
  }
  const front = taken[0]?.chunk
  const resume = { position: front ? front.start : chain.position, window: front ? front.window : chain.history(), state: chain.settled(), emitted }
  return { ok, error, chain, resume }
}

/**
 * A span of known places: from `startBit` (point `point`'s block, or a member's header)
 * to the block at `stopBit` (-1: to the end of its input, `endByte`), `size` bytes of
 * output.
 */
interface IndexSpan {
  readonly point: number
  readonly kind: PositionKind
  readonly startBit: number
  readonly stopBit: number
  readonly endByte: number
  readonly size: number
}

/** Member groups as spans. */
function memberSpans(groups: readonly { start: number; end: number; size: number }[]): IndexSpan[] {
  return groups.map((g) => ({ point: -1, kind: 'member', startBit: g.start * 8, stopBit: -1, endByte: g.end, size: g.size }))
}

/**
 * The index's points grouped into spans of about `groupBytes` of output: the first from
 * the stream's start, each next one from a point with a window or none.
 */
function indexSpans(index: GzipIndex, start: ChainPosition, groupBytes: number): IndexSpan[] {
  const points = index.points
  const spans: IndexSpan[] = []
  let from = { point: -1, bit: start.bit, out: 0 }
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!
    if (p.compressedBitOffset <= from.bit || p.uncompressedOffset - from.out < groupBytes) continue
    spans.push({ point: from.point, kind: 'block', startBit: from.bit, stopBit: p.compressedBitOffset, endByte: Math.ceil(p.compressedBitOffset / 8) + 16, size: p.uncompressedOffset - from.out })
    from = { point: i, bit: p.compressedBitOffset, out: p.uncompressedOffset }
  }
  spans.push({ point: from.point, kind: 'block', startBit: from.bit, stopBit: -1, endByte: index.compressedSize, size: index.uncompressedSize - from.out })
  return spans
}
