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
import { parallelEncodeStream, type ThreadsPair } from './parallel-stream.js'
import type { CodecStream, StreamClasses, SurfaceRules } from './codec-stream.js'
import { encodesInBlocks } from './threads-decision.js'

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
 * The standard's rules for every stream the two classes build, serial or on threads
 * (block mode, parallel decoding): errors as `TypeError`s (`asTypeError`), and chunks
 * that are not a BufferSource refused, SharedArrayBuffer-backed ones included (WebIDL
 * section 3.2.26 excludes shared memory from BufferSource).
 */
const WEB: SurfaceRules = Object.freeze({ surface: asTypeError, allowShared: false })

/**
 * Beyond the standard: an optional second argument with the stream classes to build on
 * (`{ streams: { ReadableStream, WritableStream } }`), for runtimes without global ones,
 * and a preset `dictionary` ('deflate': RFC 1950 FDICT; 'deflate-raw': a preset window;
 * 'zstd', 'brotli'; required for RFC 9842's 'dcz' and 'dcb'; refused for 'gzip' with a
 * `TypeError` whose `code` is `INVALID_OPTION`).
 *
 * The classes are drop-ins, so this argument follows WebIDL's rules for a dictionary
 * (WebIDL section 3.2.17), unlike the library's other options: members it does not
 * define are ignored (no `INVALID_OPTION` for an unknown key, as a platform
 * `CompressionStream` ignores them; use `encodeStream`/`decodeStream` for the strict
 * check), a value that is not an object throws a `TypeError`, `flush` is converted to a
 * string as an enum is, and a bad value of a member throws a `TypeError` from the
 * constructor (with `code` `INVALID_OPTION` and the `CodecError` as `cause`), as the
 * platform's argument conversion would.
 */
export interface CompressionStreamOptions {
  /** Stream classes to build on, for runtimes without global ones. */
  streams?: StreamClasses
  /** A preset dictionary; required for 'dcz' and 'dcb'. */
  dictionary?: BinaryInput
  /**
   * `CompressionStream` only: `'write'` ends every written chunk's output with a sync
   * point (see `EncodeStreamOptions.flush`). Default `'none'`.
   */
  flush?: 'none' | 'write'
  /**
   * `CompressionStream`: block mode on workers (docs/threads.md). gzip, deflate and
   * deflate-raw blocks as pigz writes them, the same bytes for any thread count at the
   * same `blockSize`. Default 1: the standard's single stream.
   * `DecompressionStream`: 'zstd' and 'lz4' decode in parallel where the input splits
   * (zstd frames that state their content sizes, LZ4 independent blocks), the output
   * the same; other formats decode as before. Default 1.
   */
  threads?: number | 'auto'
  /** `CompressionStream` only: block mode's block size (default 128 KiB). */
  blockSize?: number
}

/** The options argument as a WebIDL dictionary: undefined and null are empty; other non-objects throw. */
function dictionaryArgument(options: unknown, what: string): CompressionStreamOptions {
  if (options === undefined || options === null) return {}
  if (typeof options !== 'object' && typeof options !== 'function') throw new TypeError(`Failed to construct '${what}': parameter 2 is not of type '${what}Options'`)
  const o = options as CompressionStreamOptions
  // `dictionary` is a BufferSource, which excludes shared memory (WebIDL section 3.2.26).
  const d: unknown = o.dictionary
  if (typeof SharedArrayBuffer !== 'undefined' && (d instanceof SharedArrayBuffer || (ArrayBuffer.isView(d) && d.buffer instanceof SharedArrayBuffer))) {
    throw new TypeError(`Failed to construct '${what}': dictionary is backed by a SharedArrayBuffer, which is not a BufferSource`)
  }
  return o
}

/** A WebIDL enum member: converted to a string, as the platform converts it (then checked). */
const enumMember = (value: unknown): string | undefined => (value === undefined ? undefined : String(value))

/** A bad option throws from the constructor as WebIDL arguments do: a `TypeError`. */
function construct<P>(build: () => P): P {
  try {
    return build()
  } catch (error) {
    throw asTypeError(error)
  }
}

/**
 * The web platform's `CompressionStream`, on this library's engines. Its options follow
 * WebIDL's dictionary rules (see `CompressionStreamOptions`): unknown members are
 * ignored, a bad value of a known member throws a `TypeError` here.
 */
export class CompressionStream {
  readonly #pair: CodecStream | ThreadsPair
  // `= undefined`, not `?`: WebIDL gives the constructor a length of 1 (the required arguments).
  constructor(format: string, options: CompressionStreamOptions | undefined = undefined) {
    const { format: f } = checkFormat(format, 'CompressionStream')
    const o = dictionaryArgument(options, 'CompressionStream')
    const given = { streams: o.streams, dictionary: o.dictionary, flush: enumMember(o.flush) as CompressionStreamOptions['flush'] }
    // Beyond the standard: block mode on workers (docs/threads.md).
    const blocks = { ...given, threads: o.threads, blockSize: o.blockSize }
    this.#pair = construct(() => (encodesInBlocks(f, blocks) ? parallelEncodeStream(f, blocks, WEB) : encodeStream(f, given, WEB.surface, WEB.allowShared)))
  }
  /** Beyond the standard: a sync point after everything written so far (see `CodecStream.flush`). */
  flush(): Promise<void> {
    return this.#pair.flush()
  }
  /** The compressed (or decompressed) output. */
  get readable(): ReadableStream<Uint8Array> {
    return this.#pair.readable
  }
  /** The input. */
  get writable(): WritableStream<BinaryInput> {
    return this.#pair.writable
  }
}

/**
 * The web platform's `DecompressionStream`, on this library's engines. Its options follow
 * WebIDL's dictionary rules (see `CompressionStreamOptions`): unknown members (and
 * `flush`) are ignored, a bad value of a known member throws a `TypeError` here.
 */
export class DecompressionStream {
  readonly #pair: ReadableWritablePair<Uint8Array, BinaryInput>
  constructor(format: string, options: CompressionStreamOptions | undefined = undefined) {
    const { format: f, concatenated } = checkFormat(format, 'DecompressionStream')
    const o = dictionaryArgument(options, 'DecompressionStream')
    // Beyond the standard: parallel zstd and LZ4 decoding on workers (docs/threads.md).
    this.#pair = construct(() => decodeStream(f, { concatenated, streams: o.streams, dictionary: o.dictionary, threads: o.threads }, WEB.surface, WEB.allowShared))
  }
  /** The compressed (or decompressed) output. */
  get readable(): ReadableStream<Uint8Array> {
    return this.#pair.readable
  }
  /** The input. */
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
