/**
 * Driving a span decoder over one whole buffer that is already in memory, with a limit:
 * the job of the Arrow body decoder (each compressed buffer), apache-arrow's codec
 * registration and the hyparquet decompressors (each page), and reading the size a whole
 * input declares for `decode()` (`declaredSize`; lib/whole-buffer.ts). Streams run codecs
 * through the machine (`machine.ts`) instead; this is its counterpart for input that is
 * complete and output whose size is declared (or bounded), so it writes straight into the
 * final memory and never copies; output of unknown size grows in place (output-bytes.ts).
 *
 * The rules are the machine's: input that ends while the decoder still wants more is
 * `TRUNCATED`; bytes after the end are another frame only where the format allows it,
 * else `TRAILING_DATA`; a decoder's `InvalidData` becomes its failure, with the offset
 * counted from `target.base`.
 */
import type { Decoder, Format } from './codec.js'
import { readU32LE } from './endian.js'
import { CodecError } from './errors.js'
import { mostDecodedBytes } from './codec-options.js'
import { OutputBytes } from './output-bytes.js'
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
  /** The option that sets `maxBytes`, for messages. Default `'maxOutputBytes'`. */
  readonly limitName?: string
}

/** One byte of room, to ask a decoder whether output remains after a full destination. */
const PROBE = new Uint8Array(1)
const EMPTY = new Uint8Array(0)

/**
 * The input `declaredSize` shows a decoder: more than any header that declares a size
 * (zstd's frame header is at most 18 bytes, LZ4's 19, a dictionary-compressed stream's
 * prefix 40 more, Snappy's preamble 5).
 */
const HEADER_PROBE = 1024

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
 * The output size a whole input declares, to allocate once: the first frame's content
 * size (zstd, LZ4), the decoder's `sizeHint` (LZ4 frames without one, Snappy framing),
 * or for gzip the last member's ISIZE, its length modulo 2^32 (RFC 1952 section 2.3.1:
 * right for a single member under 4 GiB, a lower bound otherwise). -1 when there is
 * none, or when it is more than `maxBytes` or than `input` can decode to
 * (`mostDecodedBytes`): a declared size is untrusted. The decoder is reset after.
 */
export function declaredSize(decoder: Decoder, format: Format, input: Uint8Array, maxBytes: number): number {
  let size = readHeader(decoder, input) === Status.InvalidData ? -1 : (decoder.contentSize ?? -1)
  decoder.reset()
  if (size < 0 && decoder.sizeHint !== undefined) size = decoder.sizeHint(input)
  if (size < 0 && format === 'gzip' && input.length >= 18) size = readU32LE(input, input.length - 4)
  return size < 0 || size > maxBytes || size > mostDecodedBytes(format, input.length) ? -1 : size
}

/**
 * Resets `decoder` and lets it read the frame header (a 0-byte destination makes it read
 * the header first, filling `contentSize`). Only the head of the input, not final: a
 * decoder of a format without sizes (brotli, deflate) would otherwise decode into its
 * own window all it can before it wants room (measured: 6 ms thrown away of a 22 ms
 * brotli decode of 8 MiB).
 */
function readHeader(decoder: Decoder, input: Uint8Array): Status {
  decoder.reset()
  const head = input.length > HEADER_PROBE ? input.subarray(0, HEADER_PROBE) : input
  return decoder.transform(head, EMPTY, head === input)
}

/** Output per decoder call of `decodeGrowing`. */
const GROWING_STEP = 8 * 1024 * 1024

/**
 * Decodes all of `input` when the output size is not known: into the size the frame
 * header declares when it has one (one allocation, no copy), else into memory that grows
 * in place (output-bytes.ts); it starts at `hint` bytes when the caller has a good guess
 * (a result that fills most of it is a view of it). At most `maxBytes` are produced
 * (`LIMIT_EXCEEDED`).
 */
export function decodeGrowing(decoder: Decoder, input: Uint8Array, maxBytes: number, target: BufferTarget, hint = -1): Uint8Array {
  if (readHeader(decoder, input) === Status.InvalidData) throw failure(decoder, target, 0)
  const size = decoder.contentSize ?? -1
  if (size >= 0 && !target.concatenated) {
    if (size > maxBytes) throw error(target, 'LIMIT_EXCEEDED', `frame content size ${size} exceeds ${target.limitName ?? 'maxOutputBytes'} ${maxBytes}`, 0)
    const output = new Uint8Array(size)
    decodeInto(decoder, input, output, { ...target, declaredBy: 'its frame header', size: 'exact' })
    return output
  }
  const sink = { format: target.format, streamApi: `decodeStream('${decoder.format}')` }
  const out = hint > 0 ? OutputBytes.declared(Math.min(hint, maxBytes), maxBytes, sink) : OutputBytes.growing(maxBytes, sink)
  let ip = 0
  let frameStart = 0
  decoder.reset()
  for (;;) {
    let dst = out.room(GROWING_STEP)
    // Full, at the hint or at the limit: one byte of room tells whether output remains.
    const probing = dst.length === 0
    if (probing) dst = PROBE
    const s = decoder.transform(input.subarray(ip), dst, true)
    ip += decoder.consumed
    if (probing) {
      if (decoder.written > 0 && out.length >= maxBytes) throw error(target, 'LIMIT_EXCEEDED', `${target.what} decodes to more than ${target.limitName ?? 'maxOutputBytes'} ${maxBytes}`, ip)
      out.extend(PROBE.subarray(0, decoder.written))
    } else out.advance(decoder.written)
    if (s === Status.DestinationTooSmall) continue
    if (s === Status.Done) {
      if (ip === input.length) break
      if (!target.concatenated) throw error(target, 'TRAILING_DATA', `${input.length - ip} bytes follow the end of the stream`, ip)
      decoder.reset()
      frameStart = ip
      continue
    }
    if (s === Status.NeedMoreData) throw error(target, 'TRUNCATED', `${target.what} ends inside the stream after ${out.length} bytes`, input.length)
    throw failure(decoder, target, frameStart)
  }
  return out.finish()
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
