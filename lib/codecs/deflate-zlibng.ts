/**
 * The deflate family's `wasm` encoder: zlib-ng's deflate (lib/codecs/wasm/zlibng-engine.ts)
 * as a span encoder for gzip (RFC 1952), zlib (RFC 1950) and raw deflate (RFC 1951).
 * zlib-ng writes the wrappers itself: the gzip header (MTIME 0, OS 255, as the
 * TypeScript encoder writes it) and trailer, the zlib header with FDICT + DICTID for a
 * preset dictionary, the Adler-32 trailer.
 *
 * Input is staged into the engine's memory a piece at a time; zlib-ng writes into a
 * 256 KiB staging block, copied out to `dst` as room allows (what does not fit waits
 * there, and no more input is taken until it is out). `consumed` counts what zlib-ng
 * took, so it is exact on every return.
 */
import type { Encoder, Format } from '../codec.js'
import { Status } from '../status.js'
import { EMPTY, HeapLifecycle, WasmCodec } from './wasm-codec.js'
import { wrapperOf } from './deflate.js'
import { loadZlibngEngine, Z_BUF_ERROR, Z_FINISH, Z_FULL_FLUSH, Z_NO_FLUSH, Z_OK, Z_STREAM_END, Z_SYNC_FLUSH, type ZlibngExports } from './wasm/zlibng-engine.js'
import type { WasmHeap } from './wasm/wasm-heap.js'
import { wasmMemoryFull } from './wasm/memory-full.js'

let zlibng: ZlibngExports
let heap: WasmHeap

/** Instantiates the engine (once); encoders can be created after it resolved. */
export async function loadZlibngEncoder(): Promise<void> {
  if (zlibng) return
  const engine = await loadZlibngEngine()
  zlibng = engine.exports
  heap = engine.heap
}

/** Whether `loadZlibngEncoder()` has resolved. */
export const zlibngLoaded = (): boolean => zlibng !== undefined

/**
 * Staging: [0, 8) io words (consumed, produced), then input, then output. 256 KiB each
 * way: zlib-ng's per-call overhead is measured in microseconds, the copies in and out
 * are the same bytes whatever the piece size.
 */
const STAGE = 256 * 1024
const STAGE_IN = 8
const STAGE_OUT = STAGE_IN + STAGE
const STAGE_BYTES = STAGE_OUT + STAGE

/** What one encoder holds in the engine's heap; freed by dispose() or its finalizer. */
interface ZlibngHeapState {
  /** The zng_stream, or 0. */
  stream: number
  /** The staging block, or 0. */
  stage: number
}

function releaseZlibng(state: ZlibngHeapState): void {
  if (state.stream !== 0) zlibng.zd_free(state.stream)
  if (state.stage !== 0) zlibng.free(state.stage)
  state.stream = 0
  state.stage = 0
}

const lifecycle = /* @__PURE__ */ new HeapLifecycle<ZlibngHeapState>(releaseZlibng)

/** windowBits of zlib's deflateInit2 per wrapper: +16 gzip, negative raw (zlib.h). */
const WINDOW_BITS = { gzip: 31, zlib: 15, raw: -15 } as const

export class ZlibngEncoder extends WasmCodec<ZlibngHeapState> implements Encoder {
  private readonly level: number
  private readonly windowBits: number
  /** The preset dictionary (zlib) or window (raw), checked and copied by the module. */
  private readonly dictionary: Uint8Array | null
  /** Whether the stream was set up (created or reset, dictionary given) for this run. */
  private started = false
  /** Output in the staging block not yet copied out: [pendingStart, pendingEnd). */
  private pendingStart = 0
  private pendingEnd = 0
  /** zlib-ng ended the stream (Z_STREAM_END); finished once the pending output is out. */
  private ended = false

  /** The `fullFlush` option: flush() drops the history (Z_FULL_FLUSH). */
  private readonly fullFlush: boolean

  constructor(format: Format, level: number, dictionary: Uint8Array | null, fullFlush = false) {
    super(format, 'encoder', 'zlib-ng deflate', lifecycle, { stream: 0, stage: 0 })
    this.fullFlush = fullFlush
    this.level = level
    this.windowBits = WINDOW_BITS[wrapperOf(format)]
    this.dictionary = dictionary
  }

  override transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    return this.call(src, dst, final ? Z_FINISH : Z_NO_FLUSH)
  }

  /**
   * A sync flush (Z_SYNC_FLUSH); with `full` (default: the `fullFlush` option), a full
   * flush (Z_FULL_FLUSH: no match reaches back past it).
   */
  flush(dst: Uint8Array, full = this.fullFlush): Status {
    return this.call(EMPTY, dst, full ? Z_FULL_FLUSH : Z_SYNC_FLUSH)
  }

  /** Creates (or resets) the stream and gives it the dictionary. */
  private start(): Status | null {
    this.started = true
    const state = this.state
    if (state.stage === 0) state.stage = zlibng.malloc(STAGE_BYTES)
    if (state.stream === 0) state.stream = zlibng.zd_create(this.level, this.windowBits)
    else zlibng.zd_reset(state.stream)
    if (state.stage === 0 || state.stream === 0) return this.fail('LIMIT_EXCEEDED', wasmMemoryFull('allocating the zlib-ng deflate stream', "engine: 'js' or 'node'"))
    const dictionary = this.dictionary
    if (dictionary && dictionary.length > 0) {
      // zlib's DICTID is the Adler-32 of the whole dictionary, so all of it goes in
      // (raw deflate keeps only its last 32 KiB either way).
      const big = dictionary.length > STAGE
      const at = big ? zlibng.malloc(dictionary.length) : state.stage + STAGE_IN
      if (at === 0) return this.fail('LIMIT_EXCEEDED', wasmMemoryFull(`copying a ${dictionary.length}-byte dictionary`, "engine: 'js' or 'node'"))
      heap.refresh()
      heap.bytes.set(dictionary, at)
      const result = zlibng.zd_dictionary(state.stream, at, dictionary.length)
      if (big) zlibng.free(at)
      if (result !== Z_OK) return this.fail('INVALID_OPTION', `zlib-ng refused the dictionary (deflateSetDictionary returned ${result})`)
    }
    return null
  }

  protected run(src: Uint8Array, dst: Uint8Array, flush: number): Status {
    if (!this.started) {
      const failed = this.start()
      if (failed !== null) return failed
    }
    return this.step(src, dst, flush)
  }

  private step(src: Uint8Array, dst: Uint8Array, flush: number): Status {
    const state = this.state
    const stream = state.stream
    const io = state.stage >>> 2
    const inPointer = state.stage + STAGE_IN
    const outPointer = state.stage + STAGE_OUT
    let base = 0
    let staged = 0
    let stagedPos = 0
    /** The flush asked for is complete once its output is out. */
    let complete = false
    for (;;) {
      if (this.pendingEnd > this.pendingStart) {
        const n = Math.min(this.pendingEnd - this.pendingStart, dst.length - this.written)
        heap.refresh()
        dst.set(heap.bytes.subarray(outPointer + this.pendingStart, outPointer + this.pendingStart + n), this.written)
        this.written += n
        this.pendingStart += n
        if (this.pendingStart < this.pendingEnd) return Status.DestinationTooSmall
      }
      if (this.ended) return this.done()
      if (complete) return Status.Done
      if (stagedPos === staged && base + staged < src.length) {
        base += staged
        staged = Math.min(STAGE, src.length - base)
        stagedPos = 0
        heap.refresh()
        heap.bytes.set(staged === src.length ? src : src.subarray(base, base + staged), inPointer)
      }
      const inputUsed = stagedPos === staged && base + staged === src.length
      // The flush (or the end) only once all of src is staged.
      const op = base + staged === src.length ? flush : Z_NO_FLUSH
      if (inputUsed && op === Z_NO_FLUSH) return Status.Done
      // Always the whole staging block as room: zlib repeats a sync marker when a flush
      // fills the room exactly (zlib.h: keep avail_out above six), so a small `dst` is
      // served from the block instead.
      const result = zlibng.zd_step(stream, op, inPointer + stagedPos, staged - stagedPos, outPointer, STAGE, state.stage)
      heap.refresh()
      const taken = heap.words[io]!
      const produced = heap.words[io + 1]!
      stagedPos += taken
      this.consumed = base + stagedPos
      this.pendingStart = 0
      this.pendingEnd = produced
      if (result === Z_STREAM_END) {
        this.ended = true
        continue
      }
      // Z_BUF_ERROR: nothing could be done (no input, nothing pending): not an error.
      if (result !== Z_OK && result !== Z_BUF_ERROR) return this.fail('INVALID_DATA', `zlib-ng deflate returned ${result}`)
      // zlib's rule: room left over after a flush with all input taken means it is complete.
      if (op !== Z_NO_FLUSH && op !== Z_FINISH && stagedPos === staged && produced < STAGE) complete = true
      if (this.stuck(taken !== 0 || produced !== 0)) return Status.InvalidData
    }
  }

  protected restart(): void {
    // start() resets zlib-ng's stream (deflateReset) on the next call.
    this.started = false
    this.pendingStart = 0
    this.pendingEnd = 0
    this.ended = false
  }
}
