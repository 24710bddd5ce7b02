/**
 * The few imports that standalone emscripten builds of libzstd ask for, and a view of
 * their linear memory that follows `memory.grow()`.
 *
 * The packages' own JS glue is not used: it decodes its wasm from an embedded base64
 * string and instantiates it itself (no way to pass a precompiled `WebAssembly.Module`
 * for workerd), prints through `console`, and aborts by throwing from deep inside.
 */

/** A wasm linear memory with byte and 32-bit views that are refreshed after growth. */
export class WasmHeap {
  /** The instance's memory, set once the instance exists. */
  memory: WebAssembly.Memory | null = null
  /** Bytes of the memory; replaced when the memory grows (growth detaches the old buffer). */
  bytes = new Uint8Array(0)
  /** Little-endian 32-bit words of the memory (wasm32 pointers and size_t). */
  words = new Uint32Array(0)

  attach(memory: WebAssembly.Memory): void {
    this.memory = memory
    this.refresh()
  }

  /** Re-creates the views when the memory grew; cheap identity check otherwise. */
  refresh(): void {
    const buffer = this.memory!.buffer
    if (this.bytes.buffer !== buffer) {
      this.bytes = new Uint8Array(buffer)
      this.words = new Uint32Array(buffer)
    }
  }
}

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
