/**
 * The deflate family's wrappers as span codecs: gzip members (RFC 1952), zlib streams
 * (RFC 1950) and raw deflate (RFC 1951). The decoder parses headers and trailers
 * itself around a raw deflate body decoder (ours, `Inflater`, or node:zlib's in
 * adapters/node/engine.ts), so both engines apply the same header rules and checks.
 * The encoders are each engine's own (deflate-fflate.ts, deflate-zlibng.ts, node:zlib).
 *
 * Dictionaries (the `dictionary` option, checked by codec-options.ts `checkDictionary`): a
 * zlib stream with FDICT names its preset dictionary by DICTID, the dictionary's
 * Adler-32 (RFC 1950 section 2.2); raw deflate takes one as a preset window. Either way
 * the dictionary's last 32 KiB are the history the first matches may reach back into
 * (RFC 1951 section 2.2). As zlib's inflate does, a zlib decoder uses its dictionary
 * only for a stream that asks for one with FDICT.
 */
import type { Decoder, Format } from '../codec.js'
import type { Failure } from '../errors.js'
import { Status } from '../status.js'
import { adler32, crc32 } from './checksum.js'

/** Which wrapper surrounds the deflate data. */
export type Wrapper = 'gzip' | 'zlib' | 'raw'

export const wrapperOf = (format: Format): Wrapper =>
  format === 'gzip' ? 'gzip' : format === 'deflate' ? 'zlib' : 'raw'

/**
 * A raw deflate decoder the wrapper drives. `run` decodes from `src[inStart..)` into
 * `dst[outStart..)`, leaves where it stopped in `inPos`/`outPos`, and returns `Done`
 * at the end of the final block with the bytes after it unconsumed. `inBase` is the
 * stream offset of `src[0]`, for `failure.offset`.
 */
export interface DeflateBody {
  inPos: number
  outPos: number
  failure: Failure | null
  run(src: Uint8Array, inStart: number, dst: Uint8Array, outStart: number, inBase: number, final: boolean): Status
  reset(): void
  /**
   * Called after `reset()`, before `run()`: the last 32 KiB of `dictionary` become the
   * history that matches may reach back into, as if they had just been decoded (but
   * they are not output).
   */
  preset(dictionary: Uint8Array): void
  dispose?(): void
}

/** An incremental CRC-32 over `data[start..end)`. */
export type Crc32 = (data: Uint8Array, crc: number, start: number, end: number) => number

const enum Phase {
  /** The fixed header: 10 bytes (gzip) or 2 bytes (zlib). */
  Header,
  /** zlib FDICT: DICTID (4 bytes), compared with the dictionary's Adler-32. */
  DictId,
  /** gzip FEXTRA: XLEN (2 bytes). */
  ExtraLength,
  /** gzip FEXTRA: skipping `skip` bytes. */
  Extra,
  /** gzip FNAME: up to a zero byte. */
  Name,
  /** gzip FCOMMENT: up to a zero byte. */
  Comment,
  /** gzip FHCRC: 2 bytes. */
  HeaderCrc,
  Body,
  /** CRC32 + ISIZE (gzip) or Adler-32 (zlib). */
  Trailer,
  Done,
  Bad,
}

// gzip FLG bits (RFC 1952 section 2.3.1).
const FHCRC = 2
const FEXTRA = 4
const FNAME = 8
const FCOMMENT = 16
const FRESERVED = 0xe0
// zlib FLG bit (RFC 1950 section 2.2).
const FDICT = 0x20

const hex = (n: number, width = 2): string => '0x' + n.toString(16).padStart(width, '0')
/** The big-endian 32-bit value at `b[at..at+4)` (zlib's DICTID and ADLER32). */
const be32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0

export class DeflateFamilyDecoder implements Decoder {
  readonly format: Format
  consumed = 0
  written = 0
  failure: Failure | null = null
  readonly contentSize = -1
  private readonly wrapper: Wrapper
  private readonly body: DeflateBody
  private readonly crc: Crc32
  private phase = Phase.Header
  /** Header bytes collected so far (the fixed part, then XLEN, then HCRC). */
  private readonly scratch = new Uint8Array(10)
  private scratchFill = 0
  /** gzip FLG. */
  private flags = 0
  /** FEXTRA bytes still to skip. */
  private skip = 0
  /** CRC-32 of the gzip header bytes so far (for FHCRC). */
  private headerCrc = 0
  /** Running CRC-32 (gzip) or Adler-32 (zlib) of the output. */
  private check = 0
  /** Output bytes of this member modulo 2^32 (gzip ISIZE). */
  private size = 0
  /** The trailer the decoded data calls for, compared byte by byte as it arrives. */
  private readonly expected = new Uint8Array(8)
  private trailerFill = 0
  /** Input consumed since reset (offset base for failures). */
  private total = 0
  /** The preset dictionary (zlib) or window (raw), checked and copied by the module. */
  private readonly dictionary: Uint8Array | null
  /** zlib: the dictionary's Adler-32, its DICTID (RFC 1950 section 2.2). */
  private readonly dictId: number

  constructor(format: Format, body: DeflateBody, crc: Crc32 = crc32, dictionary: Uint8Array | null = null) {
    this.format = format
    this.wrapper = wrapperOf(format)
    this.body = body
    this.crc = crc
    this.dictionary = dictionary
    this.dictId = dictionary ? adler32(dictionary) : 0
    this.reset()
  }

  reset(): void {
    this.phase = this.wrapper === 'raw' ? Phase.Body : Phase.Header
    this.scratchFill = 0
    this.flags = 0
    this.skip = 0
    this.headerCrc = 0
    this.check = this.wrapper === 'zlib' ? 1 : 0
    this.size = 0
    this.trailerFill = 0
    this.total = 0
    this.failure = null
    this.consumed = 0
    this.written = 0
    this.body.reset()
    if (this.wrapper === 'raw' && this.dictionary) this.body.preset(this.dictionary)
  }

  dispose(): void {
    this.body.dispose?.()
  }

  private fail(code: Failure['code'], message: string, offset: number): Status {
    this.failure = { code, message, offset }
    this.phase = Phase.Bad
    return Status.InvalidData
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    let i = 0
    let o = 0
    let status: Status = Status.NeedMoreData
    const end = src.length
    const base = this.total
    loop: for (;;) {
      switch (this.phase) {
        case Phase.Header: {
          const need = this.wrapper === 'gzip' ? 10 : 2
          const start = i
          while (this.scratchFill < need && i < end) {
            const k = this.scratchFill
            const b = src[i++]!
            this.scratch[this.scratchFill++] = b
            // Check each byte as soon as it arrives: never ask for more input when
            // what is here can no longer become valid.
            const bad = this.wrapper === 'gzip' ? this.checkGzipByte(k, b, base + i - 1) : this.checkZlibByte(k, b, base + i - 1, src, i)
            if (bad) {
              status = Status.InvalidData
              break loop
            }
          }
          if (this.wrapper === 'gzip') this.headerCrc = this.crc(src, this.headerCrc, start, i)
          if (this.scratchFill < need) break loop
          this.scratchFill = 0
          this.phase = this.wrapper === 'gzip' ? this.nextGzipPhase(Phase.Header) : this.scratch[1]! & FDICT ? Phase.DictId : Phase.Body
          continue
        }
        case Phase.DictId: {
          // Compared byte by byte as it arrives: a wrong dictionary is refused at the
          // first byte that differs.
          const id = this.dictId
          while (this.scratchFill < 4 && i < end) {
            const k = this.scratchFill++
            if (src[i++] !== ((id >>> (24 - 8 * k)) & 0xff)) {
              status = this.dictIdMismatch(k, src, i - 1, base)
              break loop
            }
          }
          if (this.scratchFill < 4) break loop
          this.scratchFill = 0
          this.body.preset(this.dictionary!)
          this.phase = Phase.Body
          continue
        }
        case Phase.ExtraLength:
        case Phase.HeaderCrc: {
          const start = i
          const isCrc = this.phase === Phase.HeaderCrc
          while (this.scratchFill < 2 && i < end) {
            const k = this.scratchFill++
            const b = (this.scratch[k] = src[i++]!)
            // RFC 1952 section 2.3.1: FHCRC holds the two low bytes of the header's CRC-32.
            if (isCrc && b !== ((this.headerCrc >>> (8 * k)) & 0xff)) {
              status = this.fail('CHECKSUM_MISMATCH', `gzip header CRC (FHCRC) byte ${k} is ${hex(b)}; the header's CRC-32 is ${hex(this.headerCrc, 8)}`, base + i - 1)
              break loop
            }
          }
          if (!isCrc) {
            this.headerCrc = this.crc(src, this.headerCrc, start, i)
            if (this.scratchFill < 2) break loop
            this.skip = this.scratch[0]! | (this.scratch[1]! << 8)
            this.scratchFill = 0
            this.phase = Phase.Extra
            continue
          }
          if (this.scratchFill < 2) break loop
          this.scratchFill = 0
          this.phase = Phase.Body
          continue
        }
        case Phase.Extra: {
          const n = Math.min(this.skip, end - i)
          this.headerCrc = this.crc(src, this.headerCrc, i, i + n)
          i += n
          this.skip -= n
          if (this.skip > 0) break loop
          this.phase = this.nextGzipPhase(Phase.Extra)
          continue
        }
        case Phase.Name:
        case Phase.Comment: {
          const zero = src.indexOf(0, i)
          const stop = zero < 0 ? end : zero + 1
          this.headerCrc = this.crc(src, this.headerCrc, i, stop)
          i = stop
          if (zero < 0) break loop
          this.phase = this.nextGzipPhase(this.phase)
          continue
        }
        case Phase.Body: {
          const body = this.body
          status = body.run(src, i, dst, o, base, final)
          const from = o
          i = body.inPos
          o = body.outPos
          if (o > from) {
            if (this.wrapper === 'gzip') {
              this.check = this.crc(dst, this.check, from, o)
              this.size = (this.size + (o - from)) >>> 0
            } else if (this.wrapper === 'zlib') {
              this.check = adler32(dst, this.check, from, o)
            }
          }
          if (status === Status.InvalidData) {
            this.failure = body.failure ?? { code: 'INVALID_DATA', message: 'invalid deflate data', offset: base + i }
            this.phase = Phase.Bad
            break loop
          }
          if (status !== Status.Done) break loop
          if (this.wrapper === 'raw') {
            this.phase = Phase.Done
            continue
          }
          const e = this.expected
          const c = this.check
          if (this.wrapper === 'gzip') {
            // RFC 1952 section 2.3.1: CRC32 then ISIZE, both little-endian.
            e[0] = c
            e[1] = c >>> 8
            e[2] = c >>> 16
            e[3] = c >>> 24
            e[4] = this.size
            e[5] = this.size >>> 8
            e[6] = this.size >>> 16
            e[7] = this.size >>> 24
          } else {
            // RFC 1950 section 2.2: ADLER32, big-endian.
            e[0] = c >>> 24
            e[1] = c >>> 16
            e[2] = c >>> 8
            e[3] = c
          }
          this.trailerFill = 0
          this.phase = Phase.Trailer
          status = Status.NeedMoreData
          continue
        }
        case Phase.Trailer: {
          const need = this.wrapper === 'gzip' ? 8 : 4
          while (this.trailerFill < need && i < end) {
            const k = this.trailerFill++
            if (src[i++] !== this.expected[k]) {
              status = this.trailerMismatch(k, src, i - 1, base)
              break loop
            }
          }
          if (this.trailerFill < need) break loop
          this.phase = Phase.Done
          continue
        }
        case Phase.Done:
          status = Status.Done
          break loop
        case Phase.Bad:
        default:
          status = Status.InvalidData
          break loop
      }
    }
    this.consumed = i
    this.written = o
    this.total = base + i
    return status
  }

  private trailerMismatch(k: number, src: Uint8Array, at: number, base: number): Status {
    const gzip = this.wrapper === 'gzip'
    const field = gzip ? (k < 4 ? 'CRC-32' : 'ISIZE') : 'Adler-32'
    const computed = gzip && k >= 4 ? this.size : this.check
    const fieldStart = at - (gzip ? k & 3 : k)
    let stored = ''
    if (fieldStart >= 0 && fieldStart + 4 <= src.length) {
      const b = src.subarray(fieldStart, fieldStart + 4)
      const v = gzip ? (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0 : ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0
      stored = ` ${field === 'ISIZE' ? String(v) : hex(v, 8)}`
    }
    const what = field === 'ISIZE' ? `${computed} bytes decoded (mod 2^32)` : `computed ${hex(computed, 8)}`
    return this.fail('CHECKSUM_MISMATCH', `stored ${field}${stored} does not match the ${what}`, base + at)
  }

  /**
   * gzip: whether `src` starts another member, by its ID1 ID2 (1f 8b, RFC 1952 section
   * 2.3.1); see `Decoder.startsMember`. zlib and raw deflate streams are single.
   */
  startsMember(src: Uint8Array): 'match' | 'partial' | 'no' {
    if (this.wrapper !== 'gzip') return 'match'
    if (src[0] !== 0x1f) return 'no'
    if (src.length < 2) return 'partial'
    return src[1] === 0x8b ? 'match' : 'no'
  }

  /** RFC 1952 section 2.3.1: the fixed header's checks, one byte at a time. */
  private checkGzipByte(k: number, b: number, offset: number): boolean {
    if (k === 0 && b !== 0x1f) return this.fail('INVALID_DATA', `not a gzip member: first byte is ${hex(b)}, expected 0x1f`, offset), true
    if (k === 1 && b !== 0x8b) return this.fail('INVALID_DATA', `not a gzip member: second byte is ${hex(b)}, expected 0x8b`, offset), true
    if (k === 2 && b !== 8) return this.fail('INVALID_DATA', `gzip compression method ${b} is not deflate (8)`, offset), true
    if (k === 3) {
      if (b & FRESERVED) return this.fail('INVALID_DATA', `gzip header sets reserved flag bits ${hex(b & FRESERVED)} (RFC 1952 section 2.3.1)`, offset), true
      this.flags = b
    }
    return false
  }

  /** A DICTID byte differs from the dictionary's Adler-32 (`at`: that byte in `src`). */
  private dictIdMismatch(k: number, src: Uint8Array, at: number, base: number): Status {
    const fieldStart = at - k
    const stored = fieldStart >= 0 && fieldStart + 4 <= src.length ? ` ${hex(be32(src, fieldStart), 8)}` : ''
    return this.fail(
      'CHECKSUM_MISMATCH',
      `zlib preset dictionary ID (DICTID)${stored} does not match the Adler-32 ${hex(this.dictId, 8)} of the dictionary given (${this.dictionary!.length} bytes)`,
      base + fieldStart,
    )
  }

  /**
   * RFC 1950 section 2.2: CMF and FLG. `src[next..)` is the input after this byte; with
   * FDICT set and no dictionary given, the DICTID is named if it is there already.
   */
  private checkZlibByte(k: number, b: number, offset: number, src: Uint8Array, next: number): boolean {
    if (k === 0) {
      if ((b & 15) !== 8) return this.fail('INVALID_DATA', `zlib compression method ${b & 15} is not deflate (8)`, offset), true
      // CINFO > 7 would mean a window larger than 32 KiB, which deflate cannot use.
      if (b >> 4 > 7) return this.fail('INVALID_DATA', `zlib window bits ${(b >> 4) + 8} exceed 15`, offset), true
      return false
    }
    const header = (this.scratch[0]! << 8) | b
    if (header % 31 !== 0) return this.fail('INVALID_DATA', `zlib header check fails: ${hex(header, 4)} is not a multiple of 31`, offset), true
    if (b & FDICT && !this.dictionary) {
      // The stream cannot be decoded without its dictionary: refused now (no input can
      // help), with UNSUPPORTED, not INVALID_DATA, as the bytes are not corrupt.
      const id = next + 4 <= src.length ? `DICTID ${hex(be32(src, next), 8)}` : 'its DICTID follows'
      return this.fail('UNSUPPORTED', `zlib stream needs a preset dictionary (FDICT; ${id}, the dictionary's Adler-32); pass it as the dictionary option`, offset), true
    }
    return false
  }

  private nextGzipPhase(after: Phase): Phase {
    const f = this.flags
    if (after < Phase.ExtraLength && f & FEXTRA) return Phase.ExtraLength
    if (after < Phase.Name && f & FNAME) return Phase.Name
    if (after < Phase.Comment && f & FCOMMENT) return Phase.Comment
    if (f & FHCRC) return Phase.HeaderCrc
    return Phase.Body
  }
}

/**
 * The header an encoder writes before the deflate data, for the block encoder of
 * lib/parallel/blocks.ts (the same bytes as the engines' encoders write): gzip RFC 1952
 * section 2.3, no flags, MTIME 0 (none), XFL 2/4 for best/fastest, OS 255 (unknown);
 * zlib RFC 1950 section 2.2, CM 8, CINFO 7 (32 KiB window), FLEVEL from the level,
 * FDICT with the dictionary's Adler-32 (DICTID) after FLG, FCHECK; raw deflate none. An
 * empty dictionary writes no FDICT (as node:zlib does).
 */
export function wrapperHeader(wrapper: Wrapper, level: number, dictionary: Uint8Array | null): Uint8Array {
  if (wrapper === 'gzip') {
    const xfl = level === 9 ? 2 : level === 1 ? 4 : 0
    return new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 255])
  }
  if (wrapper === 'raw') return new Uint8Array(0)
  const cmf = 0x78
  const withDictionary = dictionary !== null && dictionary.length > 0
  const flevel = level < 2 ? 0 : level < 6 ? 1 : level === 6 ? 2 : 3
  let flg = (flevel << 6) | (withDictionary ? FDICT : 0)
  flg |= 31 - (((cmf << 8) | flg) % 31)
  if (!withDictionary) return new Uint8Array([cmf, flg])
  const id = adler32(dictionary)
  return new Uint8Array([cmf, flg, id >>> 24, id >>> 16, id >>> 8, id])
}
