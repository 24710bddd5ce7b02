/**
 * The deflate family's codec module, one factory for every engine: the gzip / zlib /
 * raw wrappers of deflate.ts around the engine's raw deflate body (`js`: inflate.ts,
 * `wasm`: inflate-wasm.ts, `node`: adapters/node/engine.ts) and the engine's encoder
 * (`js`: fflate, `wasm`: zlib-ng, `node`: node:zlib).
 *
 * Each engine names its body, so that the default engine's chunk (wasm) does not carry
 * the TypeScript inflater (the repository's test/bundle-size.test.ts measures the gzip-only user).
 */
import type { CodecModule, Encoder, Format } from '../codec.js'
import { traitsOf } from '../formats.js'
import { checkDictionary, checkLevel } from '../codec-options.js'
import { DeflateFamilyDecoder, type Crc32, type DeflateBody } from './deflate.js'
import { BgzfEncoder } from './bgzf-encode.js'

/** What an engine brings to the deflate family's module. */
export interface DeflateEngineParts<B extends DeflateBody> {
  /** A new raw deflate body for one decoder of `format`. */
  body(format: Format): B
  /** The CRC-32 a decoder with `body` checks gzip trailers with; default checksum.ts's. */
  crc32?(body: B): Crc32
  /**
   * A new encoder of `format` at the checked `level`, with the checked `dictionary` (the
   * preset dictionary of zlib, the preset window of raw deflate): deflate.ts's (fflate)
   * for `js`, zlib-ng's for `wasm`, node:zlib's for `node`. Named by each engine, so that
   * the `wasm` engine's chunk carries no fflate. With `fullFlush`, every `flush()` is a
   * full flush (Z_FULL_FLUSH: the history is dropped).
   */
  encoder(format: Format, level: number, dictionary: Uint8Array | null, fullFlush: boolean): Encoder
}

/** The codec module of `format` (gzip, deflate or deflate-raw) on an engine's parts. */
export function deflateModule<B extends DeflateBody>(format: Format, parts: DeflateEngineParts<B>): CodecModule {
  return Object.freeze({
    traits: traitsOf(format),
    // maxOutputBytes is enforced by the stream driver; `dictionary` is the one
    // format-specific decoder option.
    createDecoder: (options: Record<string, unknown>) => {
      const dictionary = checkDictionary(format, options.dictionary) ?? null
      const body = parts.body(format)
      return new DeflateFamilyDecoder(format, body, parts.crc32?.(body), dictionary)
    },
    createEncoder: (options: Record<string, unknown>) => {
      const level = checkLevel(format, options.level)
      const dictionary = checkDictionary(format, options.dictionary) ?? null
      // gzip's `bgzf` (bgzf-encode.ts): blocks of the engine's raw deflate.
      if (options.bgzf === true) return new BgzfEncoder(parts.encoder('deflate-raw', level, null, false))
      return parts.encoder(format, level, dictionary, options.fullFlush === true)
    },
  })
}
