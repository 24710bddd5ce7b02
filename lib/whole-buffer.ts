/**
 * The one-shot calls over whole buffers, `encodeWhole()` and `decodeWhole()` (what the
 * root entry's `encode()` and `decode()` run without `threads`; streams/one-shot.ts),
 * on the same machine the streams use, so truncation, trailing data, concatenated
 * frames, limits, error offsets and progress are judged identically.
 *
 * Any size the runtime can hold, at the least memory it can be done in:
 * - the input is read in place, never copied (the call owns it until it settles; the
 *   machine's `borrowInput`), whatever its size;
 * - the output is written straight into its final memory by the codec (the machine's
 *   `nextInto`): allocated once at the size the input declares (lib/decode-buffer.ts
 *   `declaredSize`), else grown (lib/output-bytes.ts); the result's buffer is its own,
 *   never a view of a larger one. Peak memory is the
 *   input, the output and a constant; output larger than one `ArrayBuffer` of the
 *   runtime fails with `LIMIT_EXCEEDED` naming the stream API.
 */
import { inputBytes, type BinaryInput } from './bytes.js'
import type { Decoder, Format } from './codec.js'
import { declaredSize } from './decode-buffer.js'
import { checkMaxOutput } from './codec-options.js'
import type { CodecOptions } from './option-types.js'
import type { Machine } from './machine.js'
import { OutputBytes, type OutputTarget } from './output-bytes.js'
import { prepareDecoder, prepareEncoder } from './prepare.js'
import type { ProgressCallback } from './progress.js'

/** What `decode()` takes besides the decoder's options. */
export interface OneShotDecodeOptions {
  /** Whether further frames/members are decoded (default: the format's rule). */
  concatenated?: boolean
  /** Called with `{ bytesIn, bytesOut, totalIn }` as the call runs, and once at the end (docs/progress.md). */
  onProgress?: ProgressCallback
}

/** What `encode()` takes besides the encoder's options. */
export interface OneShotEncodeOptions {
  /** Called with `{ bytesIn, bytesOut, totalIn }` as the call runs, and once at the end (docs/progress.md). */
  onProgress?: ProgressCallback
}

/**
 * Options of the serial `decode()` here: the span decoder's (`engine`, `maxOutputBytes`,
 * `dictionary`, the format's own) and `OneShotDecodeOptions`. The root entry's `decode()`
 * adds `threads` (streams/one-shot.ts).
 */
export type DecodeOptions<F extends Format = Format> = CodecOptions<F, 'decode'> & OneShotDecodeOptions

/** Options of the serial `encode()` here: the span encoder's (`engine`, `level`, `dictionary`, the format's own) and `OneShotEncodeOptions`. */
export type EncodeOptions<F extends Format = Format> = CodecOptions<F, 'encode'> & OneShotEncodeOptions

/**
 * The most output one step of the machine writes (and so between two progress
 * reports): the codecs write straight into the output, so the size of a step costs
 * nothing but calls.
 */
const STEP = 8 * 1024 * 1024

/** One byte of room, to ask whether output remains once the output is full. */
const PROBE = new Uint8Array(1)

/** The machine's output, written into `out` until the stream is finished. */
function drain(machine: Machine, out: OutputBytes): Uint8Array {
  for (;;) {
    const room = out.room(STEP)
    if (room.length === 0) {
      // Full (at a declared size, or the most it may hold): does the output go on?
      const n = machine.nextInto(PROBE)
      if (n === 0) return out.finish()
      out.extend(PROBE.subarray(0, n))
      continue
    }
    const n = machine.nextInto(room)
    out.advance(n)
    // With the input ended, a step writes nothing only once the stream is finished.
    if (n === 0) return out.finish()
  }
}

/** The machine `open` builds, handed over by callback (see lib/prepare.ts). */
async function opened(open: (use: (m: Machine) => void) => Promise<void>): Promise<Machine> {
  let machine: Machine | null = null
  await open((m) => (machine = m))
  return machine!
}

/**
 * Decodes a whole buffer. Options: `engine`, `maxOutputBytes` (default 2 GiB),
 * `concatenated`, `onProgress` (with `totalIn`, the input's length), codec options.
 * Output larger than one `ArrayBuffer` holds here fails with `LIMIT_EXCEEDED`: decode it
 * as a stream.
 */
export async function decodeWhole<F extends Format>(format: F, data: BinaryInput, options: DecodeOptions<F> = {} as DecodeOptions<F>): Promise<Uint8Array> {
  const bytes = inputBytes(format, data, false)
  const open = prepareDecoder(format, options, { machine: ['concatenated', 'onProgress'], totalIn: bytes.length, borrowInput: true })
  const limit = checkMaxOutput(format, options.maxOutputBytes)
  const machine = await opened(open)
  try {
    const target: OutputTarget = { format, streamApi: `decodeStream('${format}')` }
    const size = declaredSize(machine.codec as Decoder, format, bytes, limit)
    const out = size >= 0 ? OutputBytes.declared(size, limit, target, false) : OutputBytes.growing(limit, target)
    machine.push(bytes)
    machine.end()
    return drain(machine, out)
  } finally {
    machine.dispose()
  }
}

/**
 * Encodes a whole buffer, or a string as UTF-8. Options: `engine`, `level`, `onProgress`,
 * codec options. Output larger than one `ArrayBuffer` holds here fails with
 * `LIMIT_EXCEEDED`: encode it as a stream.
 */
export async function encodeWhole<F extends Format>(format: F, data: BinaryInput | string, options: EncodeOptions<F> = {} as EncodeOptions<F>): Promise<Uint8Array> {
  const bytes = inputBytes(format, data, true)
  const open = prepareEncoder(format, options, { machine: ['onProgress'], totalIn: bytes.length, borrowInput: true })
  const machine = await opened(open)
  try {
    const out = OutputBytes.growing(Infinity, { format, streamApi: `encodeStream('${format}')` })
    machine.push(bytes)
    machine.end()
    return drain(machine, out)
  } finally {
    machine.dispose()
  }
}
