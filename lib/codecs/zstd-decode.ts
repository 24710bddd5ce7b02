/**
 * The Zstandard (RFC 8878) span decoder on libzstd's decoder compiled to wasm
 * (`zstd-dec.wasm`; wasm/zstd-engine.ts says which build and why).
 *
 * The decoder reads each frame header itself, through zstd-frame-format.ts (to expose
 * `contentSize`, to enforce `maxWindowLog` before libzstd allocates the window, to check
 * the dictionary ID) and passes skippable frames over itself; the frame body goes
 * through `ZSTD_decompressStream`, whose memory is bounded by the frame's window (at most
 * 2^27 bytes by default). The decoder checks the window before libzstd allocates it, and
 * also gives libzstd the limit (`ZSTD_d_windowLogMax`, the power of two at or above it).
 *
 * libzstd is given one part of a frame at a time (the header, each block, the checksum:
 * RFC 8878 §3.1.1, followed by `ZstdFrameWalker.limit()`), never input that spans two.
 * It does not advance its input position on an error, so without that the offset of an
 * error would be wherever the failing call's input began, which depends on how the
 * caller split the input. With it, an error is placed at the first byte of the part
 * libzstd found it in: a block's 3-byte header, or the Content_Checksum for
 * `CHECKSUM_MISMATCH`, the same however the input arrives
 * (the repository's test/zstd-error-offsets.test.ts). Blocks are at most 128 KiB, and calls were already
 * bounded by the 256 KiB output staging, so this adds few calls.
 *
 * A decoder keeps its libzstd context (and a trained dictionary loaded into it) from
 * one frame to the next unless the frame's window buffer was over 1 MiB
 * (KEEP_BUFFERS_MAX). A frame that lies whole in one call's input and whose declared
 * content fits its destination (lib/whole-buffer.ts decodes so), up to 8 MiB with the frame,
 * skips the staging: frame and content are placed in the wasm memory at once, libzstd
 * decodes straight into the content, which is copied out once.
 */
import type { Decoder } from '../codec.js'
import type { ErrorCode } from '../errors.js'
import { checkMaxOutput, formatOption } from '../codec-options.js'
import { Status } from '../status.js'
import { WasmCodec } from './wasm-codec.js'
import { allocate, freeStage, heapState, stageInput, stream, STAGE, STAGE_OUT, zstdLifecycle, type StreamCall, type ZstdHeapState } from './zstd-heap.js'
import { applyDictionary, dictionaryOf, type ZstdDictionary } from './zstd-dictionary.js'
import { FramePart, PART_NAMES, ZstdFrameWalker } from './zstd-frame-format.js'
import { ZSTD_d_windowLogMax, ZSTD_reset_session_only, zstdErrorCode, zstdErrorName, type ZstdDecoderExports, type ZstdEngine } from './wasm/zstd-engine.js'
import type { WasmHeap } from './wasm/wasm-heap.js'
import { DEFAULT_MAX_WINDOW_LOG, ENGINE_MAX_WINDOW_LOG, MAX_WINDOW_LOG_OPTION, windowMemoryMessage, windowTooLargeForEngine } from './zstd-window.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

const FORMAT = 'zstd'

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

/** How libzstd errors map to codes; the rest are INVALID_DATA. */
const errorCodes: Record<number, ErrorCode> = {
  14: 'UNSUPPORTED', // frameParameter_unsupported
  16: 'LIMIT_EXCEEDED', // frameParameter_windowTooLarge
  22: 'CHECKSUM_MISMATCH', // checksum_wrong
  32: 'UNSUPPORTED', // dictionary_wrong: the frame needs a dictionary
  64: 'LIMIT_EXCEEDED', // memory_allocation: the wasm heap cannot grow
}

/** Finds where a frame ends from its block headers, for the decoder's whole-frame path. */
const frameEnd = /* @__PURE__ */ new ZstdFrameWalker()

const enum Phase {
  /** Reading the next frame header (nothing of the frame consumed yet). */
  Header,
  /** Inside a zstd frame: libzstd owns the state. */
  Frame,
  /** Inside a skippable frame: its bytes are passed over. */
  Skip,
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

export class ZstdDecoder extends WasmCodec<ZstdHeapState> implements Decoder {
  /** The decoder engine's exports and memory (`zstd-dec.wasm`). */
  private readonly x: ZstdDecoderExports
  private readonly heap: WasmHeap
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
  /** In a frame of which libzstd has seen nothing yet (its header was read by us). */
  private fresh = false
  /** Whether `startFrame()` readied libzstd for the current frame. */
  private ready = false
  /** Output produced since the last reset, against `maxOutput`. */
  private outputTotal = 0
  /** Where the current frame began, in input since the last reset. */
  private frameStart = 0
  /** Bytes of window buffer the current frame makes libzstd keep (min of window and content). */
  private frameBuffers = 0
  /** The current frame's parts: its header, then the part libzstd reads next. */
  private readonly walker = new ZstdFrameWalker()
  /** The current frame's Dictionary_ID (0: it names none). */
  private frameDictionaryId = 0
  /** Corrupt-frame errors add a hint about raw-content dictionaries (not for dcz, whose dictionary is checked by its SHA-256). */
  private readonly hintDictionary: boolean

  /** A decoder on `engine` (loaded by zstd.ts), with checked `options`. */
  constructor(engine: ZstdEngine<ZstdDecoderExports>, options: Record<string, unknown>) {
    super(FORMAT, 'decoder', 'zstd engine', zstdLifecycle, heapState(engine))
    this.x = engine.exports
    this.heap = engine.heap
    this.hintDictionary = options.dictionaryDigest === undefined
    this.maxOutput = checkMaxOutput(FORMAT, options.maxOutputBytes)
    this.maxWindowLog = (formatOption(FORMAT, 'decode', 'maxWindowLog', options.maxWindowLog, 'wasm') as number | undefined) ?? DEFAULT_MAX_WINDOW_LOG
    const windowBytes = (formatOption(FORMAT, 'decode', 'maxWindowBytes', options.maxWindowBytes, 'wasm') as number | undefined) ?? 2 ** MAX_WINDOW_LOG_OPTION
    this.maxWindow = Math.min(windowBytes, 2 ** this.maxWindowLog)
    this.dictionary = dictionaryOf(engine, 'decode', options.dictionary, options.dictionaryType)
  }

  protected run(src: Uint8Array, dst: Uint8Array): Status {
    if (this.phase === Phase.Header) {
      const status = this.readHeader(src)
      if (status !== Status.Done) return status
    }
    return this.phase === Phase.Skip ? this.skip(src) : this.decode(src, dst)
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

  /**
   * Reads the frame header (RFC 8878 §3.1.1.1) at the start of `src` without consuming
   * it (libzstd reads it again: until it is whole, each call passes it again), or a
   * skippable frame's 8-byte header, which is consumed. Returns `Done` when the frame may
   * proceed.
   */
  private readHeader(src: Uint8Array): Status {
    const walker = this.walker
    const at = this.inputTotal
    walker.step(src, walker.scanned, src.length)
    if (walker.error !== null) return this.fail('INVALID_DATA', walker.error.message, at + walker.error.offset)
    if (!walker.measured) return Status.NeedMoreData
    if (walker.part === FramePart.Skippable) {
      // Consumed as it is walked: the 8-byte header, and what of its data `src` holds.
      this.consumed = walker.scanned
      this.contentSize = 0
      this.phase = Phase.Skip
      return Status.Done
    }
    const header = walker.header!
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
    const { state, x } = this
    if (state.context !== 0) {
      // The context kept from the previous frame (endFrame): a new session, with its
      // parameters and a loaded dictionary kept.
      x.ZSTD_DCtx_reset(state.context, ZSTD_reset_session_only)
    } else {
      if (!allocate(state, false)) return this.fail('LIMIT_EXCEEDED', wasmMemoryFull('allocating the zstd decoder', "engine: 'node' (Node >= 22.15)"), at)
      // libzstd's own window limit too (frameParameter_windowTooLarge), below the check
      // in readHeader(): the power of two at or above the limit in bytes.
      x.ZSTD_DCtx_setParameter(state.context, ZSTD_d_windowLogMax, Math.min(ENGINE_MAX_WINDOW_LOG, Math.ceil(Math.log2(this.maxWindow))))
    }
    return this.applyDictionary(at)
  }

  /** Applies the dictionary for the frame libzstd is about to start; null, or the failure at `at`. */
  private applyDictionary(at: number): Status | null {
    const refused = this.dictionary === null ? null : applyDictionary(this.state, this.dictionary)
    return refused === null ? null : this.fail(refused.code, refused.message, at)
  }

  /**
   * The frame ended: `Done` until `reset()`. The context is kept for the next frame when
   * the frame's buffers were small (KEEP_BUFFERS_MAX): reloading a trained dictionary and
   * allocating a context cost more than decoding a small frame. The staging block is
   * freed; a decoder that is kept but idle holds at most its context.
   */
  private endFrame(): Status {
    const keep = this.frameBuffers <= KEEP_BUFFERS_MAX
    if (keep) freeStage(this.state)
    this.phase = Phase.Header
    return this.done(keep)
  }

  /** Passes over the content of a skippable frame. */
  private skip(src: Uint8Array): Status {
    this.consumed = this.walker.step(src, this.consumed, src.length)
    if (!this.walker.ended) return Status.NeedMoreData
    this.phase = Phase.Header
    return this.done(true)
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
    const state = this.state
    if (state.stage === 0 && !allocate(state, true)) {
      return this.fail('LIMIT_EXCEEDED', wasmMemoryFull('allocating the zstd decoder', "engine: 'node' (Node >= 22.15)"), this.inputTotal + this.consumed)
    }
    const { walker, x, heap } = this
    const ctx = state.context
    const call: StreamCall = (out, room, outPos, input, size, inPos) => x.ZSTD_decompressStream_simpleArgs(ctx, out, room, outPos, input, size, inPos)
    const outPointer = state.stage + STAGE_OUT
    let base = this.consumed // src offset of the staged chunk
    let staged = 0 // bytes staged
    let stagedPos = 0 // bytes of the staged chunk libzstd consumed
    let written = 0
    /** Whether libzstd was given the checksum with the destination full (see below). */
    let withoutRoom = false
    for (;;) {
      if (stagedPos === staged) {
        // At most the rest of the part libzstd is in (ZstdFrameWalker.limit), so that an
        // error is placed in that part whatever the chunking.
        base += staged
        const end = walker.limit(src, base, src.length, this.inputTotal + base - this.frameStart)
        staged = Math.min(DECODE_STAGE_STEP, end - base)
        stagedPos = 0
        stageInput(state, src, base, staged)
      }
      let room = Math.min(dst.length - written, STAGE)
      // One byte more than the limit allows, to tell "at the limit" from "past it".
      const allowed = this.maxOutput - this.outputTotal
      if (room > allowed) room = allowed + 1
      const result = stream(state, call, stagedPos, staged, room)
      let produced = state.produced
      const moved = state.inputPos !== stagedPos || produced !== 0
      stagedPos = state.inputPos
      this.consumed = base + stagedPos
      const over = produced > allowed
      if (over) produced = allowed
      if (produced > 0) {
        dst.set(heap.bytes.subarray(outPointer, outPointer + produced), written)
        written += produced
        this.outputTotal += produced
      }
      this.written = written
      const error = zstdErrorCode(result)
      if (error !== 0) {
        // libzstd did not move its input position: the error is in the part it was
        // reading, placed at that part's first byte.
        const at = this.frameStart + walker.start
        if (error === 64) return this.fail('LIMIT_EXCEEDED', windowMemoryMessage(this.frameBuffers, heap.bytes.length), at)
        return this.fail(errorCodes[error] ?? 'INVALID_DATA', `corrupt frame: ${zstdErrorName(error)} in ${PART_NAMES[walker.part]} at frame offset ${walker.start}${this.dictionaryHint(error)}`, at)
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
        if (withoutRoom || stagedPos !== staged || base + staged === src.length || !walker.checksumOnly(next)) return Status.DestinationTooSmall
        withoutRoom = true
        continue
      }
      const inputUsed = stagedPos === staged && base + staged === src.length
      if (inputUsed && produced < room) return Status.NeedMoreData
      // libzstd gave back neither progress nor an error with input and room available.
      if (this.stuck(moved)) return Status.InvalidData
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
    const { x, heap } = this
    const start = this.consumed
    frameEnd.reset()
    const end = frameEnd.scan(src, start, src.length)
    if (end < 0) return null
    const size = this.contentSize
    const frameBytes = end - start
    if (size + frameBytes > Math.min(WHOLE_FRAME_MAX, this.maxWindow)) return null
    const block = x.malloc(8 + size + frameBytes)
    if (block === 0) return null
    const outPointer = block + 8
    const inPointer = outPointer + size
    heap.refresh()
    heap.bytes.set(src.subarray(start, end), inPointer)
    const words = heap.words
    words[block >>> 2] = 0
    words[(block >>> 2) + 1] = 0
    const result = x.ZSTD_decompressStream_simpleArgs(this.state.context, outPointer, size, block + 4, inPointer, frameBytes, block)
    heap.refresh()
    const done = result === 0 && heap.words[block >>> 2] === frameBytes && heap.words[(block >>> 2) + 1] === size
    if (done) dst.set(heap.bytes.subarray(outPointer, outPointer + size))
    x.free(block)
    if (!done) {
      // Start the frame again for the streaming path: a fresh session, a prefix referenced
      // again (one attempt uses it up; a loaded trained dictionary stays).
      x.ZSTD_DCtx_reset(this.state.context, ZSTD_reset_session_only)
      return this.applyDictionary(this.inputTotal + start)
    }
    this.consumed = end
    this.written = size
    this.outputTotal += size
    return this.endFrame()
  }

  protected restart(): void {
    if (this.phase === Phase.Frame && this.state.context !== 0) {
      // Mid-frame: drop libzstd's session, keep its buffers and a loaded dictionary.
      this.x.ZSTD_DCtx_reset(this.state.context, ZSTD_reset_session_only)
    }
    this.phase = Phase.Header
    this.walker.reset()
    this.fresh = false
    this.ready = false
    this.contentSize = -1
    this.outputTotal = 0
  }
}
