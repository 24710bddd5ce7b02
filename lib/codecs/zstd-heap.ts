/**
 * What a zstd codec holds in its libzstd instance's memory, for the decoder
 * (zstd-decode.ts, on `zstd-dec.wasm`) and the encoder (zstd-encode.ts, on
 * `zstd-enc.wasm`; wasm/zstd-engine.ts says which build and why, and gives each role's
 * calls role-free names): a codec's heap state (its libzstd context, its staging block,
 * its copy of the dictionary), allocated on demand and freed by `releaseZstd`.
 *
 * Input and output are staged through two fixed buffers in the wasm memory, allocated
 * when a frame starts and freed when it ends (or on `dispose()`): the caller's arrays are
 * only read or written during a call.
 */
import type { ZstdEngine } from './wasm/zstd-engine.js'
import { HeapLifecycle } from './wasm-codec.js'

/** Bytes of each staging buffer: two zstd blocks (RFC 8878 §3.1.1.2.4, 128 KiB each). */
export const STAGE = 256 * 1024
/** Staging layout: [srcPos u32][dstPos u32][8 spare][input STAGE][output STAGE]. */
const STAGE_IN = 16
export const STAGE_OUT = STAGE_IN + STAGE
const STAGE_BYTES = STAGE_OUT + STAGE

/** A codec's heap state; shared with the finalizer, so it must not reference the codec. */
export interface ZstdHeapState {
  readonly lib: ZstdEngine
  /** `ZSTD_DStream*` / `ZSTD_CStream*`, 0 when not allocated. */
  context: number
  /** Staging block (layout above), 0 when not allocated. */
  stage: number
  /** Copy of the dictionary in the wasm memory (a prefix must stay in place), 0 when none. */
  dictionary: number
  /**
   * Whether the context holds the trained dictionary: a decoder loads it once per context
   * (`ZstdEngine.keepsDictionary`).
   */
  loaded: boolean
  /** After `stream()`: where libzstd's input position got to in the staged input, and the bytes it wrote to the output staging. */
  inputPos: number
  produced: number
}

/** A fresh heap state on `lib`: nothing allocated yet. */
export const heapState = (lib: ZstdEngine): ZstdHeapState => ({ lib, context: 0, stage: 0, dictionary: 0, loaded: false, inputPos: 0, produced: 0 })

function releaseZstd(state: ZstdHeapState): void {
  const lib = state.lib
  if (state.context !== 0) {
    lib.freeContext(state.context)
    state.context = 0
  }
  if (state.stage !== 0) {
    lib.exports.free(state.stage)
    state.stage = 0
  }
  if (state.dictionary !== 0) {
    lib.exports.free(state.dictionary)
    state.dictionary = 0
  }
  state.loaded = false
}

/** Frees wasm memory on `dispose()`, and of codecs that were dropped without it. */
export const zstdLifecycle = /* @__PURE__ */ new HeapLifecycle<ZstdHeapState>(releaseZstd)

/**
 * Allocates the context of `state` and, with `stage`, its staging block; false when the
 * wasm heap is exhausted.
 */
export function allocate(state: ZstdHeapState, stage: boolean): boolean {
  const lib = state.lib
  if (stage && state.stage === 0) state.stage = lib.exports.malloc(STAGE_BYTES)
  if (state.context === 0) state.context = lib.createContext()
  lib.heap.refresh()
  return (!stage || state.stage !== 0) && state.context !== 0
}

/** Frees the staging block of `state` (a codec idle between frames holds at most its context). */
export function freeStage(state: ZstdHeapState): void {
  if (state.stage === 0) return
  state.lib.exports.free(state.stage)
  state.stage = 0
}

/**
 * libzstd's streaming call with the codec's context (and operation) bound:
 * `ZSTD_decompressStream_simpleArgs` or `ZSTD_compressStream2_simpleArgs`, whose other
 * arguments are, in order: dst, dstCapacity, dstPos*, src, srcSize, srcPos*.
 */
export type StreamCall = (dst: number, dstCapacity: number, dstPos: number, src: number, srcSize: number, srcPos: number) => number

/**
 * One streaming call through the staging block of `state`: libzstd reads the staged input
 * from `from` up to `staged` and writes at most `room` bytes to the output staging.
 * Returns its result (a `size_t`: an error code, or a hint); `state.inputPos` and
 * `state.produced` say how far it got.
 */
export function stream(state: ZstdHeapState, call: StreamCall, from: number, staged: number, room: number): number {
  const heap = state.lib.heap
  const io = state.stage >>> 2
  heap.words[io] = from
  heap.words[io + 1] = 0
  const result = call(state.stage + STAGE_OUT, room, state.stage + 4, state.stage + STAGE_IN, staged, state.stage)
  heap.refresh()
  state.inputPos = heap.words[io]!
  state.produced = heap.words[io + 1]!
  return result
}

/** Copies `length` bytes of `src` from `offset` into the input staging area. */
export function stageInput(state: ZstdHeapState, src: Uint8Array, offset: number, length: number): void {
  const heap = state.lib.heap
  heap.refresh()
  if (length > 0) heap.bytes.set(length === src.length ? src : src.subarray(offset, offset + length), state.stage + STAGE_IN)
}
