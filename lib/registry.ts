/**
 * Where each format's codecs come from. Engines load lazily through dynamic `import()`,
 * so a bundle that only uses gzip never contains (or fetches) the zstd or brotli wasm,
 * and the engine in use is always the one asked for: there is no silent fallback from
 * one engine to another. Which engines a format has, its levels and its traits are facts
 * of `formats.ts`, the option checks (`checkOptions`) are `codec-options.ts`'s; this
 * module loads each engine and creates codecs from checked options.
 */
import type { CodecModule, Decoder, Encoder, Format, Role } from './codec.js'
import { CodecError } from './errors.js'
import { checkFormat, isDictionaryTransport, type Engine } from './formats.js'
import { checkOptions, type CheckedOptions } from './codec-options.js'
import type { CodecOptions } from './option-types.js'
import { addDictionaryDigest } from './dictionary-digest.js'

export type { CodecModule, Role } from './codec.js'
export type { Engine } from './formats.js'

type Loader = (role?: Role) => Promise<CodecModule>

/**
 * `engine: 'node'` is node:zlib, reached through the package's `#node-engine` import:
 * under the `node` condition it is `adapters/node/engine.ts`, elsewhere a module that
 * refuses to load, so that no browser or workerd bundle ever sees a `node:` import and
 * `lib/` never names a module above it.
 */
const nodeEngine = (format: Format): Loader => () =>
  import('#node-engine').then(
    (m: { nodeCodec(format: Format): CodecModule }) => m.nodeCodec(format),
    (cause: unknown) => {
      throw new CodecError('ENGINE_UNAVAILABLE', format, `engine 'node' needs node:zlib, which this runtime does not provide`, -1, { cause })
    },
  )

/**
 * The deflate family's wasm engine (one module for the three formats): sluice's inflate
 * kernel decodes, zlib-ng encodes; each role loads only its own wasm.
 */
const deflateWasm = (role?: Role) => import('./codecs/deflate-wasm.js').then((m) => m.loadDeflateWasm(role))
const lz4Wasm = () => import('./codecs/lz4-wasm.js').then((m) => m.loadLz4Wasm())
const snappyWasm = () => import('./codecs/snappy-wasm.js').then((m) => m.loadSnappyWasm())

const loaders: Record<Format, Partial<Record<Engine, Loader>>> = {
  // 'wasm': the same wrappers, decoded with Huffman-coded blocks and CRC-32 in sluice's
  // hand-written wasm kernel (lib/codecs/wasm/inflate.wat), encoded by zlib-ng's deflate
  // (lib/codecs/wasm/zlibng-deflate.wasm). 'js': TypeScript both ways.
  gzip: { js: () => import('./codecs/deflate-js.js').then((m) => m.gzip), wasm: (role) => deflateWasm(role).then((m) => m.gzip), node: nodeEngine('gzip') },
  deflate: { js: () => import('./codecs/deflate-js.js').then((m) => m.deflate), wasm: (role) => deflateWasm(role).then((m) => m.deflate), node: nodeEngine('deflate') },
  'deflate-raw': { js: () => import('./codecs/deflate-js.js').then((m) => m.deflateRaw), wasm: (role) => deflateWasm(role).then((m) => m.deflateRaw), node: nodeEngine('deflate-raw') },
  // 'wasm': the same frame logic with blocks, checksums and frame compression in sluice's
  // hand-written wasm kernel (lib/codecs/wasm/lz4.wat; same bytes as the TypeScript
  // encoder); the raw block encoder is TypeScript in both. Levels 3 to 12 (LZ4 HC) load
  // their compressor in the module's prepare() (lib/codecs/lz4hc.ts).
  lz4: { js: () => import('./codecs/lz4.js').then((m) => m.lz4), wasm: () => lz4Wasm().then((m) => m.lz4) },
  'lz4-block': { js: () => import('./codecs/lz4.js').then((m) => m.lz4Block), wasm: () => lz4Wasm().then((m) => m.lz4Block) },
  // 'wasm': the same codecs with whole blocks decoded and CRC-32C computed by sluice's
  // hand-written kernel (lib/codecs/wasm/snappy.wat); encoders are TypeScript in both.
  snappy: { js: () => import('./codecs/snappy.js').then((m) => m.snappy), wasm: () => snappyWasm().then((m) => m.snappy) },
  'snappy-raw': { js: () => import('./codecs/snappy.js').then((m) => m.snappyRaw), wasm: () => snappyWasm().then((m) => m.snappyRaw) },
  zstd: { wasm: (role) => import('./codecs/zstd.js').then((m) => m.loadZstd(role)), node: nodeEngine('zstd') },
  brotli: { wasm: (role) => import('./codecs/brotli.js').then((m) => m.loadBrotli(role)), node: nodeEngine('brotli') },
  // RFC 9842: a header, then zstd / brotli with the dictionary as raw content.
  dcz: { wasm: (role) => Promise.all([import('./codecs/dictionary-transport.js'), import('./codecs/zstd.js').then((m) => m.loadZstd(role))]).then(([t, inner]) => t.transportModule('dcz', inner)) },
  dcb: {
    wasm: (role) => Promise.all([import('./codecs/dictionary-transport.js'), import('./codecs/brotli.js').then((m) => m.loadBrotli(role))]).then(([t, inner]) => t.transportModule('dcb', inner)),
  },
}

const loaded = new Map<string, Promise<CodecModule>>()

/**
 * Loads (once) and returns the codec module of `format` on `engine`. With a `role`, an
 * engine that has separate decoder and encoder builds (zstd, brotli) loads only that one, and
 * the module may refuse to create the other kind. Await the module's `prepare?.(role,
 * options)` before creating a codec from it: some options load more there (LZ4 levels
 * 3 to 12 load LZ4 HC).
 */
export function loadCodec(format: Format, engine: Engine, role?: Role): Promise<CodecModule> {
  const key = `${format}/${engine}/${role ?? 'both'}`
  let p = loaded.get(key)
  if (!p) {
    const loader = loaders[checkFormat(format)][engine]
    if (!loader) return Promise.reject(new CodecError('INVALID_OPTION', format, `engine '${engine}' is not available for this format`))
    p = loader(role)
    // A failed load (e.g. engine unavailable) is not cached, so a later call retries.
    p.catch(() => loaded.delete(key))
    loaded.set(key, p)
  }
  return p
}

/**
 * Loads the engine of checked options and creates the codec, handing it to `use`. The
 * transports' SHA-256 of the dictionary is computed here (WebCrypto is asynchronous).
 */
export async function openCodec(format: Format, role: Role, checked: CheckedOptions, use: (codec: Decoder | Encoder) => void): Promise<void> {
  const pass = { ...checked.codec }
  if (isDictionaryTransport(format)) await addDictionaryDigest(format, pass)
  const mod = await loadCodec(format, checked.engine, role)
  await mod.prepare?.(role, pass)
  use(role === 'decode' ? mod.createDecoder(pass) : mod.createEncoder(pass))
}

/**
 * Creates a span decoder for `format`, loading its engine on first use. Options are
 * checked before anything loads (a bad one rejects with `INVALID_OPTION`).
 */
export async function createDecoder<F extends Format>(format: F, options: CodecOptions<F, 'decode'> = {} as CodecOptions<F, 'decode'>): Promise<Decoder> {
  const checked = checkOptions(format, 'decode', options)
  let codec: Decoder | null = null
  await openCodec(format, 'decode', checked, (c) => (codec = c as Decoder))
  return codec!
}

/**
 * Creates a span encoder for `format`, loading its engine on first use. Options are
 * checked before anything loads (a bad one rejects with `INVALID_OPTION`).
 */
export async function createEncoder<F extends Format>(format: F, options: CodecOptions<F, 'encode'> = {} as CodecOptions<F, 'encode'>): Promise<Encoder> {
  const checked = checkOptions(format, 'encode', options)
  let codec: Encoder | null = null
  await openCodec(format, 'encode', checked, (c) => (codec = c as Encoder))
  return codec!
}
