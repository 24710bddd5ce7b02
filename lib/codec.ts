import type { Failure } from './errors.js'
import type { Format } from './formats.js'
import type { Status } from './status.js'

/**
 * The span-style contract shared by every encoder and decoder: one synchronous step over
 * caller-owned memory, modelled on .NET's `BrotliDecoder.Decompress(source, destination,
 * out consumed, out written)`. (The Arrow IPC framer and the Parquet footer decoder are
 * parsers with their own push/pull shapes; they run codecs, they are not codecs.)
 *
 * After every call, `consumed` is how many bytes of `src` were used and `written` how
 * many bytes of `dst` were filled, both counted from the start of the arrays passed to
 * that call. They are plain fields that the codec overwrites, so the hot loop
 * allocates nothing.
 *
 * A codec never keeps a reference to `src` or `dst` past the call: input it needs later
 * (a partial header, a block that is not complete yet) it either consumes into its own
 * state or leaves unconsumed, in which case the caller passes those bytes again, with
 * more appended, on the next call.
 */
export interface SpanCodec {
  /** The format name, e.g. `'gzip'`. */
  readonly format: string
  /** Bytes of `src` used by the last call. */
  consumed: number
  /** Bytes of `dst` filled by the last call. */
  written: number
  /** Set when a call returns `InvalidData`; `null` otherwise. */
  failure: Failure | null
  /**
   * One step. `final` says that `src` holds the last of the input.
   *
   * Decoders return `Done` when a frame/member/stream ends (bytes after it are left
   * unconsumed), `DestinationTooSmall` when `dst` is full and there is more output,
   * `NeedMoreData` when all usable input was consumed (with `final`, the caller treats
   * this as truncation) and `InvalidData` when the input cannot be valid.
   *
   * Encoders return `Done` when all of `src` was consumed (and, with `final`, the whole
   * stream including its trailer was written) and `DestinationTooSmall` when `dst` is
   * full: call again with the rest of `src` (possibly empty) and more room.
   */
  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status
  /** Back to the initial state, keeping options and allocated memory. */
  reset(): void
  /** Releases memory that is not garbage-collected (wasm heaps). Idempotent. */
  dispose(): void
}

export interface Decoder extends SpanCodec {
  /**
   * When known from the headers seen so far, the exact number of bytes the current
   * frame decodes to (LZ4 content size, zstd frame content size); otherwise -1.
   */
  readonly contentSize?: number
  /**
   * For a whole input in memory, when its headers declare no size: the most it is
   * likely to decode to, read from its framing without decoding (LZ4 frames: their
   * blocks times the block maximum; Snappy framing: its chunks' lengths), or -1. Untrusted, like any declared size: the
   * one-shot `decode()` allocates it once and grows or returns a view as the output
   * turns out (lib/decode-buffer.ts `declaredSize`).
   */
  sizeHint?(input: Uint8Array): number
  /**
   * Formats whose members or frames may follow each other (gzip): whether `src`, the
   * bytes after a member ended (at least one), starts another member: `'match'`,
   * `'partial'` (too few bytes to tell) or `'no'`. The machine ends the stream at a
   * `'no'`: zero bytes from there to the end are padding, anything else is
   * `TRAILING_DATA`. Without this method every byte after a member starts another one.
   */
  startsMember?(src: Uint8Array): 'match' | 'partial' | 'no'
}

export interface Encoder extends SpanCodec {
  /**
   * Writes out everything buffered so far as a sync point that a decoder can decode
   * without the rest of the stream. `Done` when all was written, else
   * `DestinationTooSmall` (call again with more room).
   */
  flush(dst: Uint8Array): Status
}

/** Formats of the compression codecs: the rows of the format table (formats.ts). */
export type { Format }

/** Options every decoder accepts. */
export interface DecoderOptions {
  /**
   * The most bytes the decoder may produce, over all frames. Stops decompression bombs
   * before the memory is spent. Default 2 GiB for span decoders and one-shot calls (none
   * for the streams); `Infinity` to lift it.
   */
  maxOutputBytes?: number
}

export interface EncoderOptions {
  /** Compression level; the range depends on the format. */
  level?: number
}

/**
 * Per-format facts the stream driver needs besides the codec itself.
 */
export interface FormatTraits {
  /**
   * Whether the format allows another frame/member right after one ended (gzip
   * members, LZ4 and zstd frames). If not, bytes after `Done` are trailing junk.
   */
  readonly concatenable: boolean
}

/** What a codec module is loaded for: engines with separate builds load only one. */
export type Role = 'decode' | 'encode'

/** What an engine module provides for one format. */
export interface CodecModule {
  /** The format's traits (facts of `formats.ts`, repeated here for the module's users). */
  readonly traits: FormatTraits
  /** Checks format-specific decoder options; throws `CodecError('INVALID_OPTION')`. */
  createDecoder(options: Record<string, unknown>): Decoder
  /** Checks format-specific encoder options; throws `CodecError('INVALID_OPTION')`. */
  createEncoder(options: Record<string, unknown>): Encoder
  /**
   * Loads what codecs made with `options` need beyond the module, where that depends on
   * the options: LZ4's levels 3 to 12 compress with LZ4 HC, loaded on first use. Await
   * it before `createEncoder`/`createDecoder` (`createEncoder()` of the package, the
   * one-shot calls and the streams do); a codec it was not awaited for refuses to be
   * created (`ENGINE_UNAVAILABLE`). Absent: the module needs nothing more.
   */
  prepare?(role: Role, options: Readonly<Record<string, unknown>>): Promise<void>
}
