/**
 * The job of parallel deflate decoding (issue 31): one chunk of a gzip, zlib or raw
 * deflate stream, decoded on its own (in a worker or inline; lib/parallel/jobs.ts).
 *
 * A chunk starts either where it is known to (the stream's start, a position the chunk
 * before it ended at, an access point of an index) with the bytes before it known, or
 * at a guess: the first candidate block header (deflate-boundary.ts) or gzip member
 * header in its range of the input. From a guess, the 32 KiB before the chunk are
 * unknown: it decodes into 16-bit symbols with the kernel of inflate-markers.wat, a
 * match reaching back before the chunk copying *markers* (256 + the position in the
 * unknown window) instead of bytes; once the last 32 KiB of its output hold no marker
 * it switches to the byte kernel (inflate.wat `codes`) with those 32 KiB as history.
 * A guess that decodes into an invalid code or header is dropped and the search goes on
 * from the next bit.
 *
 * A chunk ends at the first true block boundary (or gzip member start) at or past
 * `stop` that is a candidate, the same predicate the next chunk's search applies, so
 * both name the same bit unless the search met a false candidate first; it also ends
 * where its stream ends, at the last boundary before its input runs out, or at the
 * first boundary past `maxOutput` bytes. The driver (inflate-parallel.ts) checks that
 * each chunk starts where the previous one ended, decodes again from there when not,
 * resolves the markers, and checks the members' CRC-32 and ISIZE (or the Adler-32) from
 * the checksums this job computed over its bytes.
 *
 * Bit positions are relative to `input`, which stays below 128 MiB so that they fit
 * 31 bits.
 */
import { adler32 } from '../codecs/checksum.js'
import { CodecError } from '../errors.js'
import { chunkKernel, DYN_DIST, DYN_LIT, END, ensureMemory, FIXED_DIST, FIXED_LIT, FULL, IN, NEED, type ChunkKernel } from './chunk-kernel.js'
import { BLOCK_INCOMPLETE, BLOCK_INVALID, FIXED, isCandidate, newBlockHeader, readBlockHeader, STORED, type BlockHeader } from './deflate-boundary.js'
import { HEADER_INCOMPLETE, HEADER_INVALID, memberHeader } from './gzip-member.js'
import { DIST_TABLE_SIZE, LIT_TABLE_SIZE } from '../codecs/inflate-tables.js'

/** What is at a position: a deflate block header, or (gzip) a member header. */
export type PositionKind = 'block' | 'member'

/** A chunk of one deflate stream to decode (see the module comment). */
export interface InflateChunkJob {
  readonly kind: 'inflate-chunk'
  readonly format: 'gzip' | 'deflate' | 'deflate-raw'
  /** Compressed bytes; positions are bits of this array. */
  readonly input: Uint8Array
  /** Where decoding starts (`at` names what is there), or where the search starts (`at: 'search'`). */
  readonly from: number
  readonly at: PositionKind | 'search'
  /** The search looks for a start in `[from, searchEnd)`. */
  readonly searchEnd: number
  /** A known start's history: the last (up to 32 KiB) bytes decoded before it in its member or stream. */
  readonly window: Uint8Array | null
  /** The chunk ends at the first candidate boundary at or past this bit (`exact`: at the block starting at this very bit); -1 for none. */
  readonly stop: number
  /** An index's point: the chunk ends at the block start at `stop`, which it must meet. */
  readonly exact?: boolean
  /** Whether `input` runs to the end of the whole input (the stream cannot go on past it). */
  readonly last: boolean
  /** The chunk ends at the first boundary after this many bytes of output. */
  readonly maxOutput: number
  /** Whether to record every block start (for an index). */
  readonly points: boolean
  /**
   * Memory to write the output into when it is large enough: the buffer of an earlier
   * chunk's output, handed back once copied out, so that each chunk does not write
   * fresh pages (their first touch costs about as much as copying them).
   */
  readonly scratch?: ArrayBuffer | null
}

/** A piece of a chunk's output within one member (gzip) or the stream (zlib, raw). */
export interface ChunkSegment {
  /** Where the segment ends, in the chunk's output (symbols and bytes counted alike). */
  readonly end: number
  /** CRC-32 (gzip) or Adler-32 (zlib) of the segment's bytes after the chunk's symbols; 0 for raw deflate. */
  readonly check: number
  /**
   * Where the member or stream ends within the chunk: its trailer as stored (gzip: CRC-32
   * and ISIZE; zlib: the Adler-32; raw: nothing) and the input bit after it; null when the
   * segment runs on past the chunk.
   */
  readonly trailer: { readonly values: readonly number[]; readonly bit: number } | null
}

/**
 * What a chunk job reports beside its output, which is `symbols` 16-bit symbols
 * (little-endian, markers >= 256) followed by bytes.
 */
export interface InflateChunkInfo {
  /** The bit where decoding started, and what was there; -1 when the search found no start that decodes. */
  readonly start: number
  readonly startKind: PositionKind
  /**
   * Where the chunk ended: a boundary (`endKind` names it), or the end of the stream
   * (`'end'`: `end` is the bit after its trailer; the bytes after it are the next
   * member's only if `endKind` is `'member'`).
   */
  readonly end: number
  readonly endKind: PositionKind | 'end'
  /** Why it ended there: `stop` reached, the stream `end`ed, the input ran `out`, the output reached its `cap`. */
  readonly reason: 'stop' | 'end' | 'out' | 'cap'
  readonly symbols: number
  readonly segments: readonly ChunkSegment[]
  /** With `points`, every block start from the chunk's start on (not its end): bit, output offset, bit, output offset, ... */
  readonly points: readonly number[]
}

/** The bytes before a chunk's output: markers (256 + position in the window) for an unknown one. */
const HISTORY = 32768
/** Symbols decoded per marker-kernel call; the marker scan runs between calls. */
const STEP16 = 32768
/** Most 16-bit symbols a chunk decodes before its window is known; past it the chunk ends at its last boundary. */
const MAX_SYMBOLS = 8 * 1024 * 1024
/** Bytes decoded per byte-kernel call, copied out (and checksummed) while they are in cache. */
const STEP8 = 256 * 1024
/** The byte output's window after its history: decoding slides back to its start when less than `STEP8` is left. */
const ROOM8 = 1024 * 1024
/** Room the kernels may write past their output limit (inflate.wat: 300 bytes; inflate-markers.wat: 560). */
const SLACK = 1024
/** A job's input limit: bit positions must fit in 31 bits (2^28 bytes), the staging area below it. */
export const MAX_CHUNK_INPUT = 128 * 1024 * 1024
/**
 * Most output one chunk holds past its `maxOutput` (which it passes only inside a block):
 * a block decoding to more is a bomb or an unusual encoder, and fails the job; the
 * driver then decodes serially, which reports the limit or decodes it. zlib's blocks
 * hold at most 64K symbols, 16 MiB of output.
 */
const BLOCK_SLACK = 64 * 1024 * 1024
/** Most output one chunk holds at all. */
const HARD_OUTPUT = 1024 * 1024 * 1024

/** Thrown inside a chunk's decode: an invalid block, trailer or header. */
class Invalid {
  constructor(
    readonly why: string,
    readonly bit: number,
  ) {}
}

/** Runs a chunk job on this thread. The output's buffer is the result's own (its tail past the output unused). */
export async function inflateChunk(job: InflateChunkJob): Promise<{ output: Uint8Array; info: InflateChunkInfo }> {
  if (job.input.length > MAX_CHUNK_INPUT) throw new CodecError('INVALID_OPTION', job.format, `a chunk job takes at most ${MAX_CHUNK_INPUT} bytes of input, not ${job.input.length}`)
  const decoder = new ChunkDecoder(await chunkKernel(), job)
  if (job.at !== 'search') {
    try {
      return decoder.decode(job.from, job.at)
    } catch (error) {
      if (!(error instanceof Invalid)) throw error
      throw new CodecError('INVALID_DATA', job.format, error.why, Math.floor(error.bit / 8))
    }
  }
  // The guesses, in order: the first candidate at or after `from` that decodes.
  for (let from = job.from; ; ) {
    const block = decoder.findBlock(from, job.searchEnd)
    const member = job.format === 'gzip' ? nextMember(job.input, from, block >= 0 ? block : job.searchEnd) : -1
    const p = member >= 0 ? member : block
    if (p < 0) return decoder.none()
    try {
      return decoder.decode(p, member >= 0 ? 'member' : 'block', true)
    } catch (error) {
      if (!(error instanceof Invalid)) throw error
      from = p + 1
    }
  }
}

/** The first byte-aligned bit in `[from, to)` where a valid gzip member header starts, or -1. */
function nextMember(b: Uint8Array, from: number, to: number): number {
  const end = Math.ceil(to / 8)
  for (let a = Math.ceil(from / 8); a < end; a++) {
    a = b.indexOf(0x1f, a)
    if (a < 0 || a >= end) return -1
    if (b[a + 1] === 0x8b && memberHeader(b, a) >= 0) return a * 8
  }
  return -1
}

/** Where a chunk may end if its input runs out: the last boundary passed, and the state there. */
interface Mark {
  bit: number
  kind: PositionKind
  wide: boolean
  /** Symbols (while wide), or bytes of the result after them. */
  symbols: number
  bytes: number
  check: number
  segments: number
  points: number
}

/** One decode of a chunk from a position; reusable for the next guess. */
class ChunkDecoder {
  readonly header: BlockHeader = newBlockHeader()
  private readonly k: ChunkKernel
  private readonly job: InflateChunkJob
  private readonly n: number
  private readonly endBit: number
  /** Layout: the 16-bit region (markers at M16, symbols from O16 up to CAP16), the byte window (history below O8, room up to END8). */
  private readonly M16: number
  private readonly O16: number
  private readonly CAP16: number
  private readonly O8: number
  private readonly END8: number
  private heap8!: Uint8Array
  private heapBuffer: ArrayBuffer | null = null

  // Per decode:
  private wide = false
  private out16 = 0
  private hist16 = 0
  /** The byte window: decoded up to `out8`, copied out up to `copied8`; matches reach back to `hist8`. */
  private out8 = 0
  private copied8 = 0
  private hist8 = 0
  /** Symbols before the bytes (fixed once the decoder switched to bytes). */
  private symbols = 0
  /** The result: 2 * symbols bytes of symbols, then `bytes` bytes (allocated at the first bytes). */
  private result: Uint8Array | null = null
  private bytes = 0
  /** The checksum of the current segment's bytes so far. */
  private check = 0
  private segments: { end: number; check: number; trailer: ChunkSegment['trailer'] }[] = []
  private points: number[] = []
  private start = 0
  private startKind: PositionKind = 'block'
  private readonly good: Mark = { bit: 0, kind: 'block', wide: false, symbols: 0, bytes: 0, check: 0, segments: 0, points: 0 }

  constructor(kernel: ChunkKernel, job: InflateChunkJob) {
    this.k = kernel
    this.job = job
    this.n = job.input.length
    this.endBit = this.n * 8
    const inEnd = IN + this.n + 64
    const searching = job.at === 'search'
    this.M16 = (inEnd + 7) & ~7
    this.O16 = this.M16 + 2 * HISTORY
    this.CAP16 = searching ? this.O16 + 2 * MAX_SYMBOLS : this.O16
    this.O8 = ((this.CAP16 + SLACK + 7) & ~7) + HISTORY
    this.END8 = this.O8 + ROOM8
    if (!ensureMemory(kernel, this.END8 + SLACK)) throw new CodecError('ENGINE_UNAVAILABLE', job.format, "could not grow the chunk decoder's memory")
    this.refresh()
    this.heap8.set(job.input, IN)
    this.heap8.fill(0, IN + this.n, inEnd)
  }

  private refresh(): void {
    if (this.heapBuffer !== this.k.memory.buffer) {
      this.heapBuffer = this.k.memory.buffer as ArrayBuffer
      this.heap8 = new Uint8Array(this.heapBuffer)
    }
  }

  lit(): Int32Array {
    this.refresh()
    return new Int32Array(this.heapBuffer!, DYN_LIT, LIT_TABLE_SIZE)
  }

  dist(): Int32Array {
    this.refresh()
    return new Int32Array(this.heapBuffer!, DYN_DIST, DIST_TABLE_SIZE)
  }

  /**
   * The first bit in `[from, to)` where a candidate block header starts (read into
   * `header`, its tables built), or -1: the kernel's prefilter, then the header whole.
   */
  findBlock(from: number, to: number): number {
    const base = IN * 8
    const stop = base + Math.min(to, this.endBit - 3)
    for (let p = base + from; ; ) {
      const q = this.k.scan(p, stop, base + this.endBit)
      if (q < 0) return -1
      const bit = q - base
      if (readBlockHeader(this.job.input, bit, this.endBit, this.header, this.lit(), this.dist()) >= 0 && isCandidate(this.header)) return bit
      p = q + 1
    }
  }

  /** The result of a search that found no start. */
  none(): { output: Uint8Array; info: InflateChunkInfo } {
    return { output: new Uint8Array(0), info: { start: -1, startKind: 'block', end: -1, endKind: 'block', reason: 'out', symbols: 0, segments: [], points: [] } }
  }

  /** Decodes from bit `p` (a `kind` position) to the chunk's end; throws `Invalid`. `guess`: the history is unknown. */
  decode(p: number, kind: PositionKind, guess = false): { output: Uint8Array; info: InflateChunkInfo } {
    const job = this.job
    this.start = p
    this.startKind = kind
    this.segments = []
    this.points = []
    this.symbols = 0
    this.result = null
    this.bytes = 0
    this.check = this.initialCheck()
    this.out16 = this.O16
    this.out8 = this.copied8 = this.hist8 = this.O8
    this.wide = guess && kind === 'block'
    if (this.wide) {
      // The unknown window: marker 256 + j for its byte j (j = 0 the oldest).
      this.refresh()
      const marks = new Uint16Array(this.heapBuffer!, this.M16, HISTORY)
      for (let j = 0; j < HISTORY; j++) marks[j] = 256 + j
      this.hist16 = this.M16
    } else if (kind === 'block' && job.window) {
      const w = job.window.subarray(Math.max(0, job.window.length - HISTORY))
      this.heap8.set(w, this.O8 - w.length)
      this.hist8 = this.O8 - w.length
    }
    this.mark(p, kind)
    let pos = p
    if (kind === 'member') {
      pos = this.memberStart(pos)
      if (pos < 0) return this.ranOut()
    }
    const h = this.header
    for (;;) {
      if (job.exact && pos >= job.stop && pos !== this.start) {
        if (pos === job.stop) return this.finish('stop', pos, 'block')
        throw new Invalid(`no deflate block starts at bit ${job.stop}, where the index has a point`, job.stop)
      }
      const after = readBlockHeader(job.input, pos, this.endBit, h, this.lit(), this.dist())
      if (after === BLOCK_INCOMPLETE) return this.ranOut()
      if (after === BLOCK_INVALID) throw new Invalid(h.errorMessage, h.errorBit)
      if (pos !== this.start) {
        if (!job.exact && job.stop >= 0 && pos >= job.stop && isCandidate(h)) return this.finish('stop', pos, 'block')
        if (this.total() >= job.maxOutput) return this.finish('cap', pos, 'block')
        this.mark(pos, 'block')
      }
      pos = h.type === STORED ? this.stored(after, h.stored) : this.codes(after, h)
      if (pos < 0) return this.ranOut()
      if (!h.last) continue
      // The member or stream ends: its trailer, then (gzip) perhaps another member.
      const t = Math.ceil(pos / 8)
      const size = job.format === 'gzip' ? 8 : job.format === 'deflate' ? 4 : 0
      if (t + size > this.n) {
        if (job.last) throw new Invalid('input ended before the end of the stream', this.endBit)
        return this.ranOut()
      }
      const v = job.input
      const values =
        job.format === 'gzip'
          ? [(v[t]! | (v[t + 1]! << 8) | (v[t + 2]! << 16) | (v[t + 3]! << 24)) >>> 0, (v[t + 4]! | (v[t + 5]! << 8) | (v[t + 6]! << 16) | (v[t + 7]! << 24)) >>> 0]
          : job.format === 'deflate'
            ? [((v[t]! << 24) | (v[t + 1]! << 16) | (v[t + 2]! << 8) | v[t + 3]!) >>> 0]
            : []
      const next = t + size
      this.segments.push({ end: this.total(), check: this.check, trailer: { values, bit: next * 8 } })
      this.check = this.initialCheck()
      if (job.format !== 'gzip') return this.finish('end', next * 8, 'end')
      const header = memberHeader(v, next)
      if (header === HEADER_INVALID || (header === HEADER_INCOMPLETE && job.last)) return this.finish('end', next * 8, 'end')
      if (header === HEADER_INCOMPLETE) return this.finish('out', next * 8, 'member')
      if (!job.exact && job.stop >= 0 && next * 8 >= job.stop) return this.finish('stop', next * 8, 'member')
      this.mark(next * 8, 'member')
      pos = this.memberStart(next * 8)
    }
  }

  private initialCheck(): number {
    return this.job.format === 'deflate' ? 1 : 0
  }

  /** Starts a member at bit `p` (byte-aligned): no history, bytes from here. Returns its first block's bit, or -1 (incomplete). */
  private memberStart(p: number): number {
    const data = memberHeader(this.job.input, p / 8)
    if (data === HEADER_INVALID) throw new Invalid('invalid gzip member header', p)
    if (data === HEADER_INCOMPLETE) return -1
    if (this.wide) this.toBytes(false)
    this.hist8 = this.out8
    return data * 8
  }

  /** Output so far, symbols and bytes. */
  private total(): number {
    return this.wide ? (this.out16 - this.O16) >>> 1 : this.symbols + this.bytes
  }

  /** Records a boundary the chunk may end at (and a block start, for an index). */
  private mark(bit: number, kind: PositionKind): void {
    const g = this.good
    g.bit = bit
    g.kind = kind
    g.wide = this.wide
    g.symbols = this.wide ? (this.out16 - this.O16) >>> 1 : this.symbols
    g.bytes = this.bytes
    g.check = this.check
    g.segments = this.segments.length
    // A chunk that ends here leaves this block start to the chunk starting here.
    g.points = this.points.length
    if (this.job.points && kind === 'block') this.points.push(bit, this.total())
  }

  /** A stored block of `len` bytes at bit `p` (byte-aligned). Returns the bit after it, or -1 (incomplete). */
  private stored(p: number, len: number): number {
    const a = p / 8
    if (a + len > this.n) return -1
    if (this.wide) {
      if (this.out16 + 2 * len > this.CAP16) return -1
      this.k.widen(this.out16, IN + a, len)
      this.out16 += 2 * len
      this.maybeToBytes()
    } else {
      this.room()
      this.heap8.copyWithin(this.out8, IN + a, IN + a + len)
      this.out8 += len
      this.copyOut()
    }
    return (a + len) * 8
  }

  /** Slides the byte window back to its start (keeping 32 KiB of history) when less than a step is left. */
  private room(): void {
    if (this.out8 + STEP8 <= this.END8) return
    const keep = Math.min(HISTORY, this.out8 - this.hist8)
    this.heap8.copyWithin(this.O8 - keep, this.out8 - keep, this.out8)
    this.hist8 = this.O8 - keep
    this.out8 = this.copied8 = this.O8
  }

  /** Copies the bytes decoded since the last call into the result (checksumming them on the way). */
  private copyOut(): void {
    const n = this.out8 - this.copied8
    if (n === 0) return
    const at = 2 * this.symbols + this.bytes
    if (!this.result || at + n > this.result.length) {
      const most = Math.min(HARD_OUTPUT, this.job.maxOutput + BLOCK_SLACK)
      if (this.symbols + this.bytes + n > most) throw new CodecError('LIMIT_EXCEEDED', this.job.format, `one chunk decodes to more than ${most} bytes`)
      // First sized for 8 bytes per input byte (pages never written cost nothing), then
      // grown by half when short.
      const estimate = 2 * this.symbols + 8 * this.n
      const size = Math.max(at + n + STEP8, this.result ? Math.floor(this.result.length * 1.5) : Math.min(estimate, 2 * most))
      const scratch = this.job.scratch
      const grown = scratch && scratch.byteLength >= Math.min(size, 4 * this.n) && scratch.byteLength >= at + n && !this.result ? new Uint8Array(scratch) : new Uint8Array(size)
      if (this.result) grown.set(this.result.subarray(0, at))
      else if (this.symbols > 0) grown.set(this.heap8.subarray(this.O16, this.O16 + 2 * this.symbols))
      this.result = grown
    }
    this.result.set(this.heap8.subarray(this.copied8, this.out8), at)
    const f = this.job.format
    if (f === 'gzip') this.check = this.k.crc32(this.check, this.copied8, n) >>> 0
    else if (f === 'deflate') this.check = adler32(this.heap8, this.check, this.copied8, this.out8)
    this.bytes += n
    this.copied8 = this.out8
  }

  /** A Huffman-coded block's codes from bit `p`; returns the bit after its end-of-block code, or -1 (incomplete or out of room). */
  private codes(p: number, h: BlockHeader): number {
    const k = this.k
    const inEnd = IN + this.n
    const fixed = h.type === FIXED
    const lit = fixed ? FIXED_LIT : DYN_LIT
    const litRoot = fixed ? 9 : h.litBits
    const dist = fixed ? FIXED_DIST : DYN_DIST
    const distRoot = fixed ? 5 : h.distBits
    for (;;) {
      const at = IN + (p >>> 3)
      let status: number
      if (this.wide) {
        const limit = Math.min(this.out16 + 2 * STEP16, this.CAP16)
        if (this.out16 >= limit) return -1
        status = k.codes16(at, inEnd, p & 7, this.out16, limit, this.hist16, lit, litRoot, dist, distRoot)
      } else {
        this.room()
        status = k.codes(at, inEnd, p & 7, this.out8, this.out8 + STEP8, this.hist8, lit, litRoot, dist, distRoot)
      }
      const r = new Int32Array(this.heapBuffer!, 0, 3)
      p = (r[0]! - IN) * 8 + r[1]!
      if (this.wide) {
        this.out16 = r[2]!
        if (status === END || status === FULL) this.maybeToBytes()
      } else {
        this.out8 = r[2]!
        this.copyOut()
      }
      if (status === END) return p
      if (status === FULL) continue
      if (status === NEED) return -1
      throw new Invalid(status === 3 ? 'invalid literal/length code' : status === 4 ? 'invalid distance code' : 'distance is farther back than the history', p)
    }
  }

  /** Switches to bytes once the last 32 KiB of symbols hold no marker. */
  private maybeToBytes(): void {
    if (this.out16 - this.O16 < 2 * HISTORY) return
    if (this.k.lastMarker(this.out16 - 2 * HISTORY, this.out16) >= 0) return
    this.toBytes(true)
  }

  /** Bytes from here on: with the last 32 KiB of symbols as history (`keep`), or none. */
  private toBytes(keep: boolean): void {
    this.symbols = (this.out16 - this.O16) >>> 1
    this.wide = false
    this.out8 = this.copied8 = this.O8
    this.bytes = 0
    this.result = null
    if (keep) {
      const n = Math.min(HISTORY, this.symbols)
      this.k.narrow(this.O8 - n, this.out16 - 2 * n, n)
      this.hist8 = this.O8 - n
    } else {
      this.hist8 = this.O8
    }
  }

  /** The input ran out inside a block or header: the chunk ends at the last boundary it passed. */
  private ranOut(): { output: Uint8Array; info: InflateChunkInfo } {
    const g = this.good
    this.segments.length = g.segments
    this.points.length = g.points
    this.check = g.check
    if (g.wide) {
      this.wide = true
      this.out16 = this.O16 + 2 * g.symbols
      this.result = null
    } else {
      this.symbols = g.symbols
      this.bytes = g.bytes
    }
    return this.finish('out', g.bit, g.kind)
  }

  /** The result: the output (its buffer the result's own), each segment's checksum. */
  private finish(reason: InflateChunkInfo['reason'], end: number, endKind: InflateChunkInfo['endKind']): { output: Uint8Array; info: InflateChunkInfo } {
    this.refresh()
    if (this.wide) {
      this.symbols = (this.out16 - this.O16) >>> 1
      this.bytes = 0
      this.result = null
    }
    // No bytes decoded since the symbols (or none at all): the symbols alone.
    if (!this.result) this.result = this.heap8.slice(this.O16, this.O16 + 2 * this.symbols)
    const output = this.result.subarray(0, 2 * this.symbols + this.bytes)
    // The segments closed by trailers, then the one the chunk ends inside (even empty: a
    // member whose header the chunk read), unless it ends where a member does.
    const segments: ChunkSegment[] = [...this.segments]
    const total = this.symbols + this.bytes
    if (endKind === 'block') segments.push({ end: total, check: this.check, trailer: null })
    return { output, info: { start: this.start, startKind: this.startKind, end, endKind, reason, symbols: this.symbols, segments, points: this.points } }
  }
}
