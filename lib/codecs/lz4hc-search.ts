/**
 * LZ4 HC's match search and sequence writer for one block (lz4hc-block.ts parses with
 * them; wasm/lz4hc.wat is the same in WebAssembly), as the reference's lib/lz4hc.c
 * (lz4 1.9.4) searches:
 *
 * - the hash chain: a 2^15-entry table of the newest position of each 4-byte hash and,
 *   per position, the distance back to the previous one with the same hash (16 bits, a
 *   64 KiB ring: LZ4 offsets reach back at most 65535 bytes);
 * - `widerMatch`: the candidates along the chain, each tested at the current best
 *   length's last two bytes first; optionally extended backwards, through runs of one
 *   byte value in jumps, and along the chain of a later position inside the best match
 *   (a rarer 4-byte sequence reaches the candidates that can be longer sooner);
 * - `sequence` and `lastLiterals`: the LZ4 block format's sequences, with the
 *   reference's room checks (a sequence needs its literals and 8 more bytes, the last
 *   literals their own room), so that a block that would not shrink is refused at the
 *   same point.
 *
 * Positions are indices from `BASE` (the block's first byte), so that the table's
 * cleared entries (0) are out of reach.
 */

const HASH_LOG = 15
/** Chain entries: one per position in a 64 KiB ring (the largest offset is 65535). */
const CHAIN_SIZE = 0x10000
const MAX_DISTANCE = 65535
/** Index of a block's first byte: the cleared table's zeros lie more than 64 KiB before it. */
const BASE = 0x10000
export const MIN_MATCH = 4
/** Block format "End of block conditions": the last 5 bytes are literals ... */
export const LAST_LITERALS = 5
/** ... and the last match starts at least 12 bytes before the end. */
export const MF_LIMIT = 12

/** The hash chain's tables: 256 KiB, reused from block to block. */
export interface HcTables {
  /** Newest index of each 4-byte hash. */
  readonly hashTable: Uint32Array
  /** Distance from an index (mod 2^16) back to the previous one with the same hash. */
  readonly chainTable: Uint16Array
}

/** Tables for `HcBlock`. */
export function createHcTables(): HcTables {
  return { hashTable: new Uint32Array(1 << HASH_LOG), chainTable: new Uint16Array(CHAIN_SIZE) }
}

/** One block's compression: the input, the output and the search state. */
export class HcBlock {
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
    tables: HcTables,
  ) {
    this.view = new DataView(src.buffer, src.byteOffset, src.byteLength)
    this.start = srcStart
    this.delta = BASE - srcStart
    this.hashTable = tables.hashTable
    this.chain = tables.chainTable
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
