/**
 * Format detection: which format a stream's first bytes name, by the magic numbers of the
 * format table (`detect` rows), the zlib header check (RFC 1950) and the RFC 9842
 * transports' headers; zstd and LZ4 also after leading skippable frames. Pure: it looks
 * at bytes and says `match`, `partial` (more bytes could still match) or `no`. Used by
 * `decompress()` and its sniffing stream (streams/), the HTTP layers of `decodeResponse`
 * (adapters/fetch) and the inspector (lib/inspect/).
 */
import type { Format } from './codec.js'
import { TRANSPORT_HASH_BYTES, transportHeaderAt, transportHeaderLength } from './dictionary-lookup.js'
import { DETECTED_FORMATS, detectOf, TRANSPORT_FORMATS, transportOf } from './formats.js'

/**
 * The most bytes buffered before a decision. Only skippable frames (below) can make
 * detection look further than 4 bytes, and their size field allows up to 4 GiB
 * (RFC 8878 §3.1.2): buffering that much before decoding a byte would turn a small
 * header into a memory sink. 64 KiB covers the skippable frames met in practice (pzstd
 * puts a 12-byte one before each frame; metadata frames are small); past it we pick
 * zstd, as for input made only of skippable frames.
 */
export const SNIFF_LIMIT = 64 * 1024

/** The magic number a format starts with (its table row's `detect.magic`). */
function magicOf(format: Format): readonly number[] {
  const magic = detectOf(format)?.magic
  if (!Array.isArray(magic)) throw new Error(`${format} has no magic number in the format table`)
  return magic
}

/** Formats recognised by a magic number at the very start (gzip). */
const AT_START: readonly Format[] = /* @__PURE__ */ DETECTED_FORMATS.filter((f) => Array.isArray(detectOf(f)!.magic) && !detectOf(f)!.frames)
/** Formats recognised by the zlib header check (deflate). */
const ZLIB: readonly Format[] = /* @__PURE__ */ DETECTED_FORMATS.filter((f) => detectOf(f)!.magic === 'zlib header')
/** Formats made of frames, recognised also after leading skippable frames (zstd, LZ4). */
const FRAMED: readonly Format[] = /* @__PURE__ */ DETECTED_FORMATS.filter((f) => detectOf(f)!.frames === true)

type Match = 'match' | 'partial' | 'no'

/** Whether `magic` is at `head[pos..]`, or could be once more bytes arrive. */
function magicAt(head: Uint8Array, pos: number, magic: readonly number[]): Match {
  for (let i = 0; i < magic.length; i++) {
    if (pos + i >= head.length) return 'partial'
    if (head[pos + i] !== magic[i]) return 'no'
  }
  return 'match'
}

/**
 * A skippable frame's magic, 0x184D2A50..0x184D2A5F little-endian: shared by zstd
 * (RFC 8878 §3.1.2) and the LZ4 frame format, so it does not tell them apart.
 */
function skippableAt(head: Uint8Array, pos: number): Match {
  if (pos >= head.length) return 'partial'
  if ((head[pos]! & 0xf0) !== 0x50) return 'no'
  return magicAt(head, pos + 1, [0x2a, 0x4d, 0x18])
}

/**
 * A zlib header (RFC 1950 §2.2): CM = 8 (deflate), CINFO <= 7 (window <= 32 KiB), and
 * CMF*256 + FLG a multiple of 31. Two bytes with a 1-in-31 check are a weak signature
 * (text starting with "x^" or "x\x01" passes it), so without a preset dictionary the
 * third byte is checked as well: the first deflate block's BTYPE must not be the
 * reserved 11 (RFC 1951 §3.2.3), which no valid stream starts with.
 */
export function zlibHeaderAt(head: Uint8Array): Match {
  if (head.length < 1) return 'partial'
  const cmf = head[0]!
  if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7) return 'no'
  if (head.length < 2) return 'partial'
  const flg = head[1]!
  if ((cmf * 256 + flg) % 31 !== 0) return 'no'
  // FDICT: a 4-byte dictionary id precedes the data; the decoder reports it as UNSUPPORTED.
  if (flg & 0x20) return 'match'
  if (head.length < 3) return 'partial'
  return ((head[2]! >> 1) & 3) === 3 ? 'no' : 'match'
}

/**
 * Whether `head` starts as `format` does (for a declared layer, e.g. an HTTP coding): its
 * magic number (the format table's `detect`), for framed formats also a skippable frame,
 * the zlib header check for deflate; `null` for a format without a magic number.
 */
export function headerAt(format: Format, head: Uint8Array): Match | null {
  const detect = detectOf(format)
  if (detect === undefined) return null
  if (detect.magic === 'zlib header') return zlibHeaderAt(head)
  const m = magicAt(head, 0, detect.magic)
  if (!detect.frames) return m
  const s = skippableAt(head, 0)
  if (m === 'match' || s === 'match') return 'match'
  return m === 'partial' || s === 'partial' ? 'partial' : 'no'
}

/** The first bytes in hex, for messages. */
export function hexHead(head: Uint8Array, n = 16): string {
  const parts: string[] = []
  for (let i = 0; i < Math.min(n, head.length); i++) parts.push(head[i]!.toString(16).padStart(2, '0'))
  return parts.join(' ') + (head.length > n ? ' ...' : '')
}

/**
 * Names the format of `head`: a format, `'unknown'`, `'truncated'` (input ended inside
 * what could still have been a magic number or an RFC 9842 header, or was empty) or
 * `null` (need more bytes).
 *
 * dcz and dcb are named once their whole header (magic and hash) is in. dcz's header is
 * also a valid zstd skippable frame (magic 0x184D2A5E, 32 bytes): a zstd stream starting
 * with exactly that frame is taken as dcz, as RFC 9842 §5 chose it to be; any other
 * skippable frame leads to zstd as before (`format: 'zstd'` forces it).
 */
export function detectFormat(head: Uint8Array, ended: boolean): Format | 'unknown' | 'truncated' | null {
  let partialAtStart = false
  for (const f of AT_START) {
    const match = magicAt(head, 0, magicOf(f))
    if (match === 'match') return f
    if (match === 'partial') partialAtStart = true
  }
  for (const f of ZLIB) {
    const match = zlibHeaderAt(head)
    if (match === 'match') return f
    if (match === 'partial') partialAtStart = true
  }
  for (const t of TRANSPORT_FORMATS) {
    const match = transportHeaderAt(t, head)
    if (match === 'match') return t
    // The whole magic seen, the hash not yet.
    if (match === 'partial' && head.length >= transportHeaderLength(t) - TRANSPORT_HASH_BYTES) return ended ? 'truncated' : null
    if (match === 'partial') partialAtStart = true
  }
  let pos = 0
  let sawSkippable = false
  for (;;) {
    let partial = false
    for (const f of FRAMED) {
      const match = magicAt(head, pos, magicOf(f))
      if (match === 'match') return f
      if (match === 'partial') partial = true
    }
    const skip = skippableAt(head, pos)
    if (skip === 'match') {
      sawSkippable = true
      // 4-byte magic, 4-byte little-endian payload size, payload (RFC 8878 §3.1.2).
      if (pos + 8 > SNIFF_LIMIT) return 'zstd'
      if (pos + 8 > head.length) {
        if (ended) return 'zstd' // the decoder reports the truncated frame
        return null
      }
      const size = (head[pos + 4]! | (head[pos + 5]! << 8) | (head[pos + 6]! << 16)) + head[pos + 7]! * 2 ** 24
      const next = pos + 8 + size
      if (next > SNIFF_LIMIT) return 'zstd' // the next magic lies beyond what we buffer
      if (next > head.length) return ended ? 'zstd' : null
      pos = next
      continue
    }
    if (skip === 'partial') partial = true
    if (sawSkippable) {
      // Only zstd and LZ4 have skippable frames; with only skippable frames seen (or an
      // unknown frame after them) zstd decodes them and reports the rest at its offset.
      if (partial && !ended && head.length < SNIFF_LIMIT) return null
      return 'zstd'
    }
    if (partial || partialAtStart) return ended ? 'truncated' : null
    return 'unknown'
  }
}

const hexOf = (bytes: readonly number[]): string => bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ')

/** What `detectFormat()` recognises, for the message on unrecognised input (from the format table). */
export const DETECTED_DESCRIPTION: string = /* @__PURE__ */ (() => {
  const names = [
    ...DETECTED_FORMATS.map((f) => {
      const d = detectOf(f)!
      return Array.isArray(d.magic) ? `${d.label} (${hexOf(d.magic)})` : d.label
    }),
    ...TRANSPORT_FORMATS.map((t) => `${t} (${hexOf(transportOf(t).magic)})`),
  ]
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`
})()
