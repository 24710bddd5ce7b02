/**
 * Facts of the LZ4 frame format (lz4/lz4 `doc/lz4_Frame_format.md`, v1.6.x) that the
 * frame decoder (lz4-frame-decode.ts), the frame encoder (lz4-frame-encode.ts) and the
 * wasm engine (lz4-wasm.ts) share: magic numbers, descriptor bits, block sizes.
 *
 * Frame: magic 04 22 4D 18, descriptor (FLG, BD, optional content size and dictionary
 * ID, header checksum), blocks (4-byte size, high bit = stored uncompressed, optional
 * xxHash32 block checksum), end mark 0, optional xxHash32 content checksum. Skippable
 * frames (magic 0x184D2A50..5F) are skipped whole.
 */

/** Frame magic number 0x184D2204, little-endian ("General Structure"). */
export const MAGIC = 0x184d2204
/** Skippable frames: 0x184D2A50..0x184D2A5F ("Skippable Frames"). */
export const SKIPPABLE_MASK = 0xfffffff0
export const SKIPPABLE_MAGIC = 0x184d2a50
/** The legacy frame ("Legacy frame"): recognised only to say it is not supported. */
export const LEGACY_MAGIC = 0x184c2102

/** FLG bits ("FLG byte"). */
export const FLG_VERSION_MASK = 0xc0
export const FLG_VERSION_01 = 0x40
export const FLG_BLOCK_INDEPENDENCE = 0x20
export const FLG_BLOCK_CHECKSUM = 0x10
export const FLG_CONTENT_SIZE = 0x08
export const FLG_CONTENT_CHECKSUM = 0x04
export const FLG_RESERVED = 0x02
export const FLG_DICT_ID = 0x01
/** BD bits ("BD byte"): bit 7 and bits 3-0 reserved, must be 0. */
export const BD_RESERVED = 0x8f

/** Block Maximum Size by BD id 4..7: 64 KB, 256 KB, 1 MB, 4 MB ("Block Maximum Size"). */
export const BLOCK_MAX_BY_ID = [0, 0, 0, 0, 0x10000, 0x40000, 0x100000, 0x400000] as const
/** Block size field: the high bit says "stored uncompressed" ("Block Size"). */
export const BLOCK_UNCOMPRESSED = 0x80000000
/** Linked blocks reach back at most 64 KiB ("Block Independence flag"). */
export const WINDOW = 0x10000
