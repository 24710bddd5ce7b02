/**
 * HTTP response compression for fetch-style servers (Deno, Bun, workerd, Node with a
 * fetch bridge, hono): `Content-Encoding` chosen from the request's
 * `Accept-Encoding`, the body encoded as a stream.
 *
 *     return await encodeResponse(request, await handler(request))
 *
 * What is left alone (returned as it is, apart from `Vary`):
 * - responses already encoded (`Content-Encoding`) or marked `Cache-Control:
 *   no-transform` (RFC 9110 §7.7: a proxy MUST NOT transform such content);
 * - responses without content: HEAD requests, 204 and 304 (RFC 9110 §15.3.5, §15.4.5);
 * - partial content: 206 responses and requests with `Range`, whose byte ranges refer
 *   to the unencoded representation (RFC 9110 §14);
 * - bodies shorter than `minBytes`, by their `Content-Length` or, without one, read
 *   ahead up to `minBytes` bytes (`withKnownLength`): framing and headers cost more
 *   than compression saves;
 * - types that are compressed already (see `isCompressible`).
 *
 * The encoded response has `Content-Encoding`, `Vary: Accept-Encoding` (merged with
 * the existing `Vary`; RFC 9110 §12.5.5), no `Content-Length` (the length is not known
 * before the end), and its strong `ETag` made weak: the encoded bytes differ from the
 * ones the strong validator named (RFC 9110 §8.8.1).
 *
 * Dictionaries (RFC 9842): with the `dictionaries` option, a request whose
 * `Available-Dictionary` names one of them and whose `Accept-Encoding` allows `dcz` or
 * `dcb` may get a delta against it (section 6). Every eligible response then varies on
 * `Available-Dictionary` too (section 6.2), whichever coding it got. A malformed
 * `Available-Dictionary` or an unknown hash means no dictionary: the other codings are
 * negotiated as usual.
 */
import type { Format } from '../../lib/codec.js'
import { CodecError } from '../../lib/errors.js'
import { canFlush, HTTP_CODINGS, httpOf, rowOf, type Engine } from '../../lib/formats.js'
import { checkLevel, resolveEngine } from '../../lib/codec-options.js'
import { checkKeys, checkOneOf, describe, MIN_PARALLEL_BYTES } from '../../lib/options.js'
import { encodeStream } from '../../streams/factories.js'
import { checkThreads } from '../../streams/threads.js'
import { parallelEncodeStream } from '../../streams/parallel-stream.js'
import { encodesInBlocks } from '../../streams/threads-decision.js'
import { CONTENT_CODINGS, DICTIONARY_CODINGS, negotiate, type ContentCoding, type DictionaryCoding } from './negotiate.js'
import { checkProgress, type Progress, type ProgressCallback } from '../../lib/progress.js'
import { dictionaryChooser, type DictionaryChooser, type ServerDictionariesOption } from './server-dictionaries.js'

/**
 * Every coding `encodeResponse` can produce.
 * @inline
 */
type Coding = ContentCoding | DictionaryCoding

/** Options of `encodeResponse()`, and of `compression()` (`sluice/node`) and `compress()` (`sluice/hono`). */
export interface EncodeResponseOptions {
  /**
   * Codings the server offers, in its order of preference (used when the client weighs
   * several equally). Default `['zstd', 'br', 'gzip', 'deflate']`, and with
   * `dictionaries` `['dcz', 'dcb', 'zstd', 'br', 'gzip', 'deflate']`. `dcz` and `dcb`
   * need `dictionaries`, and are offered only to requests naming one of them.
   */
  encodings?: readonly Coding[]
  /**
   * Compression level per coding. Defaults are for content made per request, where
   * speed matters more than the last percent: zstd and dcz 3 (zstd's own default), br 4
   * (quality 4 is about gzip's speed at a better ratio), dcb 5 (brotli's encoder uses a
   * dictionary from quality 5 only: below, dcb is no smaller than br), gzip and deflate
   * 6 (zlib's default).
   */
  levels?: Partial<Record<Coding, number>>
  /**
   * Bodies shorter than this many bytes are sent as they are: by their `Content-Length`,
   * or, without one, read ahead up to this many bytes to find out (see
   * `withKnownLength`). Default 1024; 0 encodes every body and never reads ahead.
   */
  minBytes?: number
  /**
   * Whether a response of this type is worth compressing. Default `isCompressible`
   * (everything except images other than SVG, audio, video, fonts, compressed archives).
   */
  compressible?: (contentType: string | null) => boolean
  /**
   * `'write'`: a sync point after every chunk the body's source writes, so that each
   * reaches the client at once (live feeds, progress, logs). Default: `'write'` for
   * `text/event-stream` (server-sent events), else `'none'`. Every coding offered can
   * write one (deflate sync flush, BROTLI_OPERATION_FLUSH, zstd end of block).
   */
  flush?: 'none' | 'write'
  /**
   * Threads for large bodies (docs/threads.md): a response whose `Content-Length` is at
   * least 1 MiB and whose coding has independent blocks (zstd, gzip, deflate) is encoded
   * in block mode on this many workers; others as always. Default 1.
   */
  threads?: number | 'auto'
  /**
   * Engine per coding (e.g. `{ gzip: 'node' }` for node:zlib's deflate, twice as fast as
   * the portable one when encoding).
   * Default: each format's portable engine.
   */
  engines?: Partial<Record<Coding, Engine>>
  /**
   * The dictionaries the server can encode `dcz` and `dcb` deltas against (RFC 9842),
   * each made once by `await prepareDictionary(bytes)` (which hashes it: the choice is
   * made synchronously, while the headers are): an array, or a lookup from the hash the
   * request names (and its `Dictionary-ID`) to one. Serve each dictionary itself with a
   * `Use-As-Dictionary` header (see `useAsDictionary`) and a lifetime clients may cache
   * it for.
   */
  dictionaries?: ServerDictionariesOption
  /**
   * Called with `{ bytesIn, bytesOut, totalIn? }` as an encoded body is produced:
   * `bytesIn` of the response's body read, `bytesOut` encoded bytes written, `totalIn`
   * the response's `Content-Length` when it has one. At most once per output chunk and
   * per 50 ms, and once at the end (docs/progress.md). Not called for responses left
   * alone.
   */
  onProgress?: ProgressCallback
}

/** HTTP coding name to the format encoding it (the format table's `http` rows). */
const FORMAT_OF = (c: Coding): Format => httpOf(c).format

const ALL_CODINGS: readonly Coding[] = HTTP_CODINGS

const isDictionaryCoding = (c: Coding): c is DictionaryCoding => httpOf(c).transport

const HTTP = 'http'

/**
 * Types whose bodies are compressed already, or nearly incompressible: images (except
 * SVG, which is XML), audio, video, fonts (WOFF and WOFF2 are compressed; SVG fonts are
 * `image/svg+xml`), and compressed archives.
 */
const INCOMPRESSIBLE_APPLICATION = new Set([
  'zip',
  'gzip',
  'x-gzip',
  'zstd',
  'x-bzip2',
  'x-xz',
  'x-7z-compressed',
  'x-rar-compressed',
  'vnd.rar',
  'x-lz4',
  'x-brotli',
  'x-compress',
  'java-archive',
  'epub+zip',
  'vnd.android.package-archive',
  'font-woff',
  'x-font-woff',
])

/** The default `compressible` predicate; see `INCOMPRESSIBLE_APPLICATION`. */
export function isCompressible(contentType: string | null): boolean {
  if (contentType === null) return true
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  const slash = type.indexOf('/')
  const top = slash < 0 ? type : type.slice(0, slash)
  const sub = slash < 0 ? '' : type.slice(slash + 1)
  if (top === 'image') return sub === 'svg+xml'
  if (top === 'audio' || top === 'video' || top === 'font') return false
  if (top === 'application') return !INCOMPRESSIBLE_APPLICATION.has(sub)
  return true
}

/** Whether a comma-separated header value lists `token` (case-insensitive). */
function listHas(value: string | null, token: string): boolean {
  if (value === null) return false
  return value.split(',').some((t) => t.trim().toLowerCase() === token)
}

/** `Vary` with `fields` added (those not there already; nothing when it is `*`). */
function varyWith(vary: string | null, fields: readonly string[]): string {
  if (listHas(vary, '*')) return vary!
  const have = vary === null || vary.trim() === '' ? [] : [vary]
  for (const field of fields) if (!listHas(vary, field.toLowerCase())) have.push(field)
  return have.join(', ')
}

const VARY = Object.freeze(['Accept-Encoding'])
/** RFC 9842 section 6.2: "Vary: accept-encoding, available-dictionary". */
const VARY_DICTIONARY = Object.freeze(['Accept-Encoding', 'Available-Dictionary'])

interface Checked {
  encodings: readonly Coding[]
  levels: Record<Coding, number>
  minBytes: number
  compressible: (contentType: string | null) => boolean
  flush: 'none' | 'write' | undefined
  engines: Record<Coding, Engine>
  /** Null without the `dictionaries` option. */
  dictionary: DictionaryChooser | null
  /** The `threads` option as given (checked). */
  threads: number | 'auto' | undefined
  /** The `onProgress` option (checked). */
  onProgress: ProgressCallback | undefined
}

/** Options that went through `checkEncodeOptions`. */
const checked = new WeakSet<object>()

/**
 * Checks the options once; `encodeResponse` takes the result as its options too (the
 * middlewares check at setup, not per request).
 */
export function checkEncodeOptions(options: EncodeResponseOptions = {}): EncodeResponseOptions {
  if (checked.has(options)) return options
  return check(options)
}

/** The keys of `EncodeResponseOptions`; any other is `INVALID_OPTION`. */
export const ENCODE_OPTION_KEYS: readonly (keyof EncodeResponseOptions)[] = Object.freeze(['encodings', 'levels', 'minBytes', 'compressible', 'flush', 'engines', 'dictionaries', 'threads', 'onProgress'])

/** A per-coding map option (`levels`, `engines`): an object keyed by codings. */
function checkCodingMap(name: string, value: unknown): void {
  if (value === undefined) return
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CodecError('INVALID_OPTION', HTTP, `${name} must be an object keyed by content coding, got ${describe(value)}`)
  checkKeys(HTTP, value, ALL_CODINGS, `coding in ${name}`)
}

function check(options: EncodeResponseOptions): Checked {
  if (typeof options !== 'object' || options === null) throw new CodecError('INVALID_OPTION', HTTP, `options must be an object, got ${describe(options)}`)
  checkKeys(HTTP, options, ENCODE_OPTION_KEYS)
  checkCodingMap('levels', options.levels)
  checkCodingMap('engines', options.engines)
  const dictionary = options.dictionaries === undefined ? null : dictionaryChooser(options.dictionaries)
  const encodings = options.encodings ?? (dictionary === null ? CONTENT_CODINGS : ALL_CODINGS)
  if (!Array.isArray(encodings) || !encodings.every((e) => (ALL_CODINGS as readonly string[]).includes(e))) {
    throw new CodecError('INVALID_OPTION', HTTP, `encodings must be an array of ${ALL_CODINGS.join(', ')}, got ${JSON.stringify(encodings)}`)
  }
  const dictionaryCodings = encodings.filter(isDictionaryCoding)
  if (dictionary === null && dictionaryCodings.length > 0) {
    throw new CodecError('INVALID_OPTION', HTTP, `encodings lists ${dictionaryCodings.join(' and ')}, which need the dictionaries option (RFC 9842: a delta against a dictionary the client has)`)
  }
  if (dictionary !== null && dictionaryCodings.length === 0) {
    throw new CodecError('INVALID_OPTION', HTTP, `dictionaries are given but encodings lists neither dcz nor dcb, the codings that use them: ${JSON.stringify(encodings)}`)
  }
  const levels = Object.fromEntries(ALL_CODINGS.map((c) => [c, httpOf(c).level])) as Record<Coding, number>
  const engines = {} as Record<Coding, Engine>
  for (const coding of ALL_CODINGS) {
    const format = FORMAT_OF(coding)
    const level = options.levels?.[coding]
    if (level !== undefined) levels[coding] = checkLevel(format, level)
    engines[coding] = resolveEngine(format, options.engines?.[coding])
  }
  const minBytes = options.minBytes ?? 1024
  if (typeof minBytes !== 'number' || !Number.isInteger(minBytes) || minBytes < 0) {
    throw new CodecError('INVALID_OPTION', HTTP, `minBytes must be a non-negative integer, got ${describe(minBytes)}`)
  }
  const compressible = options.compressible ?? isCompressible
  if (typeof compressible !== 'function') throw new CodecError('INVALID_OPTION', HTTP, `compressible must be a function, got ${describe(compressible)}`)
  const flush = options.flush
  if (flush !== undefined) checkOneOf(HTTP, 'flush', flush, ['none', 'write'])
  // Checked at setup: on workerd, threads > 1 is ENGINE_UNAVAILABLE here, not per request.
  if (options.threads !== undefined) checkThreads(HTTP, options.threads)
  const threads = options.threads
  const onProgress = checkProgress(HTTP, options.onProgress)
  const result: Checked = Object.freeze({ encodings: Object.freeze([...encodings]), levels, minBytes, compressible, flush, engines, dictionary, threads, onProgress })
  checked.add(result)
  return result
}

/** A header lookup: the value, or null when absent (as `Headers.get`). */
export type HeaderLookup = (name: string) => string | null

/** What to do with one response: leave it alone (null), add Vary only, or encode it. */
export interface EncodingPlan {
  /** The coding chosen, or null: send as it is, with `Vary` added. */
  coding: Coding | null
  format: Format
  level: number
  engine: Engine
  flush: 'none' | 'write'
  /** The response's `Vary` with `Accept-Encoding` (and `Available-Dictionary`) merged in. */
  vary: string
  /** The dictionary of a `dcz` or `dcb` coding. */
  dictionary?: Uint8Array
}

/**
 * The decision for a response, from the request's method and headers and the
 * response's status and headers (shared by `encodeResponse` and the Node middleware).
 * `hasBody`: whether the response has a body at all (false: left alone).
 */
export function planEncoding(method: string, requestHeader: HeaderLookup, status: number, responseHeader: HeaderLookup, hasBody: boolean, options: EncodeResponseOptions): EncodingPlan | null {
  const o = (checked.has(options) ? options : check(options)) as Checked
  if (method.toUpperCase() === 'HEAD') return null
  if (!hasBody || status === 204 || status === 304) return null
  if (status === 206 || requestHeader('range') !== null) return null
  if (responseHeader('content-encoding') !== null) return null
  if (listHas(responseHeader('cache-control'), 'no-transform')) return null
  const length = responseHeader('content-length')
  if (length !== null && /^\d+$/.test(length.trim()) && Number(length) < o.minBytes) return null
  const type = responseHeader('content-type')
  if (!o.compressible(type)) return null

  const live = type !== null && type.split(';')[0]!.trim().toLowerCase() === 'text/event-stream'
  const flush = o.flush ?? (live ? 'write' : 'none')
  // The dictionary the request names, if the server has it; without one, no dcz/dcb.
  const dictionary = o.dictionary?.(requestHeader)
  const offered = o.encodings.filter((c) => (dictionary !== undefined || !isDictionaryCoding(c)) && (flush !== 'write' || canFlush(FORMAT_OF(c))))
  const coding = negotiate(requestHeader('accept-encoding'), offered)
  const vary = varyWith(responseHeader('vary'), o.dictionary === null ? VARY : VARY_DICTIONARY)
  const c = coding ?? 'gzip'
  const plan: EncodingPlan = { coding, format: FORMAT_OF(c), level: o.levels[c], engine: o.engines[c], flush, vary }
  if (coding !== null && isDictionaryCoding(coding)) plan.dictionary = dictionary!.bytes
  return plan
}

/** A strong ETag made weak (RFC 9110 §8.8.1); weak ones are kept. */
export function weakETag(etag: string): string {
  const t = etag.trim()
  return t.startsWith('W/') ? t : `W/${t}`
}

/** The same response with new headers (a fetched response's headers are immutable). */
function withHeaders(response: Response, body: ReadableStream<Uint8Array> | null, headers: Headers): Response {
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}

/**
 * `response` with its body encoded in the best coding `request` accepts (RFC 9110
 * §12.5.3; see negotiate.ts), or `response` itself where it is left alone (see the
 * module comment). A response that is eligible but not encoded (the client accepts no
 * coding offered) gets `Vary: Accept-Encoding`, since another client would have had an
 * encoded one.
 *
 * A body without `Content-Length` that `request` would have encoded is read ahead up to
 * `minBytes` bytes first (`withKnownLength`): if it ends there, it is sent as it is, with
 * its `Content-Length`, as a body of known length below `minBytes` is; otherwise the
 * bytes read go first into the encoder. So the promise settles once the body has ended
 * or passed `minBytes`; `text/event-stream` and `flush: 'write'` responses, whose first
 * chunk must not wait, are not read ahead (they are encoded whatever their length).
 *
 * The body stays a stream: nothing is buffered beyond the encoder's window (and the
 * read-ahead), and the upstream is read only as fast as the client takes the output. An
 * upstream that errors midway errors the encoded body (the client sees an aborted
 * transfer, never a short body that looks complete); a client that goes away cancels
 * the upstream and frees the encoder. A bad option or argument rejects with
 * `INVALID_OPTION`.
 */
export async function encodeResponse(request: Request, response: Response, options: EncodeResponseOptions = {}): Promise<Response> {
  if (typeof request?.headers?.get !== 'function') throw new CodecError('INVALID_OPTION', HTTP, 'expected a Request')
  if (typeof response?.headers?.get !== 'function') throw new CodecError('INVALID_OPTION', HTTP, 'expected a Response')
  const ahead = await readAhead(request, response, options)
  // A body that ended within minBytes: sent as it is (the decision is made, and the
  // dictionaries' lookup, user code, ran once).
  if (ahead.small) return ahead.response
  return encodeKnownLength(request, ahead.response, options, ahead.plan)
}

/**
 * `encodeResponse` once a small body's length is known (`readAhead`): the decision (the
 * one `readAhead` made, when it made one) and the encoding, synchronously.
 */
function encodeKnownLength(request: Request, response: Response, options: EncodeResponseOptions, planned?: EncodingPlan | null): Response {
  if (typeof request?.headers?.get !== 'function') throw new CodecError('INVALID_OPTION', HTTP, 'expected a Request')
  if (typeof response?.headers?.get !== 'function') throw new CodecError('INVALID_OPTION', HTTP, 'expected a Response')
  const rh = response.headers
  const plan = planned !== undefined ? planned : planEncoding(request.method, (n) => request.headers.get(n), response.status, (n) => rh.get(n), response.body !== null, options)
  if (plan === null) return response
  if (response.bodyUsed || response.body!.locked) throw new CodecError('INVALID_OPTION', HTTP, 'the response body has already been read or is locked to a reader')

  const headers = new Headers(rh)
  headers.set('vary', plan.vary)
  if (plan.coding === null) return withHeaders(response, response.body, headers)

  const { threads, onProgress: progress } = checked.has(options) ? (options as Checked) : check(options)
  const length = rh.get('content-length')
  const totalIn = length !== null && /^\d{1,15}$/.test(length.trim()) ? Number(length) : undefined
  const onProgress = progress && totalIn !== undefined ? (p: Progress) => progress({ ...p, totalIn }) : progress
  // threads: block mode on workers for bodies known to be large enough to gain, in the
  // formats with independent blocks (zstd, gzip, deflate); the rest as always.
  const parallel = encodesInBlocks(plan.format, { threads }) && rowOf(plan.format).blocks !== undefined && totalIn !== undefined && totalIn >= MIN_PARALLEL_BYTES
  const encoder = parallel
    ? parallelEncodeStream(plan.format, { level: plan.level, engine: plan.engine, flush: plan.flush, threads })
    : encodeStream(plan.format, { level: plan.level, engine: plan.engine, flush: plan.flush, dictionary: plan.dictionary, onProgress })
  const body = response.body!.pipeThrough(encoder as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)
  headers.set('content-encoding', plan.coding)
  headers.delete('content-length')
  const etag = headers.get('etag')
  if (etag !== null) headers.set('etag', weakETag(etag))
  return withHeaders(response, body, headers)
}

/**
 * `response`, with its length made known when its body ends within `minBytes`: a body
 * without `Content-Length` (what `new Response('text')` and most fetch handlers give)
 * is read up to `minBytes` bytes; if it ends there, the response is rebuilt with those
 * bytes and their `Content-Length`, so that `encodeResponse` leaves it alone, as
 * compression middleware users expect of small bodies; otherwise the bytes read are
 * replayed in front of the rest, unchanged. Only responses `encodeResponse` would encode
 * are read, and never `text/event-stream` or `flush: 'write'` responses (whose first
 * chunk must not wait for more). `encodeResponse` calls it first; it is exported for
 * servers that want the small-body rule (and the `Content-Length`) without encoding
 * through `encodeResponse`, such as a cache that stores small bodies as they are.
 */
export async function withKnownLength(request: Request, response: Response, options: EncodeResponseOptions = {}): Promise<Response> {
  return (await readAhead(request, response, options)).response
}

/**
 * What `withKnownLength` does, for `encodeResponse` too: the response (rebuilt when
 * read), whether its body ended within `minBytes` (`small`), and the plan made for it,
 * if one was (undefined: not decided yet), so that the decision, and a `dictionaries`
 * lookup in it, is made once per response.
 */
async function readAhead(request: Request, response: Response, options: EncodeResponseOptions): Promise<{ response: Response; small: boolean; plan?: EncodingPlan | null }> {
  const o = (checked.has(options) ? options : check(options)) as Checked
  const rh = response.headers
  if (o.minBytes === 0 || response.body === null || rh.has('content-length') || response.bodyUsed || response.body.locked) return { response, small: false }
  const plan = planEncoding(request.method, (n) => request.headers.get(n), response.status, (n) => rh.get(n), true, options)
  if (plan === null || plan.coding === null || plan.flush === 'write') return { response, small: false, plan }
  const reader = response.body.getReader()
  const head: Uint8Array[] = []
  let length = 0
  let done = false
  // An upstream that fails during the read-ahead fails the body after the bytes read, as
  // it would have failed it without the read-ahead (an aborted transfer, never a short
  // body that looks complete); a chunk that is not bytes goes on as it is, for the
  // encoder to refuse.
  let failure: { error: unknown } | null = null
  while (length < o.minBytes) {
    let r: ReadableStreamReadResult<Uint8Array>
    try {
      r = await reader.read()
    } catch (error) {
      failure = { error }
      break
    }
    if (r.done) {
      done = true
      break
    }
    head.push(r.value)
    if (!(r.value instanceof Uint8Array)) break
    length += r.value.byteLength
  }
  const init = { status: response.status, statusText: response.statusText, headers: new Headers(rh) }
  if (done) {
    const bytes = new Uint8Array(length)
    let at = 0
    for (const part of head) {
      bytes.set(part, at)
      at += part.byteLength
    }
    init.headers.set('content-length', String(length))
    return { response: new Response(bytes, init), small: true }
  }
  let i = 0
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i < head.length) {
        controller.enqueue(head[i++]!)
        return
      }
      if (failure !== null) throw failure.error
      const r = await reader.read()
      if (r.done) controller.close()
      else controller.enqueue(r.value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
  return { response: new Response(body, init), small: false, plan }
}
