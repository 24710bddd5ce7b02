/**
 * The deflate family's encoder engine: zlib-ng 2.2.4's deflate compiled to wasm32 by
 * the repository's `scripts/build-engines.mjs` (clang, wasi-libc; sources, flags and hashes in
 * `engines.json`) with sluice's glue `native/zlibng-deflate.c`: `zlibng-deflate.wasm`,
 * about 53 kB, which imports nothing. Decoding never loads it: the deflate family
 * decodes with sluice's own kernel (inflate.wat), which measured faster than zlib-ng's
 * inflate built the same way (docs/performance-engines.md).
 *
 * One instance serves every encoder; each encoder owns its `zng_stream` and staging
 * buffers inside the instance's memory.
 */
import { WasmHeap } from './wasm-heap.js'
import { instantiate } from './instantiate.js'
import { zlibngDeflateWasm } from '#wasm/zlibng-deflate'

/** The module's exports (native/zlibng-deflate.c); pointers and sizes are i32. */
export interface ZlibngExports {
  memory: WebAssembly.Memory
  malloc(size: number): number
  free(pointer: number): void
  /** A stream at `level` (0-9); `windowBits` 31 gzip, 15 zlib, -15 raw. 0 when out of memory. */
  zd_create(level: number, windowBits: number): number
  zd_free(stream: number): void
  /** deflateReset: a new stream with the same parameters and allocations. */
  zd_reset(stream: number): number
  /** deflateSetDictionary before the first byte: Z_OK (0) when accepted. */
  zd_dictionary(stream: number, data: number, size: number): number
  /** deflate() over in[0, inLength) into out[0, outLength); consumed to io[0], produced to io[1]. */
  zd_step(stream: number, flush: number, input: number, inLength: number, output: number, outLength: number, io: number): number
  /** deflateBound: the most output `size` input bytes make in one Z_FINISH call. */
  zd_bound(stream: number, size: number): number
  /**
   * One block of block mode on a raw stream: reset, primed with data[0, history),
   * data[history, history + size) encoded into out with a sync flush (or, `last`, the
   * final block); consumed, produced and the checksum (`check` 1 CRC-32, 2 Adler-32, 0
   * none) to io[0..2]. deflate()'s code, or deflateSetDictionary's when it refused.
   */
  zd_block(stream: number, data: number, history: number, size: number, last: number, output: number, outLength: number, io: number, check: number): number
}

/** zlib's flush values (zlib-ng.h). */
export const Z_NO_FLUSH = 0
export const Z_SYNC_FLUSH = 2
export const Z_FULL_FLUSH = 3
export const Z_FINISH = 4
/** zlib's return codes (zlib-ng.h). */
export const Z_OK = 0
export const Z_STREAM_END = 1
export const Z_BUF_ERROR = -5

export interface ZlibngEngine {
  readonly exports: ZlibngExports
  readonly heap: WasmHeap
}

let engine: Promise<ZlibngEngine> | null = null

/** Loads and instantiates `zlibng-deflate.wasm` once. */
export function loadZlibngEngine(): Promise<ZlibngEngine> {
  engine ??= (async () => {
    const heap = new WasmHeap()
    const instance = await instantiate(zlibngDeflateWasm(), {})
    const raw = instance.exports as unknown as ZlibngExports & { _initialize(): void }
    heap.attach(raw.memory)
    raw._initialize() // wasi-libc's reactor start-up
    return { exports: raw, heap }
  })()
  engine.catch(() => (engine = null))
  return engine
}
