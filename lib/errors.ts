/** The stable codes of `CodecError`, one per kind of failure. */
export type ErrorCode =
  /** Bad options or a call that breaks the API contract (thrown at construction). */
  | 'INVALID_OPTION'
  /** The format name is not one this library knows. */
  | 'UNKNOWN_FORMAT'
  /** The requested engine is not available in this runtime (no silent fallback). */
  | 'ENGINE_UNAVAILABLE'
  /** The input is corrupt: bad magic, bad header, bad block, impossible length. */
  | 'INVALID_DATA'
  /** A checksum stored in the input does not match the decoded data. */
  | 'CHECKSUM_MISMATCH'
  /** The input ended before the stream did. */
  | 'TRUNCATED'
  /** Bytes follow the end of a stream that does not allow concatenation. */
  | 'TRAILING_DATA'
  /** A configured limit was reached (`maxOutputBytes`, `maxWindowLog`, ...). */
  | 'LIMIT_EXCEEDED'
  /** The input uses a feature this library does not implement, or needs what was not given (a zlib preset dictionary). */
  | 'UNSUPPORTED'
  /** The operation was aborted through an `AbortSignal` or cancelled. */
  | 'ABORTED'

/**
 * One error class for everything the library rejects. `code` is stable and meant for
 * programs; `message` is for people and carries the numbers (offsets, lengths, limits).
 */
export class CodecError extends Error {
  /** Always `'CodecError'`. */
  override name = 'CodecError'
  /** Stable machine-readable code. */
  readonly code: ErrorCode
  /** The format being encoded or decoded, e.g. `'gzip'`, `'lz4'`, `'arrow'`. */
  readonly format: string
  /** Byte offset in the input where the problem was found, or -1 when not applicable. */
  readonly offset: number

  constructor(code: ErrorCode, format: string, message: string, offset = -1, options?: { cause?: unknown }) {
    super(offset >= 0 ? `${format}: ${message} (at byte ${offset})` : `${format}: ${message}`, options)
    this.code = code
    this.format = format
    this.offset = offset
  }
}

/**
 * What a codec records when it returns `InvalidData`: a code, a message and the offset
 * relative to the input the codec has consumed since its last `reset()`. The driver
 * turns it into a `CodecError` with the absolute offset in the whole stream.
 */
export interface Failure {
  /** What kind of failure, as `CodecError.code`. */
  code: ErrorCode
  /** What was found and what was expected. */
  message: string
  /** Where, relative to the input consumed since the last `reset()`. */
  offset: number
}
