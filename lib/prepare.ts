/**
 * Where a codec is made from its options, for every surface: the WHATWG streams, the
 * Node streams and the one-shot helpers (the span codecs' `createDecoder` and
 * `createEncoder` in registry.ts run the same check), so that they cannot drift apart in what they accept or how they
 * judge the input.
 *
 * Every option is checked synchronously, by `checkOptions` (codec-options.ts):
 * a bad value, a wrong type or an unknown key throws `INVALID_OPTION` from the call that
 * received it, before any engine loads. The engine loads when the returned `open` runs.
 * `open` hands the machine to a callback instead of resolving with it: resolving a
 * promise with an object runs a `then` lookup, which is user code when
 * `Object.prototype.then` is patched (the Compression Streams tests do that to detach
 * buffers mid-stream).
 */
import type { Format } from './codec.js'
import { DEFAULT_BLOCK_SIZE, FIRST_BLOCK_SIZE, Machine } from './machine.js'
import { checkOptions, type SurfaceKeys } from './codec-options.js'
import { ProgressMeter } from './progress.js'
import { openCodec } from './registry.js'

/** Loads the engine and hands the machine to `use` (see the module comment for why not resolve with it). */
export type OpenMachine = (use: (machine: Machine) => void) => Promise<void>

/** The keys a surface takes besides the codec's, and a chunk size it fixes itself. */
export interface Surface extends SurfaceKeys {
  /** The output block size the surface chooses (the one-shot helpers); the caller's otherwise. */
  readonly chunkSize?: number
  /**
   * The input's size when the surface knows it (a one-shot call's input, a file), given
   * to `onProgress` as `totalIn`; read when the machine is built.
   */
  readonly totalIn?: number
  /**
   * Whether the caller leaves its chunks alone until they are consumed, even while
   * output is handed out (one-shot calls, Node streams): they are then read in place
   * (the machine's `borrowInput`). The WHATWG streams copy what is unconsumed instead.
   */
  readonly borrowInput?: boolean
}

/** The progress meter of one machine, when the caller asked for reports (`onProgress`). */
function progressOf(checked: { onProgress: ((p: import('./progress.js').Progress) => void) | undefined }, surface: Surface): ProgressMeter | undefined {
  return checked.onProgress ? new ProgressMeter(checked.onProgress, surface.totalIn) : undefined
}

/**
 * The WHATWG stream factories: the machine's options, `signal` and `streams`. A stream
 * read with backpressure holds no more memory for a longer output, so it decodes any
 * length unless `maxOutputBytes` is given (as node:zlib's streams do).
 */
export const STREAM_SURFACE: Surface = Object.freeze({ machine: true, shell: Object.freeze(['signal', 'streams']), maxOutputBytes: Infinity })

/**
 * Output chunk sizes: a `chunkSize` chosen is used for every chunk; by default chunks
 * start at 16 KiB and grow with the output to 256 KiB.
 */
function blockSizes(chosen: number | undefined): { blockSize: number; firstBlockSize?: number } {
  return chosen === undefined ? { blockSize: DEFAULT_BLOCK_SIZE, firstBlockSize: FIRST_BLOCK_SIZE } : { blockSize: chosen }
}

/** Checks decoder options now; `open` loads the engine and builds the machine. */
export function prepareDecoder(format: Format, options: object, surface: Surface = STREAM_SURFACE): OpenMachine {
  const checked = checkOptions(format, 'decode', options, surface)
  const sizes = blockSizes(surface.chunkSize ?? checked.chunkSize)
  const { maxOutputBytes, concatenated } = checked
  return (use) => openCodec(format, 'decode', checked, (codec) => use(new Machine(codec, { format, mode: 'decode', ...sizes, maxOutputBytes, concatenated, progress: progressOf(checked, surface), borrowInput: surface.borrowInput })))
}

/** Checks encoder options now; `open` loads the engine and builds the machine. */
export function prepareEncoder(format: Format, options: object, surface: Surface = STREAM_SURFACE): OpenMachine {
  const checked = checkOptions(format, 'encode', options, surface)
  const sizes = blockSizes(surface.chunkSize ?? checked.chunkSize)
  const { flush } = checked
  return (use) => openCodec(format, 'encode', checked, (codec) => use(new Machine(codec, { format, mode: 'encode', ...sizes, maxOutputBytes: Infinity, concatenated: false, flush, progress: progressOf(checked, surface), borrowInput: surface.borrowInput })))
}
