/**
 * The jobs of parallel Arrow body decoding and encoding (issue 22; Arrow C++ decodes a
 * record batch's buffers in parallel, apache/arrow#6777): a job takes several buffers
 * of one message body at once, so that posting to a worker costs once per group and
 * not once per buffer (a 65,536-row int32 column is one 256 KiB buffer).
 *
 * - `arrow-decode`: frames (LZ4_FRAME or ZSTD bodies) each decoded into exactly its
 *   declared size; the output holds them one after another, each at an 8-byte aligned
 *   offset (Columnar.rst recommends 8-byte alignment), so the caller takes views.
 * - `arrow-encode`: raw buffers each compressed by body-write.ts `compressBuffers`, the
 *   serial writer's code: the output is the regions as they go into the body, then one
 *   float64 (little-endian) per buffer with its region's length.
 *
 * Jobs are plain data (see lib/parallel/jobs.ts); the codecs they run on come from the
 * `CodecFactories` the job runner passes (lib/registry.ts's factories), and each worker keeps its codecs from job to
 * job (an instance per format and level, reset between buffers).
 */
import { align8 } from '../bytes.js'
import type { Decoder, Encoder } from '../codec.js'
import { decodeInto } from '../decode-buffer.js'
import { CodecError } from '../errors.js'
import { mostDecodedBytes } from '../codec-options.js'
import type { CodecFactories } from '../parallel/jobs.js'
import { bodyEncoderOptions, compressBuffers, compressedCapacity } from './body-write.js'

/** Decodes whole frames, each into its exact size (see the module comment for the output). */
export interface ArrowDecodeJob {
  readonly kind: 'arrow-decode'
  readonly format: 'lz4' | 'zstd'
  /** The bytes holding the frames (a stretch of one message body). */
  readonly input: Uint8Array
  /** Where each frame starts in `input`. */
  readonly starts: readonly number[]
  /** Each frame's length in bytes. */
  readonly lengths: readonly number[]
  /** Each frame's decoded length: a frame that decodes to any other is an error. */
  readonly sizes: readonly number[]
}

/** Compresses buffers as the Arrow writer does (see the module comment for the output). */
export interface ArrowEncodeJob {
  readonly kind: 'arrow-encode'
  readonly format: 'lz4' | 'zstd'
  /** The codec's level; its default when undefined. */
  readonly level: number | undefined
  /** The buffers, one after another. */
  readonly input: Uint8Array
  /** Each buffer's length in bytes. */
  readonly lengths: readonly number[]
}

/** A job's outcome, as lib/parallel/jobs.ts `JobResult`. */
export interface ArrowJobResult {
  readonly output: Uint8Array
  readonly check: number
}

/** Where `sizes` go in an `arrow-decode` job's output: 8-byte aligned offsets, and the total. */
export function decodedSlots(sizes: readonly number[]): { offsets: number[]; total: number } {
  const offsets: number[] = []
  let total = 0
  for (const size of sizes) {
    offsets.push(total)
    total += align8(size)
  }
  return { offsets, total }
}

/** Splits an `arrow-encode` job's output: the regions' bytes and each region's length. */
export function encodedRegions(output: Uint8Array, count: number): { bytes: Uint8Array; lengths: number[] } {
  const table = output.length - 8 * count
  const view = new DataView(output.buffer, output.byteOffset + table, 8 * count)
  const lengths: number[] = []
  for (let i = 0; i < count; i++) lengths.push(view.getFloat64(8 * i, true))
  return { bytes: output.subarray(0, table), lengths }
}

/** The encode jobs' scratch memory (compressBuffers zeroes the padding it leaves, whatever was there). */
let scratch = new Uint8Array(0)
/** The most scratch memory kept between jobs: a few jobs' worth (jobs carry about 1 MiB). */
const SCRATCH_KEEP = 4 * 1024 * 1024

/** Codecs not running a job, by format and level: a worker loads and instantiates each once. */
const idle = new Map<string, (Decoder | Encoder)[]>()

async function take<T extends Decoder | Encoder>(key: string, make: () => Promise<T>): Promise<T> {
  return (idle.get(key)?.pop() as T | undefined) ?? make()
}

function give(key: string, codec: Decoder | Encoder): void {
  let list = idle.get(key)
  if (!list) idle.set(key, (list = []))
  // More than a few idle instances would only be parallel inline jobs' leftovers.
  if (list.length < 4) list.push(codec)
  else codec.dispose()
}

/** Runs one Arrow job on this thread. Errors are `CodecError`s, format `'arrow'`. */
export async function runArrowJob(job: ArrowDecodeJob | ArrowEncodeJob, codecs: CodecFactories): Promise<ArrowJobResult> {
  if (job.kind === 'arrow-decode') {
    const key = `${job.format}/decode`
    const decoder = await take(key, () => codecs.createDecoder(job.format, { engine: 'wasm' }))
    try {
      // A job allocates no more than its frames can decode to (the reader sized them
      // from prefixes and frame headers it checked; this holds for any job posted).
      for (let i = 0; i < job.sizes.length; i++) {
        if (job.sizes[i]! > mostDecodedBytes(job.format, job.lengths[i]!)) {
          throw new CodecError('INVALID_DATA', 'arrow', `frame ${i} of ${job.lengths[i]} bytes cannot decode to ${job.sizes[i]}`, job.starts[i]!)
        }
      }
      const { offsets, total } = decodedSlots(job.sizes)
      const output = new Uint8Array(total)
      for (let i = 0; i < job.sizes.length; i++) {
        const start = job.starts[i]!
        const frame = job.input.subarray(start, start + job.lengths[i]!)
        // Messages here are for the pool; the reader reports a failure again from its
        // serial path, which names the buffer and its offset in the stream.
        decodeInto(decoder, frame, output.subarray(offsets[i]!, offsets[i]! + job.sizes[i]!), { format: 'arrow', what: `buffer of job frame ${i}`, declaredBy: 'its prefix', base: start, concatenated: false })
      }
      return { output, check: 0 }
    } finally {
      give(key, decoder)
    }
  }
  const key = `${job.format}/encode/${job.level}`
  const encoder = await take(key, () => codecs.createEncoder(job.format, { engine: 'wasm', ...bodyEncoderOptions(job.format === 'lz4' ? 0 : 1, job.level) }))
  try {
    const buffers: Uint8Array[] = []
    let at = 0
    for (const length of job.lengths) {
      buffers.push(job.input.subarray(at, at + length))
      at += length
    }
    const count = buffers.length
    // Compressed into scratch memory kept from job to job (room for every buffer stored
    // raw), then copied out at its size: one small allocation per job, which a worker
    // transfers back as it is.
    const need = compressedCapacity(buffers)
    // Kept only up to SCRATCH_KEEP: one huge buffer does not pin its size in every worker.
    const memory = scratch.length >= need ? scratch : new Uint8Array(need)
    if (need <= SCRATCH_KEEP && memory !== scratch) scratch = memory
    const regions: number[] = []
    const used = compressBuffers(buffers, encoder, memory, regions)
    const output = new Uint8Array(used + 8 * count)
    output.set(memory.subarray(0, used))
    // The length table right after the regions (they end 8-byte aligned).
    const view = new DataView(output.buffer, used, 8 * count)
    for (let i = 0; i < count; i++) view.setFloat64(8 * i, regions[2 * i + 1]!, true)
    return { output, check: 0 }
  } finally {
    give(key, encoder)
  }
}
