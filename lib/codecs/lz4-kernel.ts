/**
 * What the LZ4 codecs ask of a block kernel with memory of its own (the wasm engine,
 * lz4-wasm.ts), and the error ids kernels return beside `decodeBlock`'s (lz4-block.ts).
 */

/** `FrameKernel.decode()`: the block checksum did not match (`FrameKernel.checksum` has the computed one). */
export const ERR_BLOCK_CHECKSUM = -5
/** A kernel could not get the memory it needs (a wasm memory cannot grow further). */
export const ERR_MEMORY = -6

/**
 * A block kernel with memory of its own (the wasm engine, lib/codecs/lz4-wasm.ts): it
 * decodes each block there, keeps the linked-block history and the content checksum
 * there, and the frame decoder copies the decoded block out. One per frame decoder.
 * Without one, the frame decoder decodes in TypeScript straight into `dst`.
 */
export interface FrameKernel {
  /** Starts a frame: empty history; the content hash is reset when `contentChecksum`. */
  begin(blockMax: number, linked: boolean, contentChecksum: boolean): void
  /**
   * Decodes the compressed block `data[start, start + size)` into at most `limit`
   * bytes, after checking the block checksum stored right after it when
   * `blockChecksum`; adds the output to the history and the content hash. Returns the
   * decoded size, an `ERR_*` code of `decodeBlock`, `ERR_BLOCK_CHECKSUM` or `ERR_MEMORY`.
   */
  decode(data: Uint8Array, start: number, size: number, limit: number, blockChecksum: boolean): number
  /** The block checksum computed by the last `decode()` that returned `ERR_BLOCK_CHECKSUM`. */
  readonly checksum: number
  /** Copies `length` bytes of the last decoded block, from its byte `from`, into `dst[at]`. */
  copyOut(from: number, dst: Uint8Array, at: number, length: number): void
  /**
   * Adds a stored (uncompressed) block's bytes `data[start, end)` (at most the block
   * maximum size) to the history and content hash; returns 0 or `ERR_MEMORY`.
   */
  append(data: Uint8Array, start: number, end: number): number
  /** The content hash of the frame so far (unsigned). */
  digest(): number
  /** Frees what the kernel holds for this decoder. */
  release(): void
}

/**
 * A block compressor with memory of its own (the wasm engine, lib/codecs/lz4-wasm.ts):
 * it writes whole frame blocks, the same bytes as `encodeBlock`, and keeps the frame's
 * content hash. One per frame encoder. Without one, the frame encoder compresses in
 * TypeScript.
 */
export interface EncodeKernel {
  /** Starts a frame: resets the content hash (a new kernel starts reset). */
  begin(): void
  /**
   * Makes the frame block for `data[start, end)` (1 byte to 4 MiB) in the kernel's
   * memory: the 4-byte size field, the block compressed at `level` (1-2 the fast search,
   * 3-12 LZ4 HC, whose kernel the module loaded before creating the encoder) or stored
   * when it would not shrink, and, when `blockChecksum`, its checksum; adds the input to
   * the content hash when `contentChecksum`. Returns the frame block's length (at most
   * `end - start + 8`), or `ERR_MEMORY`.
   */
  block(data: Uint8Array, start: number, end: number, level: number, blockChecksum: boolean, contentChecksum: boolean): number
  /** Copies `length` bytes of the last frame block, from its byte `from`, to `out[at]`. */
  copyOut(from: number, out: Uint8Array, at: number, length: number): void
  /** The content hash of the frame so far (unsigned). */
  digest(): number
  /** Frees what the kernel holds for this encoder. */
  release(): void
}

/**
 * Decodes the whole raw block `src` into `dst[0, size)`; returns the decoded size, an
 * `ERR_*` code of `decodeBlock` or `ERR_MEMORY` (`Lz4BlockDecoder`'s kernel).
 */
export type RawBlockKernel = (src: Uint8Array, dst: Uint8Array, size: number) => number
