/**
 * The jobs of block mode and parallel decoding, and the one function that runs them:
 * the same `runJob` runs inline on the caller's thread (`threads: 1` with a
 * `blockSize`, or an input too small to gain from workers) and inside each worker
 * (streams/worker-entry.ts), so both paths produce the same bytes by construction.
 *
 * A job is plain data (structured-clonable: numbers, strings, `Uint8Array`s), so a pool
 * can post it to a worker as it is. `input` is the one buffer a pool copies and
 * transfers; the result's `output` is transferred back.
 */
import { joinBytes } from '../bytes.js'
import type { Encoder, Format } from '../codec.js'
import { CodecError } from '../errors.js'
import type { Engine } from '../formats.js'
import { decode, encode } from '../oneshot.js'
import { createEncoder } from '../registry.js'
import { Status } from '../status.js'
import { adler32, crc32 } from '../codecs/checksum.js'
import { runArrowJob, type ArrowDecodeJob, type ArrowEncodeJob, type ArrowEngines } from '../arrow/body-jobs.js'
import { createDecoder } from '../registry.js'

/**
 * One deflate block as pigz writes it: raw deflate of `input[prefix..)` with
 * `input[0..prefix)` (the previous 32 KiB of the stream) or `dictionary` (the first
 * block's preset dictionary) as history, ended by a sync flush (an empty stored block,
 * RFC 1951 section 3.2.4) unless `last`, which ends with the final block instead. The
 * result's `check` is the block's CRC-32 or Adler-32, for the trailer.
 */
export interface DeflateBlockJob {
  readonly kind: 'deflate-block'
  readonly engine?: Engine
  readonly level: number
  readonly input: Uint8Array
  readonly prefix: number
  readonly dictionary: Uint8Array | null
  readonly last: boolean
  readonly check: 'crc32' | 'adler32' | 'none'
}

/** A whole one-shot encode of `input` (one zstd frame, LZ4 blocks, a brotli stream). */
export interface EncodeJob {
  readonly kind: 'encode'
  readonly format: Format
  readonly options: Record<string, unknown>
  readonly input: Uint8Array
}

/** A whole one-shot decode of `input` (whole zstd frames, say). */
export interface DecodeJob {
  readonly kind: 'decode'
  readonly format: Format
  readonly options: Record<string, unknown>
  readonly input: Uint8Array
}

export type Job = DeflateBlockJob | EncodeJob | DecodeJob | ArrowDecodeJob | ArrowEncodeJob

export type { ArrowDecodeJob, ArrowEncodeJob } from '../arrow/body-jobs.js'

/** The engines of the Arrow jobs: the registry's. */
const arrowEngines: ArrowEngines = { createDecoder: (format, options) => createDecoder(format, options as never), createEncoder: (format, options) => createEncoder(format, options as never) }

export interface JobResult {
  readonly output: Uint8Array
  /** The block's checksum (deflate blocks), else 0. */
  readonly check: number
}

/** Runs jobs: `runJob` inline, or a pool's runner that posts them to workers. */
export type JobRunner = (job: Job) => Promise<JobResult>

/** Runs one job on this thread. Errors are `CodecError`s, as from the one-shot calls. */
export async function runJob(job: Job): Promise<JobResult> {
  switch (job.kind) {
    case 'deflate-block':
      return deflateBlock(job)
    case 'encode':
      return { output: await encode(job.format, job.input, job.options as never), check: 0 }
    case 'decode':
      return { output: await decode(job.format, job.input, job.options as never), check: 0 }
    case 'arrow-decode':
    case 'arrow-encode':
      return runArrowJob(job, arrowEngines)
    default:
      throw new CodecError('INVALID_OPTION', 'threads', `unknown job kind ${JSON.stringify((job as { kind: unknown }).kind)}`)
  }
}

async function deflateBlock(job: DeflateBlockJob): Promise<JobResult> {
  const history = job.prefix > 0 ? job.input.subarray(0, job.prefix) : job.dictionary
  const encoder = await createEncoder('deflate-raw', { engine: job.engine, level: job.level, ...(history ? { dictionary: history } : {}) })
  const block = job.input.subarray(job.prefix)
  try {
    const output = drive(encoder, block, job.last)
    const check = job.check === 'crc32' ? crc32(block) : job.check === 'adler32' ? adler32(block) : 0
    return { output, check }
  } finally {
    encoder.dispose()
  }
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
