/**
 * `'snappy'`: the Snappy framing format (google/snappy `framing_format.txt`; facts in
 * snappy-frame-format.ts) encoded as a span codec (lib/codec.ts): the stream identifier,
 * then one chunk per 64 KiB of input, compressed, or stored when compression saves less
 * than 1/8 (the rule of the Go and Python framing encoders), each with its masked CRC-32C.
 */
import type { Encoder } from '../codec.js'
import { writeU32LE } from '../endian.js'
import { Status } from '../status.js'
import { crc32c, maskCrc } from './crc32c.js'
import { FrameCodec } from './frame-codec.js'
import { maxCompressedLength } from './snappy-block.js'
import { CHUNK_COMPRESSED, CHUNK_UNCOMPRESSED, MAX_CHUNK_DATA, STREAM_IDENTIFIER } from './snappy-frame-format.js'
import { ERR_MEMORY, type SnappyKernel } from './snappy-kernel.js'

const FORMAT = 'snappy'

/** The longest chunk this encoder writes: header, checksum, the worst-case block. */
const MAX_CHUNK = 4 + 4 + maxCompressedLength(MAX_CHUNK_DATA)

/**
 * Streaming Snappy framing encoder. Input is cut into 64 KiB chunks: a full chunk found
 * in `src` is compressed from there, a partial one gathered into `input`; a chunk is
 * written straight into `dst` when it has room for the worst case, else staged
 * (frame-codec.ts) and drained. `flush()` writes the gathered input as a (short) chunk:
 * the stream up to there decodes without the rest.
 */
export class SnappyFrameEncoder extends FrameCodec implements Encoder {
  readonly format = FORMAT

  private input: Uint8Array | null = null
  private inputLength = 0
  /** The stream identifier was written (or staged). */
  private started = false

  constructor(
    _options: Record<string, unknown>,
    /** Compresses blocks and checksums chunks (TypeScript or the wasm kernel). */
    private readonly kernel: SnappyKernel,
  ) {
    super('encode')
  }

  override reset(): void {
    super.reset()
    this.inputLength = 0
    this.started = false
  }

  override dispose(): void {
    super.dispose()
    this.input = null
  }

  /** Writes one chunk for `data[start, end)` into `target[at]`; returns the end. */
  private chunk(data: Uint8Array, start: number, end: number, target: Uint8Array, at: number): number {
    const n = end - start
    const kernel = this.kernel
    const blockEnd = kernel.encodeInto(data, start, end, target, at + 8, true)
    // A kernel without memory (ERR_MEMORY) leaves the chunk stored, checksummed here.
    const crc = maskCrc(blockEnd === ERR_MEMORY ? crc32c(data, 0, start, end) : kernel.checksum)
    let size = blockEnd - (at + 8)
    if (blockEnd === ERR_MEMORY || size >= n - (n >>> 3)) {
      target.set(data.subarray(start, end), at + 8)
      size = n
      target[at] = CHUNK_UNCOMPRESSED
    } else {
      target[at] = CHUNK_COMPRESSED
    }
    const length = size + 4
    target[at + 1] = length & 0xff
    target[at + 2] = (length >>> 8) & 0xff
    target[at + 3] = length >>> 16
    writeU32LE(target, at + 4, crc)
    return at + 8 + size
  }

  /** Hands out staged output; true when all of it went into `dst`. */
  private drain(dst: Uint8Array): boolean {
    this.written = this.staged.drain(dst, this.written)
    return this.staged.waiting === 0
  }

  /** Writes a chunk of `data[start, end)` (or the stream identifier when `end < 0`) into `dst` or the stage. */
  private emit(data: Uint8Array, start: number, end: number, dst: Uint8Array): void {
    const out = this.unitOut(dst, this.written, MAX_CHUNK)
    const at = out === dst ? this.written : 0
    this.written = this.unitEnd(dst, this.written, out, end < 0 ? this.identifier(out, at) : this.chunk(data, start, end, out, at))
  }

  private identifier(target: Uint8Array, at: number): number {
    target.set(STREAM_IDENTIFIER, at)
    this.started = true
    return at + STREAM_IDENTIFIER.length
  }

  protected step(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    if (!this.drain(dst)) return Status.DestinationTooSmall
    if (!this.started) {
      this.emit(src, 0, -1, dst)
      if (!this.drain(dst)) return Status.DestinationTooSmall
    }
    let ip = 0
    for (;;) {
      if (this.inputLength === 0 && src.length - ip >= MAX_CHUNK_DATA) {
        // A whole chunk in src: compress it from there.
        this.emit(src, ip, ip + MAX_CHUNK_DATA, dst)
        ip += MAX_CHUNK_DATA
        this.consumed = ip
        if (!this.drain(dst)) return Status.DestinationTooSmall
        continue
      }
      const n = Math.min(MAX_CHUNK_DATA - this.inputLength, src.length - ip)
      if (n > 0) {
        const input = (this.input ??= new Uint8Array(MAX_CHUNK_DATA))
        input.set(src.subarray(ip, ip + n), this.inputLength)
        this.inputLength += n
        ip += n
        this.consumed = ip
      }
      if (this.inputLength === MAX_CHUNK_DATA || (final && ip === src.length && this.inputLength > 0)) {
        const length = this.inputLength
        this.inputLength = 0
        this.emit(this.input!, 0, length, dst)
        if (!this.drain(dst)) return Status.DestinationTooSmall
        continue
      }
      if (ip === src.length) break
    }
    return Status.Done
  }

  flush(dst: Uint8Array): Status {
    this.consumed = 0
    this.written = 0
    if (this.failure) return Status.InvalidData
    if (!this.drain(dst)) return Status.DestinationTooSmall
    if (!this.started) {
      this.emit(dst, 0, -1, dst)
      if (!this.drain(dst)) return Status.DestinationTooSmall
    }
    if (this.inputLength > 0) {
      const length = this.inputLength
      this.inputLength = 0
      this.emit(this.input!, 0, length, dst)
      if (!this.drain(dst)) return Status.DestinationTooSmall
    }
    return Status.Done
  }
}
