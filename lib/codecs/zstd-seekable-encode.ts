/**
 * Writing the zstd seekable format (contrib/seekable_format/
 * zstd_seekable_compression_format.md): independent zstd frames of `frameSize` input
 * bytes each, every one with its content size in its header (the frame splitter gives
 * each frame to the zstd encoder in one final call), then the seek table frame
 * (zstd-seek-table.ts). With `seekable: { checksums: true }` every frame ends in its
 * Content_Checksum (the low 32 bits of the XXH64 of its content, RFC 8878 §3.1.1), and
 * the table repeats it, as the format's Checksum_Flag asks.
 *
 * The result is an ordinary zstd stream too: every zstd decoder reads it whole and skips
 * the table (a skippable frame, RFC 8878 §3.1.2).
 */
import type { Encoder } from '../codec.js'
import { zstdEncodeRules } from '../formats.js'
import { formatOption } from '../codec-options.js'
import { FrameSplitEncoder } from './frame-split-encoder.js'
import { SEEKABLE_MAX_FRAMES, writeSeekTable } from './zstd-seek-table.js'

const FORMAT = 'zstd'

/** Default `frameSize`: 1 MiB of input per frame (the ratio costs about 1% at level 3). */
export const DEFAULT_FRAME_SIZE = 1024 * 1024

/** The zstd encoder options of the seekable format. */
export interface ZstdSeekableEncoderOptions {
  /**
   * Write the seekable format: independent frames of `frameSize` input bytes, then a seek
   * table. `{ checksums: true }` also puts each frame's checksum into the table.
   */
  seekable?: boolean | { checksums?: boolean }
  /** Input bytes per frame of a seekable archive, 1 to 2^30 (the format's limit); default 1 MiB. */
  frameSize?: number
}

/** What `seekable` and `frameSize` ask for, or null when not seekable. */
export interface SeekableChoice {
  frameSize: number
  checksums: boolean
}

/**
 * `seekable` and `frameSize` of a zstd encoder: the values by the format table's schema
 * (lib/formats.ts, ZSTD_ENCODE), and the rules between options that a schema entry
 * cannot say. Throws `INVALID_OPTION`.
 */
export function checkSeekableOptions(options: Record<string, unknown>): SeekableChoice | null {
  const seekable = formatOption(FORMAT, 'encode', 'seekable', options.seekable) as boolean | { checksums?: boolean } | undefined
  // The reference's ZSTD_SEEKABLE_MAX_FRAME_DECOMPRESSED_SIZE (zstd_seekable.h) bounds it
  // in the schema: a frame of more than 1 GiB could compress to more than the table's
  // 32-bit Compressed_Size.
  const frameSize = (formatOption(FORMAT, 'encode', 'frameSize', options.frameSize) as number | undefined) ?? DEFAULT_FRAME_SIZE
  // The rules between options, as checkOptions applies them at every surface.
  zstdEncodeRules(options)
  if (seekable === undefined || seekable === false) return null
  const checksums = seekable !== true && seekable.checksums === true
  return { frameSize, checksums }
}

/**
 * The zstd encoder `options` ask for: `frame(options)` itself, or with `seekable` the
 * seekable writer around frames from it.
 */
export function seekableOrPlain(options: Record<string, unknown>, frame: (options: Record<string, unknown>) => Encoder): Encoder {
  const choice = checkSeekableOptions(options)
  if (choice === null) return frame(options)
  const inner = frame(choice.checksums ? { ...options, checksum: true } : options)
  return new FrameSplitEncoder(FORMAT, inner, {
    frameSize: choice.frameSize,
    maxFrames: SEEKABLE_MAX_FRAMES,
    maxCompressedFrame: 0xffffffff,
    trailer: (frames) => writeSeekTable(frames, choice.checksums),
  })
}
