/**
 * Block plans: the format table's block facts (`FormatRow.blocks`: family, default and
 * smallest block; `checkBlockSize`) as the block logic (blocks.ts) uses them.
 */
import type { Format } from '../codec.js'
import { rowOf, type BlockFacts } from '../formats.js'

export { checkBlockSize } from '../codec-options.js'

/** The formats with a block mode, by family (the format table's `blocks`). */
export type Family = BlockFacts['family']

/** The block-mode family of `format`, or null when it has none (brotli, the dictionary transports, raw LZ4 blocks). */
export function blockFamily(format: Format): Family | null {
  return rowOf(format).blocks?.family ?? null
}

/** Deflate's window: a block reaches back at most 32 KiB (RFC 1951 section 2.2). */
export const DEFLATE_WINDOW = 32 * 1024

/** LZ4 jobs batch blocks up to this many bytes. */
export const LZ4_JOB_BYTES = 1024 * 1024

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
  const blocks = rowOf(format).blocks
  if (!blocks) return null
  return { format, blockSize: blockSize ?? (blocks.family === 'lz4' ? ((options.blockSize as number | undefined) ?? blocks.fallback) : blocks.fallback), options }
}

