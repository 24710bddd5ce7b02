/**
 * Streaming LZ4 frame encoder (lz4/lz4 `doc/lz4_Frame_format.md`, v1.6.x; the format is
 * written with lz4-frame-format.ts) as a span codec (lib/codec.ts), on the shell of
 * frame-codec.ts, with blocks compressed by a kernel (lz4-kernel.ts).
 */
import type { Encoder } from '../codec.js'
import { CodecError } from '../errors.js'
import { checkLevel, formatOption } from '../codec-options.js'
import { Status } from '../status.js'
import { writeU32LE } from '../endian.js'
import { FrameCodec } from './frame-codec.js'
import { FLG_BLOCK_CHECKSUM, FLG_BLOCK_INDEPENDENCE, FLG_CONTENT_CHECKSUM, MAX_HEADER_LENGTH, writeFrameHeader } from './lz4-frame-format.js'
import { ERR_MEMORY, type EncodeKernel } from './lz4-kernel.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

const FORMAT = 'lz4'

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

/** The end mark and the content checksum. */
const MAX_TRAILER = 8

/**
 * Streaming LZ4 frame encoder. Memory: one block of input (`blockSize`, only for input
 * that arrives in pieces smaller than a block), the stage for output that does not fit
 * in `dst`, and the kernel's hash table (LZ4 HC's tables at levels 3 to 12).
 */
export class Lz4FrameEncoder extends FrameCodec implements Encoder {
  readonly format = FORMAT

  private readonly blockSize: number
  /** FLG without the version and content size bits. */
  private readonly flags: number
  private readonly blockChecksum: boolean
  private readonly contentChecksum: boolean
  /** Declared content size, or -1. */
  private readonly contentSize: number
  /** 1-2: the fast search; 3-12: LZ4 HC (lz4hc.ts), whose compressor the module loaded. */
  private readonly level: number
  /** Input collected until a block is full (allocated on need). */
  private inBuf: Uint8Array | null = null
  private inLength = 0
  private headerWritten = false
  /** The end mark and content checksum have been written (or staged). */
  private ended = false

  constructor(
    options: Record<string, unknown>,
    /** Compresses blocks and keeps the content hash (TypeScript or the wasm kernel). */
    private readonly kernel: EncodeKernel,
  ) {
    super('encode')
    this.level = checkLevel(FORMAT, options.level)
    // The options' ranges are the format table's (lib/formats.ts).
    this.blockSize = (formatOption(FORMAT, 'encode', 'blockSize', options.blockSize) as number | undefined) ?? DEFAULT_BLOCK_SIZE
    this.blockChecksum = (formatOption(FORMAT, 'encode', 'blockChecksum', options.blockChecksum) as boolean | undefined) ?? false
    this.contentChecksum = (formatOption(FORMAT, 'encode', 'contentChecksum', options.contentChecksum) as boolean | undefined) ?? true
    formatOption(FORMAT, 'encode', 'blockIndependence', options.blockIndependence)
    this.contentSize = (formatOption(FORMAT, 'encode', 'contentSize', options.contentSize) as number | undefined) ?? -1
    this.flags = FLG_BLOCK_INDEPENDENCE | (this.blockChecksum ? FLG_BLOCK_CHECKSUM : 0) | (this.contentChecksum ? FLG_CONTENT_CHECKSUM : 0)
  }

  override reset(): void {
    super.reset()
    this.inLength = 0
    this.headerWritten = false
    this.ended = false
    this.kernel.begin()
  }

  override dispose(): void {
    super.dispose()
    this.inBuf = null
    this.kernel.release()
  }

  /** Largest staged unit: block size field + stored block + block checksum. */
  private get stageSize(): number {
    return 4 + this.blockSize + 4
  }

  /** Writes the frame header into dst (room permitting) or the stage; returns op. */
  private writeHeader(dst: Uint8Array, op: number): number {
    const out = this.unitOut(dst, op, MAX_HEADER_LENGTH, this.stageSize)
    this.headerWritten = true
    return this.unitEnd(dst, op, out, writeFrameHeader(out, out === dst ? op : 0, this.flags, this.blockSize, this.contentSize))
  }

  /** Compresses one block of input into dst (room permitting) and the stage; returns op. */
  private writeBlock(data: Uint8Array, start: number, end: number, dst: Uint8Array, op: number): number {
    const size = this.kernel.block(data, start, end, this.level, this.blockChecksum, this.contentChecksum, dst, op, this.staged)
    if (size === ERR_MEMORY) {
      // Not the input's fault, nor the caller's: the runtime refused the engine memory.
      throw new CodecError('LIMIT_EXCEEDED', FORMAT, wasmMemoryFull(`a ${end - start}-byte block`, "engine: 'js'"))
    }
    return Math.min(op + size, dst.length)
  }

  /** Writes the end mark and the content checksum ("General Structure") into dst or the stage; returns op. */
  private writeTrailer(dst: Uint8Array, op: number): number {
    const out = this.unitOut(dst, op, MAX_TRAILER, this.stageSize)
    let o = out === dst ? op : 0
    writeU32LE(out, o, 0)
    o += 4
    if (this.contentChecksum) {
      writeU32LE(out, o, this.kernel.digest())
      o += 4
    }
    this.ended = true
    return this.unitEnd(dst, op, out, o)
  }

  protected step(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    const srcEnd = src.length
    const bs = this.blockSize
    let ip = 0
    let op = this.staged.drain(dst, 0)
    let status: Status = Status.Done
    for (;;) {
      if (this.staged.waiting > 0) {
        status = Status.DestinationTooSmall
        break
      }
      if (!this.headerWritten) {
        op = this.writeHeader(dst, op)
        continue
      }
      if (ip < srcEnd) {
        const taken = this.inputBase + ip
        if (this.contentSize >= 0 && taken + (srcEnd - ip) > this.contentSize) {
          status = this.fail('INVALID_DATA', `input exceeds the declared contentSize ${this.contentSize}`, taken)
          break
        }
        if (this.inLength === 0 && srcEnd - ip >= bs) {
          // A whole block in src: compress it from there.
          op = this.writeBlock(src, ip, ip + bs, dst, op)
          ip += bs
          continue
        }
        const buf = (this.inBuf ??= new Uint8Array(bs))
        const n = Math.min(bs - this.inLength, srcEnd - ip)
        buf.set(src.subarray(ip, ip + n), this.inLength)
        this.inLength += n
        ip += n
        if (this.inLength === bs) {
          this.inLength = 0
          op = this.writeBlock(buf, 0, bs, dst, op)
        }
        continue
      }
      if (!final || this.ended) break
      const total = this.inputBase + ip
      if (this.contentSize >= 0 && total !== this.contentSize) {
        status = this.fail('INVALID_DATA', `input of ${total} bytes does not match the declared contentSize ${this.contentSize}`, total)
        break
      }
      if (this.inLength > 0) {
        const n = this.inLength
        this.inLength = 0
        op = this.writeBlock(this.inBuf!, 0, n, dst, op)
        continue
      }
      op = this.writeTrailer(dst, op)
    }
    this.consumed = ip
    this.written = op
    return status
  }

  flush(dst: Uint8Array): Status {
    this.consumed = 0
    this.written = 0
    if (this.failure) return Status.InvalidData
    let op = this.staged.drain(dst, 0)
    if (this.staged.waiting === 0 && !this.finished) {
      if (!this.headerWritten) op = this.writeHeader(dst, op)
      if (this.staged.waiting === 0 && this.inLength > 0) {
        const n = this.inLength
        this.inLength = 0
        op = this.writeBlock(this.inBuf!, 0, n, dst, op)
      }
    }
    this.written = op
    return this.staged.waiting > 0 ? Status.DestinationTooSmall : Status.Done
  }
}
