/**
 * Brotli (RFC 7932) span codecs on wasm engines (see `wasm/brotli-engine.ts`): brotli
 * 1.1.0's streaming decoder and encoder, built by the repository's scripts/build-engines.mjs.
 *
 * Each call hands the engine at most `STEP` bytes of input and asks for at most `STEP`
 * bytes of output, so the engine's per-call buffers stay bounded whatever the caller
 * passes; the engine's own state is bounded by the window (2^lgwin, at most 16 MiB,
 * RFC 7932 §9.1).
 *
 * Dictionaries (the `dictionary` option, checked and copied by codec-options.ts
 * `checkDictionary`): raw content the stream may refer back into as if it preceded the
 * input (brotli's shared-dictionary "raw" prefix, BROTLI_SHARED_DICTIONARY_RAW, as
 * node:zlib's `dictionary` option takes it). The encoder prepares it once per stream
 * (BrotliEncoderPrepareDictionary); brotli 1.1.0 refers into it from quality 5 up only
 * (encode.c), so below that the stream is the same as without one and decodes with or
 * without it. The decoder attaches it to each new stream.
 */
import type { CodecModule, Decoder, Encoder } from '../codec.js'
import { CodecError } from '../errors.js'
import { traitsOf } from '../formats.js'
import { checkDictionary, checkLevel, checkMaxOutput, formatOption } from '../codec-options.js'
import { Status } from '../status.js'
import { EMPTY, FINAL, HeapLifecycle, WasmCodec } from './wasm-codec.js'
import { largeWindowRefusal } from './brotli-window.js'
import { BrotliDecoderEngine, BrotliEncoderEngine, type BrotliPreparedDictionary, type BrotliStep, NEEDS_MORE_INPUT, OPERATION_FINISH, OPERATION_FLUSH, OPERATION_PROCESS, RESULT_SUCCESS } from './wasm/brotli-engine.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

const FORMAT = 'brotli'

/**
 * The two engines, each instantiated on first use by `loadBrotli()`: decoding never
 * loads the encoder build, encoding never loads the decoder.
 */
let decoderEngine: BrotliDecoderEngine | undefined
let encoderEngine: BrotliEncoderEngine | undefined

/** Most input and output bytes per engine call. */
const STEP = 256 * 1024

/** A codec's heap state, shared with the finalizer (must not reference the codec). */
interface BrotliHeapState {
  /** Engine stream pointer, 0 when not allocated. */
  stream: number
  decoder: boolean
  /** Encoder: the dictionary prepared for `stream`, freed after it; null when none. */
  prepared: BrotliPreparedDictionary | null
}

function releaseBrotli(state: BrotliHeapState): void {
  if (state.stream !== 0) {
    if (state.decoder) decoderEngine!.free(state.stream)
    else encoderEngine!.free(state.stream)
    state.stream = 0
  }
  if (state.prepared !== null) {
    encoderEngine!.freeDictionary(state.prepared)
    state.prepared = null
  }
}

/** The checked `dictionary` option; an empty one is no dictionary. */
function dictionaryOf(value: unknown): Uint8Array | undefined {
  const dictionary = checkDictionary(FORMAT, value)
  return dictionary !== undefined && dictionary.length > 0 ? dictionary : undefined
}

/** Frees wasm memory on `dispose()`, and of codecs dropped without it. */
const lifecycle = /* @__PURE__ */ new HeapLifecycle<BrotliHeapState>(releaseBrotli)

/** What `flush()` asks of `run()` (`transform()` asks `FINAL` or `MORE`). */
const FLUSH = 2

function newStep(): BrotliStep {
  return { code: 0, inputUsed: 0, produced: 0, error: '' }
}

/** `BrotliDecoderErrorCode` names (brotli's decode.h), by the negative code the engine reports. */
const decoderErrors: Record<number, string> = {
  1: 'exuberant nibble',
  2: 'reserved bit set',
  3: 'exuberant meta-block nibble',
  4: 'bad simple Huffman alphabet',
  5: 'repeated symbol in simple Huffman code',
  6: 'code length space not filled',
  7: 'Huffman code space not filled',
  8: 'bad context map repeat',
  9: 'bad block length',
  10: 'bad block length',
  11: 'bad transform',
  12: 'bad dictionary reference',
  13: 'bad window bits',
  14: 'non-zero padding bits',
  15: 'non-zero padding bits',
  16: 'distance beyond the window',
  18: 'bad reference into the raw dictionary (compound dictionary)',
  19: 'dictionary not set',
  20: 'invalid arguments',
  21: 'allocation failed (context modes)',
  22: 'allocation failed (tree groups)',
  25: 'allocation failed (context map)',
  26: 'allocation failed (ring buffer)',
  27: 'allocation failed (ring buffer)',
  30: 'allocation failed (block type trees)',
  31: 'unreachable',
}

function decoderError(message: string): string {
  const code = /Error code -?(\d+)/.exec(message)
  const name = code ? decoderErrors[Number(code[1])] : undefined
  return name ? `${name} (BROTLI_DECODER_ERROR -${code![1]})` : message || 'decoder error'
}

class BrotliDecoder extends WasmCodec<BrotliHeapState> implements Decoder {
  /** Brotli has no content size field. */
  readonly contentSize = -1

  private readonly maxOutput: number
  /** Raw content the stream was encoded against, or undefined. */
  private readonly dictionary: Uint8Array | undefined
  private outputTotal = 0
  private readonly step: BrotliStep = newStep()

  constructor(options: Record<string, unknown>) {
    super(FORMAT, 'decoder', 'brotli engine', lifecycle, { stream: 0, decoder: true, prepared: null })
    this.maxOutput = checkMaxOutput(FORMAT, options.maxOutputBytes)
    this.dictionary = dictionaryOf(options.dictionary)
  }

  protected run(src: Uint8Array, dst: Uint8Array): Status {
    const state = this.state
    if (this.inputTotal === 0 && src.length > 0) {
      const refused = largeWindowRefusal(src)
      if (refused) return this.fail('LIMIT_EXCEEDED', refused)
    }
    if (state.stream === 0) {
      state.stream = decoderEngine!.create(this.dictionary ? { dictionary: this.dictionary } : undefined)
      if (state.stream === 0) return this.fail('LIMIT_EXCEEDED', wasmMemoryFull('allocating the brotli decoder', "engine: 'node'"))
    }
    const step = this.step
    for (;;) {
      const chunk = Math.min(STEP, src.length - this.consumed)
      let room = Math.min(STEP, dst.length - this.written)
      // One byte more than the limit allows, to tell "at the limit" from "past it".
      const allowed = this.maxOutput - this.outputTotal
      if (room > allowed) room = allowed + 1
      decoderEngine!.step(state.stream, src, this.consumed, this.consumed + chunk, dst, this.written, room, step)
      if (step.code === 0) return this.fail('INVALID_DATA', `corrupt stream: ${decoderError(step.error)}`)
      this.consumed += step.inputUsed
      this.written += step.produced
      this.outputTotal += step.produced
      if (step.produced > allowed) {
        this.written -= step.produced - allowed
        this.outputTotal = this.maxOutput
        return this.fail('LIMIT_EXCEEDED', `output exceeds maxOutputBytes ${this.maxOutput}`)
      }
      if (step.code === RESULT_SUCCESS) {
        // The last meta-block ended (RFC 7932 §9.2 ISLAST); bytes after it stay unconsumed.
        return this.done()
      }
      if (step.code === NEEDS_MORE_INPUT) {
        if (this.consumed === src.length) return Status.NeedMoreData
      } else if (this.written === dst.length) {
        return Status.DestinationTooSmall
      }
      if (this.stuck(step.inputUsed !== 0 || step.produced !== 0)) return Status.InvalidData
    }
  }

  protected restart(): void {
    // The engine has no reset: a stream in progress is dropped, a new one made on demand.
    this.release()
    this.outputTotal = 0
  }
}

export interface BrotliEncoderOptions {
  /** Quality 0..11, default 5. */
  level?: number
  /** Window bits, 10..24 (RFC 7932 §9.1), default 22. */
  lgwin?: number
  /** Raw content to refer back into (used from quality 5 up). */
  dictionary?: BufferSource
}

/**
 * The encoder hands its input to brotli so that the last of it goes in with
 * BROTLI_OPERATION_FINISH, in the same call, as a one-shot compression does (node:zlib's
 * `brotliCompressSync`, the brotli CLI). Finishing afterwards with no input instead
 * costs an empty last meta-block when the input ends where brotli has just closed a
 * meta-block (encode.c `EncodeData`: a full meta-block is written as soon as its last
 * input block is, before the encoder knows whether more follows): one byte more, or the
 * same size with other bytes, than brotli's own output at those sizes; and an input of
 * one block is tuned as a one-shot only when brotli sees it is the last (the
 * hashers' one-shot sizing, quality 9 and up).
 *
 * A stream does not know which chunk is its last, so from quality 2 up (the qualities
 * that gather input into blocks, encode.c `RemainingInputBlockSize`) the encoder keeps
 * the last byte of every chunk back and hands it over with what comes next: with the
 * next chunk, with `flush()` (FLUSH) or with the end (FINISH). Brotli's output does not
 * depend on how input is split between its calls at those qualities, so a stream ends
 * with the bytes a one-shot compression of the same input writes (at the same size
 * hint). Qualities 0 and 1 compress each call's input at once
 * (`BrotliEncoderCompressStreamFast`), so a byte held back would cost a meta-block of
 * its own; there nothing is held.
 */
class BrotliEncoder extends WasmCodec<BrotliHeapState> implements Encoder {
  private readonly quality: number
  private readonly lgwin: number | undefined
  private readonly dictionary: Uint8Array | undefined
  /** Whether the last byte of each chunk is held back (see the class comment). */
  private readonly holds: boolean
  /** The byte held back, in `held[0]` when `holding`. */
  private readonly held = new Uint8Array(1)
  private holding = false
  /**
   * FINISH has been issued: brotli wants every later call to be FINISH too, with the
   * rest of the same input (encode.h, BROTLI_OPERATION_FINISH).
   */
  private finishing = false
  private readonly step: BrotliStep = newStep()

  constructor(options: Record<string, unknown>) {
    super(FORMAT, 'encoder', 'brotli engine', lifecycle, { stream: 0, decoder: false, prepared: null })
    this.quality = checkLevel(FORMAT, options.level)
    // RFC 7932 section 9.1: WINDOW_BITS from 10 to 24 (the format table's range).
    this.lgwin = formatOption(FORMAT, 'encode', 'lgwin', options.lgwin, 'wasm') as number | undefined
    this.dictionary = dictionaryOf(options.dictionary)
    this.holds = this.quality >= 2
  }

  /**
   * BROTLI_OPERATION_FLUSH: everything given so far is written out, ending on a byte
   * boundary a decoder can decode up to (the byte held back goes in with it).
   * `DestinationTooSmall` while output is pending.
   */
  flush(dst: Uint8Array): Status {
    return this.call(EMPTY, dst, FLUSH)
  }

  protected run(src: Uint8Array, dst: Uint8Array, op: number): Status {
    if (op === FLUSH) return this.flushStep(dst)
    if (this.finishing && op !== FINAL) return this.fail('INVALID_OPTION', 'the stream is being finished: call transform() with final set until it returns Done')
    return this.encode(src, dst, op === FINAL)
  }

  /** Creates the engine stream on first use; false when out of memory (failed). */
  private open(sizeHint: number): boolean {
    const state = this.state
    if (state.stream !== 0) return true
    if (this.dictionary && state.prepared === null) {
      state.prepared = encoderEngine!.prepareDictionary(this.dictionary, this.quality)
      if (state.prepared === null) {
        this.fail('LIMIT_EXCEEDED', wasmMemoryFull('preparing the brotli dictionary', "engine: 'node'"))
        return false
      }
    }
    state.stream = encoderEngine!.create(this.quality, { lgwin: this.lgwin, sizeHint, dictionary: state.prepared ?? undefined })
    if (state.stream !== 0) return true
    this.fail('LIMIT_EXCEEDED', wasmMemoryFull('allocating the brotli encoder', "engine: 'node'"))
    return false
  }

  private encode(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    // The size hint is the input of this first call, which is what brotli derives
    // itself when handed that input in one call (encode.c UpdateSizeHint); our calls
    // pass at most STEP bytes, so without it a one-shot encode would be tuned as if
    // the input were 256 KiB (smaller tables, another match finder: at quality 5 on
    // 16 MiB of text half the ratio node:zlib gets).
    if (!this.open(src.length)) return Status.InvalidData
    const stream = this.state.stream
    const step = this.step
    // The byte held back from the last call goes first: with FINISH when it is all
    // that is left, else as more input.
    if (this.holding) {
      if (this.written === dst.length) return Status.DestinationTooSmall
      const last = final && src.length === 0
      if (last) this.finishing = true
      const room = Math.min(STEP, dst.length - this.written)
      encoderEngine!.step(stream, this.held, 0, 1, dst, this.written, room, step, last ? OPERATION_FINISH : OPERATION_PROCESS)
      if (step.code === 0) return this.fail('INVALID_DATA', `brotli engine: ${step.error}`)
      this.written += step.produced
      // Not taken: brotli had output to write out first, and the room is full.
      if (step.inputUsed === 0) return step.produced === 0 ? this.noProgress() : Status.DestinationTooSmall
      this.holding = false
      if (last && step.code === RESULT_SUCCESS) return this.done()
    }
    // Without `final`, the last byte stays back (when this quality holds one).
    const end = !final && this.holds && src.length > 0 ? src.length - 1 : src.length
    for (;;) {
      const chunk = Math.min(STEP, end - this.consumed)
      const last = final && this.consumed + chunk === src.length
      if (!last && chunk === 0) break
      if (this.written === dst.length) return Status.DestinationTooSmall
      const room = Math.min(STEP, dst.length - this.written)
      if (last) this.finishing = true
      encoderEngine!.step(stream, src, this.consumed, this.consumed + chunk, dst, this.written, room, step, last ? OPERATION_FINISH : OPERATION_PROCESS)
      if (step.code === 0) return this.fail('INVALID_DATA', `brotli engine: ${step.error}`)
      this.consumed += step.inputUsed
      this.written += step.produced
      // FINISH is complete once brotli has taken all the input and written the last of it.
      if (last && step.code === RESULT_SUCCESS && this.consumed === src.length) return this.done()
      if (this.stuck(step.inputUsed !== 0 || step.produced !== 0)) return Status.InvalidData
    }
    if (end < src.length) {
      this.held[0] = src[end]!
      this.holding = true
      this.consumed = src.length
    }
    return Status.Done
  }

  /** `flush()` on an open encoder. */
  private flushStep(dst: Uint8Array): Status {
    if (this.finishing) return this.fail('INVALID_OPTION', 'flush() while the stream is being finished')
    const state = this.state
    if (state.stream === 0) return Status.Done // nothing encoded yet: nothing to flush
    const step = this.step
    for (;;) {
      if (this.written === dst.length) return Status.DestinationTooSmall
      const room = Math.min(STEP, dst.length - this.written)
      encoderEngine!.step(state.stream, this.holding ? this.held : EMPTY, 0, this.holding ? 1 : 0, dst, this.written, room, step, OPERATION_FLUSH)
      if (step.code === 0) return this.fail('INVALID_DATA', `brotli engine: ${step.error}`)
      this.written += step.produced
      if (step.inputUsed === 1) this.holding = false
      if (step.code === RESULT_SUCCESS && !this.holding) return Status.Done
      if (this.stuck(step.produced !== 0 || step.inputUsed !== 0)) return Status.InvalidData
    }
  }

  protected restart(): void {
    this.release()
    this.holding = false
    this.finishing = false
  }
}

const brotli: CodecModule = {
  traits: traitsOf(FORMAT),
  createDecoder: (options) => {
    if (!decoderEngine) throw new CodecError('ENGINE_UNAVAILABLE', FORMAT, 'the decoder engine is not loaded: load the module with role "decode"')
    return new BrotliDecoder(options)
  },
  createEncoder: (options) => {
    if (!encoderEngine) throw new CodecError('ENGINE_UNAVAILABLE', FORMAT, 'the encoder engine is not loaded: load the module with role "encode"')
    return new BrotliEncoder(options)
  },
}

/** Instantiates the engine(s) `role` needs (both when omitted) and returns the codec module. */
export async function loadBrotli(role?: 'decode' | 'encode'): Promise<CodecModule> {
  const [dec, enc] = await Promise.all([
    role !== 'encode' && !decoderEngine ? BrotliDecoderEngine.load() : undefined,
    role !== 'decode' && !encoderEngine ? BrotliEncoderEngine.load() : undefined,
  ])
  decoderEngine ??= dec
  encoderEngine ??= enc
  return brotli
}
