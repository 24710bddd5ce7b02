/**
 * The Zstandard (RFC 8878) span encoder on libzstd's encoder compiled to wasm
 * (`zstd-enc.wasm`; wasm/zstd-engine.ts says which build and why):
 * `ZSTD_compressStream2`, one frame per stream, true streaming. The encoder tells
 * libzstd the content size when it is known (`ZSTD_CCtx_setPledgedSrcSize`), which
 * writes it into the frame header beside a trained dictionary's ID, as `zstd -D` does.
 * It frees its context at the end of its frame.
 */
import type { Encoder } from '../codec.js'
import { checkLevel, formatOption } from '../codec-options.js'
import { Status } from '../status.js'
import { EMPTY, WasmCodec } from './wasm-codec.js'
import { allocate, heapState, stageInput, stream, STAGE, STAGE_OUT, zstdLifecycle, type StreamCall, type ZstdHeapState } from './zstd-heap.js'
import { applyDictionary, dictionaryOf, type ZstdDictionary } from './zstd-dictionary.js'
import {
  ZSTD_c_checksumFlag,
  ZSTD_c_compressionLevel,
  ZSTD_c_contentSizeFlag,
  ZSTD_c_windowLog,
  ZSTD_e_continue,
  ZSTD_e_end,
  ZSTD_e_flush,
  zstdErrorCode,
  zstdErrorName,
  type ZstdEncoderExports,
  type ZstdEngine,
} from './wasm/zstd-engine.js'
import type { WasmHeap } from './wasm/wasm-heap.js'
import { checkEncoderWindow, ZSTD_c_enableLongDistanceMatching } from './zstd-window.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

const FORMAT = 'zstd'

/**
 * Most wasm memory the encoder's one-pass path takes (input and worst-case output
 * together, ZstdEncoder.wholeInput): above it, input is staged 256 KiB at a time, so an
 * instance (whose memory never shrinks) does not grow to twice the largest input.
 */
const WHOLE_INPUT_MAX = 16 * 1024 * 1024

export interface ZstdEncoderOptions {
  /** 1..19, default 3. */
  level?: number
  /** Append the XXH64 content checksum (RFC 8878 §3.1.1); default true. */
  checksum?: boolean
  /**
   * The exact number of bytes that will be encoded, written into the frame header
   * (Frame_Content_Size). The encoder fails if the input turns out longer or shorter.
   */
  contentSize?: number
  /** A trained dictionary (its ID goes into the frame header) or raw content (a prefix). */
  dictionary?: BufferSource
  /** As the decoder's. */
  dictionaryType?: 'auto' | 'raw'
  /** Window_Log of the frames, 10..30 (ZSTD_c_windowLog); default: the level's, 27 with `long`. */
  windowLog?: number
  /** Long-distance matching (ZSTD_c_enableLongDistanceMatching), as `zstd --long`; default false. */
  long?: boolean
}

export class ZstdEncoder extends WasmCodec<ZstdHeapState> implements Encoder {
  /** The encoder engine's exports and memory (`zstd-enc.wasm`). */
  private readonly x: ZstdEncoderExports
  private readonly heap: WasmHeap
  private readonly level: number
  private readonly checksum: boolean
  /** `contentSize` option, or -1. */
  private readonly pledged: number
  private readonly dictionary: ZstdDictionary | null
  /** `windowLog` option, or 0 for the level's own. */
  private readonly windowLog: number
  /** `long` option: long-distance matching. */
  private readonly long: boolean
  /** Whether anything reached libzstd since the last reset. */
  private started = false

  /** An encoder on `engine` (loaded by zstd.ts), with checked `options`. */
  constructor(engine: ZstdEngine<ZstdEncoderExports>, options: Record<string, unknown>) {
    super(FORMAT, 'encoder', 'zstd engine', zstdLifecycle, heapState(engine))
    this.x = engine.exports
    this.heap = engine.heap
    this.level = checkLevel(FORMAT, options.level)
    this.checksum = (formatOption(FORMAT, 'encode', 'checksum', options.checksum, 'wasm') as boolean | undefined) ?? true
    this.pledged = (formatOption(FORMAT, 'encode', 'contentSize', options.contentSize, 'wasm') as number | undefined) ?? -1
    ;({ windowLog: this.windowLog, long: this.long } = checkEncoderWindow(options))
    this.dictionary = dictionaryOf(engine, 'encode', options.dictionary, options.dictionaryType)
  }

  override transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    return this.call(src, dst, final ? ZSTD_e_end : ZSTD_e_continue)
  }

  flush(dst: Uint8Array): Status {
    return this.call(EMPTY, dst, ZSTD_e_flush)
  }

  /** Begins the frame: parameters, dictionary and, when it is known, the content size. */
  private start(src: Uint8Array, endOp: number): Status | null {
    this.started = true
    const { state, x } = this
    if (!allocate(state, true)) return this.fail('LIMIT_EXCEEDED', wasmMemoryFull('allocating the zstd encoder', "engine: 'node' (Node >= 22.15)"))
    const ctx = state.context
    x.ZSTD_initCStream(ctx, this.level)
    x.ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, this.level)
    x.ZSTD_CCtx_setParameter(ctx, ZSTD_c_checksumFlag, this.checksum ? 1 : 0)
    x.ZSTD_CCtx_setParameter(ctx, ZSTD_c_contentSizeFlag, 1)
    if (this.windowLog !== 0) x.ZSTD_CCtx_setParameter(ctx, ZSTD_c_windowLog, this.windowLog)
    if (this.long) x.ZSTD_CCtx_setParameter(ctx, ZSTD_c_enableLongDistanceMatching, 1)
    // After ZSTD_initCStream, which clears any dictionary of the previous frame.
    if (this.dictionary !== null) {
      const refused = applyDictionary(state, this.dictionary)
      if (refused) return this.fail(refused.code, refused.message)
    }
    // The content size, when the option gives it or the first call is the final one
    // with all the input. libzstd writes it into the header next to the dictionary ID
    // (Frame_Content_Size, RFC 8878 §3.1.1.1.4), sizes the frame's parameters (window,
    // single segment) by it, and fails the frame if the input does not match. After
    // ZSTD_initCStream, which forgets the previous frame's size.
    const known = this.pledged >= 0 ? this.pledged : endOp === ZSTD_e_end ? src.length : -1
    if (known >= 0) {
      const error = zstdErrorCode(x.ZSTD_CCtx_setPledgedSrcSize(ctx, BigInt(known)))
      if (error !== 0) return this.fail('INVALID_OPTION', `contentSize ${known} was refused: ${zstdErrorName(error)}`)
    }
    return null
  }

  protected run(src: Uint8Array, dst: Uint8Array, endOp: number): Status {
    if (this.pledged >= 0) {
      const total = this.inputTotal + src.length
      if (total > this.pledged || (endOp === ZSTD_e_end && total !== this.pledged)) {
        return this.fail('INVALID_OPTION', `input of ${endOp === ZSTD_e_end ? '' : 'at least '}${total} bytes does not match contentSize ${this.pledged}`)
      }
    }
    if (!this.started) {
      const failed = this.start(src, endOp)
      if (failed !== null) return failed
      const whole = endOp === ZSTD_e_end ? this.wholeInput(src, dst) : null
      if (whole !== null) return whole
    }
    return this.step(src, dst, endOp)
  }

  /**
   * The whole frame in one call, when the first call is the final one, `dst` holds the
   * worst case (ZSTD_compressBound) and input and output fit WHOLE_INPUT_MAX: the input
   * is copied into wasm once and libzstd compresses it in one pass straight into the
   * output block (with the whole input and room for all output on its first call,
   * ZSTD_compressStream2 skips its own input buffering), instead of 256 KiB stages.
   * Null when it does not apply (or the block cannot be had): the staged path runs.
   */
  private wholeInput(src: Uint8Array, dst: Uint8Array): Status | null {
    if (src.length <= STAGE) return null
    const { x, heap } = this
    const bound = x.ZSTD_compressBound(src.length)
    if (bound <= 0 || dst.length < bound || src.length + bound > WHOLE_INPUT_MAX) return null
    const state = this.state
    const block = x.malloc(src.length + bound)
    if (block === 0) return null
    const out = block + src.length
    heap.refresh()
    heap.bytes.set(src, block)
    const words = heap.words
    words[state.stage >>> 2] = 0
    words[(state.stage + 4) >>> 2] = 0
    const result = x.ZSTD_compressStream2_simpleArgs(state.context, out, bound, state.stage + 4, block, src.length, state.stage, ZSTD_e_end)
    heap.refresh()
    const consumed = heap.words[state.stage >>> 2]!
    const produced = heap.words[(state.stage + 4) >>> 2]!
    if (result === 0 && consumed === src.length) dst.set(heap.bytes.subarray(out, out + produced))
    x.free(block)
    const error = zstdErrorCode(result)
    if (error !== 0) return this.fail(error === 64 ? 'LIMIT_EXCEEDED' : 'INVALID_DATA', error === 64 ? wasmMemoryFull('zstd engine: memory_allocation', "engine: 'node' (Node >= 22.15)") : `zstd engine: ${zstdErrorName(error)}`)
    // With room for the worst case libzstd ends the frame in this call (zstd.h).
    if (result !== 0 || consumed !== src.length) return this.fail('INVALID_DATA', `zstd engine left the frame unfinished with room for the worst case (${result} bytes to flush)`)
    this.consumed = src.length
    this.written = produced
    return this.done()
  }

  private step(src: Uint8Array, dst: Uint8Array, endOp: number): Status {
    const { state, x, heap } = this
    const ctx = state.context
    let op = endOp
    const call: StreamCall = (out, room, outPos, input, size, inPos) => x.ZSTD_compressStream2_simpleArgs(ctx, out, room, outPos, input, size, inPos, op)
    const outPointer = state.stage + STAGE_OUT
    let base = 0
    let staged = 0
    let stagedPos = 0
    for (;;) {
      if (stagedPos === staged) {
        base += staged
        staged = Math.min(STAGE, src.length - base)
        stagedPos = 0
        stageInput(state, src, base, staged)
      }
      // ZSTD_e_end only once all of src is staged; until then the frame continues.
      op = endOp === ZSTD_e_end && base + staged < src.length ? ZSTD_e_continue : endOp
      const result = stream(state, call, stagedPos, staged, Math.min(dst.length - this.written, STAGE))
      const { inputPos, produced } = state
      const moved = inputPos !== stagedPos || produced !== 0
      this.consumed = base + (stagedPos = inputPos)
      const error = zstdErrorCode(result)
      if (error !== 0) return this.fail(error === 64 ? 'LIMIT_EXCEEDED' : 'INVALID_DATA', error === 64 ? wasmMemoryFull('zstd engine: memory_allocation', "engine: 'node' (Node >= 22.15)") : `zstd engine: ${zstdErrorName(error)}`)
      if (produced > 0) {
        dst.set(heap.bytes.subarray(outPointer, outPointer + produced), this.written)
        this.written += produced
      }
      const inputUsed = stagedPos === staged && base + staged === src.length
      if (op === ZSTD_e_continue) {
        if (inputUsed && endOp === ZSTD_e_continue) return Status.Done
      } else if (result === 0) {
        // The frame ended (ZSTD_e_end) or everything was flushed (ZSTD_e_flush).
        return op === ZSTD_e_end ? this.done() : Status.Done
      }
      if (this.written === dst.length) return Status.DestinationTooSmall
      if (this.stuck(moved)) return Status.InvalidData
    }
  }

  protected restart(): void {
    // start() re-initialises libzstd's session (ZSTD_initCStream) on the next call.
    this.started = false
  }
}
