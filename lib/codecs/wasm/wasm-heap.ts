/** A view of an engine's linear memory that follows `memory.grow()`. */

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
