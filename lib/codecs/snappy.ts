/**
 * The Snappy codec modules: the framing format `'snappy'` (snappy-frame-decode.ts,
 * snappy-frame-encode.ts) and one raw block `'snappy-raw'` (snappy-block-codec.ts), with
 * whole blocks decoded and compressed and checksums computed by a kernel
 * (snappy-kernel.ts): TypeScript
 * here (the `'js'` engine), sluice's wasm kernel in snappy-wasm.ts (`'wasm'`).
 */
import type { CodecModule, Decoder, Encoder, FormatTraits } from '../codec.js'
import { SnappyRawDecoder, SnappyRawEncoder } from './snappy-block-codec.js'
import { SnappyFrameDecoder } from './snappy-frame-decode.js'
import { SnappyFrameEncoder } from './snappy-frame-encode.js'
import { jsSnappyKernel, type SnappyKernel } from './snappy-kernel.js'

/**
 * Neither form has an end marker a decoder could report `Done` at before the input
 * ends: the framing format is chunks up to the end of the input (a second stream
 * identifier may follow, framing_format.txt section 4.1, and is read as part of the same
 * stream), a raw block ends where its declared length is reached.
 */
const SINGLE: FormatTraits = /* @__PURE__ */ Object.freeze({ concatenable: false })

/**
 * The two modules with whole blocks decoded and compressed by `kernel()` (called once
 * per decoder or encoder).
 * Decoder option: `maxOutputBytes`. Encoders take no options.
 */
export function snappyModules(kernel: () => SnappyKernel): { snappy: CodecModule; snappyRaw: CodecModule } {
  return {
    snappy: Object.freeze({
      traits: SINGLE,
      createDecoder: (options: Record<string, unknown>): Decoder => new SnappyFrameDecoder(options, kernel()),
      createEncoder: (options: Record<string, unknown>): Encoder => new SnappyFrameEncoder(options, kernel()),
    }),
    snappyRaw: Object.freeze({
      traits: SINGLE,
      createDecoder: (options: Record<string, unknown>): Decoder => new SnappyRawDecoder(options, kernel()),
      createEncoder: (options: Record<string, unknown>): Encoder => new SnappyRawEncoder(options, kernel()),
    }),
  }
}

const jsModules = /* @__PURE__ */ snappyModules(jsSnappyKernel)

/** Snappy framing format, TypeScript engine. */
export const snappy: CodecModule = jsModules.snappy

/** One raw Snappy block, TypeScript engine. */
export const snappyRaw: CodecModule = jsModules.snappyRaw
