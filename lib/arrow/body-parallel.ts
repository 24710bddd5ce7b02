/**
 * A message body's buffers decoded or encoded as jobs (issue 22): the parallel
 * counterparts of body.ts `decodeBodyBuffers` and body-write.ts `layoutBody`, run by the
 * Arrow reader and writer when `threads` asks for more than one thread. The jobs are
 * body-jobs.ts's, run through a `JobRunner` (a worker pool's, or inline for small
 * bodies), at most `inFlight` at a time; buffers are grouped so that each job carries
 * about `GROUP_BYTES` of uncompressed data.
 *
 * Decoding: pass 1 is the serial reader's (body.ts `declaredLengths`, the same checks
 * and errors). Buffers with a known size go to jobs, each decoded into exactly that
 * size; buffers stored raw are views or copies as in the serial reader; buffers whose
 * prefix gives no size (apache-arrow 21.2's writer stores the compressed length, see
 * body.ts) take their size from the zstd frame header when it has one, and otherwise
 * decode on the caller's thread with the serial code once the jobs are done. Any
 * failure of a job's data is reported by running the serial reader over the body, so
 * that the error (code, message, offset naming the buffer) is the one it always gives.
 *
 * Encoding: every buffer's region is made by body-write.ts `compressBuffers`, whichever
 * job holds it, and regions are self-contained (each starts 8-byte aligned), so the
 * body is byte for byte the serial writer's whatever the grouping or thread count.
 */
import { align8 } from '../bytes.js'
import type { Decoder } from '../codec.js'
import { CodecError } from '../errors.js'
import { ZstdFrameWalker } from '../codecs/zstd-frame-format.js'
import { runOrdered } from '../parallel/blocks.js'
import type { JobRunner } from '../parallel/jobs.js'
import { checkArena, checkRegions, declaredLengths, decodeBodyBuffers, decodeUnsized } from './body.js'
import type { ArrowDecodeJob, ArrowEncodeJob } from './body-jobs.js'
import { decodedSlots, encodedRegions } from './body-jobs.js'
import type { Body, BodyBuffers } from './body-write.js'
import type { RecordBatchDesc } from './metadata.js'

/**
 * Uncompressed bytes per job: large enough that a job's message round trip (about 0.1
 * ms each way, and a worker waits for the caller's thread to hand it the next job) is
 * small beside decoding it (1-2 ms at zstd's speed), small enough that a 65,536-row
 * batch of eight columns (2-4 MiB) still makes several jobs; the reader decodes the
 * next batch's jobs while it builds the current one, so jobs per batch need not
 * outnumber the workers. Reading the repository's bench/threads.ts Arrow file on a loaded 2-core
 * machine, 1 MiB groups were at least as fast as 256 KiB to 4 MiB ones (noisy).
 */
export const GROUP_BYTES = 1024 * 1024

/** Where the reader gets its runner: `bytes` is the work's size (small work stays inline). */
export type RunnerFor = (bytes: number) => JobRunner

const EMPTY = new Uint8Array(0)

/** A buffer going to a job: its index, where its frame lies in the body, its exact decoded size. */
interface Sized {
  readonly index: number
  readonly start: number
  readonly length: number
  readonly size: number
}

/**
 * The buffers of a compressed body, as `decodeBodyBuffers` returns them (the same
 * arguments), decoded as jobs through `runnerFor`. Rejects with the serial reader's
 * error when the body is corrupt; `ENGINE_UNAVAILABLE` and `ABORTED` (no workers, a
 * worker lost, `closeWorkers()`) pass through as they are.
 */
export async function decodeBodyBuffersParallel(
  batch: RecordBatchDesc,
  body: Uint8Array,
  bodyOffset: number,
  decoder: Decoder,
  maxBytes: number,
  aliasRaw: boolean,
  sizeHint: ((index: number, decoded: Uint8Array[]) => number) | null,
  runnerFor: RunnerFor,
  inFlight: number,
): Promise<Uint8Array[]> {
  try {
    return await decodeJobs(batch, body, bodyOffset, decoder, maxBytes, aliasRaw, sizeHint, runnerFor, inFlight)
  } catch (error) {
    if (!(error instanceof CodecError) || error.code === 'ENGINE_UNAVAILABLE' || error.code === 'ABORTED') throw error
    // The serial reader judges the body: its error names the buffer and its offset.
    return decodeBodyBuffers(batch, body, bodyOffset, decoder, maxBytes, aliasRaw, sizeHint)
  }
}

async function decodeJobs(
  batch: RecordBatchDesc,
  body: Uint8Array,
  bodyOffset: number,
  decoder: Decoder,
  maxBytes: number,
  aliasRaw: boolean,
  sizeHint: ((index: number, decoded: Uint8Array[]) => number) | null,
  runnerFor: RunnerFor,
  inFlight: number,
): Promise<Uint8Array[]> {
  checkRegions(batch, body, bodyOffset)
  const declared = declaredLengths(batch, body, bodyOffset, maxBytes)
  const count = declared.length
  const out: Uint8Array[] = new Array(count)
  const zstd = batch.compression === 1
  const sized: Sized[] = []
  const unsized: number[] = []
  let raw = 0
  let arena = 0
  for (let i = 0; i < count; i++) {
    const off = batch.bufferOffsets[i]!
    const len = batch.bufferLengths[i]!
    const d = declared[i]!
    if (len === 0 || d === 0) {
      out[i] = EMPTY
    } else if (d === -1) {
      if (!aliasRaw) raw += align8(len - 8)
    } else if (d !== len - 8) {
      sized.push({ index: i, start: off + 8, length: len - 8, size: d })
      arena += align8(d)
    } else {
      // The prefix gives no size (apache-arrow 21.2): the zstd frame header's, when it
      // states one the serial reader would accept, else the serial reader decodes it.
      const size = zstd ? frameContentSize(body, off + 8, off + len) : -1
      if (size >= d && size <= maxBytes) sized.push({ index: i, start: off + 8, length: len - 8, size })
      else unsized.push(i)
    }
  }
  // The serial reader's limit on what it allocates at once, counted as it counts it.
  checkArena(arena + raw, maxBytes, bodyOffset)
  if (raw > 0 || aliasRaw) {
    const memory = new Uint8Array(raw)
    let at = 0
    for (let i = 0; i < count; i++) {
      if (declared[i] !== -1 || batch.bufferLengths[i] === 0) continue
      const off = batch.bufferOffsets[i]!
      const payload = body.subarray(off + 8, off + batch.bufferLengths[i]!)
      if (aliasRaw) { out[i] = payload; continue }
      out[i] = memory.subarray(at, at + payload.length)
      out[i]!.set(payload)
      at += align8(payload.length)
    }
  }
  // Groups of consecutive buffers, about GROUP_BYTES of output each.
  const groups: Sized[][] = []
  let total = 0
  let group: Sized[] = []
  let groupBytes = 0
  for (const s of sized) {
    group.push(s)
    groupBytes += s.size
    total += s.size
    if (groupBytes >= GROUP_BYTES) {
      groups.push(group)
      group = []
      groupBytes = 0
    }
  }
  if (group.length > 0) groups.push(group)
  const format = zstd ? 'zstd' : 'lz4'
  const jobOf = (g: number): ArrowDecodeJob => {
    const members = groups[g]!
    const first = members[0]!.start
    const last = members[members.length - 1]!
    return {
      kind: 'arrow-decode',
      format,
      input: body.subarray(first, last.start + last.length),
      starts: members.map((s) => s.start - first),
      lengths: members.map((s) => s.length),
      sizes: members.map((s) => s.size),
    }
  }
  if (groups.length > 0) {
    const run = runnerFor(total)
    await runOrdered(groups.length, jobOf, run, inFlight, (g, result) => {
      const members = groups[g]!
      const { offsets, total: expected } = decodedSlots(members.map((s) => s.size))
      if (result.output.length !== expected) throw new CodecError('INVALID_DATA', 'arrow', `a decode job returned ${result.output.length} bytes, expected ${expected}`, bodyOffset)
      members.forEach((s, k) => (out[s.index] = result.output.subarray(offsets[k]!, offsets[k]! + s.size)))
    })
  }
  // After the jobs, so that size hints can read the offsets buffers they decoded.
  for (const i of unsized) out[i] = decodeUnsized(batch, body, bodyOffset, i, decoder, maxBytes, sizeHint?.(i, out) ?? -1)
  return out
}

/**
 * The Frame_Content_Size stated by the header of the zstd frame at `body[at..end)`, or -1
 * when it states none, is cut short, is refused or is no zstd frame header.
 */
function frameContentSize(body: Uint8Array, at: number, end: number): number {
  const walker = new ZstdFrameWalker()
  walker.step(body, at, end)
  return walker.header?.contentSize ?? -1
}

/**
 * The body of `a` laid out and compressed as jobs through `runnerFor`: the same bytes
 * and layout as body-write.ts `layoutBody` with an encoder of `format` at `level`.
 */
export async function layoutBodyParallel(a: BodyBuffers, length: number, compression: number, level: number | undefined, runnerFor: RunnerFor, inFlight: number): Promise<Body> {
  const format = compression === 0 ? 'lz4' : 'zstd'
  const buffers = a.buffers
  // Groups of consecutive buffers, about GROUP_BYTES of input each.
  const groups: [number, number][] = []
  let total = 0
  for (let i = 0, start = 0, bytes = 0; i < buffers.length; i++) {
    bytes += buffers[i]!.length
    total += buffers[i]!.length
    if (bytes >= GROUP_BYTES || i === buffers.length - 1) {
      groups.push([start, i + 1])
      start = i + 1
      bytes = 0
    }
  }
  const jobOf = (g: number): ArrowEncodeJob => {
    const [from, to] = groups[g]!
    const members = buffers.slice(from, to)
    let size = 0
    for (const b of members) size += b.length
    // One buffer is posted as it is; several are joined (the pool copies the input once).
    const input = members.length === 1 ? members[0]! : new Uint8Array(size)
    if (members.length > 1) {
      let at = 0
      for (const b of members) { input.set(b, at); at += b.length }
    }
    return { kind: 'arrow-encode', format, level, input, lengths: members.map((b) => b.length) }
  }
  const parts: Uint8Array[] = []
  const regions: number[] = []
  let at = 0
  if (groups.length > 0) {
    const run = runnerFor(total)
    await runOrdered(groups.length, jobOf, run, inFlight, (g, result) => {
      const [from, to] = groups[g]!
      const { bytes, lengths } = encodedRegions(result.output, to - from)
      let offset = at
      for (const n of lengths) {
        regions.push(offset, n)
        if (n > 0) offset = align8(offset + n)
      }
      if (offset - at !== bytes.length) throw new CodecError('INVALID_DATA', 'arrow', `an encode job returned ${bytes.length} bytes of regions, its lengths say ${offset - at}`)
      parts.push(bytes)
      at = offset
    })
  }
  return {
    layout: { length, nodes: a.nodes, buffers: regions, compression, variadicCounts: a.variadicCounts },
    length: at,
    writeTo(dst) {
      let p = 0
      for (const part of parts) {
        dst.set(part, p)
        p += part.length
      }
    },
  }
}
