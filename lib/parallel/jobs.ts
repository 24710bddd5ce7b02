/**
 * The jobs of block mode and parallel decoding, and the one function that runs them:
 * the same `runJob` runs inline on the caller's thread (`threads: 1` with a
 * `blockSize`, or an input too small to gain from workers) and inside each worker
 * (streams/worker-entry.ts), so both paths produce the same bytes by construction.
 *
 * A job is plain data (structured-clonable: numbers, strings, `Uint8Array`s), so a pool
 * can post it to a worker as it is. `input` is the one buffer a pool copies and
 * transfers; the result's `output` is transferred back.
 *
 * Jobs drive span codecs directly (the `OperationStatus` contract of lib/codec.ts), made
 * by the `CodecFactories` their caller passes in: lib/registry.ts's `createEncoder` and
 * `createDecoder`. This module imports neither the registry nor the machine, so the
 * threads implementation that a stream loads on first use shares no module with the
 * stream shell beyond the leaves (errors, formats, bytes), and a bundler keeps the
 * shell in one file (the repository's test/bundle-size.test.ts).
 */
import { joinBytes } from '../bytes.js'
import type { Encoder, Format } from '../codec.js'
import { CodecError } from '../errors.js'
import { decodeInto } from '../decode-buffer.js'
import type { Engine } from '../formats.js'
import { decodeLz4Blocks } from './lz4-blocks-job.js'
import { keepSpare, outputMemory } from './scratch.js'
import { runHash, type HashJob, type HashResult } from './hash-job.js'
import { Status } from '../status.js'
import { loadDeflateTools } from './deflate-tools.js'
import { encodeDeflateBlock, type DeflateBlockInput } from '../codecs/zlibng-block.js'
import type * as Registry from '../registry.js'
import type { ArrowDecodeJob, ArrowEncodeJob } from '../arrow/body-jobs.js'
import type { InflateChunkInfo, InflateChunkJob } from './inflate-chunk.js'
import type { InflateResolveJob } from './markers.js'

/** The factories of the span codecs jobs run on: lib/registry.ts's (options checked there, engines loaded once per realm). */
export type CodecFactories = Pick<typeof Registry, 'createEncoder' | 'createDecoder'>

/**
 * One deflate block as pigz writes it: raw deflate of `input[prefix..)` with
 * `input[0..prefix)` (the previous 32 KiB of the stream) or `dictionary` (the first
 * block's preset dictionary) as history, ended by a sync flush (an empty stored block,
 * RFC 1951 section 3.2.4) unless `last`, which ends with the final block instead. The
 * result's `check` is the block's CRC-32 or Adler-32, for the trailer.
 */
export interface DeflateBlockJob extends DeflateBlockInput {
  readonly kind: 'deflate-block'
  readonly engine?: Engine
}

/**
 * A whole encode of `input` (one zstd frame, which then states its content size; LZ4
 * blocks; a brotli stream): the encoder's output for all of `input` with `final`.
 */
export interface EncodeJob {
  readonly kind: 'encode'
  readonly format: Format
  readonly options: Record<string, unknown>
  readonly input: Uint8Array
}

/**
 * A decode of `input`, whole frames (zstd frames, say, each followed by the next), into
 * exactly `size` bytes: what their headers declare. Decoding to more or fewer is
 * `INVALID_DATA` (offsets within `input`).
 */
export interface DecodeJob {
  readonly kind: 'decode'
  readonly format: Format
  readonly options: Record<string, unknown>
  readonly input: Uint8Array
  readonly size: number
  /** Memory for the output to reuse when it is large enough (`JobResult.owned`; scratch.ts). */
  readonly scratch?: ArrayBuffer | null
}

/**
 * Independent blocks of one LZ4 frame, as they stand in it (size words, data, block
 * checksums; lz4-cutter.ts cuts them), decoding to at most `bound` bytes (a block to at
 * most `blockMax`, a stored one to its size): lz4-blocks-job.ts.
 */
export interface Lz4BlocksJob {
  readonly kind: 'lz4-blocks'
  readonly format: 'lz4'
  readonly engine?: Engine
  /** The frame's Block Maximum Size. */
  readonly blockMax: number
  /** Whether each block is followed by its XXH32 (the frame's Block Checksum flag). */
  readonly blockChecksum: boolean
  readonly bound: number
  readonly input: Uint8Array
  /** Memory for the output to reuse when it is large enough (`JobResult.owned`; scratch.ts). */
  readonly scratch?: ArrayBuffer | null
}

/**
 * `size` bytes of memory with every page written once, for the result of a one-shot
 * parallel decode (result-memory.ts): transferred to the caller, whose copies into it
 * then cost no first writes.
 */
export interface MemoryJob {
  readonly kind: 'memory'
  readonly size: number
  /** Empty: a pool posts every job's `input`. */
  readonly input: Uint8Array
}

/** The page size the `memory` job writes at (4 KiB, the smallest of the systems sluice runs on; a larger page is written more than once). */
const PAGE = 4096

export type Job = DeflateBlockJob | EncodeJob | DecodeJob | Lz4BlocksJob | MemoryJob | HashJob | InflateChunkJob | InflateResolveJob | ArrowDecodeJob | ArrowEncodeJob

export type { HashJob, HashResult } from './hash-job.js'

/** The format a job's errors name: its own, else (deflate blocks, chunks, markers: raw deflate) `'deflate-raw'`, or `'threads'` for the pool's `memory` job. */
export function jobFormat(job: Job): string {
  return 'format' in job ? job.format : job.kind === 'memory' ? 'threads' : 'deflate-raw'
}

/**
 * The buffers a pool moves to the worker with `job`, besides its copied `input`: memory
 * the job's output may reuse (`scratch`), an `xxh32` job's outputs. Each is the caller's
 * to give away.
 */
export function jobTransfer(job: Job): ArrayBuffer[] {
  if (job.kind === 'xxh32') return [...job.parts]
  return 'scratch' in job && job.scratch ? [job.scratch] : []
}

export type { ArrowDecodeJob, ArrowEncodeJob } from '../arrow/body-jobs.js'
export type { InflateChunkInfo, InflateChunkJob } from './inflate-chunk.js'
export type { InflateResolveJob } from './markers.js'

export interface JobResult {
  readonly output: Uint8Array
  /** The block's checksum (deflate blocks), else 0. */
  readonly check: number
  /** A deflate chunk's bounds, symbols and checksums (inflate-chunk jobs). */
  readonly chunk?: InflateChunkInfo
  /**
   * Whether `output`'s whole buffer belongs to the result (a worker transfers it as it is,
   * its unused tail included, instead of copying `output` out of a shared buffer).
   */
  readonly owned?: boolean
  /** An `xxh32` job's hash state and digests. */
  readonly hash?: HashResult
  /** Memory a job was given and gives back (outputs an `xxh32` job hashed and did not keep), for the caller's next jobs; a worker transfers it. */
  readonly spare?: readonly ArrayBuffer[]
}

/**
 * Runs jobs: `runJob` inline, or a pool's runner that posts them to workers (running
 * them inline while a cold pool starts). A pool's runner also has `onWorker`: when a
 * worker listens, a runner that never runs a job inline (for the `memory` job, worth
 * nothing on the caller's thread), else null.
 */
export type JobRunner = ((job: Job) => Promise<JobResult>) & { readonly onWorker?: () => ((job: Job) => Promise<JobResult>) | null }

/** Arrow's job code, loaded with the first Arrow job (once: an `import()` per job would resolve the module each time). */
let arrowJobs: Promise<typeof import('../arrow/body-jobs.js')> | null = null
/** The deflate chunk decoder and marker resolution, loaded with the first such job (they bring two wasm kernels). */
let chunkJobs: Promise<typeof import('./inflate-chunk.js')> | null = null
let resolveJobs: Promise<typeof import('./markers.js')> | null = null

/** Runs one job on this thread with `codecs`. Errors are `CodecError`s, as from the one-shot calls. */
export async function runJob(job: Job, codecs: CodecFactories): Promise<JobResult> {
  switch (job.kind) {
    case 'deflate-block':
      return deflateBlock(job, codecs)
    case 'encode': {
      // A zstd frame states its content size (block mode's frames, issue 22: the parallel
      // decoder cuts and sizes frames by it), whatever room the encoder was given.
      const options = job.format === 'zstd' ? { ...job.options, contentSize: job.input.length } : job.options
      const encoder = await codecs.createEncoder(job.format, options as never)
      try {
        return { output: drive(encoder, job.input, true), check: 0 }
      } finally {
        encoder.dispose()
      }
    }
    case 'decode':
      return { output: await decodeFrames(job, codecs), check: 0, owned: true }
    case 'lz4-blocks':
      return { output: await decodeLz4Blocks(job, codecs.createDecoder), check: 0, owned: true }
    case 'memory': {
      const output = new Uint8Array(job.size)
      for (let i = 0; i < output.length; i += PAGE) output[i] = 0
      return { output, check: 0, owned: true }
    }
    case 'xxh32': {
      const hash = runHash(job)
      // The outputs not kept here go back (a worker transfers them) for the caller's next jobs.
      const spare = job.keep ? job.parts.filter((part) => !keepSpare(part)) : []
      // A fresh empty output: a worker transfers the output's buffer.
      return { output: new Uint8Array(0), check: 0, hash, owned: true, ...(spare.length > 0 ? { spare } : {}) }
    }
    case 'inflate-chunk': {
      const { output, info } = await (await (chunkJobs ??= import('./inflate-chunk.js'))).inflateChunk(job)
      return { output, check: 0, chunk: info, owned: true }
    }
    case 'inflate-resolve':
      return (await (resolveJobs ??= import('./markers.js'))).resolveJob(job)
    case 'arrow-decode':
    case 'arrow-encode':
      // Loaded on the first Arrow job: this module is part of every threads user's code.
      return (await (arrowJobs ??= import('../arrow/body-jobs.js'))).runArrowJob(job, codecs)
    default:
      throw new CodecError('INVALID_OPTION', 'threads', `unknown job kind ${JSON.stringify((job as { kind: unknown }).kind)}`)
  }
}

async function deflateBlock(job: DeflateBlockJob, codecs: CodecFactories): Promise<JobResult> {
  // zlib-ng (the default engine): the block kernel, a stream per level reused across
  // blocks and the checksum computed in the engine (lib/codecs/zlibng-block.ts).
  if (job.engine === 'wasm') return encodeDeflateBlock(await (await loadDeflateTools()).zlibngEngine(), job)
  const history = job.prefix > 0 ? job.input.subarray(0, job.prefix) : job.dictionary
  const encoder = await codecs.createEncoder('deflate-raw', { engine: job.engine, level: job.level, ...(history ? { dictionary: history } : {}) })
  const block = job.input.subarray(job.prefix)
  try {
    const output = drive(encoder, block, job.last)
    const tools = job.check === 'none' ? null : await loadDeflateTools()
    const check = job.check === 'crc32' ? tools!.crc32(block) : job.check === 'adler32' ? tools!.adler32(block) : 0
    return { output, check }
  } finally {
    encoder.dispose()
  }
}

/**
 * Decodes the frames of `job.input` one after another into one array of `job.size`
 * bytes, by the whole-buffer driver (lib/decode-buffer.ts, the rules and messages of
 * every whole-buffer decode): the room is exactly what the headers declared, so a frame
 * that decodes to more stops at that room (no growth), and one that decodes to less is
 * caught at the end. Offsets are within `job.input`.
 */
async function decodeFrames(job: DecodeJob, codecs: CodecFactories): Promise<Uint8Array> {
  const decoder = await codecs.createDecoder(job.format, job.options as never)
  const output = outputMemory(job.scratch, job.size)
  try {
    decodeInto(decoder, job.input, output, { format: job.format, what: 'the group of frames', declaredBy: 'the sum of their headers', base: 0, concatenated: true })
  } finally {
    decoder.dispose()
  }
  return output
}

/**
 * Encodes all of `src` (then a sync flush unless `final`) into one exact-size array. The
 * first destination fits deflate's worst case for most inputs (stored blocks: 5 bytes
 * per 16 KiB at most), so one pass is the rule.
 */
function drive(encoder: Encoder, src: Uint8Array, final: boolean): Uint8Array {
  const parts: Uint8Array[] = []
  let total = 0
  let room = src.length + (src.length >>> 10) + 1024
  let rest = src
  for (;;) {
    const dst = new Uint8Array(room)
    const status = encoder.transform(rest, dst, final)
    rest = rest.subarray(encoder.consumed)
    let written = encoder.written
    let flushed = true
    if (status === Status.Done && !final) {
      flushed = encoder.flush(dst.subarray(written)) === Status.Done
      written += encoder.written
    }
    parts.push(dst.subarray(0, written))
    total += written
    if (status === Status.Done && flushed) break
    if (status !== Status.Done && status !== Status.DestinationTooSmall) {
      throw new CodecError(encoder.failure?.code ?? 'INVALID_DATA', encoder.format, encoder.failure?.message ?? 'the block encoder failed')
    }
    room = Math.max(65536, room >>> 1)
    if (status === Status.Done) {
      // Only the flush is left to write out.
      for (;;) {
        const more = new Uint8Array(room)
        const s = encoder.flush(more)
        parts.push(more.subarray(0, encoder.written))
        total += encoder.written
        if (s === Status.Done) break
      }
      break
    }
  }
  return parts.length === 1 ? parts[0]! : joinBytes(parts, total)
}
