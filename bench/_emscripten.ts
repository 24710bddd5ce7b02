/**
 * The few imports that standalone emscripten builds of libzstd ask for: the benches run
 * the third-party builds sluice shipped before its own (bench/engines.ts,
 * bench/zstd-brotli-micro.ts). The packages' own JS glue is not used: it decodes its
 * wasm from an embedded base64 string and instantiates it itself.
 */
import type { WasmHeap } from '../lib/codecs/wasm/wasm-heap.js'

/** 2 GiB: the wasm32 limit emscripten builds are linked with (`MAXIMUM_MEMORY`). */
const MAX_HEAP = 2 ** 31
const PAGE = 65536

/**
 * `env` imports for emscripten builds without a filesystem: heap growth (both the
 * current `emscripten_resize_heap` and the older `emscripten_notify_memory_growth`
 * callback), `memcpy` of large blocks and the i64 legalisation stub.
 */
export function emscriptenImports(heap: WasmHeap): WebAssembly.Imports {
  const env = {
    emscripten_notify_memory_growth: (_index: number): void => heap.refresh(),
    emscripten_resize_heap: (requested: number): number => {
      const memory = heap.memory!
      requested >>>= 0
      const current = memory.buffer.byteLength
      if (requested <= current) return 1
      if (requested > MAX_HEAP) return 0
      // Grow geometrically (like emscripten) so a slowly growing heap does not call
      // grow() for every allocation, but never past the wasm32 limit.
      const target = Math.min(MAX_HEAP, Math.max(requested, current + (current >>> 2)))
      try {
        memory.grow(Math.ceil((target - current) / PAGE))
      } catch {
        try {
          memory.grow(Math.ceil((requested - current) / PAGE))
        } catch {
          return 0 // malloc returns NULL; libzstd reports memory_allocation
        }
      }
      heap.refresh()
      return 1
    },
    emscripten_memcpy_big: (dst: number, src: number, length: number): void => {
      heap.refresh()
      heap.bytes.copyWithin(dst, src, src + length)
    },
    setTempRet0: (_value: number): void => {},
  }
  return { env, wasi_snapshot_preview1: env }
}
