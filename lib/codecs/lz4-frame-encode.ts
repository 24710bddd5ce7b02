/**
 * Streaming LZ4 frame encoder (lz4/lz4 `doc/lz4_Frame_format.md`, v1.6.x; the format's
 * facts are in lz4-frame-format.ts) as a span codec (lib/codec.ts).
 */
import type { Encoder } from '../codec.js'
import { CodecError, type Failure } from '../errors.js'
import { checkLevel, formatOption } from '../formats.js'
import { Status } from '../status.js'
import { writeU32LE } from '../endian.js'
import { createHashTable, encodeBlock } from './lz4-block.js'
import { HC_MIN_LEVEL, hcBlockCompressor, type HcBlockCompressor } from './lz4hc.js'
import { BLOCK_UNCOMPRESSED, FLG_BLOCK_CHECKSUM, FLG_BLOCK_INDEPENDENCE, FLG_CONTENT_CHECKSUM, FLG_CONTENT_SIZE, FLG_VERSION_01, MAGIC } from './lz4-frame-format.js'
import { ERR_MEMORY, type EncodeKernel } from './lz4-kernel.js'
import { Xxh32, xxh32 } from './xxhash32.js'

const FORMAT = 'lz4'

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

/**
 * Streaming LZ4 frame encoder. Memory: one block of input (`blockSize`, only for input
 * that arrives in pieces smaller than a block), one staging buffer for output that
 * does not fit in `dst`, and the hash table (LZ4 HC's tables at levels 3 to 12).
 */
export class Lz4FrameEncoder implements Encoder {
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
  /** 1-2: the fast search; 3-12: LZ4 HC (lz4hc.ts). */
  private readonly level: number
  /** The HC compressor (levels >= 3, TypeScript engine), made on the first block. */
  private hc: HcBlockCompressor | null = null
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
    this.level = checkLevel(FORMAT, options.level)
    // The options' ranges are the format table's (lib/formats.ts).
    const bs = (formatOption(FORMAT, 'encode', 'blockSize', options.blockSize) as number | undefined) ?? DEFAULT_BLOCK_SIZE
    this.blockSize = bs
    this.blockId = BLOCK_ID_BY_SIZE[bs]!
    this.blockChecksum = (formatOption(FORMAT, 'encode', 'blockChecksum', options.blockChecksum) as boolean | undefined) ?? false
    this.contentChecksum = (formatOption(FORMAT, 'encode', 'contentChecksum', options.contentChecksum) as boolean | undefined) ?? true
    formatOption(FORMAT, 'encode', 'blockIndependence', options.blockIndependence)
    this.contentSize = (formatOption(FORMAT, 'encode', 'contentSize', options.contentSize) as number | undefined) ?? -1
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
    this.hc = null
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
    const c =
      this.level >= HC_MIN_LEVEL
        ? (this.hc ??= hcBlockCompressor(FORMAT, this.level)).compress(data, start, end, out, o + 4, o + 4 + n - 1, this.level)
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
    const size = kernel.block(data, start, end, this.level, this.blockChecksum, this.contentChecksum)
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
