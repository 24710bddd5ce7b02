/**
 * The `js` engine's codec modules for gzip (RFC 1952), deflate = zlib (RFC 1950) and
 * deflate-raw (RFC 1951), as the registry loads them.
 */
import type { CodecModule } from '../codec.js'
import type { DeflateBody } from './deflate.js'
import { deflateModule, type DeflateEngineParts } from './deflate-module.js'

/** The `js` engine's parts are the factory's defaults: inflate.ts and fflate. */
const js: DeflateEngineParts<DeflateBody> = {}

export const gzip: CodecModule = /* @__PURE__ */ deflateModule('gzip', js)
export const deflate: CodecModule = /* @__PURE__ */ deflateModule('deflate', js)
export const deflateRaw: CodecModule = /* @__PURE__ */ deflateModule('deflate-raw', js)
