/**
 * The LZ4 codec modules: frames (lz4-frame-decode.ts, lz4-frame-encode.ts) and raw
 * blocks (lz4-block-codec.ts), with blocks coded by a kernel (lz4-kernel.ts): the
 * TypeScript one here (the `'js'` engine, on lz4-block.ts), the wasm engine's in
 * lz4-wasm.ts.
 */
import type { CodecModule, Decoder, Encoder } from '../codec.js'
import { traitsOf } from '../formats.js'
import { decodeRawBlock, Lz4BlockDecoder, Lz4BlockEncoder } from './lz4-block-codec.js'
import { Lz4FrameDecoder } from './lz4-frame-decode.js'
import { Lz4FrameEncoder } from './lz4-frame-encode.js'
import { jsEncodeKernel, jsFrameKernel, type EncodeKernel, type FrameKernel, type RawBlockKernel } from './lz4-kernel.js'

/**
 * LZ4 frame codec module. Decoder options: `maxOutputBytes`. Encoder options: `level`
 * (1..12; every level uses the greedy fast search: 1-2 with an 8192-entry hash
 * table, 3-12 with 65536 entries for a 2-3% smaller output; no HC search, so level 9
 * is not `lz4 -9`), `blockSize` (65536 default, 262144, 1048576, 4194304),
 * `blockChecksum` (false), `contentChecksum` (true), `contentSize` (written to the
 * header and enforced), `blockIndependence` (true; false is rejected).
 */
export const lz4: CodecModule = /* @__PURE__ */ lz4FrameModule(jsFrameKernel, jsEncodeKernel)

/**
 * The LZ4 frame module with blocks decoded by `kernel()` (one per decoder) and
 * compressed by `encodeKernel()` (one per encoder): the TypeScript kernels
 * (lz4-kernel.ts) or the wasm engine's (lz4-wasm.ts). Both write the same bytes.
 */
export function lz4FrameModule(kernel: () => FrameKernel, encodeKernel: () => EncodeKernel): CodecModule {
  return Object.freeze({
    traits: traitsOf('lz4'),
    createDecoder: (options: Record<string, unknown>): Decoder => new Lz4FrameDecoder(options, kernel()),
    createEncoder: (options: Record<string, unknown>): Encoder => new Lz4FrameEncoder(options, encodeKernel()),
  })
}

/**
 * Raw LZ4 block module. Decoder option `outputSize` (required: the exact decoded
 * size). The encoder buffers the whole input and writes one block (input <= 2^31).
 */
export const lz4Block: CodecModule = /* @__PURE__ */ lz4BlockModule(decodeRawBlock)

/** The raw LZ4 block module with the decoder's block kernel `decodeRaw`. */
export function lz4BlockModule(decodeRaw: RawBlockKernel): CodecModule {
  return Object.freeze({
    traits: traitsOf('lz4-block'),
    createDecoder: (options: Record<string, unknown>): Decoder => new Lz4BlockDecoder(options, decodeRaw),
    createEncoder: (options: Record<string, unknown>): Encoder => new Lz4BlockEncoder(options),
  })
}
