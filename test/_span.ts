// Drives one span codec by hand, the way the machine does, checking the contract on
// every return: the test suites of single codecs share these loops.
import * as assert from 'uvu/assert'
import type { Decoder, Encoder } from '../lib/codec.js'
import { Status, statusName, type Status as S } from '../lib/status.js'
import { concatBytes as join } from './_bytes.js'

export interface Decoded {
  status: S
  out: Uint8Array
  /** Input bytes consumed in all. */
  consumed: number
  failure: Decoder['failure']
}

export interface SpanOptions {
  /** Input arrives in pieces of this many bytes, or of sizes drawn per piece (default: all at once). */
  split?: number | (() => number)
  /** Bytes of output room per call, or sizes drawn per call (default 1 MiB; 0 is allowed). */
  room?: number | (() => number)
  /**
   * The codec must consume all of its input whenever it returns NeedMoreData (true for
   * codecs that buffer partial units themselves). Otherwise an unconsumed tail is
   * presented again with the next piece appended, as the machine does.
   */
  consumesAll?: boolean
}

/**
 * One `transform()` call, checking what every return must satisfy: counts in range,
 * progress when there is room, InvalidData only with a failure.
 */
export function step(codec: Decoder | Encoder, src: Uint8Array, dst: Uint8Array, final: boolean): S {
  const status = codec.transform(src, dst, final)
  assert.ok(codec.consumed >= 0 && codec.consumed <= src.length, `consumed ${codec.consumed} of ${src.length}`)
  assert.ok(codec.written >= 0 && codec.written <= dst.length, `wrote ${codec.written} into ${dst.length}`)
  if (status === Status.DestinationTooSmall && dst.length > 0) assert.ok(codec.written > 0, 'DestinationTooSmall with room and nothing written')
  if (status === Status.InvalidData) assert.ok(codec.failure, 'InvalidData without a failure')
  return status
}

/**
 * Decodes one stream. Checks on every return: counts in range, InvalidData only with a
 * failure, progress when there is room. Stops at Done, InvalidData, or NeedMoreData after
 * the last piece.
 */
export function decodeSpans(codec: Decoder, input: Uint8Array, options: SpanOptions = {}): Decoded {
  const split = sizeOf(options.split, input.length)
  const room = sizeOf(options.room, 1 << 20)
  const buffers = new Map<number, Uint8Array>()
  const parts: Uint8Array[] = []
  let start = 0
  let end = Math.min(input.length, Math.max(1, split()))
  for (let calls = 0; ; calls++) {
    if (calls > 4 * (input.length + 16) + 1e6) assert.unreachable('the codec makes no progress')
    const src = input.subarray(start, end)
    const final = end === input.length
    const size = room()
    let dst = buffers.get(size)
    if (!dst) buffers.set(size, (dst = new Uint8Array(size)))
    const status = step(codec, src, dst, final)
    if (codec.written > 0) parts.push(dst.slice(0, codec.written))
    start += codec.consumed
    switch (status) {
      case Status.Done:
        return { status, out: join(parts), consumed: start, failure: null }
      case Status.InvalidData:
        return { status, out: join(parts), consumed: start, failure: codec.failure }
      case Status.NeedMoreData:
        if (options.consumesAll) assert.is(codec.consumed, src.length, 'NeedMoreData must consume all usable input')
        if (final) return { status, out: join(parts), consumed: start, failure: null }
        end = Math.min(input.length, Math.max(end, start) + Math.max(1, split()))
        break
      case Status.DestinationTooSmall:
        if (start === end && !final) end = Math.min(input.length, end + Math.max(1, split()))
        break
      default:
        assert.unreachable(`unknown status ${String(status)}`)
    }
  }
}

/** A fixed size or a size drawn per use, as a function. */
function sizeOf(size: number | (() => number) | undefined, otherwise: number): () => number {
  if (typeof size === 'function') return size
  const n = size ?? otherwise
  return () => n
}

/**
 * Encodes all of `input` in pieces of `split` bytes into destinations of `room` bytes,
 * optionally with `flush()` after every piece but the last.
 */
export function encodeSpans(codec: Encoder, input: Uint8Array, options: SpanOptions & { flushEach?: boolean } = {}): Uint8Array {
  const split = Math.max(1, sizeOf(options.split, input.length)())
  const dst = new Uint8Array(sizeOf(options.room, 1 << 20)())
  const parts: Uint8Array[] = []
  for (let pos = 0; ; ) {
    const end = Math.min(input.length, pos + split)
    const final = end === input.length
    let src = input.subarray(pos, end)
    for (;;) {
      const status = codec.transform(src, dst, final)
      if (codec.written > 0) parts.push(dst.slice(0, codec.written))
      src = src.subarray(codec.consumed)
      if (status === Status.Done) break
      assert.is(statusName(status), 'DestinationTooSmall', codec.failure?.message)
    }
    assert.is(src.length, 0, 'Done with input left')
    pos = end
    if (final) return join(parts)
    if (options.flushEach) {
      for (;;) {
        const status = codec.flush(dst)
        if (codec.written > 0) parts.push(dst.slice(0, codec.written))
        if (status === Status.Done) break
        assert.is(statusName(status), 'DestinationTooSmall', codec.failure?.message)
      }
    }
  }
}

export interface Encoded {
  /** Done after the last piece, or the status that stopped the encoder early. */
  status: S
  out: Uint8Array
  /** Input bytes consumed in all. */
  consumed: number
}

/**
 * Encodes `input` in pieces the way the machine does (an unconsumed tail is presented
 * again with the next piece appended), checking the contract on every return as
 * `decodeSpans()` does. Stops at Done or NeedMoreData after the last piece, or at
 * InvalidData; the caller asserts the status.
 */
export function encodeStream(codec: Encoder, input: Uint8Array, options: SpanOptions = {}): Encoded {
  const split = sizeOf(options.split, input.length)
  const dst = new Uint8Array(sizeOf(options.room, 1 << 20)())
  const parts: Uint8Array[] = []
  let start = 0
  for (let end = Math.min(input.length, Math.max(1, split())); ; end = Math.min(input.length, end + Math.max(1, split()))) {
    const final = end === input.length
    let status: S
    do {
      status = step(codec, input.subarray(start, end), dst, final)
      if (codec.written > 0) parts.push(dst.slice(0, codec.written))
      start += codec.consumed
    } while (status === Status.DestinationTooSmall)
    if (final || status === Status.InvalidData) return { status, out: join(parts), consumed: start }
  }
}

/**
 * Repeats `run` (one call of `codec` into `dst`) while it returns DestinationTooSmall,
 * appending each call's output to `parts`; the last call must return Done.
 */
export function drainCalls(codec: Decoder | Encoder, dst: Uint8Array, parts: Uint8Array[], run: () => S): void {
  let status: S
  do {
    status = run()
    parts.push(dst.slice(0, codec.written))
  } while (status === Status.DestinationTooSmall)
  assert.is(statusName(status), 'Done', codec.failure?.message)
}
