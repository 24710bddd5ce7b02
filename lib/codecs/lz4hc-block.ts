/**
 * LZ4 HC: the high-compression block compressor of LZ4 levels 3 to 12, in TypeScript
 * (the `'js'` engine and the raw block encoder; the wasm engine runs the same search in
 * wasm/lz4hc.wat, writing the same bytes). It writes the same LZ4 blocks as the
 * reference's `lz4 -3` ... `lz4 -12` (lz4 1.9.4, lib/lz4hc.c) for independent blocks:
 *
 * - a hash chain: a 2^15-entry table of the newest position of each 4-byte hash and, per
 *   position, the distance back to the previous one with the same hash (16 bits, a
 *   64 KiB ring: LZ4 offsets reach back at most 65535 bytes);
 * - levels 3-9 (`SEARCHES`): lazy matching over the chain, 4 to 256 candidates per
 *   search; a match is kept, shortened or dropped after looking for a longer one that
 *   starts inside it (up to three overlapping matches at once). Level 9 also skips
 *   through runs of one byte value instead of walking them a position at a time;
 * - levels 10-12: optimal parsing. From a match, the cheapest way (in output bytes:
 *   token, literals and their length bytes, offset, match length bytes) to reach each
 *   position up to 4096 bytes ahead is computed from the matches found there, and the
 *   cheapest path is written. Level 10 searches 96 candidates and stops at matches of
 *   64 bytes, 11 searches 512 and stops at 128, 12 searches 16384, goes to 4095 and
 *   searches at more positions. These levels also jump along the chain of a later
 *   position inside the current best match (a rarer 4-byte sequence reaches the
 *   candidates that can be longer sooner).
 *
 * Positions are indices from `BASE` (the block's first byte), so that the table's
 * cleared entries (0) are out of reach. Output room is checked as the reference checks
 * it (a sequence needs its literals and 8 more bytes, the last literals their own
 * room), so a block that would not shrink is refused at the same point.
 */

/** First level of the optimal parser. */
const OPT_MIN_LEVEL = 10

/** Candidates searched per match, by level. */
const SEARCHES: Readonly<Record<number, number>> = { 3: 4, 4: 8, 5: 16, 6: 32, 7: 64, 8: 128, 9: 256, 10: 96, 11: 512, 12: 16384 }
/** The optimal parser's "good enough" match length, by level: longer ones are taken as they are. */
const TARGET_LENGTH: Readonly<Record<number, number>> = { 10: 64, 11: 128, 12: 4096 }

const HASH_LOG = 15
/** Chain entries: one per position in a 64 KiB ring (the largest offset is 65535). */
const CHAIN_SIZE = 0x10000
const MAX_DISTANCE = 65535
/** Index of a block's first byte: the cleared table's zeros lie more than 64 KiB before it. */
const BASE = 0x10000
const MIN_MATCH = 4
/** Block format "End of block conditions": the last 5 bytes are literals ... */
const LAST_LITERALS = 5
/** ... and the last match starts at least 12 bytes before the end. */
const MF_LIMIT = 12
/** Longest match length held in the token alone (15 + 4 - 1): the lazy search's cut point. */
const OPTIMAL_ML = 18
/** Positions the optimal parser prices ahead of the current one. */
const OPT_NUM = 4096
/** Literal positions priced past the last match. */
const TRAILING_LITERALS = 3

/** The tables of one HC compressor; reused from block to block (about 400 KB with the optimal parser's). */
export interface HcState {
  /** Newest index of each 4-byte hash. */
  readonly hashTable: Uint32Array
  /** Distance from an index (mod 2^16) back to the previous one with the same hash. */
  readonly chainTable: Uint16Array
  /** The optimal parser's path (levels 10-12), allocated on first use: price, match length (1: literal), offset, literal run. */
  opt: { price: Int32Array; mlen: Int32Array; off: Int32Array; litlen: Int32Array } | null
}

/** Tables for `encodeBlockHC`. */
export function createHcState(): HcState {
  return { hashTable: new Uint32Array(1 << HASH_LOG), chainTable: new Uint16Array(CHAIN_SIZE), opt: null }
}

/** Output bytes of a literal run: the bytes, and the length bytes past the token's 15. */
function literalsPrice(litlen: number): number {
  return litlen >= 15 ? litlen + 1 + ((litlen - 15) / 255 | 0) : litlen
}

/** Match length bytes past the token's 15 + 4. */
function matchPrice(mlen: number): number {
  return mlen >= 19 ? 1 + ((mlen - 19) / 255 | 0) : 0
}

/** One block's compression: the input, the output and the search state. */
class HcBlock {
  private readonly view: DataView
  /** Index of src[p] is p + delta. */
  private readonly delta: number
  private readonly start: number
  private readonly hashTable: Uint32Array
  private readonly chain: Uint16Array
  /** Next index to insert into the chain. */
  private nextToUpdate = BASE
  op: number
  anchor: number
  /** Results of `widerMatch`: where the match starts in the input and where it refers to. */
  matchPos = 0
  startPos = 0

  constructor(
    private readonly src: Uint8Array,
    srcStart: number,
    private readonly dst: Uint8Array,
    dstStart: number,
    private readonly dstEnd: number,
    state: HcState,
  ) {
    this.view = new DataView(src.buffer, src.byteOffset, src.byteLength)
    this.start = srcStart
    this.delta = BASE - srcStart
    this.hashTable = state.hashTable
    this.chain = state.chainTable
    this.hashTable.fill(0)
    this.op = dstStart
    this.anchor = srcStart
  }

  private read32(p: number): number {
    return this.view.getInt32(p, true)
  }

  private hashAt(p: number): number {
    return Math.imul(this.view.getInt32(p, true), 0x9e3779b1) >>> (32 - HASH_LOG)
  }

  /** Adds the positions before `p` to the chain. */
  private insert(p: number): void {
    const target = p + this.delta
    const hashTable = this.hashTable
    const chain = this.chain
    for (let idx = this.nextToUpdate; idx < target; idx++) {
      const h = this.hashAt(idx - this.delta)
      const d = idx - hashTable[h]!
      chain[idx & 0xffff] = d > MAX_DISTANCE ? MAX_DISTANCE : d
      hashTable[h] = idx
    }
    if (target > this.nextToUpdate) this.nextToUpdate = target
  }

  /** Length of the common run of `src[a...]` and `src[b...]`, stopping at `limit` (for a). */
  private count(a: number, b: number, limit: number): number {
    const src = this.src
    const from = a
    while (a < limit - 3 && this.view.getInt32(a, true) === this.view.getInt32(b, true)) {
      a += 4
      b += 4
    }
    while (a < limit && src[a] === src[b]) {
      a++
      b++
    }
    return a - from
  }

  /** Bytes equal to `byte` from p on, stopping at `limit`. */
  private run(p: number, limit: number, byte: number): number {
    const src = this.src
    const from = p
    while (p < limit && src[p] === byte) p++
    return p - from
  }

  /** Bytes equal to `byte` right before p, stopping at `low`. */
  private runBack(p: number, low: number, byte: number): number {
    const src = this.src
    const from = p
    while (p > low && src[p - 1] === byte) p--
    return from - p
  }

  /**
   * Searches the chain of `ip` for a match longer than `longest` that may start as far
   * back as `iLow` and ends by `iHigh`; at most `searches` candidates. Returns the best
   * length (`longest` when none is longer), its start in `startPos` and its source in
   * `matchPos`. `runs`: skip through one-byte runs; `chainSwap`: follow the chain of a
   * later position inside the best match (forward searches only, iLow === ip).
   */
  widerMatch(ip: number, iLow: number, iHigh: number, longest: number, searches: number, runs: boolean, chainSwap: boolean): number {
    const src = this.src
    const chain = this.chain
    const delta = this.delta
    const ipIndex = ip + delta
    const lowest = ipIndex - MAX_DISTANCE > BASE ? ipIndex - MAX_DISTANCE : BASE
    const lookBack = ip - iLow
    const pattern = this.read32(ip)
    let attempts = searches
    let chainPos = 0
    /** 0: not looked at, 1: ip does not start a run of one byte, 2: it does. */
    let repeat = 0
    let srcRun = 0
    this.insert(ip)
    let matchIndex = this.hashTable[this.hashAt(ip)]!
    while (matchIndex >= lowest && attempts > 0) {
      let length = 0
      attempts--
      const m = matchIndex - delta
      // A candidate can only be longer if it agrees at the current length's last two bytes.
      if (src[iLow + longest - 1] === src[m - lookBack + longest - 1] && src[iLow + longest] === src[m - lookBack + longest] && this.read32(m) === pattern) {
        let back = 0
        if (lookBack > 0) {
          const min = Math.max(iLow - ip, this.start - m)
          while (back > min && src[ip + back - 1] === src[m + back - 1]) back--
        }
        length = MIN_MATCH + this.count(ip + MIN_MATCH, m + MIN_MATCH, iHigh) - back
        if (length > longest) {
          longest = length
          this.matchPos = m + back
          this.startPos = ip + back
        }
      }
      if (chainSwap && length === longest && matchIndex + longest <= ipIndex) {
        // Of the positions inside the match, follow the one whose previous occurrence is
        // farthest back: candidates nearer than that cannot match as long.
        let farthest = 1
        const end = longest - MIN_MATCH + 1
        let accel = 16
        for (let pos = 0, step = 1; pos < end; pos += step) {
          const d = chain[(matchIndex + pos) & 0xffff]!
          step = accel++ >> 4
          if (d > farthest) {
            farthest = d
            chainPos = pos
            accel = 16
          }
        }
        if (farthest > 1) {
          if (farthest > matchIndex) break
          matchIndex -= farthest
          continue
        }
      }
      if (runs && chainPos === 0 && chain[matchIndex & 0xffff] === 1) {
        // The previous candidate is 1 byte back: ip may start a run of one byte value.
        // Jump over the run at the candidate instead of walking it position by position.
        if (repeat === 0) {
          if ((pattern & 0xffff) === pattern >>> 16 && (pattern & 0xff) === pattern >>> 24) {
            repeat = 2
            srcRun = MIN_MATCH + this.run(ip + MIN_MATCH, iHigh, pattern & 0xff)
          } else repeat = 1
        }
        const candidate = matchIndex - 1
        if (repeat === 2 && candidate >= lowest) {
          const c = candidate - delta
          if (this.read32(c) === pattern) {
            const byte = pattern & 0xff
            const forward = MIN_MATCH + this.run(c + MIN_MATCH, iHigh, byte)
            let backward = this.runBack(c, this.start, byte)
            backward = candidate - Math.max(candidate - backward, lowest)
            const segment = backward + forward
            if (segment >= srcRun && forward <= srcRun) {
              // The run at the candidate is at least as long as ip's: its part that ends
              // where it ends may be followed by more matching bytes.
              matchIndex = candidate + forward - srcRun
            } else {
              matchIndex = candidate - backward
              if (lookBack === 0) {
                const ml = Math.min(segment, srcRun)
                if (longest < ml) {
                  if (ipIndex - matchIndex > MAX_DISTANCE) break
                  longest = ml
                  this.matchPos = matchIndex - delta
                  this.startPos = ip
                }
                const d = chain[matchIndex & 0xffff]!
                if (d > matchIndex) break
                matchIndex -= d
              }
            }
            continue
          }
        }
      }
      matchIndex -= chain[(matchIndex + chainPos) & 0xffff]!
    }
    return longest
  }

  /**
   * Writes the sequence of the literals since `anchor` and the match `ip` ... `ip + ml`
   * from `ref`; returns false when the output room check fails.
   */
  sequence(ip: number, ml: number, ref: number): boolean {
    const dst = this.dst
    let op = this.op
    const ll = ip - this.anchor
    if (op + ((ll / 255) | 0) + ll + 2 + 1 + LAST_LITERALS > this.dstEnd) return false
    const token = op++
    if (ll >= 15) {
      let n = ll - 15
      for (; n >= 255; n -= 255) dst[op++] = 255
      dst[op++] = n
      dst[token] = 0xf0
    } else dst[token] = ll << 4
    if (ll > 32) dst.set(this.src.subarray(this.anchor, ip), op)
    else for (let k = 0; k < ll; k++) dst[op + k] = this.src[this.anchor + k]!
    op += ll
    const offset = ip - ref
    dst[op++] = offset
    dst[op++] = offset >>> 8
    let n = ml - MIN_MATCH
    if (op + ((n / 255) | 0) + 1 + LAST_LITERALS > this.dstEnd) return false
    if (n >= 15) {
      dst[token] |= 15
      for (n -= 15; n >= 255; n -= 255) dst[op++] = 255
      dst[op++] = n
    } else dst[token] |= n
    this.op = op
    this.anchor = ip + ml
    return true
  }

  /** Writes the last literals (`anchor` to `end`); returns false when they do not fit. */
  lastLiterals(end: number): boolean {
    const dst = this.dst
    const n = end - this.anchor
    let op = this.op
    if (op + 1 + ((n + 240) / 255 | 0) + n > this.dstEnd) return false
    if (n >= 15) {
      dst[op++] = 0xf0
      let k = n - 15
      for (; k >= 255; k -= 255) dst[op++] = 255
      dst[op++] = k
    } else dst[op++] = n << 4
    dst.set(this.src.subarray(this.anchor, end), op)
    this.op = op + n
    return true
  }
}

/**
 * Lazy matching over the hash chain (levels 3-9): for each match found, one search for
 * a longer match starting inside it decides whether it is written whole, cut short or
 * dropped, keeping up to three candidates in flight. Returns false on output overflow.
 */
function hashChain(b: HcBlock, srcStart: number, srcEnd: number, searches: number): boolean {
  const runs = searches > 128
  const mfLimit = srcEnd - MF_LIMIT
  const matchLimit = srcEnd - LAST_LITERALS
  let ip = srcStart
  if (srcEnd - srcStart < MF_LIMIT + 1) return true
  while (ip <= mfLimit) {
    let ml = b.widerMatch(ip, ip, matchLimit, MIN_MATCH - 1, searches, runs, false)
    if (ml < MIN_MATCH) {
      ip++
      continue
    }
    let ref = b.matchPos
    // The first match as found, in case a later one makes it skip too far.
    let start0 = ip
    let ref0 = ref
    let ml0 = ml
    let start2 = 0
    let ref2 = 0
    let ml2 = 0
    let start3 = 0
    let ref3 = 0
    let ml3 = 0
    // 2: look for a match 2 that starts inside match 1; 3: for a match 3 inside match 2.
    let stage = 2
    for (;;) {
      if (stage === 2) {
        if (ip + ml <= mfLimit) {
          ml2 = b.widerMatch(ip + ml - 2, ip, matchLimit, ml, searches, runs, false)
          start2 = b.startPos
          ref2 = b.matchPos
        } else ml2 = ml
        if (ml2 === ml) {
          // No longer match: write match 1.
          if (!b.sequence(ip, ml, ref)) return false
          ip += ml
          break
        }
        if (start0 < ip && start2 < ip + ml0) {
          // Match 1 was moved forward, and match 2 starts inside the original: restore it.
          ip = start0
          ref = ref0
          ml = ml0
        }
        if (start2 - ip < 3) {
          // Match 1 would be too short before match 2: match 2 replaces it.
          ml = ml2
          ip = start2
          ref = ref2
          continue
        }
        stage = 3
      }
      // Here match 2 is longer than match 1 and starts at least 3 bytes after it.
      if (start2 - ip < OPTIMAL_ML) {
        // Keep match 1 up to 18 bytes (its length fits the token), match 2 after it.
        let newMl = ml > OPTIMAL_ML ? OPTIMAL_ML : ml
        if (ip + newMl > start2 + ml2 - MIN_MATCH) newMl = start2 - ip + ml2 - MIN_MATCH
        const correction = newMl - (start2 - ip)
        if (correction > 0) {
          start2 += correction
          ref2 += correction
          ml2 -= correction
        }
      }
      if (start2 + ml2 <= mfLimit) {
        ml3 = b.widerMatch(start2 + ml2 - 3, start2, matchLimit, ml2, searches, runs, false)
        start3 = b.startPos
        ref3 = b.matchPos
      } else ml3 = ml2
      if (ml3 === ml2) {
        // No match 3: write match 1 (cut where match 2 starts) and match 2.
        if (start2 < ip + ml) ml = start2 - ip
        if (!b.sequence(ip, ml, ref)) return false
        ip = start2
        if (!b.sequence(ip, ml2, ref2)) return false
        ip += ml2
        break
      }
      if (start3 < ip + ml + 3) {
        // Match 3 leaves no room for match 2.
        if (start3 >= ip + ml) {
          // Match 3 starts after match 1: write match 1; match 3 becomes match 1, what is
          // left of match 2 the fallback.
          if (start2 < ip + ml) {
            const correction = ip + ml - start2
            start2 += correction
            ref2 += correction
            ml2 -= correction
            if (ml2 < MIN_MATCH) {
              start2 = start3
              ref2 = ref3
              ml2 = ml3
            }
          }
          if (!b.sequence(ip, ml, ref)) return false
          ip = start3
          ref = ref3
          ml = ml3
          start0 = start2
          ref0 = ref2
          ml0 = ml2
          stage = 2
          continue
        }
        // Match 3 overlaps match 1: it replaces match 2.
        start2 = start3
        ref2 = ref3
        ml2 = ml3
        continue
      }
      // Three ascending matches: write match 1, cut before match 2; shift 2 and 3 down.
      if (start2 < ip + ml) {
        if (start2 - ip < OPTIMAL_ML) {
          if (ml > OPTIMAL_ML) ml = OPTIMAL_ML
          if (ip + ml > start2 + ml2 - MIN_MATCH) ml = start2 - ip + ml2 - MIN_MATCH
          const correction = ml - (start2 - ip)
          if (correction > 0) {
            start2 += correction
            ref2 += correction
            ml2 -= correction
          }
        } else ml = start2 - ip
      }
      if (!b.sequence(ip, ml, ref)) return false
      ip = start2
      ref = ref2
      ml = ml2
      start2 = start3
      ref2 = ref3
      ml2 = ml3
    }
  }
  return true
}

/**
 * Optimal parsing (levels 10-12): from each match found, prices every position up to
 * the end of the farthest match (at most `OPT_NUM` ahead) by the cheapest sequence of
 * literals and matches reaching it, then writes the cheapest path. Returns false on
 * output overflow.
 */
function optimal(b: HcBlock, state: HcState, srcStart: number, srcEnd: number, searches: number, targetLength: number, fullUpdate: boolean): boolean {
  const opt = (state.opt ??= {
    price: new Int32Array(OPT_NUM + TRAILING_LITERALS),
    mlen: new Int32Array(OPT_NUM + TRAILING_LITERALS),
    off: new Int32Array(OPT_NUM + TRAILING_LITERALS),
    litlen: new Int32Array(OPT_NUM + TRAILING_LITERALS),
  })
  const { price, mlen, off, litlen } = opt
  const mfLimit = srcEnd - MF_LIMIT
  const matchLimit = srcEnd - LAST_LITERALS
  const sufficient = targetLength >= OPT_NUM ? OPT_NUM - 1 : targetLength
  let ip = srcStart

  /** A match at p longer than minLen: its length (0: none), offset in `b.startPos - b.matchPos`. */
  const longer = (p: number, minLen: number): number => {
    const length = b.widerMatch(p, p, matchLimit, minLen, searches, true, true)
    return length > minLen ? length : 0
  }
  /** Marks `pos` as reached by a run of `run` literals at `cost`. */
  const literal = (pos: number, run: number, cost: number): void => {
    mlen[pos] = 1
    off[pos] = 0
    litlen[pos] = run
    price[pos] = cost
  }

  while (ip <= mfLimit) {
    const llen = ip - b.anchor
    const firstLen = longer(ip, MIN_MATCH - 1)
    if (firstLen === 0) {
      ip++
      continue
    }
    const firstOff = ip - b.matchPos
    if (firstLen > sufficient) {
      // Good enough: written at once.
      if (!b.sequence(ip, firstLen, ip - firstOff)) return false
      ip += firstLen
      continue
    }
    for (let r = 0; r < MIN_MATCH; r++) literal(r, llen + r, literalsPrice(llen + r))
    // A sequence costs its token and offset (3), its literals and its match length bytes.
    const firstBase = 3 + literalsPrice(llen)
    for (let m = MIN_MATCH; m <= firstLen; m++) {
      mlen[m] = m
      off[m] = firstOff
      litlen[m] = llen
      price[m] = firstBase + matchPrice(m)
    }
    let last = firstLen
    for (let a = 1; a <= TRAILING_LITERALS; a++) literal(last + a, a, price[last]! + literalsPrice(a))

    let bestLen = 0
    let bestOff = 0
    let cur = 1
    let immediate = false
    for (; cur < last; cur++) {
      const p = ip + cur
      if (p > mfLimit) break
      if (fullUpdate) {
        // Skip when the next position is no dearer, unless prices rise sharply after it.
        if (price[cur + 1]! <= price[cur]! && price[cur + MIN_MATCH]! < price[cur]! + 3) continue
      } else if (price[cur + 1]! <= price[cur]!) continue
      const len = longer(p, fullUpdate ? MIN_MATCH - 1 : last - cur)
      if (len === 0) continue
      const offset = p - b.matchPos
      if (len > sufficient || len + cur >= OPT_NUM) {
        // Long enough, or reaching past the window: written at once after the path so far.
        bestLen = len
        bestOff = offset
        last = cur + 1
        immediate = true
        break
      }
      // Literals after the path to cur.
      const baseLit = litlen[cur]!
      for (let l = 1; l < MIN_MATCH; l++) {
        const cost = price[cur]! - literalsPrice(baseLit) + literalsPrice(baseLit + l)
        if (cost < price[cur + l]!) literal(cur + l, baseLit + l, cost)
      }
      // The match at cur, every length: after the literals that reach cur, or right after
      // the match that does. Positions past last + 3 hold no price yet (last changes only
      // at the final length).
      const afterLiterals = mlen[cur] === 1
      const ll = afterLiterals ? litlen[cur]! : 0
      const base = (afterLiterals ? (cur > ll ? price[cur - ll]! : 0) : price[cur]!) + 3 + literalsPrice(ll)
      const reach = last + TRAILING_LITERALS
      for (let m = MIN_MATCH; m <= len; m++) {
        const pos = cur + m
        const cost = base + matchPrice(m)
        if (pos > reach || cost <= price[pos]!) {
          if (m === len && last < pos) last = pos
          mlen[pos] = m
          off[pos] = offset
          litlen[pos] = ll
          price[pos] = cost
        }
      }
      for (let a = 1; a <= TRAILING_LITERALS; a++) literal(last + a, a, price[last]! + literalsPrice(a))
    }
    if (!immediate) {
      bestLen = mlen[last]!
      bestOff = off[last]!
      cur = last - bestLen
    }
    // Walk the path back from cur, turning each step's "how I was reached" into "what
    // starts here".
    let candidate = cur
    let selLen = bestLen
    let selOff = bestOff
    for (;;) {
      const nextLen = mlen[candidate]!
      const nextOff = off[candidate]!
      mlen[candidate] = selLen
      off[candidate] = selOff
      selLen = nextLen
      selOff = nextOff
      if (nextLen > candidate) break
      candidate -= nextLen
    }
    // Write it.
    for (let r = 0; r < last; ) {
      const m = mlen[r]!
      if (m === 1) {
        ip++
        r++
        continue
      }
      const offset = off[r]!
      r += m
      if (!b.sequence(ip, m, ip - offset)) return false
      ip += m
    }
  }
  return true
}

/**
 * Compresses `src[srcStart, srcEnd)` (up to 2^31 bytes) into `dst[dstStart, dstEnd)`
 * as one independent block at `level` (3..12), with `state`'s tables (overwritten).
 * Returns the compressed size, or -1 when it does not fit (the reference's room checks:
 * a block whose output comes within 8 bytes of `dstEnd` may be refused).
 */
export function encodeBlockHC(src: Uint8Array, srcStart: number, srcEnd: number, dst: Uint8Array, dstStart: number, dstEnd: number, level: number, state: HcState): number {
  const b = new HcBlock(src, srcStart, dst, dstStart, dstEnd, state)
  const searches = SEARCHES[level]
  if (searches === undefined) throw new RangeError(`LZ4 HC level ${level} is not one of 3..12`)
  const ok =
    level < OPT_MIN_LEVEL
      ? hashChain(b, srcStart, srcEnd, searches)
      : optimal(b, state, srcStart, srcEnd, searches, TARGET_LENGTH[level]!, level === 12)
  if (!ok || !b.lastLiterals(srcEnd)) return -1
  return b.op - dstStart
}
