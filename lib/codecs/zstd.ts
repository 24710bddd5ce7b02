/**
 * Zstandard (RFC 8878) span codecs on libzstd compiled to wasm (see
 * `wasm/zstd-engine.ts` for which build and why).
 *
 * The decoder reads each frame header itself (to expose `contentSize`, to enforce
 * `maxWindowLog` before libzstd allocates the window, to check the dictionary ID) and
 * skips skippable frames itself; the frame body goes through `ZSTD_decompressStream`,
 * whose memory is bounded by the frame's window (at most 2^27 bytes by default).
 *
 * libzstd is given one part of a frame at a time (the header, each block, the checksum:
 * RFC 8878 §3.1.1, followed by `ZstdFrameParts`), never input that spans two. It does
 * not advance its input position on an error, so without that the offset of an error
 * would be wherever the failing call's input began, which depends on how the caller
 * split the input. With it, an error is placed at the first byte of the part libzstd
 * found it in: a block's 3-byte header, or the Content_Checksum for `CHECKSUM_MISMATCH`,
 * the same however the input arrives (test/zstd-error-offsets.test.ts). Blocks are at
 * most 128 KiB, and calls were already bounded by the 256 KiB output staging, so this
 * adds few calls.
 * The encoder is `ZSTD_compressStream2`: one frame per stream, true streaming.
 *
 * Input and output are staged through two fixed buffers in the wasm memory, allocated
 * when a frame starts and freed when it ends (or on `dispose()`): the caller's arrays
 * are only read or written during a call. A decoder keeps its libzstd context (and a
 * trained dictionary loaded into it) from one frame to the next unless the frame's
 * window buffer was over 1 MiB (KEEP_BUFFERS_MAX); an encoder frees its context at
 * the end of its frame. A frame that lies whole in one call's input
 * and whose declared content fits its destination (lib/whole-buffer.ts decodes so), up to
 * 8 MiB with the frame, skips
 * the staging: frame and content are placed in the wasm memory at once, libzstd decodes
 * straight into the content, which is copied out once.
 *
 * The decoder checks the window itself, before libzstd allocates it, and also gives
 * libzstd the limit (`ZSTD_d_windowLogMax`, the power of two at or above it); the
 * encoder tells libzstd the content size when it is known (`ZSTD_CCtx_setPledgedSrcSize`).
 *
 * Dictionaries (the `dictionary` option, checked and copied by formats.ts
 * `checkDictionary`): bytes that start with the magic 37 A4 30 EC are a trained
 * dictionary (RFC 8878 §5: entropy tables, an ID, content), loaded with
 * `ZSTD_*Ctx_loadDictionary`; anything else is raw content, referenced as a prefix with
 * `ZSTD_*Ctx_refPrefix`. A prefix is referenced again at each frame (libzstd forgets it
 * at the end of the frame); a decoder's trained dictionary stays loaded across frames
 * (`ZSTD_DCtx_reset(session_only)` keeps it), an encoder's is loaded again at each
 * frame (`ZSTD_initCStream` clears it, zstd.h). An encoder with a trained dictionary
 * writes its ID into the frame header (Dictionary_ID, RFC 8878 §3.1.1.1.3), beside the
 * content size when that is known (`ZSTD_CCtx_setPledgedSrcSize`, as `zstd -D` writes
 * it); a decoder refuses a frame that names another ID before decoding any of it.
 */
import type { Decoder, Encoder } from '../codec.js'
import { CodecError, type ErrorCode, type Failure } from '../errors.js'
import { checkDictionary, checkLevel, checkMaxOutput, formatOption, traitsOf } from '../formats.js'
import type { CodecModule } from '../codec.js'
import { NativeLifecycle, type NativeHandle } from './native-handle.js'
import { Status } from '../status.js'
import { readU32LE } from '../endian.js'
import { DESCRIPTOR_RESERVED, frameHeaderLength, parseFrameHeader, SKIPPABLE_MAGIC, SKIPPABLE_MASK, ZSTD_MAGIC, ZstdFrameParts, ZstdFrameScanner } from './zstd-frame.js'
import {
  loadZstdDecoderEngine,
  loadZstdEncoderEngine,
  ZSTD_c_checksumFlag,
  ZSTD_c_compressionLevel,
  ZSTD_c_contentSizeFlag,
  ZSTD_c_windowLog,
  ZSTD_d_windowLogMax,
  ZSTD_e_continue,
  ZSTD_e_end,
  ZSTD_e_flush,
  ZSTD_reset_session_only,
  zstdErrorCode,
  zstdErrorName,
  type ZstdDecoderExports,
  type ZstdEncoderExports,
} from './wasm/zstd-engine.js'
import type { WasmHeap } from './wasm/wasm-heap.js'
import { seekableOrPlain } from './zstd-seekable-encode.js'
import { checkEncoderWindow, DEFAULT_MAX_WINDOW_LOG, ENGINE_MAX_WINDOW_LOG, MAX_WINDOW_LOG_OPTION, windowMemoryMessage, windowTooLargeForEngine, ZSTD_c_enableLongDistanceMatching } from './zstd-window.js'

const FORMAT = 'zstd'

/**
 * The decoder engine's exports and heap view (`zstd-dec.wasm`), set by `loadZstd()`
 * before any decoder exists; unset when only the encoder was loaded.
 */
let native!: ZstdDecoderExports
let heap!: WasmHeap
/** The same for the encoder engine (`zstd-enc.wasm`), a separate instance and memory. */
let encoderNative!: ZstdEncoderExports
let encoderHeap!: WasmHeap

/** The default window limit (libzstd's ZSTD_WINDOWLOG_LIMIT_DEFAULT, 27; zstd-window.ts). */
const MAX_WINDOW_LOG = DEFAULT_MAX_WINDOW_LOG

/** Bytes of each staging buffer: two zstd blocks (RFC 8878 §3.1.1.2.4, 128 KiB each). */
const STAGE = 256 * 1024
/**
 * Input staged per decoder step. libzstd consumes input only as fast as it can emit
 * output, so staging a whole STAGE for a small destination would copy bytes into wasm
 * that are then handed back unconsumed; 64 KiB bounds that waste per call.
 */
const DECODE_STAGE_STEP = 64 * 1024
/**
 * Most wasm memory the whole-frame path takes (frame and content together), and never
 * more than the decoder's window limit: 8 MiB is the window RFC 8878 §3.1.1.1.2 expects
 * every decoder to afford, so the path costs no more memory than streaming a typical
 * frame. Larger contents stream: the memory an instance grows to stays, and at 16 MiB
 * the single pass measured no faster than streaming (its content is cold by the time it
 * is copied out; streaming copies window-sized pieces still in cache).
 */
const WHOLE_FRAME_MAX = 8 * 1024 * 1024
/**
 * Largest window buffer (the smaller of a frame's window and content size) for which a
 * decoder keeps its libzstd context from one frame to the next. Many small frames with a
 * trained dictionary are the case it serves: loading the dictionary (a copy and its
 * entropy tables) again per frame costs more than decoding a frame of a few KiB. A frame
 * with a larger window frees the context when it ends, so a decoder never holds a large
 * buffer between frames; libzstd sizes the buffer kept to the last frames' needs (it
 * shrinks buffers more than 3 times too large after 128 frames, zstd_decompress.c).
 */
const KEEP_BUFFERS_MAX = 1024 * 1024
/**
 * Most wasm memory the encoder's one-pass path takes (input and worst-case output
 * together, ZstdEncoder.wholeInput): above it, input is staged 256 KiB at a time, so an
 * instance (whose memory never shrinks) does not grow to twice the largest input.
 */
const WHOLE_INPUT_MAX = 16 * 1024 * 1024
/** Staging layout: [srcPos u32][dstPos u32][8 spare][input STAGE][output STAGE]. */
const STAGE_IN = 16
const STAGE_OUT = STAGE_IN + STAGE
const STAGE_BYTES = STAGE_OUT + STAGE

/** Native state of one codec; shared with the finalizer, so it must not reference the codec. */
interface NativeState {
  /** `ZSTD_DStream*` / `ZSTD_CStream*`, 0 when not allocated. */
  context: number
  /** Staging block (layout above), 0 when not allocated. */
  stage: number
  /** Copy of the dictionary in the wasm memory (a prefix must stay in place), 0 when none. */
  dictionary: number
  /**
   * Whether the decoder's context holds the trained dictionary: loaded once per context
   * (`ZSTD_DCtx_loadDictionary` keeps it for every frame until the context is freed or
   * the dictionary is cleared; `ZSTD_DCtx_reset(session_only)` keeps it).
   */
  loaded: boolean
  decoder: boolean
}

function releaseNative(state: NativeState): void {
  const x = state.decoder ? native : encoderNative
  if (state.context !== 0) {
    if (state.decoder) native.ZSTD_freeDStream(state.context)
    else encoderNative.ZSTD_freeCStream(state.context)
    state.context = 0
  }
  if (state.stage !== 0) {
    x.free(state.stage)
    state.stage = 0
  }
  if (state.dictionary !== 0) {
    x.free(state.dictionary)
    state.dictionary = 0
  }
  state.loaded = false
}

/** Frees wasm memory on `dispose()`, and of codecs that were dropped without it. */
const lifecycle = /* @__PURE__ */ new NativeLifecycle<NativeState>(releaseNative)

/**
 * Allocates the context of `state` and, with `stage`, its staging block; false when the
 * wasm heap is exhausted.
 */
function allocateNative(state: NativeState, stage: boolean): boolean {
  if (stage && state.stage === 0) state.stage = (state.decoder ? native : encoderNative).malloc(STAGE_BYTES)
  if (state.context === 0) state.context = state.decoder ? native.ZSTD_createDStream() : encoderNative.ZSTD_createCStream()
  ;(state.decoder ? heap : encoderHeap).refresh()
  return (!stage || state.stage !== 0) && state.context !== 0
}

/** Finds where a frame ends from its block headers, for the decoder's whole-frame path. */
const frameEnd = /* @__PURE__ */ new ZstdFrameScanner()

/** Magic number of a trained dictionary (RFC 8878 §5, little-endian 37 A4 30 EC). */
const DICTIONARY_MAGIC = 0xec30a437

/** A `dictionary` option as the codecs use it: its bytes and, if trained, its ID. */
interface ZstdDictionary {
  readonly bytes: Uint8Array
  /** Whether the bytes are a trained dictionary (magic); raw content otherwise. */
  readonly trained: boolean
  /** Dictionary_ID of a trained dictionary (RFC 8878 §5), 0 for raw content. */
  readonly id: number
}

/** Trained dictionaries (checked copies) that libzstd's decoder loaded once without complaint. */
const loadable = /* @__PURE__ */ new WeakSet<Uint8Array>()
/** The same for libzstd's encoder (its own module, which parses the tables itself). */
const encodable = /* @__PURE__ */ new WeakSet<Uint8Array>()

/**
 * Has the engine of the codec being created (`decoder`: the decoder's, else the
 * encoder's) parse a trained dictionary's entropy tables; 0 or a `ZSTD_ErrorCode`.
 * libzstd reports broken tables as memory_allocation (ZSTD_createDDict and
 * ZSTD_createCDict return NULL).
 */
function loadTrained(bytes: Uint8Array, decoder: boolean): { error: number; exhausted: boolean } {
  const x = decoder ? native : encoderNative
  const h = decoder ? heap : encoderHeap
  const copy = x.malloc(bytes.length)
  let error = copy === 0 ? 64 : 0
  let exhausted = error !== 0
  if (!exhausted) {
    h.refresh()
    h.bytes.set(bytes, copy)
    if (decoder) {
      const dctx = native.ZSTD_createDStream()
      exhausted = dctx === 0
      error = dctx === 0 ? 64 : zstdErrorCode(native.ZSTD_DCtx_loadDictionary(dctx, copy, bytes.length))
      if (dctx !== 0) native.ZSTD_freeDStream(dctx)
    } else {
      // Level 1: the smallest match tables; the entropy tables do not depend on it.
      const cdict = encoderNative.ZSTD_createCDict(copy, bytes.length, 1)
      error = cdict === 0 ? 64 : 0
      if (cdict !== 0) encoderNative.ZSTD_freeCDict(cdict)
    }
    x.free(copy)
  }
  // memory_allocation is also how libzstd reports corrupt entropy tables.
  if (error === 64 && !exhausted) exhausted = !heapCouldHold(bytes.length, decoder)
  h.refresh()
  return { error, exhausted }
}

/**
 * The `dictionary` option; `dictionaryType: 'raw'` takes it as raw content even when it
 * starts with the magic (RFC 9842's 'dcz' does), 'auto' (the default) by the magic.
 */
function dictionaryOf(value: unknown, type: unknown, decoder: boolean): ZstdDictionary | null {
  const raw = formatOption(FORMAT, decoder ? 'decode' : 'encode', 'dictionaryType', type, 'wasm') === 'raw'
  const bytes = checkDictionary(FORMAT, value)
  if (bytes === undefined || bytes.length === 0) return null
  const trained = !raw && bytes.length >= 8 && readU32LE(bytes, 0) === DICTIONARY_MAGIC
  const id = trained ? readU32LE(bytes, 4) : 0
  const checked = decoder ? loadable : encodable
  if (trained && !checked.has(bytes)) {
    // A caller mistake, so it throws now, where the codec is created, as every bad option
    // does (INVALID_OPTION is thrown at construction, lib/errors.ts), rather than failing
    // the first transform: the encoder loads its dictionary lazily, and libzstd reports
    // broken entropy tables as memory_allocation (ZSTD_createDDict returns NULL).
    const { error, exhausted } = loadTrained(bytes, decoder)
    if (exhausted) {
      // Out of memory is LIMIT_EXCEEDED, as everywhere else (errors.ts), not a bad option.
      throw new CodecError('LIMIT_EXCEEDED', FORMAT, `dictionary: the wasm memory cannot hold the trained dictionary (ID ${id}, ${bytes.length} bytes)`)
    }
    if (error !== 0) {
      throw new CodecError('INVALID_OPTION', FORMAT, `dictionary: the trained dictionary (magic 37 A4 30 EC, ID ${id}, ${bytes.length} bytes) cannot be loaded: ${zstdErrorName(error)}; its entropy tables are corrupt`)
    }
    checked.add(bytes)
  }
  return { bytes, trained, id }
}

/**
 * Whether the wasm heap has room for what loading a trained dictionary of `size` bytes
 * takes (libzstd's DDict: a copy of it and entropy tables of some tens of KiB). libzstd
 * reports both corrupt entropy tables and a failed allocation as memory_allocation
 * (`ZSTD_createDDict` returns NULL either way), so when that happens, a trial allocation
 * tells them apart.
 */
function heapCouldHold(size: number, decoder: boolean): boolean {
  const x = decoder ? native : encoderNative
  const trial = x.malloc(size + 64 * 1024)
  if (trial !== 0) x.free(trial)
  return trial !== 0
}

/**
 * Applies `dictionary` to the context of `state` for the next frame: a prefix again at
 * every frame (libzstd uses it for one frame), a trained dictionary once per context for
 * a decoder (it stays loaded; `state.loaded`), again at every frame for an encoder
 * (`ZSTD_initCStream` clears it). Null when it took, else the failure: LIMIT_EXCEEDED
 * when the wasm memory is exhausted, INVALID_OPTION when libzstd refused it.
 */
function applyDictionary(state: NativeState, dictionary: ZstdDictionary): { code: ErrorCode; message: string } | null {
  if (state.loaded) return null
  const size = dictionary.bytes.length
  const h = state.decoder ? heap : encoderHeap
  if (state.dictionary === 0) {
    state.dictionary = (state.decoder ? native : encoderNative).malloc(size)
    if (state.dictionary === 0) return { code: 'LIMIT_EXCEEDED', message: `wasm memory exhausted copying the dictionary (${size} bytes)` }
    h.refresh()
    h.bytes.set(dictionary.bytes, state.dictionary)
  }
  const ctx = state.context
  const result = dictionary.trained
    ? state.decoder
      ? native.ZSTD_DCtx_loadDictionary(ctx, state.dictionary, size)
      : encoderNative.ZSTD_CCtx_loadDictionary(ctx, state.dictionary, size)
    : state.decoder
      ? native.ZSTD_DCtx_refPrefix(ctx, state.dictionary, size)
      : encoderNative.ZSTD_CCtx_refPrefix(ctx, state.dictionary, size)
  h.refresh()
  const error = zstdErrorCode(result)
  if (error === 0) {
    if (state.decoder && dictionary.trained) {
      // libzstd loaded its own copy (ZSTD_dlm_byCopy), which the context keeps.
      state.loaded = true
      native.free(state.dictionary)
      state.dictionary = 0
    }
    return null
  }
  // A trained dictionary was loaded once before (dictionaryOf), and libzstd takes a
  // prefix by reference: memory_allocation here is the heap's.
  const code: ErrorCode = error === 64 ? 'LIMIT_EXCEEDED' : 'INVALID_OPTION'
  return { code, message: `the ${dictionary.trained ? `trained dictionary (ID ${dictionary.id})` : 'dictionary'} was refused: ${zstdErrorName(error)}` }
}

/** Copies `length` bytes of `src` from `offset` into the input staging area. */
function stageInput(state: NativeState, src: Uint8Array, offset: number, length: number): void {
  const h = state.decoder ? heap : encoderHeap
  h.refresh()
  if (length > 0) h.bytes.set(length === src.length ? src : src.subarray(offset, offset + length), state.stage + STAGE_IN)
}

/** Whether the first `length` (< 4) bytes can still begin a zstd or skippable frame. */
const frameMagicBytes = [0x28, 0xb5, 0x2f, 0xfd]
const skippableMagicBytes = [0x50, 0x2a, 0x4d, 0x18]

function couldBeMagic(src: Uint8Array, length: number): boolean {
  const frame = frameMagicBytes
  const skippable = skippableMagicBytes
  let isFrame = true
  let isSkippable = true
  for (let i = 0; i < length; i++) {
    if (src[i] !== frame[i]) isFrame = false
    if (i === 0 ? (src[0]! & 0xf0) !== 0x50 : src[i] !== skippable[i]) isSkippable = false
  }
  return isFrame || isSkippable
}

const errorCodes: Record<number, ErrorCode> = {
  14: 'UNSUPPORTED', // frameParameter_unsupported
  16: 'LIMIT_EXCEEDED', // frameParameter_windowTooLarge
  22: 'CHECKSUM_MISMATCH', // checksum_wrong
  32: 'UNSUPPORTED', // dictionary_wrong: the frame needs a dictionary
  64: 'LIMIT_EXCEEDED', // memory_allocation: the wasm heap cannot grow
}

/** What `ZstdFrameParts.part` names, for messages. */
const partNames = ['the frame header', 'the block', 'the content checksum', 'the end of the frame'] as const

const enum Phase {
  /** Waiting for the next frame header (nothing of the frame consumed yet). */
  Header,
  /** Inside a zstd frame: libzstd owns the state. */
  Frame,
  /** Inside a skippable frame: `skipRemaining` bytes left to drop. */
  Skip,
  /** The frame ended: `Done` until `reset()`. */
  Done,
  /** `InvalidData` was returned: `failure` is set until `reset()`. */
  Failed,
}

export interface ZstdDecoderOptions {
  maxOutputBytes?: number
  /**
   * Largest accepted Window_Log (RFC 8878 §3.1.1.1.2), 10..31; default 27 (a 128 MiB
   * window). 31 reads `zstd --long=31` files (a window of up to 2 GiB, and as much
   * memory); the wasm engine decodes windows up to 2^30 (zstd-window.ts).
   */
  maxWindowLog?: number
  /**
   * Largest accepted Window_Size in bytes, when a limit is not a power of two (RFC 9842
   * section 2.2's max(8 MiB, 1.25 x dictionary) for 'dcz'); the smaller limit applies.
   */
  maxWindowBytes?: number
  /** A trained dictionary (magic 37 A4 30 EC) or raw content the frames were encoded with. */
  dictionary?: BufferSource
  /** 'auto' (default): trained when it starts with the magic; 'raw': always raw content (RFC 9842 'dcz'). */
  dictionaryType?: 'auto' | 'raw'
}

class ZstdDecoder implements Decoder {
  readonly format = FORMAT
  consumed = 0
  written = 0
  failure: Failure | null = null
  /** Decoded size of the current frame from its header, or -1 when it does not say. */
  contentSize = -1

  /** Output limit over everything decoded since the last reset (`maxOutputBytes`). */
  private readonly maxOutput: number
  /** Windows larger than 2^maxWindowLog are refused before libzstd allocates them. */
  private readonly maxWindowLog: number
  /** The window limit in bytes: 2^maxWindowLog, or `maxWindowBytes` when smaller. */
  private readonly maxWindow: number
  private readonly dictionary: ZstdDictionary | null
  private phase = Phase.Header
  /** Bytes of a skippable frame's payload not consumed yet. */
  private skipRemaining = 0
  /** In a frame of which libzstd has seen nothing yet (its header was read by us). */
  private fresh = false
  /** Whether `startFrame()` readied libzstd for the current frame. */
  private ready = false
  /** Input consumed since the last reset, for failure offsets. */
  private inputTotal = 0
  /** Output produced since the last reset, against `maxOutput`. */
  private outputTotal = 0
  /** Where the current frame began, in input since the last reset. */
  private frameStart = 0
  /** Bytes of window buffer the current frame makes libzstd keep (min of window and content). */
  private frameBuffers = 0
  /** The part of the current frame libzstd reads next, for feeding it one part at a time. */
  private readonly parts = new ZstdFrameParts()
  private readonly handle: NativeHandle<NativeState>
  /** The current frame's Dictionary_ID (0: it names none). */
  private frameDictionaryId = 0
  /** Corrupt-frame errors add a hint about raw-content dictionaries (not for dcz, whose dictionary is checked by its SHA-256). */
  private readonly hintDictionary: boolean

  constructor(options: Record<string, unknown>) {
    this.hintDictionary = options.dictionaryDigest === undefined
    this.maxOutput = checkMaxOutput(FORMAT, options.maxOutputBytes)
    // MAX_WINDOW_LOG is also the wasm engine's hard limit (see above).
    this.maxWindowLog = (formatOption(FORMAT, 'decode', 'maxWindowLog', options.maxWindowLog, 'wasm') as number | undefined) ?? MAX_WINDOW_LOG
    const windowBytes = (formatOption(FORMAT, 'decode', 'maxWindowBytes', options.maxWindowBytes, 'wasm') as number | undefined) ?? 2 ** MAX_WINDOW_LOG_OPTION
    this.maxWindow = Math.min(windowBytes, 2 ** this.maxWindowLog)
    this.dictionary = dictionaryOf(options.dictionary, options.dictionaryType, true)
    this.handle = lifecycle.attach(this, FORMAT, 'decoder', { context: 0, stage: 0, dictionary: 0, loaded: false, decoder: true })
  }

  transform(src: Uint8Array, dst: Uint8Array, _final: boolean): Status {
    this.handle.check()
    this.consumed = 0
    this.written = 0
    let status: Status
    switch (this.phase) {
      case Phase.Failed:
        return Status.InvalidData
      case Phase.Done:
        return Status.Done
      case Phase.Header:
        status = this.readHeader(src)
        if (status !== Status.Done) return this.finish(status)
        status = (this.phase as Phase) === Phase.Skip ? this.skip(src) : this.decode(src, dst)
        break
      case Phase.Skip:
        status = this.skip(src)
        break
      default:
        status = this.decode(src, dst)
    }
    return this.finish(status)
  }

  private finish(status: Status): Status {
    this.inputTotal += this.consumed
    return status
  }

  /**
   * What to say after a corrupt-frame error when a dictionary may be the cause: a frame
   * compressed with raw content as its dictionary names no Dictionary_ID (RFC 8878 §5
   * covers only trained dictionaries), so a missing or different raw dictionary shows
   * up as corrupt data (libzstd's corruption_detected, 20) and nothing else.
   */
  private dictionaryHint(error: number): string {
    if (!this.hintDictionary || this.frameDictionaryId !== 0 || errorCodes[error] !== undefined) return ''
    if (this.dictionary === null) return '; if the frame was compressed with a raw-content dictionary (which no frame header names), it is missing: pass it as the dictionary option'
    if (!this.dictionary.trained) return `; the dictionary given is raw content (${this.dictionary.bytes.length} bytes), which no frame header names: it may not be the one the frame was compressed with`
    return ''
  }

  private fail(code: ErrorCode, message: string, offset: number): Status {
    this.failure = { code, message, offset }
    this.phase = Phase.Failed
    this.handle.release()
    return Status.InvalidData
  }

  /**
   * Parses the frame header (RFC 8878 §3.1.1.1) at the start of `src` without consuming
   * it (libzstd reads it again), or consumes a skippable frame's 8-byte header. Returns
   * `Done` when the frame may proceed.
   */
  private readHeader(src: Uint8Array): Status {
    const length = src.length
    const at = this.inputTotal
    if (length < 4) {
      if (!couldBeMagic(src, length)) return this.fail('INVALID_DATA', `bytes ${hex(src, length)} cannot start a zstd frame (magic 28 b5 2f fd) or a skippable frame`, at)
      return Status.NeedMoreData
    }
    const magic = readU32LE(src, 0)
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (length < 8) return Status.NeedMoreData
      this.skipRemaining = readU32LE(src, 4)
      this.consumed = 8
      this.contentSize = 0
      this.phase = Phase.Skip
      return Status.Done
    }
    if (magic !== ZSTD_MAGIC) {
      return this.fail('INVALID_DATA', `unknown frame magic 0x${magic.toString(16).padStart(8, '0')}, expected 0xfd2fb528 (zstd frame) or 0x184d2a5? (skippable frame)`, at)
    }
    if (length < 5) return Status.NeedMoreData
    const descriptor = src[4]!
    if (descriptor & DESCRIPTOR_RESERVED) return this.fail('INVALID_DATA', `frame header descriptor 0x${descriptor.toString(16)} has the reserved bit 3 set`, at + 4)
    if (length < 4 + frameHeaderLength(descriptor)) return Status.NeedMoreData
    const header = parseFrameHeader(src, 4)
    const size = header.contentSize
    this.frameDictionaryId = header.dictionaryId
    if (header.dictionaryId !== 0) {
      const dictionary = this.dictionary
      const idAt = at + 5 + header.windowBytes
      // Like the deflate family's FDICT without a dictionary: nothing in the input can
      // make the frame decodable, the caller has to supply the dictionary.
      if (dictionary === null) {
        return this.fail('UNSUPPORTED', `frame needs the zstd dictionary with ID ${header.dictionaryId}; pass it as the dictionary option`, idAt)
      }
      // INVALID_DATA, not CHECKSUM_MISMATCH: a Dictionary_ID is a label chosen when the
      // dictionary was trained (RFC 8878 §5), not a checksum of its bytes.
      if (header.dictionaryId !== dictionary.id) {
        const given = dictionary.trained ? `the trained dictionary given has ID ${dictionary.id}` : `the dictionary given is raw content (${dictionary.bytes.length} bytes, no ID)`
        return this.fail('INVALID_DATA', `frame needs the zstd dictionary with ID ${header.dictionaryId}; ${given}`, idAt)
      }
    }
    if (header.windowSize > this.maxWindow) {
      const limit = this.maxWindow === 2 ** this.maxWindowLog ? `2^${this.maxWindowLog} = ${this.maxWindow} (maxWindowLog)` : `${this.maxWindow} (maxWindowBytes)`
      return this.fail('LIMIT_EXCEEDED', `frame window ${header.windowSize} bytes exceeds the limit ${limit}`, at + 5)
    }
    if (header.windowSize > 2 ** ENGINE_MAX_WINDOW_LOG) return this.fail('LIMIT_EXCEEDED', windowTooLargeForEngine(header.windowSize), at + 5)
    if (size > this.maxOutput - this.outputTotal) {
      const sizeAt = at + 5 + header.windowBytes + header.dictionaryBytes
      return this.fail('LIMIT_EXCEEDED', `frame content size ${size} exceeds the remaining output limit ${this.maxOutput - this.outputTotal} (maxOutputBytes ${this.maxOutput})`, sizeAt)
    }
    this.contentSize = size
    this.frameStart = at
    this.frameBuffers = size >= 0 ? Math.min(size, header.windowSize) : header.windowSize
    this.parts.begin(4 + header.length, header.checksum)
    this.phase = Phase.Frame
    this.fresh = true
    this.ready = false
    return Status.Done
  }

  /**
   * Readies libzstd for the frame whose header was read: its context, the window limit
   * and the dictionary. Null when it took, else the failure.
   */
  private startFrame(): Status | null {
    const at = this.inputTotal + this.consumed
    const state = this.handle.state
    if (state.context !== 0) {
      // The context kept from the previous frame (endFrame): a new session, with its
      // parameters and a loaded dictionary kept.
      native.ZSTD_DCtx_reset(state.context, ZSTD_reset_session_only)
    } else {
      if (!allocateNative(state, false)) return this.fail('LIMIT_EXCEEDED', 'wasm memory exhausted allocating the zstd decoder', at)
      // libzstd's own window limit too (frameParameter_windowTooLarge), below the check
      // in readHeader(): the power of two at or above the limit in bytes.
      native.ZSTD_DCtx_setParameter(state.context, ZSTD_d_windowLogMax, Math.min(ENGINE_MAX_WINDOW_LOG, Math.ceil(Math.log2(this.maxWindow))))
    }
    return this.applyDictionary(at)
  }

  /** Applies the dictionary for the frame libzstd is about to start; null, or the failure at `at`. */
  private applyDictionary(at: number): Status | null {
    const refused = this.dictionary === null ? null : applyDictionary(this.handle.state, this.dictionary)
    return refused === null ? null : this.fail(refused.code, refused.message, at)
  }

  /**
   * The frame ended: `Done` until `reset()`. The context is kept for the next frame when
   * the frame's buffers were small (KEEP_BUFFERS_MAX): reloading a trained dictionary and
   * allocating a context cost more than decoding a small frame. The staging block is
   * freed; a decoder that is kept but idle holds at most its context.
   */
  private endFrame(): Status {
    this.phase = Phase.Done
    const state = this.handle.state
    if (this.frameBuffers > KEEP_BUFFERS_MAX) {
      this.handle.release()
    } else if (state.stage !== 0) {
      native.free(state.stage)
      state.stage = 0
    }
    return Status.Done
  }

  private skip(src: Uint8Array): Status {
    const n = Math.min(this.skipRemaining, src.length - this.consumed)
    this.consumed += n
    this.skipRemaining -= n
    if (this.skipRemaining > 0) return Status.NeedMoreData
    this.phase = Phase.Done
    return Status.Done
  }

  /** Runs libzstd over `src` from `this.consumed` until dst is full, input runs out or the frame ends. */
  private decode(src: Uint8Array, dst: Uint8Array): Status {
    if (this.fresh) {
      // Nothing of the frame reached libzstd yet. With no room at all for content the
      // header promised, a call could only make libzstd allocate its window and decode a
      // block into it (lib/whole-buffer.ts asks this way for the header's content size), so
      // libzstd is readied only for a call that can produce output.
      if (dst.length === 0 && this.contentSize > 0) return Status.DestinationTooSmall
      if (!this.ready) {
        const failed = this.startFrame()
        if (failed !== null) return failed
        this.ready = true
      }
      if (this.contentSize >= 0 && dst.length >= this.contentSize) {
        const whole = this.decodeWhole(src, dst)
        if (whole !== null) return whole
      }
      this.fresh = false
    }
    const state = this.handle.state
    if (state.stage === 0 && !allocateNative(state, true)) {
      return this.fail('LIMIT_EXCEEDED', 'wasm memory exhausted allocating the zstd decoder', this.inputTotal + this.consumed)
    }
    const ctx = state.context
    const srcPosPointer = state.stage
    const dstPosPointer = state.stage + 4
    const inPointer = state.stage + STAGE_IN
    const outPointer = state.stage + STAGE_OUT
    let base = this.consumed // src offset of the staged chunk
    let staged = 0 // bytes staged
    let stagedPos = 0 // bytes of the staged chunk libzstd consumed
    let written = 0
    let stalls = 0
    /** Whether libzstd was given the checksum with the destination full (see below). */
    let withoutRoom = false
    for (;;) {
      if (stagedPos === staged) {
        // At most the rest of the part libzstd is in (see ZstdFrameParts), so that an
        // error is placed in that part whatever the chunking.
        base += staged
        const end = this.parts.limit(src, base, src.length, this.inputTotal + base - this.frameStart)
        staged = Math.min(DECODE_STAGE_STEP, end - base)
        stagedPos = 0
        stageInput(state, src, base, staged)
      }
      let room = Math.min(dst.length - written, STAGE)
      // One byte more than the limit allows, to tell "at the limit" from "past it".
      const allowed = this.maxOutput - this.outputTotal
      if (room > allowed) room = allowed + 1
      const words = heap.words
      words[srcPosPointer >>> 2] = stagedPos
      words[dstPosPointer >>> 2] = 0
      const result = native.ZSTD_decompressStream_simpleArgs(ctx, outPointer, room, dstPosPointer, inPointer, staged, srcPosPointer)
      heap.refresh()
      const newPos = heap.words[srcPosPointer >>> 2]!
      let produced = heap.words[dstPosPointer >>> 2]!
      const progressed = newPos !== stagedPos || produced !== 0
      stagedPos = newPos
      this.consumed = base + stagedPos
      const error = zstdErrorCode(result)
      const over = produced > allowed
      if (over) produced = allowed
      if (produced > 0) {
        dst.set(heap.bytes.subarray(outPointer, outPointer + produced), written)
        written += produced
        this.outputTotal += produced
      }
      this.written = written
      if (error !== 0) {
        // libzstd did not move its input position: the error is in the part it was
        // reading, placed at that part's first byte.
        const at = this.frameStart + this.parts.start
        if (error === 64) return this.fail('LIMIT_EXCEEDED', windowMemoryMessage(this.frameBuffers, heap.bytes.length), at)
        return this.fail(errorCodes[error] ?? 'INVALID_DATA', `corrupt frame: ${zstdErrorName(error)} in ${partNames[this.parts.part]} at frame offset ${this.parts.start}${this.dictionaryHint(error)}`, at)
      }
      if (over) {
        return this.fail('LIMIT_EXCEEDED', `output exceeds maxOutputBytes ${this.maxOutput}`, this.inputTotal + this.consumed)
      }
      // The frame is complete and fully flushed; bytes after it stay unconsumed.
      if (result === 0) return this.endFrame()
      if (written === dst.length) {
        // The destination is full. When the content filled it exactly and the checksum is
        // all that is left and here, libzstd gets it in one more call without room, which
        // ends the frame in this call (as it did when one call's input spanned parts).
        const next = this.inputTotal + base + staged - this.frameStart
        if (withoutRoom || stagedPos !== staged || base + staged === src.length || !this.parts.checksumOnly(next)) return Status.DestinationTooSmall
        withoutRoom = true
        continue
      }
      const inputUsed = stagedPos === staged && base + staged === src.length
      if (inputUsed && produced < room) return Status.NeedMoreData
      if (progressed) stalls = 0
      else if (++stalls > 2) {
        // libzstd gave back neither progress nor an error with input and room available.
        return this.fail('INVALID_DATA', 'zstd engine made no progress', this.inputTotal + this.consumed)
      }
    }
  }

  /**
   * Decodes a frame that lies whole in `src` and fits `dst` in one call: the frame and its
   * content are placed in the wasm memory at once, where libzstd decodes straight into
   * the content (its single-pass path, no window buffer), and the content is copied out
   * once. Null, with libzstd's session as before, when this does not apply or the frame
   * does not decode (the streaming path then decodes it, so output, errors and offsets
   * are the streaming path's in every case).
   */
  private decodeWhole(src: Uint8Array, dst: Uint8Array): Status | null {
    const start = this.consumed
    frameEnd.reset()
    const end = frameEnd.scan(src, start, src.length)
    if (end < 0) return null
    const size = this.contentSize
    const frameBytes = end - start
    if (size + frameBytes > Math.min(WHOLE_FRAME_MAX, this.maxWindow)) return null
    const block = native.malloc(8 + size + frameBytes)
    if (block === 0) return null
    const outPointer = block + 8
    const inPointer = outPointer + size
    heap.refresh()
    heap.bytes.set(src.subarray(start, end), inPointer)
    const words = heap.words
    words[block >>> 2] = 0
    words[(block >>> 2) + 1] = 0
    const result = native.ZSTD_decompressStream_simpleArgs(this.handle.state.context, outPointer, size, block + 4, inPointer, frameBytes, block)
    heap.refresh()
    const done = result === 0 && heap.words[block >>> 2] === frameBytes && heap.words[(block >>> 2) + 1] === size
    if (done) dst.set(heap.bytes.subarray(outPointer, outPointer + size))
    native.free(block)
    if (!done) {
      // Start the frame again for the streaming path: a fresh session, a prefix referenced
      // again (one attempt uses it up; a loaded trained dictionary stays).
      native.ZSTD_DCtx_reset(this.handle.state.context, ZSTD_reset_session_only)
      return this.applyDictionary(this.inputTotal + start)
    }
    this.consumed = end
    this.written = size
    this.outputTotal += size
    return this.endFrame()
  }

  reset(): void {
    this.handle.check()
    if (this.phase === Phase.Frame && this.handle.state.context !== 0) {
      // Mid-frame: drop libzstd's session, keep its buffers and a loaded dictionary.
      native.ZSTD_DCtx_reset(this.handle.state.context, ZSTD_reset_session_only)
    }
    this.phase = Phase.Header
    this.fresh = false
    this.ready = false
    this.failure = null
    this.contentSize = -1
    this.skipRemaining = 0
    this.inputTotal = 0
    this.outputTotal = 0
    this.consumed = 0
    this.written = 0
  }

  dispose(): void {
    this.handle.dispose()
  }
}

function hex(bytes: Uint8Array, length: number): string {
  return Array.from(bytes.subarray(0, length), (b) => b.toString(16).padStart(2, '0')).join(' ')
}

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

const enum EncodePhase {
  Open,
  Finished,
  Failed,
}

class ZstdEncoder implements Encoder {
  readonly format = FORMAT
  consumed = 0
  written = 0
  failure: Failure | null = null

  private readonly level: number
  private readonly checksum: boolean
  /** `contentSize` option, or -1. */
  private readonly pledged: number
  private readonly dictionary: ZstdDictionary | null
  /** `windowLog` option, or 0 for the level's own. */
  private readonly windowLog: number
  /** `long` option: long-distance matching. */
  private readonly long: boolean
  private phase = EncodePhase.Open
  /** Whether anything reached libzstd since the last reset. */
  private started = false
  /** Input consumed since the last reset. */
  private inputTotal = 0
  private readonly handle: NativeHandle<NativeState>

  constructor(options: Record<string, unknown>) {
    this.level = checkLevel(FORMAT, options.level)
    this.checksum = (formatOption(FORMAT, 'encode', 'checksum', options.checksum, 'wasm') as boolean | undefined) ?? true
    this.pledged = (formatOption(FORMAT, 'encode', 'contentSize', options.contentSize, 'wasm') as number | undefined) ?? -1
    ;({ windowLog: this.windowLog, long: this.long } = checkEncoderWindow(options))
    this.dictionary = dictionaryOf(options.dictionary, options.dictionaryType, false)
    this.handle = lifecycle.attach(this, FORMAT, 'encoder', { context: 0, stage: 0, dictionary: 0, loaded: false, decoder: false })
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    return this.run(src, dst, final ? ZSTD_e_end : ZSTD_e_continue)
  }

  flush(dst: Uint8Array): Status {
    return this.run(EMPTY, dst, ZSTD_e_flush)
  }

  private fail(code: ErrorCode, message: string): Status {
    this.failure = { code, message, offset: this.inputTotal + this.consumed }
    this.phase = EncodePhase.Failed
    this.handle.release()
    return Status.InvalidData
  }

  /** Begins the frame: parameters, dictionary and, when it is known, the content size. */
  private start(src: Uint8Array, endOp: number): Status | null {
    this.started = true
    const state = this.handle.state
    if (!allocateNative(state, true)) return this.fail('LIMIT_EXCEEDED', 'wasm memory exhausted allocating the zstd encoder')
    const ctx = state.context
    encoderNative.ZSTD_initCStream(ctx, this.level)
    encoderNative.ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, this.level)
    encoderNative.ZSTD_CCtx_setParameter(ctx, ZSTD_c_checksumFlag, this.checksum ? 1 : 0)
    encoderNative.ZSTD_CCtx_setParameter(ctx, ZSTD_c_contentSizeFlag, 1)
    if (this.windowLog !== 0) encoderNative.ZSTD_CCtx_setParameter(ctx, ZSTD_c_windowLog, this.windowLog)
    if (this.long) encoderNative.ZSTD_CCtx_setParameter(ctx, ZSTD_c_enableLongDistanceMatching, 1)
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
      const error = zstdErrorCode(encoderNative.ZSTD_CCtx_setPledgedSrcSize(ctx, BigInt(known)))
      if (error !== 0) return this.fail('INVALID_OPTION', `contentSize ${known} was refused: ${zstdErrorName(error)}`)
    }
    return null
  }

  private run(src: Uint8Array, dst: Uint8Array, endOp: number): Status {
    this.handle.check()
    this.consumed = 0
    this.written = 0
    if (this.phase === EncodePhase.Failed) return Status.InvalidData
    if (this.phase === EncodePhase.Finished) {
      if (src.length > 0) return this.fail('INVALID_OPTION', `${src.length} bytes of input after the end of the stream; reset() first`)
      return Status.Done
    }
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
    const status = this.step(src, dst, endOp)
    this.inputTotal += this.consumed
    return status
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
    const bound = encoderNative.ZSTD_compressBound(src.length)
    if (bound <= 0 || dst.length < bound || src.length + bound > WHOLE_INPUT_MAX) return null
    const state = this.handle.state
    const block = encoderNative.malloc(src.length + bound)
    if (block === 0) return null
    const out = block + src.length
    encoderHeap.refresh()
    encoderHeap.bytes.set(src, block)
    const words = encoderHeap.words
    words[state.stage >>> 2] = 0
    words[(state.stage + 4) >>> 2] = 0
    const result = encoderNative.ZSTD_compressStream2_simpleArgs(state.context, out, bound, state.stage + 4, block, src.length, state.stage, ZSTD_e_end)
    encoderHeap.refresh()
    const consumed = encoderHeap.words[state.stage >>> 2]!
    const produced = encoderHeap.words[(state.stage + 4) >>> 2]!
    if (result === 0 && consumed === src.length) dst.set(encoderHeap.bytes.subarray(out, out + produced))
    encoderNative.free(block)
    const error = zstdErrorCode(result)
    if (error !== 0) return this.fail(error === 64 ? 'LIMIT_EXCEEDED' : 'INVALID_DATA', `zstd engine: ${zstdErrorName(error)}`)
    // With room for the worst case libzstd ends the frame in this call (zstd.h).
    if (result !== 0 || consumed !== src.length) return this.fail('INVALID_DATA', `zstd engine left the frame unfinished with room for the worst case (${result} bytes to flush)`)
    this.consumed = src.length
    this.written = produced
    this.inputTotal = src.length
    this.phase = EncodePhase.Finished
    this.handle.release()
    return Status.Done
  }

  private step(src: Uint8Array, dst: Uint8Array, endOp: number): Status {
    const state = this.handle.state
    const ctx = state.context
    const srcPosPointer = state.stage
    const dstPosPointer = state.stage + 4
    const inPointer = state.stage + STAGE_IN
    const outPointer = state.stage + STAGE_OUT
    let base = 0
    let staged = 0
    let stagedPos = 0
    let stalls = 0
    for (;;) {
      if (stagedPos === staged) {
        base += staged
        staged = Math.min(STAGE, src.length - base)
        stagedPos = 0
        stageInput(state, src, base, staged)
      }
      // ZSTD_e_end only once all of src is staged; until then the frame continues.
      const op = endOp === ZSTD_e_end && base + staged < src.length ? ZSTD_e_continue : endOp
      const room = Math.min(dst.length - this.written, STAGE)
      const words = encoderHeap.words
      words[srcPosPointer >>> 2] = stagedPos
      words[dstPosPointer >>> 2] = 0
      const result = encoderNative.ZSTD_compressStream2_simpleArgs(ctx, outPointer, room, dstPosPointer, inPointer, staged, srcPosPointer, op)
      encoderHeap.refresh()
      const newPos = encoderHeap.words[srcPosPointer >>> 2]!
      const produced = encoderHeap.words[dstPosPointer >>> 2]!
      const progressed = newPos !== stagedPos || produced !== 0
      stagedPos = newPos
      this.consumed = base + stagedPos
      const error = zstdErrorCode(result)
      if (error !== 0) return this.fail(error === 64 ? 'LIMIT_EXCEEDED' : 'INVALID_DATA', `zstd engine: ${zstdErrorName(error)}`)
      if (produced > 0) {
        dst.set(encoderHeap.bytes.subarray(outPointer, outPointer + produced), this.written)
        this.written += produced
      }
      const inputUsed = stagedPos === staged && base + staged === src.length
      if (op === ZSTD_e_continue) {
        if (inputUsed && endOp === ZSTD_e_continue) return Status.Done
      } else if (result === 0) {
        // The frame ended (ZSTD_e_end) or everything was flushed (ZSTD_e_flush).
        if (op === ZSTD_e_end) {
          this.phase = EncodePhase.Finished
          this.handle.release()
        }
        return Status.Done
      }
      if (this.written === dst.length) return Status.DestinationTooSmall
      if (progressed) stalls = 0
      else if (++stalls > 2) return this.fail('INVALID_DATA', 'zstd engine made no progress')
    }
  }

  reset(): void {
    this.handle.check()
    // start() re-initialises libzstd's session (ZSTD_initCStream) on the next call.
    this.phase = EncodePhase.Open
    this.started = false
    this.failure = null
    this.inputTotal = 0
    this.consumed = 0
    this.written = 0
  }

  dispose(): void {
    this.handle.dispose()
  }
}

const EMPTY = new Uint8Array(0)


/**
 * Instantiates the wasm engine(s) `role` needs (once; both when omitted) and returns the
 * codec module. The registry calls this on first use; codecs can only be created after
 * it resolved, and only of a role whose engine is loaded.
 */
export async function loadZstd(role?: 'decode' | 'encode'): Promise<CodecModule> {
  const [decoder, encoder] = await Promise.all([
    role !== 'encode' && !native ? loadZstdDecoderEngine() : undefined,
    role !== 'decode' && !encoderNative ? loadZstdEncoderEngine() : undefined,
  ])
  if (decoder) {
    native = decoder.exports
    heap = decoder.heap
  }
  if (encoder) {
    encoderNative = encoder.exports
    encoderHeap = encoder.heap
  }
  return zstd
}

const zstd: CodecModule = {
  traits: traitsOf(FORMAT),
  createDecoder: (options) => {
    if (!native) throw new CodecError('ENGINE_UNAVAILABLE', FORMAT, 'the decoder engine is not loaded: load the module with role "decode"')
    return new ZstdDecoder(options)
  },
  createEncoder: (options) => {
    if (!encoderNative) throw new CodecError('ENGINE_UNAVAILABLE', FORMAT, 'the encoder engine is not loaded: load the module with role "encode"')
    // `seekable`: the seekable format's frames and seek table (zstd-seekable-encode.ts).
    return seekableOrPlain(options, (frameOptions) => new ZstdEncoder(frameOptions))
  },
}
