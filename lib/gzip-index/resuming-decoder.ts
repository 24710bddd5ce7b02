/**
 * Decodes a deflate family file from an access point on (gzip-index.ts) as one span
 * decoder, so that the machine (lib/machine.ts) drives it like any other: the member the
 * point is in, from the point (raw deflate primed with the window, inflate-at.ts) to its
 * trailer, is the first "member"; the machine's reset between members switches to the
 * plain gzip decoder for the members after it, and the machine decides padding,
 * trailing data and truncation as for a whole file.
 *
 * The trailer of the member the point is in is checked when the point has no window (a
 * member's first block: the output since the point is the whole member's): CRC-32 and
 * ISIZE for gzip, Adler-32 for zlib. Inside a member it is read past, as zran does.
 *
 * Every block start is reported to `onBlock` in file bits and content bytes, so that
 * the reader checks the index's later points against the file as it passes them.
 *
 * Failure offsets of the first member are file offsets; the machine that drives it
 * starts counting its input at the point's byte (its `totalIn`), so that its own
 * offsets (truncation, later members) are file offsets too.
 */
import type { Decoder } from '../codec.js'
import type { Failure } from '../errors.js'
import { Status } from '../status.js'
import { adler32 } from '../codecs/checksum.js'
import type { Crc32, DeflateFamilyDecoder } from '../codecs/deflate.js'
import type { BlockObserver, IndexableBody } from '../codecs/inflate-observer.js'
import type { GzipIndexFormat, GzipIndexPoint } from './gzip-index.js'
import { InflaterAt } from './inflate-at.js'
import type { IndexParts } from './engines.js'

const enum Phase {
  /** The member the point is in, from the point to the end of its deflate data. */
  Body,
  /** Its trailer. */
  Trailer,
  /** It has ended. */
  Done,
  /** The members after it, whole. */
  Members,
}

export class ResumingDecoder implements Decoder {
  readonly format: GzipIndexFormat
  consumed = 0
  written = 0
  failure: Failure | null = null
  /** The first member's decoder, made by `start()`: with a CRC-32 body when its trailer is checked. */
  private at: InflaterAt | null = null
  private crc: Crc32 | null = null
  private readonly members: DeflateFamilyDecoder | null
  private readonly membersBody: IndexableBody | null
  private phase = Phase.Body
  /** Where the point is: its file byte and content offset. */
  private startByte = 0
  private startOut = 0
  /** The trailer is checked (the point is a member's first block). */
  private checked = false
  private check = 0
  private size = 0
  private readonly trailer = new Uint8Array(8)
  private trailerFill = 0
  /** Input consumed and output written since the start; where the current member starts. */
  private totalIn = 0
  private totalOut = 0
  private memberIn = 0
  private memberOut = 0
  /** Content offset where the last member to end (its trailer read) ended; -1 before. */
  memberEnd = -1

  /** `onBlock(bit, out)`: a block starts at file bit `bit`, content offset `out`. */
  constructor(
    private readonly parts: IndexParts,
    format: GzipIndexFormat,
    private readonly onBlock: (bit: number, out: number) => void,
  ) {
    this.format = format
    if (format === 'gzip') {
      this.membersBody = parts.body('gzip')
      this.members = parts.decoder('gzip', this.membersBody)
      this.membersBody.observer = { block: (bit, out) => this.onBlock((this.startByte + this.memberIn) * 8 + bit, this.startOut + this.memberOut + out) }
    } else {
      this.members = this.membersBody = null
    }
  }

  /**
   * Starts at `point` with its decompressed `window`; feed the file from
   * `point.compressedBitOffset >> 3`. The trailer of the member the point is in is
   * checked when the point has no window (the member's first block), or when `member`
   * gives the checksum and size of the member's output before the point (a parallel
   * decode that stopped there, lib/parallel/inflate-run.ts).
   */
  start(point: GzipIndexPoint, window: Uint8Array, member?: { check: number; size: number }): void {
    this.checked = (point.windowSize === 0 || member !== undefined) && this.format !== 'deflate-raw'
    // A gzip body of the wasm engine computes the CRC-32 of what it hands out, in wasm.
    const body = this.parts.body(this.checked && this.format === 'gzip' ? 'gzip' : 'deflate-raw')
    body.observer = { block: (bit, out) => this.onBlock(this.startByte * 8 + bit, this.startOut + out) }
    this.at?.dispose()
    this.at = new InflaterAt(body)
    this.crc = this.checked && this.format === 'gzip' ? this.parts.crc32(body) : null
    this.at.start(point.compressedBitOffset, window)
    this.startByte = this.at.startByte
    this.startOut = point.uncompressedOffset
    this.phase = Phase.Body
    this.check = member ? member.check : this.format === 'deflate' ? 1 : 0
    this.size = member ? member.size >>> 0 : 0
    this.trailerFill = 0
    this.totalIn = this.totalOut = this.memberIn = this.memberOut = 0
    this.memberEnd = -1
    this.consumed = this.written = 0
    this.failure = null
  }

  /** The machine calls this between members: the next one is decoded whole. */
  reset(): void {
    if (this.phase !== Phase.Body) {
      this.phase = Phase.Members
      this.members?.reset()
      this.memberIn = this.totalIn
      this.memberOut = this.totalOut
    }
    this.consumed = this.written = 0
    this.failure = null
  }

  startsMember(src: Uint8Array): 'match' | 'partial' | 'no' {
    return this.members ? this.members.startsMember(src) : 'no'
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    const status = this.step(src, dst, final)
    this.totalIn += this.consumed
    this.totalOut += this.written
    if (status === Status.Done) this.memberEnd = this.startOut + this.totalOut
    return status
  }

  private step(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    if (this.phase === Phase.Members) {
      const m = this.members!
      const status = m.transform(src, dst, final)
      this.consumed = m.consumed
      this.written = m.written
      this.failure = m.failure
      return status
    }
    let i = 0
    let o = 0
    if (this.phase === Phase.Body) {
      const at = this.at!
      const status = at.transform(src, dst, final)
      i = at.consumed
      o = at.written
      if (this.checked && o > 0) {
        if (this.crc !== null) {
          this.check = this.crc(dst, this.check, 0, o)
          this.size = (this.size + o) >>> 0
        } else {
          this.check = adler32(dst, this.check, 0, o)
        }
      }
      if (status !== Status.Done) {
        this.consumed = i
        this.written = o
        const f = at.failure
        this.failure = f === null ? null : { ...f, offset: f.offset >= 0 ? this.startByte + f.offset : f.offset }
        return status
      }
      if (this.format === 'deflate-raw') {
        this.phase = Phase.Done
        this.consumed = i
        this.written = o
        return Status.Done
      }
      this.phase = Phase.Trailer
      if (this.checked) {
        const t = this.trailer
        const c = this.check
        if (this.format === 'gzip') {
          // RFC 1952 section 2.3.1: CRC32 then ISIZE, little-endian.
          for (let k = 0; k < 4; k++) {
            t[k] = c >>> (8 * k)
            t[4 + k] = this.size >>> (8 * k)
          }
        } else {
          // RFC 1950 section 2.2: ADLER32, big-endian.
          for (let k = 0; k < 4; k++) t[k] = c >>> (24 - 8 * k)
        }
      }
    }
    // The trailer: 8 bytes (gzip) or 4 (zlib), compared when they can be.
    const need = this.format === 'gzip' ? 8 : 4
    while (this.trailerFill < need && i < src.length) {
      const k = this.trailerFill++
      if (this.checked && src[i] !== this.trailer[k]) {
        const field = this.format === 'gzip' ? (k < 4 ? 'CRC-32' : 'ISIZE') : 'Adler-32'
        this.failure = { code: 'CHECKSUM_MISMATCH', message: `stored ${field} does not match the data decoded from the index point (the member's start)`, offset: this.startByte + this.totalIn + i }
        this.consumed = i
        this.written = o
        return Status.InvalidData
      }
      i++
    }
    this.consumed = i
    this.written = o
    if (this.trailerFill < need) return Status.NeedMoreData
    this.phase = Phase.Done
    return Status.Done
  }

  dispose(): void {
    if (this.at) this.at.body.observer = null
    this.at?.dispose()
    if (this.membersBody) this.membersBody.observer = null
    this.members?.dispose()
  }
}
