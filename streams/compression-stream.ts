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
 *
 * Beyond the standard, the second argument takes the library's options for the format
 * (`level`, `maxOutputBytes`, `threads`, ...), read as a WebIDL dictionary and checked
 * by the same checks as `encodeStream`/`decodeStream`, which build the streams.
 */
import type { BinaryInput } from '../lib/bytes.js'
import type { Format, Role } from '../lib/codec.js'
import { COMMON_OPTIONS } from '../lib/codec-options.js'
import { CodecError } from '../lib/errors.js'
import { FORMATS, rowOf, WEB_FORMATS, webFormat } from '../lib/formats.js'
import type { AnyFormatDecodeOptions, AnyFormatEncodeOptions } from '../lib/option-types.js'
import { decodeStream, encodeStream, type EncoderPair } from './factories.js'
import { STREAM_KEYS, type StreamOptions, type SurfaceRules } from './codec-stream.js'
import type { DecodeThreadOptions, Threads } from './thread-options.js'

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
 * The options of `CompressionStream`: beyond the standard, which defines none, every
 * encoder option the library documents ({@link AnyFormatEncodeOptions}: `level`,
 * `engine`, `dictionary` and each format's own, e.g. {@link ZstdEncodeOptions}'s
 * `windowLog`, `long`, `seekable`), `flush`, `threads` / `blockSize` (block mode,
 * docs/threads.md), `signal`, and `streams` (the stream classes to build on, for
 * runtimes without global ones). The same options, with the same checks and the same
 * bytes, as `encodeStream(format, options)`.
 *
 * The classes are drop-ins, so this argument follows WebIDL's rules for a dictionary
 * (WebIDL section 3.2.17), unlike the library's other options: members it does not
 * define are ignored (no `INVALID_OPTION` for an unknown key, as a platform
 * `CompressionStream` ignores them; use `encodeStream`/`decodeStream` for the strict
 * check), a value that is not an object throws a `TypeError`, `flush` is converted to a
 * string as an enum is, and a bad value of a member throws a `TypeError` from the
 * constructor (with `code` `INVALID_OPTION` and the `CodecError` as `cause`), as the
 * platform's argument conversion would. A member of another format (`seekable` for
 * 'gzip') is a bad value for this one.
 */
export interface CompressionStreamOptions extends AnyFormatEncodeOptions, StreamOptions {
  /**
   * `'write'` ends every written chunk's output with a sync point (see
   * `EncodeMachineOptions.flush`). Default `'none'`.
   */
  flush?: 'none' | 'write'
  /**
   * Block mode on workers (docs/threads.md): gzip, deflate, deflate-raw and zstd blocks
   * as pigz writes them, the same bytes for any thread count at the same `blockSize`.
   * Default 1: the standard's single stream.
   */
  threads?: Threads
  /** Block mode's block size (gzip, deflate, deflate-raw, zstd; default 128 KiB, zstd 1 MiB); for LZ4, the frame's block size. */
  blockSize?: number
}

/**
 * The options of `DecompressionStream`: beyond the standard, every decoder option the
 * library documents ({@link AnyFormatDecodeOptions}: `maxOutputBytes`, `engine`,
 * `dictionary` and each format's own, e.g. {@link ZstdDecodeOptions}'s `maxWindowLog`),
 * `threads` (parallel zstd and LZ4 decoding, docs/threads.md), `signal` and `streams`.
 * The same options and checks as `decodeStream(format, options)`; a dictionary by
 * WebIDL's rules, as `CompressionStreamOptions` says.
 */
export interface DecompressionStreamOptions extends AnyFormatDecodeOptions, StreamOptions, DecodeThreadOptions {}

/**
 * The dictionaries' members by role: the codec options of every format (the format
 * table's schema), the encoders' `flush`, and the stream factories' keys
 * (`STREAM_KEYS`), in lexicographic order, the order WebIDL reads them in.
 */
const MEMBERS = /* @__PURE__ */ (() => {
  const of = (role: Role, more: readonly string[]): readonly string[] =>
    Object.freeze([...new Set([...Object.keys(COMMON_OPTIONS[role]), ...FORMATS.flatMap((f) => Object.keys(rowOf(f).options[role])), ...more, ...STREAM_KEYS[role]])].sort())
  return { decode: of('decode', []), encode: of('encode', ['flush']) }
})()

/**
 * The options argument as a WebIDL dictionary: undefined and null are empty; other
 * non-objects throw; the members of `role` are read (inherited ones too, as WebIDL's
 * [[Get]] does), the others never.
 */
function dictionaryArgument(options: unknown, what: string, role: Role): Record<string, unknown> {
  if (options === undefined || options === null) return {}
  if (typeof options !== 'object' && typeof options !== 'function') throw new TypeError(`Failed to construct '${what}': parameter 2 is not of type '${what}Options'`)
  const o = options as Record<string, unknown>
  const members: Record<string, unknown> = {}
  for (const key of MEMBERS[role]) {
    const value = o[key]
    if (value !== undefined) members[key] = key === 'flush' ? String(value) : value // an enum is converted to a string first (then checked)
  }
  // `dictionary` is a BufferSource, which excludes shared memory (WebIDL section 3.2.26).
  const d = members.dictionary
  if (typeof SharedArrayBuffer !== 'undefined' && (d instanceof SharedArrayBuffer || (ArrayBuffer.isView(d) && d.buffer instanceof SharedArrayBuffer))) {
    throw new TypeError(`Failed to construct '${what}': dictionary is backed by a SharedArrayBuffer, which is not a BufferSource`)
  }
  return members
}

/** A bad option throws from the constructor as WebIDL arguments do: a `TypeError`. */
function construct<P>(build: () => P): P {
  try {
    return build()
  } catch (error) {
    throw asTypeError(error)
  }
}

/**
 * The web platform's `CompressionStream`, on this library's engines, with the encoder
 * options of `encodeStream` ({@link CompressionStreamOptions}: `level`, ...). Its options
 * follow WebIDL's dictionary rules: unknown members are ignored, a bad value of a known
 * member throws a `TypeError` here.
 */
export class CompressionStream {
  readonly #pair: EncoderPair
  // `= undefined`, not `?`: WebIDL gives the constructor a length of 1 (the required arguments).
  constructor(format: string, options: CompressionStreamOptions | undefined = undefined) {
    const { format: f } = checkFormat(format, 'CompressionStream')
    const o = dictionaryArgument(options, 'CompressionStream', 'encode')
    // Block mode on workers when `threads`/`blockSize` ask for it (docs/threads.md).
    this.#pair = construct(() => encodeStream(f, o, WEB.surface, WEB.allowShared))
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
 * The web platform's `DecompressionStream`, on this library's engines, with the decoder
 * options of `decodeStream` ({@link DecompressionStreamOptions}: `maxOutputBytes`, ...).
 * Its options follow WebIDL's dictionary rules: unknown members (and `flush`) are
 * ignored, a bad value of a known member throws a `TypeError` here.
 */
export class DecompressionStream {
  readonly #pair: ReadableWritablePair<Uint8Array, BinaryInput>
  constructor(format: string, options: DecompressionStreamOptions | undefined = undefined) {
    const { format: f, concatenated } = checkFormat(format, 'DecompressionStream')
    const o = dictionaryArgument(options, 'DecompressionStream', 'decode')
    // Parallel zstd and LZ4 decoding on workers with `threads` (docs/threads.md).
    this.#pair = construct(() => decodeStream(f, { ...o, concatenated }, WEB.surface, WEB.allowShared))
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
