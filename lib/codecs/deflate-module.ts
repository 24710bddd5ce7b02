/**
 * The deflate family's codec module, one factory for every engine: the gzip / zlib /
 * raw wrappers of deflate.ts around the engine's raw deflate body (`js`: inflate.ts,
 * `wasm`: inflate-wasm.ts, `node`: adapters/node/engine.ts) and the engine's encoder.
 *
 * Each engine names its body, so that the default engine's chunk (wasm) does not carry
 * the TypeScript inflater (test/bundle-size.test.ts measures the gzip-only user).
 */
import type { CodecModule, Encoder, Format } from '../codec.js'
import { checkLevel, traitsOf } from '../formats.js'
import { DeflateFamilyDecoder, DeflateFamilyEncoder, type Crc32, type DeflateBody } from './deflate.js'

/** What an engine brings to the deflate family's module. */
export interface DeflateEngineParts<B extends DeflateBody> {
  /** A new raw deflate body for one decoder of `format`. */
  body(format: Format): B
  /** The CRC-32 a decoder with `body` checks gzip trailers with; default checksum.ts's. */
  crc32?(body: B): Crc32
  /** A new encoder of `format` at the checked `level`; default deflate.ts's (fflate). */
  encoder?(format: Format, level: number): Encoder
}

/** The codec module of `format` (gzip, deflate or deflate-raw) on an engine's parts. */
export function deflateModule<B extends DeflateBody>(format: Format, parts: DeflateEngineParts<B>): CodecModule {
  return Object.freeze({
    traits: traitsOf(format),
    // maxOutputBytes is enforced by the stream driver; no decoder option is format-specific.
    createDecoder: (_options: Record<string, unknown>) => {
      const body = parts.body(format)
      return new DeflateFamilyDecoder(format, body, parts.crc32?.(body))
    },
    createEncoder: (options: Record<string, unknown>) => {
      const level = checkLevel(format, options.level)
      return parts.encoder ? parts.encoder(format, level) : new DeflateFamilyEncoder(format, level)
    },
  })
}
