/**
 * Raw LZ4 blocks (lz4/lz4 `doc/lz4_Block_format.md`) as span codecs (lib/codec.ts):
 * the block format carries no sizes, so the decoder is told the decoded size and the
 * encoder writes one block for the whole input.
 */
import type { Decoder } from '../codec.js'
import { CodecError } from '../errors.js'
import { checkLevel, checkMaxOutput, formatOption } from '../codec-options.js'
import { Status } from '../status.js'
import { blockErrorMessage, createHashTable, decodeBlock, encodeBlock, ERR_OUTPUT, maxCompressedSize } from './lz4-block.js'
import { FrameCodec } from './frame-codec.js'
import { HC_MIN_LEVEL, hcBlockCompressor, type HcBlockCompressor } from './lz4hc.js'
import { ERR_MEMORY, type RawBlockKernel } from './lz4-kernel.js'
import { WholeBlockEncoder } from './whole-block-encoder.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

const BLOCK_FORMAT = 'lz4-block' as const

/** The TypeScript raw block kernel. */
export const decodeRawBlock: RawBlockKernel = (src, dst, size) => decodeBlock(src, 0, src.length, dst, 0, size)

/**
 * Raw LZ4 block decoder. The block format carries no sizes, so the caller gives the
 * exact decoded size (`outputSize`); the whole block must be passed with `final: true`
 * (before that, nothing is consumed: NeedMoreData). Decodes straight into `dst` when
 * it has `outputSize` bytes of room, else into the stage (frame-codec.ts), drained
 * over calls.
 */
export class Lz4BlockDecoder extends FrameCodec implements Decoder {
  readonly format = BLOCK_FORMAT
  readonly contentSize: number

  private readonly outputSize: number

  constructor(
    options: Record<string, unknown>,
    /** Decodes the block: TypeScript `decodeBlock`, or the wasm engine's kernel. */
    private readonly decodeRaw: RawBlockKernel,
  ) {
    super('decode')
    const maxOutput = checkMaxOutput(BLOCK_FORMAT, options.maxOutputBytes)
    const size = formatOption(BLOCK_FORMAT, 'decode', 'outputSize', options.outputSize) as number
    if (size > maxOutput) throw new CodecError('INVALID_OPTION', BLOCK_FORMAT, `outputSize ${size} exceeds maxOutputBytes ${maxOutput}`)
    this.outputSize = size
    this.contentSize = size
  }

  protected step(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    const size = this.outputSize
    if (this.staged.waiting === 0) {
      if (!final) return Status.NeedMoreData
      // An empty block with nothing to produce: Arrow IPC writers may pass empty input
      // for an empty buffer (Java writers send a buffer with no payload as empty input).
      if (src.length === 0 && size === 0) return Status.Done
      if (src.length < size / 255 - 16) {
        // Each input byte decodes to at most ~255 bytes; a size far beyond that is
        // impossible, so fail before allocating for it.
        return this.fail('INVALID_DATA', `outputSize ${size} is more than ${src.length} compressed bytes can hold`, 0)
      }
      const out = this.unitOut(dst, 0, size)
      const n = this.decodeRaw(src, out, size)
      if (n === ERR_MEMORY) return this.fail('LIMIT_EXCEEDED', wasmMemoryFull(`${size} + ${src.length} bytes`, "engine: 'js'"), 0)
      if (n < 0) return this.fail('INVALID_DATA', n === ERR_OUTPUT ? `block decodes to more than outputSize ${size} bytes` : blockErrorMessage(n), 0)
      if (n !== size) return this.fail('INVALID_DATA', `block decoded to ${n} bytes, expected outputSize ${size}`, 0)
      this.consumed = src.length
      this.written = this.unitEnd(dst, 0, out, size)
    } else {
      this.written = this.staged.drain(dst, 0)
    }
    return this.staged.waiting > 0 ? Status.DestinationTooSmall : Status.Done
  }
}

/**
 * Raw LZ4 block encoder: the whole input as one block (lib/codecs/whole-block-encoder.ts),
 * up to 2^31 bytes; levels 3 to 12 with LZ4 HC (lz4hc.ts), in TypeScript on every engine.
 */
export class Lz4BlockEncoder extends WholeBlockEncoder {
  readonly format = BLOCK_FORMAT

  private readonly level: number
  private table: Int32Array | null = null
  /** The HC compressor (levels >= 3); throws at construction when it was not loaded. */
  private hc: HcBlockCompressor | null

  constructor(options: Record<string, unknown>) {
    super()
    this.level = checkLevel(BLOCK_FORMAT, options.level)
    this.hc = this.level >= HC_MIN_LEVEL ? hcBlockCompressor(BLOCK_FORMAT, this.level) : null
  }

  override dispose(): void {
    super.dispose()
    this.table = null
    this.hc = null
  }

  protected bound(n: number): number {
    return maxCompressedSize(n)
  }

  protected compress(data: Uint8Array, n: number, out: Uint8Array): number {
    if (this.hc !== null) return this.hc.compress(data, 0, n, out, 0, out.length, this.level)
    return encodeBlock(data, 0, n, out, 0, out.length, (this.table ??= createHashTable()))
  }
}
