import type { Decoder } from '../codec.js'
import { CodecError } from '../errors.js'
import { align8 } from '../bytes.js'
import { decodeGrowing, decodeInto } from '../decode-buffer.js'
import { mostDecodedBytes } from '../codec-options.js'
import type { RecordBatchDesc } from './metadata.js'

/**
 * Body buffers of one RecordBatch or DictionaryBatch message.
 *
 * Uncompressed bodies: each buffer is a view into `body` (zero-copy; the caller decides
 * whether `body` itself may be aliased).
 *
 * Compressed bodies (Message.fbs `BodyCompression`, method BUFFER): each buffer region
 * holds an int64 little-endian uncompressed length, then the compressed frame;
 * the length -1 means the rest is stored raw (the writer found compression did not
 * pay). Every buffer decodes straight into a destination of exactly the declared length
 * (one allocation for the whole message, each buffer 8-byte aligned in it, as
 * Columnar.rst recommends), and a frame that decodes to any other length is an error:
 * no guessed sizes, no growth, no second copy. Raw buffers are views into `body` when
 * `aliasRaw` (the caller may alias it, as for uncompressed bodies), else copied into
 * the same allocation.
 *
 * Two real-world deviations are accepted:
 * - apache-arrow 21.2's writer (arrow-js ipc/writer.ts, fixed upstream after 21.2)
 *   stores the *compressed* length in the prefix (and compresses only when that makes
 *   the buffer smaller, so its frames decode to more than the prefix says). A prefix
 *   equal to the payload length is therefore not taken as the size: the buffer gets
 *   no slot in the shared allocation and decodes on its own into the frame's content
 *   size when the header has one (zstd), else into `sizeHint(i, decoded)` (the size
 *   the batch's layout implies; see adapters/arrow/sizes.ts), else into growing
 *   memory; bounded by `maxBytes`. A frame that decodes to less than the prefix is an
 *   error, as before.
 * - Java writers emit an 8-byte prefix of 0 with no payload for empty buffers.
 */
export function decodeBodyBuffers(
  batch: RecordBatchDesc,
  body: Uint8Array,
  bodyOffset: number,
  decoder: Decoder | null,
  maxBytes: number,
  aliasRaw = false,
  sizeHint: ((index: number, decoded: Uint8Array[]) => number) | null = null,
): Uint8Array[] {
  const count = batch.bufferOffsets.length
  const out: Uint8Array[] = new Array(count)
  checkRegions(batch, body, bodyOffset)
  if (batch.compression < 0) {
    for (let i = 0; i < count; i++) {
      const off = batch.bufferOffsets[i]!
      out[i] = body.subarray(off, off + batch.bufferLengths[i]!)
    }
    return out
  }
  if (decoder === null) {
    throw new CodecError('ENGINE_UNAVAILABLE', 'arrow', `no decoder for body compression ${batch.compression === 0 ? 'LZ4_FRAME' : 'ZSTD'}`, bodyOffset)
  }

  // Pass 1: declared lengths, and the size of the arena holding all of them.
  const declared = declaredLengths(batch, body, bodyOffset, maxBytes)
  let arena = 0
  for (let i = 0; i < count; i++) {
    const d = declared[i]!
    const len = batch.bufferLengths[i]!
    // Stored raw: a view of the body, or copied into the arena when the body may not
    // be aliased. apache-arrow 21.2 (see above): the size is found when decoding.
    if (d === -1) { if (!aliasRaw) arena += align8(len - 8) }
    else if (d > 0 && d !== len - 8) arena += align8(d)
  }
  checkArena(arena, maxBytes, bodyOffset)

  // Pass 2: decode each buffer into its aligned slot.
  const memory = new Uint8Array(arena)
  let at = 0
  for (let i = 0; i < count; i++) {
    const off = batch.bufferOffsets[i]!
    const len = batch.bufferLengths[i]!
    const d = declared[i]!
    if (len === 0 || d === 0) { out[i] = EMPTY; continue }
    const payload = body.subarray(off + 8, off + len)
    if (d === -1) {
      if (aliasRaw) { out[i] = payload; continue }
      const dst = memory.subarray(at, at + payload.length)
      dst.set(payload)
      at += align8(payload.length)
      out[i] = dst
      continue
    }
    if (d === payload.length) {
      out[i] = decodeUnsized(batch, body, bodyOffset, i, decoder, maxBytes, sizeHint?.(i, out) ?? -1)
      continue
    }
    const dst = memory.subarray(at, at + d)
    at += align8(d)
    decodeInto(decoder, payload, dst, { ...BUFFER, what: `buffer ${i}`, base: bodyOffset + off + 8 })
    out[i] = dst
  }
  return out
}

/** Checks that every buffer region lies inside the body (Message.fbs: offsets are relative to the body). */
export function checkRegions(batch: RecordBatchDesc, body: Uint8Array, bodyOffset: number): void {
  for (let i = 0; i < batch.bufferOffsets.length; i++) {
    const off = batch.bufferOffsets[i]!
    const len = batch.bufferLengths[i]!
    if (off + len > body.length) {
      throw new CodecError('INVALID_DATA', 'arrow', `buffer ${i} at ${off} of ${len} bytes runs past the ${body.length}-byte body`, bodyOffset)
    }
  }
}

/**
 * Pass 1 over a compressed body (regions checked): each buffer's declared uncompressed
 * length, 0 for an empty region, -1 for a buffer stored raw. A prefix that is
 * negative, above `maxBytes`, or more than its frame can decode to fails here, before
 * anything is allocated.
 */
export function declaredLengths(batch: RecordBatchDesc, body: Uint8Array, bodyOffset: number, maxBytes: number): number[] {
  const count = batch.bufferOffsets.length
  const declared = new Array<number>(count)
  for (let i = 0; i < count; i++) {
    const off = batch.bufferOffsets[i]!
    const len = batch.bufferLengths[i]!
    if (len === 0) { declared[i] = 0; continue } // zero-length region: an empty buffer
    if (len < 8) {
      throw new CodecError('INVALID_DATA', 'arrow', `compressed buffer ${i} is ${len} bytes, shorter than its 8-byte length prefix`, bodyOffset + off)
    }
    const d = readInt64(body, off)
    if (d === -1) { declared[i] = -1; continue }
    if (d < 0) throw new CodecError('INVALID_DATA', 'arrow', `compressed buffer ${i} has an invalid uncompressed length prefix`, bodyOffset + off)
    if (d > maxBytes) throw new CodecError('LIMIT_EXCEEDED', 'arrow', `compressed buffer ${i} declares ${d} uncompressed bytes, more than maxMessageBytes ${maxBytes}`, bodyOffset + off)
    // A declared length no frame of this size can decode to is hostile or corrupt:
    // refuse it before allocating, whatever maxMessageBytes allows.
    const most = mostDecodedBytes(batch.compression === 0 ? 'lz4' : 'zstd', len - 8)
    if (d > most) {
      throw new CodecError('INVALID_DATA', 'arrow', `compressed buffer ${i} declares ${d} uncompressed bytes; ${len - 8} bytes of ${batch.compression === 0 ? 'LZ4 frame' : 'zstd'} decode to at most ${most}`, bodyOffset + off)
    }
    declared[i] = d
  }
  return declared
}

/** Refuses a message whose decoded buffers need more than `maxBytes` (or one typed array) at once. */
export function checkArena(arena: number, maxBytes: number, bodyOffset: number): void {
  if (arena > maxBytes || arena > MAX_ARENA) {
    throw new CodecError('LIMIT_EXCEEDED', 'arrow', arena > maxBytes ? `decompressed body of ${arena} bytes exceeds maxMessageBytes ${maxBytes}` : `decompressed body of ${arena} bytes exceeds ${MAX_ARENA}, the largest typed array every runtime allocates (no option raises it)`, bodyOffset)
  }
}

/**
 * Buffer `i` whose prefix equals its payload's length (apache-arrow 21.2, see
 * `decodeBodyBuffers`): decoded on its own into the size its frame header states, else
 * into `hint` bytes, else into growing memory; fewer bytes than the prefix fail.
 */
export function decodeUnsized(batch: RecordBatchDesc, body: Uint8Array, bodyOffset: number, i: number, decoder: Decoder, maxBytes: number, hint: number): Uint8Array {
  const off = batch.bufferOffsets[i]!
  const d = batch.bufferLengths[i]! - 8
  const got = decodeGrowing(decoder, body.subarray(off + 8, off + 8 + d), maxBytes, { ...BUFFER, what: `buffer ${i}`, base: bodyOffset + off + 8 }, hint)
  if (got.length < d) throw new CodecError('INVALID_DATA', 'arrow', `buffer ${i} decodes to ${got.length} bytes, its prefix declares ${d}`, bodyOffset + off)
  return got
}

const EMPTY = new Uint8Array(0)

/** The largest single allocation made for a message body (one typed array). */
const MAX_ARENA = 2 ** 32 - 1


/** How the body's buffers are described in errors (a buffer is one frame). */
const BUFFER = { format: 'arrow', declaredBy: 'its prefix', concatenated: false, limitName: 'maxMessageBytes' } as const

/** Reads an int64 LE; values outside ±2^53 come back as NaN-free sentinels (-2). */
export function readInt64(b: Uint8Array, at: number): number {
  const lo = (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0
  const hi = b[at + 4]! | (b[at + 5]! << 8) | (b[at + 6]! << 16) | (b[at + 7]! << 24)
  if (hi === -1 && lo === 0xffffffff) return -1
  if (hi < 0 || hi >= 0x200000) return -2
  return hi * 0x100000000 + lo
}
