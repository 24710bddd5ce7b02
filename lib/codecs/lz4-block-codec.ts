/**
 * Raw LZ4 blocks (lz4/lz4 `doc/lz4_Block_format.md`) as span codecs (lib/codec.ts):
 * the block format carries no sizes, so the decoder is told the decoded size and the
 * encoder writes one block for the whole input.
 */
import type { Decoder, Encoder } from '../codec.js'
import { CodecError, type ErrorCode, type Failure } from '../errors.js'
import { checkLevel, checkMaxOutput, formatOption } from '../formats.js'
import { Status } from '../status.js'
import { blockErrorMessage, createHashTable, decodeBlock, encodeBlock, ERR_OUTPUT, hashLogForLevel, maxCompressedSize } from './lz4-block.js'
import { ERR_MEMORY, type RawBlockKernel } from './lz4-kernel.js'

const BLOCK_FORMAT = 'lz4-block' as const

/** The TypeScript raw block kernel. */
export const decodeRawBlock: RawBlockKernel = (src, dst, size) => decodeBlock(src, 0, src.length, dst, 0, size)

/**
 * Raw LZ4 block decoder. The block format carries no sizes, so the caller gives the
 * exact decoded size (`outputSize`); the whole block must be passed with `final: true`
 * (before that, nothing is consumed: NeedMoreData). Decodes straight into `dst` when
 * it has `outputSize` bytes of room, else into one buffer of `outputSize` drained
 * over calls.
 */
export class Lz4BlockDecoder implements Decoder {
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
    const size = formatOption(BLOCK_FORMAT, 'decode', 'outputSize', options.outputSize) as number
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
      // for an empty buffer (Java writers send a buffer with no payload as empty input).
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
export class Lz4BlockEncoder implements Encoder {
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
