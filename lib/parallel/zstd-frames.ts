/**
 * One-shot parallel decoding of zstd streams of several frames (RFC 8878 section 3.1: a
 * stream is a sequence of frames, its content their contents in order), as written by
 * block mode, `zstd -T`, pzstd or the seekable format. Where each frame ends, and the
 * content size its header states, is known from its headers alone (zstd-frame-format.ts
 * `ZstdFrameWalker`), so the frames are cut apart without decoding and groups of them
 * decode as separate jobs, each into its exact size, the results put back in order.
 *
 * Only inputs that state every frame's content size split: the sizes are summed and
 * checked against `maxOutputBytes` before any job starts, and each job's own limit is
 * its frames' declared size, so memory never exceeds what the limit allows. Anything
 * else (one frame, a frame without a content size, a header no decoder accepts, a
 * truncated frame) returns null and decodes serially, which judges it as always.
 *
 * The stream's cutter (zstd-cutter.ts) groups frames the same way as they arrive, with
 * serial sections for what does not split. The whole input is here at once, so this
 * needs none of that, and stays small: it is loaded with every entry point that decodes
 * with `threads`, the cutter only with the first parallel stream.
 */
import { ZstdFrameWalker } from '../codecs/zstd-frame-format.js'
import { runOrdered } from './blocks.js'
import { SizedGroups, type SizedGroup } from './cuts.js'
import type { JobRunner } from './jobs.js'
import { ScratchBuffers } from './scratch.js'
import { ResultMemory } from './result-memory.js'

/** A group of whole frames: `input[start..end)`, decoding to `size` bytes. */
export type FrameGroup = SizedGroup

/**
 * Cuts `bytes` into groups of whole frames of about `target` decoded bytes each; null
 * when the input does not split (see above) or has fewer than two data frames.
 */
export function zstdFrameGroups(bytes: Uint8Array, target: number): FrameGroup[] | null {
  const walker = new ZstdFrameWalker()
  const groups = new SizedGroups(target)
  let frames = 0
  let pos = 0
  while (pos < bytes.length) {
    walker.reset()
    const end = walker.scan(bytes, pos, bytes.length)
    if (end < 0) return null
    // Skippable frames (header null) decode to nothing.
    const size = walker.header?.contentSize ?? 0
    if (size < 0) return null
    if (walker.header !== null) frames++
    pos = end
    groups.add(pos, size)
  }
  const list = groups.finish(pos)
  return frames >= 2 && list.length >= 2 ? list : null
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
  const scratch = new ScratchBuffers()
  const out = new ResultMemory(total, run, (output) => scratch.give(output))
  let at = 0
  await runOrdered(
    groups.length,
    (i) => ({ kind: 'decode', format: 'zstd', options, input: bytes.subarray(groups[i]!.start, groups[i]!.end), size: groups[i]!.size, scratch: scratch.take() }),
    run,
    inFlight,
    (_, r) => {
      const put = out.put(r.output, at)
      at += r.output.length
      return put
    },
  )
  return out.result()
}
