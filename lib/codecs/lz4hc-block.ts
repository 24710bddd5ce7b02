/**
 * LZ4 HC: the high-compression block compressor of LZ4 levels 3 to 12, in TypeScript
 * (the `'js'` engine and the raw block encoder; the wasm engine runs the same steps in
 * wasm/lz4hc.wat, writing the same bytes). It writes the same LZ4 blocks as the
 * reference's `lz4 -3` ... `lz4 -12` (lz4 1.9.4, lib/lz4hc.c) for independent blocks,
 * parsing with the hash chain search of lz4hc-search.ts:
 *
 * - levels 3-9 (`SEARCHES`): lazy matching over the chain, 4 to 256 candidates per
 *   search; a match is kept, shortened or dropped after looking for a longer one that
 *   starts inside it (up to three overlapping matches at once). Level 9 also skips
 *   through runs of one byte value instead of walking them a position at a time;
 * - levels 10-12: optimal parsing. From a match, the cheapest way (in output bytes:
 *   token, literals and their length bytes, offset, match length bytes) to reach each
 *   position up to 4096 bytes ahead is computed from the matches found there, and the
 *   cheapest path is written. Level 10 searches 96 candidates and stops at matches of
 *   64 bytes, 11 searches 512 and stops at 128, 12 searches 16384, goes to 4095 and
 *   searches at more positions. These levels also follow the chain of a later position
 *   inside the best match.
 */
import { createHcTables, HcBlock, LAST_LITERALS, MF_LIMIT, MIN_MATCH, type HcTables } from './lz4hc-search.js'

/** First level of the optimal parser. */
const OPT_MIN_LEVEL = 10

/** Candidates searched per match, by level. */
const SEARCHES: Readonly<Record<number, number>> = { 3: 4, 4: 8, 5: 16, 6: 32, 7: 64, 8: 128, 9: 256, 10: 96, 11: 512, 12: 16384 }
/** The optimal parser's "good enough" match length, by level: longer ones are taken as they are. */
const TARGET_LENGTH: Readonly<Record<number, number>> = { 10: 64, 11: 128, 12: 4096 }

/** Longest match length held in the token alone (15 + 4 - 1): the lazy search's cut point. */
const OPTIMAL_ML = 18
/** Positions the optimal parser prices ahead of the current one. */
const OPT_NUM = 4096
/** Literal positions priced past the last match. */
const TRAILING_LITERALS = 3

/** The tables of one HC compressor, reused from block to block: 256 KiB, 320 KiB with the optimal parser's. */
export interface HcState extends HcTables {
  /** The optimal parser's path (levels 10-12), allocated on first use: price, match length (1: literal), offset, literal run. */
  opt: { price: Int32Array; mlen: Int32Array; off: Int32Array; litlen: Int32Array } | null
}

/** Tables for `encodeBlockHC`. */
export function createHcState(): HcState {
  return { ...createHcTables(), opt: null }
}

/** Output bytes of a literal run: the bytes, and the length bytes past the token's 15. */
function literalsPrice(litlen: number): number {
  return litlen >= 15 ? litlen + 1 + ((litlen - 15) / 255 | 0) : litlen
}

/** Match length bytes past the token's 15 + 4. */
function matchPrice(mlen: number): number {
  return mlen >= 19 ? 1 + ((mlen - 19) / 255 | 0) : 0
}

/**
 * How much of match 1 (at ip, ml bytes) to keep before match 2 (at start2, ml2 bytes)
 * when match 2 starts less than 18 bytes after it: at most 18 bytes (a length the token
 * holds alone), and no more than leaves match 2 its 4 bytes.
 */
function keptLength(ip: number, ml: number, start2: number, ml2: number): number {
  const kept = ml > OPTIMAL_ML ? OPTIMAL_ML : ml
  return ip + kept > start2 + ml2 - MIN_MATCH ? start2 - ip + ml2 - MIN_MATCH : kept
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
        // Match 2 starts after what is kept of match 1.
        const correction = keptLength(ip, ml, start2, ml2) - (start2 - ip)
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
          ml = keptLength(ip, ml, start2, ml2)
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
