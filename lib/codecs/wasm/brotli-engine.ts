/**
 * The brotli engines: Google's brotli 1.1.0 compiled to wasm32 by
 * `scripts/build-engines.mjs` (clang, wasi-libc; sources, flags and hashes in
 * `engines.json`), as two modules so that decoding never loads the encoder:
 *
 * - `brotli-dec.wasm`: the decoder and `native/brotli-dec.c`, our small C API over it;
 * - `brotli-enc.wasm`: the encoder and `native/brotli-enc.c`.
 *
 * Neither imports anything. Each instance has one staging area (input, output, and two
 * result words) that every call goes through: calls are synchronous, so codecs sharing
 * the instance never overlap. Each call's input and output are bounded by the staging
 * size, so the engine's per-call memory is too.
 */
import { brotliDecoderWasm } from '#wasm/brotli-dec'
import { brotliEncoderWasm } from '#wasm/brotli-enc'
import { instantiate } from './instantiate.js'

/** Step results (`BrotliDecoderResult` values; the encoder shim reports the same). */
export const RESULT_SUCCESS = 1
export const NEEDS_MORE_INPUT = 2
export const NEEDS_MORE_OUTPUT = 3

/** `BrotliEncoderOperation` values (encode.h). */
export const OPERATION_PROCESS = 0
export const OPERATION_FLUSH = 1
export const OPERATION_FINISH = 2

/** `BrotliSharedDictionaryType` values (shared_dictionary.h). */
export const DICTIONARY_RAW = 0
export const DICTIONARY_SERIALIZED = 1

/** `BrotliEncoderParameter` values used (encode.h). */
const PARAM_QUALITY = 1
const PARAM_LGWIN = 2
const PARAM_SIZE_HINT = 5
const PARAM_LARGE_WINDOW = 6
/** `BrotliDecoderParameter` value (decode.h). */
const DECODER_PARAM_LARGE_WINDOW = 1

/** What one engine call did; one reused object per codec. */
export interface BrotliStep {
  /** RESULT_SUCCESS, NEEDS_MORE_INPUT or NEEDS_MORE_OUTPUT; 0 on error. */
  code: number
  /** Bytes of the input the engine consumed. */
  inputUsed: number
  /** Bytes written to dst. */
  produced: number
  /**
   * The error when `code` is 0. For the decoder `Error code -N` with N the
   * `BrotliDecoderErrorCode` (decode.h), the form lib/codecs/brotli.ts names.
   */
  error: string
}

/** Most bytes of input, and of output, per call. */
const STAGE = 256 * 1024

interface CommonExports {
  memory: WebAssembly.Memory
  _initialize(): void
  malloc(size: number): number
  free(pointer: number): void
}

/** The staging area of one instance: [io words (8 bytes)][input STAGE][output STAGE]. */
class Staging {
  readonly io: number
  readonly input: number
  readonly output: number
  private bytes = new Uint8Array(0)
  private words = new Uint32Array(0)

  constructor(private readonly x: CommonExports) {
    const base = x.malloc(8 + 2 * STAGE)
    if (base === 0) throw new Error('brotli engine: no memory for the staging area')
    this.io = base
    this.input = base + 8
    this.output = base + 8 + STAGE
  }

  /** Bytes of the memory; call again after any engine call (memory may have grown). */
  heap(): Uint8Array {
    if (this.bytes.buffer !== this.x.memory.buffer) {
      this.bytes = new Uint8Array(this.x.memory.buffer)
      this.words = new Uint32Array(this.x.memory.buffer)
    }
    return this.bytes
  }

  consumed(): number {
    this.heap()
    return this.words[this.io >>> 2]!
  }

  produced(): number {
    this.heap()
    return this.words[(this.io >>> 2) + 1]!
  }

  /** Copies `bytes` into a new block of the memory; 0 when it cannot grow. */
  copyIn(bytes: Uint8Array): number {
    const pointer = this.x.malloc(Math.max(1, bytes.length))
    if (pointer !== 0) this.heap().set(bytes, pointer)
    return pointer
  }
}

async function load<T extends CommonExports>(source: ReturnType<typeof brotliDecoderWasm>): Promise<T> {
  const instance = await instantiate(source, {})
  const x = instance.exports as unknown as T
  x._initialize() // wasi-libc's reactor start-up
  return x
}

// ---------------------------------------------------------------------------------------

interface DecoderExports extends CommonExports {
  sb_dec_create(): number
  sb_dec_free(state: number): void
  sb_dec_set(state: number, param: number, value: number): number
  sb_dec_attach(state: number, type: number, size: number, data: number): number
  sb_dec_step(state: number, input: number, inputLength: number, output: number, outputLength: number, io: number): number
}

export interface BrotliDecoderSetup {
  /** Accept windows up to 2^30 (the "large window" brotli variant, not RFC 7932). */
  largeWindow?: boolean
  /** Raw content the stream was encoded against (a prefix it may refer back into). */
  dictionary?: Uint8Array
}

export class BrotliDecoderEngine {
  private readonly stage: Staging
  /** Dictionary copies in the memory, by decoder state; freed with the state. */
  private readonly dictionaries = new Map<number, number>()

  constructor(private readonly x: DecoderExports) {
    this.stage = new Staging(x)
  }

  /** Bytes of the engine's wasm memory (it grows, never shrinks). */
  memorySize(): number {
    return this.x.memory.buffer.byteLength
  }

  /** A new decoder state; 0 when the memory cannot grow or a setting is refused. */
  create(setup?: BrotliDecoderSetup): number {
    const x = this.x
    const state = x.sb_dec_create()
    if (state === 0 || setup === undefined) return state
    if (setup.largeWindow && !x.sb_dec_set(state, DECODER_PARAM_LARGE_WINDOW, 1)) return this.refuse(state)
    if (setup.dictionary !== undefined) {
      const copy = this.stage.copyIn(setup.dictionary)
      if (copy === 0) return this.refuse(state)
      this.dictionaries.set(state, copy)
      if (!x.sb_dec_attach(state, DICTIONARY_RAW, setup.dictionary.length, copy)) return this.refuse(state)
    }
    return state
  }

  private refuse(state: number): number {
    this.free(state)
    return 0
  }

  free(state: number): void {
    this.x.sb_dec_free(state)
    const dictionary = this.dictionaries.get(state)
    if (dictionary !== undefined) {
      this.x.free(dictionary)
      this.dictionaries.delete(state)
    }
  }

  /** Decodes `src[srcStart, srcEnd)` into `dst[dstStart, dstStart + room)`. */
  step(state: number, src: Uint8Array, srcStart: number, srcEnd: number, dst: Uint8Array, dstStart: number, room: number, out: BrotliStep): void {
    const stage = this.stage
    const length = Math.min(STAGE, srcEnd - srcStart)
    const capacity = Math.min(STAGE, room)
    if (length > 0) stage.heap().set(src.subarray(srcStart, srcStart + length), stage.input)
    const result = this.x.sb_dec_step(state, stage.input, length, stage.output, capacity, stage.io)
    const produced = stage.produced()
    if (produced > 0) dst.set(stage.heap().subarray(stage.output, stage.output + produced), dstStart)
    out.inputUsed = stage.consumed()
    out.produced = produced
    if (result < 0) {
      out.code = 0
      out.error = `Error code ${result}`
    } else {
      out.code = result
      out.error = ''
    }
  }

  static async load(): Promise<BrotliDecoderEngine> {
    return new BrotliDecoderEngine(await load<DecoderExports>(brotliDecoderWasm()))
  }
}

// ---------------------------------------------------------------------------------------

interface EncoderExports extends CommonExports {
  sb_enc_create(): number
  sb_enc_free(state: number): void
  sb_enc_set(state: number, param: number, value: number): number
  sb_enc_prepare(type: number, size: number, data: number, quality: number): number
  sb_enc_prepared_free(prepared: number): void
  sb_enc_attach(state: number, prepared: number): number
  sb_enc_step(state: number, op: number, input: number, inputLength: number, output: number, outputLength: number, io: number): number
}

/** A dictionary prepared once inside the encoder engine, for any number of encoders. */
export interface BrotliPreparedDictionary {
  /** The prepared dictionary (0 once freed). */
  prepared: number
  /** The copy of its bytes it refers to. */
  data: number
}

export interface BrotliEncoderSetup {
  /** Window bits, 10..24 (RFC 7932 §9.1), or up to 30 with `largeWindow`. */
  lgwin?: number
  /** Emit the "large window" brotli variant (not RFC 7932; decoders must opt in). */
  largeWindow?: boolean
  /** Expected input size, lets the encoder size its tables (BROTLI_PARAM_SIZE_HINT). */
  sizeHint?: number
  /** From `prepareDictionary()`; must outlive the encoder. */
  dictionary?: BrotliPreparedDictionary
}

export class BrotliEncoderEngine {
  private readonly stage: Staging

  constructor(private readonly x: EncoderExports) {
    this.stage = new Staging(x)
  }

  /** Bytes of the engine's wasm memory (it grows, never shrinks). */
  memorySize(): number {
    return this.x.memory.buffer.byteLength
  }

  /**
   * A streaming encoder at `quality` 0..11 (lgwin 22 unless `setup` says otherwise); 0
   * when out of memory or a setting is out of range (brotli itself would clamp it
   * silently: BrotliEncoderSetParameter stores any value).
   */
  create(quality: number, setup?: BrotliEncoderSetup): number {
    const x = this.x
    const lgwin = setup?.lgwin ?? 22
    const maxLgwin = setup?.largeWindow ? 30 : 24
    if (!Number.isInteger(quality) || quality < 0 || quality > 11 || !Number.isInteger(lgwin) || lgwin < 10 || lgwin > maxLgwin) return 0
    const state = x.sb_enc_create()
    if (state === 0) return 0
    let ok = x.sb_enc_set(state, PARAM_QUALITY, quality) === 1
    if (setup?.largeWindow) ok &&= x.sb_enc_set(state, PARAM_LARGE_WINDOW, 1) === 1
    if (setup?.lgwin !== undefined) ok &&= x.sb_enc_set(state, PARAM_LGWIN, setup.lgwin) === 1
    if (setup?.sizeHint !== undefined) ok &&= x.sb_enc_set(state, PARAM_SIZE_HINT, Math.min(setup.sizeHint, 2 ** 30)) === 1
    if (setup?.dictionary !== undefined) ok &&= x.sb_enc_attach(state, setup.dictionary.prepared) === 1
    if (!ok) {
      x.sb_enc_free(state)
      return 0
    }
    return state
  }

  free(state: number): void {
    this.x.sb_enc_free(state)
  }

  /**
   * Prepares raw content as a dictionary for encoders of quality up to `quality`
   * (BrotliEncoderPrepareDictionary); null when out of memory. Brotli 1.1.0's encoder
   * refers into raw dictionaries from quality 5 up (below, the stream is as without).
   */
  prepareDictionary(content: Uint8Array, quality: number): BrotliPreparedDictionary | null {
    const data = this.stage.copyIn(content)
    if (data === 0) return null
    const prepared = this.x.sb_enc_prepare(DICTIONARY_RAW, content.length, data, quality)
    if (prepared === 0) {
      this.x.free(data)
      return null
    }
    return { prepared, data }
  }

  /** Frees a prepared dictionary once no encoder uses it any more. */
  freeDictionary(dictionary: BrotliPreparedDictionary): void {
    if (dictionary.prepared === 0) return
    this.x.sb_enc_prepared_free(dictionary.prepared)
    this.x.free(dictionary.data)
    dictionary.prepared = 0
    dictionary.data = 0
  }

  /**
   * Encodes `src[srcStart, srcEnd)` with `operation`, writing at most `room` bytes to
   * dst: by default BROTLI_OPERATION_PROCESS, or BROTLI_OPERATION_FINISH when `src` is
   * null; BROTLI_OPERATION_FLUSH makes everything so far decodable. `code` is
   * RESULT_SUCCESS once the operation is complete, NEEDS_MORE_OUTPUT while output is
   * pending.
   */
  step(
    state: number,
    src: Uint8Array | null,
    srcStart: number,
    srcEnd: number,
    dst: Uint8Array,
    dstStart: number,
    room: number,
    out: BrotliStep,
    operation: number = src === null ? OPERATION_FINISH : OPERATION_PROCESS,
  ): void {
    const stage = this.stage
    const length = src === null ? 0 : Math.min(STAGE, srcEnd - srcStart)
    const capacity = Math.min(STAGE, room)
    if (length > 0) stage.heap().set(src!.subarray(srcStart, srcStart + length), stage.input)
    const result = this.x.sb_enc_step(state, operation, stage.input, length, stage.output, capacity, stage.io)
    if (result === 0) {
      out.code = 0
      out.inputUsed = 0
      out.produced = 0
      out.error = 'the encoder failed (out of memory or invalid state)'
      return
    }
    const produced = stage.produced()
    if (produced > 0) dst.set(stage.heap().subarray(stage.output, stage.output + produced), dstStart)
    out.code = result
    out.inputUsed = stage.consumed()
    out.produced = produced
    out.error = ''
  }

  static async load(): Promise<BrotliEncoderEngine> {
    return new BrotliEncoderEngine(await load<EncoderExports>(brotliEncoderWasm()))
  }
}

let loading: Promise<[BrotliDecoderEngine, BrotliEncoderEngine]> | null = null

/** Loads and instantiates both engines once. */
export function loadBrotliEngines(): Promise<[BrotliDecoderEngine, BrotliEncoderEngine]> {
  loading ??= Promise.all([BrotliDecoderEngine.load(), BrotliEncoderEngine.load()])
  loading.catch(() => (loading = null))
  return loading
}
