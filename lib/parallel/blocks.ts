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
import type { Format } from '../codec.js'
import { CodecError } from '../errors.js'
import { checkBoolean, checkInteger, resolveEngine } from '../formats.js'
import { writeU32LE } from '../endian.js'
import { wrapperHeader, wrapperOf } from '../codecs/deflate.js'
import { xxh32, Xxh32 } from '../codecs/xxhash32.js'
import { FLG_BLOCK_CHECKSUM, FLG_BLOCK_INDEPENDENCE, FLG_CONTENT_CHECKSUM, FLG_CONTENT_SIZE, FLG_VERSION_01, MAGIC as LZ4_MAGIC } from '../codecs/lz4-frame-format.js'
import { adler32Combine, crc32Combine } from './combine.js'
import type { Job, JobResult, JobRunner } from './jobs.js'

/** The formats with a block mode, by family. */
type Family = 'deflate' | 'zstd' | 'lz4'

const FAMILY: Partial<Record<Format, Family>> = { gzip: 'deflate', deflate: 'deflate', 'deflate-raw': 'deflate', zstd: 'zstd', lz4: 'lz4' }

/** The block-mode family of `format`, or null when it has none (brotli, the dictionary transports, raw LZ4 blocks). */
export function blockFamily(format: Format): Family | null {
  return FAMILY[format] ?? null
}

/** Deflate's window: a block reaches back at most 32 KiB (RFC 1951 section 2.2). */
export const DEFLATE_WINDOW = 32 * 1024

/**
 * Default block sizes: pigz's 128 KiB for deflate (its `-b 128`), zstd's 1 MiB frames
 * (a frame's fixed cost, about 12 bytes and a fresh history, stays under 1% there), the
 * LZ4 frame's own default 64 KiB.
 */
export const DEFAULT_BLOCK_SIZE: Record<Family, number> = { deflate: 128 * 1024, zstd: 1024 * 1024, lz4: 64 * 1024 }

/**
 * Smallest blocks: deflate 32 KiB (pigz's floor; below that the 32 KiB history costs
 * more to copy than the block), zstd 64 KiB (smaller frames lose ratio to the reset
 * history and header, issue 22).
 */
const MIN_BLOCK_SIZE: Record<Family, number> = { deflate: 32 * 1024, zstd: 64 * 1024, lz4: 64 * 1024 }
/** Largest blocks: 1 GiB, the largest array every target runtime allocates. */
const MAX_BLOCK_SIZE = 2 ** 30
/** The LZ4 frame's four Block Maximum Sizes, by BD id (lz4_Frame_format.md). */
const LZ4_BLOCK_IDS: Record<number, number> = { 65536: 4, 262144: 5, 1048576: 6, 4194304: 7 }
/** LZ4 jobs batch blocks up to this many bytes. */
const LZ4_JOB_BYTES = 1024 * 1024

/**
 * Checks `blockSize` for `format`; returns it, or undefined when not given. LZ4's
 * `blockSize` is the frame option the encoder already checks (one of four sizes).
 */
export function checkBlockSize(format: Format, value: unknown): number | undefined {
  const family = blockFamily(format)
  if (value === undefined) return undefined
  if (!family) throw new CodecError('INVALID_OPTION', format, `blockSize: ${format} has no block mode (only gzip, deflate, deflate-raw, zstd and lz4 do)`)
  if (family === 'lz4') {
    if (typeof value !== 'number' || !(value in LZ4_BLOCK_IDS)) throw new CodecError('INVALID_OPTION', format, `blockSize must be 65536, 262144, 1048576 or 4194304, got ${String(value)}`)
    return value
  }
  return checkInteger(format, 'blockSize', value, MIN_BLOCK_SIZE[family], MAX_BLOCK_SIZE)
}

/** What `encodeBlocks` needs: the format, the block size and the codec options (level, engine, dictionary, ...). */
export interface BlockPlan {
  readonly format: Format
  readonly blockSize: number
  readonly options: Readonly<Record<string, unknown>>
}

/**
 * The block plan for `format` with the (already checked) `blockSize` or the format's
 * default; null when `format` has no block mode.
 */
export function blockPlan(format: Format, blockSize: number | undefined, options: Record<string, unknown>): BlockPlan | null {
  const family = blockFamily(format)
  if (!family) return null
  return { format, blockSize: blockSize ?? (family === 'lz4' ? ((options.blockSize as number | undefined) ?? DEFAULT_BLOCK_SIZE.lz4) : DEFAULT_BLOCK_SIZE[family]), options }
}

/**
 * Runs `count` jobs through `run` with at most `inFlight` started and not yet taken,
 * handing results to `take` in order. On a failure, waits for the jobs already started
 * (so that none is left running or rejecting unobserved) and throws the first error.
 */
export async function runOrdered(count: number, jobOf: (i: number) => Job, run: JobRunner, inFlight: number, take: (i: number, r: JobResult) => void): Promise<void> {
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
      take(i, outcome.result)
      continue
    }
    await Promise.all(pending.filter((p) => p !== undefined))
    throw outcome.error
  }
}

/** Concatenates `parts` (with room for `extra` bytes after them), returning the array and where the parts end. */
function concat(parts: readonly Uint8Array[], head: Uint8Array, extra: number): { out: Uint8Array; end: number } {
  let total = head.length + extra
  for (const p of parts) total += p.length
  const out = new Uint8Array(total)
  out.set(head, 0)
  let at = head.length
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return { out, end: at }
}

/** Encodes `bytes` in block mode per `plan`, running the jobs through `run` with at most `inFlight` at a time. */
export async function encodeBlocks(plan: BlockPlan, bytes: Uint8Array, run: JobRunner, inFlight: number): Promise<Uint8Array> {
  switch (blockFamily(plan.format)) {
    case 'deflate':
      return deflateBlocks(plan, bytes, run, inFlight)
    case 'zstd':
      return zstdFrames(plan, bytes, run, inFlight)
    case 'lz4':
      return lz4Blocks(plan, bytes, run, inFlight)
    default:
      throw new CodecError('INVALID_OPTION', plan.format, 'no block mode for this format')
  }
}

async function deflateBlocks(plan: BlockPlan, bytes: Uint8Array, run: JobRunner, inFlight: number): Promise<Uint8Array> {
  const { format, blockSize, options } = plan
  const wrapper = wrapperOf(format)
  const level = (options.level as number | undefined) ?? 6
  const engine = resolveEngine(format, options.engine)
  const dictionary = (options.dictionary as Uint8Array | undefined) ?? null
  const count = Math.max(1, Math.ceil(bytes.length / blockSize))
  const check = wrapper === 'gzip' ? 'crc32' : wrapper === 'zlib' ? 'adler32' : 'none'
  const parts: Uint8Array[] = []
  let sum = wrapper === 'zlib' ? 1 : 0
  await runOrdered(
    count,
    (i) => {
      const start = i * blockSize
      const from = Math.max(0, start - DEFLATE_WINDOW)
      return {
        kind: 'deflate-block',
        engine,
        level,
        input: bytes.subarray(from, Math.min(bytes.length, start + blockSize)),
        prefix: start - from,
        dictionary: i === 0 ? dictionary : null,
        last: i === count - 1,
        check,
      }
    },
    run,
    inFlight,
    (i, r) => {
      parts.push(r.output)
      const length = Math.min(bytes.length, (i + 1) * blockSize) - i * blockSize
      if (check === 'crc32') sum = crc32Combine(sum, r.check, length)
      else if (check === 'adler32') sum = adler32Combine(sum, r.check, length)
    },
  )
  const trailer = wrapper === 'gzip' ? 8 : wrapper === 'zlib' ? 4 : 0
  const { out, end } = concat(parts, wrapperHeader(wrapper, level, dictionary), trailer)
  if (wrapper === 'gzip') {
    writeU32LE(out, end, sum)
    writeU32LE(out, end + 4, bytes.length % 2 ** 32) // ISIZE: the size modulo 2^32 (RFC 1952 section 2.3.1)
  } else if (wrapper === 'zlib') {
    out[end] = sum >>> 24
    out[end + 1] = sum >>> 16
    out[end + 2] = sum >>> 8
    out[end + 3] = sum
  }
  return out
}

async function zstdFrames(plan: BlockPlan, bytes: Uint8Array, run: JobRunner, inFlight: number): Promise<Uint8Array> {
  const { format, blockSize, options } = plan
  if (options.contentSize !== undefined) throw new CodecError('INVALID_OPTION', format, 'contentSize declares one frame; block mode (blockSize or threads > 1) writes one frame per block, each with its own content size')
  const count = Math.max(1, Math.ceil(bytes.length / blockSize))
  const parts: Uint8Array[] = []
  await runOrdered(count, (i) => ({ kind: 'encode', format, options, input: bytes.subarray(i * blockSize, Math.min(bytes.length, (i + 1) * blockSize)) }), run, inFlight, (_, r) => parts.push(r.output))
  return concat(parts, new Uint8Array(0), 0).out
}

/** The LZ4 frame header the serial encoder writes for no content size: magic, FLG, BD, HC. */
const LZ4_PLAIN_HEADER = 7
/** The end mark (a zero block size). */
const LZ4_END_MARK = 4

async function lz4Blocks(plan: BlockPlan, bytes: Uint8Array, run: JobRunner, inFlight: number): Promise<Uint8Array> {
  const { format, blockSize, options } = plan
  const blockChecksum = checkBoolean(format, 'blockChecksum', options.blockChecksum, false)
  const contentChecksum = checkBoolean(format, 'contentChecksum', options.contentChecksum, true)
  const contentSize = checkInteger(format, 'contentSize', options.contentSize, 0, Number.MAX_SAFE_INTEGER, -1)
  if (contentSize >= 0 && contentSize !== bytes.length) throw new CodecError('INVALID_OPTION', format, `input of ${bytes.length} bytes does not match contentSize ${contentSize}`)
  const jobBytes = Math.max(blockSize, Math.floor(LZ4_JOB_BYTES / blockSize) * blockSize)
  const count = Math.ceil(bytes.length / jobBytes)
  const jobOptions = { ...options, blockSize, contentChecksum: false, contentSize: undefined }
  const parts: Uint8Array[] = []
  // The content checksum runs here while the workers compress.
  const hash = new Xxh32()
  await runOrdered(
    count,
    (i) => {
      const start = i * jobBytes
      const end = Math.min(bytes.length, start + jobBytes)
      if (contentChecksum) hash.update(bytes, start, end)
      return { kind: 'encode', format, options: jobOptions, input: bytes.subarray(start, end) }
    },
    run,
    inFlight,
    (_, r) => parts.push(r.output.subarray(LZ4_PLAIN_HEADER, r.output.length - LZ4_END_MARK)),
  )
  const header = new Uint8Array(contentSize >= 0 ? 15 : 7)
  writeU32LE(header, 0, LZ4_MAGIC)
  header[4] = FLG_VERSION_01 | FLG_BLOCK_INDEPENDENCE | (blockChecksum ? FLG_BLOCK_CHECKSUM : 0) | (contentSize >= 0 ? FLG_CONTENT_SIZE : 0) | (contentChecksum ? FLG_CONTENT_CHECKSUM : 0)
  header[5] = LZ4_BLOCK_IDS[blockSize]! << 4
  if (contentSize >= 0) {
    writeU32LE(header, 6, contentSize >>> 0)
    writeU32LE(header, 10, Math.floor(contentSize / 2 ** 32))
  }
  // HC: the second byte of xxHash32 of the descriptor (FLG to the end of the optional fields).
  header[header.length - 1] = (xxh32(header, 4, header.length - 1) >>> 8) & 0xff
  const { out, end } = concat(parts, header, LZ4_END_MARK + (contentChecksum ? 4 : 0))
  writeU32LE(out, end, 0)
  if (contentChecksum) writeU32LE(out, end + 4, hash.digest())
  return out
}
