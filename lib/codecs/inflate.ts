/**
 * A resumable raw DEFLATE decoder (RFC 1951) for the span contract.
 *
 * Two loops share one state object:
 * - a slow state machine (`run`) that can stop and resume at any bit of the input and
 *   any byte of the output; it pulls input bytes into the bit buffer only when the
 *   next field cannot be decoded with the bits it holds, so the bit buffer never holds
 *   a whole byte between steps (`bits < 8`) and the end of the stream is found at its
 *   exact byte;
 * - a fast inner loop (`fast`, in the spirit of zlib's inflate_fast) used while at
 *   least `FAST_IN` input bytes and 258 bytes of output room remain, which refills
 *   16 bits at a time without bounds checks and gives back the whole bytes it read
 *   ahead when it stops.
 *
 * Dynamic block headers are parsed as one unit by inflate-dynamic-header.ts, the parser
 * the wasm engine uses too (the same messages and offsets); a header the input ends
 * inside is gathered in `headerBytes` and parsed again when more input arrives.
 *
 * Output goes straight into the caller's `dst`. A 32 KiB ring (`window`) keeps the
 * history of earlier calls, so a match may reach back across calls (RFC 1951 section
 * 2.2: distances up to 32768). A preset dictionary is the ring's initial content.
 */
import type { Failure } from '../errors.js'
import { Status } from '../status.js'
import { DYNAMIC_HEADER_MAX_BYTES, HEADER_ERROR, HEADER_NEED, parseDynamicHeader, type DynamicHeaderState } from './inflate-dynamic-header.js'
import { DIST_TABLE_SIZE, fixedCodeTables, KIND_BASE, KIND_END, KIND_LINK, KIND_LITERAL, KIND_MASK, LIT_TABLE_SIZE } from './inflate-tables.js'
import type { BlockObserver, IndexableBody } from './inflate-observer.js'

/** States of the slow machine. */
const enum Mode {
  /** Reading BFINAL and BTYPE (3 bits). */
  BlockHeader,
  /** Stored block: reading LEN (16 bits, after dropping bits to the byte boundary). */
  StoredLength,
  /** Stored block: reading NLEN (16 bits). */
  StoredComplement,
  /** Stored block: copying `storedRemaining` bytes. */
  StoredCopy,
  /** Dynamic block: its header (inflate-dynamic-header.ts), gathered in `headerBytes` across calls. */
  DynamicHeader,
  /** Compressed block: next literal/length symbol. */
  Codes,
  /** Extra bits of a length. */
  LengthExtra,
  /** Distance symbol. */
  Distance,
  /** Extra bits of a distance. */
  DistanceExtra,
  /** Copying a match (`copyLength` bytes from `copyDistance` back). */
  Copy,
  /** A literal was decoded but `dst` was full. */
  Literal,
  /** The final block ended. */
  Done,
  /** Invalid data was found; `failure` is set. */
  Bad,
}

const WINDOW_SIZE = 32768
const WINDOW_MASK = WINDOW_SIZE - 1
/** Most input one fast-loop iteration reads: four 2-byte refills. */
const FAST_IN = 8
/** Longest match (RFC 1951 section 3.2.5). */
const MAX_MATCH = 258

/**
 * The entry for the code at the front of `hold`, or -1 when `bits` are not enough to
 * tell (the slow machine then pulls another byte).
 */
function peek(table: Int32Array, root: number, hold: number, bits: number): number {
  let e = table[hold & ((1 << root) - 1)]!
  if ((e & KIND_MASK) === KIND_LINK) {
    if (bits < root) return -1
    e = table[(e >>> 16) + ((hold >>> root) & ((1 << ((e >>> 4) & 15)) - 1))]!
  }
  return (e & 15) <= bits ? e : -1
}

/** Outcome of the fast loop. */
const enum Fast {
  /** Ran out of input or output margin. */
  Limit,
  /** Decoded an end-of-block symbol. */
  EndOfBlock,
  /** Invalid data; `failure` is set. */
  Error,
}

export class Inflater implements DynamicHeaderState, IndexableBody {
  /** Bit buffer: the next `bits` input bits, LSB first; bits above `bits` are 0. */
  hold = 0
  /** Number of valid bits in `hold` (< 8 between steps of the slow machine). */
  bits = 0
  mode: Mode = Mode.BlockHeader
  /** The current block has BFINAL set. */
  lastBlock = false
  /** Stored block: LEN read from the header, or bytes still to copy. */
  storedRemaining = 0
  /** The dynamic header parser's code lengths and code length table (inflate-dynamic-header.ts). */
  readonly lens = new Uint8Array(19 + 286 + 30)
  readonly clenTable = new Int32Array(128)
  /** From the header parser: the bit where a header proved invalid, and why. */
  errorBit = 0
  errorMessage = ''
  /**
   * A dynamic header the input ended inside: its bytes so far (`headerLength`, from the
   * one holding its first bit, at `headerBit`), parsed again when more arrive.
   */
  headerBytes: Uint8Array | null = null
  headerLength = 0
  headerBit = 0
  /** Storage for dynamic literal/length and distance tables. */
  readonly dynLit = new Int32Array(LIT_TABLE_SIZE)
  readonly dynDist = new Int32Array(DIST_TABLE_SIZE)
  /** Tables of the current block (the dynamic ones or the shared fixed ones) and their root widths. */
  litTable: Int32Array = this.dynLit
  distTable: Int32Array = this.dynDist
  litBits = 0
  distBits = 0
  /** Extra bits still to read for the length or distance in progress. */
  extraBits = 0
  /** Match in progress: bytes still to copy, and from how far back. */
  copyLength = 0
  copyDistance = 0
  /** A literal decoded while `dst` was full. */
  pendingLiteral = 0
  /** Ring of the last `windowFill` output bytes written by earlier calls; next write at `windowNext`. */
  readonly window = new Uint8Array(WINDOW_SIZE)
  windowNext = 0
  windowFill = 0
  /** Where the last `run` stopped in `src` and `dst`. */
  inPos = 0
  outPos = 0
  failure: Failure | null = null
  /** Told of each block start (inflate-observer.ts); null when no one asked. */
  observer: BlockObserver | null = null
  /** Output since reset, up to the last `run` (the block observer's `out`). */
  private produced = 0
  /** The block start at the current BlockHeader was reported (the header may span calls). */
  private reported = false
  /** Bits of the first input byte to skip (`skipBits`), applied by the next `run`. */
  private skip = 0
  /** During `observer.block`: this call's output so far, `curDst[curFrom..curTo)`, for `history()`. */
  private curDst: Uint8Array | null = null
  private curFrom = 0
  private curTo = 0

  reset(): void {
    this.hold = 0
    this.bits = 0
    this.mode = Mode.BlockHeader
    this.lastBlock = false
    this.copyLength = 0
    this.headerLength = 0
    this.windowNext = 0
    this.windowFill = 0
    this.failure = null
    this.produced = 0
    this.reported = false
    this.skip = 0
  }

  skipBits(bits: number): void {
    this.skip = bits & 7
  }

  history(): Uint8Array {
    const cur = this.curDst === null ? 0 : this.curTo - this.curFrom
    const n = Math.min(WINDOW_SIZE, this.windowFill + cur)
    const out = new Uint8Array(n)
    const fromRing = n - Math.min(cur, n)
    const p = (this.windowNext - fromRing) & WINDOW_MASK
    const first = Math.min(fromRing, WINDOW_SIZE - p)
    out.set(this.window.subarray(p, p + first), 0)
    out.set(this.window.subarray(0, fromRing - first), first)
    if (n > fromRing) out.set(this.curDst!.subarray(this.curTo - (n - fromRing), this.curTo), fromRing)
    return out
  }

  /** Tells the observer of the block starting at stream bit `bit`, after dst[outStart..o) of this call. */
  private report(bit: number, dst: Uint8Array, outStart: number, o: number): void {
    this.reported = true
    this.curDst = dst
    this.curFrom = outStart
    this.curTo = o
    try {
      this.observer!.block(bit, this.produced + (o - outStart))
    } finally {
      this.curDst = null
    }
  }

  /** The last 32 KiB of `dictionary` become the history (call after `reset()`). */
  preset(dictionary: Uint8Array): void {
    const tail = dictionary.subarray(Math.max(0, dictionary.length - WINDOW_SIZE))
    this.window.set(tail, 0)
    this.windowNext = tail.length & WINDOW_MASK
    this.windowFill = tail.length
  }

  /** True once the final block has ended. */
  get done(): boolean {
    return this.mode === Mode.Done
  }

  private fail(message: string, offset: number): Status {
    this.mode = Mode.Bad
    this.failure = { code: 'INVALID_DATA', message, offset }
    return Status.InvalidData
  }

  /**
   * Decodes from `src[inStart..)` into `dst[outStart..)`. Sets `inPos`/`outPos`.
   * `inBase` is the offset of `src[0]` in the stream (for failure offsets).
   * Returns Done at the end of the final block (bytes after it unconsumed),
   * NeedMoreData, DestinationTooSmall or InvalidData.
   */
  run(src: Uint8Array, inStart: number, dst: Uint8Array, outStart: number, inBase: number): Status {
    if (this.skip !== 0 && inStart < src.length) {
      // Starting inside a byte (skipBits): its first bits belong to the block before.
      this.hold = src[inStart]! >>> this.skip
      this.bits = 8 - this.skip
      this.skip = 0
      inStart++
    }
    const status = this.step(src, inStart, dst, outStart, inBase)
    if (this.outPos > outStart) {
      this.remember(dst, outStart, this.outPos)
      this.produced += this.outPos - outStart
    }
    return status
  }

  /** Appends dst[start..end) to the history ring. */
  private remember(dst: Uint8Array, start: number, end: number): void {
    const n = end - start
    const w = this.window
    if (n >= WINDOW_SIZE) {
      w.set(dst.subarray(end - WINDOW_SIZE, end), 0)
      this.windowNext = 0
      this.windowFill = WINDOW_SIZE
      return
    }
    const first = Math.min(n, WINDOW_SIZE - this.windowNext)
    w.set(dst.subarray(start, start + first), this.windowNext)
    if (first < n) w.set(dst.subarray(start + first, end), 0)
    this.windowNext = (this.windowNext + n) & WINDOW_MASK
    this.windowFill = Math.min(WINDOW_SIZE, this.windowFill + n)
  }

  /**
   * Copies a match of `length` bytes from `distance` back to dst[o..). The caller has
   * checked the room and that the distance is within the history. Returns the new o.
   */
  private copyMatch(dst: Uint8Array, o: number, outStart: number, length: number, distance: number): number {
    const inDst = o - outStart
    if (distance > inDst) {
      // The first bytes come from the ring of earlier calls.
      const back = distance - inDst
      const w = this.window
      let p = (this.windowNext - back) & WINDOW_MASK
      let k = Math.min(length, back)
      length -= k
      while (k-- > 0) {
        dst[o++] = w[p]!
        p = (p + 1) & WINDOW_MASK
      }
    }
    let from = o - distance
    if (length > 32 && distance >= length) {
      dst.copyWithin(o, from, from + length)
      return o + length
    }
    const end = o + length
    while (o < end) dst[o++] = dst[from++]!
    return o
  }

  private step(src: Uint8Array, inStart: number, dst: Uint8Array, outStart: number, inBase: number): Status {
    let hold = this.hold
    let bits = this.bits
    let i = inStart
    let o = outStart
    const inEnd = src.length
    const outEnd = dst.length
    // Every `break outer` that does not set another status means the input ran out.
    let status: Status = Status.NeedMoreData
    outer: for (;;) {
      switch (this.mode) {
        case Mode.BlockHeader: {
          if (this.observer !== null && !this.reported) this.report((inBase + i) * 8 - bits, dst, outStart, o)
          while (bits < 3) {
            if (i >= inEnd) break outer
            hold |= src[i++]! << bits
            bits += 8
          }
          this.lastBlock = (hold & 1) === 1
          const type = (hold >>> 1) & 3
          hold >>>= 3
          bits -= 3
          this.reported = false
          if (type === 0) {
            // RFC 1951 section 3.2.4: skip to the byte boundary, then LEN and NLEN.
            hold >>>= bits & 7
            bits -= bits & 7
            this.mode = Mode.StoredLength
          } else if (type === 1) {
            const fixed = fixedCodeTables()
            this.litTable = fixed.lit
            this.distTable = fixed.dist
            this.litBits = 9
            this.distBits = 5
            this.mode = Mode.Codes
          } else if (type === 2) {
            this.mode = Mode.DynamicHeader
          } else {
            status = this.fail('invalid block type 3 (reserved, RFC 1951 section 3.2.3)', inBase + i - 1)
            break outer
          }
          continue
        }
        case Mode.StoredLength:
        case Mode.StoredComplement: {
          while (bits < 16) {
            // NLEN's first byte can already contradict LEN: say so now rather than
            // ask for a byte that cannot help.
            if (this.mode === Mode.StoredComplement && bits >= 8 && ((hold ^ this.storedRemaining) & 0xff) !== 0xff) {
              status = this.fail(`stored block length ${this.storedRemaining} does not match its complement (RFC 1951 section 3.2.4)`, inBase + i - 1)
              break outer
            }
            if (i >= inEnd) break outer
            hold |= src[i++]! << bits
            bits += 8
          }
          const value = hold & 0xffff
          hold >>>= 16
          bits -= 16
          if (this.mode === Mode.StoredLength) {
            this.storedRemaining = value
            this.mode = Mode.StoredComplement
          } else {
            if ((value ^ 0xffff) !== this.storedRemaining) {
              status = this.fail(
                `stored block length ${this.storedRemaining} does not match its complement ${value ^ 0xffff} (RFC 1951 section 3.2.4)`,
                inBase + i - 2,
              )
              break outer
            }
            this.mode = this.storedRemaining > 0 ? Mode.StoredCopy : this.lastBlock ? Mode.Done : Mode.BlockHeader
          }
          continue
        }
        case Mode.StoredCopy: {
          // bits is 0 here: the byte boundary was reached before LEN.
          const n = Math.min(this.storedRemaining, inEnd - i, outEnd - o)
          dst.set(src.subarray(i, i + n), o)
          i += n
          o += n
          this.storedRemaining -= n
          if (this.storedRemaining > 0) {
            status = o >= outEnd ? Status.DestinationTooSmall : Status.NeedMoreData
            break outer
          }
          this.mode = this.lastBlock ? Mode.Done : Mode.BlockHeader
          continue
        }
        case Mode.DynamicHeader: {
          // RFC 1951 section 3.2.7, parsed as one unit (inflate-dynamic-header.ts): in
          // `src` when the header starts in it (the bits in `hold` are the top of
          // src[i - 1]), else in `headerBytes`, which gathers its bytes across calls.
          const direct = this.headerLength === 0 && (bits === 0 || i > inStart)
          let h = src
          let p = i * 8 - bits
          let before = 0
          let end = inEnd
          if (!direct) {
            h = this.headerBytes ??= new Uint8Array(DYNAMIC_HEADER_MAX_BYTES)
            if (this.headerLength === 0) {
              // Bits of a byte of an earlier call: put them back into a byte of their own.
              h[0] = (hold << (8 - bits)) & 0xff
              this.headerLength = 1
              this.headerBit = 8 - bits
            }
            // At most DYNAMIC_HEADER_MAX_BYTES in all: a header never needs more.
            before = this.headerLength
            end = Math.min(before + inEnd - i, h.length)
            h.set(src.subarray(i, i + end - before), before)
            p = this.headerBit
          }
          const r = parseDynamicHeader(h, p, end * 8, this, this.dynLit, this.dynDist)
          if (r === HEADER_ERROR) {
            // Consumed up to the byte holding the bit that proved it, as bit by bit.
            i += Math.max(0, ((this.errorBit + 7) >>> 3) - before - (direct ? i : 0))
            status = this.fail(this.errorMessage, inBase + i - 1)
            break outer
          }
          if (r === HEADER_NEED) {
            if (direct) {
              // Keep the header's bytes from the one holding its first bit.
              const from = p >>> 3
              h = this.headerBytes ??= new Uint8Array(DYNAMIC_HEADER_MAX_BYTES)
              h.set(src.subarray(from, inEnd))
              this.headerLength = inEnd - from
              this.headerBit = p & 7
            } else {
              this.headerLength = end
            }
            i = inEnd // all of it: the header's bytes are in `headerBytes`
            hold = 0
            bits = 0
            break outer
          }
          // Resume bit by bit after the header: whole bytes consumed, the rest in `hold`.
          const used = (r + 7) >>> 3
          i = direct ? used : i + used - before
          bits = used * 8 - r
          hold = bits === 0 ? 0 : h[used - 1]! >>> (8 - bits)
          this.headerLength = 0
          // The parser set litBits and distBits.
          this.litTable = this.dynLit
          this.distTable = this.dynDist
          this.mode = Mode.Codes
          continue
        }
        case Mode.Codes: {
          if (inEnd - i >= FAST_IN && outEnd - o >= MAX_MATCH) {
            this.hold = hold
            this.bits = bits
            const r = this.fast(src, i, dst, o, outStart, inBase)
            hold = this.hold
            bits = this.bits
            i = this.inPos
            o = this.outPos
            if (r === Fast.Error) {
              status = Status.InvalidData
              break outer
            }
            if (r === Fast.EndOfBlock) {
              this.mode = this.lastBlock ? Mode.Done : Mode.BlockHeader
              continue
            }
            if (inEnd - i >= FAST_IN && outEnd - o >= MAX_MATCH) continue
          }
          let entry: number
          while ((entry = peek(this.litTable, this.litBits, hold, bits)) < 0) {
            if (i >= inEnd) break outer
            hold |= src[i++]! << bits
            bits += 8
          }
          hold >>>= entry & 15
          bits -= entry & 15
          const kind = entry & KIND_MASK
          if (kind === KIND_LITERAL) {
            if (o < outEnd) {
              dst[o++] = entry >>> 16
            } else {
              this.pendingLiteral = entry >>> 16
              this.mode = Mode.Literal
            }
            continue
          }
          if (kind === KIND_END) {
            this.mode = this.lastBlock ? Mode.Done : Mode.BlockHeader
            continue
          }
          if (kind !== KIND_BASE) {
            status = this.fail('invalid literal/length code', inBase + i - 1)
            break outer
          }
          this.copyLength = entry >>> 16
          this.extraBits = (entry >>> 4) & 15
          this.mode = Mode.LengthExtra
          continue
        }
        case Mode.LengthExtra: {
          const extra = this.extraBits
          while (bits < extra) {
            if (i >= inEnd) break outer
            hold |= src[i++]! << bits
            bits += 8
          }
          this.copyLength += hold & ((1 << extra) - 1)
          hold >>>= extra
          bits -= extra
          this.mode = Mode.Distance
          continue
        }
        case Mode.Distance: {
          let entry: number
          while ((entry = peek(this.distTable, this.distBits, hold, bits)) < 0) {
            if (i >= inEnd) break outer
            hold |= src[i++]! << bits
            bits += 8
          }
          hold >>>= entry & 15
          bits -= entry & 15
          if ((entry & KIND_MASK) !== KIND_BASE) {
            status = this.fail('invalid distance code', inBase + i - 1)
            break outer
          }
          this.copyDistance = entry >>> 16
          this.extraBits = (entry >>> 4) & 15
          this.mode = Mode.DistanceExtra
          continue
        }
        case Mode.DistanceExtra: {
          const extra = this.extraBits
          while (bits < extra) {
            if (i >= inEnd) break outer
            hold |= src[i++]! << bits
            bits += 8
          }
          const distance = this.copyDistance + (hold & ((1 << extra) - 1))
          hold >>>= extra
          bits -= extra
          if (distance > this.windowFill + (o - outStart)) {
            status = this.fail(`distance ${distance} is farther back than the ${this.windowFill + (o - outStart)} bytes decoded so far`, inBase + i - 1)
            break outer
          }
          this.copyDistance = distance
          this.mode = Mode.Copy
          continue
        }
        case Mode.Copy: {
          const n = Math.min(this.copyLength, outEnd - o)
          if (n > 0) {
            o = this.copyMatch(dst, o, outStart, n, this.copyDistance)
            this.copyLength -= n
          }
          if (this.copyLength > 0) {
            // The history ring must hold what was written so far before the next call
            // continues the match; run() does that on return.
            status = Status.DestinationTooSmall
            break outer
          }
          this.mode = Mode.Codes
          continue
        }
        case Mode.Literal: {
          if (o >= outEnd) {
            status = Status.DestinationTooSmall
            break outer
          }
          dst[o++] = this.pendingLiteral
          this.mode = Mode.Codes
          continue
        }
        case Mode.Done: {
          // bits < 8 here: drop the padding of the last byte (RFC 1951 section 3.2.4).
          hold = 0
          bits = 0
          status = Status.Done
          break outer
        }
        case Mode.Bad:
        default: {
          status = Status.InvalidData
          break outer
        }
      }
    }
    this.hold = hold
    this.bits = bits
    this.inPos = i
    this.outPos = o
    return status
  }

  /**
   * The fast loop: decodes literal/length + distance pairs while at least FAST_IN input
   * bytes and MAX_MATCH output bytes remain, so no bounds checks are needed inside.
   * Reads 16 bits at a time; on exit returns the whole bytes it read ahead (it was
   * entered with bits < 8, so they all come from this call's `src`).
   */
  private fast(src: Uint8Array, i: number, dst: Uint8Array, o: number, outStart: number, inBase: number): Fast {
    let hold = this.hold
    let bits = this.bits
    const inLimit = src.length - FAST_IN
    const outLimit = dst.length - MAX_MATCH
    const lit = this.litTable
    const dist = this.distTable
    const litRoot = this.litBits
    const distRoot = this.distBits
    const litMask = (1 << litRoot) - 1
    const distMask = (1 << distRoot) - 1
    const windowFill = this.windowFill
    let result = Fast.Limit
    while (i <= inLimit && o <= outLimit) {
      if (bits < 15) {
        hold |= (src[i]! | (src[i + 1]! << 8)) << bits
        i += 2
        bits += 16
      }
      let entry = lit[hold & litMask]!
      if ((entry & KIND_MASK) === KIND_LINK) entry = lit[(entry >>> 16) + ((hold >>> litRoot) & ((1 << ((entry >>> 4) & 15)) - 1))]!
      let n = entry & 15
      hold >>>= n
      bits -= n
      let kind = entry & KIND_MASK
      if (kind === KIND_LITERAL) {
        dst[o++] = entry >>> 16
        continue
      }
      if (kind !== KIND_BASE) {
        if (kind === KIND_END) {
          result = Fast.EndOfBlock
        } else {
          this.fail('invalid literal/length code', inBase + i - 1)
          result = Fast.Error
        }
        break
      }
      let length = entry >>> 16
      let extra = (entry >>> 4) & 15
      if (extra !== 0) {
        if (bits < extra) {
          hold |= (src[i]! | (src[i + 1]! << 8)) << bits
          i += 2
          bits += 16
        }
        length += hold & ((1 << extra) - 1)
        hold >>>= extra
        bits -= extra
      }
      if (bits < 15) {
        hold |= (src[i]! | (src[i + 1]! << 8)) << bits
        i += 2
        bits += 16
      }
      entry = dist[hold & distMask]!
      if ((entry & KIND_MASK) === KIND_LINK) entry = dist[(entry >>> 16) + ((hold >>> distRoot) & ((1 << ((entry >>> 4) & 15)) - 1))]!
      n = entry & 15
      hold >>>= n
      bits -= n
      kind = entry & KIND_MASK
      if (kind !== KIND_BASE) {
        this.fail('invalid distance code', inBase + i - 1)
        result = Fast.Error
        break
      }
      let distance = entry >>> 16
      extra = (entry >>> 4) & 15
      if (extra !== 0) {
        if (bits < extra) {
          hold |= (src[i]! | (src[i + 1]! << 8)) << bits
          i += 2
          bits += 16
        }
        distance += hold & ((1 << extra) - 1)
        hold >>>= extra
        bits -= extra
      }
      const inDst = o - outStart
      if (distance <= inDst) {
        let from = o - distance
        if (length > 32 && distance >= length) {
          dst.copyWithin(o, from, from + length)
          o += length
        } else {
          const end = o + length
          while (o < end) dst[o++] = dst[from++]!
        }
      } else {
        if (distance > windowFill + inDst) {
          this.fail(`distance ${distance} is farther back than the ${windowFill + inDst} bytes decoded so far`, inBase + i - 1)
          result = Fast.Error
          break
        }
        o = this.copyMatch(dst, o, outStart, length, distance)
      }
    }
    // Give back whole bytes read ahead; keep the bits above `bits` zero.
    const back = bits >>> 3
    i -= back
    bits -= back << 3
    hold &= (1 << bits) - 1
    this.hold = hold
    this.bits = bits
    this.inPos = i
    this.outPos = o
    return result
  }
}
