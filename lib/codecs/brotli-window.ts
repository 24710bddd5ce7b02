/**
 * Large-window brotli, told from its first byte, for every brotli decoder engine.
 *
 * A "large window" stream (brotli's extension to RFC 7932, windows up to 2^30) starts
 * with WBITS 0010001, a value RFC 7932 §9.1 leaves invalid, then a reserved bit and 6
 * bits of window size. Our decoders never enable the extension, so such a stream is
 * refused at its first byte with `LIMIT_EXCEEDED`, as a window above the limit (like
 * zstd's windows above `maxWindowLog`): RFC 7932 caps windows at 2^24 - 16 bytes, and
 * RFC 9842 §4 requires dcb's to be at most 16 MB.
 */

const LARGE_WINDOW_WBITS = 0x11

/** Why `head` (the first bytes of a brotli stream, at least one) is refused, or null. */
export function largeWindowRefusal(head: Uint8Array): string | null {
  if ((head[0]! & 0x7f) !== LARGE_WINDOW_WBITS) return null
  const bits = head.length > 1 ? ` (2^${head[1]! & 0x3f} bytes)` : ''
  return `the stream asks for a large window${bits}, brotli's extension beyond RFC 7932; windows are at most 2^24 - 16 bytes (RFC 7932 §9.1; 16 MB for dcb, RFC 9842 §4)`
}
