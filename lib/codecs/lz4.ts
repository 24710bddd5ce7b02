/**
 * The LZ4 codec modules: frames (lz4-frame-decode.ts, lz4-frame-encode.ts) and raw
 * blocks (lz4-block-codec.ts), with blocks coded by a kernel (lz4-kernel.ts): the
 * TypeScript one here (the `'js'` engine, on lz4-block.ts), the wasm engine's in
 * lz4-wasm.ts. Levels 3 to 12 compress with LZ4 HC, whose compressor each module's
 * `prepare()` loads on first use (lz4hc.ts).
 */
import type { CodecModule, Decoder, Encoder, Role } from '../codec.js'
import { checkLevel } from '../codec-options.js'
import { traitsOf } from '../formats.js'
import { decodeRawBlock, Lz4BlockDecoder, Lz4BlockEncoder } from './lz4-block-codec.js'
import { Lz4FrameDecoder } from './lz4-frame-decode.js'
import { Lz4FrameEncoder } from './lz4-frame-encode.js'
import { jsEncodeKernel, jsFrameKernel, type EncodeKernel, type FrameKernel, type RawBlockKernel } from './lz4-kernel.js'
import { HC_MIN_LEVEL, hcBlockLoaded, hcNotLoaded, loadHcBlock, wantsHc } from './lz4hc.js'

/**
 * How an engine compresses at HC levels (3 to 12): whether its compressor is loaded,
 * and loading it (lz4hc.ts).
 */
export interface HcSupport {
  loaded(): boolean
  load(): Promise<void>
}

/** The TypeScript HC compressor (lz4hc-block.ts), loaded on first use. */
const tsHc: HcSupport = { loaded: hcBlockLoaded, load: loadHcBlock }

/** `prepare()` of the LZ4 modules: encoders at HC levels load the engine's HC compressor. */
function prepareHc(hc: HcSupport): (role: Role, options: Readonly<Record<string, unknown>>) => Promise<void> {
  return (role, options) => (role === 'encode' && wantsHc(options) && !hc.loaded() ? hc.load() : Promise.resolve())
}

/**
 * LZ4 frame codec module. Decoder options: `maxOutputBytes`. Encoder options: `level`
 * (1..12: 1 and 2 the fast greedy search, `lz4 -1`; 3 to 12 LZ4 HC, `lz4 -3` ...
 * `lz4 -12`, whose compressor `prepare()` loads), `blockSize` (65536 default, 262144,
 * 1048576, 4194304), `blockChecksum` (false), `contentChecksum` (true), `contentSize`
 * (written to the header and enforced), `blockIndependence` (true; false is rejected).
 */
export const lz4: CodecModule = /* @__PURE__ */ lz4FrameModule(jsFrameKernel, jsEncodeKernel, tsHc)

/**
 * The LZ4 frame module with blocks decoded by `kernel()` (one per decoder) and
 * compressed by `encodeKernel()` (one per encoder): the TypeScript kernels
 * (lz4-kernel.ts) or the wasm engine's (lz4-wasm.ts). Both write the same bytes. `hc`:
 * how the encoders compress at levels 3 to 12.
 */
export function lz4FrameModule(kernel: () => FrameKernel, encodeKernel: () => EncodeKernel, hc: HcSupport): CodecModule {
  return Object.freeze({
    traits: traitsOf('lz4'),
    createDecoder: (options: Record<string, unknown>): Decoder => new Lz4FrameDecoder(options, kernel()),
    createEncoder: (options: Record<string, unknown>): Encoder => {
      const level = checkLevel('lz4', options.level)
      if (level >= HC_MIN_LEVEL && !hc.loaded()) throw hcNotLoaded('lz4', level)
      return new Lz4FrameEncoder(options, encodeKernel())
    },
    prepare: prepareHc(hc),
  })
}

/**
 * Raw LZ4 block module. Decoder option `outputSize` (required: the exact decoded
 * size). The encoder buffers the whole input and writes one block (input <= 2^31), at
 * levels 3 to 12 with the TypeScript HC compressor, which `prepare()` loads.
 */
export const lz4Block: CodecModule = /* @__PURE__ */ lz4BlockModule(decodeRawBlock)

/** The raw LZ4 block module with the decoder's block kernel `decodeRaw`. */
export function lz4BlockModule(decodeRaw: RawBlockKernel): CodecModule {
  return Object.freeze({
    traits: traitsOf('lz4-block'),
    createDecoder: (options: Record<string, unknown>): Decoder => new Lz4BlockDecoder(options, decodeRaw),
    createEncoder: (options: Record<string, unknown>): Encoder => new Lz4BlockEncoder(options),
    prepare: prepareHc(tsHc),
  })
}
