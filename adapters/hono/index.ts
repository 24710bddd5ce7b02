/**
 * `sluice/hono`: response compression middleware for hono, a drop-in for
 * `hono/compress` that also speaks zstd and brotli, negotiates q-values (RFC 9110
 * §12.5.3) and flushes server-sent events per event.
 *
 *     import { compress } from 'sluice/hono'
 *     app.use(compress())                       // zstd, br, gzip, deflate
 *     app.use(compress({ encoding: 'gzip' }))   // hono/compress's options work as there
 *
 * The rules and headers are `encodeResponse`'s (docs/servers.md).
 *
 * @module sluice/hono
 */
import type { MiddlewareHandler } from 'hono'
import { CodecError } from '../../lib/errors.js'
import { checkKeys, describe } from '../../lib/options.js'
import { checkEncodeOptions, ENCODE_OPTION_KEYS, encodeResponse, isCompressible, type EncodeResponseOptions } from '../fetch/encode-response.js'
import type { ContentCoding } from '../fetch/negotiate.js'

/** Options of `compress()`: `hono/compress`'s three, and every `encodeResponse` option. */
export interface CompressOptions extends EncodeResponseOptions {
  /** As in `hono/compress`: the one coding to use (`encodings: [encoding]`). */
  encoding?: ContentCoding
  /** As in `hono/compress`: the smallest known length to compress (`minBytes`). Default 1024. */
  threshold?: number
  /**
   * As in `hono/compress`: which `Content-Type`s to compress, a RegExp or a predicate.
   * Default: `isCompressible` (all but images other than SVG, audio, video, fonts and
   * compressed archives); responses without a type are not compressed when a filter
   * is given, as there.
   */
  contentTypeFilter?: RegExp | ((contentType: string) => boolean)
}

/** The keys `compress()` takes: `encodeResponse`'s and hono/compress's. */
const HONO_KEYS: readonly string[] = Object.freeze([...ENCODE_OPTION_KEYS, 'encoding', 'threshold', 'contentTypeFilter'])

/**
 * The middleware. Every option is checked here, when the app is set up: a bad value or
 * an unknown key (`INVALID_OPTION`, naming the nearest known one) throws from this call.
 */
export function compress(options: CompressOptions = {}): MiddlewareHandler {
  if (typeof options !== 'object' || options === null) throw new CodecError('INVALID_OPTION', 'http', `options must be an object, got ${describe(options)}`)
  checkKeys('http', options, HONO_KEYS)
  const { encoding, threshold, contentTypeFilter, ...rest } = options
  if (contentTypeFilter !== undefined && typeof contentTypeFilter !== 'function' && !(contentTypeFilter instanceof RegExp)) {
    throw new CodecError('INVALID_OPTION', 'http', `contentTypeFilter must be a RegExp or a function, got ${describe(contentTypeFilter)}`)
  }
  const filter = contentTypeFilter
  const compressible =
    filter === undefined
      ? (rest.compressible ?? isCompressible)
      : (type: string | null) => type !== null && (typeof filter === 'function' ? filter(type) : filter.test(type))
  const checked = checkEncodeOptions({
    ...rest,
    encodings: encoding !== undefined ? [encoding] : rest.encodings,
    minBytes: threshold ?? rest.minBytes,
    compressible,
  })
  return async function compress(c, next) {
    await next()
    // A body that ends within minBytes is left alone, even without Content-Length: it
    // comes back with one (encodeResponse reads ahead).
    const before = c.res
    const after = await encodeResponse(c.req.raw, before, checked)
    if (after === before) return
    c.res = after
    // hono's `c.res` setter copies the previous response's headers onto the new one:
    // put back the encoded response's own (no Content-Length, weak ETag, merged Vary).
    const headers = c.res.headers
    if (!after.headers.has('content-length')) headers.delete('content-length')
    for (const [name, value] of after.headers) if (name !== 'set-cookie') headers.set(name, value)
  }
}

export { encodeResponse, isCompressible, type EncodeResponseOptions } from '../fetch/encode-response.js'
