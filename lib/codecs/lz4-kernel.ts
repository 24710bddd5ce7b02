/**
 * What the LZ4 frame codecs ask of a block kernel, and the TypeScript kernels (the `'js'`
 * engine; the wasm engine's are in lz4-wasm.ts). A frame kernel decodes a frame's
 * blocks and keeps what the frame needs between them (the history of linked blocks, the
 * content hash); an encode kernel makes frame blocks and keeps the content hash. The
 * codecs (lz4-frame-decode.ts, lz4-frame-encode.ts) hold the framing and the checks.
 */
import { readU32LE, writeU32LE } from '../endian.js'
import type { OutputStage } from './frame-codec.js'
import { createHashTable, decodeBlock, encodeBlock, ERR_OUTPUT } from './lz4-block.js'
import { BLOCK_UNCOMPRESSED, WINDOW } from './lz4-frame-format.js'
import { HC_MIN_LEVEL, hcBlockCompressor, type HcBlockCompressor } from './lz4hc.js'
import { Xxh32, xxh32 } from './xxhash32.js'

/** `FrameKernel.decode()`: the block checksum did not match (`FrameKernel.checksum` has the computed one). */
export const ERR_BLOCK_CHECKSUM = -5
/** A kernel could not get the memory it needs (a wasm memory cannot grow further). */
export const ERR_MEMORY = -6

/**
 * A frame decoder's block kernel: one per decoder. It decodes each compressed block
 * into the caller's `dst` as far as it fits (the rest into the decoder's stage) and
 * keeps the frame's linked-block history and content hash.
 */
export interface FrameKernel {
  /** Starts a frame: empty history; the content hash is reset when `contentChecksum`. */
  begin(blockMax: number, linked: boolean, contentChecksum: boolean): void
  /**
   * Decodes the compressed block `data[start, start + size)` into at most `limit` bytes,
   * after checking the block checksum stored right after it when `blockChecksum`; adds
   * the output to the history and the content hash. The output goes to `dst[at]` as far
   * as `dst` has room, the rest to `stage` (empty before). Returns the decoded size, an
   * `ERR_*` code of `decodeBlock`, `ERR_BLOCK_CHECKSUM` or `ERR_MEMORY`.
   */
  decode(data: Uint8Array, start: number, size: number, limit: number, blockChecksum: boolean, dst: Uint8Array, at: number, stage: OutputStage): number
  /** The block checksum computed by the last `decode()` that returned `ERR_BLOCK_CHECKSUM`. */
  readonly checksum: number
  /**
   * Adds a stored (uncompressed) block's bytes, which the decoder copied to
   * `dst[start, end)`, to the history and the content hash; returns 0 or `ERR_MEMORY`.
   */
  append(dst: Uint8Array, start: number, end: number): number
  /**
   * The decoder returns to its caller: the kernel lets go of the caller's `dst`, first
   * keeping what the history needs of it when `more` blocks of the frame may follow.
   */
  leave(more: boolean): void
  /** The content hash of the frame so far (unsigned). */
  digest(): number
  /** Frees what the kernel holds for this decoder. */
  release(): void
}

/**
 * A frame encoder's block compressor: one per encoder. It writes whole frame blocks
 * (the same bytes in every engine) and keeps the frame's content hash.
 */
export interface EncodeKernel {
  /** Starts a frame: resets the content hash (a new kernel starts reset). */
  begin(): void
  /**
   * Makes the frame block for `data[start, end)` (1 byte to 4 MiB): the 4-byte size
   * field, the block compressed at `level` (1-2 the fast search, 3-12 LZ4 HC, whose
   * compressor the module loaded before creating the encoder; or stored when it would
   * not shrink, "Block Size": incompressible data "shall be passed in uncompressed
   * format") and, when `blockChecksum`, its checksum; adds the input to the content hash
   * when `contentChecksum`. Writes it to `dst[at]` as far as `dst` has room, the rest to
   * `stage` (empty before). Returns the frame block's length (at most
   * `end - start + 8`), or `ERR_MEMORY`.
   */
  block(data: Uint8Array, start: number, end: number, level: number, blockChecksum: boolean, contentChecksum: boolean, dst: Uint8Array, at: number, stage: OutputStage): number
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

/**
 * The TypeScript frame kernel. A block decodes straight into `dst` when `dst` has room
 * for its largest output (or it turns out to fit anyway); one that does not is decoded
 * into the stage and handed out from there. Linked blocks reach back into the output
 * of this call still in `dst` (`dst[pendingStart, pendingEnd)`) and, before it, into
 * `history` (the last 64 KiB of output before that), which takes the bytes of `dst`
 * only when the call ends.
 */
class JsFrameKernel implements FrameKernel {
  checksum = 0
  private linked = false
  private contentChecksum = false
  private readonly hash = new Xxh32()
  /** The last `historyLength` (<= 64 KiB) bytes of output before the pending ones, oldest first. */
  private history: Uint8Array | null = null
  private historyLength = 0
  /** Output of this call in the caller's `dst` not yet in `history` (linked blocks). */
  private pendingDst: Uint8Array | null = null
  private pendingStart = 0
  private pendingEnd = 0

  begin(_blockMax: number, linked: boolean, contentChecksum: boolean): void {
    this.linked = linked
    this.contentChecksum = contentChecksum
    if (contentChecksum) this.hash.reset()
    this.historyLength = 0
    this.pendingDst = null
  }

  /** Makes `dst[at]` the end of the pending output (keeping the pending output first when it is elsewhere). */
  private continueAt(dst: Uint8Array, at: number): void {
    if (dst === this.pendingDst && at === this.pendingEnd) return
    this.keepPending()
    this.pendingDst = dst
    this.pendingStart = this.pendingEnd = at
  }

  /** Moves the pending output into `history`. */
  private keepPending(): void {
    if (this.pendingDst !== null) this.remember(this.pendingDst, this.pendingStart, this.pendingEnd)
    this.pendingDst = null
  }

  /** Appends `data[start, end)` to the 64 KiB history, keeping the newest bytes. */
  private remember(data: Uint8Array, start: number, end: number): void {
    const n = end - start
    if (n <= 0) return
    const h = (this.history ??= new Uint8Array(WINDOW))
    if (n >= WINDOW) {
      h.set(data.subarray(end - WINDOW, end), 0)
      this.historyLength = WINDOW
      return
    }
    const keep = Math.min(this.historyLength, WINDOW - n)
    if (keep < this.historyLength) h.copyWithin(0, this.historyLength - keep, this.historyLength)
    h.set(data.subarray(start, end), keep)
    this.historyLength = keep + n
  }

  decode(data: Uint8Array, start: number, size: number, limit: number, blockChecksum: boolean, dst: Uint8Array, at: number, stage: OutputStage): number {
    if (blockChecksum) {
      const actual = xxh32(data, start, start + size)
      if (actual !== readU32LE(data, start + size)) {
        this.checksum = actual
        return ERR_BLOCK_CHECKSUM
      }
    }
    const linked = this.linked
    if (linked) this.continueAt(dst, at)
    const room = dst.length - at
    const history = linked ? this.history : null
    let n = decodeBlock(data, start, start + size, dst, at, room >= limit ? at + limit : dst.length, linked ? this.pendingStart : at, history, this.historyLength)
    if (n === ERR_OUTPUT && room < limit) {
      // Does not fit in dst: decode into the stage, then hand out what fits.
      if (linked) this.keepPending()
      const out = stage.take(limit)
      n = decodeBlock(data, start, start + size, out, 0, limit, 0, linked ? this.history : null, this.historyLength)
      if (n < 0) return n
      if (this.contentChecksum) this.hash.update(out, 0, n)
      if (linked) this.remember(out, 0, n)
      dst.set(out.subarray(0, room), at)
      stage.hold(room, n)
      return n
    }
    if (n < 0) return n
    if (this.contentChecksum) this.hash.update(dst, at, at + n)
    if (linked) this.pendingEnd = at + n
    return n
  }

  append(dst: Uint8Array, start: number, end: number): number {
    if (this.contentChecksum) this.hash.update(dst, start, end)
    if (this.linked) {
      this.continueAt(dst, start)
      this.pendingEnd = end
    }
    return 0
  }

  leave(more: boolean): void {
    if (more) this.keepPending()
    this.pendingDst = null
  }

  digest(): number {
    return this.hash.digest()
  }

  release(): void {
    this.history = null
    this.pendingDst = null
  }
}

/** The TypeScript encode kernel: a block compresses straight into `dst` when `dst` has room for its worst case. */
class JsEncodeKernel implements EncodeKernel {
  private readonly hash = new Xxh32()
  /** The hash table of `encodeBlock` (allocated on the first block). */
  private table: Int32Array | null = null
  /** The HC compressor (levels 3 to 12; loaded by the module's prepare()), made on the first block. */
  private hc: HcBlockCompressor | null = null

  begin(): void {
    this.hash.reset()
  }

  block(data: Uint8Array, start: number, end: number, level: number, blockChecksum: boolean, contentChecksum: boolean, dst: Uint8Array, at: number, stage: OutputStage): number {
    const n = end - start
    if (contentChecksum) this.hash.update(data, start, end)
    const direct = dst.length - at >= n + 8
    const out = direct ? dst : stage.take(n + 8)
    const o = direct ? at : 0
    // Output is capped at n - 1 bytes: a block that would not shrink is stored.
    const c =
      level >= HC_MIN_LEVEL
        ? (this.hc ??= hcBlockCompressor('lz4', level)).compress(data, start, end, out, o + 4, o + 4 + n - 1, level)
        : encodeBlock(data, start, end, out, o + 4, o + 4 + n - 1, (this.table ??= createHashTable()))
    let size: number
    if (c > 0) {
      writeU32LE(out, o, c)
      size = c
    } else {
      writeU32LE(out, o, (n | BLOCK_UNCOMPRESSED) >>> 0)
      out.set(data.subarray(start, end), o + 4)
      size = n
    }
    let e = o + 4 + size
    if (blockChecksum) {
      writeU32LE(out, e, xxh32(out, o + 4, e))
      e += 4
    }
    if (direct) return e - at
    const fits = Math.min(e, dst.length - at)
    dst.set(out.subarray(0, fits), at)
    stage.hold(fits, e)
    return e
  }

  digest(): number {
    return this.hash.digest()
  }

  release(): void {
    this.table = null
    this.hc = null
  }
}

/** A TypeScript frame kernel (one per decoder). */
export const jsFrameKernel = (): FrameKernel => new JsFrameKernel()

/** A TypeScript encode kernel (one per encoder). */
export const jsEncodeKernel = (): EncodeKernel => new JsEncodeKernel()
