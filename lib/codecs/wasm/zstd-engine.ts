/**
 * The zstd engines: libzstd 1.5.7 compiled to wasm32 by the repository's `scripts/build-engines.mjs`
 * (clang, wasi-libc; sources, flags and hashes in `engines.json`), as two modules so that
 * decoding never loads the encoder, nor encoding the decoder:
 *
 * - `zstd-dec.wasm`: `lib/common` and `lib/decompress` (94 kB, 34 kB gzip);
 * - `zstd-enc.wasm`: `lib/common` and `lib/compress` (475 kB, 106 kB gzip).
 *
 * Neither imports anything. Each exports libzstd's own functions (the streaming API with
 * `_simpleArgs`, parameters, prefixes and dictionaries) plus `malloc`/`free`; see
 * `zstd-dec-wasm-source.ts` and `zstd-enc-wasm-source.ts` for where the bytes come from.
 *
 * Where the time goes (the repository's `node --import tsx bench/engines.ts`): called raw, these builds
 * decode and encode at about the speed of @foxglove/wasm-zstd's emscripten build.
 * Streaming decode adds two copies of the output (libzstd's window buffer to our
 * staging, staging to the caller); the one-shot packages, and our decoder when a whole
 * frame fits its destination, pay one copy of the whole input in and one of the whole
 * output out.
 *
 * One decoder instance serves every zstd decoder and one encoder instance every
 * encoder; each codec owns its context and staging buffers inside its instance's memory.
 */
import { WasmHeap } from './wasm-heap.js'
import { instantiate, type WasmSource } from './instantiate.js'
import { zstdDecoderWasm } from '#wasm/zstd-dec'
import { zstdEncoderWasm } from '#wasm/zstd-enc'

/** What both modules export (wasm32: pointers and size_t are i32; size_t results can be negative as i32). */
export interface ZstdCommonExports {
  memory: WebAssembly.Memory
  malloc(size: number): number
  free(pointer: number): void
  ZSTD_isError(code: number): number
  ZSTD_versionNumber(): number
}

/** The decoder module's exports (`zstd-dec.wasm`). */
export interface ZstdDecoderExports extends ZstdCommonExports {
  ZSTD_createDStream(): number
  ZSTD_freeDStream(dctx: number): number
  /** Resets the session (ZSTD_DCtx_reset(session_only)); keeps the allocated window. */
  ZSTD_initDStream(dctx: number): number
  ZSTD_decompressStream_simpleArgs(dctx: number, dst: number, dstCapacity: number, dstPosPointer: number, src: number, srcSize: number, srcPosPointer: number): number
  /** The frame's content size; ZSTD_CONTENTSIZE_UNKNOWN (-1n) or _ERROR (-2n) as i64. */
  ZSTD_getFrameContentSize(src: number, srcSize: number): bigint
  /** The dictionary ID of a trained dictionary (magic 37 A4 30 EC), 0 for raw content. */
  ZSTD_getDictID_fromDict(dict: number, dictSize: number): number
  ZSTD_getDictID_fromFrame(src: number, srcSize: number): number
  /** `reset` is a ZSTD_ResetDirective: 1 session only, 2 parameters, 3 both. */
  ZSTD_DCtx_reset(dctx: number, reset: number): number
  ZSTD_DCtx_setParameter(dctx: number, parameter: number, value: number): number
  /**
   * Decodes the next frame with `prefix` as raw content before it (the bytes must stay
   * in place until the frame is decoded; cleared at the frame's end).
   */
  ZSTD_DCtx_refPrefix(dctx: number, prefix: number, prefixSize: number): number
  /**
   * Copies a dictionary into the context for every following frame: a trained one
   * (magic 37 A4 30 EC: entropy tables, ID, content) or raw content; size 0 clears it.
   */
  ZSTD_DCtx_loadDictionary(dctx: number, dict: number, dictSize: number): number
  ZSTD_decompressDCtx(dctx: number, dst: number, dstCapacity: number, src: number, srcSize: number): number
}

/** The encoder module's exports (`zstd-enc.wasm`). */
export interface ZstdEncoderExports extends ZstdCommonExports {
  ZSTD_createCStream(): number
  ZSTD_freeCStream(cctx: number): number
  /** Resets the session and sets the level; other parameters are kept. */
  ZSTD_initCStream(cctx: number, level: number): number
  ZSTD_CCtx_setParameter(cctx: number, parameter: number, value: number): number
  ZSTD_compressStream2_simpleArgs(cctx: number, dst: number, dstCapacity: number, dstPosPointer: number, src: number, srcSize: number, srcPosPointer: number, endOp: number): number
  ZSTD_CCtx_reset(cctx: number, reset: number): number
  /** The size of the next frame, written into its header and checked at its end. */
  ZSTD_CCtx_setPledgedSrcSize(cctx: number, size: bigint): number
  /** The encoder-side ZSTD_DCtx_refPrefix: for the next frame only. */
  ZSTD_CCtx_refPrefix(cctx: number, prefix: number, prefixSize: number): number
  /** The encoder-side ZSTD_DCtx_loadDictionary (copied; trained or raw content). */
  ZSTD_CCtx_loadDictionary(cctx: number, dict: number, dictSize: number): number
  ZSTD_compress2(cctx: number, dst: number, dstCapacity: number, src: number, srcSize: number): number
  ZSTD_compressBound(srcSize: number): number
  /**
   * Digests a dictionary (copied) for `level`: a trained one's entropy tables are parsed
   * at once, unlike ZSTD_CCtx_loadDictionary's (at the first frame). 0 when they are
   * corrupt or memory is exhausted.
   */
  ZSTD_createCDict(dict: number, dictSize: number, level: number): number
  ZSTD_freeCDict(cdict: number): number
}

/**
 * One instance as the codecs call it: its exports and memory, and its role's context and
 * dictionary functions under role-free names (wasm functions, called without `this`),
 * so that what both roles do with them (lib/codecs/zstd-heap.ts, zstd-dictionary.ts)
 * is written once.
 */
export interface ZstdEngine<X extends ZstdCommonExports = ZstdCommonExports> {
  readonly exports: X
  readonly heap: WasmHeap
  /** `ZSTD_createDStream` / `ZSTD_createCStream`: a context, 0 when the heap is exhausted. */
  readonly createContext: () => number
  readonly freeContext: (context: number) => number
  /** `ZSTD_DCtx_loadDictionary` / `ZSTD_CCtx_loadDictionary`: a trained dictionary or raw content, copied. */
  readonly loadDictionary: (context: number, pointer: number, size: number) => number
  /** `ZSTD_DCtx_refPrefix` / `ZSTD_CCtx_refPrefix`: raw content used in place by the next frame only. */
  readonly refPrefix: (context: number, pointer: number, size: number) => number
  /**
   * Parses the trained dictionary at `pointer` (its entropy tables) as this role does: 0,
   * a `ZSTD_ErrorCode` (libzstd reports broken tables as memory_allocation, 64, as it does
   * an exhausted heap), or -1 when no context could be allocated to try.
   */
  readonly checkTrained: (pointer: number, size: number) => number
  /**
   * Whether a context keeps a loaded trained dictionary from one frame to the next: a
   * decoder's does (`ZSTD_DCtx_reset(session_only)` keeps it), an encoder's does not
   * (`ZSTD_initCStream` clears it, zstd.h).
   */
  readonly keepsDictionary: boolean
}

/** What differs between the roles: `ZstdEngine` less the exports and memory. */
type RoleCalls = Omit<ZstdEngine, 'exports' | 'heap'>

/** `ZSTD_ResetDirective` values (zstd.h). */
export const ZSTD_reset_session_only = 1
export const ZSTD_reset_parameters = 2
/** `ZSTD_dParameter` values (zstd.h). */
export const ZSTD_d_windowLogMax = 100
/** `ZSTD_cParameter` values (zstd.h, stable API since 1.4.0). */
export const ZSTD_c_compressionLevel = 100
export const ZSTD_c_windowLog = 101
export const ZSTD_c_contentSizeFlag = 200
export const ZSTD_c_checksumFlag = 201
/** `ZSTD_EndDirective` values (zstd.h). */
export const ZSTD_e_continue = 0
export const ZSTD_e_flush = 1
export const ZSTD_e_end = 2

/**
 * The error code of a libzstd `size_t` result, or 0 when it is not an error. libzstd
 * returns errors as `(size_t)-code` with code < 120 (`ZSTD_error_maxCode`); through the
 * wasm32 i32 ABI that is the negative number `-code`.
 */
export function zstdErrorCode(result: number): number {
  return result < 0 && result > -120 ? -result : 0
}

/** Names of `ZSTD_ErrorCode` values (zstd_errors.h, stable since 1.3.x). */
const errorNames: Record<number, string> = {
  1: 'generic error',
  10: 'unknown frame descriptor',
  12: 'version not supported',
  14: 'unsupported frame parameter',
  16: 'frame requires too much memory for decoding',
  20: 'data corruption detected',
  22: 'checksum mismatch',
  24: 'header of literals block is wrong',
  30: 'dictionary is corrupted',
  32: 'dictionary mismatch',
  40: 'unsupported parameter',
  42: 'parameter out of bound',
  44: 'tableLog requires too much memory',
  46: 'unsupported max symbol value: too large',
  48: 'specified maxSymbolValue is too small',
  60: 'operation not authorized at current processing stage',
  62: 'context should be init first',
  64: 'allocation error: not enough memory',
  66: 'workSpace buffer is not large enough',
  70: 'destination buffer is too small',
  72: 'src size is incorrect',
  74: 'operation on NULL destination buffer',
  80: 'no forward progress: destination full',
  82: 'no forward progress: input empty',
}

export function zstdErrorName(code: number): string {
  return `${errorNames[code] ?? 'unknown error'} (ZSTD_error ${code})`
}

async function load<X extends ZstdCommonExports>(source: Promise<WasmSource>, calls: (x: X) => RoleCalls): Promise<ZstdEngine<X>> {
  const heap = new WasmHeap()
  const instance = await instantiate(source, {})
  const raw = instance.exports as unknown as X & { _initialize(): void }
  heap.attach(raw.memory)
  raw._initialize() // wasi-libc's reactor start-up (static constructors)
  return { exports: raw, heap, ...calls(raw) }
}

/** The decoder's `checkTrained`: the dictionary loaded into a context of its own. */
function loadsInto(x: ZstdDecoderExports, pointer: number, size: number): number {
  const context = x.ZSTD_createDStream()
  if (context === 0) return -1
  const error = zstdErrorCode(x.ZSTD_DCtx_loadDictionary(context, pointer, size))
  x.ZSTD_freeDStream(context)
  return error
}

/** The encoder's `checkTrained`: a CDict digests the tables at once (ZSTD_CCtx_loadDictionary waits for the first frame). */
function digests(x: ZstdEncoderExports, pointer: number, size: number): number {
  // Level 1: the smallest match tables; the entropy tables do not depend on it.
  const cdict = x.ZSTD_createCDict(pointer, size, 1)
  if (cdict === 0) return 64 // memory_allocation: corrupt tables, or no memory
  x.ZSTD_freeCDict(cdict)
  return 0
}

let decoder: Promise<ZstdEngine<ZstdDecoderExports>> | null = null
let encoder: Promise<ZstdEngine<ZstdEncoderExports>> | null = null

/** Loads and instantiates the decoder module (`zstd-dec.wasm`) once. */
export function loadZstdDecoderEngine(): Promise<ZstdEngine<ZstdDecoderExports>> {
  decoder ??= load(zstdDecoderWasm(), (x: ZstdDecoderExports) => ({ createContext: x.ZSTD_createDStream, freeContext: x.ZSTD_freeDStream, loadDictionary: x.ZSTD_DCtx_loadDictionary, refPrefix: x.ZSTD_DCtx_refPrefix, checkTrained: (pointer, size) => loadsInto(x, pointer, size), keepsDictionary: true }))
  decoder.catch(() => (decoder = null))
  return decoder
}

/** Loads and instantiates the encoder module (`zstd-enc.wasm`) once. */
export function loadZstdEncoderEngine(): Promise<ZstdEngine<ZstdEncoderExports>> {
  encoder ??= load(zstdEncoderWasm(), (x: ZstdEncoderExports) => ({ createContext: x.ZSTD_createCStream, freeContext: x.ZSTD_freeCStream, loadDictionary: x.ZSTD_CCtx_loadDictionary, refPrefix: x.ZSTD_CCtx_refPrefix, checkTrained: (pointer, size) => digests(x, pointer, size), keepsDictionary: false }))
  encoder.catch(() => (encoder = null))
  return encoder
}
