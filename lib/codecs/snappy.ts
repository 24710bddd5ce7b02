/**
 * The Snappy codec modules: the framing format `'snappy'` (snappy-frame-decode.ts,
 * snappy-frame-encode.ts) and one raw block `'snappy-raw'` (snappy-block-codec.ts), both
 * coded in TypeScript by snappy-block.ts (the `'js'` engine).
 */
import type { CodecModule, Decoder, Encoder, FormatTraits } from '../codec.js'
import { SnappyRawDecoder, SnappyRawEncoder } from './snappy-block-codec.js'
import { SnappyFrameDecoder } from './snappy-frame-decode.js'
import { SnappyFrameEncoder } from './snappy-frame-encode.js'

/**
 * Neither form has an end marker a decoder could report `Done` at before the input
 * ends: the framing format is chunks up to the end of the input (a second stream
 * identifier may follow, framing_format.txt section 4.1, and is read as part of the same
 * stream), a raw block ends where its declared length is reached.
 */
const SINGLE: FormatTraits = Object.freeze({ concatenable: false })

/** Snappy framing format. Decoder option: `maxOutputBytes`. Encoder: no options. */
export const snappy: CodecModule = /* @__PURE__ */ Object.freeze({
  traits: SINGLE,
  createDecoder: (options: Record<string, unknown>): Decoder => new SnappyFrameDecoder(options),
  createEncoder: (options: Record<string, unknown>): Encoder => new SnappyFrameEncoder(options),
})

/** One raw Snappy block. Decoder option: `maxOutputBytes`. Encoder: no options. */
export const snappyRaw: CodecModule = /* @__PURE__ */ Object.freeze({
  traits: SINGLE,
  createDecoder: (options: Record<string, unknown>): Decoder => new SnappyRawDecoder(options),
  createEncoder: (options: Record<string, unknown>): Encoder => new SnappyRawEncoder(options),
})
