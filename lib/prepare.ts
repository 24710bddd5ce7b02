import type { Format } from './codec.js'
import { DEFAULT_BLOCK_SIZE, FIRST_BLOCK_SIZE, Machine } from './machine.js'
import { checkBoolean, checkChunkSize, checkDictionary, checkFlush, checkLevel, checkMaxOutput, isDictionaryTransport, resolveEngine, traitsOf } from './formats.js'
import { loadCodec } from './registry.js'
import { addDictionaryDigest } from './dictionary-digest.js'

/**
 * The one place where a codec's options are checked and its machine is built, shared by
 * the WHATWG streams, the Node streams and the one-shot helpers, so that they cannot
 * drift apart in what they accept or how they judge the input.
 *
 * Options are checked synchronously (a bad one throws `INVALID_OPTION` from the call
 * that received it); the engine loads when the returned `open` runs. `open` hands the
 * machine to a callback instead of resolving with it: resolving a promise with an object
 * runs a `then` lookup, which is user code when `Object.prototype.then` is patched (the
 * Compression Streams tests do that to detach buffers mid-stream).
 */
export type OpenMachine = (use: (machine: Machine) => void) => Promise<void>

/** Options consumed by the shells (streams, Node duplex); the rest goes to the codec. */
const SHELL_OPTIONS = new Set(['signal', 'streams', 'chunkSize', 'duplex', 'concatenated', 'maxOutputBytes', 'flush'])

function codecOptions(format: Format, options: Record<string, unknown>): Record<string, unknown> {
  const rest: Record<string, unknown> = {}
  for (const key of Object.keys(options)) if (!SHELL_OPTIONS.has(key)) rest[key] = options[key]
  // Checked (and copied) now, so that a bad one throws here and later writes to the
  // caller's buffer cannot reach the codec, which is created once the engine loaded.
  const dictionary = checkDictionary(format, options.dictionary)
  if (dictionary) rest.dictionary = dictionary
  return rest
}

/**
 * Output chunk sizes: a `chunkSize` the caller chose is used for every chunk; by default
 * chunks start at 16 KiB and grow with the output to 256 KiB.
 */
function blockSizes(format: Format, chunkSize: unknown): { blockSize: number; firstBlockSize?: number } {
  const chosen = checkChunkSize(format, chunkSize)
  return chosen === undefined ? { blockSize: DEFAULT_BLOCK_SIZE, firstBlockSize: FIRST_BLOCK_SIZE } : { blockSize: chosen }
}

/** Checks decoder options now; `open` loads the engine and builds the machine. */
export function prepareDecoder(format: Format, options: Record<string, unknown>): OpenMachine {
  const engine = resolveEngine(format, options.engine)
  const maxOutputBytes = checkMaxOutput(format, options.maxOutputBytes)
  const sizes = blockSizes(format, options.chunkSize)
  const concatenated = checkBoolean(format, 'concatenated', options.concatenated, traitsOf(format).concatenable)
  const pass = codecOptions(format, options)
  // The limit also reaches the codec, which can refuse a frame declaring more early.
  if (options.maxOutputBytes !== undefined) pass.maxOutputBytes = maxOutputBytes
  return async (use) => {
    if (isDictionaryTransport(format)) await addDictionaryDigest(format, pass)
    const mod = await loadCodec(format, engine, 'decode')
    use(
      new Machine(mod.createDecoder(pass), {
        format,
        mode: 'decode',
        ...sizes,
        maxOutputBytes,
        concatenated,
      }),
    )
  }
}

/** Checks encoder options now; `open` loads the engine and builds the machine. */
export function prepareEncoder(format: Format, options: Record<string, unknown>): OpenMachine {
  const engine = resolveEngine(format, options.engine)
  checkLevel(format, options.level)
  const flush = checkFlush(format, options.flush)
  const sizes = blockSizes(format, options.chunkSize)
  const pass = codecOptions(format, options)
  return async (use) => {
    if (isDictionaryTransport(format)) await addDictionaryDigest(format, pass)
    const mod = await loadCodec(format, engine, 'encode')
    use(new Machine(mod.createEncoder(pass), { format, mode: 'encode', ...sizes, maxOutputBytes: Infinity, concatenated: false, flush }))
  }
}
