import type { Format } from './codec.js'
import { CodecError } from './errors.js'
import type { Engine } from './registry.js'

/**
 * Which encoders can write a sync point mid-stream (`Encoder.flush()`), known before
 * any engine loads, so that asking for one where it cannot be had fails at once
 * rather than at the first write:
 *
 * - deflate family (every engine): sync flush, an empty stored block (RFC 1951 §3.2.4).
 * - zstd (wasm, node): ZSTD_e_flush ends the current block (zstd.h).
 * - LZ4 frame: the current block is ended early (blocks are independent).
 * - brotli on 'node': BROTLI_OPERATION_FLUSH (node:zlib). On 'wasm', brotli-wasm's
 *   encoder offers PROCESS and FINISH only, so there is no sync point to be had.
 * - raw LZ4 blocks: one block, nothing to split.
 */
export function canFlush(format: Format, engine: Engine): boolean {
  if (format === 'lz4-block') return false
  if (format === 'brotli') return engine === 'node'
  return true
}

export type FlushMode = 'none' | 'write'

/** Checks the `flush` option of an encoder on `engine`; returns the mode to use. */
export function checkFlush(format: Format, engine: Engine, value: unknown): FlushMode {
  if (value === undefined || value === 'none') return 'none'
  if (value !== 'write') throw new CodecError('INVALID_OPTION', format, `flush must be 'none' or 'write', got ${String(value)}`)
  if (!canFlush(format, engine)) throw unflushable(format, engine)
  return 'write'
}

/** The error for a sync point asked of an encoder that cannot write one. */
export function unflushable(format: Format, engine: Engine): CodecError {
  return new CodecError('UNSUPPORTED', format, `cannot flush on engine '${engine}'${format === 'brotli' ? " (no BROTLI_OPERATION_FLUSH in brotli-wasm; engine 'node' has it)" : ''}`)
}
