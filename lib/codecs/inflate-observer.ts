/**
 * What a raw deflate body offers beyond decoding, for random access into deflate streams
 * (zran's access points, issue 31): it reports where each block starts while it decodes,
 * so that an index is built in the same pass (`observer`), hands out the history a block
 * start needs (`history()`), and starts decoding at any bit of a byte (`skipBits()`), so
 * that decoding resumes at an access point with its window as the preset history
 * (`preset()`, deflate.ts). Both of sluice's inflaters (inflate.ts, inflate-wasm.ts)
 * implement it; node:zlib's body does not (it cannot start inside a byte).
 */
import type { DeflateBody } from './deflate.js'

/** Receives the block starts of a deflate stream while it is decoded. */
export interface BlockObserver {
  /**
   * A block (its 3-bit header) starts at input bit `bit` after `out` bytes of output.
   * Bits count from the first bit of input byte 0 as the body's `inBase` counts bytes
   * (for the deflate family's wrappers: from the first byte of the member, header
   * included; LSB first within a byte, RFC 1951 section 3.1.1); `out` counts the output
   * since the body's `reset()` (a preset history is not output). Called once per block,
   * before its header is read, also for the first block; never after the final block.
   * During the call the body's `history()` is the window at this block start.
   */
  block(bit: number, out: number): void
}

/** A raw deflate body that reports block starts and can start inside a byte. */
export interface IndexableBody extends DeflateBody {
  /** Told of every block start while set (`null`, the default, costs one test per block). */
  observer: BlockObserver | null
  /**
   * A copy of the history matches may reach back into at this moment: the last
   * min(32768, history) bytes, the preset history included. Exact inside `observer.block`.
   */
  history(): Uint8Array
  /**
   * Called after `reset()` (and `preset()`) before the first `run()`: the first `bits`
   * (0 to 7) bits of the first input byte belong to the block before, so decoding starts
   * after them (zlib's `inflatePrime`, the other way round).
   */
  skipBits(bits: number): void
}
