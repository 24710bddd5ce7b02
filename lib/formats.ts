import { toBytes } from './bytes.js'
import type { Format, FormatTraits } from './codec.js'
import { CodecError } from './errors.js'
import { checkInteger, checkLimit, checkOneOf } from './options.js'

export { checkBoolean, checkInteger, checkLimit, checkOneOf } from './options.js'

/**
 * Per-format facts and every option check, in one leaf module: the registry, the codecs,
 * the shells and the adapters import facts from here, never from the module that loads
 * the codecs (which would make every codec depend on every other).
 *
 * Engines:
 * - `js`: TypeScript in this package (deflate family, LZ4). Runs everywhere.
 * - `wasm`: portable WebAssembly (zstd, brotli; the LZ4 block and checksum kernel; the
 *   deflate family's inflate and CRC-32 kernel). Runs everywhere, incl. workerd.
 * - `node`: `node:zlib` (opt-in). Fails with `ENGINE_UNAVAILABLE` outside Node, or
 *   where the running Node lacks the format (zstd needs Node >= 22.15).
 */
export type Engine = 'js' | 'wasm' | 'node'

interface FormatFacts {
  readonly defaultEngine: Engine
  readonly engines: readonly Engine[]
  /** Inclusive encoder level range and default. */
  readonly levels: readonly [min: number, max: number, fallback: number]
  readonly traits: FormatTraits
  /** Why the `dictionary` option is refused for this format; absent where it is taken. */
  readonly noDictionary?: string
  /** Why the `dictionary` option is required (the format is a dictionary transport). */
  readonly needsDictionary?: string
}

const MEMBERS: FormatTraits = /* @__PURE__ */ Object.freeze({ concatenable: true })
const SINGLE: FormatTraits = /* @__PURE__ */ Object.freeze({ concatenable: false })
const DEFLATE_ENGINES: readonly Engine[] = /* @__PURE__ */ Object.freeze(['js', 'wasm', 'node'] as const)

const facts: Record<Format, FormatFacts> = {
  // gzip members may follow each other (RFC 1952 section 2.2); zlib and raw deflate
  // streams end with their final block. wasm by default: the inflate kernel decodes
  // about twice as fast as the TypeScript one (bench/inflate-micro.ts); 'js' stays for
  // pages whose Content-Security-Policy forbids WebAssembly.
  // Dictionaries: a zlib stream names its preset dictionary (RFC 1950 section 2.2,
  // FDICT/DICTID); raw deflate takes one as the window's initial content (RFC 1951
  // section 3.2: distances may reach back into it). The gzip header has no such field.
  gzip: {
    defaultEngine: 'wasm',
    engines: DEFLATE_ENGINES,
    levels: [0, 9, 6],
    traits: MEMBERS,
    noDictionary: "gzip has no preset dictionary (RFC 1952 defines none); use 'deflate' (zlib, RFC 1950 FDICT) or 'deflate-raw'",
  },
  deflate: { defaultEngine: 'wasm', engines: DEFLATE_ENGINES, levels: [0, 9, 6], traits: SINGLE },
  'deflate-raw': { defaultEngine: 'wasm', engines: DEFLATE_ENGINES, levels: [0, 9, 6], traits: SINGLE },
  // wasm by default: decode 2.1-3x, encode 1.8-2.2x the TypeScript engine (bench/lz4-micro.ts).
  lz4: { defaultEngine: 'wasm', engines: ['js', 'wasm'], levels: [1, 12, 1], traits: MEMBERS, noDictionary: 'lz4 dictionaries are not supported' },
  'lz4-block': { defaultEngine: 'wasm', engines: ['js', 'wasm'], levels: [1, 12, 1], traits: SINGLE, noDictionary: 'lz4 dictionaries are not supported' },
  // RFC 8878 section 3.1: a zstd stream is a sequence of frames.
  // Dictionaries: a trained one (RFC 8878 section 5, magic 37 A4 30 EC, named by its ID in
  // the frame header) or raw content (a prefix the first matches may reach back into).
  zstd: { defaultEngine: 'wasm', engines: ['wasm', 'node'], levels: [1, 19, 3], traits: MEMBERS },
  // The web platform's CompressionStream('brotli') proposal and node:zlib both default to
  // quality 11 for one-shot use; streams favour speed, so 5 here. RFC 7932 defines a
  // single stream: bytes after its end are trailing data.
  // Dictionaries: raw content (a prefix, brotli's BROTLI_SHARED_DICTIONARY_RAW).
  brotli: { defaultEngine: 'wasm', engines: ['wasm', 'node'], levels: [0, 11, 5], traits: SINGLE },
  // RFC 9842 (Compression Dictionary Transport) sections 4 and 5: a header with the
  // dictionary's SHA-256, then one zstd frame or one brotli stream using it as raw
  // content. Levels as the inner formats'. One stream: bytes after it are trailing data.
  dcz: { defaultEngine: 'wasm', engines: ['wasm'], levels: [1, 19, 3], traits: SINGLE, needsDictionary: "'dcz' is zstd with a dictionary (RFC 9842 section 5)" },
  dcb: { defaultEngine: 'wasm', engines: ['wasm'], levels: [0, 11, 5], traits: SINGLE, needsDictionary: "'dcb' is brotli with a dictionary (RFC 9842 section 4)" },
}

/** Every format name this library knows, e.g. for `CompressionStream` or `decode()`. */
export const FORMATS = /* @__PURE__ */ Object.freeze(Object.keys(facts) as Format[])

export function isFormat(name: unknown): name is Format {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(facts, name)
}

/** `format` if it is one; otherwise throws `UNKNOWN_FORMAT`. */
export function checkFormat(format: string): Format {
  if (!isFormat(format)) throw new CodecError('UNKNOWN_FORMAT', String(format), `unknown format; expected one of ${FORMATS.join(', ')}`)
  return format
}

function factsOf(format: string): FormatFacts {
  return facts[checkFormat(format)]
}

/** What the stream driver needs to know of `format` besides its codec. */
export function traitsOf(format: Format): FormatTraits {
  return factsOf(format).traits
}

/**
 * Resolves the engine name for `format`, throwing synchronously for unknown formats and
 * engines the format does not have, so that stream factories fail at construction.
 */
export function resolveEngine(format: string, engine: unknown): Engine {
  const f = factsOf(format)
  if (engine === undefined) return f.defaultEngine
  if (typeof engine !== 'string' || !f.engines.includes(engine as Engine)) {
    throw new CodecError('INVALID_OPTION', format, `engine ${JSON.stringify(engine)} is not available for this format; expected one of ${f.engines.join(', ')}`)
  }
  return engine as Engine
}

// ---------------------------------------------------------------------------------------
// Option checks of the codecs (the generic ones are options.ts's, re-exported here). Each
// throws `CodecError('INVALID_OPTION')` naming the option, the range and the value;
// `undefined` gives the default.

/** Checks an encoder's `level`; returns the level to use. */
export function checkLevel(format: string, level: unknown): number {
  const [min, max, fallback] = factsOf(format).levels
  return checkInteger(format, 'level', level, min, max, fallback)
}

/** Dictionaries `checkDictionary` made: its own copies, passed on without copying again. */
const checkedDictionaries = /* @__PURE__ */ new WeakSet<Uint8Array>()

/**
 * Checks a `dictionary` option, the one check every codec and shell uses: any
 * BufferSource (an ArrayBuffer, a SharedArrayBuffer or a view of one), copied once here
 * so that later writes to the caller's memory cannot change a stream under way (a copy
 * this function made passes through as it is). `undefined` gives `undefined`; a format
 * without dictionaries (gzip) refuses one with `INVALID_OPTION`. An empty dictionary is
 * allowed and changes no output. The dictionary transports ('dcz', 'dcb') require one.
 */
export function checkDictionary(format: string, value: unknown): Uint8Array | undefined {
  if (value === undefined) {
    const needed = factsOf(format).needsDictionary
    if (needed) throw new CodecError('INVALID_OPTION', format, `the dictionary option is required: ${needed}`)
    return undefined
  }
  const refused = factsOf(format).noDictionary
  if (refused) throw new CodecError('INVALID_OPTION', format, `dictionary: ${refused}`)
  if (value instanceof Uint8Array && checkedDictionaries.has(value)) return value
  let bytes: Uint8Array
  try {
    bytes = toBytes(value, true)
  } catch {
    throw new CodecError('INVALID_OPTION', format, `dictionary must be an ArrayBuffer or an ArrayBufferView, got ${value === null ? 'null' : Array.isArray(value) ? 'an Array' : typeof value}`)
  }
  const copy = bytes.slice()
  checkedDictionaries.add(copy)
  return copy
}

/**
 * The most bytes `n` compressed bytes of `format` can decode to, from the formats' own
 * limits, to refuse a declared size (a frame header, an Arrow prefix, a Parquet page
 * header: all untrusted) before allocating it:
 * - deflate: a length/distance pair costs at least 2 bits and yields at most 258 bytes
 *   (RFC 1951 section 3.2.5), so at most 1032 bytes per input byte.
 * - zstd: the densest block is an RLE block, 3 header bytes and 1 byte for up to
 *   Block_Maximum_Size = 128 KiB (RFC 8878 section 3.1.1.2), so < 32768 per byte.
 * - LZ4: a match length byte adds at most 255 bytes (lz4_Block_format.md), so about 255
 *   per byte.
 * - brotli: one insert-and-copy command of a few bytes can copy ~16 MiB (RFC 7932
 *   section 5): no useful bound, `Infinity` (only the caller's limit applies).
 * Small constants cover frame headers and the last block.
 */
export function mostDecodedBytes(format: Format, n: number): number {
  switch (format) {
    case 'gzip':
    case 'deflate':
    case 'deflate-raw':
      return n * 1032 + 1032
    case 'zstd':
    case 'dcz':
      return n * 32_768 + 131_072
    case 'lz4':
    case 'lz4-block':
      return n * 256 + 65_536
    case 'brotli':
    case 'dcb':
      return Infinity
  }
}

/** 2 GiB: larger than any single ArrayBuffer many runtimes allow, far below a bomb. */
export const DEFAULT_MAX_OUTPUT_BYTES = 2 ** 31

/** Checks a decoder's `maxOutputBytes`; returns the limit to use. */
export function checkMaxOutput(format: string, value: unknown): number {
  return checkLimit(format, 'maxOutputBytes', value, DEFAULT_MAX_OUTPUT_BYTES)
}

/**
 * Output chunks: at most 1 GiB, the largest `Uint8Array` every target runtime allocates;
 * at least 64 bytes, below which per-chunk overhead dominates any stream.
 */
export const MIN_CHUNK_SIZE = 64
export const MAX_CHUNK_SIZE = 2 ** 30

/** Checks `chunkSize`; `undefined` when the caller did not choose one. */
export function checkChunkSize(format: string, value: unknown): number | undefined {
  return checkInteger(format, 'chunkSize', value, MIN_CHUNK_SIZE, MAX_CHUNK_SIZE)
}

// ---------------------------------------------------------------------------------------
// Flushing. Every encoder can write a sync point mid-stream (`Encoder.flush()`), known
// before any engine loads, so that asking for one where it cannot be had fails at once:
// - deflate family (every engine): sync flush, an empty stored block (RFC 1951 §3.2.4);
// - zstd (wasm, node): ZSTD_e_flush ends the current block (zstd.h);
// - LZ4 frame: the current block is ended early (blocks are independent);
// - brotli (wasm, node): BROTLI_OPERATION_FLUSH (encode.h);
// - raw LZ4 blocks: one block, nothing to split.

/** `'none'`: sync points only on `flush()`. `'write'`: one after each written chunk. */
export type FlushMode = 'none' | 'write'

/** Whether `format`'s encoders can write a sync point (on every engine it has). */
export function canFlush(format: Format, _engine?: Engine): boolean {
  return format !== 'lz4-block'
}

/** The error for a sync point asked of an encoder that cannot write one. */
export function unflushable(format: Format, engine: Engine): CodecError {
  return new CodecError('UNSUPPORTED', format, `cannot flush on engine '${engine}': a raw LZ4 block has no sync points`)
}

/** Checks an encoder's `flush` option; returns the mode to use. */
export function checkFlush(format: Format, value: unknown, engine: Engine = factsOf(format).defaultEngine): FlushMode {
  const mode = checkOneOf(format, 'flush', value, ['none', 'write'], 'none')
  if (mode === 'write' && !canFlush(format, engine)) throw unflushable(format, engine)
  return mode
}
