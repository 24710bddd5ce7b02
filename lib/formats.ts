/**
 * The format table: every fact the rest of the code asks of a format, one row per
 * format (`FORMAT_TABLE` below), and the lookups derived from it. Every list of formats
 * elsewhere is derived from this table: the web classes' names, the HTTP content codings,
 * the dictionary transports, the magic numbers `decompress()` detects, the decoded-size
 * bounds, the option schema each surface checks (codec-options.ts, whose TypeScript types
 * the factories take). Adding a format is adding its row here, its codec module(s) and
 * its loader in registry.ts (ARCHITECTURE.md, "Adding a format").
 *
 * A leaf module: the registry, the codecs, the shells and the adapters import facts from
 * here, never from the module that loads the codecs (which would make every codec depend
 * on every other).
 *
 * Engines (a row's `engines`):
 * - `js`: JavaScript, for pages whose Content-Security-Policy forbids WebAssembly. Our
 *   TypeScript decodes the deflate family (inflate.ts) and codes LZ4 and Snappy; the
 *   deflate family encodes with fflate (a dependency, deflate-fflate.ts). Runs everywhere.
 * - `wasm`: portable WebAssembly. libzstd and brotli, and zlib-ng's deflate (the deflate
 *   family's encoder), compiled from pinned sources (lib/codecs/wasm/engines.json); our
 *   hand-written kernels (lib/codecs/wasm/*.wat): inflate with CRC-32 (the deflate
 *   family's decoder), the LZ4 block codec with xxHash32, Snappy with CRC-32C. Runs
 *   everywhere, incl. workerd.
 * - `node`: `node:zlib` (opt-in; the deflate family, zstd, brotli). Fails with
 *   `ENGINE_UNAVAILABLE` outside Node, or where the running Node lacks the format (zstd
 *   needs Node >= 22.15).
 */
import type { FormatTraits } from './codec.js'
import { CodecError } from './errors.js'
import type { OptionSchema } from './options.js'

/** A codec engine: `'wasm'` (WebAssembly), `'js'` (TypeScript) or `'node'` (node:zlib). */
export type Engine = 'js' | 'wasm' | 'node'

/** Whether a format takes a `dictionary` option. */
export type DictionaryUse = 'none' | 'optional' | 'required'

/** One row of the format table. */
export interface FormatRow {
  /** The engines the format runs on; `defaultEngine` is one of them. */
  readonly engines: readonly Engine[]
  readonly defaultEngine: Engine
  /** Inclusive encoder level range and default. */
  readonly levels: readonly [min: number, max: number, fallback: number]
  readonly traits: FormatTraits
  /** Whether the `dictionary` option is refused, taken, or required. */
  readonly dictionary: DictionaryUse
  /** Why it is refused (`'none'`) or required (`'required'`): the message's reason. */
  readonly dictionaryWhy?: string
  /** Whether its encoders can write a sync point mid-stream (`flush()`, `flush: 'write'`). */
  readonly flushes: boolean
  /**
   * Its name in `CompressionStream`/`DecompressionStream` (the format string), and
   * whether the web class decodes further frames after the first (gzip is one member
   * there, as the Compression Streams standard and browsers have it; zstd and LZ4 are
   * sequences of frames by their own specifications). Absent: not a web format.
   */
  readonly web?: { readonly name: string; readonly concatenated: boolean }
  /**
   * The suffix its files carry, as its reference tool writes them (the `sluice` CLI
   * names outputs and recognises inputs by it). Absent: no file convention.
   */
  readonly suffix?: string
  /**
   * Its HTTP content coding (RFC 9110 section 8.4.1, IANA registry): the token, the
   * level `encodeResponse` uses by default (content made per request: speed over the last
   * percent) and its place in the default offer (1 first).
   */
  readonly http?: {
    readonly coding: string
    readonly level: number
    readonly preference: number
    /** Decoder options the coding implies (`decodeResponse` applies them unless told otherwise). */
    readonly decode?: Readonly<Record<string, unknown>>
  }
  /**
   * An RFC 9842 dictionary transport: the format inside it, the header's magic before the
   * SHA-256 and the RFC section. Its rows take their engines from the inner format's wasm.
   */
  readonly transport?: { readonly inner: string; readonly magic: readonly number[]; readonly section: string }
  /**
   * How `decompress()` recognises it: a magic number at the start (`frames`: also after
   * leading skippable frames, which only zstd and LZ4 have), or the zlib header check
   * (RFC 1950 section 2.2). Transports are recognised by their header (`transport`).
   * `label` names it in the message for unrecognised input.
   */
  readonly detect?: { readonly magic: readonly number[] | 'zlib header'; readonly frames?: boolean; readonly label: string }
  /**
   * The most bytes one compressed byte can decode to, and a constant for headers and the
   * last block (see `mostDecodedBytes`); `null`: no useful bound.
   */
  readonly decodedPerByte: readonly [perByte: number, constant: number] | null
  /**
   * Block mode (issue 22, docs/threads.md): how its encoders cut the input into blocks
   * that encode apart (`threads`, `blockSize`): the family (deflate blocks as pigz writes
   * them, zstd frames, LZ4 independent blocks), the default and smallest `blockSize`
   * (LZ4: its frame's four sizes, `blockSize` being its frame option). Absent: no
   * independent-block form (brotli, the transports, raw blocks, Snappy).
   */
  readonly blocks?: BlockFacts
  /**
   * The format's own options per role, beyond the common ones (`COMMON_OPTIONS`): the
   * run-time check (`checkOptions`) and the TypeScript types (`CodecOptions`) both
   * follow this schema (codec-options.ts).
   */
  readonly options: { readonly decode: OptionSchema; readonly encode: OptionSchema }
  /**
   * Rules between the format's options that no single schema entry says, per role:
   * called by `checkOptions` with the checked options; throws `INVALID_OPTION`.
   */
  readonly rules?: { readonly decode?: (options: Readonly<Record<string, unknown>>) => void; readonly encode?: (options: Readonly<Record<string, unknown>>) => void }
}

/** A format's block mode; see `FormatRow.blocks`. */
export interface BlockFacts {
  readonly family: 'deflate' | 'zstd' | 'lz4'
  readonly fallback: number
  readonly min: number
}

/**
 * Deflate blocks: pigz's default 128 KiB (its `-b 128`), at least 32 KiB (pigz's floor;
 * below it the 32 KiB history each block starts from costs more to copy than the block).
 */
const DEFLATE_BLOCKS: BlockFacts = { family: 'deflate', fallback: 128 * 1024, min: 32 * 1024 }

const MEMBERS: FormatTraits = /* @__PURE__ */ Object.freeze({ concatenable: true })
const SINGLE: FormatTraits = /* @__PURE__ */ Object.freeze({ concatenable: false })
const DEFLATE_ENGINES = ['js', 'wasm', 'node'] as const
const NONE = {} as const

/**
 * zstd's windows (lib/codecs/zstd-window.ts). Decoders accept up to 31, the largest
 * window zstd writes (`zstd --long=31`, ZSTD_WINDOWLOG_MAX_64); the default stays
 * libzstd's ZSTD_WINDOWLOG_LIMIT_DEFAULT, 27 (128 MiB of memory). The wasm engine, a
 * 32-bit libzstd, decodes frames whose window is up to 2^30 (ZSTD_WINDOWLOG_MAX_32) and
 * refuses a 2^31 one with LIMIT_EXCEEDED naming the need; node:zlib's 64-bit libzstd
 * decodes it. RFC 8878 section 3.1.1.1.2: at least 2^10.
 */
const ZSTD_WINDOW_LOG = { type: 'integer', min: 10, max: 31 } as const

const ZSTD_DECODE = {
  /** Largest accepted Window_Log (RFC 8878 section 3.1.1.1.2): 10 to 31. Default: 27 (a 128 MiB window). */
  maxWindowLog: ZSTD_WINDOW_LOG,
  /**
   * Largest accepted Window_Size in bytes, when a limit is not a power of two (RFC 9842
   * section 2.2's max(8 MiB, 1.25 x dictionary) for 'dcz'); the smaller limit applies. wasm only.
   */
  maxWindowBytes: { type: 'integer', min: 2 ** 10, max: 2 ** 31, engines: ['wasm'] },
  /** 'auto' (default): a trained dictionary when it starts with the magic 37 A4 30 EC; 'raw': always raw content. wasm only. */
  dictionaryType: { type: 'choice', values: ['auto', 'raw'], engines: ['wasm'] },
} as const

const ZSTD_ENCODE = {
  /** Writes the frame's XXH64 content checksum (RFC 8878 section 3.1.1). Default true. */
  checksum: { type: 'boolean' },
  /** The exact number of bytes that will be written, put into the frame header. wasm only. */
  contentSize: { type: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER, engines: ['wasm'] },
  /**
   * Window_Log of the frames written, 10 to 30 (default: libzstd's for the level, 27 with
   * `long`). 30 is ZSTD_WINDOWLOG_MAX_32, the wasm engine's (a 32-bit libzstd).
   */
  windowLog: { type: 'integer', min: 10, max: 30 },
  /** Long-distance matching (ZSTD_c_enableLongDistanceMatching), as `zstd --long`. Default false. */
  long: { type: 'boolean' },
  /**
   * The zstd seekable format (contrib/seekable_format): independent frames of `frameSize`
   * input bytes, then a seek table; `{ checksums: true }` puts each frame's checksum in
   * the table (docs/zstd-archives.md). Default false.
   */
  seekable: { type: 'flags', keys: ['checksums'] },
  /**
   * Input bytes per frame of a seekable archive, 1 to 2^30 (the format's
   * ZSTD_SEEKABLE_MAX_FRAME_DECOMPRESSED_SIZE); default 1 MiB. Only with `seekable`.
   */
  frameSize: { type: 'integer', min: 1, max: 2 ** 30 },
  /** 'auto' (default): a trained dictionary when it starts with the magic 37 A4 30 EC; 'raw': always raw content. wasm only. */
  dictionaryType: ZSTD_DECODE.dictionaryType,
} as const

/**
 * The rules between the zstd seekable options (lib/codecs/zstd-seekable-encode.ts) that
 * no schema entry says: `frameSize` only with `seekable`; no `contentSize` (one frame's
 * size; a seekable archive writes each frame's); `seekable: { checksums: true }` not with
 * `checksum: false` (the table repeats each frame's own checksum). Here, not in a module
 * of its own, so that checking gzip options loads no zstd module.
 */
export function zstdEncodeRules(o: Readonly<Record<string, unknown>>): void {
  const seekable = o.seekable
  const why =
    seekable === undefined || seekable === false
      ? o.frameSize !== undefined && 'frameSize applies to seekable archives only; add seekable: true'
      : o.contentSize !== undefined
        ? 'contentSize is one frame\'s size; a seekable archive writes each frame\'s'
        : seekable !== true && (seekable as { checksums?: unknown }).checksums === true && o.checksum === false && 'seekable: { checksums: true } needs each frame\'s checksum; not with checksum: false'
  if (why) throw new CodecError('INVALID_OPTION', 'zstd', why)
}

const BROTLI_ENCODE = {
  /** Window bits, 10 to 24 (RFC 7932 section 9.1: WINDOW_BITS); default 22. */
  lgwin: { type: 'integer', min: 10, max: 24 },
} as const

const DEFLATE_ENCODE = {
  /**
   * Every sync point (`flush()`, `flush: 'write'`) a full flush (zlib's Z_FULL_FLUSH):
   * besides ending the output on a byte boundary, the encoder forgets its history, so no
   * match reaches back past the point and a raw inflater started there, with no
   * dictionary, decodes everything after it. For resynchronising after damage or
   * starting mid-stream; costs ratio at each point. Default false (sync flush).
   */
  fullFlush: { type: 'boolean' },
} as const

const GZIP_ENCODE = {
  ...DEFLATE_ENCODE,
  /**
   * BGZF (SAMv1 section 4.1; docs/gzip-archives.md): independent members of at most
   * 64 KiB with their sizes in a BC extra subfield, then the EOF marker, as `bgzip`
   * writes; any gzip reader decodes it. Default false.
   */
  bgzf: { type: 'boolean', engines: ['js', 'wasm'] },
} as const

const LZ4_ENCODE = {
  /** Block maximum size (LZ4 frame format, BD byte): 64 KiB (default), 256 KiB, 1 MiB or 4 MiB. */
  blockSize: { type: 'choice', values: [65536, 262144, 1048576, 4194304] },
  /** An xxHash32 after each block. Default false. */
  blockChecksum: { type: 'boolean' },
  /** An xxHash32 of the content at the end of the frame. Default true. */
  contentChecksum: { type: 'boolean' },
  /** Blocks that do not refer into earlier ones. Default true; false (linked blocks) is decoded but not written. */
  blockIndependence: { type: 'boolean', refuse: { value: false, why: 'false (linked blocks) is not implemented by the encoder; the decoder reads linked frames' } },
  /** The exact number of bytes that will be written, put into the frame header. */
  contentSize: { type: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER },
} as const

const LZ4_BLOCK_DECODE = {
  /** The exact decoded size of the block (a raw block does not record it). Required. */
  outputSize: { type: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER, required: 'the exact decoded size of the block' },
} as const

/**
 * The table. Notes per row:
 * - deflate family: gzip members may follow each other (RFC 1952 section 2.2); zlib and
 *   raw deflate streams end with their final block. wasm by default: the inflate kernel
 *   decodes about twice as fast as the TypeScript one (the repository's bench/inflate-micro.ts); 'js'
 *   stays for pages whose Content-Security-Policy forbids WebAssembly. Dictionaries: a
 *   zlib stream names its preset dictionary (RFC 1950 section 2.2, FDICT/DICTID); raw
 *   deflate takes one as the window's initial content (RFC 1951 section 3.2: distances
 *   may reach back into it). The gzip header has no such field.
 * - LZ4: wasm by default, decode 2.1-3x and encode 1.8-2.2x the TypeScript engine
 *   (the repository's bench/lz4-micro.ts). A raw block has no sync points: it does not flush.
 *   Levels as the lz4 CLI's: 1 and 2 the fast search, 3 to 12 LZ4 HC (lib/codecs/lz4hc.ts,
 *   loaded on first use), the same blocks as `lz4 -3` ... `lz4 -12`.
 * - zstd: a stream is a sequence of frames (RFC 8878 section 3.1). Dictionaries: a
 *   trained one (RFC 8878 section 5, magic 37 A4 30 EC, named by its ID in the frame
 *   header) or raw content (a prefix the first matches may reach back into).
 * - brotli: the web platform's CompressionStream('brotli') proposal and node:zlib both
 *   default to quality 11 for one-shot use; streams favour speed, so 5 here. RFC 7932
 *   defines a single stream: bytes after its end are trailing data. Dictionaries: raw
 *   content (a prefix, brotli's BROTLI_SHARED_DICTIONARY_RAW). HTTP level 4: about gzip's
 *   speed at a better ratio.
 * - dcz, dcb: RFC 9842 (Compression Dictionary Transport) sections 5 and 4: a header with
 *   the dictionary's SHA-256, then one zstd frame or one brotli stream using it as raw
 *   content. Levels as the inner formats'. One stream: bytes after it are trailing data.
 *   dcb's HTTP level is 5: brotli's encoder uses a dictionary from quality 5 only.
 * - snappy: google/snappy's framing format (framing_format.txt): chunks with masked
 *   CRC-32C, no end marker (the stream ends with the input; a second stream identifier
 *   continues it); 'snappy-raw' is one raw block (format_description.txt) whose varint
 *   preamble states the decoded length, as Parquet stores it. wasm by default: the
 *   hand-written kernel decodes 2-3x the TypeScript engine (the repository's bench/snappy.ts). Snappy has
 *   no levels (one, 1). The framing encoder flushes by ending its chunk early; a raw
 *   block is one block.
 *
 * Decoded-size bounds (`decodedPerByte`):
 * - deflate: a length/distance pair costs at least 2 bits and yields at most 258 bytes
 *   (RFC 1951 section 3.2.5), so at most 1032 bytes per input byte.
 * - zstd: the densest block is an RLE block, 3 header bytes and 1 byte for up to
 *   Block_Maximum_Size = 128 KiB (RFC 8878 section 3.1.1.2), so < 32768 per byte.
 * - LZ4: a match length byte adds at most 255 bytes (lz4_Block_format.md), so about 255
 *   per byte.
 * - brotli: one insert-and-copy command of a few bytes can copy ~16 MiB (RFC 7932
 *   section 5): no useful bound (only the caller's limit applies).
 * - Snappy: the densest element is a 3-byte copy of 64 bytes (format_description.txt
 *   section 2.2), so < 22 per byte; a framing chunk holds at most 65536 bytes.
 */
export const FORMAT_TABLE = /* @__PURE__ */ Object.freeze({
  gzip: {
    engines: DEFLATE_ENGINES,
    defaultEngine: 'wasm',
    levels: [0, 9, 6],
    traits: MEMBERS,
    dictionary: 'none',
    dictionaryWhy: "gzip has no preset dictionary (RFC 1952 defines none); use 'deflate' (zlib, RFC 1950 FDICT) or 'deflate-raw'",
    flushes: true,
    suffix: '.gz', // gzip(1)
    web: { name: 'gzip', concatenated: false },
    http: { coding: 'gzip', level: 6, preference: 3 },
    detect: { magic: [0x1f, 0x8b], label: 'gzip' }, // RFC 1952 section 2.3.1 ID1 ID2
    decodedPerByte: [1032, 1032],
    blocks: DEFLATE_BLOCKS,
    options: { decode: NONE, encode: GZIP_ENCODE },
  },
  deflate: {
    engines: DEFLATE_ENGINES,
    defaultEngine: 'wasm',
    levels: [0, 9, 6],
    traits: SINGLE,
    dictionary: 'optional',
    flushes: true,
    suffix: '.zz', // pigz -z
    web: { name: 'deflate', concatenated: false },
    // HTTP `deflate` is the zlib format (RFC 9110 section 8.4.1.2).
    http: { coding: 'deflate', level: 6, preference: 4 },
    detect: { magic: 'zlib header', label: 'zlib deflate (RFC 1950 header)' },
    decodedPerByte: [1032, 1032],
    blocks: DEFLATE_BLOCKS,
    options: { decode: NONE, encode: DEFLATE_ENCODE },
  },
  'deflate-raw': {
    engines: DEFLATE_ENGINES,
    defaultEngine: 'wasm',
    levels: [0, 9, 6],
    traits: SINGLE,
    dictionary: 'optional',
    flushes: true,
    web: { name: 'deflate-raw', concatenated: false },
    decodedPerByte: [1032, 1032],
    blocks: DEFLATE_BLOCKS,
    options: { decode: NONE, encode: DEFLATE_ENCODE },
  },
  lz4: {
    engines: ['js', 'wasm'],
    defaultEngine: 'wasm',
    levels: [1, 12, 1],
    traits: MEMBERS,
    dictionary: 'none',
    dictionaryWhy: 'lz4 dictionaries are not supported',
    flushes: true,
    suffix: '.lz4', // lz4(1)
    web: { name: 'lz4', concatenated: true },
    detect: { magic: [0x04, 0x22, 0x4d, 0x18], frames: true, label: 'LZ4 frame' }, // 0x184D2204 little-endian
    decodedPerByte: [256, 65_536],
    // One frame of independent blocks; `blockSize` is the frame's (lz4_Frame_format.md BD).
    blocks: { family: 'lz4', fallback: 64 * 1024, min: 64 * 1024 },
    options: { decode: NONE, encode: LZ4_ENCODE },
  },
  'lz4-block': {
    engines: ['js', 'wasm'],
    defaultEngine: 'wasm',
    levels: [1, 12, 1],
    traits: SINGLE,
    dictionary: 'none',
    dictionaryWhy: 'lz4 dictionaries are not supported',
    flushes: false,
    decodedPerByte: [256, 65_536],
    options: { decode: LZ4_BLOCK_DECODE, encode: NONE },
  },
  zstd: {
    engines: ['wasm', 'node'],
    defaultEngine: 'wasm',
    levels: [1, 19, 3],
    traits: MEMBERS,
    dictionary: 'optional',
    flushes: true,
    suffix: '.zst', // zstd(1)
    web: { name: 'zstd', concatenated: true },
    // RFC 9659 section 3: the zstd content coding's window is at most 8 MB (2^23).
    http: { coding: 'zstd', level: 3, preference: 1, decode: { maxWindowLog: 23 } },
    detect: { magic: [0x28, 0xb5, 0x2f, 0xfd], frames: true, label: 'zstd' }, // RFC 8878 section 3.1.1: 0xFD2FB528 little-endian
    decodedPerByte: [32_768, 131_072],
    // Independent frames of 1 MiB: a frame's fixed cost (about 12 bytes and a fresh
    // history) stays under 1% there; below 64 KiB the ratio suffers (issue 22).
    blocks: { family: 'zstd', fallback: 1024 * 1024, min: 64 * 1024 },
    options: { decode: ZSTD_DECODE, encode: ZSTD_ENCODE },
    rules: { encode: zstdEncodeRules },
  },
  brotli: {
    engines: ['wasm', 'node'],
    defaultEngine: 'wasm',
    levels: [0, 11, 5],
    traits: SINGLE,
    dictionary: 'optional',
    flushes: true,
    suffix: '.br', // brotli(1)
    web: { name: 'brotli', concatenated: false },
    http: { coding: 'br', level: 4, preference: 2 },
    decodedPerByte: null,
    options: { decode: NONE, encode: BROTLI_ENCODE },
  },
  dcz: {
    engines: ['wasm'],
    defaultEngine: 'wasm',
    levels: [1, 19, 3],
    traits: SINGLE,
    dictionary: 'required',
    dictionaryWhy: "'dcz' is zstd with a dictionary (RFC 9842 section 5)",
    flushes: true,
    web: { name: 'dcz', concatenated: false },
    http: { coding: 'dcz', level: 3, preference: 1 },
    // A zstd skippable frame of 32 bytes (magic 0x184D2A5E, RFC 8878 section 3.1.2).
    transport: { inner: 'zstd', magic: [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00], section: '5' },
    decodedPerByte: [32_768, 131_072],
    // The window limits and the dictionary type are the transport's (RFC 9842 section 2.2).
    options: {
      decode: {
        /** Largest accepted Window_Log (RFC 8878 section 3.1.1.1.2): 10 to 31; RFC 9842 section 2.2's window limit, max(8 MiB, 1.25 x the dictionary), applies too. */
        maxWindowLog: ZSTD_WINDOW_LOG,
      },
      encode: {
        /** Writes the frame's XXH64 content checksum (RFC 8878 section 3.1.1). Default true. */
        checksum: ZSTD_ENCODE.checksum,
        /** The exact number of bytes that will be written, put into the frame header. wasm only. */
        contentSize: ZSTD_ENCODE.contentSize,
        /** Window_Log of the frames written, 10 to 30 (default: libzstd's for the level). */
        windowLog: ZSTD_ENCODE.windowLog,
      },
    },
  },
  dcb: {
    engines: ['wasm'],
    defaultEngine: 'wasm',
    levels: [0, 11, 5],
    traits: SINGLE,
    dictionary: 'required',
    dictionaryWhy: "'dcb' is brotli with a dictionary (RFC 9842 section 4)",
    flushes: true,
    web: { name: 'dcb', concatenated: false },
    http: { coding: 'dcb', level: 5, preference: 2 },
    transport: { inner: 'brotli', magic: [0xff, 0x44, 0x43, 0x42], section: '4' },
    decodedPerByte: null,
    options: { decode: NONE, encode: BROTLI_ENCODE },
  },
  snappy: {
    engines: ['js', 'wasm'],
    defaultEngine: 'wasm',
    levels: [1, 1, 1],
    traits: SINGLE,
    dictionary: 'none',
    dictionaryWhy: 'Snappy has no dictionaries',
    flushes: true,
    suffix: '.sz', // snzip, python-snappy (python -m snappy -c): the framing format
    web: { name: 'snappy', concatenated: false },
    // The stream identifier chunk (framing_format.txt section 4.1): ff 06 00 00 "sNaPpY".
    detect: { magic: [0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59], label: 'Snappy framing format' },
    decodedPerByte: [22, 65_536],
    options: { decode: NONE, encode: NONE },
  },
  'snappy-raw': {
    engines: ['js', 'wasm'],
    defaultEngine: 'wasm',
    levels: [1, 1, 1],
    traits: SINGLE,
    dictionary: 'none',
    dictionaryWhy: 'Snappy has no dictionaries',
    flushes: false,
    decodedPerByte: [22, 32],
    options: { decode: NONE, encode: NONE },
  },
} as const satisfies Record<string, FormatRow>)

type Table = typeof FORMAT_TABLE

/**
 * The formats of the compression codecs: the keys of `FORMAT_TABLE`.
 * @useDeclaredType
 */
export type Format = keyof Table

/** The dictionary transports (RFC 9842): the rows with `transport`. */
export type TransportFormat = { [F in Format]: Table[F] extends { transport: object } ? F : never }[Format]

/** The HTTP content codings: the `http.coding` tokens of the rows. */
export type HttpCoding = { [F in Format]: Table[F] extends { http: { coding: infer C } } ? C : never }[Format]

/** The format names `CompressionStream`/`DecompressionStream` take. */
export type WebFormat = { [F in Format]: Table[F] extends { web: { name: infer N } } ? N : never }[Format]

const rows = FORMAT_TABLE as Readonly<Record<Format, FormatRow>>
const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)
const has = (name: unknown): name is Format => typeof name === 'string' && hasOwn(rows, name)

/** Every format, in table order. */
export const FORMATS: readonly Format[] = /* @__PURE__ */ Object.freeze(Object.keys(FORMAT_TABLE) as Format[])

/** Whether `name` is a row of the format table. */
export function isFormat(name: unknown): name is Format {
  return has(name)
}

/** `format` if it is one; otherwise throws `UNKNOWN_FORMAT`. */
export function checkFormat(format: string): Format {
  if (!has(format)) throw new CodecError('UNKNOWN_FORMAT', String(format), `unknown format; expected one of ${FORMATS.join(', ')}`)
  return format
}

/** The row of `format` (throws `UNKNOWN_FORMAT` for other names). */
export function rowOf(format: string): FormatRow {
  return rows[checkFormat(format)]
}

/** The engines of `format`, in table order (the test matrices run every one). */
export function enginesOf(format: Format): readonly Engine[] {
  return rowOf(format).engines
}

/** What the stream driver needs to know of `format` besides its codec. */
export function traitsOf(format: Format): FormatTraits {
  return rowOf(format).traits
}

/** The formats whose rows have `key`, in table order. */
function formatsWith<K extends keyof FormatRow>(key: K): Format[] {
  return FORMATS.filter((f) => rows[f][key] !== undefined)
}

/**
 * A frozen list made by `make`. Called as `/* @__PURE__ *\/ derived(() => ...)`: the call
 * and its argument (a function) have no side effects, so a bundle that never reads the
 * list drops it (a pure mark on `Object.freeze(list.filter(...))` alone would keep the
 * inner calls).
 */
function derived<T>(make: () => T[]): readonly T[] {
  return Object.freeze(make())
}

/** The format names of `CompressionStream`/`DecompressionStream`. */
export const WEB_FORMATS: readonly WebFormat[] = /* @__PURE__ */ derived(() => formatsWith('web').map((f) => rows[f].web!.name as WebFormat))

/** The web format named `name`, or undefined. */
export function webFormat(name: string): { format: Format; concatenated: boolean } | undefined {
  for (const f of FORMATS) {
    const web = rows[f].web
    if (web !== undefined && web.name === name) return { format: f, concatenated: web.concatenated }
  }
  return undefined
}

/** The HTTP content codings, in the default offer's order (dictionary transports first). */
export const HTTP_CODINGS: readonly HttpCoding[] = /* @__PURE__ */ derived(() =>
  formatsWith('http')
    .sort((a, b) => Number(rows[a].transport === undefined) - Number(rows[b].transport === undefined) || rows[a].http!.preference - rows[b].http!.preference)
    .map((f) => rows[f].http!.coding as HttpCoding),
)

/** The format a content coding decodes/encodes as, or undefined. */
export function formatOfCoding(coding: string): Format | undefined {
  return FORMATS.find((f) => rows[f].http?.coding === coding)
}

/** The HTTP facts of a coding (its format's `http` row). */
export function httpOf(coding: HttpCoding): { format: Format; level: number; transport: boolean; decode: Readonly<Record<string, unknown>> } {
  const format = formatOfCoding(coding)!
  const http = rows[format].http!
  return { format, level: http.level, transport: rows[format].transport !== undefined, decode: http.decode ?? {} }
}

/** The dictionary transports (RFC 9842), in table order. */
export const TRANSPORT_FORMATS: readonly TransportFormat[] = /* @__PURE__ */ derived(() => formatsWith('transport') as TransportFormat[])

/** Whether `format` is one of the transports, whose codecs need `dictionaryDigest`. */
export function isDictionaryTransport(format: string): format is TransportFormat {
  return has(format) && rows[format].transport !== undefined
}

/** The transport facts of `format`: its inner format, header magic and RFC 9842 section. */
export function transportOf(format: TransportFormat): { inner: Format; magic: readonly number[]; section: string } {
  const t = rows[format].transport!
  return { inner: t.inner as Format, magic: t.magic, section: t.section }
}

/** The formats `decompress()` recognises by a magic number (transports: by their header). */
export const DETECTED_FORMATS: readonly Format[] = /* @__PURE__ */ derived(() => formatsWith('detect'))

/** How `format` is detected (its `detect` row), or undefined. */
export function detectOf(format: Format): FormatRow['detect'] {
  return rows[format].detect
}

/** Whether `format` takes a `dictionary` (optional or required). */
export function takesDictionary(format: Format): boolean {
  return rows[format].dictionary !== 'none'
}

// ---------------------------------------------------------------------------------------
// Flushing. The encoders of the rows with `flushes` can write a sync point mid-stream
// (`Encoder.flush()`), on every engine they have, known before any engine loads, so that
// asking for one where it cannot be had fails at once:
// - deflate family: sync flush, an empty stored block (RFC 1951 §3.2.4);
// - zstd: ZSTD_e_flush ends the current block (zstd.h);
// - LZ4 frame: the current block is ended early (blocks are independent);
// - Snappy framing format: the current chunk is ended early;
// - brotli: BROTLI_OPERATION_FLUSH (encode.h);
// - the dcz and dcb transports: as zstd and brotli inside them.
// The raw blocks ('lz4-block', 'snappy-raw') are one block each: nothing to split.

/** Whether `format`'s encoders can write a sync point (the table's `flushes`). */
export function canFlush(format: Format): boolean {
  return rowOf(format).flushes
}
