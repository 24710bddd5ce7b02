/**
 * The `js` engine's codec modules for gzip (RFC 1952), deflate = zlib (RFC 1950) and
 * deflate-raw (RFC 1951), as the registry loads them.
 */
import type { Format } from '../codec.js'
import { checkLevel, traitsOf } from '../formats.js'
import type { CodecModule } from '../codec.js'
import { DeflateFamilyDecoder, DeflateFamilyEncoder } from './deflate.js'
import { Inflater } from './inflate.js'

const module = (format: Format): CodecModule =>
  Object.freeze({
    traits: traitsOf(format),
    // maxOutputBytes is enforced by the stream driver; no decoder option is format-specific.
    createDecoder: (_options: Record<string, unknown>) => new DeflateFamilyDecoder(format, new Inflater()),
    createEncoder: (options: Record<string, unknown>) => new DeflateFamilyEncoder(format, checkLevel(format, options.level)),
  })

export const gzip: CodecModule = /* @__PURE__ */ module('gzip')
export const deflate: CodecModule = /* @__PURE__ */ module('deflate')
export const deflateRaw: CodecModule = /* @__PURE__ */ module('deflate-raw')
