/**
 * Compressors for hyparquet-writer's `compressors` option (`sluice/hyparquet`'s
 * `loadParquetWriterCompressors()`).
 *
 * ```ts
 * import { parquetWriteBuffer } from 'hyparquet-writer'
 * import { loadParquetWriterCompressors } from 'sluice/hyparquet'
 * const compressors = await loadParquetWriterCompressors({ levels: { ZSTD: 9 } })
 * const file = parquetWriteBuffer({ columnData, codec: 'ZSTD', compressors })
 * ```
 *
 * hyparquet-writer calls a compressor synchronously, once per page, as
 * `(input) => Uint8Array`, and writes the page uncompressed (under the codec's name)
 * when one returns `undefined` (hyparquet-writer src/datapage.js:
 * `compressors[codec]?.(pageBytes) ?? pageBytes`). Ours never return `undefined`: a
 * page that cannot be compressed throws a `CodecError`. The engines (zstd and brotli
 * are WebAssembly) load in `loadParquetWriterCompressors()`; after that every function
 * is synchronous. Each codec reuses one encoder with `reset()`.
 *
 * Output is what Parquet readers expect (parquet-format Compression.md): SNAPPY one raw
 * Snappy block, GZIP one gzip member (RFC 1952), ZSTD one zstd frame, BROTLI one brotli
 * stream, LZ4_RAW one raw LZ4 block.
 */
import type { Encoder, Format } from '../../lib/codec.js'
import { createSnappyTable, encodeBlock, maxCompressedLength } from '../../lib/codecs/snappy-block.js'
import { CodecError } from '../../lib/errors.js'
import type { Engine } from '../../lib/formats.js'
import { checkLevel, resolveEngine } from '../../lib/codec-options.js'
import { loadCodec, type CodecModule } from '../../lib/registry.js'
import { Status, statusName } from '../../lib/status.js'

/** The Parquet codecs this adapter compresses (parquet.thrift `CompressionCodec`). */
export type ParquetWriterCodec = 'SNAPPY' | 'GZIP' | 'ZSTD' | 'BROTLI' | 'LZ4_RAW'

/** hyparquet-writer's compressor signature (hyparquet-writer src/types.d.ts `Compressor`). */
export type ParquetCompressor = (input: Uint8Array) => Uint8Array

/**
 * What `loadParquetWriterCompressors()` returns, hyparquet-writer's `compressors` option:
 * one synchronous compressor per codec, keyed by parquet.thrift `CompressionCodec` name
 * (frozen). A codec left out of the `codecs` option throws `INVALID_OPTION` when called.
 */
export type ParquetWriterCompressors = Readonly<Record<ParquetWriterCodec, ParquetCompressor>>

/** Options of `loadParquetWriterCompressors()`; unknown keys are `INVALID_OPTION`. */
export interface ParquetWriterCompressorsOptions {
  /**
   * Level per codec, in the format's range: GZIP 0-9 (default 6), ZSTD 1-19 (3), BROTLI
   * 0-11 (5), LZ4_RAW 1-12 (1). Snappy has no levels.
   */
  levels?: {
    /** gzip level, 0 (stored) to 9; default 6. */
    GZIP?: number
    /** zstd level, 1 to 19; default 3. */
    ZSTD?: number
    /** brotli quality, 0 to 11; default 5. */
    BROTLI?: number
    /** LZ4 level, 1 (fast) to 12 (high compression); default 1. */
    LZ4_RAW?: number
  }
  /**
   * Engine per codec family, as for `loadParquetCompressors()`: `gzip` ('js' | 'wasm' |
   * 'node'), `zstd` ('wasm' | 'node'), `brotli` ('wasm' | 'node'), `lz4` ('js' | 'wasm').
   * SNAPPY is compressed in TypeScript.
   */
  engines?: {
    /** Engine of the GZIP compressor: 'js', 'wasm' or 'node'; default the gzip format's. */
    gzip?: Engine
    /** Engine of the ZSTD compressor: 'wasm' or 'node'; default the zstd format's. */
    zstd?: Engine
    /** Engine of the BROTLI compressor: 'wasm' or 'node'; default the brotli format's. */
    brotli?: Engine
    /** Engine of the LZ4_RAW compressor: 'js' or 'wasm'; default the lz4-block format's. */
    lz4?: Engine
  }
  /** Which codecs to load; default all five. A codec not loaded throws `INVALID_OPTION` when called. */
  codecs?: readonly ParquetWriterCodec[]
}

const ALL_CODECS: readonly ParquetWriterCodec[] = Object.freeze(['SNAPPY', 'GZIP', 'ZSTD', 'BROTLI', 'LZ4_RAW'])

/** The registry format and engine family of each codec compressed through the registry. */
const FORMAT_OF: Record<Exclude<ParquetWriterCodec, 'SNAPPY'>, readonly [Format, 'gzip' | 'zstd' | 'brotli' | 'lz4']> = {
  GZIP: ['gzip', 'gzip'],
  ZSTD: ['zstd', 'zstd'],
  BROTLI: ['brotli', 'brotli'],
  LZ4_RAW: ['lz4-block', 'lz4'],
}

const OPTION_KEYS = ['levels', 'engines', 'codecs']

/**
 * Encodes all of `input` with `encoder` (reset first) into one buffer that starts at the
 * input's size plus 1/8 (what a page that does not compress needs) and doubles when a
 * page needs more.
 */
function encodeWhole(encoder: Encoder, codec: ParquetWriterCodec, input: Uint8Array): Uint8Array {
  encoder.reset()
  let out = new Uint8Array(input.length + (input.length >>> 3) + 1024)
  let n = 0
  let src = input
  for (;;) {
    const status = encoder.transform(src, out.subarray(n), true)
    n += encoder.written
    src = src.subarray(encoder.consumed)
    if (status === Status.Done) break
    if (status !== Status.DestinationTooSmall) {
      const f = encoder.failure
      throw new CodecError(f?.code ?? 'INVALID_DATA', encoder.format, `${codec} page of ${input.length} bytes: ${f?.message ?? statusName(status)}`)
    }
    const grown = new Uint8Array(out.length * 2)
    grown.set(out.subarray(0, n))
    out = grown
  }
  // A view when it fills most of its buffer, else a copy that does not pin the rest.
  return n * 2 >= out.length ? out.subarray(0, n) : out.slice(0, n)
}

/** SNAPPY pages: one raw block (hyparquet-writer's own default codec, here compressed by ours). */
function snappyCompressor(): ParquetCompressor {
  const table = createSnappyTable()
  return (input) => {
    if (input.length >= 2 ** 32) throw new CodecError('LIMIT_EXCEEDED', 'snappy-raw', `SNAPPY page of ${input.length} bytes: a Snappy block holds less than 2^32 (the format's limit, not an option)`)
    const out = new Uint8Array(maxCompressedLength(input.length))
    const n = encodeBlock(input, 0, input.length, out, 0, table)
    return n * 2 >= out.length ? out.subarray(0, n) : out.slice(0, n)
  }
}

function checkOptions(options: ParquetWriterCompressorsOptions): readonly ParquetWriterCodec[] {
  if (typeof options !== 'object' || options === null) throw new CodecError('INVALID_OPTION', 'parquet', `options must be an object, got ${String(options)}`)
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) throw new CodecError('INVALID_OPTION', 'parquet', `unknown option ${JSON.stringify(key)}; expected ${OPTION_KEYS.join(', ')}`)
  }
  const { codecs, levels = {} } = options
  for (const key of Object.keys(levels)) {
    if (!(key in FORMAT_OF)) throw new CodecError('INVALID_OPTION', 'parquet', `levels.${key}: no level for this codec; levels are for ${Object.keys(FORMAT_OF).join(', ')}`)
  }
  if (codecs === undefined) return ALL_CODECS
  if (!Array.isArray(codecs) || !codecs.every((c) => (ALL_CODECS as readonly unknown[]).includes(c))) {
    throw new CodecError('INVALID_OPTION', 'parquet', `codecs must be an array of ${ALL_CODECS.join(', ')}, got ${JSON.stringify(codecs)}`)
  }
  return codecs
}

/**
 * Loads the engines and returns compressors for hyparquet-writer: synchronous
 * `(input) => Uint8Array` per codec, each reusing one encoder. Bad options (an unknown
 * key, a level out of range, an engine the format lacks) reject with
 * `CodecError('INVALID_OPTION')` before anything loads.
 */
export async function loadParquetWriterCompressors(options: ParquetWriterCompressorsOptions = {}): Promise<ParquetWriterCompressors> {
  const codecs = checkOptions(options)
  const levels = options.levels ?? {}
  const engines = options.engines ?? {}
  const jobs = codecs.flatMap((codec) => {
    if (codec === 'SNAPPY') return []
    const [format, family] = FORMAT_OF[codec]
    const level = checkLevel(format, levels[codec])
    return [{ codec, format, level, engine: resolveEngine(format, engines[family]) }]
  })
  // prepare(): LZ4 levels 3 to 12 load LZ4 HC.
  const modules = await Promise.all(
    jobs.map(async (j) => {
      const mod = await loadCodec(j.format, j.engine, 'encode')
      await mod.prepare?.('encode', { level: j.level })
      return mod
    }),
  )
  const made: Partial<Record<ParquetWriterCodec, ParquetCompressor>> = {}
  jobs.forEach((j, i) => {
    const mod: CodecModule = modules[i]!
    let encoder: Encoder | null = null
    made[j.codec] = (input) => encodeWhole((encoder ??= mod.createEncoder({ level: j.level })), j.codec, input)
  })
  if (codecs.includes('SNAPPY')) made.SNAPPY = snappyCompressor()
  const notLoaded = (codec: ParquetWriterCodec): ParquetCompressor => () => {
    throw new CodecError('INVALID_OPTION', 'parquet', `the ${codec} compressor is not loaded: add '${codec}' to the codecs option of loadParquetWriterCompressors()`)
  }
  return Object.freeze({
    SNAPPY: made.SNAPPY ?? notLoaded('SNAPPY'),
    GZIP: made.GZIP ?? notLoaded('GZIP'),
    ZSTD: made.ZSTD ?? notLoaded('ZSTD'),
    BROTLI: made.BROTLI ?? notLoaded('BROTLI'),
    LZ4_RAW: made.LZ4_RAW ?? notLoaded('LZ4_RAW'),
  })
}
