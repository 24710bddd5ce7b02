/**
 * Decoding streams of one gzip, zlib or raw deflate stream with `threads` (issue 31):
 * `gzipDecode({ threads })`, `decodeStream('deflate', { threads })`, `new
 * DecompressionStream('gzip', { threads })`, `nodeDecode('gzip', { threads })`. The
 * input is kept as it arrives (`ArrivingInput`) and decoded by lib/parallel/inflate-run.ts
 * in chunks cut at guessed block boundaries, on the realm's pool; the output goes out in
 * order, the bytes the serial decoder gives.
 *
 * - At most `2 × threads` chunk jobs are in flight; a write returns once the input kept
 *   is below what those need and the reader has room (the readable side's
 *   `desiredSize`), so a slow reader throttles the pool.
 * - Where the parallel decode stops short (a check that fails, bytes after the stream, a
 *   chunk that cannot grow), a serial decoder goes on from the last output it emitted,
 *   with the history and the member's checksum there (lib/gzip-index/resuming-decoder.ts,
 *   or a plain decoder at a member's start), fed the input kept and every write after:
 *   so errors, their offsets and the output before them are the serial decoder's.
 * - `onIndex(index)`: called before the readable closes with the stream's `GzipIndex`
 *   built from the block starts the chunks met, when the parallel decode reached the
 *   stream's end.
 * - Cancelling the readable, aborting the writable or the `signal` drops the jobs still
 *   queued in the pool and errors the other side.
 */
import { toBytes, type BinaryInput } from '../lib/bytes.js'
import { CodecError } from '../lib/errors.js'
import type { Machine, MachineOptions } from '../lib/machine.js'
import type { Decoder } from '../lib/codec.js'
import { rebase } from '../lib/parallel/cuts.js'
import { deflateChunkBytes, MARGIN_BYTES, streamStart } from '../lib/parallel/inflate-parallel.js'
import { runInflate, type InflateRunResult, type InflateSource } from '../lib/parallel/inflate-run.js'
import type { JobRunner } from '../lib/parallel/jobs.js'
import { IndexPoints } from '../lib/parallel/index-points.js'
import { DEFAULT_SPACING, GzipIndexBuilder } from '../lib/gzip-index/index-builder.js'
import type { GzipIndex } from '../lib/gzip-index/gzip-index.js'
import { loadIndexParts } from '../lib/gzip-index/engines.js'
import { ResumingDecoder } from '../lib/gzip-index/resuming-decoder.js'
import type { DecodeEngines, DecodePair, DecodePairOptions } from './parallel-decode-impl.js'
import { jobRunner } from './job-runner.js'

/** What the stream runs on besides the jobs' engines: the machine, for the serial decoder that goes on where the parallel decode stops. */
export interface InflateEngines extends DecodeEngines {
  readonly Machine: new (codec: Decoder, options: MachineOptions) => Machine
}

type DeflateFormat = 'gzip' | 'deflate' | 'deflate-raw'

/** The options of the stream beyond `DecodePairOptions`. */
export interface InflatePairOptions extends DecodePairOptions {
  readonly concatenated: boolean
  readonly onIndex: ((index: GzipIndex) => void) | undefined
  /** Compressed bytes per chunk and the margin past it (tests: small, so that small inputs make many chunks). */
  readonly chunkBytes?: number
  readonly marginBytes?: number
}

/**
 * The parallel decoding stream of one deflate-family stream, part of
 * streams/threads-impl.ts. `threads: 1` runs the same jobs inline.
 */
export function openInflatePair(format: DeflateFormat, threads: number, options: InflatePairOptions, engines: InflateEngines): DecodePair {
  const { maxOutputBytes: limit, signal } = options
  const RS = options.streams?.ReadableStream ?? ReadableStream
  const WS = options.streams?.WritableStream ?? WritableStream
  const cancel = new AbortController()
  const inFlight = 2 * threads
  const chunkBytes = options.chunkBytes ?? deflateChunkBytes(Infinity, threads)
  const marginBytes = options.marginBytes ?? MARGIN_BYTES
  const input = new ArrivingInput((inFlight + 2) * chunkBytes + marginBytes)
  let readable!: ReadableStreamDefaultController<Uint8Array>
  let failed: unknown = null
  let room: (() => void) | null = null
  let tail: Promise<void> = Promise.resolve()
  let emitted = 0
  /** The parallel run, started with the first bytes; its result once it stopped. */
  let running: Promise<InflateRunResult | null> | null = null
  let result: InflateRunResult | null | undefined
  /** The serial decoder that went on where the run stopped, and the input byte it started at. */
  let serial: { machine: Machine; start: number; rebase: boolean } | null = null
  /** After the stream's end: the offset of the first byte after it, for the trailing bytes' judgement. */
  let trailing = -1
  let points: IndexPoints | null = null
  let builder: GzipIndexBuilder | null = null

  const fail = (reason: unknown, ours = true): void => {
    if (failed) return
    const why = reason ?? new CodecError('ABORTED', format, 'the stream was cancelled')
    failed = ours ? options.surface(why) : why
    cancel.abort()
    input.abort()
    serial?.machine.dispose()
    serial = null
    try {
      readable.error(failed)
    } catch {
      // Already closed or errored.
    }
    room?.()
  }
  /** Waits until the reader has room (backpressure), or the stream failed. */
  const readerRoom = async (): Promise<void> => {
    while (!failed && (readable.desiredSize ?? 1) <= 0) await new Promise<void>((r) => (room = r))
    room = null
    if (failed) throw failed
  }
  const emit = async (bytes: Uint8Array): Promise<void> => {
    if (failed) throw failed
    if (bytes.length === 0) return
    emitted += bytes.length
    readable.enqueue(bytes)
    await readerRoom()
  }

  /** Starts the run once the stream's first bytes tell where it starts (or that it is not for this path). */
  const start = async (): Promise<InflateRunResult | null> => {
    await input.until(2)
    const begin = streamStart(input.slice(0, Math.min(2, input.available())), format)
    if (!begin) return null
    const run: JobRunner = jobRunner(threads, Infinity, engines, cancel.signal)
    if (options.onIndex) {
      builder = new GzipIndexBuilder(format, DEFAULT_SPACING, (await loadIndexParts('wasm')).compressor())
      points = new IndexPoints(builder)
    }
    return runInflate(
      input,
      { format, start: begin, maxOutputBytes: limit, concatenated: options.concatenated, plan: { kind: 'guess', chunkBytes, marginBytes }, points: points !== null, inFlight, recycle: false },
      run,
      async (piece, chain) => {
        points?.emit(piece, chain.points)
        await emit(piece)
      },
    )
  }

  /** Once the run stopped: the serial decoder goes on from where its output ends (or the bytes after the stream are judged). */
  const afterRun = async (r: InflateRunResult | null): Promise<void> => {
    result = r
    if (r && r.ok) {
      trailing = r.chain.position.bit / 8
      return
    }
    const at = r ? r.resume : { position: { bit: 0, kind: 'member' as const }, window: new Uint8Array(0), state: { check: 0, size: 0 }, emitted: 0 }
    const startByte = Math.floor(at.position.bit / 8)
    const machineOptions = { format, mode: 'decode' as const, blockSize: options.chunkSize ?? 256 * 1024, maxOutputBytes: limit - at.emitted, concatenated: options.concatenated }
    if (at.position.kind === 'block') {
      const decoder = new ResumingDecoder(await loadIndexParts('wasm'), format, () => {})
      decoder.start({ uncompressedOffset: at.emitted, compressedBitOffset: at.position.bit, windowSize: at.window.length, window: new Uint8Array(0) }, at.window, at.emitted > 0 || r ? at.state : undefined)
      const machine = new engines.Machine(decoder, machineOptions)
      // The resuming decoder reports file offsets; the machine counts from the point's byte.
      machine.totalIn = startByte
      serial = { machine, start: startByte, rebase: false }
    } else {
      const open = engines.prepareDecoder(format, { engine: options.engine, maxOutputBytes: limit - at.emitted, chunkSize: options.chunkSize, concatenated: options.concatenated })
      let machine!: Machine
      await open((m) => (machine = m))
      serial = { machine, start: startByte, rebase: true }
    }
    await feed(input.slice(startByte, input.available()))
  }

  /** Runs the serial decoder on `bytes` (or to its end), its output emitted, its errors in whole-input offsets. */
  const feed = async (bytes: Uint8Array | null): Promise<void> => {
    const s = serial!
    try {
      if (bytes) s.machine.push(bytes)
      else s.machine.end()
      for (let out = s.machine.next(); out !== null; out = s.machine.next()) await emit(out)
    } catch (error) {
      throw error instanceof CodecError && s.rebase ? rebase(error, s.start) : error
    }
  }

  /** Bytes after the stream's last trailer: padding (zeros, where members may follow), another member (decoded serially), or trailing data. */
  const judgeTrailing = async (final: boolean): Promise<void> => {
    const n = input.available()
    if (n <= trailing) return
    const head = input.slice(trailing, Math.min(n, trailing + 2))
    if (format === 'gzip' && options.concatenated && head[0] === 0x1f) {
      // As the machine judges it (lib/machine.ts): ID1 alone waits for ID2 (and at the
      // end is trailing data); ID1 ID2 start a member the parallel decode did not take
      // up, for the serial decoder to judge.
      if (head.length < 2 && !final) return
      if (head[1] === 0x8b) {
        await afterRun({ ...result!, ok: false, resume: { position: { bit: trailing * 8, kind: 'member' }, window: new Uint8Array(0), state: { check: 0, size: 0 }, emitted } })
        trailing = -1
        return
      }
    }
    const rest = input.slice(trailing, n)
    if (!options.concatenated || rest.some((b) => b !== 0)) {
      throw new CodecError('TRAILING_DATA', format, `${rest.length}${final ? '' : '+'} bytes after the end of the stream`, trailing)
    }
  }

  const serialize = (work: () => Promise<void>): Promise<void> => {
    const next = tail.then(async () => {
      if (failed) throw failed
      try {
        await work()
      } catch (error) {
        fail(error)
        throw failed
      }
    })
    tail = next.then(
      () => {},
      () => {},
    )
    return next
  }
  /** The run stopped (between writes): hand over to the serial decoder or the trailing judgement. */
  const settleRun = async (): Promise<void> => {
    if (result !== undefined || !running) return
    if (!input.stopped) return
    await afterRun(await running)
  }

  const onAbort = () => fail(signal?.reason, signal?.reason === undefined)
  if (signal?.aborted) queueMicrotask(onAbort)
  else signal?.addEventListener('abort', onAbort, { once: true })

  const out = new RS<Uint8Array>(
    {
      start(c) {
        readable = c
      },
      pull() {
        room?.()
      },
      cancel(reason) {
        fail(reason, false)
      },
    },
    { highWaterMark: inFlight * 1024 * 1024, size: (chunk) => chunk.length },
  )
  const into = new WS<BinaryInput>({
    write(chunk) {
      return serialize(async () => {
        // A copy: the input keeps views of it past this write.
        const bytes = new Uint8Array(toBytes(chunk, options.allowShared))
        if (serial) return feed(bytes)
        input.push(bytes)
        if (!running) {
          running = start().catch((error: unknown) => {
            input.stop()
            throw error
          })
          running.then(
            () => input.stop(),
            (error: unknown) => fail(error),
          )
        }
        await input.room()
        await settleRun()
        if (trailing >= 0) await judgeTrailing(false)
        await readerRoom()
      })
    },
    close() {
      return serialize(async () => {
        input.end()
        // No input at all: the serial decoder's verdict on an empty stream.
        if (!running) await afterRun(null)
        else if (result === undefined) await afterRun(await running)
        if (trailing >= 0) await judgeTrailing(true)
        if (serial) await feed(null)
        if (options.onIndex && result?.ok && builder && points && !serial) {
          points.finish(result.chain.points)
          options.onIndex(builder.finish(input.available(), emitted))
        }
        signal?.removeEventListener('abort', onAbort)
        readable.close()
      })
    },
    abort(reason) {
      fail(reason, false)
    },
  })
  const flush = async (): Promise<void> => {
    throw options.surface(new CodecError('UNSUPPORTED', format, 'this stream has no flush'))
  }
  return { readable: out, writable: into, flush }
}

/**
 * The compressed input as it arrives, kept from the oldest byte the run may still ask
 * for; a write waits while more than `limit` bytes are kept beyond what the run waits for.
 */
class ArrivingInput implements InflateSource {
  private chunks: Uint8Array[] = []
  /** Offset of `chunks[0]`. */
  private first = 0
  private total = 0
  private ended = false
  /** Whether the run stopped (nothing waits for input any more). */
  stopped = false
  private waiters: { end: number; resolve: (n: number) => void }[] = []
  private wakers: (() => void)[] = []
  private roomWaiter: (() => void) | null = null
  /** The furthest byte the run waits for. */
  private demand = 0

  constructor(private readonly limit: number) {}

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return
    this.chunks.push(bytes)
    this.total += bytes.length
    this.wake()
  }

  end(): void {
    this.ended = true
    this.wake()
  }

  /** The run stopped: writes no longer wait. */
  stop(): void {
    this.stopped = true
    this.roomWaiter?.()
  }

  abort(): void {
    this.ended = true
    this.stop()
    this.wake()
  }

  private wake(): void {
    const waiting = this.waiters
    this.waiters = []
    for (const w of waiting) {
      if (this.ended || this.total >= w.end) w.resolve(Math.min(w.end, this.total))
      else this.waiters.push(w)
    }
    const wakers = this.wakers
    this.wakers = []
    for (const w of wakers) w()
  }

  until(end: number): Promise<number> {
    if (this.ended || this.total >= end) return Promise.resolve(Math.min(end, this.total))
    this.demand = Math.max(this.demand, end)
    this.roomWaiter?.()
    return new Promise((resolve) => this.waiters.push({ end, resolve }))
  }

  available(): number {
    return this.total
  }

  length(): number {
    return this.ended ? this.total : -1
  }

  changed(): Promise<void> {
    return new Promise((r) => this.wakers.push(r))
  }

  slice(from: number, to: number): Uint8Array {
    if (from < this.first) throw new CodecError('INVALID_OPTION', 'gzip', `input byte ${from} was released`)
    const out = new Uint8Array(Math.max(0, to - from))
    let at = this.first
    let n = 0
    for (const c of this.chunks) {
      const a = Math.max(from, at)
      const b = Math.min(to, at + c.length)
      if (a < b) {
        // One chunk: a view, no copy.
        if (b - a === to - from) return c.subarray(a - at, b - at)
        out.set(c.subarray(a - at, b - at), n)
        n += b - a
      }
      at += c.length
      if (at >= to) break
    }
    return out
  }

  release(byte: number): void {
    while (this.chunks.length > 0 && this.first + this.chunks[0]!.length <= byte) this.first += this.chunks.shift()!.length
  }

  /** Resolves when a write may go on: little enough kept, or the run waits for more, or it stopped. */
  room(): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.stopped || this.total - this.first <= this.limit || this.demand > this.total) {
          this.roomWaiter = null
          resolve()
        } else {
          this.roomWaiter = check
        }
      }
      check()
    })
  }
}
