/**
 * What the Snappy codecs ask of a block kernel: whole-block decoding and compression and
 * CRC-32C. The TypeScript one (`jsSnappyKernel`) runs snappy-block.ts and crc32c.ts; the
 * wasm engine's (snappy-wasm.ts) stages the bytes through its memory.
 */
import { crc32c } from './crc32c.js'
import { createSnappyTable, decodeBlockInto, encodeBlock, type ElementState } from './snappy-block.js'

/** A kernel could not get the memory it needs (a wasm memory cannot grow further). */
export const ERR_MEMORY = -6

export interface SnappyKernel {
  /**
   * Decodes the elements `src[start, end)` (after the preamble) into
   * `dst[at, at + length)`, `length` being the preamble's. Returns `length`, or an
   * ERR_* code of snappy-block.ts (ERR_INPUT also when the elements end early) or
   * ERR_MEMORY. With `checksum`, a successful call also sets `checksum` to the output's
   * CRC-32C (the wasm kernel computes it before copying the output out).
   */
  decodeInto(src: Uint8Array, start: number, end: number, dst: Uint8Array, at: number, length: number, checksum?: boolean): number
  /** The CRC-32C of the last output decoded with `checksum` (unsigned). */
  checksum: number
  /** CRC-32C of `data[start, end)` (unsigned). */
  crc32c(data: Uint8Array, start: number, end: number): number
  /**
   * Compresses `src[start, end)` as one block, preamble included, into `dst[op]`, which
   * has room for `maxCompressedLength(end - start)` bytes. Returns the end of the block,
   * or ERR_MEMORY. With `checksum`, also sets `checksum` to the input's CRC-32C.
   * Deterministic; engines need not produce the same bytes.
   */
  encodeInto(src: Uint8Array, start: number, end: number, dst: Uint8Array, op: number, checksum?: boolean): number
}

/** The TypeScript kernel. */
export function jsSnappyKernel(): SnappyKernel {
  const state: ElementState = { ip: 0, op: 0, literalLeft: 0, need: 0 }
  let table: Uint16Array | null = null
  return {
    checksum: 0,
    decodeInto(src, start, end, dst, at, length, checksum) {
      const n = decodeBlockInto(src, start, end, dst, at, length, state)
      if (checksum && n === length) this.checksum = crc32c(dst, 0, at, at + length)
      return n
    },
    crc32c: (data, start, end) => crc32c(data, 0, start, end),
    encodeInto(src, start, end, dst, op, checksum) {
      if (checksum) this.checksum = crc32c(src, 0, start, end)
      return encodeBlock(src, start, end, dst, op, (table ??= createSnappyTable()))
    },
  }
}
