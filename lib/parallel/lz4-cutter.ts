/**
 * Cuts an LZ4 frame stream, as it arrives, into jobs of independent blocks and serial
 * sections, for parallel decoding (streams/parallel-decode-stream.ts, and the one-shot
 * `decode('lz4', data, { threads })` of streams/parallel.ts). The frame format
 * (lz4-frame-format.ts) gives every block's size in a 4-byte word before it, so blocks
 * are cut apart from those words alone; a frame whose FLG sets Block Independence has
 * blocks that decode without each other ("Block Independence flag").
 *
 * - A frame with independent blocks and a header the serial decoder accepts: a
 *   `frame-start` cut, jobs of consecutive blocks whose output is at most `GROUP_BYTES`
 *   or so (each block decodes to at most the frame's Block Maximum Size, a stored block
 *   to its size), then a `frame-end` cut with the end mark's offset and the stored
 *   content checksum, for the driver to check the content size and XXH32 on the outputs
 *   in order (`Lz4FrameChecks`, lz4-frames.ts; the checksum of the whole content does
 *   not combine from parts).
 * - A block size word over the Block Maximum Size fails here, as the serial decoder
 *   fails there ("Block Size shall never be larger than Block Maximum Size"); input
 *   that ends inside a frame fails as truncated.
 * - A frame with dependent blocks (or a header with anything odd: a dictionary ID,
 *   reserved bits, a bad checksum, a content size over `maxOutputBytes`) goes to the
 *   serial decoder as it arrives, up to its end (found from the block size words);
 *   skippable frames are passed over; a legacy frame or a bad magic number goes to the
 *   serial decoder with everything after it.
 *
 * A job's input is its blocks as they stand in the frame (size words, data, block
 * checksums), decoded by lz4-blocks-job.ts.
 */
import { readU32LE } from '../endian.js'
import {
  BLOCK_SIZE_MASK,
  BLOCK_UNCOMPRESSED,
  FLG_BLOCK_CHECKSUM,
  FLG_BLOCK_INDEPENDENCE,
  FLG_CONTENT_CHECKSUM,
  MAGIC,
  blockTooLarge,
  descriptorLength,
  isProblem,
  isSkippable,
  readDescriptor,
  type Lz4Descriptor,
} from '../codecs/lz4-frame-format.js'
import type { Engine } from '../formats.js'
import { ByteParts, GROUP_BYTES, type Cut } from './cuts.js'

const enum Mode {
  /** Collecting the next frame's magic number and descriptor. */
  Boundary,
  /** Collecting a block size word (or the end mark). */
  Size,
  /** Collecting a block's data and checksum. */
  Block,
  /** Collecting the content checksum. */
  Checksum,
  /** Passing a dependent frame to the serial decoder until it ends. */
  SerialFrame,
  /** Passing everything left to the serial decoder. */
  SerialRest,
  /** Passing over a skippable frame's content. */
  Skip,
  /** Failed: nothing more is read. */
  Failed,
}

/**
 * Reads the frame descriptor at `head[4..)` (`head` holds all of it); null when the
 * serial decoder would refuse it (as lz4-frame-decode.ts reads it: the format's checks,
 * no dictionary, the content size within `maxOutputBytes`).
 */
function descriptor(head: Uint8Array, maxOutputBytes: number): Lz4Descriptor | null {
  const d = readDescriptor(head, 4)
  return isProblem(d) || d.dictionaryId >= 0 || d.contentSize > maxOutputBytes ? null : d
}

/** The LZ4 cutter; `push()` each chunk (kept by reference), then `end()`. */
export class Lz4Cutter {
  private mode = Mode.Boundary
  /** Header, size word or checksum bytes being collected. */
  private readonly small = new ByteParts()
  private smallStart = 0
  /** The current frame's FLG and Block Maximum Size. */
  private flags = 0
  private blockMax = 0
  /** The current block: bytes still to collect, its decoded bound. */
  private need = 0
  private bound = 0
  /** The current group: blocks from `groupStart`, decoding to at most `groupBound`. */
  private readonly group = new ByteParts()
  private groupStart = 0
  private groupBound = 0
  /** Bytes to pass over (a skippable frame's content; a dependent frame's block). */
  private skip = 0
  /** The end mark's offset, while the content checksum after it is collected. */
  private endAt = 0
  /** A dependent frame: the next word is its content checksum. */
  private checksumNext = false
  /** Input bytes pushed so far. */
  private pos = 0
  private readonly engine: Engine | undefined
  private readonly maxOutputBytes: number

  constructor(options: { engine?: Engine; maxOutputBytes: number }) {
    this.engine = options.engine
    this.maxOutputBytes = options.maxOutputBytes
  }

  push(chunk: Uint8Array): Cut[] {
    const out: Cut[] = []
    const len = chunk.length
    let i = 0
    while (i < len) {
      const at = this.pos + i
      switch (this.mode) {
        case Mode.Failed:
          i = len
          break
        case Mode.SerialRest:
          out.push({ kind: 'serial', bytes: chunk.subarray(i), start: at })
          i = len
          break
        case Mode.Skip: {
          const n = Math.min(this.skip, len - i)
          this.skip -= n
          i += n
          if (this.skip === 0) this.mode = Mode.Boundary
          break
        }
        case Mode.SerialFrame: {
          const stop = this.scanDependent(chunk, i)
          out.push({ kind: 'serial', bytes: chunk.subarray(i, stop < 0 ? len : stop), start: at })
          if (stop < 0) i = len
          else {
            i = stop
            out.push({ kind: 'serial-end' })
            this.mode = Mode.Boundary
          }
          break
        }
        case Mode.Block: {
          const n = Math.min(this.need, len - i)
          this.group.push(chunk.subarray(i, i + n))
          this.need -= n
          i += n
          if (this.need === 0) {
            this.groupBound += this.bound
            this.mode = Mode.Size
            if (this.groupBound >= GROUP_BYTES) this.flushGroup(out)
          }
          break
        }
        default: {
          // Boundary, Size, Checksum: small fields.
          if (this.small.length === 0) this.smallStart = at
          i = this.field(chunk, i, out)
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
        if (this.pos > 0 && this.small.length === 0) return out
        // Nothing at all, or a partial header: the serial decoder judges it.
        out.push({ kind: 'serial', bytes: this.small.take(), start: this.smallStart }, { kind: 'serial-end' })
        break
      case Mode.SerialFrame:
      case Mode.SerialRest:
        out.push({ kind: 'serial-end' })
        break
      case Mode.Failed:
        break
      default:
        // Inside a frame (or a skippable frame), as the serial decoder reports it.
        this.flushGroup(out)
        out.push({ kind: 'fail', code: 'TRUNCATED', message: 'input ended before the end of the stream', offset: this.pos })
    }
    this.mode = Mode.Failed
    return out
  }

  /** Collects a small field from `chunk[i..)` and acts on it once whole; returns the new `i`. */
  private field(chunk: Uint8Array, i: number, out: Cut[]): number {
    const have = this.small.length
    let need = 4
    let head: Uint8Array | null = null
    if (this.mode === Mode.Boundary && have >= 4) {
      head = this.small.take()
      this.small.push(head)
      const magic = readU32LE(head, 0)
      if (magic === MAGIC) need = have >= 6 ? 4 + descriptorLength(head[4]!) : 6
      else if (isSkippable(magic)) need = 8
    }
    if (have < need) {
      const n = Math.min(need - have, chunk.length - i)
      this.small.push(chunk.subarray(i, i + n))
      // A field complete at the end of a chunk is acted on now (the next chunk may never come).
      return n < need - have ? i + n : this.field(chunk, i + n, out)
    }
    const bytes = head ?? this.small.take()
    if (head) this.small.take()
    const at = this.smallStart
    if (this.mode === Mode.Size) {
      const word = readU32LE(bytes, 0)
      if (word === 0) {
        this.flushGroup(out)
        if (this.flags & FLG_CONTENT_CHECKSUM) {
          this.mode = Mode.Checksum
          this.endAt = at
        } else {
          out.push({ kind: 'frame-end', at, checksum: -1 })
          this.mode = Mode.Boundary
        }
        return i
      }
      const size = word & BLOCK_SIZE_MASK
      if (size > this.blockMax) {
        this.flushGroup(out)
        out.push({ kind: 'fail', code: 'INVALID_DATA', message: blockTooLarge(size, this.blockMax), offset: at })
        this.mode = Mode.Failed
        return i
      }
      if (this.group.length === 0) this.groupStart = at
      this.group.push(bytes)
      this.need = size + (this.flags & FLG_BLOCK_CHECKSUM ? 4 : 0)
      this.bound = word & BLOCK_UNCOMPRESSED ? size : this.blockMax
      this.mode = Mode.Block
      return i
    }
    if (this.mode === Mode.Checksum) {
      out.push({ kind: 'frame-end', at: this.endAt, checksum: readU32LE(bytes, 0) })
      this.mode = Mode.Boundary
      return i
    }
    // Boundary: a whole header.
    const magic = readU32LE(bytes, 0)
    if (isSkippable(magic)) {
      this.skip = readU32LE(bytes, 4)
      this.mode = this.skip > 0 ? Mode.Skip : Mode.Boundary
      return i
    }
    const d = magic === MAGIC ? descriptor(bytes, this.maxOutputBytes) : null
    if (d === null || !(d.flags & FLG_BLOCK_INDEPENDENCE)) {
      out.push({ kind: 'serial', bytes, start: at })
      if (d === null) this.mode = Mode.SerialRest
      else {
        this.flags = d.flags
        this.blockMax = d.blockMax
        this.skip = 0
        this.checksumNext = false
        this.mode = Mode.SerialFrame
      }
      return i
    }
    this.flags = d.flags
    this.blockMax = d.blockMax
    out.push({ kind: 'frame-start', contentChecksum: (d.flags & FLG_CONTENT_CHECKSUM) !== 0, contentSize: d.contentSize })
    this.mode = Mode.Size
    return i
  }

  /**
   * A dependent frame after its header: passes `chunk[i..)` over; returns the index just
   * past the frame's end, or -1 when it goes on. A size word over the Block Maximum Size
   * hands the rest to the serial decoder, which fails there.
   */
  private scanDependent(chunk: Uint8Array, i: number): number {
    const len = chunk.length
    while (i < len) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, len - i)
        this.skip -= n
        i += n
        continue
      }
      // A size word, the end mark or the content checksum after it.
      const n = Math.min(4 - this.small.length, len - i)
      this.small.push(chunk.subarray(i, i + n))
      i += n
      if (this.small.length < 4) continue
      const word = readU32LE(this.small.take(), 0)
      // That was the content checksum, or the end mark of a frame without one.
      if (this.checksumNext || (word === 0 && !(this.flags & FLG_CONTENT_CHECKSUM))) return i
      if (word === 0) {
        this.checksumNext = true
        continue
      }
      const size = word & BLOCK_SIZE_MASK
      if (size > this.blockMax) {
        this.mode = Mode.SerialRest
        return -1
      }
      this.skip = size + (this.flags & FLG_BLOCK_CHECKSUM ? 4 : 0)
    }
    return -1
  }

  private flushGroup(out: Cut[]): void {
    if (this.group.length === 0) return
    const input = this.group.take()
    const start = this.groupStart
    const job = { kind: 'lz4-blocks', format: 'lz4', engine: this.engine, blockMax: this.blockMax, blockChecksum: (this.flags & FLG_BLOCK_CHECKSUM) !== 0, bound: this.groupBound, input } as const
    out.push({ kind: 'job', job, start, end: start + input.length, size: this.groupBound, exact: false })
    this.groupBound = 0
  }
}
