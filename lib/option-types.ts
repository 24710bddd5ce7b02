/**
 * The codecs' option types by name, one per format and role (`ZstdEncodeOptions`,
 * `GzipDecodeOptions`, ...), so that editors and the API reference show and link a named
 * type where a function takes a format's options. Each is derived from the format table's
 * schema (the row's `options` in formats.ts, with the role's `COMMON_OPTIONS` and, for
 * the machine-driven surfaces, `MACHINE_OPTIONS` in codec-options.ts): an option is added
 * to the schema, never here. Only the names are written out; the checks at the end stop
 * the build when a format has no named type or a named type is not its row's.
 *
 * Types only: nothing here reaches a bundle.
 */
import type { Role } from './codec.js'
import type { COMMON_OPTIONS, MACHINE_OPTIONS } from './codec-options.js'
import type { Format, FORMAT_TABLE } from './formats.js'
import type { OptionsOf } from './options.js'

type Table = typeof FORMAT_TABLE

/** A format's options of a role as its row's schema gives them: the role's common ones and the format's own. */
type Derived<F extends Format, R extends Role> = OptionsOf<(typeof COMMON_OPTIONS)[R]> & OptionsOf<Table[F]['options'][R]>

/** gzip decoders (RFC 1952): `engine`, `maxOutputBytes`. */
export interface GzipDecodeOptions extends Derived<'gzip', 'decode'> {}
/** gzip encoders (RFC 1952): `engine`, `level`, `fullFlush`, `bgzf` (BGZF, as `bgzip` writes). */
export interface GzipEncodeOptions extends Derived<'gzip', 'encode'> {}
/** zlib decoders (RFC 1950, `'deflate'`): `engine`, `maxOutputBytes`, `dictionary`. */
export interface DeflateDecodeOptions extends Derived<'deflate', 'decode'> {}
/** zlib encoders (RFC 1950, `'deflate'`): `engine`, `level`, `dictionary` (FDICT), `fullFlush`. */
export interface DeflateEncodeOptions extends Derived<'deflate', 'encode'> {}
/** Raw deflate decoders (RFC 1951, `'deflate-raw'`): `engine`, `maxOutputBytes`, `dictionary` (the initial window). */
export interface DeflateRawDecodeOptions extends Derived<'deflate-raw', 'decode'> {}
/** Raw deflate encoders (RFC 1951, `'deflate-raw'`): `engine`, `level`, `dictionary`, `fullFlush`. */
export interface DeflateRawEncodeOptions extends Derived<'deflate-raw', 'encode'> {}
/** LZ4 frame decoders: `engine`, `maxOutputBytes`. */
export interface Lz4DecodeOptions extends Derived<'lz4', 'decode'> {}
/** LZ4 frame encoders: `engine`, `level`, the frame's `blockSize`, `blockChecksum`, `contentChecksum`, `blockIndependence`, `contentSize`. */
export interface Lz4EncodeOptions extends Derived<'lz4', 'encode'> {}
/** Raw LZ4 block decoders (`'lz4-block'`): `outputSize` (required: a block does not record it), `engine`, `maxOutputBytes`. */
export interface Lz4BlockDecodeOptions extends Derived<'lz4-block', 'decode'> {}
/** Raw LZ4 block encoders (`'lz4-block'`): `engine`, `level`. */
export interface Lz4BlockEncodeOptions extends Derived<'lz4-block', 'encode'> {}
/** zstd decoders (RFC 8878): `engine`, `maxOutputBytes`, `dictionary`, `maxWindowLog`, `maxWindowBytes`, `dictionaryType`. */
export interface ZstdDecodeOptions extends Derived<'zstd', 'decode'> {}
/**
 * zstd encoders (RFC 8878): `engine`, `level`, `dictionary`, `checksum`, `contentSize`,
 * `windowLog`, `long`, `seekable` and `frameSize` (the seekable format), `dictionaryType`.
 */
export interface ZstdEncodeOptions extends Derived<'zstd', 'encode'> {}
/** brotli decoders (RFC 7932): `engine`, `maxOutputBytes`, `dictionary`. */
export interface BrotliDecodeOptions extends Derived<'brotli', 'decode'> {}
/** brotli encoders (RFC 7932): `engine`, `level` (quality), `dictionary`, `lgwin`. */
export interface BrotliEncodeOptions extends Derived<'brotli', 'encode'> {}
/** RFC 9842 `'dcz'` decoders: `dictionary` (required), `maxOutputBytes`, `maxWindowLog`. */
export interface DczDecodeOptions extends Derived<'dcz', 'decode'> {}
/** RFC 9842 `'dcz'` encoders: `dictionary` (required), `level`, `checksum`, `contentSize`, `windowLog`. */
export interface DczEncodeOptions extends Derived<'dcz', 'encode'> {}
/** RFC 9842 `'dcb'` decoders: `dictionary` (required), `maxOutputBytes`. */
export interface DcbDecodeOptions extends Derived<'dcb', 'decode'> {}
/** RFC 9842 `'dcb'` encoders: `dictionary` (required), `level` (quality), `lgwin`. */
export interface DcbEncodeOptions extends Derived<'dcb', 'encode'> {}
/** Snappy framing format decoders: `engine`, `maxOutputBytes`. */
export interface SnappyDecodeOptions extends Derived<'snappy', 'decode'> {}
/** Snappy framing format encoders: `engine` (Snappy has no levels but 1). */
export interface SnappyEncodeOptions extends Derived<'snappy', 'encode'> {}
/** Raw Snappy block decoders (`'snappy-raw'`): `engine`, `maxOutputBytes`. */
export interface SnappyRawDecodeOptions extends Derived<'snappy-raw', 'decode'> {}
/** Raw Snappy block encoders (`'snappy-raw'`): `engine`. */
export interface SnappyRawEncodeOptions extends Derived<'snappy-raw', 'encode'> {}

/** Each format's decoder options by name: `decode(format, …)` and the decoders of `format` take `DecodeOptionsByFormat[format]`. */
export interface DecodeOptionsByFormat {
  /** {@link GzipDecodeOptions} */
  gzip: GzipDecodeOptions
  /** {@link DeflateDecodeOptions} */
  deflate: DeflateDecodeOptions
  /** {@link DeflateRawDecodeOptions} */
  'deflate-raw': DeflateRawDecodeOptions
  /** {@link Lz4DecodeOptions} */
  lz4: Lz4DecodeOptions
  /** {@link Lz4BlockDecodeOptions} */
  'lz4-block': Lz4BlockDecodeOptions
  /** {@link ZstdDecodeOptions} */
  zstd: ZstdDecodeOptions
  /** {@link BrotliDecodeOptions} */
  brotli: BrotliDecodeOptions
  /** {@link DczDecodeOptions} */
  dcz: DczDecodeOptions
  /** {@link DcbDecodeOptions} */
  dcb: DcbDecodeOptions
  /** {@link SnappyDecodeOptions} */
  snappy: SnappyDecodeOptions
  /** {@link SnappyRawDecodeOptions} */
  'snappy-raw': SnappyRawDecodeOptions
}

/** Each format's encoder options by name: `encode(format, …)` and the encoders of `format` take `EncodeOptionsByFormat[format]`. */
export interface EncodeOptionsByFormat {
  /** {@link GzipEncodeOptions} */
  gzip: GzipEncodeOptions
  /** {@link DeflateEncodeOptions} */
  deflate: DeflateEncodeOptions
  /** {@link DeflateRawEncodeOptions} */
  'deflate-raw': DeflateRawEncodeOptions
  /** {@link Lz4EncodeOptions} */
  lz4: Lz4EncodeOptions
  /** {@link Lz4BlockEncodeOptions} */
  'lz4-block': Lz4BlockEncodeOptions
  /** {@link ZstdEncodeOptions} */
  zstd: ZstdEncodeOptions
  /** {@link BrotliEncodeOptions} */
  brotli: BrotliEncodeOptions
  /** {@link DczEncodeOptions} */
  dcz: DczEncodeOptions
  /** {@link DcbEncodeOptions} */
  dcb: DcbEncodeOptions
  /** {@link SnappyEncodeOptions} */
  snappy: SnappyEncodeOptions
  /** {@link SnappyRawEncodeOptions} */
  'snappy-raw': SnappyRawEncodeOptions
}

/**
 * The options a span codec of `format` takes for role `R` (`createDecoder`,
 * `createEncoder`): {@link DecodeOptionsByFormat}`[F]` or {@link EncodeOptionsByFormat}`[F]`,
 * the common options and the format's own. For several formats at once (`Format`), any
 * of theirs.
 */
export type CodecOptions<F extends Format, R extends Role> = R extends 'encode' ? EncodeOptionsByFormat[F] : DecodeOptionsByFormat[F]

/** A union's members as one intersection. */
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never

/**
 * Decoder options when the format is chosen later (`decompress()` detects it): the common
 * ones and every format's own, none required; each detected format gets its own.
 */
export interface AnyFormatDecodeOptions
  extends OptionsOf<(typeof COMMON_OPTIONS)['decode']>,
    Partial<Omit<OptionsOf<UnionToIntersection<Table[Format]['options']['decode']>>, ZstdShared['decode']>>,
    Partial<Pick<Derived<'zstd', 'decode'>, ZstdShared['decode']>> {}

/**
 * The options 'dcz' shares with 'zstd' (the same schema entries): in the any-format
 * types, declared once, from zstd's row, so that each has one comment.
 */
interface ZstdShared {
  decode: 'maxWindowLog'
  encode: 'checksum' | 'windowLog'
}

/**
 * Encoder options whatever the format (`CompressionStream`): the common ones and every
 * format's own but LZ4's `blockSize` (which block mode's `blockSize` takes the place
 * of), none required.
 */
export interface AnyFormatEncodeOptions
  extends OptionsOf<(typeof COMMON_OPTIONS)['encode']>,
    Partial<Omit<OptionsOf<UnionToIntersection<Table[Format]['options']['encode']>>, 'blockSize' | 'contentSize' | ZstdShared['encode']>>,
    Partial<Pick<Derived<'zstd', 'encode'>, ZstdShared['encode']>> {
  // Declared by zstd's row and LZ4's, each with its comment: one comment here.
  /** The exact number of bytes that will be written, put into the frame header (zstd, LZ4; zstd's on the wasm engine only). */
  contentSize?: number
}

/**
 * Options of the machine that drives a decoder (the streams, the Node adapter):
 * `chunkSize`, `concatenated`, `onProgress`.
 */
export interface DecodeMachineOptions extends OptionsOf<(typeof MACHINE_OPTIONS)['decode']> {}

/**
 * Options of the machine that drives an encoder (the streams, the Node adapter):
 * `chunkSize`, `flush`, `onProgress`.
 */
export interface EncodeMachineOptions extends OptionsOf<(typeof MACHINE_OPTIONS)['encode']> {}

/**
 * The options of a machine-driven codec (streams, Node duplex): the codec's
 * ({@link CodecOptions}) and the machine's ({@link DecodeMachineOptions},
 * {@link EncodeMachineOptions}).
 */
export type MachineCodecOptions<F extends Format, R extends Role> = CodecOptions<F, R> & (R extends 'encode' ? EncodeMachineOptions : DecodeMachineOptions)

// ---------------------------------------------------------------------------------------
// Checks, at compile time: every format has a named type in both maps, no name maps a
// format that is not one, and each named type is exactly its row's (`Derived`).

/** Whether `A` and `B` have the same keys and each is assignable to the other. */
type Same<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? ([A] extends [B] ? ([B] extends [A] ? true : false) : false) : false) : false
type Ok<T extends true> = T
// Not exported: the compiler checks the constraints all the same.
type OptionTypesChecked = [
  Ok<Same<Record<keyof DecodeOptionsByFormat, 0>, Record<Format, 0>>>,
  Ok<Same<Record<keyof EncodeOptionsByFormat, 0>, Record<Format, 0>>>,
  Ok<{ [F in Format]: Same<DecodeOptionsByFormat[F], Derived<F, 'decode'>> }[Format] extends true ? true : false>,
  Ok<{ [F in Format]: Same<EncodeOptionsByFormat[F], Derived<F, 'encode'>> }[Format] extends true ? true : false>,
]
