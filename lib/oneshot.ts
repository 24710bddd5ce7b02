/**
 * One-shot helpers, built on the span codecs and the same machine the streams use (so
 * truncation, trailing data and limits are judged identically).
 */
import { joinBytes, toBytes, type BinaryInput } from './bytes.js'
import type { Format } from './codec.js'
import type { Machine } from './machine.js'
import type { Decoder } from './codec.js'
import { readU32LE } from './endian.js'
import { checkMaxOutput, mostDecodedBytes, type CodecOptions } from './codec-options.js'
import { prepareDecoder, prepareEncoder } from './prepare.js'
import type { ProgressCallback } from './progress.js'
import { Status } from './status.js'

/** The largest output block a one-shot call uses (see `blockSizeFor`). */
const MAX_BLOCK = 16 * 1024 * 1024

function run(machine: Machine, data: Uint8Array): Uint8Array {
  machine.push(data)
  machine.end()
  const parts: Uint8Array[] = []
  let total = 0
  try {
    for (let out = machine.next(); out; out = machine.next()) {
      parts.push(out)
      total += out.length
    }
  } finally {
    machine.dispose()
  }
  // One part that fills most of its block is returned as is; otherwise copy to exact size
  // so a small result does not pin a large block.
  const only = parts[0]
  if (parts.length === 1 && only && only.length * 2 >= only.buffer.byteLength) return only
  return joinBytes(parts, total)
}

/**
 * Options of `decode()`: the span decoder's (`engine`, `maxOutputBytes`, `dictionary`,
 * the format's own) and `concatenated`.
 */
export type DecodeOptions<F extends Format = Format> = CodecOptions<F, 'decode'> & {
  /** Whether further frames/members are decoded (default: the format's rule). */
  concatenated?: boolean
  /** Called with `{ bytesIn, bytesOut, totalIn }` as the call runs, and once at the end (lib/progress.ts). */
  onProgress?: ProgressCallback
}

/** Options of `encode()`: the span encoder's (`engine`, `level`, `dictionary`, the format's own). */
export type EncodeOptions<F extends Format = Format> = CodecOptions<F, 'encode'> & {
  /** Called with `{ bytesIn, bytesOut, totalIn }` as the call runs, and once at the end (lib/progress.ts). */
  onProgress?: ProgressCallback
}

/**
 * The one block size a call uses, fixed for that call: the input length times `factor`
 * (the output expected per input byte) rounded up to a power of two, at least 64 KiB and
 * at most `MAX_BLOCK`, so a large output takes few blocks and a small one no large block.
 */
function blockSizeFor(inputLength: number, factor: number): number {
  return Math.min(MAX_BLOCK, Math.max(64 * 1024, 2 ** Math.ceil(Math.log2(Math.max(1, inputLength * factor)))))
}

/**
 * Decodes a whole buffer. Options: `engine`, `maxOutputBytes`, `concatenated`,
 * `onProgress` (with `totalIn`, the input's length), codec options.
 *
 * When the input is one frame that declares its size (zstd and LZ4 frames with a content
 * size; a gzip member's ISIZE), the output is allocated once at that size and decoded
 * into: no growth, no final copy. Anything else, or any surprise on that path (a size
 * that does not hold, more frames, corrupt input), goes through the machine from the
 * start, so results and errors are the machine's in every case.
 */
export async function decode<F extends Format>(format: F, data: BinaryInput, options: DecodeOptions<F> = {} as DecodeOptions<F>): Promise<Uint8Array> {
  const bytes = toBytes(data, true)
  const open = prepareDecoder(format, options, { machine: ['concatenated', 'onProgress'], chunkSize: blockSizeFor(bytes.length, 4), totalIn: bytes.length })
  let machine: Machine | null = null
  await open((m) => (machine = m))
  const m = machine as Machine | null
  const exact = declaredSizeDecode(m!.codec as Decoder, format, bytes, checkMaxOutput(format, options.maxOutputBytes))
  if (exact) {
    m!.dispose()
    // The exact-size path bypasses the machine: its one report, at the end.
    options.onProgress?.({ bytesIn: bytes.length, bytesOut: exact.length, totalIn: bytes.length })
    return exact
  }
  m!.codec.reset()
  return run(m!, bytes)
}

const EMPTY = new Uint8Array(0)

/**
 * The exact-size path of `decode()`: the output `bytes` declares it decodes to, if it
 * decodes to exactly that in one frame and nothing follows; otherwise null. A declared
 * size is untrusted, so it is allocated only when the format could produce it from this
 * many bytes (`mostDecodedBytes`) and the limit allows it.
 */
export function declaredSizeDecode(decoder: Decoder, format: Format, bytes: Uint8Array, maxBytes: number): Uint8Array | null {
  // A 0-byte destination makes the decoder read the frame header first.
  if (decoder.transform(bytes, EMPTY, true) === Status.InvalidData) return null
  let size = decoder.contentSize ?? -1
  // A gzip member ends with ISIZE, its length mod 2^32 (RFC 1952 section 2.3.1): right
  // for every single member under 4 GiB, checked by decoding all the same.
  if (size < 0 && format === 'gzip' && bytes.length >= 18) size = readU32LE(bytes, bytes.length - 4)
  if (size < 0 || size > maxBytes || size > mostDecodedBytes(format, bytes.length)) return null
  const output = new Uint8Array(size)
  decoder.reset()
  const status = decoder.transform(bytes, output, true)
  return status === Status.Done && decoder.written === size && decoder.consumed === bytes.length ? output : null
}

/** Encodes a whole buffer. Options: `engine`, `level`, codec options. */
export async function encode<F extends Format>(format: F, data: BinaryInput, options: EncodeOptions<F> = {} as EncodeOptions<F>): Promise<Uint8Array> {
  const bytes = toBytes(data, true)
  const open = prepareEncoder(format, options, { machine: ['onProgress'], chunkSize: blockSizeFor(bytes.length, 1), totalIn: bytes.length })
  let machine: Machine | null = null
  await open((m) => (machine = m))
  return run(machine!, bytes)
}
