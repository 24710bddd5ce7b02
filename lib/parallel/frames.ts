/**
 * Parallel decoding of zstd streams of several frames (RFC 8878 section 3.1: a stream
 * is a sequence of frames, its content their contents in order), as written by block
 * mode, `zstd -T`, pzstd or the seekable format. Where each frame ends is known from
 * its headers alone (zstd-frame.ts `ZstdFrameScanner`), so the frames are cut apart
 * without decoding and groups of them decode as separate jobs, each into its exact
 * size, the results put back in order.
 *
 * Only inputs that state every frame's content size split: the sizes are summed and
 * checked against `maxOutputBytes` before any job starts, and each job's own limit is
 * its frames' declared size, so memory never exceeds what the limit allows. Anything
 * else (one frame, a frame without a content size, a header no decoder accepts, a
 * truncated frame) returns null and decodes serially, which judges it as always.
 */
import { readU32LE } from '../endian.js'
import { parseFrameHeader, SKIPPABLE_MAGIC, SKIPPABLE_MASK, ZSTD_MAGIC, ZstdFrameScanner } from '../codecs/zstd-frame.js'
import { runOrdered } from './blocks.js'
import type { JobRunner } from './jobs.js'

/** A group of whole frames: `input[start..end)`, decoding to `size` bytes. */
export interface FrameGroup {
  readonly start: number
  readonly end: number
  readonly size: number
}

/**
 * Cuts `bytes` into groups of whole frames of about `target` decoded bytes each; null
 * when the input does not split (see above) or has fewer than two data frames.
 */
export function zstdFrameGroups(bytes: Uint8Array, target: number): FrameGroup[] | null {
  const scanner = new ZstdFrameScanner()
  const groups: FrameGroup[] = []
  let frames = 0
  let groupStart = 0
  let groupSize = 0
  let pos = 0
  while (pos < bytes.length) {
    if (bytes.length - pos < 8) return null
    const magic = readU32LE(bytes, pos)
    let size = 0
    if (magic === ZSTD_MAGIC) {
      size = parseFrameHeader(bytes, pos + 4).contentSize
      if (size < 0) return null
      frames++
    } else if ((magic & SKIPPABLE_MASK) >>> 0 !== SKIPPABLE_MAGIC) {
      return null
    }
    scanner.reset()
    const end = scanner.scan(bytes, pos, bytes.length)
    if (end < 0) return null
    pos = end
    groupSize += size
    if (groupSize >= target) {
      groups.push({ start: groupStart, end: pos, size: groupSize })
      groupStart = pos
      groupSize = 0
    }
  }
  if (groupStart < pos) groups.push({ start: groupStart, end: pos, size: groupSize })
  return frames >= 2 && groups.length >= 2 ? groups : null
}

/**
 * Decodes the frame groups of `bytes` through `run`, at most `inFlight` at a time, into
 * one array of their total declared size; null when that total exceeds `maxOutputBytes`
 * (the serial decoder then reports the limit as it always does).
 */
export async function decodeFrameGroups(bytes: Uint8Array, groups: readonly FrameGroup[], options: Record<string, unknown>, maxOutputBytes: number, run: JobRunner, inFlight: number): Promise<Uint8Array | null> {
  let total = 0
  for (const g of groups) total += g.size
  if (total > maxOutputBytes) return null
  const out = new Uint8Array(total)
  let at = 0
  await runOrdered(
    groups.length,
    (i) => ({ kind: 'decode', format: 'zstd', options, input: bytes.subarray(groups[i]!.start, groups[i]!.end), size: groups[i]!.size }),
    run,
    inFlight,
    (_, r) => {
      out.set(r.output, at)
      at += r.output.length
    },
  )
  return out
}
