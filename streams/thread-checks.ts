/**
 * The checks of `threads` and `blockSize` that every surface runs where the call is made
 * (issue 20: a bad option throws from the call, synchronously), small and imported by
 * none of the threads implementation (streams/threads-impl.ts: the pool, the block
 * logic, the frame splitting, block-mode streams), which loads with the first use of
 * threads or blocks. So a user who never asks for threads loads only this, inside the
 * initial bundle. The implementation checks again with its own rules
 * (streams/threads.ts, lib/parallel/block-options.ts), and
 * the repository's test/parallel-stream.test.ts checks that both give the same verdicts.
 * Whether the runtime has workers at all is the implementation's check: `threads > 1`
 * is `ENGINE_UNAVAILABLE` on workerd when the work starts (the one-shot call rejects, a
 * stream errors).
 */
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { checkInteger } from '../lib/formats.js'
import { MAX_THREADS } from './thread-limits.js'

/**
 * The smallest `blockSize` of the formats with a block mode (0 for LZ4, whose
 * `blockSize` is its frame's, one of four sizes): lib/parallel/block-options.ts gives
 * the reasons.
 */
const MIN_BLOCK: Partial<Record<Format, number>> = { gzip: 32768, deflate: 32768, 'deflate-raw': 32768, zstd: 65536, lz4: 0 }

/** Whether `format` has a block mode (gzip, deflate, deflate-raw, zstd, LZ4 frames). */
export const hasBlocks = (format: Format): boolean => MIN_BLOCK[format] !== undefined

/** Checks the form of `threads`: `'auto'` or an integer from 1 to `MAX_THREADS`. */
export function checkThreadsForm(format: string, value: unknown): void {
  if (value !== undefined && value !== 'auto' && (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_THREADS)) {
    throw new CodecError('INVALID_OPTION', format, `threads must be 'auto' or an integer from 1 to ${MAX_THREADS}, got ${String(value)}`)
  }
}

/** Checks `blockSize` for `format` (a format without block mode refuses it; LZ4's is one of its frame's four sizes). */
export function checkBlockSizeForm(format: Format, value: unknown): void {
  if (value === undefined) return
  const min = MIN_BLOCK[format]
  if (min === undefined) throw new CodecError('INVALID_OPTION', format, `blockSize: ${format} has no block mode (only gzip, deflate, deflate-raw, zstd and lz4 do)`)
  if (min === 0) {
    if (value !== 65536 && value !== 262144 && value !== 1048576 && value !== 4194304) throw new CodecError('INVALID_OPTION', format, `blockSize must be 65536, 262144, 1048576 or 4194304, got ${String(value)}`)
  } else checkInteger(format, 'blockSize', value, min, 2 ** 30)
}

/** Whether `options` turn block mode on for an encoder of `format` (LZ4's `blockSize` alone does not: it is its frame option). */
export function wantsBlocks(format: Format, options: Record<string, unknown>): boolean {
  const threads = options.threads
  return (threads !== undefined && threads !== 1) || (options.blockSize !== undefined && format !== 'lz4')
}
