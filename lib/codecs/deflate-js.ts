/**
 * The `js` engine's codec modules for gzip (RFC 1952), deflate = zlib (RFC 1950) and
 * deflate-raw (RFC 1951), as the registry loads them.
 */
import type { CodecModule } from '../codec.js'
import { Inflater } from './inflate.js'
import { deflateModule, type DeflateEngineParts } from './deflate-module.js'
import { FflateEncoder } from './deflate-fflate.js'

/** The `js` engine: inflate.ts decodes, fflate (deflate-fflate.ts) encodes. */
const js: DeflateEngineParts<Inflater> = {
  body: () => new Inflater(),
  encoder: (format, level, dictionary, fullFlush) => new FflateEncoder(format, level, dictionary, fullFlush),
}

export const gzip: CodecModule = /* @__PURE__ */ deflateModule('gzip', js)
export const deflate: CodecModule = /* @__PURE__ */ deflateModule('deflate', js)
export const deflateRaw: CodecModule = /* @__PURE__ */ deflateModule('deflate-raw', js)
