/**
 * Streaming LZ4 frame decoder (lz4/lz4 `doc/lz4_Frame_format.md`, v1.6.x; the format's
 * facts are in lz4-frame-format.ts) as a span codec (lib/codec.ts).
 */
import type { Decoder } from '../codec.js'
import type { ErrorCode, Failure } from '../errors.js'
import { checkMaxOutput } from '../formats.js'
import { Status } from '../status.js'
import { readU32LE } from '../endian.js'
import { blockErrorMessage, decodeBlock, ERR_OUTPUT } from './lz4-block.js'
import {
  BD_RESERVED,
  BLOCK_MAX_BY_ID,
  BLOCK_UNCOMPRESSED,
  FLG_BLOCK_CHECKSUM,
  FLG_BLOCK_INDEPENDENCE,
  FLG_CONTENT_CHECKSUM,
  FLG_CONTENT_SIZE,
  FLG_DICT_ID,
  FLG_RESERVED,
  FLG_VERSION_01,
  FLG_VERSION_MASK,
  LEGACY_MAGIC,
  MAGIC,
  SKIPPABLE_MAGIC,
  SKIPPABLE_MASK,
  WINDOW,
} from './lz4-frame-format.js'
import { ERR_BLOCK_CHECKSUM, ERR_MEMORY, type FrameKernel } from './lz4-kernel.js'
import { Xxh32, xxh32 } from './xxhash32.js'

const FORMAT = 'lz4'

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

/**
 * The most the frames of a whole buffer decode to, read from their framing without
 * decoding ("General Structure"): each frame's content size when declared, else its
 * stored blocks' sizes plus the block maximum for each compressed block (exact when
 * every compressed block is full, as the lz4 CLI writes all but the last). -1 at
 * anything but a well-formed frame; the decoder then judges it.
 */
export function framesSizeHint(bytes: Uint8Array): number {
  const n = bytes.length
  let total = 0
  for (let at = 0; at < n; ) {
    if (at + 8 > n) return -1
    const magic = readU32LE(bytes, at)
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      at += 8 + readU32LE(bytes, at + 4)
      continue
    }
    if (magic !== MAGIC) return -1
    const flg = bytes[at + 4]!
    const id = (bytes[at + 5]! >>> 4) & 7
    if ((flg & FLG_VERSION_MASK) !== FLG_VERSION_01 || id < 4) return -1
    let pos = at + 4 + 3 + (flg & FLG_CONTENT_SIZE ? 8 : 0) + (flg & FLG_DICT_ID ? 4 : 0)
    const declared = flg & FLG_CONTENT_SIZE && pos <= n ? readU32LE(bytes, at + 6) + readU32LE(bytes, at + 10) * 0x100000000 : -1
    const blockMax = BLOCK_MAX_BY_ID[id]!
    const checksum = flg & FLG_BLOCK_CHECKSUM ? 4 : 0
    let frame = 0
    for (;;) {
      if (pos + 4 > n) return -1
      const word = readU32LE(bytes, pos)
      pos += 4
      if (word === 0) break
      const size = word & 0x7fffffff
      if (size > blockMax) return -1
      frame += word & BLOCK_UNCOMPRESSED ? size : blockMax
      pos += size + checksum
    }
    total += declared >= 0 ? declared : frame
    at = pos + (flg & FLG_CONTENT_CHECKSUM ? 4 : 0)
  }
  return total
}

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
export class Lz4FrameDecoder implements Decoder {
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

  sizeHint(input: Uint8Array): number {
    return framesSizeHint(input)
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
