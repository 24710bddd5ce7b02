/**
 * Bytes in and out: what the library accepts as binary input (viewed in place, never
 * copied), and small helpers over byte arrays.
 */
import { CodecError } from './errors.js'

/**
 * What the library accepts as binary input: an ArrayBuffer, a SharedArrayBuffer or any
 * view of one (typed arrays, DataView). The web-compatible classes narrow this to the
 * standard's BufferSource, which excludes shared memory.
 */
export type BinaryInput = ArrayBuffer | SharedArrayBuffer | ArrayBufferView<ArrayBufferLike>

/**
 * The input of a whole-buffer call, viewed in place: a `BinaryInput`, or where `strings`
 * (encoders) a string, encoded as UTF-8 (as `new Response(string)` and node:zlib take
 * strings). Anything else is `INVALID_OPTION`, naming what was given.
 */
export function inputBytes(format: string, data: unknown, strings: boolean): Uint8Array {
  if (typeof data === 'string') {
    if (strings) return new TextEncoder().encode(data)
    throw new CodecError('INVALID_OPTION', format, 'data is a string; decoding takes the compressed bytes (an ArrayBuffer or a view of one)')
  }
  return toBytes(data, true, format)
}

/**
 * Views a BufferSource chunk as bytes without copying. Anything else throws: a
 * `CodecError('INVALID_OPTION')` of `format` when it is given (the library's surfaces;
 * the web-compatible classes show it as the standard's `TypeError`), else a `TypeError`.
 */
export function toBytes(chunk: unknown, allowShared: boolean, format?: string): Uint8Array {
  const refuse = (message: string): Error => (format === undefined ? new TypeError(message) : new CodecError('INVALID_OPTION', format, message))
  let view: Uint8Array
  if (chunk instanceof Uint8Array) view = chunk
  else if (ArrayBuffer.isView(chunk)) view = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  else if (chunk instanceof ArrayBuffer) view = new Uint8Array(chunk)
  else if (typeof SharedArrayBuffer !== 'undefined' && chunk instanceof SharedArrayBuffer) {
    if (!allowShared) throw refuse('chunk is a SharedArrayBuffer, which is not a BufferSource')
    view = new Uint8Array(chunk)
  } else {
    // Cross-realm buffers (e.g. from a vm context or a worker's structured clone).
    const tag = Object.prototype.toString.call(chunk)
    if (tag === '[object ArrayBuffer]') view = new Uint8Array(chunk as ArrayBuffer)
    else throw refuse(`${format === undefined ? 'chunk' : 'input'} must be an ArrayBuffer or an ArrayBufferView, got ${describe(chunk)}`)
  }
  if (!allowShared && typeof SharedArrayBuffer !== 'undefined' && view.buffer instanceof SharedArrayBuffer) {
    throw refuse('chunk is backed by a SharedArrayBuffer, which is not a BufferSource')
  }
  return view
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an Array'
  return typeof value === 'object' ? (value.constructor?.name ?? 'an object') : typeof value
}

/**
 * Rounds up to a multiple of 8, the alignment Arrow IPC gives every buffer and
 * message body (Columnar.rst, "Buffer Alignment and Padding"). Arithmetic, not bitwise:
 * sizes may exceed 2^31.
 */
export function align8(n: number): number {
  const r = n % 8
  return r === 0 ? n : n + 8 - r
}

/** `parts` joined into one new array of `total` bytes (their summed length). */
export function joinBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  const joined = new Uint8Array(total)
  let at = 0
  for (const p of parts) {
    joined.set(p, at)
    at += p.length
  }
  return joined
}
