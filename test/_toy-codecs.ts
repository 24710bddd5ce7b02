// Small, fully specified codecs that exercise the machine's paths independently of the
// real formats: length-prefixed frames (one consuming into state, one leaving tails),
// and a "bomb" whose one input byte expands to megabytes.
import type { Decoder } from '../lib/codec.js'
import type { Failure } from '../lib/errors.js'
import { Status } from '../lib/status.js'

/** Frame: one length byte L (0xFF is invalid), then L payload bytes. Consumes into state. */
export class FrameDecoder implements Decoder {
  readonly format = 'toy'
  consumed = 0
  written = 0
  failure: Failure | null = null
  private remaining = -1 // payload bytes still to copy; -1 = expecting the length byte
  private seen = 0
  transform(src: Uint8Array, dst: Uint8Array, _final: boolean) {
    let i = 0
    let o = 0
    for (;;) {
      if (this.remaining < 0) {
        if (i >= src.length) return this.out(i, o, Status.NeedMoreData)
        const len = src[i]!
        if (len === 0xff) {
          this.failure = { code: 'INVALID_DATA', message: 'length byte 0xff', offset: this.seen + i }
          return this.out(i, o, Status.InvalidData)
        }
        i++
        this.remaining = len
      }
      if (this.remaining === 0) return this.out(i, o, Status.Done)
      if (i >= src.length) return this.out(i, o, Status.NeedMoreData)
      if (o >= dst.length) return this.out(i, o, Status.DestinationTooSmall)
      const n = Math.min(this.remaining, src.length - i, dst.length - o)
      dst.set(src.subarray(i, i + n), o)
      i += n
      o += n
      this.remaining -= n
    }
  }
  private out(i: number, o: number, s: Status): Status {
    this.consumed = i
    this.written = o
    this.seen += i
    return s
  }
  reset() {
    this.remaining = -1
    this.seen = 0
    this.failure = null
  }
  dispose() {}
}

/** Same format, but a frame is only consumed once it is whole: partial frames stay as a tail. */
export class WholeFrameDecoder implements Decoder {
  readonly format = 'toy'
  consumed = 0
  written = 0
  failure: Failure | null = null
  private pending = -1 // output offset inside the current (whole) frame, -1 = none started
  transform(src: Uint8Array, dst: Uint8Array, _final: boolean) {
    this.consumed = this.written = 0
    if (src.length === 0) return Status.NeedMoreData
    const len = src[0]!
    if (len === 0xff) {
      this.failure = { code: 'INVALID_DATA', message: 'length byte 0xff', offset: 0 }
      return Status.InvalidData
    }
    if (src.length < 1 + len) return Status.NeedMoreData
    const from = Math.max(this.pending, 0)
    const n = Math.min(len - from, dst.length)
    dst.set(src.subarray(1 + from, 1 + from + n))
    this.written = n
    if (from + n < len) {
      this.pending = from + n
      return Status.DestinationTooSmall
    }
    this.pending = -1
    this.consumed = 1 + len
    return Status.Done
  }
  reset() {
    this.pending = -1
    this.failure = null
  }
  dispose() {}
}

/** Each input byte n produces n MiB of the byte value n; never ends by itself. */
export class BombDecoder implements Decoder {
  readonly format = 'bomb'
  consumed = 0
  written = 0
  failure: Failure | null = null
  private left = 0
  private value = 0
  disposed = false
  transform(src: Uint8Array, dst: Uint8Array, _final: boolean) {
    let i = 0
    let o = 0
    for (;;) {
      if (this.left === 0) {
        if (i >= src.length) break
        this.value = src[i++]!
        this.left = this.value * 1024 * 1024
        continue
      }
      if (o >= dst.length) {
        this.consumed = i
        this.written = o
        return Status.DestinationTooSmall
      }
      const n = Math.min(this.left, dst.length - o)
      dst.fill(this.value, o, o + n)
      o += n
      this.left -= n
    }
    this.consumed = i
    this.written = o
    return Status.NeedMoreData
  }
  reset() {
    this.left = 0
  }
  dispose() {
    this.disposed = true
  }
}
