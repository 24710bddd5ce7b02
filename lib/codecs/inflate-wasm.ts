/**
 * Deflate family engine `'wasm'`: the same gzip / zlib / raw wrappers as the `js` engine
 * (lib/codecs/deflate.ts: headers, trailers, checks, errors), around a raw deflate body
 * whose Huffman-coded blocks are decoded by sluice's hand-written WebAssembly kernel
 * (`wasm/inflate.wat`, ~2 kB), which also computes gzip's CRC-32. Block headers and
 * stored blocks are handled here in TypeScript, dynamic headers by the parser the js
 * engine uses too (inflate-dynamic-header.ts), which builds the code tables in the same
 * format (inflate-tables.ts `buildTable`). The `wasm` engine encodes with zlib-ng
 * (deflate-wasm.ts).
 *
 * Resumable at any byte: input is staged into the kernel's memory behind the few bytes
 * left over from the last call (`carry`: the start of a unit the input ended inside,
 * at most one dynamic block header, <= 563 bytes). Headers are parsed and codes decoded
 * one whole unit at a time; when the input ends inside a unit the decoder goes back to
 * the unit's start, keeps its bytes and reports all input consumed (NeedMoreData). So
 * the end of the deflate stream is found at its exact bit, and the bytes after it (gzip
 * trailer, next member, trailing data) are never consumed.
 *
 * Output is decoded into a window in the kernel's memory (32 KiB of history, then room)
 * and copied out to `dst`. The last unit may run up to 260 bytes past the room of `dst`:
 * those bytes stay pending in the window and go out first on the next call.
 *
 * One instance, created when this module loads, serves every decoder. Its memory:
 *
 *     [0, 16)                 where `codes` stopped (input byte, bit, output address)
 *     [1024, 17408)           CRC-32 tables (slicing-by-16)
 *     [17408, 19584)          fixed literal/length and distance tables (RFC 1951 3.2.6)
 *     [20480, 45056)          dynamic tables of the owner's current block
 *     [IN, +CARRY_MAX+IN_CAP) input: carry, then the staged piece of `src`
 *     [WIN, WIN_END)          output window: history, then room; slack after it
 *
 * The decoder whose state is in memory is the owner; when another decoder runs, the
 * owner's history (<= 32 KiB + pending), carry and dynamic tables are saved to its own
 * arrays and put back when it continues. One stream at a time never copies state.
 */
import type { Failure } from '../errors.js'
import { Status } from '../status.js'
import { crc32 as jsCrc32, crc32Tables } from './checksum.js'
import type { Crc32, DeflateBody } from './deflate.js'
import type { DeflateEngineParts } from './deflate-module.js'
import { bitsAt, HEADER_ERROR, HEADER_NEED, parseDynamicHeader, type DynamicHeaderState } from './inflate-dynamic-header.js'
import { DIST_TABLE_SIZE, fixedCodeTables, LIT_TABLE_SIZE } from './inflate-tables.js'
import type { BlockObserver, IndexableBody } from './inflate-observer.js'
import { compile } from './wasm/instantiate.js'
import { inflateWasm } from '#wasm/inflate'

/** The kernel's exports (wasm/inflate.wat); addresses are i32 byte offsets in `memory`. */
export interface InflateExports {
  readonly memory: WebAssembly.Memory
  codes(input: number, inEnd: number, bitOff: number, out: number, outLimit: number, hist: number, lit: number, litRoot: number, dist: number, distRoot: number): number
  crc32(crc: number, p: number, n: number): number
}

// Memory layout (see the module comment; inflate.wat reads the CRC tables at 1024). The
// parallel chunk decoder (lib/parallel/chunk-kernel.ts) lays out its own instance the
// same way up to IN, from its own address on.
const CRC_TABLES = 1024
export const FIXED_LIT = CRC_TABLES + 16 * 1024
export const FIXED_DIST = FIXED_LIT + 512 * 4
export const DYN_LIT = FIXED_DIST + 1024
export const DYN_DIST = DYN_LIT + LIT_TABLE_SIZE * 4
export const IN = DYN_DIST + DIST_TABLE_SIZE * 4
/**
 * Most bytes a unit can span: a dynamic block header is at most 3 + 14 + 19 * 3 +
 * 316 * (7 + 7) bits = 563 bytes (RFC 1951 section 3.2.7); a match at most 6.
 */
const CARRY_MAX = 1024
/** Largest piece of `src` staged at once. */
const IN_CAP = 128 * 1024
const WIN = IN + CARRY_MAX + IN_CAP + 4096
/** RFC 1951 section 2.2: distances reach up to 32768 bytes back. */
const HISTORY = 32768
const WIN_ROOM = 512 * 1024
/** End of the window; `codes` may write up to 300 bytes past its limit, into 1024 of slack. */
const WIN_END = WIN + HISTORY + WIN_ROOM
/** Beyond this the window slides its last 32 KiB (and pending bytes) back to WIN. */
const SLIDE_AT = WIN + HISTORY + WIN_ROOM / 2
const PAGES = Math.ceil((WIN_END + 1024) / 65536)

// Statuses of `codes` (inflate.wat; inflate-markers.wat's `codes16` returns the same).
export const FULL = 0
export const END = 1
export const NEED = 2
export const BAD_LIT = 3
export const BAD_DIST = 4
export const FAR = 5

const enum Mode {
  /** Next: a block header (for a dynamic block, with its code lengths). */
  Header,
  /** Copying a stored block (`stored` bytes left). */
  Stored,
  /** Huffman-coded block: literals and matches until end-of-block. */
  Codes,
  /** The final block ended. */
  Done,
  /** Invalid data was found; `failure` is set. */
  Bad,
}

/** Why one pass over the staged input stopped. */
const enum Stop {
  Need,
  Full,
  Done,
  Error,
}

/** The shared instance. */
interface Kernel {
  readonly x: InflateExports
  readonly heap8: Uint8Array
  readonly heap32: Int32Array
  readonly dynLit: Int32Array
  readonly dynDist: Int32Array
  owner: WasmInflater | null
}

let kernel!: Kernel
let loading: Promise<void> | null = null

export class WasmInflater implements DeflateBody, DynamicHeaderState, IndexableBody {
  inPos = 0
  outPos = 0
  failure: Failure | null = null
  private mode: Mode = Mode.Header
  /** The current block has BFINAL set. */
  private last = false
  /** Stored block: bytes left to copy. */
  private stored = 0
  /** The current block's tables are the dynamic ones (else the fixed ones). */
  private dynamic = false
  /** The dynamic tables' root widths (set by the header parser). */
  litBits = 0
  distBits = 0
  /** The dynamic header parser's code lengths and code length table (inflate-dynamic-header.ts). */
  readonly lens = new Uint8Array(19 + 286 + 30)
  readonly clenTable = new Int32Array(128)
  /** Bit position where invalid data was found (for the failure offset), and (from the header parser) why. */
  errorBit = 0
  errorMessage = ''
  // Window addresses (valid while owner): output written up to `win`, handed out up to
  // `delivered`; matches may reach back to `hist`.
  private win = WIN
  private delivered = WIN
  private hist = WIN
  /** Bytes at IN (valid while owner) already consumed but not decoded, and bits of the first used. */
  private carryLen = 0
  private bitOff = 0
  // State saved while another decoder owns the memory.
  private savedWindow: Uint8Array | null = null
  private savedLength = 0
  private savedDelivered = 0
  private savedCarry: Uint8Array | null = null
  private savedLit: Int32Array | null = null
  private savedDist: Int32Array | null = null
  /** gzip only: CRC-32 of the output handed out since reset, computed in wasm. */
  private readonly withCrc: boolean
  private crc = 0
  // The last output span handed out, for `crc32` below.
  private lastDst: Uint8Array | null = null
  private lastFrom = 0
  private lastTo = 0
  private lastCrcIn = 0
  /** Told of each block start (inflate-observer.ts); null when no one asked. */
  observer: BlockObserver | null = null
  /** Output written to the window since reset (the block observer's `out`). */
  private produced = 0
  /** The block start at the current Header was reported (the header may span calls). */
  private reported = false

  constructor(withCrc: boolean) {
    this.withCrc = withCrc
  }

  /**
   * The CRC-32 the gzip wrapper asks for after each call: for the span just handed out
   * it is already known (computed in wasm from the window); anything else is computed
   * in TypeScript.
   */
  readonly crc32: Crc32 = (data, crc, start, end) => {
    if (data === this.lastDst && start === this.lastFrom && end === this.lastTo && crc === this.lastCrcIn) {
      this.lastDst = null
      return this.crc
    }
    return jsCrc32(data, crc, start, end)
  }

  reset(): void {
    this.mode = Mode.Header
    this.last = false
    this.stored = 0
    this.dynamic = false
    this.carryLen = 0
    this.bitOff = 0
    this.savedLength = 0
    this.savedDelivered = 0
    this.crc = 0
    this.lastDst = null
    this.failure = null
    this.produced = 0
    this.reported = false
    if (kernel.owner === this) this.win = this.delivered = this.hist = WIN
  }

  /** After reset(): the input's first `bits` bits are not decoded (its first unit starts at bit `bits`). */
  skipBits(bits: number): void {
    this.bitOff = bits & 7
  }

  history(): Uint8Array {
    if (kernel.owner === this) return kernel.heap8.slice(Math.max(this.hist, this.win - HISTORY), this.win)
    const n = this.savedLength
    return this.savedWindow === null ? new Uint8Array(0) : this.savedWindow.slice(Math.max(0, n - HISTORY), n)
  }

  /**
   * A preset dictionary is the window's initial history: its last 32 KiB go where
   * decoded output would have been, all of it counted as handed out. Call after `reset()`.
   */
  preset(dictionary: Uint8Array): void {
    const tail = dictionary.subarray(Math.max(0, dictionary.length - HISTORY))
    const n = tail.length
    if (kernel.owner === this) {
      kernel.heap8.set(tail, WIN)
      this.win = this.delivered = WIN + n
      this.hist = WIN
    } else {
      // Put into memory by acquire() when this decoder runs.
      if (this.savedWindow === null || this.savedWindow.length < n) this.savedWindow = new Uint8Array(HISTORY + 512)
      this.savedWindow.set(tail)
      this.savedLength = this.savedDelivered = n
    }
  }

  dispose(): void {
    if (kernel.owner === this) kernel.owner = null
    this.savedWindow = this.savedCarry = null
    this.savedLit = this.savedDist = null
  }

  /** Puts this decoder's state into memory if another decoder's is there. */
  private acquire(): void {
    const k = kernel
    if (k.owner === this) return
    k.owner?.save()
    k.owner = this
    const n = this.savedLength
    if (n > 0) k.heap8.set(this.savedWindow!.subarray(0, n), WIN)
    this.win = WIN + n
    this.delivered = WIN + this.savedDelivered
    this.hist = WIN
    if (this.carryLen > 0) k.heap8.set(this.savedCarry!.subarray(0, this.carryLen), IN)
    if (this.mode === Mode.Codes && this.dynamic) {
      k.dynLit.set(this.savedLit!)
      k.dynDist.set(this.savedDist!)
    }
  }

  /** Called by the next owner: copies this decoder's state out of memory. */
  save(): void {
    const k = kernel
    const keepFrom = Math.max(this.hist, Math.min(this.delivered, this.win - HISTORY))
    const n = this.win - keepFrom
    if (this.savedWindow === null || this.savedWindow.length < n) this.savedWindow = new Uint8Array(Math.max(n, HISTORY + 512))
    this.savedWindow.set(k.heap8.subarray(keepFrom, this.win))
    this.savedLength = n
    this.savedDelivered = this.delivered - keepFrom
    if (this.carryLen > 0) (this.savedCarry ??= new Uint8Array(CARRY_MAX)).set(k.heap8.subarray(IN, IN + this.carryLen))
    if (this.mode === Mode.Codes && this.dynamic) {
      ;(this.savedLit ??= new Int32Array(LIT_TABLE_SIZE)).set(k.dynLit)
      ;(this.savedDist ??= new Int32Array(DIST_TABLE_SIZE)).set(k.dynDist)
    }
  }

  /** Moves the last 32 KiB of history and the pending bytes back to the window start. */
  private slide(): void {
    const keepFrom = Math.max(this.hist, Math.min(this.delivered, this.win - HISTORY))
    kernel.heap8.copyWithin(WIN, keepFrom, this.win)
    const delta = keepFrom - WIN
    this.win -= delta
    this.delivered -= delta
    this.hist = WIN
  }

  /** Copies pending window bytes to dst[o..); returns the new o. */
  private deliver(dst: Uint8Array, o: number): number {
    const n = Math.min(this.win - this.delivered, dst.length - o)
    if (n <= 0) return o
    const k = kernel
    dst.set(k.heap8.subarray(this.delivered, this.delivered + n), o)
    if (this.withCrc) this.crc = k.x.crc32(this.crc, this.delivered, n) >>> 0
    this.delivered += n
    return o + n
  }

  private fail(bit: number, message: string): number {
    this.errorBit = bit
    this.failure = { code: 'INVALID_DATA', message, offset: -1 }
    return HEADER_ERROR
  }

  run(src: Uint8Array, inStart: number, dst: Uint8Array, outStart: number, inBase: number): Status {
    this.acquire()
    this.lastDst = dst
    this.lastFrom = outStart
    this.lastCrcIn = this.crc
    const status = this.step(src, inStart, dst, outStart, inBase)
    this.lastTo = this.outPos
    return status
  }

  private step(src: Uint8Array, inStart: number, dst: Uint8Array, outStart: number, inBase: number): Status {
    const k = kernel
    const h = k.heap8
    let i = inStart
    let o = outStart
    this.inPos = i
    if (this.mode === Mode.Bad) {
      this.outPos = o
      return Status.InvalidData
    }
    o = this.deliver(dst, o)
    if (this.delivered < this.win || this.mode === Mode.Done) {
      this.outPos = o
      return this.delivered < this.win ? Status.DestinationTooSmall : Status.Done
    }
    let status: Status
    for (;;) {
      const pieceStart = i
      const size = Math.min(src.length - i, IN_CAP)
      const pieceAt = IN + this.carryLen
      if (size > 0) h.set(src.subarray(i, i + size), pieceAt)
      const end = pieceAt + size
      const endBits = end * 8
      let p = IN * 8 + this.bitOff
      let stop: Stop
      units: for (;;) {
        switch (this.mode) {
          case Mode.Header: {
            if (this.observer !== null && !this.reported) {
              this.reported = true
              this.observer.block((inBase + pieceStart - pieceAt) * 8 + p, this.produced)
            }
            const r = this.header(h, p, endBits)
            if (r === HEADER_NEED) {
              stop = Stop.Need
              break units
            }
            if (r === HEADER_ERROR) {
              p = this.errorBit
              stop = Stop.Error
              break units
            }
            p = r
            this.reported = false
            continue
          }
          case Mode.Stored: {
            if (this.win >= SLIDE_AT) this.slide()
            const a = p >>> 3
            const n = Math.min(this.stored, end - a, dst.length - o, WIN_END - this.win)
            if (n === 0) {
              stop = a === end ? Stop.Need : Stop.Full
              break units
            }
            h.copyWithin(this.win, a, a + n)
            this.win += n
            this.produced += n
            p += n * 8
            this.stored -= n
            o = this.deliver(dst, o)
            if (this.stored === 0) this.mode = this.last ? Mode.Done : Mode.Header
            continue
          }
          case Mode.Codes: {
            if (this.win >= SLIDE_AT) this.slide()
            const limit = Math.min(this.win + (dst.length - o), WIN_END)
            const r = this.dynamic
              ? k.x.codes(p >>> 3, end, p & 7, this.win, limit, this.hist, DYN_LIT, this.litBits, DYN_DIST, this.distBits)
              : k.x.codes(p >>> 3, end, p & 7, this.win, limit, this.hist, FIXED_LIT, 9, FIXED_DIST, 5)
            const r32 = k.heap32
            p = r32[0]! * 8 + r32[1]!
            this.produced += r32[2]! - this.win
            this.win = r32[2]!
            o = this.deliver(dst, o)
            if (r === END) {
              this.mode = this.last ? Mode.Done : Mode.Header
              continue
            }
            if (r === FULL) {
              // Either dst is full, or the window is (it slides on the next pass).
              if (o < dst.length) continue
              stop = Stop.Full
              break units
            }
            if (r === NEED) {
              stop = Stop.Need
              break units
            }
            this.fail(
              p,
              r === BAD_LIT
                ? 'invalid literal/length code'
                : r === BAD_DIST
                  ? 'invalid distance code'
                  : r === FAR
                    ? `distance is farther back than the ${Math.min(this.win - this.hist, HISTORY)} bytes of history`
                    : `inflate kernel returned ${r}`,
            )
            stop = Stop.Error
            break units
          }
          case Mode.Done: {
            stop = Stop.Done
            break units
          }
          default: {
            stop = Stop.Error
            break units
          }
        }
      }
      if (stop === Stop.Need) {
        // All of the piece is consumed; keep the unit the input ended inside.
        i = pieceStart + size
        const a = p >>> 3
        const n = end - a
        if (n > CARRY_MAX) {
          // Cannot happen for any input (see CARRY_MAX); refuse rather than overrun.
          this.fail(p, `a deflate unit spans more than ${CARRY_MAX} bytes`)
          stop = Stop.Error
        } else {
          h.copyWithin(IN, a, end)
          this.carryLen = n
          this.bitOff = p & 7
          if (i < src.length) continue
          status = Status.NeedMoreData
          break
        }
      }
      // Consumed up to the byte holding the last used bit; keep a partial byte.
      const a = p >>> 3
      const used = Math.max((p + 7) >>> 3, pieceAt)
      i = pieceStart + (used - pieceAt)
      if (stop === Stop.Done) {
        // RFC 1951 section 3.2.4: the rest of the last byte is padding.
        this.carryLen = 0
        this.bitOff = 0
        status = Status.Done
      } else {
        h.copyWithin(IN, a, used)
        this.carryLen = used - a
        this.bitOff = p & 7
        if (stop === Stop.Full) {
          status = Status.DestinationTooSmall
        } else {
          const at = ((this.errorBit + 7) >>> 3) - 1
          this.failure ??= { code: 'INVALID_DATA', message: 'invalid deflate data', offset: -1 }
          this.failure.offset = inBase + pieceStart + (at - pieceAt)
          this.mode = Mode.Bad
          this.inPos = i
          this.outPos = o
          return Status.InvalidData
        }
      }
      break
    }
    this.inPos = i
    this.outPos = o
    // Output still pending in the window: the caller must come back with room.
    return this.delivered < this.win ? Status.DestinationTooSmall : status
  }

  /**
   * Parses one block header at bit `p` (for a dynamic block, up to its tables, which it
   * builds). Returns the bit after it, HEADER_NEED (nothing changed) or HEADER_ERROR.
   * Each field is judged as soon as its bits are there, as in the js engine.
   */
  private header(h: Uint8Array, p: number, endBits: number): number {
    if (p + 3 > endBits) return HEADER_NEED
    const head = bitsAt(h, p, 3)
    p += 3
    const last = (head & 1) === 1
    const type = head >>> 1
    if (type === 0) {
      // RFC 1951 section 3.2.4: skip to the byte boundary, then LEN and NLEN.
      p = (p + 7) & ~7
      if (p + 16 > endBits) return HEADER_NEED
      const len = bitsAt(h, p, 16)
      p += 16
      for (let b = 0; b < 2; b++) {
        if (p + 8 > endBits) return HEADER_NEED
        if (((bitsAt(h, p, 8) ^ (len >>> (8 * b))) & 0xff) !== 0xff) {
          return this.fail(p + 8, `stored block length ${len} does not match its complement (RFC 1951 section 3.2.4)`)
        }
        p += 8
      }
      this.last = last
      this.stored = len
      this.mode = len > 0 ? Mode.Stored : last ? Mode.Done : Mode.Header
      return p
    }
    if (type === 1) {
      this.last = last
      this.dynamic = false
      this.mode = Mode.Codes
      return p
    }
    if (type === 3) return this.fail(p, 'invalid block type 3 (reserved, RFC 1951 section 3.2.3)')
    // RFC 1951 section 3.2.7, parsed as the js engine parses it (inflate-dynamic-header.ts).
    const r = parseDynamicHeader(h, p, endBits, this, kernel.dynLit, kernel.dynDist)
    if (r === HEADER_ERROR) return this.fail(this.errorBit, this.errorMessage)
    if (r === HEADER_NEED) return r
    this.last = last
    this.dynamic = true
    this.mode = Mode.Codes
    return r
  }
}

/** CRC-32 tables for inflate.wat's slicing-by-16 loop (the same layout as checksum.ts's). */
function writeCrcTables(heap32: Int32Array): void {
  heap32.set(crc32Tables(), CRC_TABLES >> 2)
}

/** The fixed codes of RFC 1951 section 3.2.6. */
function writeFixedTables(heap32: Int32Array): void {
  const { lit, dist } = fixedCodeTables()
  heap32.set(lit, FIXED_LIT >> 2)
  heap32.set(dist, FIXED_DIST >> 2)
}

/**
 * The kernel's decoding parts of the deflate family's modules (deflate-wasm.ts, which adds
 * zlib-ng's encoder); `body` only after `loadInflateKernel()` resolved.
 */
export const inflateWasmParts: Pick<DeflateEngineParts<WasmInflater>, 'body' | 'crc32'> = {
  body: (format) => new WasmInflater(format === 'gzip'),
  crc32: (body) => body.crc32,
}

let compiled: Promise<WebAssembly.Module> | null = null

/**
 * A new instance of the kernel, its memory at least `pages` of 64 KiB, with the CRC-32
 * tables and the fixed codes written: the codecs' one shared instance, and the parallel
 * chunk decoder's own (lib/parallel/chunk-kernel.ts). The module is compiled once.
 */
export async function instantiateInflateKernel(pages: number): Promise<InflateExports> {
  compiled ??= inflateWasm().then(compile)
  compiled.catch(() => (compiled = null))
  const instance = await WebAssembly.instantiate(await compiled, {})
  const x = instance.exports as unknown as InflateExports
  const have = x.memory.buffer.byteLength >>> 16
  if (have < pages) x.memory.grow(pages - have)
  const heap32 = new Int32Array(x.memory.buffer)
  writeCrcTables(heap32)
  writeFixedTables(heap32)
  return x
}

/** Compiles and instantiates the kernel (once); bodies can only be created after it resolved. */
export async function loadInflateKernel(): Promise<void> {
  loading ??= (async () => {
    const x = await instantiateInflateKernel(PAGES)
    const heap32 = new Int32Array(x.memory.buffer)
    kernel = {
      x,
      heap8: new Uint8Array(x.memory.buffer),
      heap32,
      dynLit: heap32.subarray(DYN_LIT >> 2, (DYN_LIT >> 2) + LIT_TABLE_SIZE),
      dynDist: heap32.subarray(DYN_DIST >> 2, (DYN_DIST >> 2) + DIST_TABLE_SIZE),
      owner: null,
    }
  })()
  loading.catch(() => (loading = null))
  await loading
}
