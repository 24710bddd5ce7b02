/**
 * HTTP `Content-Encoding` decoding for fetch `Response`s, in every runtime with fetch
 * (browsers, Deno, Bun, workerd, Node). Nothing here is Node-specific.
 *
 *     const res = decodeResponse(await fetch(url))
 *
 * What the runtimes already do, and how this fits in:
 * - A runtime's fetch decodes the codings it knows itself and keeps the
 *   `Content-Encoding` header (Fetch standard, "HTTP-network fetch"; undici, browsers,
 *   workerd). Node 20's undici decodes gzip, x-gzip, deflate and br, but not zstd (nor
 *   `identity`), and when any listed coding is unknown to it, it decodes none of them.
 *   So the header alone does not say whether the body is still encoded.
 * - Codings with a magic number (gzip, zstd, zlib deflate) are checked: when a layer's
 *   bytes do not start with its magic, the runtime has decoded it, and so every layer
 *   applied before it: that layer and the inner ones are passed through.
 * - `br` has no magic number (RFC 7932). Runtimes whose fetch sends
 *   `Accept-Encoding: br` (browsers, Node's undici, Deno, Bun, workerd) decode it
 *   themselves: list it in `skip` for their responses. Without `skip`, `br` is decoded.
 * - HTTP `deflate` is the zlib format (RFC 9110 §8.4.1.2), but some servers send raw
 *   deflate (RFC 1951), and browsers accept both. So do we: a zlib header (RFC 1950
 *   §2.2) means zlib; otherwise the first bytes are tried as raw deflate, and if they
 *   do not decode as such, the body is taken as already decoded by the runtime.
 * - `dcz` and `dcb` (RFC 9842) need the dictionary their header names by SHA-256: the
 *   `dictionaries` option provides it. A body without their magic was decoded by the
 *   runtime (browsers that sent `Available-Dictionary` do so) and is passed through.
 *
 * @module sluice/fetch
 */
import type { Format } from '../../lib/codec.js'
import type { Decoder } from '../../lib/codec.js'
import { CodecError } from '../../lib/errors.js'
import { HTTP_CODINGS, httpOf, isDictionaryTransport, type HttpCoding } from '../../lib/formats.js'
import { checkDeferredOptions, checkMaxOutput, DEFAULT_MAX_OUTPUT_BYTES } from '../../lib/codec-options.js'
import { checkKeys } from '../../lib/options.js'
import { createDecoder } from '../../lib/registry.js'
import { Status } from '../../lib/status.js'
import { checkProgress, ProgressMeter, type ProgressCallback } from '../../lib/progress.js'
import { DictionaryFinder, transportHash, transportHeaderAt, transportHeaderLength, type DictionariesOption } from '../../lib/dictionary-lookup.js'
import { headerAt } from '../../lib/detect.js'
import { sniffingStream, type Decide, type Decision } from '../../streams/sniffing-stream.js'

/** Options of `decodeResponse()` and `decodeBody()`. */
export interface DecodeResponseOptions {
  /**
   * Most bytes the decoded body may have; more errors the body with `LIMIT_EXCEEDED`.
   * Applied to every layer, and so to the final output (the last layer's). Default 2 GiB.
   */
  maxOutputBytes?: number
  /**
   * Codings the runtime's fetch has already decoded (e.g. `['br']` for responses of a
   * fetch that advertises brotli): they are not decoded again.
   */
  skip?: readonly string[]
  /** Aborts decoding: the body errors with the signal's reason. */
  signal?: AbortSignal
  /** Output chunk size of each layer, in bytes. */
  chunkSize?: number
  /**
   * Largest zstd window accepted, as log2. Default 23 (8 MiB): RFC 9659 §3 limits the
   * zstd content coding's window to 8 MB, so larger windows are refused before the
   * memory is allocated.
   */
  maxWindowLog?: number
  /**
   * Dictionaries for `Content-Encoding: dcz` / `dcb` (RFC 9842): an array, or a lookup
   * from the SHA-256 in the body's header to the dictionary (or undefined). A body
   * naming a dictionary not provided errors with `UNSUPPORTED`, naming the hash.
   */
  dictionaries?: DictionariesOption
  /**
   * Called with `{ bytesIn, bytesOut, totalIn? }` as the body is read: `bytesIn` counts
   * the body as received, `bytesOut` as decoded, `totalIn` is the `Content-Length` when
   * the response has one. At most once per chunk and per 50 ms, and once at the end.
   */
  onProgress?: ProgressCallback
}

export type { DictionariesOption, DictionaryLookup, DictionaryInput, HashedDictionary } from '../../lib/dictionary-lookup.js'

/**
 * At most 5 codings per response. Unbounded chains let a small response make the
 * client build a decoder per listed coding: curl CVE-2022-32206 ("HTTP compression
 * denial of service") and undici GHSA-g9mf-h72j-4rw9 (unbounded decompression chain in
 * HTTP responses) both fixed it with this same limit of 5.
 */
export const MAX_CONTENT_ENCODINGS = 5

type Coding = HttpCoding

/**
 * Content-coding names (RFC 9110 §8.4.1, IANA registry) to what decodes them: the format
 * table's codings, `x-gzip` (RFC 9110 §8.4.1.3: recipients SHOULD treat it as gzip) and
 * `identity`.
 */
const CODINGS: Readonly<Record<string, Coding | 'identity'>> = /* @__PURE__ */ Object.freeze({
  ...Object.fromEntries(HTTP_CODINGS.map((c) => [c, c])),
  'x-gzip': 'gzip',
  identity: 'identity',
})

const FORMAT = 'http'

/** The codings of a `Content-Encoding` value, lowercased, in the order listed. */
export function parseContentEncoding(value: string | null): string[] {
  if (!value) return []
  // Coding names are case-insensitive (RFC 9110 §8.4.1); empty list elements are
  // allowed and ignored (RFC 9110 §5.6.1).
  return value
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token.length > 0)
}

/**
 * The layers to decode, outermost first (the last listed was applied last, so it is
 * decoded first: RFC 9110 §8.4). Throws before any body byte is read.
 */
function planLayers(codings: string[], skip: ReadonlySet<string>): Coding[] {
  if (codings.length > MAX_CONTENT_ENCODINGS) {
    throw new CodecError('LIMIT_EXCEEDED', FORMAT, `${codings.length} content codings (${codings.join(', ')}), more than the ${MAX_CONTENT_ENCODINGS} allowed (MAX_CONTENT_ENCODINGS, not an option: curl and undici allow 5 too)`)
  }
  const layers: Coding[] = []
  for (let i = codings.length - 1; i >= 0; i--) {
    const name = codings[i]!
    if (skip.has(name)) continue
    const coding = Object.prototype.hasOwnProperty.call(CODINGS, name) ? CODINGS[name] : undefined
    if (coding === undefined) {
      throw new CodecError('UNSUPPORTED', FORMAT, `unknown content coding '${name}' in Content-Encoding '${codings.join(', ')}'; supported: ${Object.keys(CODINGS).join(', ')}`)
    }
    if (coding !== 'identity') layers.push(coding)
  }
  return layers
}

/** The keys of `DecodeResponseOptions`; any other is `INVALID_OPTION`. */
const DECODE_OPTION_KEYS: readonly (keyof DecodeResponseOptions)[] = Object.freeze(['maxOutputBytes', 'skip', 'signal', 'chunkSize', 'maxWindowLog', 'dictionaries', 'onProgress'])

function checkOptions(options: DecodeResponseOptions): ReadonlySet<string> {
  if (typeof options !== 'object' || options === null) throw new CodecError('INVALID_OPTION', FORMAT, 'options must be an object')
  checkKeys(FORMAT, options, DECODE_OPTION_KEYS)
  checkMaxOutput(FORMAT, options.maxOutputBytes)
  checkProgress(FORMAT, options.onProgress)
  // Checked now by the schema of the codings that take it, not when a layer is detected.
  if (options.maxWindowLog !== undefined) checkDeferredOptions(FORMAT, HTTP_CODINGS.map((c) => httpOf(c).format), 'decode', { maxWindowLog: options.maxWindowLog }, {})
  const skip = options.skip ?? []
  if (!Array.isArray(skip) || !skip.every((s) => typeof s === 'string')) {
    throw new CodecError('INVALID_OPTION', FORMAT, 'skip must be an array of content-coding names')
  }
  return new Set(skip.map((s) => s.trim().toLowerCase()))
}

function checkResponse(response: Response): void {
  if (typeof response !== 'object' || response === null || typeof response.headers?.get !== 'function') {
    throw new CodecError('INVALID_OPTION', FORMAT, 'expected a Response')
  }
  if (response.bodyUsed || response.body?.locked) throw new CodecError('INVALID_OPTION', FORMAT, 'the response body has already been read or is locked to a reader')
}

/** Shared by the layers of one body: set once a layer finds its coding already undone. */
interface Chain {
  decoded: boolean
  /** The dictionaries for dcz/dcb layers. */
  dictionaries: DictionaryFinder
}

const PASS: Decision = Object.freeze({ kind: 'pass' })

/**
 * Raw deflate has no magic number, so a `deflate` body without a zlib header is tried
 * as raw deflate. Runtime-decoded content (text, JSON, images) fails that within a few
 * bytes: BTYPE 11 is reserved, a stored block's LEN/NLEN must be complements, Huffman
 * headers must describe valid codes, and early back-references point before the start
 * (RFC 1951 §3.2). The first 4 KiB (or 1 MiB of output) decoding cleanly is taken as
 * proof. A whole body that ends mid-stream is taken as plain: a truncated raw-deflate
 * body and short plain text cannot be told apart.
 */
const RAW_DEFLATE_PROOF_INPUT = 4 * 1024
const RAW_DEFLATE_PROOF_OUTPUT = 1024 * 1024

class RawDeflateProbe {
  private decoder: Decoder | null = null
  /** Bytes of the sniffed head consumed so far (the head only grows). */
  private pos = 0
  private produced = 0
  private scratch: Uint8Array | null = null

  /** 'raw', 'plain', or null to see more bytes. */
  async check(head: Uint8Array, ended: boolean): Promise<'raw' | 'plain' | null> {
    this.decoder ??= await createDecoder('deflate-raw')
    this.scratch ??= new Uint8Array(64 * 1024)
    const decoder = this.decoder
    try {
      for (;;) {
        const status = decoder.transform(head.subarray(this.pos), this.scratch, ended)
        this.pos += decoder.consumed
        this.produced += decoder.written
        switch (status) {
          case Status.InvalidData:
            return this.done('plain')
          case Status.Done:
            // An HTTP body is one deflate stream: bytes after its end mean it was not one.
            if (this.pos < head.length) return this.done('plain')
            return ended ? this.done('raw') : null
          case Status.DestinationTooSmall:
            if (this.produced >= RAW_DEFLATE_PROOF_OUTPUT) return this.done('raw')
            continue
          default: // NeedMoreData
            if (ended) return this.done('plain')
            return head.length >= RAW_DEFLATE_PROOF_INPUT ? this.done('raw') : null
        }
      }
    } catch (error) {
      this.done('plain')
      throw error
    }
  }

  private done(verdict: 'raw' | 'plain'): 'raw' | 'plain' {
    this.decoder?.dispose()
    this.decoder = null
    this.scratch = null
    return verdict
  }
}

/** One layer: decodes `coding` unless its bytes show it was already decoded. */
function layerStream(coding: Coding, chain: Chain, options: DecodeResponseOptions): TransformStream<BufferSource, Uint8Array> {
  const { format, decode } = httpOf(coding)
  // HTTP `deflate` may be raw deflate (see above): probed when it lacks the zlib header.
  const probe = coding === 'deflate' ? new RawDeflateProbe() : null
  // The coding's own decoder options (RFC 9659's zstd window), the caller's overriding them.
  const own: Record<string, unknown> = { ...decode }
  if (options.maxWindowLog !== undefined && 'maxWindowLog' in own) own.maxWindowLog = options.maxWindowLog
  const decision: Decision = { kind: 'decode', format, options: own }
  const byMagic = (match: 'match' | 'partial' | 'no', ended: boolean, decision: Decision): Decision | null => {
    if (match === 'match') return decision
    if (match === 'partial' && !ended) return null
    chain.decoded = true
    return PASS
  }
  const decide: Decide = async (head, ended) => {
    if (chain.decoded) return PASS
    // An empty body has nothing to decode (no coding encodes to zero bytes; servers and
    // runtimes send empty bodies with the header kept, e.g. after a runtime decoded it).
    if (ended && head.length === 0) return PASS
    if (isDictionaryTransport(format)) {
      const match = transportHeaderAt(format, head)
      if (match === 'partial' && ended) {
        throw new CodecError('TRUNCATED', FORMAT, `${coding} body of ${head.length} bytes ends inside its ${transportHeaderLength(format)}-byte header (RFC 9842)`, head.length)
      }
      if (match !== 'match') return byMagic(match, ended, PASS)
      const dictionary = await chain.dictionaries.find(`Content-Encoding ${coding}`, transportHash(format, head))
      return { kind: 'decode', format, options: { dictionary } }
    }
    const match = headerAt(format, head)
    // No magic number (br, RFC 7932): decoded unless listed in `skip`.
    if (match === null) return decision
    if (probe === null) return byMagic(match, ended, decision)
    if (match === 'match') return decision
    if (match === 'partial' && !ended) return null
    const verdict = await probe.check(head, ended)
    if (verdict === null) return null
    if (verdict === 'raw') return { kind: 'decode', format: 'deflate-raw' satisfies Format, options: own }
    chain.decoded = true
    return PASS
  }
  return sniffingStream(
    decide,
    // A body is untrusted and often read whole (`.text()`, `.arrayBuffer()`): the 2 GiB default applies.
    { maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, signal: options.signal, chunkSize: options.chunkSize },
    `http ${coding}`,
  )
}

/**
 * The body of `response`, decoded according to its `Content-Encoding`. Throws (before
 * reading any of the body) for unknown codings (`UNSUPPORTED`) and for more than 5
 * codings (`LIMIT_EXCEEDED`). A response without a body gives an empty stream.
 */
export function decodeBody(response: Response, options: DecodeResponseOptions = {}): ReadableStream<Uint8Array> {
  checkResponse(response)
  const skip = checkOptions(options)
  const layers = planLayers(parseContentEncoding(response.headers.get('content-encoding')), skip)
  const body = response.body
  if (body === null) {
    return new ReadableStream<Uint8Array>({ start: (controller) => controller.close() })
  }
  const chain: Chain = { decoded: false, dictionaries: new DictionaryFinder(options.dictionaries, FORMAT) }
  const meter = options.onProgress ? new ProgressMeter(options.onProgress, contentLength(response)) : null
  const counted = { bytesIn: 0 }
  let stream: ReadableStream<Uint8Array> = meter ? countIn(body, counted) : body
  for (const coding of layers) stream = stream.pipeThrough(layerStream(coding, chain, options) as ReadableWritablePair<Uint8Array, Uint8Array>)
  return layers.length === 0 && !meter ? stream : finish(stream, layers, meter, counted)
}

/** A `Content-Length` that is a plain decimal number (RFC 9110 §8.6), else undefined. */
function contentLength(response: Response): number | undefined {
  const value = response.headers.get('content-length')
  return value !== null && /^\d{1,15}$/.test(value.trim()) ? Number(value) : undefined
}

/** `body` with its bytes counted into `counted.bytesIn` as they are read. */
function countIn(body: ReadableStream<Uint8Array>, counted: { bytesIn: number }): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        counted.bytesIn += chunk.byteLength
        controller.enqueue(chunk)
      },
    }),
  )
}

/**
 * The decoded body as the caller sees it: progress reported per chunk (throttled) and
 * at the end, and a brotli layer that fails at its first bytes explained. brotli has no
 * magic number, so a body the runtime's fetch already decoded (Node 20's undici and
 * browsers decode `br` and keep `Content-Encoding`) reaches the brotli decoder as plain
 * bytes and fails there.
 */
function finish(stream: ReadableStream<Uint8Array>, layers: readonly Coding[], meter: ProgressMeter | null, counted: { bytesIn: number }): ReadableStream<Uint8Array> {
  const reader = stream.getReader()
  let bytesOut = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>
      try {
        result = await reader.read()
      } catch (error) {
        controller.error(explain(error, layers))
        return
      }
      if (result.done) {
        meter?.end(counted.bytesIn, bytesOut)
        controller.close()
        return
      }
      bytesOut += result.value.byteLength
      meter?.update(counted.bytesIn, bytesOut)
      controller.enqueue(result.value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/** Bytes into a brotli stream within which a failure suggests the body was never brotli. */
const BROTLI_EARLY_FAILURE = 16

function explain(error: unknown, layers: readonly Coding[]): unknown {
  if (!(error instanceof CodecError) || error.format !== 'brotli' || !layers.includes('br')) return error
  if (error.code !== 'INVALID_DATA' || error.offset < 0 || error.offset >= BROTLI_EARLY_FAILURE) return error
  const message = `${error.message.replace(/^brotli: /, '')}; the body may already be decoded: a runtime's fetch that sends Accept-Encoding: br (Node's, browsers') decodes br itself and keeps the Content-Encoding header. Pass { skip: ['br'] } for its responses`
  return new CodecError(error.code, error.format, message.replace(/ \(at byte \d+\)/, ''), error.offset, { cause: error })
}

/**
 * A new `Response` whose body is `response`'s decoded according to its
 * `Content-Encoding`, with the same status, status text and headers except
 * `Content-Encoding` and `Content-Length` (which described the encoded body).
 * Responses without a body (HEAD, 204, 304) or without `Content-Encoding` are returned
 * as they are. `url`, `redirected` and `type` cannot be set on a constructed Response:
 * read them from the original.
 */
export function decodeResponse(response: Response, options: DecodeResponseOptions = {}): Response {
  checkResponse(response)
  if (response.body === null || response.status === 204 || response.status === 304) return response
  if (response.headers.get('content-encoding') === null && !options.onProgress) return response
  const body = decodeBody(response, options)
  const headers = new Headers(response.headers)
  headers.delete('content-encoding')
  headers.delete('content-length')
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}

export { encodeResponse, checkEncodeOptions, isCompressible, withKnownLength, type EncodeResponseOptions } from './encode-response.js'
export { negotiate, parseAcceptEncoding, weightOf, CONTENT_CODINGS, DICTIONARY_CODINGS, type AcceptedCoding, type ContentCoding, type DictionaryCoding } from './negotiate.js'
export { prepareDictionary, type DictionarySource, type ServerDictionary, type ServerDictionaryLookup, type ServerDictionariesOption } from './server-dictionaries.js'
export { useAsDictionary, availableDictionary, parseAvailableDictionary, parseDictionaryId, type UseAsDictionaryOptions } from './dictionary-headers.js'
export { httpRangeSource, type HttpRangeSource, type HttpRangeSourceInit } from './http-range-source.js'
