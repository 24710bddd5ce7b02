/**
 * Brotli (RFC 7932) span codecs on wasm engines (see `wasm/brotli-engine.ts`): brotli
 * 1.1.0's streaming decoder and encoder, built by scripts/build-engines.mjs.
 *
 * Each call hands the engine at most `STEP` bytes of input and asks for at most `STEP`
 * bytes of output, so the engine's per-call buffers stay bounded whatever the caller
 * passes; the engine's own state is bounded by the window (2^lgwin, at most 16 MiB,
 * RFC 7932 §9.1).
 *
 * Dictionaries (the `dictionary` option, checked and copied by formats.ts
 * `checkDictionary`): raw content the stream may refer back into as if it preceded the
 * input (brotli's shared-dictionary "raw" prefix, BROTLI_SHARED_DICTIONARY_RAW, as
 * node:zlib's `dictionary` option takes it). The encoder prepares it once per stream
 * (BrotliEncoderPrepareDictionary); brotli 1.1.0 refers into it from quality 5 up only
 * (encode.c), so below that the stream is the same as without one and decodes with or
 * without it. The decoder attaches it to each new stream.
 */
import type { Decoder, Encoder } from '../codec.js'
import { CodecError, type ErrorCode, type Failure } from '../errors.js'
import { checkDictionary, checkInteger, checkLevel, checkMaxOutput, traitsOf } from '../formats.js'
import type { CodecModule } from '../codec.js'
import { NativeLifecycle, type NativeHandle } from './native-handle.js'
import { Status } from '../status.js'
import { largeWindowRefusal } from './brotli-window.js'
import { BrotliDecoderEngine, BrotliEncoderEngine, type BrotliPreparedDictionary, type BrotliStep, NEEDS_MORE_INPUT, OPERATION_FLUSH, RESULT_SUCCESS } from './wasm/brotli-engine.js'

const FORMAT = 'brotli'
const EMPTY = new Uint8Array(0)

/**
 * The two engines, each instantiated on first use by `loadBrotli()`: decoding never
 * loads the encoder build, encoding never loads the decoder.
 */
let decoderEngine: BrotliDecoderEngine | undefined
let encoderEngine: BrotliEncoderEngine | undefined

/** Most input and output bytes per engine call. */
const STEP = 256 * 1024

/** RFC 7932 §9.1: WINDOW_BITS from 10 to 24. */
const MIN_LGWIN = 10
const MAX_LGWIN = 24

/** Native state shared with the finalizer (must not reference the codec). */
interface NativeState {
  /** Engine stream pointer, 0 when not allocated. */
  stream: number
  decoder: boolean
  /** Encoder: the dictionary prepared for `stream`, freed after it; null when none. */
  prepared: BrotliPreparedDictionary | null
}

function releaseNative(state: NativeState): void {
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
const lifecycle = /* @__PURE__ */ new NativeLifecycle<NativeState>(releaseNative)

const enum Phase {
  Open,
  /** Decoder: the stream ended; encoder: the stream was finished. `Done` until reset(). */
  Done,
  Failed,
}

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

class BrotliDecoder implements Decoder {
  readonly format = FORMAT
  consumed = 0
  written = 0
  failure: Failure | null = null
  /** Brotli has no content size field. */
  readonly contentSize = -1

  private readonly maxOutput: number
  /** Raw content the stream was encoded against, or undefined. */
  private readonly dictionary: Uint8Array | undefined
  private phase = Phase.Open
  private inputTotal = 0
  private outputTotal = 0
  private readonly handle: NativeHandle<NativeState>
  private readonly step: BrotliStep = newStep()

  constructor(options: Record<string, unknown>) {
    this.maxOutput = checkMaxOutput(FORMAT, options.maxOutputBytes)
    this.dictionary = dictionaryOf(options.dictionary)
    this.handle = lifecycle.attach(this, FORMAT, 'decoder', { stream: 0, decoder: true, prepared: null })
  }

  private fail(code: ErrorCode, message: string): Status {
    this.failure = { code, message, offset: this.inputTotal + this.consumed }
    this.phase = Phase.Failed
    this.handle.release()
    return Status.InvalidData
  }

  transform(src: Uint8Array, dst: Uint8Array, _final: boolean): Status {
    this.handle.check()
    this.consumed = 0
    this.written = 0
    if (this.phase === Phase.Failed) return Status.InvalidData
    if (this.phase === Phase.Done) return Status.Done
    const status = this.decode(src, dst)
    this.inputTotal += this.consumed
    return status
  }

  private decode(src: Uint8Array, dst: Uint8Array): Status {
    const state = this.handle.state
    if (this.inputTotal === 0 && src.length > 0) {
      const refused = largeWindowRefusal(src)
      if (refused) return this.fail('LIMIT_EXCEEDED', refused)
    }
    if (state.stream === 0) {
      state.stream = decoderEngine!.create(this.dictionary ? { dictionary: this.dictionary } : undefined)
      if (state.stream === 0) return this.fail('LIMIT_EXCEEDED', 'wasm memory exhausted allocating the brotli decoder')
    }
    const step = this.step
    let stalls = 0
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
        this.phase = Phase.Done
        this.handle.release()
        return Status.Done
      }
      if (step.code === NEEDS_MORE_INPUT) {
        if (this.consumed === src.length) return Status.NeedMoreData
      } else if (this.written === dst.length) {
        return Status.DestinationTooSmall
      }
      if (step.inputUsed !== 0 || step.produced !== 0) stalls = 0
      else if (++stalls > 2) return this.fail('INVALID_DATA', 'brotli engine made no progress')
    }
  }

  reset(): void {
    this.handle.check()
    // The engine has no reset: a stream in progress is dropped, a new one made on demand.
    this.handle.release()
    this.phase = Phase.Open
    this.failure = null
    this.inputTotal = 0
    this.outputTotal = 0
    this.consumed = 0
    this.written = 0
  }

  dispose(): void {
    this.handle.dispose()
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

class BrotliEncoder implements Encoder {
  readonly format = FORMAT
  consumed = 0
  written = 0
  failure: Failure | null = null

  private readonly quality: number
  private readonly lgwin: number | undefined
  private readonly dictionary: Uint8Array | undefined
  private phase = Phase.Open
  private inputTotal = 0
  private readonly handle: NativeHandle<NativeState>
  private readonly step: BrotliStep = newStep()

  constructor(options: Record<string, unknown>) {
    this.quality = checkLevel(FORMAT, options.level)
    this.lgwin = checkInteger(FORMAT, 'lgwin', options.lgwin, MIN_LGWIN, MAX_LGWIN)
    this.dictionary = dictionaryOf(options.dictionary)
    this.handle = lifecycle.attach(this, FORMAT, 'encoder', { stream: 0, decoder: false, prepared: null })
  }

  private fail(code: ErrorCode, message: string): Status {
    this.failure = { code, message, offset: this.inputTotal + this.consumed }
    this.phase = Phase.Failed
    this.handle.release()
    return Status.InvalidData
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    this.handle.check()
    this.consumed = 0
    this.written = 0
    if (this.phase === Phase.Failed) return Status.InvalidData
    if (this.phase === Phase.Done) {
      if (src.length > 0) return this.fail('INVALID_OPTION', `${src.length} bytes of input after the end of the stream; reset() first`)
      return Status.Done
    }
    const status = this.encode(src, dst, final)
    this.inputTotal += this.consumed
    return status
  }

  private encode(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    const state = this.handle.state
    if (state.stream === 0) {
      // The size hint is the input of this first call, which is what brotli derives
      // itself when handed that input in one call (encode.c UpdateSizeHint); our calls
      // pass at most STEP bytes, so without it a one-shot encode would be tuned as if
      // the input were 256 KiB (smaller tables, another match finder: at quality 5 on
      // 16 MiB of text half the ratio node:zlib gets).
      if (this.dictionary && state.prepared === null) {
        state.prepared = encoderEngine!.prepareDictionary(this.dictionary, this.quality)
        if (state.prepared === null) return this.fail('LIMIT_EXCEEDED', 'wasm memory exhausted preparing the brotli dictionary')
      }
      state.stream = encoderEngine!.create(this.quality, { lgwin: this.lgwin, sizeHint: src.length, dictionary: state.prepared ?? undefined })
      if (state.stream === 0) return this.fail('LIMIT_EXCEEDED', 'wasm memory exhausted allocating the brotli encoder')
    }
    const step = this.step
    let stalls = 0
    while (this.consumed < src.length) {
      if (this.written === dst.length) return Status.DestinationTooSmall
      const chunk = Math.min(STEP, src.length - this.consumed)
      const room = Math.min(STEP, dst.length - this.written)
      encoderEngine!.step(state.stream, src, this.consumed, this.consumed + chunk, dst, this.written, room, step)
      if (step.code === 0) return this.fail('INVALID_DATA', `brotli engine: ${step.error}`)
      this.consumed += step.inputUsed
      this.written += step.produced
      if (step.inputUsed !== 0 || step.produced !== 0) stalls = 0
      else if (++stalls > 2) return this.fail('INVALID_DATA', 'brotli engine made no progress')
    }
    if (!final) return Status.Done
    // BROTLI_OPERATION_FINISH until the encoder says the stream is complete.
    for (;;) {
      if (this.written === dst.length) return Status.DestinationTooSmall
      const room = Math.min(STEP, dst.length - this.written)
      encoderEngine!.step(state.stream, null, 0, 0, dst, this.written, room, step)
      if (step.code === 0) return this.fail('INVALID_DATA', `brotli engine: ${step.error}`)
      this.written += step.produced
      if (step.code === RESULT_SUCCESS) {
        this.phase = Phase.Done
        this.handle.release()
        return Status.Done
      }
      if (step.produced !== 0) stalls = 0
      else if (++stalls > 2) return this.fail('INVALID_DATA', 'brotli engine made no progress')
    }
  }

  /**
   * BROTLI_OPERATION_FLUSH: everything given so far is written out, ending on a byte
   * boundary a decoder can decode up to. `DestinationTooSmall` while output is pending.
   */
  flush(dst: Uint8Array): Status {
    this.handle.check()
    this.consumed = 0
    this.written = 0
    if (this.phase === Phase.Failed) return Status.InvalidData
    if (this.phase === Phase.Done) return Status.Done
    const state = this.handle.state
    if (state.stream === 0) return Status.Done // nothing encoded yet: nothing to flush
    const step = this.step
    let stalls = 0
    for (;;) {
      if (this.written === dst.length) return Status.DestinationTooSmall
      const room = Math.min(STEP, dst.length - this.written)
      encoderEngine!.step(state.stream, EMPTY, 0, 0, dst, this.written, room, step, OPERATION_FLUSH)
      if (step.code === 0) return this.fail('INVALID_DATA', `brotli engine: ${step.error}`)
      this.written += step.produced
      if (step.code === RESULT_SUCCESS) return Status.Done
      if (step.produced !== 0) stalls = 0
      else if (++stalls > 2) return this.fail('INVALID_DATA', 'brotli engine made no progress')
    }
  }

  reset(): void {
    this.handle.check()
    this.handle.release()
    this.phase = Phase.Open
    this.failure = null
    this.inputTotal = 0
    this.consumed = 0
    this.written = 0
  }

  dispose(): void {
    this.handle.dispose()
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
