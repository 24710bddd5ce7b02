/**
 * `sluice/hyparquet`: decompressors for hyparquet's `compressors` option, built on this
 * library's span codecs.
 *
 * ```ts
 * import { parquetReadObjects } from 'hyparquet'
 * import { loadParquetCompressors } from 'sluice/hyparquet'
 * const rows = await parquetReadObjects({ file, compressors: await loadParquetCompressors() })
 * ```
 *
 * hyparquet calls a decompressor synchronously, once per page, as
 * `(input, outputLength) => Uint8Array` and rejects a result whose length is not
 * `outputLength` (hyparquet src/datapage.js `decompressPage`). Our zstd and brotli
 * engines are WebAssembly that loads asynchronously, so the engines load first in
 * `loadParquetCompressors()`; after that every function is synchronous. The exported
 * `parquetCompressors` object is the same one that a call without options returns: it
 * can be passed around synchronously, and its functions throw `INVALID_OPTION` (a call
 * that breaks the API contract) until that first load has finished.
 *
 * SNAPPY is decoded by this library's raw Snappy decoder ('snappy-raw': engine 'wasm',
 * sluice's hand-written WebAssembly kernel, by default; 'js': TypeScript; docs/snappy.md),
 * not hyparquet's own: the block's varint preamble must
 * state exactly `outputLength` bytes.
 *
 * `loadParquetWriterCompressors()` gives the other direction, compressors for
 * hyparquet-writer's `compressors` option.
 *
 * Each function decodes into exactly `outputLength` bytes (one allocation, of that size),
 * reusing one decoder per format with `reset()`. A page that decodes to more or fewer
 * bytes, corrupt data, truncated data and trailing bytes are `CodecError`s.
 *
 * @module sluice/hyparquet
 */
import type { Decoder, Format } from '../../lib/codec.js'
import { CodecError } from '../../lib/errors.js'
import type { Engine } from '../../lib/formats.js'
import { DEFAULT_MAX_OUTPUT_BYTES, mostDecodedBytes, resolveEngine } from '../../lib/codec-options.js'
import { checkKeys } from '../../lib/options.js'
import { decodeInto } from '../../lib/decode-buffer.js'
import { loadCodec, type CodecModule } from '../../lib/registry.js'
import { mostSnappyDecoded } from '../../lib/codecs/snappy-block.js'
import { Status, statusName } from '../../lib/status.js'

/** The Parquet codec names this adapter decodes (parquet.thrift `CompressionCodec`). */
export type ParquetCodec = 'SNAPPY' | 'GZIP' | 'ZSTD' | 'BROTLI' | 'LZ4' | 'LZ4_RAW'

/** hyparquet's decompressor signature (hyparquet src/types.d.ts `Compressors`). */
export type ParquetDecompressor = (input: Uint8Array, outputLength: number) => Uint8Array

/** hyparquet's `compressors` option: a decompressor per Parquet codec. */
export type ParquetCompressors = Readonly<Record<ParquetCodec, ParquetDecompressor>>

/** Options of `loadParquetCompressors()`. */
export interface ParquetCompressorsOptions {
  /**
   * Engine per codec family: `gzip` ('wasm' | 'js' | 'node'), `zstd`
   * ('wasm' | 'node'), `brotli` ('wasm' | 'node'), `lz4` ('js' | 'wasm', for LZ4 and
   * LZ4_RAW), `snappy` ('js' | 'wasm', default 'wasm'). Defaults are the registry's
   * defaults.
   */
  engines?: {
    /** GZIP pages: `'wasm'`, `'js'` or `'node'`. */
    gzip?: Engine
    /** ZSTD pages: `'wasm'` or `'node'`. */
    zstd?: Engine
    /** BROTLI pages: `'wasm'` or `'node'`. */
    brotli?: Engine
    /** LZ4 and LZ4_RAW pages: `'wasm'` or `'js'`. */
    lz4?: Engine
    /** SNAPPY pages: `'wasm'` (default) or `'js'`. */
    snappy?: Engine
  }
  /**
   * Which codecs to load; default all six. A codec not loaded throws `INVALID_OPTION`
   * when called, so a reader that only meets ZSTD pages need not load brotli.
   */
  codecs?: readonly ParquetCodec[]
}

const ALL_CODECS: readonly ParquetCodec[] = Object.freeze(['SNAPPY', 'GZIP', 'ZSTD', 'BROTLI', 'LZ4', 'LZ4_RAW'])

/** Which registry formats each Parquet codec decodes through. */
/** The registry formats Parquet's codecs map to (never a dictionary transport). */
type ParquetFormat = Exclude<Format, 'dcz' | 'dcb'>

const FORMATS_OF: Record<ParquetCodec, readonly ParquetFormat[]> = {
  // One raw block (format_description.txt), as Parquet stores a page.
  SNAPPY: ['snappy-raw'],
  // Parquet says GZIP is RFC 1952 gzip; Arrow C++ inflates with windowBits | 32 (gzip or
  // zlib autodetect) and hyparquet-compressors reads a stream without the gzip magic
  // as raw deflate, so all three wrappers are accepted (see `decodeGzipFamily`).
  GZIP: ['gzip', 'deflate', 'deflate-raw'],
  ZSTD: ['zstd'],
  BROTLI: ['brotli'],
  LZ4: ['lz4-block'],
  LZ4_RAW: ['lz4-block'],
}

/** The engine option key of each registry format Parquet uses (no dictionary transports). */
const FAMILY: Record<ParquetFormat, keyof NonNullable<ParquetCompressorsOptions['engines']>> = {
  gzip: 'gzip',
  deflate: 'gzip',
  'deflate-raw': 'gzip',
  zstd: 'zstd',
  brotli: 'brotli',
  lz4: 'lz4',
  'lz4-block': 'lz4',
  snappy: 'snappy',
  'snappy-raw': 'snappy',
}


/**
 * Decodes all of `input` with `decoder` into `output` exactly. Concatenated frames or
 * members follow each other when the format allows it (gzip members, RFC 1952 section
 * 2.2; zstd frames, RFC 8878 section 3.1); otherwise bytes after the end are an error.
 */
function decodeExact(decoder: Decoder, concatenated: boolean, codec: ParquetCodec, input: Uint8Array, output: Uint8Array): Uint8Array {
  decodeInto(decoder, input, output, {
    format: decoder.format,
    what: 'page',
    declaredBy: 'its header',
    base: 0,
    concatenated,
    context: ` (${codec} page, ${input.length} compressed bytes, ${output.length} expected)`,
  })
  return output
}

/** Loaded codec modules and their decoders (created on first use, then reused). */
class CodecSet {
  private readonly modules = new Map<Format, CodecModule>()
  private readonly decoders = new Map<Format, Decoder>()

  constructor(private readonly loadedCodecs: ReadonlySet<ParquetCodec>) {}

  add(format: Format, module: CodecModule): void {
    this.modules.set(format, module)
  }

  private module(codec: ParquetCodec, format: Format): CodecModule {
    const m = this.modules.get(format)
    if (!m || !this.loadedCodecs.has(codec)) {
      const how = this.loadedCodecs.has(codec) ? 'await loadParquetCompressors() before reading' : `add '${codec}' to the codecs option of loadParquetCompressors()`
      throw new CodecError('INVALID_OPTION', format, `the ${codec} decompressor is not loaded: ${how}`)
    }
    return m
  }

  /** The reused decoder of a format that has no per-call options. */
  decoder(codec: ParquetCodec, format: Format): Decoder {
    let d = this.decoders.get(format)
    if (!d) {
      d = this.module(codec, format).createDecoder({ maxOutputBytes: Infinity })
      this.decoders.set(format, d)
    }
    return d
  }

  /**
   * A raw LZ4 block decoder for one block of `outputSize` bytes. The registry's
   * lz4-block decoder takes the block size as a construction option (the format
   * stores no sizes), so it cannot be reused across sizes with `reset()`; it is a
   * small object that decodes straight into the destination when that has room.
   */
  blockDecoder(codec: ParquetCodec, outputSize: number): Decoder {
    return this.module(codec, 'lz4-block').createDecoder({ outputSize, maxOutputBytes: Infinity })
  }
}

/** The format named in errors raised before a decoder runs. */
const ERROR_FORMAT: Record<ParquetCodec, string> = { SNAPPY: 'snappy-raw', GZIP: 'gzip', ZSTD: 'zstd', BROTLI: 'brotli', LZ4: 'lz4-block', LZ4_RAW: 'lz4-block' }

/**
 * Checks `outputLength` (the page header's `uncompressed_page_size`, untrusted) and the
 * plausibility of the ratio, then allocates the output. Empty input is accepted only
 * for an empty page (it then decodes to nothing): like Arrow IPC writers with empty
 * buffers (Java writers), a writer may skip compressing an empty page, and
 * hyparquet itself notes that "a page with no values may have zero compressed bytes".
 */
function allocate(codec: ParquetCodec, input: Uint8Array, outputLength: number): Uint8Array {
  const format = ERROR_FORMAT[codec]
  if (!Number.isInteger(outputLength) || outputLength < 0 || outputLength > DEFAULT_MAX_OUTPUT_BYTES) {
    throw new CodecError('INVALID_DATA', format, `uncompressed page size ${String(outputLength)} is not an integer from 0 to ${DEFAULT_MAX_OUTPUT_BYTES} (${codec} page)`)
  }
  const max = codec === 'SNAPPY' ? mostSnappyDecoded(input.length) : mostDecodedBytes(format as Format, input.length)
  if (outputLength > max) {
    throw new CodecError('INVALID_DATA', format, `uncompressed page size ${outputLength} is more than ${input.length} compressed bytes can hold (at most ${max}) (${codec} page)`)
  }
  if (input.length === 0 && outputLength !== 0) {
    throw new CodecError('TRUNCATED', format, `empty ${codec} page, its header declares ${outputLength} bytes`, 0)
  }
  return new Uint8Array(outputLength)
}

/**
 * gzip (magic 1f 8b), else zlib (a valid RFC 1950 header: CM 8, CINFO <= 7, FCHECK,
 * no preset dictionary), else raw deflate. A raw deflate stream can begin with bytes
 * that pass the zlib header check only if its first block is a stored block whose
 * LEN/NLEN happen to fit too; no writer produces that for Parquet.
 */
function decodeGzipFamily(set: CodecSet, input: Uint8Array, output: Uint8Array): Uint8Array {
  const b0 = input[0] ?? 0
  const b1 = input[1] ?? 0
  let format: Format
  if (b0 === 0x1f && b1 === 0x8b) format = 'gzip'
  else if (input.length >= 2 && (b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0 && (b1 & 0x20) === 0) format = 'deflate'
  else format = 'deflate-raw'
  return decodeExact(set.decoder('GZIP', format), format === 'gzip', 'GZIP', input, output)
}

/** Reads a big-endian unsigned 32-bit integer. */
const readU32BE = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0

/**
 * Parquet's LZ4 codec as written by parquet-mr (Hadoop `Lz4Codec`): blocks of a 4-byte
 * big-endian decoded length, a 4-byte big-endian compressed length and a raw LZ4 block.
 * Older parquet-cpp wrote a bare raw block under the same codec id, so, like Arrow C++
 * (`Lz4HadoopCodec::Decompress`, cpp/src/arrow/util/compression_lz4.cc) and
 * hyparquet-compressors, when the framing does not fit exactly (a length out of range,
 * a block that fails or decodes to another size, bytes left over, a total other than
 * `outputLength`) the whole page is decoded as one raw block.
 * https://issues.apache.org/jira/browse/PARQUET-1878
 */
function decodeLz4Hadoop(set: CodecSet, input: Uint8Array, output: Uint8Array): Uint8Array {
  const why = tryHadoop(set, input, output)
  if (why === null) return output
  try {
    return decodeExact(set.blockDecoder('LZ4', output.length), false, 'LZ4', input, output)
  } catch (error) {
    if (error instanceof CodecError && error.code !== 'INVALID_OPTION') {
      throw new CodecError(error.code, error.format, `neither Hadoop-framed (${why}) nor one raw block (${error.message})`, error.offset, { cause: error })
    }
    throw error
  }
}

/** Decodes Hadoop-framed LZ4 into `output`; null on success, else why it does not fit. */
function tryHadoop(set: CodecSet, input: Uint8Array, output: Uint8Array): string | null {
  let ip = 0
  let op = 0
  if (input.length < 8) return `${input.length} bytes cannot hold a block header`
  while (input.length - ip >= 8) {
    const decodedLength = readU32BE(input, ip)
    const compressedLength = readU32BE(input, ip + 4)
    ip += 8
    if (compressedLength > input.length - ip) return `block at ${ip - 8} claims ${compressedLength} compressed bytes, ${input.length - ip} remain`
    if (decodedLength > output.length - op) return `block at ${ip - 8} claims ${decodedLength} decoded bytes, ${output.length - op} remain`
    const block = set.blockDecoder('LZ4', decodedLength)
    const status = block.transform(input.subarray(ip, ip + compressedLength), output.subarray(op, op + decodedLength), true)
    if (status !== Status.Done || block.written !== decodedLength) return `block at ${ip - 8}: ${block.failure?.message ?? statusName(status)}`
    ip += compressedLength
    op += decodedLength
  }
  if (ip !== input.length) return `${input.length - ip} bytes left after the last block`
  if (op !== output.length) return `blocks decode to ${op} bytes, ${output.length} expected`
  return null
}

/**
 * hyparquet's decompressor for `codec`: the page's output allocated (after `allocate`'s
 * checks), then `decode` of the input into it; an empty page decodes to nothing.
 */
const page =
  (codec: ParquetCodec, decode: (input: Uint8Array, output: Uint8Array) => Uint8Array): ParquetDecompressor =>
  (input, outputLength) => {
    const output = allocate(codec, input, outputLength)
    return input.length === 0 ? output : decode(input, output)
  }

function buildCompressors(set: CodecSet): ParquetCompressors {
  return Object.freeze({
    SNAPPY: page('SNAPPY', (input, output) => decodeExact(set.decoder('SNAPPY', 'snappy-raw'), false, 'SNAPPY', input, output)),
    GZIP: page('GZIP', (input, output) => decodeGzipFamily(set, input, output)),
    ZSTD: page('ZSTD', (input, output) => decodeExact(set.decoder('ZSTD', 'zstd'), true, 'ZSTD', input, output)),
    BROTLI: page('BROTLI', (input, output) => decodeExact(set.decoder('BROTLI', 'brotli'), false, 'BROTLI', input, output)),
    LZ4: page('LZ4', (input, output) => decodeLz4Hadoop(set, input, output)),
    LZ4_RAW: page('LZ4_RAW', (input, output) => decodeExact(set.blockDecoder('LZ4_RAW', output.length), false, 'LZ4_RAW', input, output)),
  })
}

async function load(set: CodecSet, options: ParquetCompressorsOptions, codecs: readonly ParquetCodec[]): Promise<void> {
  const engines = options.engines ?? {}
  const formats = new Set<ParquetFormat>()
  for (const codec of codecs) for (const f of FORMATS_OF[codec]) formats.add(f)
  // Resolve all engines first, so a bad option throws before anything loads.
  const jobs = [...formats].map((format) => [format, resolveEngine(format, engines[FAMILY[format]])] as const)
  await Promise.all(jobs.map(async ([format, engine]) => set.add(format, await loadCodec(format, engine, 'decode'))))
}

function checkCodecs(codecs: unknown): readonly ParquetCodec[] {
  if (codecs === undefined) return ALL_CODECS
  if (!Array.isArray(codecs) || !codecs.every((c) => (ALL_CODECS as readonly unknown[]).includes(c))) {
    throw new CodecError('INVALID_OPTION', 'parquet', `codecs must be an array of ${ALL_CODECS.join(', ')}, got ${JSON.stringify(codecs)}`)
  }
  return codecs as ParquetCodec[]
}

const defaultSet = new CodecSet(new Set(ALL_CODECS))
let defaultLoad: Promise<void> | null = null

/**
 * The decompressors with the registry's default engines. Synchronous; usable once
 * `loadParquetCompressors()` (without options) has resolved, before that every
 * function throws `CodecError('INVALID_OPTION')` saying so.
 */
export const parquetCompressors: ParquetCompressors = buildCompressors(defaultSet)

/**
 * Loads the engines and returns hyparquet decompressors. Without options this is
 * `parquetCompressors` (loaded once, shared); with options, a new object with its own
 * decoders. Unknown engines or codecs reject with `CodecError('INVALID_OPTION')`.
 */
export async function loadParquetCompressors(options?: ParquetCompressorsOptions): Promise<ParquetCompressors> {
  checkKeys('parquet', options, ['engines', 'codecs'] satisfies (keyof ParquetCompressorsOptions)[])
  if (options?.engines !== undefined) checkKeys('parquet', options.engines, [...new Set(Object.values(FAMILY))], 'engine family')
  if (options === undefined || (options.engines === undefined && options.codecs === undefined)) {
    // A failed load (engine unavailable) is not kept, so a later call retries.
    defaultLoad ??= load(defaultSet, {}, ALL_CODECS).catch((error: unknown) => {
      defaultLoad = null
      throw error
    })
    await defaultLoad
    return parquetCompressors
  }
  const codecs = checkCodecs(options.codecs)
  const set = new CodecSet(new Set(codecs))
  await load(set, options, codecs)
  return buildCompressors(set)
}

export { loadParquetWriterCompressors, type ParquetCompressor, type ParquetWriterCodec, type ParquetWriterCompressors, type ParquetWriterCompressorsOptions } from './writer.js'
