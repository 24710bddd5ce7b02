/**
 * LZ4 HC (levels 3 to 12) on first use. The HC compressors are not part of what a user
 * of levels 1 and 2 loads: the TypeScript one (lz4hc-block.ts: the `'js'` engine's
 * frames and every engine's raw blocks) and the wasm kernel (lz4hc-wasm.ts) load when a
 * codec module's `prepare('encode', options)` sees a level >= 3 (lib/codec.ts; the
 * package's `createEncoder()`, one-shot calls and streams await it before creating the
 * encoder). An encoder created at such a level before its compressor loaded is refused
 * with `ENGINE_UNAVAILABLE`, never compressed at another level.
 */
import type { Format } from '../codec.js'
import { CodecError } from '../errors.js'
import type { HcState } from './lz4hc-block.js'

/** Lowest HC level: levels 1 and 2 use the fast search (lz4-block.ts), as the lz4 CLI does. */
export const HC_MIN_LEVEL = 3

/** Whether `options` ask for an HC level (anything but a number is left to the encoder's own checks). */
export function wantsHc(options: Readonly<Record<string, unknown>>): boolean {
  return typeof options.level === 'number' && options.level >= HC_MIN_LEVEL
}

/** The TypeScript compressor, once loaded. */
let block: typeof import('./lz4hc-block.js') | null = null
let loading: Promise<void> | null = null

/** Loads the TypeScript HC compressor (once; a failed load is tried again). */
export function loadHcBlock(): Promise<void> {
  if (block !== null) return Promise.resolve()
  loading ??= import('./lz4hc-block.js').then(
    (m) => {
      block = m
    },
    (cause: unknown) => {
      loading = null
      throw cause
    },
  )
  return loading
}

/** Whether the TypeScript HC compressor is loaded. */
export function hcBlockLoaded(): boolean {
  return block !== null
}

/** The error for an HC level whose compressor was not loaded first. */
export function hcNotLoaded(format: Format, level: number): CodecError {
  return new CodecError(
    'ENGINE_UNAVAILABLE',
    format,
    `level ${level} compresses with LZ4 HC, which loads on first use: create the encoder with createEncoder() or a stream, or await the codec module's prepare('encode', options) first`,
  )
}

/** A TypeScript HC compressor with tables of its own: `compress()` has `encodeBlockHC`'s contract (lz4hc-block.ts). */
export interface HcBlockCompressor {
  compress(src: Uint8Array, srcStart: number, srcEnd: number, dst: Uint8Array, dstStart: number, dstEnd: number, level: number): number
}

/** A TypeScript HC compressor; throws `hcNotLoaded` when `loadHcBlock()` has not completed. */
export function hcBlockCompressor(format: Format, level: number): HcBlockCompressor {
  const m = block
  if (m === null) throw hcNotLoaded(format, level)
  let state: HcState | null = null
  return { compress: (src, srcStart, srcEnd, dst, dstStart, dstEnd, at) => m.encodeBlockHC(src, srcStart, srcEnd, dst, dstStart, dstEnd, at, (state ??= m.createHcState())) }
}
