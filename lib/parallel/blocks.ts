/**
 * Block mode: one input cut into blocks that compress independently of each other (on
 * as many threads as there are), put back together in order into one standard stream
 * that any decoder reads. Pure: the jobs run through a `JobRunner` (lib/parallel/jobs.ts
 * `runJob` inline, or a worker pool), and the bytes never depend on how many threads ran
 * them, only on `blockSize`.
 *
 * Per format:
 * - gzip / zlib / raw deflate, as pigz writes them: blocks of `blockSize` (default
 *   128 KiB, pigz's), each compressed with the previous 32 KiB of input as its
 *   dictionary (RFC 1951 section 2.2: the window a distance may reach back into), ended
 *   by a sync flush (an empty stored block, RFC 1951 section 3.2.4) so that the next
 *   block starts on a byte, the last ended by the final block; one member with one
 *   header, the CRC-32 (gzip) or Adler-32 (zlib) combined from the blocks'
 *   (combine.ts). Costs about 0.1-0.5% in size: each block restarts its Huffman codes.
 * - zstd: independent frames of `blockSize` (default 1 MiB, at least 64 KiB), each with
 *   its content size and (by default) checksum: a standard multi-frame stream (RFC 8878
 *   section 3.1), which decoders read as the concatenation of the frames' content.
 * - LZ4: one frame with independent blocks (the encoder's only kind); `blockSize` is the
 *   frame's Block Maximum Size (64 KiB, 256 KiB, 1 MiB or 4 MiB) and a job batches
 *   blocks up to 1 MiB so that per-job overhead does not eat the gain. The frame is
 *   byte for byte what the serial encoder writes; its content checksum (xxHash32 of
 *   the whole content, which does not combine) is computed on the caller's thread.
 */
import { joinBytes } from '../bytes.js'
import type { Format } from '../codec.js'
import { CodecError } from '../errors.js'
import type { Engine } from '../formats.js'
import { resolveEngine } from '../codec-options.js'
import { checkBoolean, checkInteger } from '../options.js'
import { writeU32LE } from '../endian.js'
import type { DeflateTools } from './deflate-tools.js'
import { loadDeflateTools } from './deflate-tools.js'
import { Xxh32 } from '../codecs/xxhash32.js'
import { FLG_BLOCK_CHECKSUM, FLG_BLOCK_INDEPENDENCE, FLG_CONTENT_CHECKSUM, MAX_HEADER_LENGTH, writeFrameHeader } from '../codecs/lz4-frame-format.js'
import { adler32Combine, crc32Combine } from './combine.js'
import type { Job, JobResult, JobRunner } from './jobs.js'

import { blockFamily, DEFLATE_WINDOW, LZ4_JOB_BYTES, type BlockPlan, type Family } from './block-options.js'

export { blockFamily, blockPlan, checkBlockSize, DEFLATE_WINDOW, type BlockPlan } from './block-options.js'

/**
 * Runs `count` jobs through `run` with at most `inFlight` started and not yet taken,
 * handing results to `take` in order. On a failure, waits for the jobs already started
 * (so that none is left running or rejecting unobserved) and throws the first error.
 */
export async function runOrdered(count: number, jobOf: (i: number) => Job, run: JobRunner, inFlight: number, take: (i: number, r: JobResult) => void | Promise<void>): Promise<void> {
  // Each job's outcome is captured as it settles, so that a later job failing while an
  // earlier one is awaited is never an unhandled rejection.
  type Outcome = { result: JobResult; error?: undefined } | { result?: undefined; error: unknown }
  const pending: (Promise<Outcome> | undefined)[] = []
  let next = 0
  const start = (i: number): Promise<Outcome> =>
    Promise.resolve()
      .then(() => run(jobOf(i)))
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      )
  for (let i = 0; i < count; i++) {
    while (next < count && next - i < inFlight) pending[next] = start(next++)
    const outcome = await pending[i]!
    pending[i] = undefined
    if (outcome.result) {
      await take(i, outcome.result)
      continue
    }
    await Promise.all(pending.filter((p) => p !== undefined))
    throw outcome.error
  }
}

const EMPTY = new Uint8Array(0)

/** The LZ4 frame header the serial encoder writes for no content size: magic, FLG, BD, HC. */
const LZ4_PLAIN_HEADER = 7
/** The end mark (a zero block size). */
const LZ4_END_MARK = 4

/**
 * Block mode as an incremental, pure state machine, shared by the one-shot
 * `encodeBlocks` and the parallel streams (streams/parallel-stream.ts), so that a stream
 * and a one-shot call of the same input and options give the same bytes:
 *
 * - `push(chunk)` takes input (kept by reference: the caller does not change it
 *   afterwards) and returns the jobs of the blocks it completed, holding back the last
 *   full block until more input or `end()` says whether it is the last;
 * - `flush()` ends the current block early (a sync point; for zstd a frame end);
 * - `end()` returns the last jobs;
 * - `header()` is written first, then `take(result)` for each job's result in job
 *   order, then `trailer()`.
 */
export class BlockEncoder {
  readonly format: Format
  private readonly family: Family
  /** Bytes per job (LZ4 batches blocks). */
  private readonly jobBytes: number
  private readonly options: Readonly<Record<string, unknown>>
  /** Input not yet cut into jobs, and its length. */
  private parts: Uint8Array[] = []
  private pending = 0
  /** deflate: the last (up to) 32 KiB of input before `parts`. */
  private history: Uint8Array = EMPTY
  private jobs = 0
  private ended = false
  /** Lengths of the blocks of jobs not yet taken, in order (for the checksum combination). */
  private readonly lengths: number[] = []
  /** Input bytes taken so far. */
  private total = 0
  // deflate
  private readonly wrapper: 'gzip' | 'zlib' | 'raw'
  private readonly tools: DeflateTools | null
  private readonly level: number
  private readonly engine: Engine | undefined
  private readonly dictionary: Uint8Array | null
  private sum: number
  // lz4
  private readonly blockSize: number
  private readonly blockChecksum: boolean
  private readonly contentChecksum: boolean
  private readonly contentSize: number
  private readonly hash = new Xxh32()
  private readonly jobOptions: Readonly<Record<string, unknown>>

  /** `tools`: the deflate family's (`loadDeflateTools()`; `BlockEncoder.open` loads them), null for zstd and LZ4. */
  constructor(plan: BlockPlan, tools: DeflateTools | null) {
    const { format, blockSize, options } = plan
    const family = blockFamily(format)
    if (!family) throw new CodecError('INVALID_OPTION', format, 'no block mode for this format')
    if (family === 'deflate' && !tools) throw new CodecError('INVALID_OPTION', format, 'deflate blocks need the deflate tools (BlockEncoder.open loads them)')
    this.tools = tools
    this.format = format
    this.family = family
    this.options = options
    this.blockSize = blockSize
    this.wrapper = family === 'deflate' ? tools!.wrapperOf(format) : 'raw'
    this.level = (options.level as number | undefined) ?? 6
    this.engine = family === 'deflate' ? resolveEngine(format, options.engine) : undefined
    this.dictionary = family === 'deflate' ? ((options.dictionary as Uint8Array | undefined) ?? null) : null
    this.sum = this.wrapper === 'zlib' ? 1 : 0
    this.blockChecksum = family === 'lz4' && checkBoolean(format, 'blockChecksum', options.blockChecksum, false)
    this.contentChecksum = family === 'lz4' && checkBoolean(format, 'contentChecksum', options.contentChecksum, true)
    this.contentSize = family === 'lz4' ? checkInteger(format, 'contentSize', options.contentSize, 0, Number.MAX_SAFE_INTEGER, -1) : -1
    if (family === 'zstd' && options.contentSize !== undefined) {
      throw new CodecError('INVALID_OPTION', format, 'contentSize declares one frame; block mode (blockSize or threads > 1) writes one frame per block, each with its own content size')
    }
    this.jobBytes = family === 'lz4' ? Math.max(blockSize, Math.floor(LZ4_JOB_BYTES / blockSize) * blockSize) : blockSize
    this.jobOptions = family === 'lz4' ? { ...options, blockSize, contentChecksum: false, contentSize: undefined } : options
  }

  /** A block encoder for `plan`, with the deflate family's tools loaded when it needs them. */
  static async open(plan: BlockPlan): Promise<BlockEncoder> {
    return new BlockEncoder(plan, blockFamily(plan.format) === 'deflate' ? await loadDeflateTools() : null)
  }

  /** What goes before the first job's output. */
  header(): Uint8Array {
    if (this.family === 'deflate') return this.tools!.wrapperHeader(this.wrapper, this.level, this.dictionary)
    if (this.family === 'zstd') return EMPTY
    const header = new Uint8Array(MAX_HEADER_LENGTH)
    const flags = FLG_BLOCK_INDEPENDENCE | (this.blockChecksum ? FLG_BLOCK_CHECKSUM : 0) | (this.contentChecksum ? FLG_CONTENT_CHECKSUM : 0)
    return header.slice(0, writeFrameHeader(header, 0, flags, this.blockSize, this.contentSize))
  }

  /** Takes `chunk`; returns the jobs of the blocks it completed, holding back the last full one. */
  push(chunk: Uint8Array): Job[] {
    if (this.ended) throw new CodecError('INVALID_OPTION', this.format, 'push() after end()')
    if (chunk.length === 0) return []
    this.parts.push(chunk)
    this.pending += chunk.length
    const jobs: Job[] = []
    while (this.pending > this.jobBytes) jobs.push(this.cut(this.jobBytes, false))
    return jobs
  }

  /** Ends the current block now (a sync point a decoder can reach without the rest); no job when nothing is pending. */
  flush(): Job[] {
    return this.pending > 0 && !this.ended ? [this.cut(this.pending, false)] : []
  }

  /** The last jobs: what is pending, as the last block (deflate always writes one: the final block; zstd one empty frame for empty input). */
  end(): Job[] {
    if (this.ended) return []
    const jobs = this.family === 'deflate' || this.pending > 0 || (this.family === 'zstd' && this.jobs === 0) ? [this.cut(this.pending, true)] : []
    this.ended = true
    return jobs
  }

  /** The bytes of the next job's result, in job order. */
  take(result: JobResult): Uint8Array {
    const length = this.lengths.shift()!
    this.total += length
    if (this.wrapper === 'gzip') this.sum = crc32Combine(this.sum, result.check, length)
    else if (this.wrapper === 'zlib') this.sum = adler32Combine(this.sum, result.check, length)
    if (this.family === 'lz4') return result.output.subarray(LZ4_PLAIN_HEADER, result.output.length - LZ4_END_MARK)
    return result.output
  }

  /** What goes after the last job's output (once every job was taken). */
  trailer(): Uint8Array {
    if (this.wrapper === 'gzip') {
      const t = new Uint8Array(8)
      writeU32LE(t, 0, this.sum)
      writeU32LE(t, 4, this.total % 2 ** 32) // ISIZE: the size modulo 2^32 (RFC 1952 section 2.3.1)
      return t
    }
    if (this.wrapper === 'zlib') return new Uint8Array([this.sum >>> 24, this.sum >>> 16, this.sum >>> 8, this.sum])
    if (this.family !== 'lz4') return EMPTY
    if (this.contentSize >= 0 && this.contentSize !== this.total) throw new CodecError('INVALID_OPTION', this.format, `input of ${this.total} bytes does not match contentSize ${this.contentSize}`)
    const t = new Uint8Array(this.contentChecksum ? 8 : 4)
    if (this.contentChecksum) writeU32LE(t, 4, this.hash.digest())
    return t
  }

  /** The next `n` pending bytes (a view when they lie in one part, else a copy). */
  private takeInput(n: number): Uint8Array {
    const first = this.parts[0]
    let block: Uint8Array
    if (first && first.length >= n) {
      block = first.subarray(0, n)
      if (first.length === n) this.parts.shift()
      else this.parts[0] = first.subarray(n)
    } else {
      block = new Uint8Array(n)
      let at = 0
      while (at < n) {
        const p = this.parts[0]!
        const k = Math.min(p.length, n - at)
        block.set(p.subarray(0, k), at)
        at += k
        if (k === p.length) this.parts.shift()
        else this.parts[0] = p.subarray(k)
      }
    }
    this.pending -= n
    return block
  }

  private cut(n: number, last: boolean): Job {
    const index = this.jobs++
    this.lengths.push(n)
    const block = this.takeInput(n)
    if (this.family === 'zstd') return { kind: 'encode', format: this.format, options: this.options, input: block }
    if (this.family === 'lz4') {
      if (this.contentChecksum) this.hash.update(block)
      return { kind: 'encode', format: this.format, options: this.jobOptions, input: block }
    }
    // deflate: the history and the block in one array (a view when they are adjacent in
    // the caller's buffer, as in a one-shot call).
    const history = this.history
    let input: Uint8Array
    if (history.length === 0) input = block
    else if (history.buffer === block.buffer && history.byteOffset + history.length === block.byteOffset) input = new Uint8Array(block.buffer, history.byteOffset, history.length + block.length)
    else {
      input = new Uint8Array(history.length + block.length)
      input.set(history)
      input.set(block, history.length)
    }
    this.history = input.subarray(Math.max(0, input.length - DEFLATE_WINDOW))
    return {
      kind: 'deflate-block',
      engine: this.engine,
      level: this.level,
      input,
      prefix: history.length,
      dictionary: index === 0 ? this.dictionary : null,
      last,
      check: this.wrapper === 'gzip' ? 'crc32' : this.wrapper === 'zlib' ? 'adler32' : 'none',
    }
  }
}

/** Encodes `bytes` in block mode per `plan`, running the jobs through `run` with at most `inFlight` at a time. */
export async function encodeBlocks(plan: BlockPlan, bytes: Uint8Array, run: JobRunner, inFlight: number): Promise<Uint8Array> {
  const encoder = await BlockEncoder.open(plan)
  const jobs = [...encoder.push(bytes), ...encoder.end()]
  const parts: Uint8Array[] = [encoder.header()]
  let total = parts[0]!.length
  await runOrdered(jobs.length, (i) => jobs[i]!, run, inFlight, (_, r) => {
    const out = encoder.take(r)
    parts.push(out)
    total += out.length
  })
  const trailer = encoder.trailer()
  parts.push(trailer)
  return joinBytes(parts, total + trailer.length)
}
