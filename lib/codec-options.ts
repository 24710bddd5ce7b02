/**
 * The codecs' options: those every codec of a role takes (`COMMON_OPTIONS`), those of
 * the machine that drives it (`MACHINE_OPTIONS`; the TypeScript types named after them
 * and the format table's rows are option-types.ts's), and the one check every surface runs (`checkOptions`; `checkDeferredOptions` where the
 * format is chosen later). Beside them, the checks of single options by the table's
 * facts: `resolveEngine`, `checkLevel`, `checkDictionary`, `checkMaxOutput` (with
 * `mostDecodedBytes`, the bound on a declared size), `checkChunkSize`, `checkFlush`,
 * and block mode's `checkBlockSize` and `wantsBlocks`. The generic checks and the
 * schema's vocabulary are options.ts's; the facts, formats.ts's.
 *
 * A leaf module like those two: the registry, the codecs, the shells and the adapters
 * check options here, synchronously, before any engine loads.
 */
import { toBytes } from './bytes.js'
import type { Role } from './codec.js'
import { CodecError } from './errors.js'
import { canFlush, rowOf, type Engine, type Format } from './formats.js'
import { checkBoolean, checkInteger, checkLimit, checkOneOf, checkSpec, describe, nearestKey, type OptionSpec } from './options.js'
import type { ProgressCallback } from './progress.js'

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)

/**
 * Resolves the engine name for `format`, throwing synchronously for unknown formats and
 * engines the format does not have, so that stream factories fail at construction.
 */
export function resolveEngine(format: string, engine: unknown): Engine {
  const f = rowOf(format)
  if (engine === undefined) return f.defaultEngine
  if (typeof engine !== 'string' || !f.engines.includes(engine as Engine)) {
    throw new CodecError('INVALID_OPTION', format, `engine ${JSON.stringify(engine)} is not available for this format; expected one of ${f.engines.join(', ')}`)
  }
  return engine as Engine
}

// ---------------------------------------------------------------------------------------
// Option checks of the codecs (the generic ones are options.ts's). Each throws
// `CodecError('INVALID_OPTION')` naming the option, the range and the value; `undefined`
// gives the default.

/** Checks an encoder's `level`; returns the level to use. */
export function checkLevel(format: string, level: unknown): number {
  const [min, max, fallback] = rowOf(format).levels
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
  const row = rowOf(format)
  if (value === undefined) {
    if (row.dictionary === 'required') throw new CodecError('INVALID_OPTION', format, `the dictionary option is required: ${row.dictionaryWhy}`)
    return undefined
  }
  if (row.dictionary === 'none') throw new CodecError('INVALID_OPTION', format, `dictionary: ${row.dictionaryWhy}`)
  if (value instanceof Uint8Array && checkedDictionaries.has(value)) return value
  let bytes: Uint8Array
  try {
    bytes = toBytes(value, true)
  } catch {
    throw new CodecError('INVALID_OPTION', format, `dictionary must be an ArrayBuffer or an ArrayBufferView, got ${describe(value)}`)
  }
  const copy = bytes.slice()
  checkedDictionaries.add(copy)
  return copy
}

/**
 * The most bytes `n` compressed bytes of `format` can decode to, from the formats' own
 * limits (the table's `decodedPerByte`), to refuse a declared size (a frame header, an
 * Arrow prefix, a Parquet page header: all untrusted) before allocating it. `Infinity`
 * where the format gives no useful bound (brotli).
 */
export function mostDecodedBytes(format: Format, n: number): number {
  const bound = rowOf(format).decodedPerByte
  return bound === null ? Infinity : n * bound[0] + bound[1]
}

/**
 * 2 GiB: the default `maxOutputBytes` where the output is held in memory or the input
 * is an untrusted body read whole (one-shot `decode()`, `decodeResponse`, span decoders,
 * Arrow): far below what a bomb asks for (32 KB of zstd expands to 1 GiB), above most
 * real payloads. Streams read with backpressure hold no more memory for a longer output
 * and decode any length by default (their surface's `maxOutputBytes: Infinity`).
 */
export const DEFAULT_MAX_OUTPUT_BYTES = 2 ** 31

/** Checks a decoder's `maxOutputBytes`; returns the limit to use (`fallback` when not given). */
export function checkMaxOutput(format: string, value: unknown, fallback: number = DEFAULT_MAX_OUTPUT_BYTES): number {
  return checkLimit(format, 'maxOutputBytes', value, fallback)
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

/** `'none'`: sync points only on `flush()`. `'write'`: one after each written chunk. */
export type FlushMode = 'none' | 'write'

/** The error for a sync point asked of an encoder that cannot write one. */
export function unflushable(format: Format): CodecError {
  return new CodecError('UNSUPPORTED', format, `cannot flush: a ${format} encoder has no sync points (its output is one block)`)
}

/** Checks an encoder's `flush` option; returns the mode to use. */
export function checkFlush(format: Format, value: unknown): FlushMode {
  const mode = checkOneOf(format, 'flush', value, ['none', 'write'], 'none')
  if (mode === 'write' && !canFlush(format)) throw unflushable(format)
  return mode
}

// ---------------------------------------------------------------------------------------
// The option schema. Each surface (streams, one-shot, span codecs, Node duplex) takes
// the common options of its role, the format's own (`FormatRow.options`) and its own
// shell keys (`signal`, `streams`, `duplex`); `checkOptions` checks them all at once,
// before any engine loads, and refuses unknown keys.

/**
 * Options every codec of a role takes, whatever the format: the run-time check
 * (`checkOptions`) and the types (`CodecOptions`) both follow this list.
 */
export const COMMON_OPTIONS = /* @__PURE__ */ Object.freeze({
  decode: {
    /** `'js'`/`'wasm'` (portable; the default per format) or `'node'` (node:zlib). */
    engine: { type: 'engine' },
    /** Most bytes to produce; more errors with `LIMIT_EXCEEDED` before the memory is spent. Default 2 GiB for one-shot `decode()` and span decoders; none for the streams (read with backpressure). */
    maxOutputBytes: { type: 'limit' },
    /**
     * The encoder's preset dictionary, any BufferSource (copied at creation): 'deflate'
     * checks it against the stream's DICTID, 'deflate-raw' starts with it as the window,
     * zstd (trained or raw content), brotli (raw content); required for 'dcz' and 'dcb';
     * refused for gzip and LZ4.
     */
    dictionary: { type: 'dictionary' },
  },
  encode: {
    /** `'js'`/`'wasm'` (portable; the default per format) or `'node'` (node:zlib). */
    engine: { type: 'engine' },
    /** Compression level; range and default depend on the format. */
    level: { type: 'level' },
    /**
     * A preset dictionary, any BufferSource (copied at creation): 'deflate' writes FDICT
     * and its DICTID (Adler-32), 'deflate-raw' starts with it as the window (only its last
     * 32 KiB count), zstd (trained or raw content), brotli (raw content); required for
     * 'dcz' and 'dcb'; refused for gzip and LZ4. The decoder needs the same bytes.
     */
    dictionary: { type: 'dictionary' },
  },
} as const)

/** Options of the machine that drives a codec (streams, Node duplex, one-shot decode). */
export const MACHINE_OPTIONS = /* @__PURE__ */ Object.freeze({
  decode: {
    /** Output chunk size in bytes, 64 to 2^30. Default: 16 KiB growing to 256 KiB. */
    chunkSize: { type: 'integer', min: MIN_CHUNK_SIZE, max: MAX_CHUNK_SIZE },
    /**
     * Whether another frame/member may follow the first (gzip members, LZ4 and zstd
     * frames). Default: what the format allows. `false` makes bytes after the first
     * frame an error, as the web platform's `DecompressionStream('gzip')` does.
     */
    concatenated: { type: 'boolean' },
    /**
     * Called with `{ bytesIn, bytesOut, totalIn? }` as the codec runs: at most once per
     * output chunk and per 50 ms, and once at the end (docs/progress.md).
     */
    onProgress: { type: 'progress' },
  },
  encode: {
    /** Output chunk size in bytes, 64 to 2^30. Default: 16 KiB growing to 256 KiB. */
    chunkSize: { type: 'integer', min: MIN_CHUNK_SIZE, max: MAX_CHUNK_SIZE },
    /**
     * `'write'`: end the output of every written chunk with a sync point, so that a
     * decoder can produce everything written so far without the rest of the stream
     * (deflate family: sync flush; brotli: BROTLI_OPERATION_FLUSH; zstd: end of block;
     * LZ4: end of the current block). For live streams (server-sent events, logs); it
     * costs ratio on small writes. Default `'none'`.
     */
    flush: { type: 'choice', values: ['none', 'write'] },
    /**
     * Called with `{ bytesIn, bytesOut, totalIn? }` as the codec runs: at most once per
     * output chunk and per 50 ms, and once at the end (docs/progress.md).
     */
    onProgress: { type: 'progress' },
  },
} as const)

/** What `checkOptions` found. */
export interface CheckedOptions {
  readonly engine: Engine
  /** Decoders: the output limit. */
  readonly maxOutputBytes: number
  /** Encoders: the level. */
  readonly level: number
  /** The caller's `chunkSize`, or undefined. */
  readonly chunkSize: number | undefined
  readonly concatenated: boolean
  readonly flush: FlushMode
  /** The `onProgress` callback, where the surface takes one and it was given. */
  readonly onProgress: ProgressCallback | undefined
  /**
   * What the codec module gets: the format's own options as given, the copied
   * dictionary, `level`, `maxOutputBytes` (when given).
   */
  readonly codec: Record<string, unknown>
}

/**
 * Which keys a surface takes besides the codec's: `machine` for the machine options
 * (`chunkSize` and `concatenated` or `flush`), `shell` for keys the surface checks
 * itself (`signal`, `streams`, `duplex`).
 */
export interface SurfaceKeys {
  readonly machine?: boolean | readonly string[]
  readonly shell?: readonly string[]
  /**
   * The surface's default `maxOutputBytes`: `Infinity` for streams read with
   * backpressure; `DEFAULT_MAX_OUTPUT_BYTES` (when not given) where output is held.
   */
  readonly maxOutputBytes?: number
}

/** The machine's option keys a surface takes (`SurfaceKeys.machine`). */
function machineKeysOf(role: Role, keys: SurfaceKeys): readonly string[] {
  return keys.machine === true ? Object.keys(MACHINE_OPTIONS[role]) : keys.machine || []
}

/**
 * One of the format's own options by its schema entry: undefined when not given (or
 * `INVALID_OPTION` when `required`), refused on an engine that does not honour it,
 * otherwise checked (`checkSpec`).
 */
function checkOwn(format: Format, key: string, spec: OptionSpec, value: unknown, engine: Engine): unknown {
  if (value === undefined) {
    if (spec.required !== undefined) throw new CodecError('INVALID_OPTION', format, `${key} (${spec.required}) is required`)
    return undefined
  }
  if (spec.engines !== undefined && !spec.engines.includes(engine)) {
    throw new CodecError('INVALID_OPTION', format, `${key} is not available on engine '${engine}'; only on ${spec.engines.join(', ')}`)
  }
  return checkSpec(format, key, spec, value, engine)
}

// ---------------------------------------------------------------------------------------
// Block mode (issue 22, docs/threads.md): `threads` and `blockSize` on the encoders.

/** The largest `blockSize`: 1 GiB, the largest array every target runtime allocates. */
const MAX_BLOCK_SIZE = 2 ** 30

/**
 * Checks an encoder's `blockSize` (issue 22) by the format's row: refused where the
 * format has no block mode; else an integer from the row's smallest block to
 * `MAX_BLOCK_SIZE`, except LZ4's, its frame option, which its schema checks (one of four
 * sizes) with the other options. Returns it, or undefined when not given.
 */
export function checkBlockSize(format: Format, value: unknown): number | undefined {
  if (value === undefined) return undefined
  const blocks = rowOf(format).blocks
  if (!blocks) throw new CodecError('INVALID_OPTION', format, `blockSize: ${format} has no block mode (only gzip, deflate, deflate-raw, zstd and lz4 do)`)
  return blocks.family === 'lz4' ? (checkOwn(format, 'blockSize', rowOf(format).options.encode.blockSize!, value, 'js') as number) : checkInteger(format, 'blockSize', value, blocks.min, MAX_BLOCK_SIZE)
}

/**
 * Whether `options` turn block mode on for an encoder of `format`: `threads` other than
 * 1, or `blockSize` (except LZ4's, which is its frame option). `threads: 'auto'` always
 * does, so that its bytes do not depend on the machine.
 */
export function wantsBlocks(format: Format, given: object): boolean {
  const options = given as Readonly<Record<string, unknown>>
  if (options.bgzf === true) {
    // BGZF's blocks are its own (0xff00 bytes each, lib/codecs/bgzf-encode.ts): block
    // mode would write pigz's instead. It is encoded on the caller's thread.
    if (options.blockSize !== undefined) throw new CodecError('INVALID_OPTION', format, 'blockSize does not apply to BGZF, whose blocks are 0xff00 bytes of input (SAMv1 section 4.1)')
    return false
  }
  const threads = options.threads
  return (threads !== undefined && threads !== 1) || (options.blockSize !== undefined && format !== 'lz4')
}

/**
 * The keys a decoding stream on threads takes besides the codec's, checked where the
 * stream is made (streams/parallel-stream.ts) and again where it opens: not
 * `onProgress`, which reports one serial decoder's progress; `onIndex` for the deflate
 * family. Here, beside the block-mode checks, for their reason: every lazy chunk that
 * reaches the option checks reaches this too, without a chunk of its own.
 */
export function threadsDecodeKeys(format: Format): SurfaceKeys {
  // A stream read with backpressure decodes any length unless maxOutputBytes is given.
  return { machine: ['chunkSize', 'concatenated'], shell: ['signal', 'streams', 'threads', ...(rowOf(format).blocks?.family === 'deflate' ? ['onIndex'] : [])], maxOutputBytes: Infinity }
}

// ---------------------------------------------------------------------------------------
// The checks of a surface's options.

/**
 * Checks every option of a `role` codec of `format`, synchronously, before any engine
 * loads: the common ones, the machine's where `keys.machine` allows them, the format's
 * own by its row's schema, and unknown keys (`INVALID_OPTION` naming the key and the
 * nearest known one). The one check every surface runs, through `prepare.ts` or the
 * registry; the codecs read their own options with `formatOption` (the same schema).
 */
export function checkOptions(format: Format, role: Role, options: unknown, keys: SurfaceKeys = {}): CheckedOptions {
  if (options === undefined) options = {}
  if (typeof options !== 'object' || options === null) throw new CodecError('INVALID_OPTION', format, `options must be an object, got ${describe(options)}`)
  const o = options as Record<string, unknown>
  const row = rowOf(format)
  const own = row.options[role]
  const machineKeys = machineKeysOf(role, keys)
  const known = [...Object.keys(COMMON_OPTIONS[role]), ...Object.keys(own), ...machineKeys, ...(keys.shell ?? [])]
  // Unknown keys first, so that a typo is named before a value it hides is missed.
  for (const key of Object.keys(o)) {
    if (o[key] === undefined || known.includes(key)) continue
    const near = nearestKey(key, known)
    throw new CodecError('INVALID_OPTION', format, `unknown ${role === 'decode' ? 'decoder' : 'encoder'} option '${key}'${near ? ` (did you mean '${near}'?)` : ''}; ${format} takes ${known.join(', ')}`)
  }
  const engine = resolveEngine(format, o.engine)
  const codec: Record<string, unknown> = {}
  for (const key of Object.keys(own)) {
    const value = checkOwn(format, key, own[key]!, o[key], engine)
    if (value !== undefined) codec[key] = value
  }
  let maxOutputBytes = Infinity
  let level = 0
  if (role === 'decode') {
    maxOutputBytes = checkMaxOutput(format, o.maxOutputBytes, keys.maxOutputBytes)
    // The codec shares the surface's limit (a frame declaring more fails at its header).
    codec.maxOutputBytes = maxOutputBytes
  } else {
    level = checkLevel(format, o.level)
    if (o.level !== undefined) codec.level = level
  }
  const dictionary = checkDictionary(format, o.dictionary)
  if (dictionary !== undefined) codec.dictionary = dictionary
  const chunkSize = machineKeys.includes('chunkSize') ? checkChunkSize(format, o.chunkSize) : undefined
  const concatenated = machineKeys.includes('concatenated') ? checkBoolean(format, 'concatenated', o.concatenated, row.traits.concatenable) : row.traits.concatenable
  const flush = role === 'encode' && machineKeys.includes('flush') ? checkFlush(format, o.flush) : 'none'
  const onProgress = machineKeys.includes('onProgress') && o.onProgress !== undefined ? (checkSpec(format, 'onProgress', MACHINE_OPTIONS[role].onProgress, o.onProgress, engine) as ProgressCallback) : undefined
  row.rules?.[role]?.(codec)
  return { engine, maxOutputBytes, level, chunkSize, concatenated, flush, onProgress, codec }
}

/**
 * One of the format's own options, checked by its row's schema (`undefined` when not
 * given): how a codec module reads its options, so that a codec created directly
 * (`loadCodec(...).createEncoder(options)`) is held to the same ranges as every surface.
 */
export function formatOption(format: Format, role: Role, key: string, value: unknown, engine: Engine = rowOf(format).defaultEngine): unknown {
  return checkOwn(format, key, rowOf(format).options[role][key]!, value, engine)
}

/**
 * Checks the options of a decoder (or encoder) whose format is chosen later, among
 * `formats` (`decompress()` picks it from the first bytes): unknown keys, and each
 * format-specific value by the schema of every format that takes it, synchronously now.
 * Returns the options every format takes (`shared`: the common ones, the machine's, the
 * surface's) and, per format, its own (`ownFor`), so that a zstd option does not reach a
 * gzip stream that was detected instead.
 */
export function checkDeferredOptions(
  label: string,
  formats: readonly Format[],
  role: Role,
  options: Record<string, unknown>,
  keys: SurfaceKeys,
): { shared: Record<string, unknown>; ownFor(format: Format): Record<string, unknown> } {
  const sharedKeys = [...Object.keys(COMMON_OPTIONS[role]), ...machineKeysOf(role, keys), ...(keys.shell ?? [])]
  const shared: Record<string, unknown> = {}
  const own: Record<string, unknown> = {}
  for (const key of Object.keys(options)) {
    const value = options[key]
    if (value === undefined) continue
    if (sharedKeys.includes(key)) {
      shared[key] = value
      continue
    }
    const takers = formats.filter((f) => hasOwn(rowOf(f).options[role], key))
    if (takers.length === 0) {
      const known = [...new Set([...sharedKeys, ...formats.flatMap((f) => Object.keys(rowOf(f).options[role]))])]
      const near = nearestKey(key, known)
      throw new CodecError('INVALID_OPTION', label, `unknown ${role === 'decode' ? 'decoder' : 'encoder'} option '${key}'${near ? ` (did you mean '${near}'?)` : ''}; ${label} takes ${known.join(', ')}`)
    }
    for (const f of takers) checkSpec(f, key, rowOf(f).options[role][key]!, value, rowOf(f).engines.includes(shared.engine as Engine) ? (shared.engine as Engine) : rowOf(f).defaultEngine)
    own[key] = value
  }
  return {
    shared,
    ownFor: (format) => Object.fromEntries(Object.entries(own).filter(([key]) => hasOwn(rowOf(format).options[role], key))),
  }
}
