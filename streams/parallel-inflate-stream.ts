/**
 * Decoding streams of one gzip, zlib or raw deflate stream with `threads` (issue 31):
 * `gzipDecode({ threads })`, `decodeStream('deflate', { threads })`, `new
 * DecompressionStream('gzip', { threads })`, `nodeDecode('gzip', { threads })`, and any of
 * them with `onIndex`. The input is kept as it arrives (lib/parallel/arriving-input.ts)
 * and decoded by lib/parallel/inflate-run.ts in chunks cut at guessed block boundaries,
 * its jobs on the ordered-job shell's runner (./ordered-job-stream.ts: reader
 * backpressure, cancel and abort dropping queued jobs, one failure rule, the web
 * classes' rules), the output in order: the bytes the serial decoder gives.
 *
 * - At most `2 × threads` chunk jobs are in flight (the run's own order, inflate-run.ts:
 *   a chunk is taken only where the one before it ended); a write returns once the
 *   input kept is below what those need and the reader has room, so a slow reader
 *   throttles the pool.
 * - Where the parallel decode stops short (a check that fails, bytes after the stream, a
 *   chunk that cannot grow), a serial decoder goes on from the last output it emitted,
 *   with the history and the member's checksum there (lib/gzip-index/resuming-decoder.ts,
 *   or a plain decoder at a member's start), fed the input kept and every write after:
 *   so errors, their offsets and the output before them are the serial decoder's.
 * - `onIndex(index)`: called before the readable closes with the stream's `GzipIndex`
 *   built from the block starts the chunks met, when the parallel decode reached the
 *   stream's end.
 */
import { CodecError } from '../lib/errors.js'
import type { Machine } from '../lib/machine.js'
import { rebase } from '../lib/parallel/cuts.js'
import { ArrivingInput } from '../lib/parallel/arriving-input.js'
import { deflateChunkBytes, MARGIN_BYTES, streamStart } from '../lib/parallel/inflate-parallel.js'
import { runInflate, type InflateRunResult } from '../lib/parallel/inflate-run.js'
import { IndexPoints } from '../lib/parallel/index-points.js'
import { DEFAULT_SPACING, GzipIndexBuilder } from '../lib/gzip-index/index-builder.js'
import type { GzipIndex } from '../lib/gzip-index/gzip-index.js'
import { loadIndexParts } from '../lib/gzip-index/engines.js'
import { ResumingDecoder } from '../lib/gzip-index/resuming-decoder.js'
import type { DecodeFactories, DecodePair, DecodePairOptions } from './parallel-decode-stream.js'
import { OrderedJobs } from './ordered-job-stream.js'

type DeflateFormat = 'gzip' | 'deflate' | 'deflate-raw'

/** The options of the stream beyond `DecodePairOptions`. */
export interface InflatePairOptions extends DecodePairOptions {
  readonly concatenated: boolean
  readonly onIndex: ((index: GzipIndex) => void) | undefined
  /** Compressed bytes per chunk and the margin past it (tests: small, so that small inputs make many chunks). */
  readonly chunkBytes?: number
  readonly marginBytes?: number
}

/** Output a chunk job makes on text at the default chunk size, for the readable side's queue (as parallel-decode-stream.ts's). */
const JOB_OUTPUT = 1024 * 1024

/**
 * The parallel decoding stream of one deflate-family stream, part of
 * streams/threads-impl.ts. `threads: 1` runs the same jobs inline.
 */
export function openInflatePair(format: DeflateFormat, options: InflatePairOptions, codecs: DecodeFactories): DecodePair {
  const { maxOutputBytes: limit, threads } = options
  const { maxOutputBytes: _, ...codec } = options.codec
  const inFlight = 2 * threads
  const chunkBytes = options.chunkBytes ?? deflateChunkBytes(Infinity, threads)
  const marginBytes = options.marginBytes ?? MARGIN_BYTES
  const input = new ArrivingInput((inFlight + 2) * chunkBytes + marginBytes)
  /** The parallel run, started with the first bytes; its result once it stopped. */
  let running: Promise<InflateRunResult | null> | null = null
  let result: InflateRunResult | null | undefined
  /** The serial decoder that went on where the run stopped, and the input byte it started at. */
  let serial: { machine: Machine; start: number; rebase: boolean } | null = null
  /** After the stream's end: the offset of the first byte after it, for the trailing bytes' judgement. */
  let trailing = -1
  let points: IndexPoints | null = null
  let builder: GzipIndexBuilder | null = null

  const jobs = new OrderedJobs({
    format,
    threads,
    codecs,
    signal: options.signal,
    streams: options.streams,
    rules: options.rules,
    outputPerJob: JOB_OUTPUT,
    dispose: () => {
      input.abort()
      serial?.machine.dispose()
      serial = null
    },
  })
  const emit = async (bytes: Uint8Array): Promise<void> => {
    jobs.check()
    jobs.emit(bytes)
    await jobs.readerRoom()
  }

  /** Starts the run once the stream's first bytes tell where it starts (or that it is not for this path). */
  const start = async (): Promise<InflateRunResult | null> => {
    await input.until(2)
    const begin = streamStart(input.slice(0, Math.min(2, input.available())), format)
    if (!begin) return null
    if (options.onIndex) {
      builder = new GzipIndexBuilder(format, DEFAULT_SPACING, (await loadIndexParts('wasm')).compressor())
      points = new IndexPoints(builder)
    }
    return runInflate(
      input,
      { format, start: begin, maxOutputBytes: limit, concatenated: options.concatenated, plan: { kind: 'guess', chunkBytes, marginBytes }, points: points !== null, inFlight, recycle: false },
      jobs.runner(),
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
    if (at.position.kind === 'block') {
      const decoder = new ResumingDecoder(await loadIndexParts('wasm'), format, () => {})
      decoder.start({ uncompressedOffset: at.emitted, compressedBitOffset: at.position.bit, windowSize: at.window.length, window: new Uint8Array(0) }, at.window, at.emitted > 0 || r ? at.state : undefined)
      const machine = new codecs.Machine(decoder, { format, mode: 'decode', blockSize: options.chunkSize ?? 256 * 1024, maxOutputBytes: limit - at.emitted, concatenated: options.concatenated })
      // The resuming decoder reports file offsets; the machine counts from the point's byte.
      machine.totalIn = startByte
      serial = { machine, start: startByte, rebase: false }
    } else {
      const open = codecs.prepareDecoder(format, { ...codec, engine: options.engine, maxOutputBytes: limit - at.emitted, chunkSize: options.chunkSize, concatenated: options.concatenated })
      let machine!: Machine
      await open((m) => (machine = m))
      serial = { machine, start: startByte, rebase: true }
    }
    try {
      jobs.check()
    } catch (error) {
      serial.machine.dispose()
      serial = null
      throw error
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
        await afterRun({ ...result!, ok: false, resume: { position: { bit: trailing * 8, kind: 'member' }, window: new Uint8Array(0), state: { check: 0, size: 0 }, emitted: jobs.emitted } })
        trailing = -1
        return
      }
    }
    const rest = input.slice(trailing, n)
    if (!options.concatenated || rest.some((b) => b !== 0)) {
      throw new CodecError('TRAILING_DATA', format, `${rest.length}${final ? '' : '+'} bytes after the end of the stream`, trailing)
    }
  }

  return jobs.pair({
    write: async (bytes) => {
      if (serial) return feed(bytes)
      input.push(bytes)
      if (!running) {
        running = start().catch((error: unknown) => {
          input.stop()
          throw error
        })
        running.then(
          () => input.stop(),
          (error: unknown) => jobs.fail(error),
        )
      }
      await input.room()
      // The run stopped between writes: hand over to the serial decoder or the trailing judgement.
      if (result === undefined && input.stopped) await afterRun(await running)
      if (trailing >= 0) await judgeTrailing(false)
    },
    close: async () => {
      input.end()
      // No input at all: the serial decoder's verdict on an empty stream.
      if (!running) await afterRun(null)
      else if (result === undefined) await afterRun(await running)
      if (trailing >= 0) await judgeTrailing(true)
      if (serial) await feed(null)
      if (options.onIndex && result?.ok && builder && points && !serial) {
        points.finish(result.chain.points)
        options.onIndex(builder.finish(input.available(), jobs.emitted))
      }
    },
  })
}
