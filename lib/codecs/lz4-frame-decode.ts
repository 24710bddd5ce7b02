/**
 * Streaming LZ4 frame decoder (lz4/lz4 `doc/lz4_Frame_format.md`, v1.6.x; the format is
 * read with lz4-frame-format.ts) as a span codec (lib/codec.ts), on the shell of
 * frame-codec.ts, with blocks decoded by a kernel (lz4-kernel.ts).
 */
import { Status } from '../status.js'
import { readU32LE } from '../endian.js'
import { FrameDecoder, gatherBuffer } from './frame-codec.js'
import { blockErrorMessage, ERR_OUTPUT } from './lz4-block.js'
import {
  BLOCK_SIZE_MASK,
  BLOCK_UNCOMPRESSED,
  FLG_BLOCK_CHECKSUM,
  FLG_BLOCK_INDEPENDENCE,
  FLG_CONTENT_CHECKSUM,
  LEGACY_MAGIC,
  LEGACY_UNSUPPORTED,
  MAGIC,
  badMagic,
  blockChecksumMismatch,
  blockTooLarge,
  checkFlags,
  contentChecksumMismatch,
  contentSizeMismatch,
  descriptorLength,
  isProblem,
  isSkippable,
  pastContentSize,
  readDescriptor,
  walkFrame,
} from './lz4-frame-format.js'
import { ERR_BLOCK_CHECKSUM, ERR_MEMORY, type FrameKernel } from './lz4-kernel.js'
import { Xxh32 } from './xxhash32.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

const FORMAT = 'lz4'

// Decoder stages (the end and failure are the shell's latch).
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

/**
 * The most the frames of a whole buffer decode to, read from their framing without
 * decoding (`walkFrame`): each frame's content size when declared, else its blocks
 * times the block maximum (exact when every block is full, as the lz4 CLI writes all
 * but the last; an upper bound otherwise). -1 at anything but well-formed frames; the
 * decoder then judges them.
 */
export function framesSizeHint(bytes: Uint8Array): number {
  let total = 0
  for (let at = 0; at < bytes.length; ) {
    const frame = walkFrame(bytes, at)
    if (frame.problem !== null) return -1
    const d = frame.descriptor
    if (d !== null) total += d.contentSize >= 0 ? d.contentSize : frame.blocks * d.blockMax
    at = frame.end
  }
  return total
}

/**
 * Streaming LZ4 frame decoder. Decodes one frame (or skips one skippable frame) and
 * returns `Done` at its end with any following bytes unconsumed; the driver calls
 * `reset()` for the next frame.
 *
 * Memory: a whole compressed block found in `src` is decoded from there (a block split
 * across calls is copied into `blockIn`, bounded by the header's block maximum size).
 * The kernel writes a block's output into `dst` as far as it fits and the rest into the
 * stage, drained over the next calls; the kernel keeps the history of linked blocks.
 */
export class Lz4FrameDecoder extends FrameDecoder {
  readonly format = FORMAT
  /** Current stage (S_*). */
  private stage = S_MAGIC
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
  /** Block checksum state for stored blocks streamed through (allocated on need). */
  private rawHash: Xxh32 | null = null

  constructor(
    options: Record<string, unknown>,
    /** Decodes blocks and keeps the history and content hash (TypeScript or the wasm kernel). */
    private readonly kernel: FrameKernel,
  ) {
    super(FORMAT, options)
  }

  sizeHint(input: Uint8Array): number {
    return framesSizeHint(input)
  }

  override reset(): void {
    super.reset()
    this.stage = S_MAGIC
    this.smallLength = 0
    this.flags = 0
    this.blockMax = 0
    this.totalOut = 0
    this.blockInLength = 0
  }

  override dispose(): void {
    super.dispose()
    this.blockIn = null
    this.kernel.release()
  }

  /** Copies up to `need - smallLength` bytes of src into `small`; returns the new ip. */
  private gather(src: Uint8Array, ip: number, need: number): number {
    let n = this.smallLength
    const end = src.length
    while (n < need && ip < end) this.small[n++] = src[ip++]!
    this.smallLength = n
    return ip
  }

  protected step(src: Uint8Array, dst: Uint8Array, _final: boolean): Status {
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
          } else if (isSkippable(magic)) {
            this.stage = S_SKIP_SIZE
          } else {
            status = magic === LEGACY_MAGIC ? this.fail('UNSUPPORTED', LEGACY_UNSUPPORTED, this.inputBase + ip - 4) : this.fail('INVALID_DATA', badMagic(magic), this.inputBase + ip - 4)
            break loop
          }
          continue
        }
        case S_HEADER: {
          // FLG and BD first: they say how long the descriptor is.
          ip = this.gather(src, ip, 2)
          if (this.smallLength < 2) break loop
          /** Input offset of FLG. */
          const at = this.inputBase + ip - this.smallLength
          const bad = checkFlags(this.small[0]!, this.small[1]!)
          if (bad !== null) {
            status = this.fail(bad.code, bad.message, at + bad.at)
            break loop
          }
          const length = descriptorLength(this.small[0]!)
          ip = this.gather(src, ip, length)
          if (this.smallLength < length) break loop
          const d = readDescriptor(this.small, 0)
          if (isProblem(d)) {
            status = this.fail(d.code, d.message, at + d.at)
            break loop
          }
          if (d.dictionaryId >= 0) {
            status = this.fail('UNSUPPORTED', `frame needs dictionary ${d.dictionaryId}; preset dictionaries are not supported`, at + length - 5)
            break loop
          }
          if (d.contentSize > this.maxOutput) {
            status = this.fail('LIMIT_EXCEEDED', `content size ${d.contentSize} exceeds maxOutputBytes ${this.maxOutput}`, at + 2)
            break loop
          }
          this.contentSize = d.contentSize
          this.flags = d.flags
          this.blockMax = d.blockMax
          this.smallLength = 0
          this.totalOut = 0
          this.kernel.begin(d.blockMax, (d.flags & FLG_BLOCK_INDEPENDENCE) === 0, (d.flags & FLG_CONTENT_CHECKSUM) !== 0)
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
          status = Status.Done
          break loop
        }
        default:
          throw new Error(`lz4: unexpected stage ${this.stage}`)
      }
    }
    this.consumed = ip
    return status
  }

  /** The block stages, from `src[ip]`; writes from `dst[0]`. */
  private transformBlocks(src: Uint8Array, dst: Uint8Array, ip: number): Status {
    const flags = this.flags
    const blockChecksum = (flags & FLG_BLOCK_CHECKSUM) !== 0
    const checksumLength = blockChecksum ? 4 : 0
    const kernel = this.kernel
    const srcEnd = src.length
    const dstEnd = dst.length
    let op = 0
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
              status = this.fail('INVALID_DATA', contentSizeMismatch(this.totalOut, this.contentSize), this.inputBase + ip - 4)
              break loop
            }
            if (flags & FLG_CONTENT_CHECKSUM) {
              this.stage = S_CONTENT_CHECKSUM
              continue
            }
            status = Status.Done
            break loop
          }
          const size = field & BLOCK_SIZE_MASK
          // Checked before any buffer is sized from it.
          if (size > this.blockMax) {
            status = this.fail('INVALID_DATA', blockTooLarge(size, this.blockMax), this.inputBase + ip - 4)
            break loop
          }
          this.blockSize = size
          if (field & BLOCK_UNCOMPRESSED) {
            if (this.contentSize >= 0 && this.totalOut + size > this.contentSize) {
              status = this.fail('INVALID_DATA', `stored block of ${size} bytes goes past the declared content size ${this.contentSize}`, this.inputBase + ip - 4)
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
            // caller passes it again) rather than decode it into the stage.
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
            const buf = (this.blockIn = gatherBuffer(this.blockIn, this.blockInLength, need, this.blockMax + 4))
            const n = Math.min(need - this.blockInLength, srcEnd - ip)
            buf.set(src.subarray(ip, ip + n), this.blockInLength)
            this.blockInLength += n
            ip += n
            if (this.blockInLength < need) break loop
            data = buf
            start = 0
          }
          const blockAt = this.inputBase + ip - need
          const limit = this.contentSize >= 0 ? Math.min(this.blockMax, this.contentSize - this.totalOut) : this.blockMax
          const n = kernel.decode(data, start, size, limit, blockChecksum, dst, op, this.staged)
          if (n < 0) {
            status = this.blockFailure(n, data, start, limit, blockAt)
            break loop
          }
          this.totalOut += n
          this.blockInLength = 0
          if (n > dstEnd - op) {
            // The rest is in the stage.
            op = dstEnd
            this.stage = S_DRAIN
            status = Status.DestinationTooSmall
            break loop
          }
          op += n
          this.stage = S_BLOCK_SIZE
          continue
        }
        case S_DRAIN: {
          op = this.staged.drain(dst, op)
          if (this.staged.waiting > 0) {
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
            if (kernel.append(dst, op, op + n) === ERR_MEMORY) {
              status = this.fail('LIMIT_EXCEEDED', wasmMemoryFull(`a ${this.blockMax}-byte block`, "engine: 'js'"), this.inputBase + ip)
              break loop
            }
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
            status = this.fail('CHECKSUM_MISMATCH', blockChecksumMismatch(stored, actual, true), this.inputBase + ip - 4)
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
          const actual = kernel.digest()
          if (stored !== actual) {
            status = this.fail('CHECKSUM_MISMATCH', contentChecksumMismatch(stored, actual), this.inputBase + ip - 4)
            break loop
          }
          status = Status.Done
          break loop
        }
        default:
          // The header stages never reach here.
          throw new Error(`lz4: unexpected stage ${this.stage}`)
      }
    }
    // The history of linked blocks is kept for the next call (not needed once done).
    kernel.leave(status !== Status.Done && status !== Status.InvalidData)
    this.consumed = ip
    this.written = op
    return status
  }

  /** The failure of a block the kernel refused with `code`, the block being `data[start, start + blockSize)` at input offset `blockAt`. */
  private blockFailure(code: number, data: Uint8Array, start: number, limit: number, blockAt: number): Status {
    if (code === ERR_BLOCK_CHECKSUM) {
      const size = this.blockSize
      return this.fail('CHECKSUM_MISMATCH', blockChecksumMismatch(readU32LE(data, start + size), this.kernel.checksum), blockAt + size)
    }
    if (code === ERR_MEMORY) return this.fail('LIMIT_EXCEEDED', wasmMemoryFull(`a ${this.blockMax}-byte block`, "engine: 'js'"), blockAt)
    return this.fail('INVALID_DATA', code === ERR_OUTPUT && limit < this.blockMax ? pastContentSize(this.contentSize) : blockErrorMessage(code), blockAt)
  }
}
