/**
 * The facts of block mode that option checks need (which formats have it, block sizes),
 * apart from the block logic itself (blocks.ts), so that checking `blockSize` where a
 * stream or call is made does not load the block encoder: a user who never asks for
 * threads does not download it.
 */
import type { Format } from '../codec.js'
import { CodecError } from '../errors.js'
import { checkInteger } from '../formats.js'

/** The formats with a block mode, by family. */
export type Family = 'deflate' | 'zstd' | 'lz4'

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
export const LZ4_BLOCK_IDS: Record<number, number> = { 65536: 4, 262144: 5, 1048576: 6, 4194304: 7 }
/** LZ4 jobs batch blocks up to this many bytes. */
export const LZ4_JOB_BYTES = 1024 * 1024

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

