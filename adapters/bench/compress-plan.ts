/**
 * How `sluice compress` encodes a file, in one place: the encoder options a format, a
 * level and the command line's settings make (`encoderOptions`), the encoder stream
 * (`compressPair`), the decoder options of `sluice decompress` (`decoderOptions`) and the
 * size of the reads that feed the encoder (`READ_BYTES`). `sluice bench` (bench.ts)
 * measures through the same functions with the same reads, so a bench row's size is the
 * size `sluice compress` writes at that format and level, byte for byte.
 *
 * A file is encoded as a stream, in bounded memory, and not with `encode()` on its whole
 * bytes, so the bytes can differ from `encode()`'s for the same options: `encode()`
 * hands the codec all of the input in one call, and zstd then compresses it in one pass
 * from the caller's buffer (inputs up to 16 MiB; a stream goes through libzstd's own
 * input buffer, 256 KiB at a time), and LZ4's `encode()` writes no content size (8 bytes
 * fewer). docs/cli.md has the measured differences.
 *
 * No `node:` import here: a page can build the same streams (docs/cli.md, "sluice bench").
 */
import type { Format } from '../../lib/codec.js'
import { rowOf } from '../../lib/formats.js'
import { wantsBlocks } from '../../lib/codec-options.js'
import { decompress, type DecompressOptions } from '../../streams/decompress.js'
import { encodeStream, type EncoderPair } from '../../streams/factories.js'
import type { Threads } from '../../streams/thread-options.js'
import type { ProgressCallback } from '../../lib/progress.js'

/**
 * The size of each read that feeds the encoder: 1 MiB (the CLI asks `createReadStream`
 * for it; bench feeds slices of it). Brotli depends on it: its encoder sizes its tables
 * by the first call's length, and qualities 0 and 1 compress each call's input at once
 * (lib/codecs/brotli.ts). With Node's default 64 KiB reads, `compress -F br -1` wrote
 * 6.5 to 8.4% more than `encode()` on 6 and 20 MB of text and of a binary, `-5` 1.1 to
 * 2.5% more; with 1 MiB reads, the bytes of `encode()` in each case.
 */
export const READ_BYTES = 1024 * 1024

/** What the command line says about encoding, besides the format. */
export interface CompressSettings {
  level?: number
  /** `-T N`: block mode on N workers (`'auto'`: `-T0`); formats without blocks run on one thread. */
  threads?: Threads
  /** `--block-size`: block mode's block size (LZ4: the frame's block size). */
  blockSize?: number
  /** `--seekable`: a zstd seekable archive (docs/zstd-archives.md). */
  seekable?: boolean
  /** `--frame-size`: a seekable archive's bytes per frame. */
  frameSize?: number
  /** `--long`: zstd long-distance matching; a number is the window log (`--long=N`). */
  long?: boolean | number
  /** `-D`: a dictionary. */
  dictionary?: Uint8Array<ArrayBuffer>
}

/** The encoder options, and what was left out and why (shown as warnings). */
export interface EncoderPlan {
  options: Record<string, unknown>
  notes: string[]
}

/** A mistake in the settings for this format (the CLI shows it as a usage error). */
export class SettingsError extends Error {
  override name = 'SettingsError'
}

/** `--long` without a number: window log 27, a 128 MiB window (`zstd --help`: "--long[=#] ... (default: 27)"). */
const LONG_WINDOW_LOG = 27

/**
 * The encoder options `sluice compress` uses for `format`, the settings and an input of
 * `inputBytes` (undefined when unknown: a pipe). The content size goes into zstd and LZ4
 * frame headers when the size is known (zstd's CLI writes it; decoders then size their
 * output once), except where one frame does not hold the whole input (zstd's block mode
 * and seekable archives write each frame's own).
 */
export function encoderOptions(format: Format, settings: CompressSettings, inputBytes?: number): EncoderPlan {
  const options: Record<string, unknown> = {}
  const notes: string[] = []
  if (settings.level !== undefined) options.level = settings.level
  if (settings.dictionary !== undefined) options.dictionary = settings.dictionary
  if (settings.threads !== undefined && settings.threads !== 1) {
    if (rowOf(format).blocks) options.threads = settings.threads
    else notes.push(`${format} has no independent blocks: -T ${settings.threads === 'auto' ? 0 : settings.threads} ignored, one thread`)
  }
  if (settings.blockSize !== undefined) options.blockSize = settings.blockSize
  const zstdOnly = (what: string) => {
    if (format !== 'zstd') throw new SettingsError(`${what} is for zstd, not ${format}`)
  }
  if (settings.seekable) {
    zstdOnly('--seekable')
    options.seekable = true
    if (settings.frameSize !== undefined) options.frameSize = settings.frameSize
  } else if (settings.frameSize !== undefined) {
    throw new SettingsError('--frame-size is for seekable archives: add --seekable')
  }
  if (settings.long !== undefined && settings.long !== false) {
    zstdOnly('--long')
    options.long = true
    if (typeof settings.long === 'number') options.windowLog = settings.long
  }
  const oneFrame = format === 'lz4' || (format === 'zstd' && !settings.seekable && !wantsBlocks(format, options))
  if (inputBytes !== undefined && oneFrame) options.contentSize = inputBytes
  return { options, notes }
}

/**
 * The decoder options `sluice decompress` (and bench's decoding) uses: `threads` where
 * given, the dictionary, and for zstd (given or detected) `--long=N` as the largest
 * window accepted, as `zstd -d --long=N` (without it the decoder's default, 2^27, which
 * also covers `--long`); other formats have no window to accept, and ignore it, as
 * `zstd -d --long=N` does on a gzip file.
 */
export function decoderOptions(format: Format | undefined, settings: CompressSettings): DecompressOptions {
  const options: DecompressOptions = {}
  if (format !== undefined) options.format = format
  if (settings.threads !== undefined && settings.threads !== 1) options.threads = settings.threads
  if (settings.dictionary !== undefined) options.dictionary = settings.dictionary
  if (typeof settings.long === 'number' && settings.long > LONG_WINDOW_LOG && (format === undefined || format === 'zstd')) {
    ;(options as Record<string, unknown>).maxWindowLog = settings.long
  }
  return options
}

/** The encoder stream for `plan` (block mode on workers when it asks for it), reporting to `onProgress`. */
export function compressPair(format: Format, plan: EncoderPlan, onProgress?: ProgressCallback): EncoderPair {
  return encodeStream(format, (onProgress ? { ...plan.options, onProgress } : plan.options) as never)
}

/** The decoder stream `sluice decompress` uses: the format from the options, else detected. */
export function decompressPair(options: DecompressOptions, onProgress?: ProgressCallback): ReadableWritablePair<Uint8Array, BufferSource> {
  return decompress(onProgress ? { ...options, onProgress } : options)
}
