/**
 * `'snappy'`: the Snappy framing format (google/snappy `framing_format.txt`; facts in
 * snappy-frame-format.ts) decoded as a span codec (lib/codec.ts). Every data chunk's
 * masked CRC-32C is checked before any of its bytes are handed out; skippable and padding
 * chunks are skipped, reserved unskippable ones refused, and every stream identifier
 * must read `sNaPpY`.
 */
import type { ErrorCode } from '../errors.js'
import { readU32LE } from '../endian.js'
import { Status } from '../status.js'
import { maskCrc } from './crc32c.js'
import { FrameDecoder, gatherBuffer } from './frame-codec.js'
import { ERR_INPUT, PRE_OK, readPreamble, snappyErrorMessage, type Preamble } from './snappy-block.js'
import { ERR_MEMORY, type SnappyKernel } from './snappy-kernel.js'
import {
  CHUNK_COMPRESSED,
  CHUNK_STREAM_IDENTIFIER,
  CHUNK_UNCOMPRESSED,
  MAX_CHUNK_DATA,
  MAX_COMPRESSED_CHUNK,
  MAX_UNCOMPRESSED_CHUNK,
  RESERVED_UNSKIPPABLE_END,
  SKIPPABLE_START,
  STREAM_IDENTIFIER,
} from './snappy-frame-format.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

const FORMAT = 'snappy'

// Decoder stages (the end and failure are the shell's latch, frame-codec.ts).
const S_HEADER = 0
const S_BODY = 1
const S_SKIP = 2
const S_DRAIN = 3

const hex = (v: number): string => '0x' + v.toString(16).padStart(2, '0')

/**
 * What a whole framing stream decodes to, read from its chunks without decoding
 * (framing_format.txt section 4): each compressed chunk's preamble (its block's
 * uncompressed length) and each uncompressed chunk's length, summed; skippable chunks
 * and stream identifiers add nothing. Exact for a well-formed stream; -1 at anything
 * else (a reserved unskippable chunk, a chunk that runs past the end), which the
 * decoder then judges.
 */
export function chunksSizeHint(bytes: Uint8Array): number {
  const n = bytes.length
  const p: Preamble = { length: 0, size: 0 }
  let total = 0
  for (let at = 0; at < n; ) {
    if (at + 4 > n) return -1
    const type = bytes[at]!
    const length = bytes[at + 1]! | (bytes[at + 2]! << 8) | (bytes[at + 3]! << 16)
    const end = at + 4 + length
    if (end > n) return -1
    if (type === CHUNK_COMPRESSED) {
      if (length < 5 || readPreamble(bytes, at + 8, end, p) !== PRE_OK) return -1
      total += p.length
    } else if (type === CHUNK_UNCOMPRESSED) {
      if (length < 4) return -1
      total += length - 4
    } else if (type <= RESERVED_UNSKIPPABLE_END) return -1
    at = end
  }
  return total
}

/**
 * Streaming Snappy framing decoder. The format has no end marker: the stream ends where
 * the input does, so `Done` comes only with `final`, all input consumed at a chunk
 * boundary after the stream identifier (or with no input at all: the empty stream npm
 * snappy and Go's snappy write); until then NeedMoreData.
 *
 * Memory: a chunk found whole in `src` is used in place, and decoded straight into `dst`
 * when `dst` has room for it; only a chunk split across calls is gathered into `chunk`
 * (at most MAX_COMPRESSED_CHUNK bytes), and only one that does not fit `dst` is decoded
 * into the stage (64 KiB) and drained.
 */
export class SnappyFrameDecoder extends FrameDecoder {
  readonly format = FORMAT
  private stage = S_HEADER
  /** Output since reset(), against `maxOutput`. */
  private produced = 0
  /** The stream identifier was read (it must come first). */
  private identified = false
  /** The current chunk's type, body length and where its header began (stream offset). */
  private type = 0
  private length = 0
  private chunkStart = 0
  /** A chunk body gathered across calls, and how much of it is here. */
  private chunk: Uint8Array | null = null
  private gathered = 0
  /** Bytes of a skippable chunk still to skip. */
  private skipLeft = 0
  private readonly preamble: Preamble = { length: 0, size: 0 }

  constructor(
    options: Record<string, unknown>,
    /** Decodes whole blocks and computes checksums (TypeScript or the wasm kernel). */
    private readonly kernel: SnappyKernel,
  ) {
    super(FORMAT, options)
  }

  sizeHint(input: Uint8Array): number {
    return chunksSizeHint(input)
  }

  override reset(): void {
    super.reset()
    this.stage = S_HEADER
    this.produced = 0
    this.identified = false
    this.gathered = 0
    this.skipLeft = 0
  }

  override dispose(): void {
    super.dispose()
    this.chunk = null
  }

  protected step(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.ip = 0
    this.w = 0
    const status = this.run(src, dst, final)
    const failed = status === Status.InvalidData
    this.consumed = failed ? 0 : this.ip
    this.written = failed ? 0 : this.w
    return status
  }

  /** Positions reached in the current call's `src` and `dst`, set by `run()`. */
  private ip = 0
  private w = 0

  /** Records the positions `run()` reached and returns `status`. */
  private stop(ip: number, w: number, status: Status): Status {
    this.ip = ip
    this.w = w
    return status
  }

  /** The chunk loop of `transform()`; leaves its positions in `ip` and `w`. */
  private run(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    let ip = 0
    let w = 0
    const end = src.length
    for (;;) {
      switch (this.stage) {
        case S_DRAIN: {
          w = this.staged.drain(dst, w)
          if (this.staged.waiting > 0) return this.stop(ip, w, Status.DestinationTooSmall)
          this.stage = S_HEADER
          break
        }
        case S_SKIP: {
          const n = Math.min(this.skipLeft, end - ip)
          ip += n
          this.skipLeft -= n
          if (this.skipLeft > 0) return this.stop(ip, w, Status.NeedMoreData)
          this.stage = S_HEADER
          break
        }
        case S_HEADER: {
          // An empty input is an empty stream, as npm snappy's and Go's encoders write it
          // (no identifier); once a stream has begun it must be identified first.
          if (ip === end) return this.stop(ip, w, final && (this.identified || this.inputBase === 0) ? Status.Done : Status.NeedMoreData)
          const at = this.inputBase + ip
          if (!this.identified) {
            // The stream identifier comes first (section 4.1): check it byte by byte, so
            // that a wrong first byte fails at once.
            const n = Math.min(end - ip, STREAM_IDENTIFIER.length)
            for (let k = 0; k < n; k++) {
              if (src[ip + k] !== STREAM_IDENTIFIER[k]) {
                return this.fail('INVALID_DATA', k < 4 ? `the stream does not start with the stream identifier chunk (ff 06 00 00, framing_format.txt section 4.1)` : `the stream identifier is not "sNaPpY"`, at + k)
              }
            }
            if (n < STREAM_IDENTIFIER.length) return this.stop(ip, w, Status.NeedMoreData)
            ip += n
            this.identified = true
            break
          }
          const type = src[ip]!
          if (type >= CHUNK_UNCOMPRESSED + 1 && type <= RESERVED_UNSKIPPABLE_END) {
            return this.fail('INVALID_DATA', `reserved unskippable chunk type ${hex(type)} (framing_format.txt section 4.5)`, at)
          }
          if (end - ip < 4) return this.stop(ip, w, Status.NeedMoreData)
          const length = src[ip + 1]! | (src[ip + 2]! << 8) | (src[ip + 3]! << 16)
          this.type = type
          this.length = length
          this.chunkStart = at
          ip += 4
          if (type >= SKIPPABLE_START && type < CHUNK_STREAM_IDENTIFIER) {
            this.skipLeft = length
            this.stage = S_SKIP
            break
          }
          const most = type === CHUNK_COMPRESSED ? MAX_COMPRESSED_CHUNK : type === CHUNK_UNCOMPRESSED ? MAX_UNCOMPRESSED_CHUNK : STREAM_IDENTIFIER.length - 4
          const least = type === CHUNK_STREAM_IDENTIFIER ? most : 4
          if (length > most || length < least) {
            const what = type === CHUNK_STREAM_IDENTIFIER ? 'stream identifier chunk' : type === CHUNK_COMPRESSED ? 'compressed data chunk' : 'uncompressed data chunk'
            const code: ErrorCode = length > most && type !== CHUNK_STREAM_IDENTIFIER ? 'LIMIT_EXCEEDED' : 'INVALID_DATA'
            const want = least === most ? `${most}` : length > most ? `at most ${most} (65536 bytes of data, framing_format.txt sections 4.2-4.3: the format's limit, not an option)` : `at least ${least}`
            return this.fail(code, `${what} of ${length} bytes; expected ${want}`, at)
          }
          this.gathered = 0
          this.stage = S_BODY
          break
        }
        case S_BODY: {
          const length = this.length
          let body: Uint8Array
          let start: number
          if (this.gathered === 0 && end - ip >= length) {
            body = src
            start = ip
            ip += length
          } else {
            const chunk = (this.chunk = gatherBuffer(this.chunk, this.gathered, length, MAX_COMPRESSED_CHUNK))
            const n = Math.min(length - this.gathered, end - ip)
            chunk.set(src.subarray(ip, ip + n), this.gathered)
            this.gathered += n
            ip += n
            if (this.gathered < length) return this.stop(ip, w, Status.NeedMoreData)
            body = chunk
            start = 0
          }
          const r = this.chunkBody(body, start, dst, w)
          if (r === Status.InvalidData) return r
          w = this.written
          break
        }
      }
    }
  }

  /**
   * Handles the complete body `body[start, start + length)` of the current chunk: checks
   * and decodes it into `dst[w]` when it fits there, else into `block` to drain. Sets
   * `written` to the new end in `dst`; InvalidData on failure.
   */
  private chunkBody(body: Uint8Array, start: number, dst: Uint8Array, w: number): Status {
    const length = this.length
    const at = this.chunkStart + 4
    this.written = w
    if (this.type === CHUNK_STREAM_IDENTIFIER) {
      for (let k = 0; k < length; k++) {
        if (body[start + k] !== STREAM_IDENTIFIER[4 + k]) return this.fail('INVALID_DATA', `the stream identifier is not "sNaPpY"`, at + k)
      }
      this.stage = S_HEADER
      return Status.Done
    }
    const expected = readU32LE(body, start)
    let size: number
    if (this.type === CHUNK_COMPRESSED) {
      const p = this.preamble
      if (readPreamble(body, start + 4, start + length, p) !== PRE_OK) return this.fail('INVALID_DATA', `the compressed data's preamble is not a varint below 2^32`, at + 4)
      size = p.length
      if (size > MAX_CHUNK_DATA) return this.fail('INVALID_DATA', `compressed data chunk declares ${size} bytes of data, more than the 65536 allowed (framing_format.txt section 4.2)`, at + 4)
    } else {
      size = length - 4
    }
    if (size > this.maxOutput - this.produced) return this.fail('LIMIT_EXCEEDED', `output exceeds maxOutputBytes ${this.maxOutput}`, this.chunkStart)
    const out = this.unitOut(dst, w, size, MAX_CHUNK_DATA)
    const o = out === dst ? w : 0
    if (this.type === CHUNK_COMPRESSED) {
      const n = this.kernel.decodeInto(body, start + 4 + this.preamble.size, start + length, out, o, size, true)
      if (n === ERR_MEMORY) return this.fail('LIMIT_EXCEEDED', wasmMemoryFull(`a ${length}-byte chunk`, "engine: 'js'"), this.chunkStart)
      if (n < 0) {
        return this.fail('INVALID_DATA', `compressed data chunk: ${n === ERR_INPUT ? 'the block ends before the length its preamble declares' : snappyErrorMessage(n)}`, at)
      }
    }
    const actual = maskCrc(this.type === CHUNK_COMPRESSED ? this.kernel.checksum : this.kernel.crc32c(body, start + 4, start + length))
    if (this.type === CHUNK_UNCOMPRESSED && actual === expected) out.set(body.subarray(start + 4, start + length), o)
    if (actual !== expected) {
      return this.fail('CHECKSUM_MISMATCH', `chunk checksum ${actual.toString(16).padStart(8, '0')} (masked CRC-32C) does not match the stored ${expected.toString(16).padStart(8, '0')}`, this.chunkStart)
    }
    this.produced += size
    this.written = this.unitEnd(dst, w, out, o + size)
    this.stage = this.staged.waiting > 0 ? S_DRAIN : S_HEADER
    return Status.Done
  }
}
