import type { Decoder, Encoder, Format, FormatTraits } from './codec.js'
import { CodecError } from './errors.js'

/**
 * Where each format's codecs come from. Engines load lazily through dynamic
 * `import()`, so a bundle that only uses gzip never contains (or fetches) the zstd or
 * brotli wasm, and the engine in use is always the one asked for: there is no silent
 * fallback from one engine to another.
 *
 * - `js`: TypeScript in this package (deflate family, LZ4). Runs everywhere.
 * - `wasm`: portable WebAssembly (zstd, brotli; the LZ4 block and checksum kernel; the
 *   deflate family's inflate and CRC-32 kernel).
 *   Runs everywhere, incl. workerd.
 * - `node`: `node:zlib` (opt-in). Fails with `ENGINE_UNAVAILABLE` outside Node, or
 *   where the running Node lacks the format (zstd needs Node >= 22.15).
 */
export type Engine = 'js' | 'wasm' | 'node'

/** What an engine module provides for one format. */
export interface CodecModule {
  readonly traits: FormatTraits
  /** Checks format-specific decoder options; throws `CodecError('INVALID_OPTION')`. */
  createDecoder(options: Record<string, unknown>): Decoder
  createEncoder(options: Record<string, unknown>): Encoder
}

/** What a codec module is loaded for: engines with separate builds load only one. */
export type Role = 'decode' | 'encode'

type Loader = (role?: Role) => Promise<CodecModule>

/** Format facts that must be known synchronously (before any engine loads). */
interface FormatInfo {
  readonly defaultEngine: Engine
  /** Inclusive encoder level range and default. */
  readonly levels: readonly [min: number, max: number, fallback: number]
  readonly engines: Partial<Record<Engine, Loader>>
}

const nodeEngine = (format: Format): Loader => () =>
  import('../adapters/node/engine.js').then(
    (m) => m.nodeCodec(format),
    (cause) => {
      throw new CodecError('ENGINE_UNAVAILABLE', format, `engine 'node' needs node:zlib, which this runtime does not provide`, -1, { cause })
    },
  )

/** The deflate family's wasm engine (one module and kernel for the three formats). */
const inflateWasm = () => import('./codecs/inflate-wasm.js').then((m) => m.loadInflateWasm())

const formats: Record<Format, FormatInfo> = {
  gzip: {
    defaultEngine: 'js',
    levels: [0, 9, 6],
    // 'wasm': the same wrappers with Huffman-coded blocks and CRC-32 in sluice's
    // hand-written wasm kernel (lib/codecs/wasm/inflate.wat); encoders are TypeScript.
    engines: { js: () => import('./codecs/gzip.js').then((m) => m.gzip), wasm: () => inflateWasm().then((m) => m.gzip), node: nodeEngine('gzip') },
  },
  deflate: {
    defaultEngine: 'js',
    levels: [0, 9, 6],
    engines: { js: () => import('./codecs/gzip.js').then((m) => m.deflate), wasm: () => inflateWasm().then((m) => m.deflate), node: nodeEngine('deflate') },
  },
  'deflate-raw': {
    defaultEngine: 'js',
    levels: [0, 9, 6],
    engines: { js: () => import('./codecs/gzip.js').then((m) => m.deflateRaw), wasm: () => inflateWasm().then((m) => m.deflateRaw), node: nodeEngine('deflate-raw') },
  },
  lz4: {
    // wasm by default: decode 2.1-3x, encode 1.8-2.2x the TypeScript engine (bench/lz4-micro.ts).
    defaultEngine: 'wasm',
    levels: [1, 12, 1],
    // 'wasm': the same frame logic with blocks, checksums and frame compression in sluice's
    // hand-written wasm kernel (lib/codecs/wasm/lz4.wat; same bytes as the TypeScript
    // encoder); the raw block encoder is TypeScript in both.
    engines: { js: () => import('./codecs/lz4.js').then((m) => m.lz4), wasm: () => import('./codecs/lz4-wasm.js').then((m) => m.loadLz4Wasm()).then((m) => m.lz4) },
  },
  'lz4-block': {
    defaultEngine: 'wasm',
    levels: [1, 12, 1],
    engines: { js: () => import('./codecs/lz4.js').then((m) => m.lz4Block), wasm: () => import('./codecs/lz4-wasm.js').then((m) => m.loadLz4Wasm()).then((m) => m.lz4Block) },
  },
  zstd: {
    defaultEngine: 'wasm',
    levels: [1, 19, 3],
    engines: { wasm: () => import('./codecs/zstd.js').then((m) => m.loadZstd()), node: nodeEngine('zstd') },
  },
  brotli: {
    defaultEngine: 'wasm',
    // The web platform's CompressionStream('brotli') proposal and node:zlib both
    // default to quality 11 for one-shot use; streams favour speed, so 5 here.
    levels: [0, 11, 5],
    engines: { wasm: (role) => import('./codecs/brotli.js').then((m) => m.loadBrotli(role)), node: nodeEngine('brotli') },
  },
}

export const FORMATS = Object.freeze(Object.keys(formats) as Format[])

export function isFormat(name: unknown): name is Format {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(formats, name)
}

function info(format: string): FormatInfo {
  if (!isFormat(format)) throw new CodecError('UNKNOWN_FORMAT', String(format), `unknown format; expected one of ${FORMATS.join(', ')}`)
  return formats[format]
}

/** Options understood by `createEncoder`/`createDecoder` and the stream factories. */
export interface EngineOptions {
  engine?: Engine
}

/**
 * Resolves the engine name for `format`, throwing synchronously for unknown formats
 * and engines the format does not have, so that stream factories fail at construction.
 */
export function resolveEngine(format: string, engine: unknown): Engine {
  const fi = info(format)
  if (engine === undefined) return fi.defaultEngine
  if (typeof engine !== 'string' || !(engine in fi.engines)) {
    throw new CodecError('INVALID_OPTION', format, `engine ${JSON.stringify(engine)} is not available for this format; expected one of ${Object.keys(fi.engines).join(', ')}`)
  }
  return engine as Engine
}

/** Checks the options common to all encoders; returns the level to use. */
export function checkLevel(format: string, level: unknown): number {
  const [min, max, fallback] = info(format).levels
  if (level === undefined) return fallback
  if (typeof level !== 'number' || !Number.isInteger(level) || level < min || level > max) {
    throw new CodecError('INVALID_OPTION', format, `level must be an integer from ${min} to ${max}, got ${String(level)}`)
  }
  return level
}

/** 2 GiB: larger than any single ArrayBuffer many runtimes allow, far below a bomb. */
export const DEFAULT_MAX_OUTPUT_BYTES = 2 ** 31

/** Checks `maxOutputBytes`; returns the limit to use. */
export function checkMaxOutput(format: string, value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_OUTPUT_BYTES
  if (typeof value !== 'number' || !(value >= 0) || (Number.isFinite(value) && !Number.isInteger(value))) {
    throw new CodecError('INVALID_OPTION', format, `maxOutputBytes must be a non-negative integer or Infinity, got ${String(value)}`)
  }
  return value
}

const loaded = new Map<string, Promise<CodecModule>>()

/**
 * Loads (once) and returns the codec module of `format` on `engine`. With a `role`, an
 * engine that has separate decoder and encoder builds (brotli) loads only that one, and
 * the module may refuse to create the other kind.
 */
export function loadCodec(format: Format, engine: Engine, role?: Role): Promise<CodecModule> {
  const key = `${format}/${engine}/${role ?? 'both'}`
  let p = loaded.get(key)
  if (!p) {
    const loader = info(format).engines[engine]
    if (!loader) return Promise.reject(new CodecError('INVALID_OPTION', format, `engine '${engine}' is not available for this format`))
    p = loader(role)
    // A failed load (e.g. engine unavailable) is not cached, so a later call retries.
    p.catch(() => loaded.delete(key))
    loaded.set(key, p)
  }
  return p
}

export type CreateOptions = EngineOptions & Record<string, unknown>

/** Creates a span decoder for `format`, loading its engine on first use. */
export async function createDecoder(format: Format, options: CreateOptions = {}): Promise<Decoder> {
  const engine = resolveEngine(format, options.engine)
  checkMaxOutput(format, options.maxOutputBytes)
  const mod = await loadCodec(format, engine, 'decode')
  return mod.createDecoder(options)
}

/** Creates a span encoder for `format`, loading its engine on first use. */
export async function createEncoder(format: Format, options: CreateOptions = {}): Promise<Encoder> {
  const engine = resolveEngine(format, options.engine)
  checkLevel(format, options.level)
  const mod = await loadCodec(format, engine, 'encode')
  return mod.createEncoder(options)
}
