/**
 * The output of a whole-buffer call (`encode()`, `decode()`, a whole buffer decoded to a
 * size nobody declared), so that peak memory is the output plus a constant, never twice
 * a large output.
 *
 * - **A declared size** (a zstd or LZ4 frame's content size, a gzip member's ISIZE) is
 *   allocated once, exactly, and returned as it is. Output past it (more frames or
 *   members; ISIZE is only the last member's, modulo 2^32) moves what was written into a
 *   growing buffer, once.
 * - **An unknown size** starts in fixed-length parts that double, joined by `finish()`
 *   (one copy of the output, peak memory output + at most `FIXED_BYTES`): V8 commits a
 *   resizable buffer's pages one by one as they are first written, which costs more than
 *   the copy (measured, Node 20, 8 MiB written: 5.7-6.5 ms into a resizable buffer,
 *   0.9-2.2 ms into a fixed-length one). Past `FIXED_BYTES` the rest grows a resizable
 *   `ArrayBuffer` (ES2024; V8 since Node 20,
 *   Chrome 111, Firefox 128, Safari 16.4): `resize()` commits pages in place, without
 *   copying. Web APIs refuse views of resizable buffers (`new Response(view)` throws in
 *   Node 20; WebIDL's `BufferSource` excludes them unless `[AllowResizable]`), and
 *   `transferToFixedLength()` copies (measured: Node 22, 1 GiB: peak RSS 1 GiB higher), so
 *   `finish()` copies into a fixed-length array from the end in 16 MiB steps, shrinking
 *   the resizable buffer behind each step (`resize()` down returns the pages, after V8
 *   zeroes them): the copy costs time, not memory (peak: output + 16 MiB). The buffer
 *   grows a step at a time, so that no more is committed than is written.
 * - **Without resizable buffers** (older runtimes): parts that double all the way.
 *
 * The most one buffer may hold is the runtime's: V8 allows 2^32 bytes per typed array
 * in Node 20 and reserves up to 2^46 for a resizable buffer from Node 22 (measured, see
 * docs/errors-and-limits.md). Output that cannot fit fails with `LIMIT_EXCEEDED` before
 * the impossible allocation, naming the stream API, which has no such ceiling.
 */
import { CodecError } from './errors.js'

/** The ES2024 resizable `ArrayBuffer`, as far as it is used here (lib is ES2022). */
interface Resizable extends ArrayBuffer {
  resize(byteLength: number): void
}
type ResizableConstructor = new (byteLength: number, options: { maxByteLength: number }) => Resizable

/** Each step of `finish()`'s copy: peak memory over the output is at most this. */
const FINISH_STEP = 16 * 1024 * 1024

/** The first capacity of a growing buffer; it doubles from there. */
const FIRST_CAPACITY = 64 * 1024

/**
 * Output grown in fixed-length parts up to this much; the rest, if any, in a resizable
 * buffer. The parts are kept until `finish()` joins them, so this is the most memory
 * over the output they cost: issue 30's bound for a one-shot call is input + output +
 * 64 MiB.
 */
const FIXED_BYTES = 32 * 1024 * 1024

/**
 * Reservations tried in turn for a resizable buffer whose limit is larger (or none): the
 * first the runtime accepts is its ceiling for this call. V8 refuses a `maxByteLength`
 * over its limit with a RangeError at once, before reserving anything.
 */
const RESERVATIONS = [2 ** 46, 2 ** 40, 2 ** 35, 2 ** 33, 2 ** 32, 2 ** 31, 2 ** 30, 2 ** 28, 2 ** 26]

const EMPTY = new Uint8Array(0)

/** Whether this runtime grows `ArrayBuffer`s in place (checked on the prototype, once). */
const canResize = typeof (ArrayBuffer.prototype as Partial<Resizable>).resize === 'function'

/** What the calls that use it are named in messages, and the stream API to point to. */
export interface OutputTarget {
  /** The `format` of the errors. */
  readonly format: string
  /** The stream factory to name when the output cannot fit, e.g. `"decodeStream('zstd')"`. */
  readonly streamApi: string
}

/** A byte count in messages: exact, with its size in MiB or GiB when large. */
function sized(n: number): string {
  return n >= 2 ** 30 ? `${n} bytes (${(n / 2 ** 30).toFixed(2)} GiB)` : n >= 2 ** 20 ? `${n} bytes (${(n / 2 ** 20).toFixed(1)} MiB)` : `${n} bytes`
}

/** The error for output that does not fit one `ArrayBuffer` of this runtime. */
export function tooLarge(target: OutputTarget, what: string): CodecError {
  return new CodecError('LIMIT_EXCEEDED', target.format, `${what}: more than one ArrayBuffer holds in this runtime; a stream has no such limit: use ${target.streamApi}`)
}

/**
 * A fixed-length array of `size` bytes, or `LIMIT_EXCEEDED` naming the stream API when
 * the runtime cannot allocate one that large (a RangeError: over its typed-array limit,
 * or out of memory).
 */
export function allocateBytes(size: number, target: OutputTarget, what: string): Uint8Array {
  try {
    return new Uint8Array(size)
  } catch (error) {
    if (error instanceof RangeError) throw tooLarge(target, `${what} of ${sized(size)}`)
    throw error
  }
}

/** A growing output array; see the module comment. */
export class OutputBytes {
  /** Bytes written so far: `bytes[0, length)`. */
  length = 0
  /** Where output goes: the exact array, a view of the resizable buffer, or the last part. */
  private bytes: Uint8Array = EMPTY
  /** The resizable buffer, when growing in place. */
  private rab: Resizable | null = null
  /** Without resizable buffers: the full parts before `bytes`, and their total. */
  private parts: Uint8Array[] | null = null
  private partsLength = 0
  /** Whether `bytes` is an exact, declared size (not growing yet). */
  private exact = false
  /** The most this output may grow to (the runtime's ceiling, or the caller's). */
  private max = 0
  /** The most the caller asked for; above `max` when the runtime's ceiling is lower. */
  private wanted = 0
  /** Whether output short of a declared size may be a view of it (see `declared()`). */
  private views = true
  /** The runtime refused every resizable buffer: parts only from then on. */
  private noResize = false

  private constructor(private readonly target: OutputTarget) {}

  /**
   * An output of a declared `size` (allocated now), growing past it up to `max` if need
   * be. Output short of `size` is a view of it when it fills most of it, or with `views`
   * false (one-shot results: their `.buffer` is theirs alone) always a copy.
   */
  static declared(size: number, max: number, target: OutputTarget, views = true): OutputBytes {
    const out = new OutputBytes(target)
    out.bytes = allocateBytes(size, target, 'output')
    out.exact = true
    out.views = views
    out.wanted = max
    return out
  }

  /** An output of unknown size, up to `max` bytes (`Infinity`: as much as the runtime holds). */
  static growing(max: number, target: OutputTarget): OutputBytes {
    const out = new OutputBytes(target)
    out.grow(max, 0)
    return out
  }

  /**
   * Starts growing, keeping `bytes[0, keep)`: it becomes the first part (no copy), and
   * parts that double follow it (see the module comment).
   */
  private grow(wanted: number, keep: number): void {
    this.wanted = wanted
    this.max = wanted
    this.parts = keep > 0 ? [this.bytes.subarray(0, keep)] : []
    this.partsLength = keep
    this.bytes = EMPTY
    this.exact = false
  }

  /**
   * Moves on from the fixed-length parts to a resizable buffer for the rest of the
   * output, when the runtime has one; false when it has none or refuses every size.
   */
  private startResizable(): boolean {
    if (!canResize || this.noResize) return false
    const wanted = this.wanted - this.partsLength
    for (const limit of [wanted, ...RESERVATIONS.filter((r) => r < wanted)]) {
      if (!Number.isFinite(limit)) continue
      try {
        this.rab = new (ArrayBuffer as unknown as ResizableConstructor)(0, { maxByteLength: limit })
        this.max = this.partsLength + limit
        this.bytes = new Uint8Array(this.rab)
        return true
      } catch (error) {
        if (!(error instanceof RangeError)) throw error
      }
    }
    this.noResize = true
    return false
  }

  /**
   * Free room to write into, at most `step` bytes, growing the buffer when it is full.
   * Empty when it cannot grow: at the declared size, or at the most it may hold (then
   * one byte through `extend()` tells whether the output goes on).
   */
  room(step: number): Uint8Array {
    const at = this.length - this.partsLength
    if (at < this.bytes.length) return this.bytes.subarray(at, Math.min(this.bytes.length, at + step))
    if (this.exact) return EMPTY
    const capacity = this.partsLength + this.bytes.length
    if (capacity >= this.max) return EMPTY
    if (this.rab === null && !this.noResize && capacity >= FIXED_BYTES) {
      // The rest in a resizable buffer (else parts all the way: `bytes` ends up empty).
      if (this.bytes.length > 0) this.parts!.push(this.bytes)
      this.partsLength = capacity
      this.bytes = EMPTY
      this.startResizable()
    }
    if (this.rab !== null) {
      // Committed a step at a time, not doubled: V8 zeroes what a shrink cuts off
      // (`finish()` shrinks), which would make resident a doubled capacity never written.
      const next = Math.min(this.max - this.partsLength, this.bytes.length + Math.max(FIRST_CAPACITY, step))
      try {
        this.rab.resize(next)
      } catch (error) {
        if (error instanceof RangeError) throw tooLarge(this.target, `output of more than ${sized(capacity)}`)
        throw error
      }
      // A view of a resizable buffer made without a length tracks its length.
      const local = this.length - this.partsLength
      return this.bytes.subarray(local, Math.min(next, local + step))
    }
    const next = Math.min(this.max, Math.max(FIRST_CAPACITY, capacity * 2))
    if (this.bytes.length > 0) this.parts!.push(this.bytes)
    this.partsLength = capacity
    this.bytes = allocateBytes(next - capacity, this.target, `output of more than ${sized(capacity)}`)
    return this.bytes.subarray(0, Math.min(this.bytes.length, step))
  }

  /** Counts `n` bytes written into the last `room()`. */
  advance(n: number): void {
    this.length += n
  }

  /**
   * Appends `bytes` when `room()` was empty: past a declared size (the output starts
   * growing, once), or past the most it may hold (`LIMIT_EXCEEDED`).
   */
  extend(bytes: Uint8Array): void {
    if (this.exact) this.grow(this.wanted, this.length)
    for (let at = 0; at < bytes.length; ) {
      const dst = this.room(bytes.length - at)
      if (dst.length === 0) {
        // The caller's limit is enforced before it gets here (the machine's
        // maxOutputBytes); only the runtime's ceiling is left.
        throw tooLarge(this.target, `output of more than ${sized(this.length)}`)
      }
      dst.set(bytes.subarray(at, at + dst.length))
      this.advance(dst.length)
      at += dst.length
    }
  }

  /**
   * The output as one fixed-length array of exactly `length` bytes (see the module
   * comment for how it gets there without a second copy's worth of memory). The
   * object is spent afterwards.
   */
  finish(): Uint8Array {
    const n = this.length
    const bytes = this.bytes
    this.bytes = EMPTY
    if (this.exact || this.parts === null) {
      // Short of a declared size (a caller's hint): a view when it fills most of it,
      // else a copy, so that a small result does not pin a large buffer.
      return n === bytes.length || (this.views && n * 2 >= bytes.length) ? bytes.subarray(0, n) : bytes.slice(0, n)
    }
    const parts = this.parts
    this.parts = null
    if (parts.length === 0 && this.rab === null) return n === bytes.length ? bytes : bytes.slice(0, n)
    const out = allocateBytes(n, this.target, 'output')
    let at = 0
    for (const part of parts) {
      out.set(part, at)
      at += part.length
    }
    if (this.rab !== null) {
      const rab = this.rab
      this.rab = null
      const base = at
      for (let end = n - base; end > 0; ) {
        const start = Math.max(0, end - FINISH_STEP)
        out.set(bytes.subarray(start, end), base + start)
        rab.resize(start)
        end = start
      }
      return out
    }
    out.set(bytes.subarray(0, n - at), at)
    return out
  }
}
