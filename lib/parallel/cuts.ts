/**
 * What the input cutters of parallel decoding (zstd-cutter.ts, lz4-cutter.ts) hand to
 * their driver (streams/parallel-decode-stream.ts, and the one-shot LZ4 decode of
 * streams/parallel.ts): a list of cuts, in input order, each either a job that decodes
 * on its own (whole zstd frames, a group of independent LZ4 blocks), bytes for a serial
 * decoder (whatever cannot be cut: a zstd frame without a content size, a dependent LZ4
 * frame, anything odd), or a check the driver makes once the outputs before it are in
 * (an LZ4 frame's content size and checksum); and the groups of whole frames or members
 * that the one-shot decodes of a whole input cut (`SizedGroups`: zstd-frames.ts, bgzf.ts).
 * Pure: no I/O, no decoding here.
 *
 * Offsets are in the whole input, so that an error reported from any cut names the byte
 * the serial decoder would name.
 */
import { CodecError, type ErrorCode } from '../errors.js'
import type { Job } from './jobs.js'

/** A job: `input[start..end)` of the whole input, decoding to `size` bytes (`exact`) or at most `size`. */
export interface JobCut {
  readonly kind: 'job'
  readonly job: Job
  readonly start: number
  readonly end: number
  readonly size: number
  readonly exact: boolean
}

/**
 * Bytes for the serial decoder, which starts (if none is open) at input offset `start`
 * and takes every `serial` cut until a `serial-end` cut.
 */
export interface SerialCut {
  readonly kind: 'serial'
  readonly bytes: Uint8Array
  readonly start: number
}

/** The serial section ends here: its decoder must be at the end of a frame. */
export interface SerialEndCut {
  readonly kind: 'serial-end'
}

/** An LZ4 frame with independent blocks starts: the outputs up to its `frame-end` are its content. */
export interface FrameStartCut {
  readonly kind: 'frame-start'
  readonly contentChecksum: boolean
  /** The declared content size, or -1. */
  readonly contentSize: number
}

/**
 * An LZ4 frame ends: its end mark is at `at`; `checksum` is the stored content checksum
 * (at `at + 4`) or -1 when the frame has none.
 */
export interface FrameEndCut {
  readonly kind: 'frame-end'
  readonly at: number
  readonly checksum: number
}

/** Input the serial decoder would refuse, found from the headers: the stream fails here. */
export interface FailCut {
  readonly kind: 'fail'
  readonly code: ErrorCode
  readonly message: string
  readonly offset: number
}

export type Cut = JobCut | SerialCut | SerialEndCut | FrameStartCut | FrameEndCut | FailCut

/** Decoded bytes one job aims at: enough work to pay for a message round trip, few enough to keep memory small. */
export const GROUP_BYTES = 1024 * 1024

/** A group of whole frames or members: `input[start..end)`, decoding to `size` bytes. */
export interface SizedGroup {
  readonly start: number
  readonly end: number
  readonly size: number
}

/**
 * Consecutive frames or members of a whole input (zstd-frames.ts, bgzf.ts), each added
 * with its end and decoded size, gathered into groups of at least `target` decoded bytes
 * (the last one maybe smaller): one job per group.
 */
export class SizedGroups {
  readonly groups: SizedGroup[] = []
  private start = 0
  private size = 0

  constructor(private readonly target: number) {}

  add(end: number, size: number): void {
    this.size += size
    if (this.size < this.target) return
    this.groups.push({ start: this.start, end, size: this.size })
    this.start = end
    this.size = 0
  }

  /** The groups, the last one ending at `end` (the end of the last frame added). */
  finish(end: number): SizedGroup[] {
    if (this.start < end) this.groups.push({ start: this.start, end, size: this.size })
    this.start = end
    this.size = 0
    return this.groups
  }
}

/** Input bytes kept in order, handed out whole (a view when they lie in one chunk). */
export class ByteParts {
  private parts: Uint8Array[] = []
  length = 0

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return
    this.parts.push(bytes)
    this.length += bytes.length
  }

  /**
   * Everything kept, as one array; empties the list. Parts that lie end to end in one
   * buffer (every group of a one-shot input, cut from one array) come back as one view
   * of it, not a copy: the pool copies a job's input once anyway, so a join here was a
   * second copy, into fresh memory, on the caller's thread (issue 32).
   */
  take(): Uint8Array {
    const parts = this.parts
    let out: Uint8Array
    if (parts.length === 1) out = parts[0]!
    else if (adjacent(parts)) out = new Uint8Array(parts[0]!.buffer, parts[0]!.byteOffset, this.length)
    else {
      out = new Uint8Array(this.length)
      let at = 0
      for (const p of parts) {
        out.set(p, at)
        at += p.length
      }
    }
    this.parts = []
    this.length = 0
    return out
  }
}

/** Whether each of `parts` starts in the same buffer where the one before it ends. */
function adjacent(parts: readonly Uint8Array[]): boolean {
  for (let i = 1; i < parts.length; i++) {
    const a = parts[i - 1]!
    const b = parts[i]!
    if (b.buffer !== a.buffer || b.byteOffset !== a.byteOffset + a.length) return false
  }
  return true
}

/**
 * `error` (a `CodecError` whose offset is relative to a cut) with its offset moved by
 * `base` into the whole input, the message rebuilt around it.
 */
export function rebase(error: CodecError, base: number): CodecError {
  if (error.offset < 0 || base === 0) return error
  let message = error.message
  const prefix = `${error.format}: `
  const suffix = ` (at byte ${error.offset})`
  if (message.startsWith(prefix)) message = message.slice(prefix.length)
  if (message.endsWith(suffix)) message = message.slice(0, -suffix.length)
  return new CodecError(error.code, error.format, message, error.offset + base)
}
