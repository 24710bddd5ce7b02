/**
 * Cuts a zstd stream, as it arrives, into jobs of whole frames (RFC 8878 section 3.1: a
 * stream is a sequence of frames, its content their contents in order) and serial
 * sections, for the parallel decoding stream (streams/parallel-decode-stream.ts). Where a
 * frame ends, and what its header says, is known from its headers alone
 * (zstd-frame-format.ts `ZstdFrameWalker`), as for the one-shot's frame groups
 * (zstd-frames.ts).
 *
 * - A frame that states its content size, at most `MAX_FRAME_BYTES`, is kept until it
 *   is whole and joins a group of frames; a group of `GROUP_BYTES` of content or more
 *   (or the last) is a job decoding to exactly its size.
 * - A frame without a content size, or a larger one, or one whose compressed bytes grow
 *   past what its content size allows, goes to the serial decoder as it arrives (never
 *   kept whole), and cutting resumes after it.
 * - Skippable frames (section 3.1.2) are passed over: they decode to nothing.
 * - Anything else (a bad magic number, a reserved bit, input that ends early) goes to
 *   the serial decoder with everything after it, which reports its usual error.
 *
 * So at most one frame (bounded as above) and one group are kept.
 */
import { FramePart, ZstdFrameWalker } from '../codecs/zstd-frame-format.js'
import { ByteParts, GROUP_BYTES, type Cut } from './cuts.js'

/**
 * A frame stating more content than this decodes serially in a stream: a job holds its
 * input and output whole, and up to `2 × threads` jobs are in flight. Block mode writes
 * 1 MiB frames; `zstd -T` and pzstd write a few MiB per frame at most.
 */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024

const enum Mode {
  /** Walking the next frame's magic number and header. */
  Boundary,
  /** Keeping a frame with a content size until it ends. */
  Frame,
  /** Passing a frame to the serial decoder until it ends. */
  SerialFrame,
  /** Passing everything left to the serial decoder. */
  SerialRest,
  /** Passing over a skippable frame's content. */
  Skip,
}

/** The zstd cutter; `push()` each chunk (kept by reference), then `end()`. */
export class ZstdCutter {
  private mode = Mode.Boundary
  /** The frame being cut, walked through its headers. */
  private readonly walker = new ZstdFrameWalker()
  /** Bytes of the frame (or header) being collected, from input offset `frameStart`. */
  private readonly frame = new ByteParts()
  private frameStart = 0
  private frameSize = 0
  /** The current group: whole frames from `groupStart`, `groupSize` bytes of content. */
  private readonly group = new ByteParts()
  private groupStart = 0
  private groupSize = 0
  /** Input bytes pushed so far. */
  private pos = 0

  /** `options` are those of the `decode` jobs (the codec's; each job decodes into exactly its frames' declared size). */
  constructor(private readonly options: Readonly<Record<string, unknown>>) {}

  push(chunk: Uint8Array): Cut[] {
    const out: Cut[] = []
    const len = chunk.length
    let i = 0
    while (i < len) {
      const at = this.pos + i
      switch (this.mode) {
        case Mode.SerialRest:
          out.push({ kind: 'serial', bytes: chunk.subarray(i), start: at })
          i = len
          break
        case Mode.SerialFrame: {
          const e = this.walker.scan(chunk, i, len)
          if (e === -2) {
            // The serial decoder will refuse this frame: everything left is its.
            this.mode = Mode.SerialRest
            continue
          }
          const stop = e < 0 ? len : e
          out.push({ kind: 'serial', bytes: chunk.subarray(i, stop), start: at })
          i = stop
          if (e >= 0) {
            out.push({ kind: 'serial-end' })
            this.mode = Mode.Boundary
          }
          break
        }
        case Mode.Skip: {
          const e = this.walker.scan(chunk, i, len)
          i = e < 0 ? len : e
          if (e >= 0) this.mode = Mode.Boundary
          break
        }
        case Mode.Frame: {
          const e = this.walker.scan(chunk, i, len)
          const stop = e < 0 ? len : e
          this.frame.push(chunk.subarray(i, stop))
          i = stop
          if (e === -2) {
            this.toSerial(out, Mode.SerialRest)
          } else if (e >= 0) {
            if (this.group.length === 0) this.groupStart = this.frameStart
            this.group.push(this.frame.take())
            this.groupSize += this.frameSize
            this.mode = Mode.Boundary
            if (this.groupSize >= GROUP_BYTES) this.flushGroup(out)
          } else if (this.frame.length > this.frameSize + (this.frameSize >>> 4) + 65536) {
            // More compressed bytes than the content size allows (raw blocks cost 3
            // bytes per 128 KiB): not kept; the serial decoder judges the frame.
            this.toSerial(out, Mode.SerialFrame)
          }
          break
        }
        case Mode.Boundary: {
          if (this.frame.length === 0) {
            this.frameStart = at
            this.walker.reset()
          }
          i = this.header(chunk, i, out)
          break
        }
      }
    }
    this.pos += len
    return out
  }

  /** The cuts after the last chunk. */
  end(): Cut[] {
    const out: Cut[] = []
    switch (this.mode) {
      case Mode.Boundary:
        // Nothing at all (the serial decoder judges an empty stream) or a partial header.
        if (this.pos === 0 || this.frame.length > 0) this.toSerial(out, Mode.SerialRest)
        break
      case Mode.Frame:
        this.toSerial(out, Mode.SerialRest)
        break
      case Mode.Skip:
        // A skippable frame cut short, as the serial decoder reports it.
        this.flushGroup(out)
        out.push({ kind: 'fail', code: 'TRUNCATED', message: 'input ended before the end of the stream', offset: this.pos })
        return out
      default:
        break
    }
    this.flushGroup(out)
    if (this.mode === Mode.SerialFrame || this.mode === Mode.SerialRest) out.push({ kind: 'serial-end' })
    this.mode = Mode.SerialRest
    return out
  }

  /**
   * Walks the frame header at `chunk[i..)`, keeping its bytes; decides what the frame is
   * once the header is whole (at once: the next chunk may never come). Returns the new `i`.
   */
  private header(chunk: Uint8Array, i: number, out: Cut[]): number {
    const walker = this.walker
    const stop = walker.step(chunk, i, chunk.length)
    this.frame.push(chunk.subarray(i, stop))
    if (walker.error !== null) {
      // A bad magic number or reserved bit: the serial decoder reports it.
      this.toSerial(out, Mode.SerialRest)
    } else if (walker.part === FramePart.Skippable) {
      if (!walker.measured) return stop
      // Decodes to nothing; the group ends before it, so that a group is one range of the input.
      this.flushGroup(out)
      this.frame.take()
      this.mode = walker.ended ? Mode.Boundary : Mode.Skip
    } else if (walker.measured) {
      const size = walker.header!.contentSize
      if (size < 0 || size > MAX_FRAME_BYTES) {
        this.toSerial(out, Mode.SerialFrame)
      } else {
        this.frameSize = size
        this.mode = Mode.Frame
      }
    }
    return stop
  }

  /** The group so far, then the frame kept so far to the serial decoder, which goes on in `mode`. */
  private toSerial(out: Cut[], mode: Mode): void {
    this.flushGroup(out)
    out.push({ kind: 'serial', bytes: this.frame.take(), start: this.frameStart })
    this.mode = mode
  }

  private flushGroup(out: Cut[]): void {
    if (this.group.length === 0) return
    const input = this.group.take()
    const start = this.groupStart
    out.push({ kind: 'job', job: { kind: 'decode', format: 'zstd', options: this.options, input, size: this.groupSize }, start, end: start + input.length, size: this.groupSize, exact: true })
    this.groupSize = 0
  }
}
