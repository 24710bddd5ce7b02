/**
 * The deflate family's `wasm` engine as the registry loads it: sluice's inflate kernel
 * (inflate-wasm.ts, wasm/inflate.wat) decodes, zlib-ng's deflate (deflate-zlibng.ts,
 * wasm/zlibng-deflate.wasm) encodes, under the same gzip / zlib / raw wrappers checks
 * as every engine (deflate-module.ts). Each role loads only its own wasm: a decoder never
 * fetches zlib-ng, an encoder never compiles the inflate kernel.
 */
import type { CodecModule, Role } from '../codec.js'
import { CodecError } from '../errors.js'
import { deflateModule, type DeflateEngineParts } from './deflate-module.js'
import { inflateWasmParts, loadInflateKernel, type WasmInflater } from './inflate-wasm.js'
import { loadZlibngEncoder, zlibngLoaded, ZlibngEncoder } from './deflate-zlibng.js'
import { adler32, crc32 } from './checksum.js'
import { wrapperHeader, wrapperOf } from './deflate.js'
import { loadZlibngEngine } from './wasm/zlibng-engine.js'

/**
 * What block mode (lib/parallel, issue 22) takes from the deflate family: the wrappers'
 * headers, the checksums of the trailers, and zlib-ng's engine (for the default
 * engine's blocks: zlibng-block.ts). Handed out by this module, which the
 * default engine's users load anyway, so that a bundler keeps them in one file with the
 * codecs rather than in one more file shared with the threads implementation.
 */
export const blockTools = { crc32, adler32, wrapperHeader, wrapperOf, zlibngEngine: loadZlibngEngine } as const

let decoding = false

const parts: DeflateEngineParts<WasmInflater> = {
  body: (format) => {
    if (!decoding) throw new CodecError('ENGINE_UNAVAILABLE', format, 'the decoder engine is not loaded: load the module with role "decode"')
    return inflateWasmParts.body(format)
  },
  crc32: inflateWasmParts.crc32,
  encoder: (format, level, dictionary, fullFlush) => {
    if (!zlibngLoaded()) throw new CodecError('ENGINE_UNAVAILABLE', format, 'the encoder engine is not loaded: load the module with role "encode"')
    return new ZlibngEncoder(format, level, dictionary, fullFlush)
  },
}

const modules = {
  gzip: /* @__PURE__ */ deflateModule('gzip', parts),
  deflate: /* @__PURE__ */ deflateModule('deflate', parts),
  deflateRaw: /* @__PURE__ */ deflateModule('deflate-raw', parts),
}

/**
 * Instantiates what `role` needs (both when omitted) once and returns the three codec
 * modules; codecs of a role can be created once its engine is loaded.
 */
export async function loadDeflateWasm(role?: Role): Promise<{ gzip: CodecModule; deflate: CodecModule; deflateRaw: CodecModule }> {
  await Promise.all([
    role !== 'encode' && !decoding ? loadInflateKernel().then(() => (decoding = true)) : undefined,
    role !== 'decode' ? loadZlibngEncoder() : undefined,
  ])
  return modules
}
