/**
 * Window limits of the zstd codecs, and the long-distance options of the encoder.
 *
 * - Decoders: `maxWindowLog` defaults to 27, libzstd's `ZSTD_WINDOWLOG_LIMIT_DEFAULT`
 *   (RFC 8878 §3.1.1.1.2 asks decoders to support at least 8 MiB and lets them refuse
 *   more): a 2^27-byte window is 128 MiB of memory, which a wasm instance never gives
 *   back. It may be raised to 31, the most any zstd writes (`zstd --long=31`, a 2 GiB
 *   window), as the zstd CLI's `--long=31` / `--memory=2GB` opt-in does.
 * - The wasm engine is a 32-bit libzstd: it decodes windows up to 2^30
 *   (`ZSTD_WINDOWLOG_MAX_32`, zstd.h), in a memory that grows to 2 GiB
 *   (the repository's scripts/build-engines.mjs, `--max-memory`). A frame needs a buffer of the smaller of
 *   its window and its content size (`ZSTD_decodingBufferSize_min`), so a 1 GiB file
 *   written with `--long=31` (whose header says 2^30: the CLI fits the window to a known
 *   size) decodes; a frame whose window is 2^31 fails with LIMIT_EXCEEDED naming the
 *   need (engine 'node', a 64-bit libzstd, decodes it).
 * - Encoders: `windowLog` up to 30 on the wasm engine (`ZSTD_WINDOWLOG_MAX_32`), and
 *   `long: true` for long-distance matching (`ZSTD_c_enableLongDistanceMatching`), with a
 *   window of 2^27 unless `windowLog` says otherwise, as `zstd --long` does.
 */
import { formatOption } from '../codec-options.js'

/** Default `maxWindowLog` of decoders (libzstd's ZSTD_WINDOWLOG_LIMIT_DEFAULT: 128 MiB). */
export const DEFAULT_MAX_WINDOW_LOG = 27
/** Largest `maxWindowLog` accepted: zstd's ZSTD_WINDOWLOG_MAX_64 (a 2 GiB window). */
export const MAX_WINDOW_LOG_OPTION = 31
/** Largest window the 32-bit wasm libzstd decodes or encodes (ZSTD_WINDOWLOG_MAX_32). */
export const ENGINE_MAX_WINDOW_LOG = 30
/** The wasm engines' memory limit (the repository's scripts/build-engines.mjs, LDFLAGS --max-memory). */
export const ENGINE_MAX_MEMORY = 2 ** 31
/** `ZSTD_c_enableLongDistanceMatching` (zstd.h). */
export const ZSTD_c_enableLongDistanceMatching = 160
/** The window `zstd --long` uses when no size is given (programs/zstdcli.c: 27). */
export const LONG_WINDOW_LOG = 27

/**
 * The encoder's `windowLog` and `long`, by the format table's schema (lib/formats.ts,
 * ZSTD_ENCODE: windowLog 10 to 30): the Window_Log to set (0: the level's own, 27 with
 * `long`) and whether to match over long distances. Throws `INVALID_OPTION`.
 */
export function checkEncoderWindow(options: Record<string, unknown>): { windowLog: number; long: boolean } {
  const long = (formatOption('zstd', 'encode', 'long', options.long) as boolean | undefined) ?? false
  const windowLog = (formatOption('zstd', 'encode', 'windowLog', options.windowLog) as number | undefined) ?? (long ? LONG_WINDOW_LOG : 0)
  return { windowLog, long }
}

/** The message for a frame whose window the wasm engine cannot hold. */
export function windowTooLargeForEngine(windowSize: number): string {
  return `frame window ${windowSize} bytes (2^${Math.log2(windowSize).toFixed(0)}) needs a 64-bit zstd: the wasm engine's 32-bit libzstd decodes windows up to 2^${ENGINE_MAX_WINDOW_LOG} (ZSTD_WINDOWLOG_MAX_32); decode it with engine: 'node' (Node >= 22.15) and maxWindowLog: 31`
}

/** The message for a frame whose buffers the wasm memory could not provide. */
export function windowMemoryMessage(buffers: number, heapBytes: number): string {
  return `the wasm engine could not allocate the frame's ${buffers}-byte window buffer (its memory is ${heapBytes} bytes and grows to at most ${ENGINE_MAX_MEMORY}; not an option); decode it in a fresh instance or with engine: 'node'`
}
