/**
 * What the range readers (zstd-seekable.ts, gzip-indexed.ts) share: `read()` and
 * `stream()` over the generator of decoded pieces each reader implements, and the check
 * of a requested range.
 */
import { CodecError } from '../lib/errors.js'

/** A piece of the content a read asked for: a view of decoded memory, `kept` when that memory is kept or reused (a stream then copies it). */
export interface Piece {
  bytes: Uint8Array
  kept: boolean
}

/**
 * `INVALID_OPTION` for a range that is not non-negative integers, that ends past `size`,
 * or of a reader that was closed (`what`: "the seekable archive").
 */
function checkRange(format: string, offset: number, length: number, size: number, closed: boolean, what: string): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new CodecError('INVALID_OPTION', format, `offset and length must be non-negative integers, got ${String(offset)} and ${String(length)}`)
  }
  if (offset + length > size) {
    throw new CodecError('INVALID_OPTION', format, `range ${offset}..${offset + length} is past the end of the content (${size} bytes)`)
  }
  if (closed) throw new CodecError('INVALID_OPTION', format, `${what} was closed`)
}

/** The pieces of a range of `length` bytes, joined. */
async function collect(pieces: AsyncIterable<Piece>, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length)
  let at = 0
  for await (const piece of pieces) {
    out.set(piece.bytes, at)
    at += piece.bytes.length
  }
  return out
}

/** The pieces as a stream, pulled as it is read; cancelling it ends the generator. */
function piecesStream(pieces: AsyncGenerator<Piece, void, undefined>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        const next = await pieces.next()
        // Kept memory is copied: a later read hands out the same bytes again.
        if (next.done) controller.close()
        else controller.enqueue(next.value.kept ? next.value.bytes.slice() : next.value.bytes)
      },
      cancel: async () => {
        await pieces.return(undefined)
      },
    },
    { highWaterMark: 0 },
  )
}

/** A reader of ranges of decoded content: `read()` and `stream()` over `pieces()`. */
export abstract class PieceReader {
  abstract readonly size: number
  protected closed = false

  constructor(
    /** The format, for errors. */
    private readonly errorFormat: string,
    /** What is read, for errors ("the seekable archive"). */
    private readonly what: string,
  ) {}

  /** The content `[offset, offset + length)` as pieces, in order (the range checked). */
  protected abstract pieces(offset: number, length: number): AsyncGenerator<Piece, void, undefined>

  /** Decompresses `length` bytes from content offset `offset`; past `size` is INVALID_OPTION. */
  async read(offset: number, length: number): Promise<Uint8Array> {
    this.checkRange(offset, length)
    return collect(this.pieces(offset, length), length)
  }

  /** The content from `offset` (default 0), `length` bytes (default: to the end), as a stream. */
  stream(offset = 0, length?: number): ReadableStream<Uint8Array> {
    const span = length ?? (Number.isSafeInteger(offset) ? this.size - offset : NaN)
    this.checkRange(offset, span)
    return piecesStream(this.pieces(offset, span))
  }

  private checkRange(offset: number, length: number): void {
    checkRange(this.errorFormat, offset, length, this.size, this.closed, this.what)
  }
}
