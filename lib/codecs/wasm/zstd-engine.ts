/**
 * The zstd engine: libzstd compiled to wasm32 by emscripten, as shipped by
 * `@oneidentity/zstd-js` (its `wasm` build; the package's JS glue is not used, only the
 * module, see `zstd-full-wasm-source.ts`). Chosen by measurement over the other wasm
 * builds (bench/zstd-brotli-micro.ts): it is the only one that exports the streaming
 * compressor (`ZSTD_compressStream2_simpleArgs`, `ZSTD_CCtx_setParameter`) and also the
 * fastest streaming decoder of the set. Its libzstd is a 1.4.x: `ZSTD_CCtx_setParameter`
 * accepts the experimental parameters up to `ZSTD_c_validateSequences` (1009) and refuses
 * those that 1.5.0 added (1010 and up).
 *
 * Where the time goes (`bench/zstd-brotli-micro.ts 16 zstd-split`): called raw on data
 * already in wasm memory, this build and @foxglove/wasm-zstd's decode and encode within
 * a few per cent of each other, so the build is not what separates us from the one-shot
 * packages. Streaming decode adds two copies of the output (libzstd's window buffer to
 * our staging, staging to the caller), 10-25% of the raw decode time; the one-shot
 * packages pay about as much to copy the whole input in and the whole output out. Our
 * driving (staging sizes, calls, status) costs under 5% on top of raw streaming calls.
 *
 * One instance serves every zstd encoder and decoder; each codec owns its context and
 * staging buffers inside the instance's memory.
 */
import { emscriptenImports, WasmHeap } from './emscripten.js'
import { instantiate } from './instantiate.js'
import { zstdFullWasm } from './zstd-full-wasm-source.js'

/** The raw exports used (wasm32: pointers and size_t are i32; size_t results can be negative as i32). */
export interface ZstdExports {
  memory: WebAssembly.Memory
  malloc(size: number): number
  free(pointer: number): void
  ZSTD_isError(code: number): number
  ZSTD_createDStream(): number
  ZSTD_freeDStream(dctx: number): number
  /** Resets the session (ZSTD_DCtx_reset(session_only)); keeps the allocated window. */
  ZSTD_initDStream(dctx: number): number
  ZSTD_decompressStream_simpleArgs(dctx: number, dst: number, dstCapacity: number, dstPosPointer: number, src: number, srcSize: number, srcPosPointer: number): number
  ZSTD_createCStream(): number
  ZSTD_freeCStream(cctx: number): number
  /** Resets the session and sets the level; other parameters are kept. */
  ZSTD_initCStream(cctx: number, level: number): number
  ZSTD_CCtx_setParameter(cctx: number, parameter: number, value: number): number
  ZSTD_compressStream2_simpleArgs(cctx: number, dst: number, dstCapacity: number, dstPosPointer: number, src: number, srcSize: number, srcPosPointer: number, endOp: number): number
}

export interface ZstdEngine {
  readonly exports: ZstdExports
  readonly heap: WasmHeap
}

/** `ZSTD_cParameter` values (zstd.h, stable API since 1.4.0). */
export const ZSTD_c_compressionLevel = 100
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

let loading: Promise<ZstdEngine> | null = null

/** Loads and instantiates the engine once. */
export function loadZstdEngine(): Promise<ZstdEngine> {
  loading ??= (async () => {
    const heap = new WasmHeap()
    const instance = await instantiate(zstdFullWasm(), emscriptenImports(heap))
    const raw = instance.exports as unknown as ZstdExports & { emscripten_stack_init?: () => void; __wasm_call_ctors?: () => void }
    heap.attach(raw.memory)
    // emscripten's start-up: set the stack limits, then run static constructors.
    raw.emscripten_stack_init?.()
    raw.__wasm_call_ctors?.()
    return { exports: raw, heap }
  })()
  loading.catch(() => (loading = null))
  return loading
}
