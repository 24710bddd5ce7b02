/**
 * Facts of Snappy's framing format (google/snappy `framing_format.txt`), shared by its
 * decoder and encoder: a stream is a sequence of chunks, each a 1-byte type and a 3-byte
 * little-endian length, then that many bytes.
 */

/** Section 4.1: the stream identifier chunk, first in every stream (and allowed again later). */
export const STREAM_IDENTIFIER = /* @__PURE__ */ Uint8Array.of(0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59)
/** Section 4.2: compressed data, a masked CRC-32C of the uncompressed data and one Snappy block. */
export const CHUNK_COMPRESSED = 0x00
/** Section 4.3: uncompressed data, a masked CRC-32C and the data. */
export const CHUNK_UNCOMPRESSED = 0x01
/** Section 4.5: reserved unskippable chunks 0x02-0x7f: a decoder must refuse them. */
export const RESERVED_UNSKIPPABLE_END = 0x7f
/** Section 4.6: reserved skippable chunks 0x80-0xfd; section 4.4: padding 0xfe. Both skipped. */
export const SKIPPABLE_START = 0x80
export const CHUNK_STREAM_IDENTIFIER = 0xff

/**
 * Sections 4.2 and 4.3: the uncompressed data of one chunk "must be no longer than 65536
 * bytes" (so a decoder needs no bigger buffer).
 */
export const MAX_CHUNK_DATA = 65536
/**
 * The longest compressed data chunk that can be valid: the checksum, a preamble of at most
 * 5 bytes and 65536 bytes at most 6 input bytes each (the costliest element is a 1-byte
 * literal written with a 4-byte length, format_description.txt section 2.1). Longer ones
 * are refused from their header, before their bytes are gathered.
 */
export const MAX_COMPRESSED_CHUNK = 4 + 5 + 6 * MAX_CHUNK_DATA
/** An uncompressed data chunk: the checksum and at most 65536 bytes. */
export const MAX_UNCOMPRESSED_CHUNK = 4 + MAX_CHUNK_DATA
