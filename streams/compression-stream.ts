/**
 * Drop-in versions of the web platform's `CompressionStream` and `DecompressionStream`
 * (https://compression.spec.whatwg.org/), on this library's engines, in every runtime,
 * with more formats: `'gzip'`, `'deflate'`, `'deflate-raw'` as standardised, plus
 * `'brotli'`, `'zstd'` and `'lz4'`.
 *
 * As the standard requires: an unknown format throws a `TypeError` from the constructor;
 * a chunk that is not a BufferSource (including SharedArrayBuffer-backed views, which
 * WebIDL's BufferSource excludes) errors the stream with a `TypeError`; corrupt,
 * truncated and trailing input error it with a `TypeError`. The `TypeError` carries the
 * library's `CodecError` as its `cause` and the same `code`.
 *
 * A gzip stream is one member: bytes after it are an error, as in browsers and in Node
 * since it adopted the same rule (nodejs/node#58247). zstd and LZ4 streams are
 * sequences of frames by their own specifications, so further frames are decoded.
 */
import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { WEB_FORMATS, webFormat } from '../lib/formats.js'
import { decodeStream, encodeStream } from './factories.js'
import type { CodecStream, StreamClasses } from './codec-stream.js'

function checkFormat(format: unknown, what: string): { format: Format; concatenated: boolean } {
  const name = String(format)
  const web = webFormat(name)
  if (web === undefined) throw new TypeError(`Failed to construct '${what}': format '${name}' is not one of ${WEB_FORMATS.join(', ')}`)
  return web
}

/** Errors as the standard shows them: `TypeError`s, with the library's error as cause. */
function asTypeError(error: unknown): unknown {
  if (error instanceof CodecError) {
    const e = new TypeError(error.message, { cause: error }) as TypeError & { code: string }
    e.code = error.code
    return e
  }
  return error
}

/**
 * Beyond the standard: an optional second argument with the stream classes to build on
 * (`{ streams: { ReadableStream, WritableStream } }`), for runtimes without global ones,
 * and a preset `dictionary` ('deflate': RFC 1950 FDICT; 'deflate-raw': a preset window;
 * 'zstd', 'brotli'; required for RFC 9842's 'dcz' and 'dcb'; refused for 'gzip' with a
 * `TypeError` whose `code` is `INVALID_OPTION`).
 */
export interface CompressionStreamOptions {
  streams?: StreamClasses
  dictionary?: BinaryInput
  /**
   * `CompressionStream` only: `'write'` ends every written chunk's output with a sync
   * point (see `EncodeStreamOptions.flush`). Default `'none'`.
   */
  flush?: 'none' | 'write'
}

/** A bad option throws from the constructor as WebIDL arguments do: a `TypeError`. */
function construct(build: () => CodecStream): CodecStream {
  try {
    return build()
  } catch (error) {
    throw asTypeError(error)
  }
}

export class CompressionStream {
  readonly #pair: CodecStream
  constructor(format: string, options: CompressionStreamOptions = {}) {
    const { format: f } = checkFormat(format, 'CompressionStream')
    this.#pair = construct(() => encodeStream(f, { streams: options.streams, dictionary: options.dictionary, flush: options.flush }, asTypeError, false))
  }
  /** Beyond the standard: a sync point after everything written so far (see `CodecStream.flush`). */
  flush(): Promise<void> {
    return this.#pair.flush()
  }
  get readable(): ReadableStream<Uint8Array> {
    return this.#pair.readable
  }
  get writable(): WritableStream<BinaryInput> {
    return this.#pair.writable
  }
}

export class DecompressionStream {
  readonly #pair: CodecStream
  constructor(format: string, options: CompressionStreamOptions = {}) {
    const { format: f, concatenated } = checkFormat(format, 'DecompressionStream')
    this.#pair = construct(() =>
      decodeStream(f, { concatenated, streams: options.streams, dictionary: options.dictionary }, asTypeError, false),
    )
  }
  get readable(): ReadableStream<Uint8Array> {
    return this.#pair.readable
  }
  get writable(): WritableStream<BinaryInput> {
    return this.#pair.writable
  }
}

// WebIDL (section 3.7): attributes are enumerable accessors on the prototype, and the
// class string is a data property. Class syntax makes getters non-enumerable.
for (const [cls, name] of [
  [CompressionStream, 'CompressionStream'],
  [DecompressionStream, 'DecompressionStream'],
] as const) {
  Object.defineProperties(cls.prototype, {
    readable: { enumerable: true },
    writable: { enumerable: true },
    [Symbol.toStringTag]: { value: name, configurable: true },
  })
}
