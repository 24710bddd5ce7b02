/**
 * Driving a span decoder over one whole buffer that is already in memory, with a limit:
 * the job of the Arrow body decoder (each compressed buffer), apache-arrow's codec
 * registration and the hyparquet decompressors (each page). Streams run codecs through
 * the machine (`machine.ts`) instead; this is its counterpart for input that is complete
 * and output whose size is declared (or bounded), so it writes straight into the final
 * memory and never copies.
 *
 * The rules are the machine's: input that ends while the decoder still wants more is
 * `TRUNCATED`; bytes after the end are another frame only where the format allows it,
 * else `TRAILING_DATA`; a decoder's `InvalidData` becomes its failure, with the offset
 * counted from `target.base`.
 */
import { joinBytes } from './bytes.js'
import type { Decoder } from './codec.js'
import { CodecError } from './errors.js'
import { Status, statusName } from './status.js'

/** One whole-buffer decode: what it is called in messages, where it starts, what follows may be. */
export interface BufferTarget {
  /** The `format` of the errors thrown (e.g. `'arrow'`, or the decoder's own). */
  readonly format: string
  /** What is decoded, as messages name it: `'page'`, `'buffer 3'`. */
  readonly what: string
  /** Who declared the output size, for messages: `'its header'`, `'its prefix'`. */
  readonly declaredBy: string
  /** Offset of `input[0]` in the caller's input, for error offsets. */
  readonly base: number
  /** Whether another frame or member may follow the first (gzip, LZ4, zstd). */
  readonly concatenated: boolean
  /** Appended to every message, e.g. `' (GZIP page, 812 compressed bytes)'`. */
  readonly context?: string
  /**
   * `'exact'` (default): output must be exactly `output.length` bytes. `'hint'`: the size
   * is a guess; fewer bytes are fine, and more return -1 instead of throwing, so that the
   * caller can decode again with `decodeGrowing`.
   */
  readonly size?: 'exact' | 'hint'
}

/** One byte of room, to ask a decoder whether output remains after a full destination. */
const PROBE = new Uint8Array(1)
const EMPTY = new Uint8Array(0)

/**
 * Decodes all of `input` into `output`. Returns the bytes written: `output.length`, or
 * fewer with `size: 'hint'`, which also returns -1 when the output would be longer.
 */
export function decodeInto(decoder: Decoder, input: Uint8Array, output: Uint8Array, target: BufferTarget): number {
  const n = output.length
  const hint = target.size === 'hint'
  let ip = 0
  let op = 0
  let frameStart = 0
  decoder.reset()
  for (;;) {
    const full = op === n
    const status = decoder.transform(input.subarray(ip), full ? PROBE : output.subarray(op), true)
    if (full && decoder.written > 0) {
      if (hint) return -1
      throw error(target, 'INVALID_DATA', `${target.what} decodes to more than the ${n} bytes ${target.declaredBy} declares`, ip)
    }
    ip += decoder.consumed
    op += decoder.written
    switch (status) {
      case Status.Done:
        if (ip === input.length) {
          if (op !== n && !hint) throw error(target, 'INVALID_DATA', `${target.what} decodes to ${op} bytes, ${target.declaredBy} declares ${n}`, ip)
          return op
        }
        if (!target.concatenated) throw error(target, 'TRAILING_DATA', `${input.length - ip} bytes follow the end of the stream`, ip)
        decoder.reset() // another member or frame follows
        frameStart = ip
        break
      case Status.DestinationTooSmall:
        // The destination had room (else `full` probed it): a step without progress
        // would be a codec bug, so fail instead of looping.
        if (decoder.consumed === 0 && decoder.written === 0) {
          throw error(target, 'INVALID_DATA', `decoder made no progress at input byte ${ip}, output byte ${op}`, ip)
        }
        break
      case Status.NeedMoreData:
        throw error(target, 'TRUNCATED', `${target.what} ends inside the stream after ${op} of ${n} bytes`, input.length)
      case Status.InvalidData:
        throw failure(decoder, target, frameStart)
      default:
        throw error(target, 'INVALID_DATA', `unexpected status ${statusName(status)}`, ip)
    }
  }
}

/**
 * Decodes all of `input` when the output size is not known: into the size the frame
 * header declares when it has one (one allocation, no copy), else into chunks that
 * double, joined once at the end; the first chunk is `hint` bytes when the caller has a
 * good guess (a result that fits is a view of it, no copy). At most `maxBytes` are
 * produced (`LIMIT_EXCEEDED`).
 */
export function decodeGrowing(decoder: Decoder, input: Uint8Array, maxBytes: number, target: BufferTarget, hint = -1): Uint8Array {
  decoder.reset()
  // A 0-byte destination makes the decoder read the frame header first.
  const status = decoder.transform(input, EMPTY, true)
  if (status === Status.InvalidData) throw failure(decoder, target, 0)
  const size = decoder.contentSize ?? -1
  if (size >= 0 && !target.concatenated) {
    if (size > maxBytes) throw error(target, 'LIMIT_EXCEEDED', `frame content size ${size} exceeds the limit ${maxBytes}`, 0)
    const output = new Uint8Array(size)
    decodeInto(decoder, input, output, { ...target, declaredBy: 'its frame header', size: 'exact' })
    return output
  }
  const chunks: Uint8Array[] = []
  let total = 0
  let room = hint > 0 ? hint : Math.max(4096, input.length * 4)
  let ip = 0
  let frameStart = 0
  decoder.reset()
  for (;;) {
    if (total + room > maxBytes) room = maxBytes - total
    // One byte past the limit tells whether output remains.
    const dst = new Uint8Array(room > 0 ? room : 1)
    const s = decoder.transform(input.subarray(ip), dst, true)
    if (room <= 0 && decoder.written > 0) throw error(target, 'LIMIT_EXCEEDED', `${target.what} decodes to more than the limit ${maxBytes}`, ip)
    ip += decoder.consumed
    if (decoder.written > 0) chunks.push(dst.subarray(0, decoder.written))
    total += decoder.written
    if (s === Status.DestinationTooSmall) {
      room *= 2
      continue
    }
    if (s === Status.Done) {
      if (ip === input.length) break
      if (!target.concatenated) throw error(target, 'TRAILING_DATA', `${input.length - ip} bytes follow the end of the stream`, ip)
      decoder.reset()
      frameStart = ip
      continue
    }
    if (s === Status.NeedMoreData) throw error(target, 'TRUNCATED', `${target.what} ends inside the stream after ${total} bytes`, input.length)
    throw failure(decoder, target, frameStart)
  }
  return chunks.length === 1 ? chunks[0]! : joinBytes(chunks, total)
}

function error(target: BufferTarget, code: 'INVALID_DATA' | 'TRAILING_DATA' | 'TRUNCATED' | 'LIMIT_EXCEEDED', message: string, at: number): CodecError {
  return new CodecError(code, target.format, `${message}${target.context ?? ''}`, target.base + at)
}

/** The CodecError of a decoder that returned `InvalidData`, in the caller's terms. */
function failure(decoder: Decoder, target: BufferTarget, frameStart: number): CodecError {
  const f = decoder.failure
  const offset = f && f.offset >= 0 ? target.base + frameStart + f.offset : -1
  const prefix = target.format === decoder.format ? '' : `${target.what}: ${decoder.format}: `
  return new CodecError(f?.code ?? 'INVALID_DATA', target.format, `${prefix}${f?.message ?? 'invalid data'}${target.context ?? ''}`, offset)
}
