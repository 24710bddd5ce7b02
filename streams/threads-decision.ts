/**
 * Whether a call runs on the threads implementation (issue 22): the one rule every
 * surface applies before it loads any of it (the one-shot `encode()`/`decode()`, the
 * stream factories, `CompressionStream`/`DecompressionStream`, the Node adapter,
 * `encodeResponse`). Where it says no, the call is the serial one and no threads code
 * is loaded: `threads: 1` without `blockSize` never loads it. Both functions check the
 * form of `threads` first (`INVALID_OPTION`), so that a bad value is refused the same
 * way whichever path the call would take.
 */
import type { Format } from '../lib/codec.js'
import { wantsBlocks } from '../lib/codec-options.js'
import { checkThreadsForm } from '../lib/options.js'

/**
 * Whether an encoder of `format` runs in block mode: `threads` other than 1, or
 * `blockSize` (except LZ4's, its frame option); lib/formats.ts `wantsBlocks`. `'auto'`
 * always does, so that its bytes do not depend on the machine.
 */
export function encodesInBlocks(format: Format, options: Readonly<Record<string, unknown>>): boolean {
  checkThreadsForm(format, options.threads)
  return wantsBlocks(format, options)
}

/**
 * Whether a decoder of `format` decodes in parallel: `threads` other than 1 on zstd or
 * LZ4 (the formats with frames or blocks to split) that decodes further frames
 * (`concatenated` not false). Every other decoder takes `threads` and decodes serially.
 */
export function decodesInParallel(format: Format, options: Readonly<Record<string, unknown>>): boolean {
  const threads = options.threads
  checkThreadsForm(format, threads)
  return threads !== undefined && threads !== 1 && (format === 'zstd' || format === 'lz4') && options.concatenated !== false
}

/** `options` without `threads`, for the serial path of a surface whose codec does not take it. */
export function withoutThreads<O extends object>(options: O): Omit<O, 'threads'> {
  if (!('threads' in options)) return options
  const { threads: _, ...rest } = options as O & { threads?: unknown }
  return rest
}
