/**
 * Puts the chunks of one deflate stream (inflate-chunk.ts) back together in order, the
 * part of parallel deflate decoding that runs on the caller's thread, shared by the
 * one-shot decode (inflate-parallel.ts) and the decoding stream. Two steps per chunk,
 * each taken in order:
 *
 * - `take()`: a chunk is taken only if it `continues()` the stream, starting exactly
 *   where the stream decoded so far ended (the bit and what is there): a chunk that
 *   started at a false guess, or found none, is refused and the caller decodes again
 *   from `position` with `history()` known. Taking it moves the position to its end and
 *   the history to its last 32 KiB (markers among them resolved here, markers.ts), so
 *   the next chunk can be taken before this one's symbols are resolved;
 * - `settle()`, once its symbols are resolved (by a job, markers.ts `resolveJob`, with
 *   the `window` `take()` gave): each member's CRC-32 and ISIZE (gzip) or the stream's
 *   Adler-32 (zlib) computed from the pieces' checksums (combine.ts) and compared with
 *   its trailer.
 *
 * `maxOutputBytes` is counted in `take()`, and (unless `concatenated`) a second member
 * refused. A check that fails throws a `CodecError`; the callers then let the serial
 * decoder judge the input, so that the error and its offset are the ones it always
 * reports.
 */
import { CodecError } from '../errors.js'
import { adler32Combine, crc32Combine } from './combine.js'
import type { ChunkSegment, InflateChunkInfo, PositionKind } from './inflate-chunk.js'
import { resolveMarkers } from './markers.js'

const HISTORY = 32768

/** Where the stream decoded so far ends: an absolute bit of the input, and what is there. */
export interface ChainPosition {
  readonly bit: number
  readonly kind: PositionKind | 'end'
}

/** A chunk taken: its symbols to resolve with `window`, then its bytes. */
export interface TakenChunk {
  /** The symbols (2 bytes each, little-endian), or null. */
  readonly symbols: Uint8Array | null
  /** The bytes before the chunk in its member: what the symbols' markers stand for. */
  readonly window: Uint8Array
  /** The bytes decoded after the symbols (a view into the job's output). */
  readonly bytes: Uint8Array
  readonly info: InflateChunkInfo
  /** The chunk's input started at this byte of the whole input. */
  readonly base: number
  /** Where the chunk starts. */
  readonly start: ChainPosition
}

/** The state of the checks where the output settled so far ends: the member's checksum and size there. */
export interface SettledState {
  readonly check: number
  readonly size: number
}

export class InflateChain {
  private readonly format: 'gzip' | 'deflate' | 'deflate-raw'
  private readonly limit: number
  private readonly concatenated: boolean
  /** Where the next chunk must start. */
  position: ChainPosition
  /** Bytes of output taken so far. */
  produced = 0
  /** The current member's (or stream's) last bytes, up to 32 KiB: `tail[0..tailLength)`. */
  private tail = new Uint8Array(HISTORY)
  private tailLength = 0
  private members = 0
  /** `settle()`: the current member's checksum and size so far. */
  private check: number
  private size = 0
  /** Block starts (with `points` jobs): absolute bit, output offset, where their member's output starts, ... */
  readonly points: number[] = []
  /** Where the current member's output starts. */
  private memberStart = 0

  constructor(format: 'gzip' | 'deflate' | 'deflate-raw', start: ChainPosition, options: { maxOutputBytes: number; concatenated: boolean }) {
    this.format = format
    this.limit = options.maxOutputBytes
    this.concatenated = options.concatenated
    this.position = start
    this.check = this.initial()
  }

  private initial(): number {
    return this.format === 'deflate' ? 1 : 0
  }

  /** Whether the stream ended (the position is past its last trailer). */
  get ended(): boolean {
    return this.position.kind === 'end'
  }

  /** The history a chunk decoded from `position` needs: the member's last bytes (a copy). */
  history(): Uint8Array {
    return this.tail.slice(0, this.tailLength)
  }

  /** Whether a chunk whose input starts at byte `base` continues the stream: it starts at `position` and got somewhere. */
  continues(info: InflateChunkInfo, base: number): boolean {
    return info.start >= 0 && base * 8 + info.start === this.position.bit && info.startKind === this.position.kind && info.end !== info.start
  }

  /** Takes the next chunk (which `continues()`), its output as the job returned it. Throws before changing anything. */
  take(info: InflateChunkInfo, output: Uint8Array, base: number): TakenChunk {
    const S = info.symbols
    const symbols = S > 0 ? output.subarray(0, 2 * S) : null
    const bytes = output.subarray(2 * S)
    const total = S + bytes.length
    if (this.produced + total > this.limit) throw new CodecError('LIMIT_EXCEEDED', this.format, `output exceeds maxOutputBytes (${this.limit})`)
    const segments = info.segments
    const startsMember = info.startKind === 'member'
    // Each segment after the first starts a member, as does the chunk at a member header.
    const members = this.members + (startsMember ? 1 : 0) + segments.length - 1
    if (members > 1 && !this.concatenated) throw new CodecError('TRAILING_DATA', this.format, 'a second member follows')
    const window = startsMember ? new Uint8Array(0) : this.history()
    // The history at the chunk's end: the last 32 KiB of its last member's output.
    const last = segments[segments.length - 1]!
    let tail = new Uint8Array(HISTORY)
    let tailLength = 0
    if (!last.trailer) {
      const from = segments.length > 1 ? segments[segments.length - 2]!.end : 0
      const keepOld = from === 0 && !startsMember
      const start = Math.max(from, total - HISTORY)
      if (keepOld) {
        const old = Math.min(this.tailLength, HISTORY - (total - start))
        tail.set(this.tail.subarray(this.tailLength - old, this.tailLength))
        tailLength = old
      }
      if (start < S) {
        const marked = new Uint16Array(symbols!.buffer.slice(symbols!.byteOffset + 2 * start, symbols!.byteOffset + 2 * S))
        if (!resolveMarkers(marked, window, tail, tailLength)) throw new CodecError('INVALID_DATA', this.format, 'a distance reaches farther back than the data', Math.floor((base * 8 + info.start) / 8))
        tailLength += S - start
      }
      const b = Math.max(start, S) - S
      tail.set(bytes.subarray(b), tailLength)
      tailLength += bytes.length - b
    } else {
      tail = this.tail
    }
    // Each block start's member: the segment it is in (a start at a segment's end after
    // a trailer is the next member's first block).
    const memberStartOf = (i: number): number => (i === 0 ? (startsMember ? this.produced : this.memberStart) : this.produced + segments[i - 1]!.end)
    let segment = 0
    for (let i = 0; i < info.points.length; i += 2) {
      const x = info.points[i + 1]!
      while (segment < segments.length - 1 && (x > segments[segment]!.end || (x === segments[segment]!.end && segments[segment]!.trailer))) segment++
      this.points.push(base * 8 + info.points[i]!, this.produced + x, memberStartOf(segment))
    }
    const start = this.position
    this.members = members
    this.tail = tail
    this.tailLength = tailLength
    this.memberStart = last.trailer ? this.produced + total : memberStartOf(segments.length - 1)
    this.produced += total
    this.position = { bit: base * 8 + info.end, kind: info.endKind }
    return { symbols, window, bytes, info, base, start }
  }

  /** The checks' state where the output settled so far ends. */
  settled(): SettledState {
    return { check: this.check, size: this.size }
  }

  /** The checks of a taken chunk, in order, once `symbolCheck` (its resolved symbols' checksum) is known. */
  settle(taken: TakenChunk, symbolCheck: number): void {
    const { info, base } = taken
    const S = info.symbols
    const saved = this.settled()
    try {
      if (info.startKind === 'member') this.newMember()
      let from = 0
      info.segments.forEach((segment: ChunkSegment, i: number) => {
        if (i > 0) this.newMember()
        const part = i === 0 && S > 0 ? this.combine(symbolCheck, segment.check, segment.end - S) : segment.check
        this.check = this.combine(this.check, part, segment.end - from)
        this.size += segment.end - from
        from = segment.end
        if (segment.trailer) this.closeMember(segment.trailer.values, base * 8 + segment.trailer.bit)
      })
    } catch (error) {
      // As it was before this chunk, for a serial decoder to go on from its start.
      this.check = saved.check
      this.size = saved.size
      throw error
    }
  }

  private combine(a: number, b: number, lengthB: number): number {
    return this.format === 'gzip' ? crc32Combine(a, b, lengthB) : this.format === 'deflate' ? adler32Combine(a, b, lengthB) : 0
  }

  private newMember(): void {
    this.check = this.initial()
    this.size = 0
  }

  /** A member's (or the stream's) trailer: compared with what was decoded. */
  private closeMember(values: readonly number[], bit: number): void {
    const at = Math.floor(bit / 8)
    if (this.format === 'gzip') {
      if (values[0] !== this.check) throw new CodecError('CHECKSUM_MISMATCH', this.format, 'stored CRC-32 does not match the decoded data', at - 8)
      if (values[1] !== this.size % 2 ** 32) throw new CodecError('CHECKSUM_MISMATCH', this.format, 'stored ISIZE does not match the decoded size', at - 4)
    } else if (this.format === 'deflate' && values[0] !== this.check) {
      throw new CodecError('CHECKSUM_MISMATCH', this.format, 'stored Adler-32 does not match the decoded data', at - 4)
    }
  }
}
