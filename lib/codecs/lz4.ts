/**
 * LZ4 frame format (lz4/lz4 `doc/lz4_Frame_format.md`, v1.6.x) and raw LZ4 blocks as
 * span codecs (lib/codec.ts).
 *
 * Frame: magic 04 22 4D 18, descriptor (FLG, BD, optional content size and dictionary
 * ID, header checksum), blocks (4-byte size, high bit = stored uncompressed, optional
 * xxHash32 block checksum), end mark 0, optional xxHash32 content checksum. Skippable
 * frames (magic 0x184D2A50..5F) are skipped whole.
 */
import type { Decoder, Encoder } from '../codec.js'
import { CodecError, type ErrorCode, type Failure } from '../errors.js'
import type { CodecModule } from '../codec.js'
import { checkLevel, checkMaxOutput, traitsOf } from '../formats.js'
import { Status } from '../status.js'
import { readU32LE, writeU32LE } from '../endian.js'
import { blockErrorMessage, createHashTable, decodeBlock, DEFAULT_HASH_LOG, encodeBlock, ERR_OUTPUT, maxCompressedSize } from './lz4-block.js'
import { Xxh32, xxh32 } from './xxhash32.js'

const FORMAT = 'lz4'
const BLOCK_FORMAT = 'lz4-block'

/** Frame magic number 0x184D2204, little-endian ("General Structure"). */
const MAGIC = 0x184d2204
/** Skippable frames: 0x184D2A50..0x184D2A5F ("Skippable Frames"). */
const SKIPPABLE_MASK = 0xfffffff0
const SKIPPABLE_MAGIC = 0x184d2a50
/** The legacy frame ("Legacy frame"): recognised only to say it is not supported. */
const LEGACY_MAGIC = 0x184c2102

/** FLG bits ("FLG byte"). */
const FLG_VERSION_MASK = 0xc0
const FLG_VERSION_01 = 0x40
const FLG_BLOCK_INDEPENDENCE = 0x20
const FLG_BLOCK_CHECKSUM = 0x10
const FLG_CONTENT_SIZE = 0x08
const FLG_CONTENT_CHECKSUM = 0x04
const FLG_RESERVED = 0x02
const FLG_DICT_ID = 0x01
/** BD bits ("BD byte"): bit 7 and bits 3-0 reserved, must be 0. */
const BD_RESERVED = 0x8f

/** Block Maximum Size by BD id 4..7: 64 KB, 256 KB, 1 MB, 4 MB ("Block Maximum Size"). */
const BLOCK_MAX_BY_ID = [0, 0, 0, 0, 0x10000, 0x40000, 0x100000, 0x400000] as const
/** Block size field: the high bit says "stored uncompressed" ("Block Size"). */
const BLOCK_UNCOMPRESSED = 0x80000000
/** Linked blocks reach back at most 64 KiB ("Block Independence flag"). */
const WINDOW = 0x10000

// Decoder stages.
const S_MAGIC = 0
const S_HEADER = 1
const S_SKIP_SIZE = 2
const S_SKIP = 3
const S_BLOCK_SIZE = 4
const S_BLOCK = 5
const S_RAW = 6
const S_RAW_CHECKSUM = 7
const S_DRAIN = 8
const S_CONTENT_CHECKSUM = 9
const S_DONE = 10
const S_FAILED = 11

function hex(v: number): string {
  return '0x' + (v >>> 0).toString(16).padStart(8, '0')
}

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
   * memory: the 4-byte size field, the block compressed with a `2^hashLog`-entry table
   * (or stored when it would not shrink) and, when `blockChecksum`, its checksum; adds
   * the input to the content hash when `contentChecksum`. Returns the frame block's
   * length (at most `end - start + 8`), or `ERR_MEMORY`.
   */
  block(data: Uint8Array, start: number, end: number, hashLog: number, blockChecksum: boolean, contentChecksum: boolean): number
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

/** The TypeScript raw block kernel. */
const decodeRawBlock: RawBlockKernel = (src, dst, size) => decodeBlock(src, 0, src.length, dst, 0, size)

/**
 * Streaming LZ4 frame decoder. Decodes one frame (or skips one skippable frame) and
 * returns `Done` at its end with any following bytes unconsumed; the driver calls
 * `reset()` for the next frame.
 *
 * Memory: a whole compressed block found in `src` is decoded straight into `dst` when
 * `dst` has room for the block's largest possible output (the block maximum size, or
 * the rest of the declared content size), or when the block turns out to fit anyway.
 * Only a block split across calls is copied into `blockIn`, and only a block that does
 * not fit in `dst` is decoded into `blockOut` and drained; both are allocated on first
 * need, sized by the header-bounded block size. Linked-block frames keep the last
 * 64 KiB of output in `history` between calls.
 */
class Lz4FrameDecoder implements Decoder {
  readonly format = FORMAT
  consumed = 0
  written = 0
  failure: Failure | null = null
  /** Content size from the header of the current frame, or -1 if absent/not yet read. */
  contentSize = -1

  /** `maxOutputBytes` option: a frame declaring more content fails early. */
  private readonly maxOutput: number
  /** Current stage (S_*). */
  private stage = S_MAGIC
  /** Input consumed since reset() before the current call (for failure offsets). */
  private inputBase = 0
  /** Gathers small fields split across calls: magic, descriptor (<= 15), sizes, checksums. */
  private readonly small = new Uint8Array(16)
  /** Bytes of `small` filled. */
  private smallLength = 0
  /** Frame flags (FLG byte) of the current frame. */
  private flags = 0
  /** Block Maximum Size of the current frame. */
  private blockMax = 0
  /** Bytes of output produced in this frame so far. */
  private totalOut = 0
  /** Size of the current block's data (without its checksum). */
  private blockSize = 0
  /** Bytes of the current stored block (S_RAW) or skippable payload (S_SKIP) still to pass. */
  private remaining = 0
  /** Buffer for a compressed block (+ its checksum) split across calls; grows to need. */
  private blockIn: Uint8Array | null = null
  /** Bytes of `blockIn` filled. */
  private blockInLength = 0
  /** Decoded block that did not fit in `dst`; drained over calls. */
  private blockOut: Uint8Array | null = null
  /** Drain cursor and end in `blockOut`. */
  private drainPos = 0
  private drainEnd = 0
  /** Content checksum state. */
  private readonly contentHash = new Xxh32()
  /** Block checksum state for stored blocks streamed through (allocated on need). */
  private rawHash: Xxh32 | null = null
  /** Linked blocks: the last `historyLength` (<= 64 KiB) bytes of output, oldest first. */
  private history: Uint8Array | null = null
  private historyLength = 0
  /** Decodes blocks in memory of its own (wasm engine), or null: TypeScript into `dst`. */
  private readonly kernel: FrameKernel | null

  constructor(options: Record<string, unknown>, kernel: FrameKernel | null) {
    this.maxOutput = checkMaxOutput(FORMAT, options.maxOutputBytes)
    this.kernel = kernel
  }

  reset(): void {
    this.consumed = 0
    this.written = 0
    this.failure = null
    this.contentSize = -1
    this.stage = S_MAGIC
    this.inputBase = 0
    this.smallLength = 0
    this.flags = 0
    this.blockMax = 0
    this.totalOut = 0
    this.blockInLength = 0
    this.drainPos = 0
    this.drainEnd = 0
    this.historyLength = 0
  }

  dispose(): void {
    this.blockIn = null
    this.blockOut = null
    this.history = null
    this.kernel?.release()
  }

  private fail(code: ErrorCode, message: string, at: number): Status {
    this.failure = { code, message, offset: this.inputBase + at }
    this.stage = S_FAILED
    return Status.InvalidData
  }

  /** Copies up to `need - smallLength` bytes of src into `small`; returns the new ip. */
  private gather(src: Uint8Array, ip: number, need: number): number {
    let n = this.smallLength
    const end = src.length
    while (n < need && ip < end) this.small[n++] = src[ip++]!
    this.smallLength = n
    return ip
  }

  /**
   * Appends `data[start, end)` to the 64 KiB history of linked blocks, keeping the
   * newest bytes.
   */
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

  transform(src: Uint8Array, dst: Uint8Array, _final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.stage === S_FAILED) return Status.InvalidData
    if (this.stage === S_DONE) return Status.Done
    if (this.stage >= S_BLOCK_SIZE) return this.transformBlocks(src, dst, 0)
    // Magic and descriptor (or a skippable frame): no output.
    let ip = 0
    let status: Status = Status.NeedMoreData
    const srcEnd = src.length
    loop: for (;;) {
      switch (this.stage) {
        case S_MAGIC: {
          ip = this.gather(src, ip, 4)
          if (this.smallLength < 4) break loop
          this.smallLength = 0
          const magic = readU32LE(this.small, 0)
          if (magic === MAGIC) {
            this.stage = S_HEADER
          } else if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
            this.stage = S_SKIP_SIZE
          } else if (magic === LEGACY_MAGIC) {
            status = this.fail('UNSUPPORTED', 'legacy LZ4 frame (magic 0x184c2102) is not supported', ip - 4)
            break loop
          } else {
            status = this.fail('INVALID_DATA', `bad magic ${hex(magic)}, expected 0x184d2204 or a skippable frame 0x184d2a5X`, ip - 4)
            break loop
          }
          continue
        }
        case S_HEADER: {
          // FLG and BD first: they say how long the descriptor is.
          ip = this.gather(src, ip, 2)
          if (this.smallLength < 2) break loop
          const flg = this.small[0]!
          const bd = this.small[1]!
          const at = ip - this.smallLength
          if ((flg & FLG_VERSION_MASK) !== FLG_VERSION_01) {
            status = this.fail('INVALID_DATA', `frame version ${flg >>> 6}, expected 1 (FLG ${flg})`, at)
            break loop
          }
          if ((flg & FLG_RESERVED) !== 0 || (bd & BD_RESERVED) !== 0) {
            status = this.fail('INVALID_DATA', `reserved bits set in the frame descriptor (FLG ${flg}, BD ${bd})`, at)
            break loop
          }
          const blockId = (bd >>> 4) & 7
          if (blockId < 4) {
            status = this.fail('INVALID_DATA', `block maximum size id ${blockId} is undefined (4..7 allowed)`, at + 1)
            break loop
          }
          const descriptorLength = 2 + (flg & FLG_CONTENT_SIZE ? 8 : 0) + (flg & FLG_DICT_ID ? 4 : 0) + 1
          ip = this.gather(src, ip, descriptorLength)
          if (this.smallLength < descriptorLength) break loop
          const checksum = (xxh32(this.small, 0, descriptorLength - 1) >>> 8) & 0xff
          const stored = this.small[descriptorLength - 1]!
          if (checksum !== stored) {
            status = this.fail('CHECKSUM_MISMATCH', `header checksum ${stored} does not match the descriptor's ${checksum}`, ip - 1)
            break loop
          }
          if (flg & FLG_DICT_ID) {
            const id = readU32LE(this.small, descriptorLength - 5)
            status = this.fail('UNSUPPORTED', `frame needs dictionary ${id}; preset dictionaries are not supported`, ip - 5)
            break loop
          }
          if (flg & FLG_CONTENT_SIZE) {
            const low = readU32LE(this.small, 2)
            const high = readU32LE(this.small, 6)
            // Content size is a u64 ("Content Size"); we count bytes in doubles.
            if (high >= 0x200000) {
              status = this.fail('UNSUPPORTED', `content size ${high} * 2^32 + ${low} exceeds 2^53`, ip - 9)
              break loop
            }
            const size = high * 0x100000000 + low
            if (size > this.maxOutput) {
              status = this.fail('LIMIT_EXCEEDED', `content size ${size} exceeds maxOutputBytes ${this.maxOutput}`, ip - 9)
              break loop
            }
            this.contentSize = size
          }
          this.flags = flg
          this.blockMax = BLOCK_MAX_BY_ID[blockId]!
          this.smallLength = 0
          this.totalOut = 0
          if (this.kernel !== null) {
            this.kernel.begin(this.blockMax, (flg & FLG_BLOCK_INDEPENDENCE) === 0, (flg & FLG_CONTENT_CHECKSUM) !== 0)
          } else if (flg & FLG_CONTENT_CHECKSUM) this.contentHash.reset()
          this.historyLength = 0
          this.stage = S_BLOCK_SIZE
          return this.transformBlocks(src, dst, ip)
        }
        case S_SKIP_SIZE: {
          ip = this.gather(src, ip, 4)
          if (this.smallLength < 4) break loop
          this.smallLength = 0
          this.remaining = readU32LE(this.small, 0)
          this.stage = S_SKIP
          continue
        }
        case S_SKIP: {
          const n = Math.min(this.remaining, srcEnd - ip)
          ip += n
          this.remaining -= n
          if (this.remaining > 0) break loop
          this.stage = S_DONE
          status = Status.Done
          break loop
        }
        default:
          throw new Error(`lz4: unexpected stage ${this.stage}`)
      }
    }
    this.consumed = ip
    this.inputBase += ip
    return status
  }

  /** The block stages, from `src[ip]`; writes from `dst[0]`. */
  private transformBlocks(src: Uint8Array, dst: Uint8Array, ip: number): Status {
    const flags = this.flags
    const linked = (flags & FLG_BLOCK_INDEPENDENCE) === 0
    const blockChecksum = (flags & FLG_BLOCK_CHECKSUM) !== 0
    const contentChecksum = (flags & FLG_CONTENT_CHECKSUM) !== 0
    const checksumLength = blockChecksum ? 4 : 0
    const srcEnd = src.length
    const dstEnd = dst.length
    let op = 0
    // Linked blocks: dst[pending, op) is output of this call not yet in `history`.
    let pending = 0
    let status: Status = Status.NeedMoreData
    loop: for (;;) {
      switch (this.stage) {
        case S_BLOCK_SIZE: {
          let field: number
          if (this.smallLength === 0 && srcEnd - ip >= 4) {
            field = readU32LE(src, ip)
            ip += 4
          } else {
            ip = this.gather(src, ip, 4)
            if (this.smallLength < 4) break loop
            this.smallLength = 0
            field = readU32LE(this.small, 0)
          }
          if (field === 0) {
            // EndMark ("General Structure"): the content size, when declared, must match.
            if (this.contentSize >= 0 && this.totalOut !== this.contentSize) {
              status = this.fail('INVALID_DATA', `frame decoded to ${this.totalOut} bytes but its header declares ${this.contentSize}`, ip - 4)
              break loop
            }
            this.stage = contentChecksum ? S_CONTENT_CHECKSUM : S_DONE
            if (this.stage === S_DONE) {
              status = Status.Done
              break loop
            }
            continue
          }
          const size = field & 0x7fffffff
          // "Block Size shall never be larger than Block Maximum Size": checked before
          // any buffer is sized from it.
          if (size > this.blockMax) {
            status = this.fail('INVALID_DATA', `block size ${size} exceeds the frame's maximum ${this.blockMax}`, ip - 4)
            break loop
          }
          this.blockSize = size
          if (field & BLOCK_UNCOMPRESSED) {
            if (this.contentSize >= 0 && this.totalOut + size > this.contentSize) {
              status = this.fail('INVALID_DATA', `stored block of ${size} bytes goes past the declared content size ${this.contentSize}`, ip - 4)
              break loop
            }
            this.remaining = size
            if (blockChecksum) (this.rawHash ??= new Xxh32()).reset()
            this.stage = S_RAW
          } else {
            this.blockInLength = 0
            this.stage = S_BLOCK
          }
          continue
        }
        case S_BLOCK: {
          const size = this.blockSize
          const need = size + checksumLength
          let data: Uint8Array
          let start: number
          if (this.blockInLength === 0 && srcEnd - ip >= need) {
            // Whole block in src: no copy. With no room at all, leave it in src (the
            // caller passes it again) rather than allocate a buffer to decode into.
            if (op === dstEnd && this.totalOut !== this.contentSize) {
              status = Status.DestinationTooSmall
              break loop
            }
            data = src
            start = ip
            ip += need
          } else {
            // Split across calls: collect it, bounded by the header's block maximum.
            if (ip === srcEnd) break loop
            let buf = this.blockIn
            if (buf === null || buf.length < need) {
              const grown = new Uint8Array(Math.min(this.blockMax + 4, Math.max(need, buf ? buf.length * 2 : 0)))
              if (buf !== null) grown.set(buf.subarray(0, this.blockInLength))
              this.blockIn = buf = grown
            }
            const n = Math.min(need - this.blockInLength, srcEnd - ip)
            buf.set(src.subarray(ip, ip + n), this.blockInLength)
            this.blockInLength += n
            ip += n
            if (this.blockInLength < need) break loop
            data = buf
            start = 0
          }
          const blockAt = ip - need
          if (this.kernel !== null) {
            const put = this.decodeWithKernel(this.kernel, data, start, dst, op, blockAt)
            if (put < 0) {
              status = Status.InvalidData
              break loop
            }
            op += put
            continue
          }
          if (blockChecksum) {
            const stored = readU32LE(data, start + size)
            const actual = xxh32(data, start, start + size)
            if (stored !== actual) {
              status = this.fail('CHECKSUM_MISMATCH', `block checksum ${hex(stored)} does not match the block's ${hex(actual)}`, blockAt + size)
              break loop
            }
          }
          const limit = this.contentSize >= 0 ? Math.min(this.blockMax, this.contentSize - this.totalOut) : this.blockMax
          const room = dstEnd - op
          let n = decodeBlock(data, start, start + size, dst, op, room >= limit ? op + limit : dstEnd, linked ? pending : op, linked ? this.history : null, this.historyLength)
          if (n === ERR_OUTPUT && room < limit) {
            // Does not fit in dst: decode into blockOut, then drain it.
            if (linked) {
              this.remember(dst, pending, op)
              pending = op
            }
            let out = this.blockOut
            if (out === null || out.length < limit) this.blockOut = out = new Uint8Array(limit)
            n = decodeBlock(data, start, start + size, out, 0, limit, 0, linked ? this.history : null, this.historyLength)
            if (n >= 0) {
              if (contentChecksum) this.contentHash.update(out, 0, n)
              if (linked) this.remember(out, 0, n)
              this.totalOut += n
              this.blockInLength = 0
              this.drainPos = 0
              this.drainEnd = n
              this.stage = S_DRAIN
              continue
            }
          }
          if (n < 0) {
            const why = n === ERR_OUTPUT && limit < this.blockMax ? `block decodes past the declared content size ${this.contentSize}` : blockErrorMessage(n)
            status = this.fail('INVALID_DATA', why, blockAt)
            break loop
          }
          if (contentChecksum) this.contentHash.update(dst, op, op + n)
          op += n
          this.totalOut += n
          this.blockInLength = 0
          this.stage = S_BLOCK_SIZE
          continue
        }
        case S_DRAIN: {
          const n = Math.min(this.drainEnd - this.drainPos, dstEnd - op)
          dst.set(this.blockOut!.subarray(this.drainPos, this.drainPos + n), op)
          op += n
          this.drainPos += n
          // Already in `history` (remembered when decoded).
          pending = op
          if (this.drainPos < this.drainEnd) {
            status = Status.DestinationTooSmall
            break loop
          }
          this.stage = S_BLOCK_SIZE
          continue
        }
        case S_RAW: {
          if (this.remaining > 0) {
            const n = Math.min(this.remaining, srcEnd - ip, dstEnd - op)
            if (n === 0) {
              status = ip === srcEnd ? Status.NeedMoreData : Status.DestinationTooSmall
              break loop
            }
            dst.set(src.subarray(ip, ip + n), op)
            if (blockChecksum) this.rawHash!.update(src, ip, ip + n)
            if (this.kernel !== null) {
              if (this.kernel.append(src, ip, ip + n) === ERR_MEMORY) {
                status = this.fail('LIMIT_EXCEEDED', `the wasm engine could not grow its memory for a ${this.blockMax}-byte block`, ip)
                break loop
              }
            } else if (contentChecksum) this.contentHash.update(src, ip, ip + n)
            ip += n
            op += n
            this.totalOut += n
            this.remaining -= n
            if (this.remaining > 0) continue
          }
          this.stage = blockChecksum ? S_RAW_CHECKSUM : S_BLOCK_SIZE
          continue
        }
        case S_RAW_CHECKSUM: {
          ip = this.gather(src, ip, 4)
          if (this.smallLength < 4) break loop
          this.smallLength = 0
          const stored = readU32LE(this.small, 0)
          const actual = this.rawHash!.digest()
          if (stored !== actual) {
            status = this.fail('CHECKSUM_MISMATCH', `block checksum ${hex(stored)} does not match the stored block's ${hex(actual)}`, ip - 4)
            break loop
          }
          this.stage = S_BLOCK_SIZE
          continue
        }
        case S_CONTENT_CHECKSUM: {
          ip = this.gather(src, ip, 4)
          if (this.smallLength < 4) break loop
          this.smallLength = 0
          const stored = readU32LE(this.small, 0)
          const actual = this.kernel !== null ? this.kernel.digest() : this.contentHash.digest()
          if (stored !== actual) {
            status = this.fail('CHECKSUM_MISMATCH', `content checksum ${hex(stored)} does not match the decoded content's ${hex(actual)}`, ip - 4)
            break loop
          }
          this.stage = S_DONE
          status = Status.Done
          break loop
        }
        default:
          // S_DONE / S_FAILED are handled on entry; the header stages never reach here.
          throw new Error(`lz4: unexpected stage ${this.stage}`)
      }
    }
    // Keep the history of linked blocks for the next call (not needed once done).
    if (linked && this.kernel === null && status !== Status.Done && status !== Status.InvalidData) this.remember(dst, pending, op)
    this.consumed = ip
    this.written = op
    this.inputBase += ip
    return status
  }

  /**
   * S_BLOCK with a kernel: decodes the block `data[start, start + blockSize)` (which
   * came from input offset `blockAt`) in the kernel's memory and copies it to `dst[op]`;
   * what does not fit goes to `blockOut` and the stage becomes S_DRAIN. Returns the
   * bytes put into dst, or -1 after `fail()`.
   */
  private decodeWithKernel(kernel: FrameKernel, data: Uint8Array, start: number, dst: Uint8Array, op: number, blockAt: number): number {
    const size = this.blockSize
    const limit = this.contentSize >= 0 ? Math.min(this.blockMax, this.contentSize - this.totalOut) : this.blockMax
    const n = kernel.decode(data, start, size, limit, (this.flags & FLG_BLOCK_CHECKSUM) !== 0)
    if (n < 0) {
      if (n === ERR_BLOCK_CHECKSUM) {
        const stored = readU32LE(data, start + size)
        this.fail('CHECKSUM_MISMATCH', `block checksum ${hex(stored)} does not match the block's ${hex(kernel.checksum)}`, blockAt + size)
        return -1
      }
      if (n === ERR_MEMORY) {
        this.fail('LIMIT_EXCEEDED', `the wasm engine could not grow its memory for a ${this.blockMax}-byte block`, blockAt)
        return -1
      }
      const why = n === ERR_OUTPUT && limit < this.blockMax ? `block decodes past the declared content size ${this.contentSize}` : blockErrorMessage(n)
      this.fail('INVALID_DATA', why, blockAt)
      return -1
    }
    this.totalOut += n
    this.blockInLength = 0
    const direct = Math.min(n, dst.length - op)
    kernel.copyOut(0, dst, op, direct)
    if (direct < n) {
      let out = this.blockOut
      if (out === null || out.length < n - direct) this.blockOut = out = new Uint8Array(this.blockMax)
      kernel.copyOut(direct, out, 0, n - direct)
      this.drainPos = 0
      this.drainEnd = n - direct
      this.stage = S_DRAIN
    } else {
      this.stage = S_BLOCK_SIZE
    }
    return direct
  }
}

/** Accepted `blockSize` values: the four Block Maximum Sizes, by BD id. */
const BLOCK_ID_BY_SIZE: Record<number, number> = { 0x10000: 4, 0x40000: 5, 0x100000: 6, 0x400000: 7 }
/**
 * Default block size 64 KiB, chosen by measurement (bench/lz4-micro.ts, 16 MB corpora):
 * 4 MiB blocks encode at about the same speed and compress 4-5% smaller (text 0.400 vs
 * 0.421 of the input, node binary 0.520 vs 0.542; `lz4 -1 -B7` vs `-B4`: 0.414 vs
 * 0.421), but a stream then holds 4 MiB per encoder instead of 64 KiB, emits nothing
 * until 4 MiB of input arrived, and makes every streaming decoder buffer 4 MiB blocks
 * (a block split across chunks must be collected whole). Streams favour the small
 * block (also the LZ4F library's default; the lz4 CLI's is 4 MiB).
 */
const DEFAULT_BLOCK_SIZE = 0x10000

/** Largest frame header: magic 4 + FLG + BD + content size 8 + HC. */
const MAX_HEADER = 4 + 2 + 8 + 1

function booleanOption(format: string, options: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const v = options[name]
  if (v === undefined) return fallback
  if (typeof v !== 'boolean') throw new CodecError('INVALID_OPTION', format, `${name} must be a boolean, got ${String(v)}`)
  return v
}

/**
 * Hash table size by level: every level uses the greedy fast search (no HC search);
 * levels >= 3 use 2^16 entries: 2-3% smaller output for ~5% less speed (measured).
 */
function hashLogForLevel(level: number): number {
  return level >= 3 ? 16 : DEFAULT_HASH_LOG
}

/**
 * Streaming LZ4 frame encoder. Memory: one block of input (`blockSize`, only for input
 * that arrives in pieces smaller than a block), one staging buffer for output that
 * does not fit in `dst`, and the hash table.
 */
class Lz4FrameEncoder implements Encoder {
  readonly format = FORMAT
  consumed = 0
  written = 0
  failure: Failure | null = null

  private readonly blockSize: number
  private readonly blockId: number
  private readonly blockChecksum: boolean
  private readonly contentChecksum: boolean
  /** Declared content size, or -1. */
  private readonly contentSize: number
  private readonly hashLog: number
  /** Hash table for `encodeBlock` (allocated on first block). */
  private table: Int32Array | null = null
  /** Input collected until a block is full (allocated on need). */
  private inBuf: Uint8Array | null = null
  private inLength = 0
  /** Output waiting for room in `dst`: stage[stagePos, stageEnd). */
  private stage: Uint8Array | null = null
  private stagePos = 0
  private stageEnd = 0
  private headerWritten = false
  /** The end mark and content checksum have been staged. */
  private ended = false
  private done = false
  private totalIn = 0
  private readonly contentHash = new Xxh32()
  /** Compresses blocks in memory of its own (wasm engine), or null: TypeScript. */
  private readonly kernel: EncodeKernel | null

  constructor(options: Record<string, unknown>, kernel: EncodeKernel | null = null) {
    this.kernel = kernel
    const level = checkLevel(FORMAT, options.level)
    this.hashLog = hashLogForLevel(level)
    const bs = options.blockSize ?? DEFAULT_BLOCK_SIZE
    const id = typeof bs === 'number' ? BLOCK_ID_BY_SIZE[bs] : undefined
    if (id === undefined) throw new CodecError('INVALID_OPTION', FORMAT, `blockSize must be 65536, 262144, 1048576 or 4194304, got ${String(bs)}`)
    this.blockSize = bs as number
    this.blockId = id
    this.blockChecksum = booleanOption(FORMAT, options, 'blockChecksum', false)
    this.contentChecksum = booleanOption(FORMAT, options, 'contentChecksum', true)
    if (!booleanOption(FORMAT, options, 'blockIndependence', true)) {
      throw new CodecError('INVALID_OPTION', FORMAT, 'blockIndependence: false (linked blocks) is not implemented by the encoder; the decoder reads linked frames')
    }
    const cs = options.contentSize
    if (cs !== undefined && (typeof cs !== 'number' || !Number.isSafeInteger(cs) || cs < 0)) {
      throw new CodecError('INVALID_OPTION', FORMAT, `contentSize must be a non-negative safe integer, got ${String(cs)}`)
    }
    this.contentSize = cs === undefined ? -1 : cs
  }

  reset(): void {
    this.consumed = 0
    this.written = 0
    this.failure = null
    this.inLength = 0
    this.stagePos = 0
    this.stageEnd = 0
    this.headerWritten = false
    this.ended = false
    this.done = false
    this.totalIn = 0
    this.contentHash.reset()
    this.kernel?.begin()
  }

  dispose(): void {
    this.table = null
    this.inBuf = null
    this.stage = null
    this.kernel?.release()
  }

  private stageBuffer(): Uint8Array {
    // Largest staged unit: block size field + stored block + block checksum.
    return (this.stage ??= new Uint8Array(4 + this.blockSize + 4))
  }

  /** Copies staged output into dst; returns the new op. */
  private drain(dst: Uint8Array, op: number): number {
    const n = Math.min(this.stageEnd - this.stagePos, dst.length - op)
    if (n > 0) {
      dst.set(this.stage!.subarray(this.stagePos, this.stagePos + n), op)
      this.stagePos += n
      op += n
    }
    if (this.stagePos === this.stageEnd) this.stagePos = this.stageEnd = 0
    return op
  }

  /** Writes the frame header into dst (room permitting) or the stage; returns op. */
  private writeHeader(dst: Uint8Array, op: number): number {
    const direct = dst.length - op >= MAX_HEADER
    const out = direct ? dst : this.stageBuffer()
    let o = direct ? op : this.stageEnd
    writeU32LE(out, o, MAGIC)
    const d = o + 4
    let flg = FLG_VERSION_01 | FLG_BLOCK_INDEPENDENCE
    if (this.blockChecksum) flg |= FLG_BLOCK_CHECKSUM
    if (this.contentSize >= 0) flg |= FLG_CONTENT_SIZE
    if (this.contentChecksum) flg |= FLG_CONTENT_CHECKSUM
    out[d] = flg
    out[d + 1] = this.blockId << 4
    o = d + 2
    if (this.contentSize >= 0) {
      writeU32LE(out, o, this.contentSize >>> 0)
      writeU32LE(out, o + 4, Math.floor(this.contentSize / 0x100000000))
      o += 8
    }
    out[o] = (xxh32(out, d, o) >>> 8) & 0xff
    o++
    this.headerWritten = true
    if (direct) return o
    this.stageEnd = o
    return this.drain(dst, op)
  }

  /** Compresses one block of input into dst (room permitting) or the stage; returns op. */
  private writeBlock(data: Uint8Array, start: number, end: number, dst: Uint8Array, op: number): number {
    if (this.kernel !== null) return this.writeKernelBlock(this.kernel, data, start, end, dst, op)
    const n = end - start
    if (this.contentChecksum) this.contentHash.update(data, start, end)
    const direct = dst.length - op >= n + 8
    const out = direct ? dst : this.stageBuffer()
    const o = direct ? op : this.stageEnd
    // Output is capped at n bytes: a block that would not shrink is stored instead
    // ("Block Size": incompressible data "shall be passed in uncompressed format").
    const c = encodeBlock(data, start, end, out, o + 4, o + 4 + n - 1, (this.table ??= createHashTable(this.hashLog)))
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
    if (this.blockChecksum) {
      writeU32LE(out, e, xxh32(out, o + 4, e))
      e += 4
    }
    if (direct) return e
    this.stageEnd = e
    return this.drain(dst, op)
  }

  /**
   * `writeBlock()` with a kernel: the frame block is made in the kernel's memory, so its
   * length is known before it is copied; what fits goes straight to dst, only the rest
   * to the stage (which is empty here).
   */
  private writeKernelBlock(kernel: EncodeKernel, data: Uint8Array, start: number, end: number, dst: Uint8Array, op: number): number {
    const size = kernel.block(data, start, end, this.hashLog, this.blockChecksum, this.contentChecksum)
    if (size === ERR_MEMORY) {
      // Not the input's fault, nor the caller's: the runtime refused the engine memory.
      throw new CodecError('LIMIT_EXCEEDED', FORMAT, `the wasm engine could not grow its memory for a ${end - start}-byte block`)
    }
    const direct = Math.min(size, dst.length - op)
    kernel.copyOut(0, dst, op, direct)
    if (direct < size) {
      kernel.copyOut(direct, this.stageBuffer(), 0, size - direct)
      this.stagePos = 0
      this.stageEnd = size - direct
    }
    return op + direct
  }

  private fail(message: string): Status {
    this.failure = { code: 'INVALID_DATA', message, offset: this.totalIn }
    return Status.InvalidData
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.failure) return Status.InvalidData
    if (this.done) return Status.Done
    const srcEnd = src.length
    const bs = this.blockSize
    let ip = 0
    let op = this.drain(dst, 0)
    let status: Status = Status.Done
    for (;;) {
      if (this.stageEnd > 0) {
        status = Status.DestinationTooSmall
        break
      }
      if (!this.headerWritten) {
        op = this.writeHeader(dst, op)
        continue
      }
      if (ip < srcEnd) {
        if (this.contentSize >= 0 && this.totalIn + (srcEnd - ip) > this.contentSize) {
          status = this.fail(`input exceeds the declared contentSize ${this.contentSize}`)
          break
        }
        if (this.inLength === 0 && srcEnd - ip >= bs) {
          // A whole block in src: compress it from there.
          op = this.writeBlock(src, ip, ip + bs, dst, op)
          ip += bs
          this.totalIn += bs
          continue
        }
        const buf = (this.inBuf ??= new Uint8Array(bs))
        const n = Math.min(bs - this.inLength, srcEnd - ip)
        buf.set(src.subarray(ip, ip + n), this.inLength)
        this.inLength += n
        ip += n
        this.totalIn += n
        if (this.inLength === bs) {
          this.inLength = 0
          op = this.writeBlock(buf, 0, bs, dst, op)
        }
        continue
      }
      if (!final) break
      if (!this.ended) {
        if (this.contentSize >= 0 && this.totalIn !== this.contentSize) {
          status = this.fail(`input of ${this.totalIn} bytes does not match the declared contentSize ${this.contentSize}`)
          break
        }
        if (this.inLength > 0) {
          const n = this.inLength
          this.inLength = 0
          op = this.writeBlock(this.inBuf!, 0, n, dst, op)
          continue
        }
        // EndMark and content checksum ("General Structure").
        const direct = dst.length - op >= 8
        const out = direct ? dst : this.stageBuffer()
        let o = direct ? op : this.stageEnd
        writeU32LE(out, o, 0)
        o += 4
        if (this.contentChecksum) {
          writeU32LE(out, o, this.kernel !== null ? this.kernel.digest() : this.contentHash.digest())
          o += 4
        }
        this.ended = true
        if (direct) op = o
        else {
          this.stageEnd = o
          op = this.drain(dst, op)
        }
        continue
      }
      this.done = true
      break
    }
    this.consumed = ip
    this.written = op
    return status
  }

  flush(dst: Uint8Array): Status {
    this.consumed = 0
    this.written = 0
    if (this.failure) return Status.InvalidData
    let op = this.drain(dst, 0)
    if (this.stageEnd === 0 && !this.done) {
      if (!this.headerWritten) op = this.writeHeader(dst, op)
      if (this.stageEnd === 0 && this.inLength > 0) {
        const n = this.inLength
        this.inLength = 0
        op = this.writeBlock(this.inBuf!, 0, n, dst, op)
      }
    }
    this.written = op
    return this.stageEnd > 0 ? Status.DestinationTooSmall : Status.Done
  }
}

/**
 * Raw LZ4 block decoder. The block format carries no sizes, so the caller gives the
 * exact decoded size (`outputSize`); the whole block must be passed with `final: true`
 * (before that, nothing is consumed: NeedMoreData). Decodes straight into `dst` when
 * it has `outputSize` bytes of room, else into one buffer of `outputSize` drained
 * over calls.
 */
class Lz4BlockDecoder implements Decoder {
  readonly format = BLOCK_FORMAT
  consumed = 0
  written = 0
  failure: Failure | null = null
  readonly contentSize: number

  private readonly outputSize: number
  private out: Uint8Array | null = null
  private drainPos = 0
  /** 0: waiting for the block, 1: draining `out`, 2: done, 3: failed. */
  private state = 0
  /** Decodes the block: TypeScript `decodeBlock`, or the wasm engine's kernel. */
  private readonly decodeRaw: RawBlockKernel

  constructor(options: Record<string, unknown>, decodeRaw: RawBlockKernel) {
    this.decodeRaw = decodeRaw
    const maxOutput = checkMaxOutput(BLOCK_FORMAT, options.maxOutputBytes)
    const size = options.outputSize
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
      throw new CodecError('INVALID_OPTION', BLOCK_FORMAT, `outputSize (the exact decoded size of the block) is required as a non-negative integer, got ${String(size)}`)
    }
    if (size > maxOutput) throw new CodecError('INVALID_OPTION', BLOCK_FORMAT, `outputSize ${size} exceeds maxOutputBytes ${maxOutput}`)
    this.outputSize = size
    this.contentSize = size
  }

  reset(): void {
    this.consumed = 0
    this.written = 0
    this.failure = null
    this.drainPos = 0
    this.state = 0
  }

  dispose(): void {
    this.out = null
  }

  private fail(message: string, code: ErrorCode = 'INVALID_DATA'): Status {
    this.failure = { code, message, offset: 0 }
    this.state = 3
    return Status.InvalidData
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.state === 3) return Status.InvalidData
    if (this.state === 2) return Status.Done
    const size = this.outputSize
    if (this.state === 0) {
      if (!final) return Status.NeedMoreData
      // An empty block with nothing to produce: Arrow IPC writers may pass empty input
      // for an empty buffer (see ../shared/BASELINES.md).
      if (src.length === 0 && size === 0) {
        this.state = 2
        return Status.Done
      }
      if (src.length < this.outputSize / 255 - 16) {
        // Each input byte decodes to at most ~255 bytes; a size far beyond that is
        // impossible, so fail before allocating for it.
        return this.fail(`outputSize ${size} is more than ${src.length} compressed bytes can hold`)
      }
      const direct = dst.length >= size
      const out = direct ? dst : (this.out !== null && this.out.length >= size ? this.out : (this.out = new Uint8Array(size)))
      const n = this.decodeRaw(src, out, size)
      if (n === ERR_MEMORY) return this.fail(`the wasm engine could not grow its memory to ${size} + ${src.length} bytes`, 'LIMIT_EXCEEDED')
      if (n < 0) return this.fail(n === ERR_OUTPUT ? `block decodes to more than outputSize ${size} bytes` : blockErrorMessage(n))
      if (n !== size) return this.fail(`block decoded to ${n} bytes, expected outputSize ${size}`)
      this.consumed = src.length
      if (direct) {
        this.written = size
        this.state = 2
        return Status.Done
      }
      this.state = 1
      this.drainPos = 0
    }
    const n = Math.min(size - this.drainPos, dst.length)
    dst.set(this.out!.subarray(this.drainPos, this.drainPos + n), 0)
    this.drainPos += n
    this.written = n
    if (this.drainPos < size) return Status.DestinationTooSmall
    this.state = 2
    return Status.Done
  }
}

/** Raw block inputs are held whole in memory; 2 GiB is also the block format's practical ceiling. */
const MAX_BLOCK_INPUT = 2 ** 31

/**
 * Raw LZ4 block encoder: buffers the whole input (up to 2^31 bytes) and writes one
 * block at `final`. `flush()` has no sync point to offer (a block cannot be split) and
 * writes nothing.
 */
class Lz4BlockEncoder implements Encoder {
  readonly format = BLOCK_FORMAT
  consumed = 0
  written = 0
  failure: Failure | null = null

  private readonly hashLog: number
  private table: Int32Array | null = null
  private input: Uint8Array | null = null
  private inputLength = 0
  private out: Uint8Array | null = null
  private outPos = 0
  private outEnd = 0
  /** 0: collecting, 1: draining, 2: done. */
  private state = 0

  constructor(options: Record<string, unknown>) {
    this.hashLog = hashLogForLevel(checkLevel(BLOCK_FORMAT, options.level))
  }

  reset(): void {
    this.consumed = 0
    this.written = 0
    this.failure = null
    this.inputLength = 0
    this.outPos = this.outEnd = 0
    this.state = 0
  }

  dispose(): void {
    this.input = null
    this.out = null
    this.table = null
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.consumed = 0
    this.written = 0
    if (this.failure) return Status.InvalidData
    if (this.state === 2) return Status.Done
    if (this.state === 0) {
      const total = this.inputLength + src.length
      if (total > MAX_BLOCK_INPUT) {
        this.failure = { code: 'LIMIT_EXCEEDED', message: `block input of ${total} bytes exceeds ${MAX_BLOCK_INPUT}`, offset: this.inputLength }
        return Status.InvalidData
      }
      let data: Uint8Array
      if (final && this.inputLength === 0) {
        data = src // one-shot: compress straight from src
      } else {
        if (this.input === null || this.input.length < total) {
          const grown = new Uint8Array(Math.min(MAX_BLOCK_INPUT, Math.max(total, (this.input?.length ?? 0) * 2, 1024)))
          if (this.input !== null) grown.set(this.input.subarray(0, this.inputLength))
          this.input = grown
        }
        this.input.set(src, this.inputLength)
        this.inputLength = total
        data = this.input
      }
      this.consumed = src.length
      if (!final) return Status.Done
      const table = (this.table ??= createHashTable(this.hashLog))
      const bound = maxCompressedSize(total)
      if (dst.length >= bound) {
        this.written = encodeBlock(data, 0, total, dst, 0, dst.length, table)
        this.state = 2
        this.inputLength = 0
        return Status.Done
      }
      const out = this.out !== null && this.out.length >= bound ? this.out : (this.out = new Uint8Array(bound))
      this.outEnd = encodeBlock(data, 0, total, out, 0, bound, table)
      this.outPos = 0
      this.inputLength = 0
      this.state = 1
    }
    const n = Math.min(this.outEnd - this.outPos, dst.length)
    dst.set(this.out!.subarray(this.outPos, this.outPos + n), 0)
    this.outPos += n
    this.written = n
    if (this.outPos < this.outEnd) return Status.DestinationTooSmall
    this.state = 2
    return Status.Done
  }

  flush(_dst: Uint8Array): Status {
    this.consumed = 0
    this.written = 0
    return this.failure ? Status.InvalidData : Status.Done
  }
}

/**
 * LZ4 frame codec module. Decoder options: `maxOutputBytes`. Encoder options: `level`
 * (1..12; every level uses the greedy fast search: 1-2 with an 8192-entry hash
 * table, 3-12 with 65536 entries for a 2-3% smaller output; no HC search, so level 9
 * is not `lz4 -9`), `blockSize` (65536 default, 262144, 1048576, 4194304),
 * `blockChecksum` (false), `contentChecksum` (true), `contentSize` (written to the
 * header and enforced), `blockIndependence` (true; false is rejected).
 */
export const lz4: CodecModule = /* @__PURE__ */ lz4FrameModule(null)

/**
 * The LZ4 frame module with block decoding done by `kernel()` (one per decoder) and
 * compression by `encodeKernel()` (one per encoder), e.g. the wasm engine's
 * (lib/codecs/lz4-wasm.ts); null: TypeScript. Both write the same bytes.
 */
export function lz4FrameModule(kernel: (() => FrameKernel) | null, encodeKernel: (() => EncodeKernel) | null = null): CodecModule {
  return Object.freeze({
    traits: traitsOf('lz4'),
    createDecoder: (options: Record<string, unknown>): Decoder => new Lz4FrameDecoder(options, kernel === null ? null : kernel()),
    createEncoder: (options: Record<string, unknown>): Encoder => new Lz4FrameEncoder(options, encodeKernel === null ? null : encodeKernel()),
  })
}

/**
 * Raw LZ4 block module. Decoder option `outputSize` (required: the exact decoded
 * size). The encoder buffers the whole input and writes one block (input <= 2^31).
 */
export const lz4Block: CodecModule = /* @__PURE__ */ lz4BlockModule(decodeRawBlock)

/** The raw LZ4 block module with the decoder's block kernel `decodeRaw`. */
export function lz4BlockModule(decodeRaw: RawBlockKernel): CodecModule {
  return Object.freeze({
    traits: traitsOf('lz4-block'),
    createDecoder: (options: Record<string, unknown>): Decoder => new Lz4BlockDecoder(options, decodeRaw),
    createEncoder: (options: Record<string, unknown>): Encoder => new Lz4BlockEncoder(options),
  })
}
