/**
 * Parquet bloom filters (parquet-format BloomFilter.md): per column chunk, a Thrift
 * `BloomFilterHeader` and a split-block bloom filter bitset, at
 * `ColumnMetaData.bloom_filter_offset`. `parquetBloomFilter` reads one and answers
 * `mightContain(value)`: false means the value is certainly not in the chunk.
 */
import { CodecError } from '../errors.js'
import { checkInteger } from '../options.js'
import { rangeReader, readExactly } from '../range-source.js'
import { CompactType, fieldHeader, FORMAT, missingField, readI32, skip, skipStruct, ThriftCursor } from './thrift.js'
import type { ColumnMetaData, FileMetaData, Int64, MetadataSource } from './types.js'
import { xxhash64 } from '../codecs/xxhash64.js'

const { I32, STRUCT } = CompactType

/** The split-block filter's salts (BloomFilter.md, "Technical Approach"). */
const SALT = /* @__PURE__ */ Uint32Array.of(0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31)

/**
 * The largest bitset read: parquet-mr's and Arrow's writers cap filters at 128 MiB
 * (BloomFilter.md: "the maximum size ... is 128MB"); the size comes from the file.
 */
const MAX_BITSET = 128 * 1024 * 1024
/** Bytes read for a header when the footer gives no `bloom_filter_length` (headers are ~15 bytes). */
const HEADER_PROBE = 64

/** A value a bloom filter can be asked about, by the column's physical type. */
export type BloomValue = boolean | number | bigint | string | Uint8Array

/** One column chunk's bloom filter. */
export interface BloomFilter {
  /** Size of the bitset in bytes (a multiple of 32). */
  readonly numBytes: number
  /** The bitset: blocks of 8 little-endian 32-bit words. */
  readonly bitset: Uint8Array
  /**
   * False when `value` is certainly not in the chunk; true when it may be. The value is
   * hashed in its PLAIN encoding for the column's physical type (INT32: 4 bytes, INT64:
   * 8, FLOAT/DOUBLE: IEEE 754, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY: the bytes, a string
   * as UTF-8, BOOLEAN: 1 byte). A value of the wrong kind for the type is a `CodecError`.
   */
  mightContain(value: BloomValue): boolean
  /** The same for a precomputed XXH64 hash of the PLAIN encoding. */
  mightContainHash(hash: bigint): boolean
}

/*
 * struct BloomFilterHeader {
 *   1: required i32 numBytes;
 *   2: required BloomFilterAlgorithm algorithm;   // union { 1: SplitBlockAlgorithm BLOCK }
 *   3: required BloomFilterHash hash;             // union { 1: XxHash XXHASH }
 *   4: required BloomFilterCompression compression; // union { 1: Uncompressed UNCOMPRESSED }
 * }
 */
const BF_NUM_BYTES = 1 << 0
const BF_ALGORITHM = 1 << 1
const BF_HASH = 1 << 2
const BF_COMPRESSION = 1 << 3
const BF_REQUIRED = BF_NUM_BYTES | BF_ALGORITHM | BF_HASH | BF_COMPRESSION
const BF_FIELDS = ['numBytes', 'algorithm', 'hash', 'compression']
const UNIONS = ['', '', 'algorithm (BLOCK)', 'hash (XXHASH)', 'compression (UNCOMPRESSED)']

/** A union whose only known member is field 1 (an empty struct): returns the member's id. */
function readUnion(c: ThriftCursor): number {
  let member = 0
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'BloomFilterHeader union')
    if (wire === 0) break
    fid = c.fieldId
    if (member === 0) member = fid
    if (wire === STRUCT) skipStruct(c)
    else skip(c, wire)
  }
  return member
}

/** Decodes a BloomFilterHeader; returns numBytes after checking the unions name what this reader knows. */
export function readBloomFilterHeader(c: ThriftCursor): number {
  const start = c.offset
  let numBytes = -1
  let seen = 0
  let fid = 0
  for (;;) {
    const wire = fieldHeader(c, fid, 'BloomFilterHeader')
    if (wire === 0) break
    fid = c.fieldId
    if (fid === 1 && (wire | 1) === I32) {
      numBytes = readI32(c)
      seen |= BF_NUM_BYTES
    } else if (fid >= 2 && fid <= 4 && wire === STRUCT) {
      const at = c.offset
      const member = readUnion(c)
      if (member !== 1) throw new CodecError('UNSUPPORTED', FORMAT, `bloom filter ${UNIONS[fid]} is member ${member}, the only one known is 1`, c.origin + at)
      seen |= fid === 2 ? BF_ALGORITHM : fid === 3 ? BF_HASH : BF_COMPRESSION
    } else skip(c, wire)
  }
  if (seen !== BF_REQUIRED) missingField(c, 'BloomFilterHeader', BF_FIELDS, seen, start)
  if (numBytes < 32 || numBytes % 32 !== 0 || numBytes > MAX_BITSET) {
    throw new CodecError('INVALID_DATA', FORMAT, `bloom filter numBytes ${numBytes} is not a multiple of 32 from 32 to ${MAX_BITSET}`, c.origin + start)
  }
  return numBytes
}

/** The split-block filter over `bitset`. */
function splitBlockFilter(bitset: Uint8Array, type: ColumnMetaData['type']): BloomFilter {
  const words = new Uint32Array(bitset.length >> 2)
  const view = new DataView(bitset.buffer, bitset.byteOffset, bitset.byteLength)
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, true)
  const blocks = BigInt(words.length >> 3)
  const containsHash = (hash: bigint): boolean => {
    const block = Number(((hash >> 32n) * blocks) >> 32n) * 8
    const key = Number(hash & 0xffffffffn)
    for (let i = 0; i < 8; i++) {
      const bit = Math.imul(key, SALT[i]!) >>> 27
      if ((words[block + i]! & (1 << bit)) === 0) return false
    }
    return true
  }
  return {
    numBytes: bitset.length,
    bitset,
    mightContainHash: containsHash,
    mightContain: (value) => containsHash(xxhash64(plain(value, type))),
  }
}

const utf8 = /* @__PURE__ */ new TextEncoder()

/** The PLAIN encoding of `value` for a column of physical `type` (byte arrays without their length). */
function plain(value: BloomValue, type: ColumnMetaData['type']): Uint8Array {
  const wrong = (): never => {
    throw new CodecError('INVALID_OPTION', FORMAT, `a ${typeof value} cannot be a ${String(type)} value for a bloom filter lookup`)
  }
  switch (type) {
    case 'BOOLEAN':
      return typeof value === 'boolean' ? Uint8Array.of(value ? 1 : 0) : wrong()
    case 'INT32': {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 32) return wrong()
      const b = new Uint8Array(4)
      new DataView(b.buffer).setInt32(0, value | 0, true)
      return b
    }
    case 'INT64': {
      const v = typeof value === 'bigint' ? value : typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : wrong()
      const b = new Uint8Array(8)
      new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, v), true)
      return b
    }
    case 'FLOAT':
    case 'DOUBLE': {
      if (typeof value !== 'number') return wrong()
      const b = new Uint8Array(type === 'FLOAT' ? 4 : 8)
      if (type === 'FLOAT') new DataView(b.buffer).setFloat32(0, value, true)
      else new DataView(b.buffer).setFloat64(0, value, true)
      return b
    }
    case 'BYTE_ARRAY':
    case 'FIXED_LEN_BYTE_ARRAY':
    case 'INT96':
      return typeof value === 'string' ? utf8.encode(value) : value instanceof Uint8Array ? value : wrong()
    default:
      return wrong()
  }
}

/** Options of `parquetBloomFilter()`: the column chunk whose filter to read (both required). */
export interface BloomFilterOptions {
  /** Row group index in `metadata.row_groups`. */
  rowGroup: number
  /** Column path ('a.b') or index into the row group's `columns`. */
  column: string | number
}

/**
 * Reads the bloom filter of one column chunk from `source` (the file: bytes, a `Blob` or
 * `{ size, read(offset, length) }`); `undefined` when the chunk has none. One read when
 * the footer records the filter's length, else two (header, then bitset). Offsets past
 * the file and malformed headers are `CodecError`s; an algorithm, hash or compression
 * other than the spec's one is `UNSUPPORTED`.
 */
export async function parquetBloomFilter(source: MetadataSource, metadata: FileMetaData, options: BloomFilterOptions): Promise<BloomFilter | undefined> {
  if (typeof options !== 'object' || options === null) throw new CodecError('INVALID_OPTION', FORMAT, 'options { rowGroup, column } are required')
  const g = checkInteger(FORMAT, 'rowGroup', options.rowGroup, 0, Math.max(0, metadata.row_groups.length - 1))
  if (g === undefined) throw new CodecError('INVALID_OPTION', FORMAT, 'rowGroup is required')
  const columns = metadata.row_groups[g]!.columns
  const index = typeof options.column === 'number' ? options.column : columns.findIndex((c) => c.meta_data?.path_in_schema.join('.') === options.column)
  const meta = columns[index]?.meta_data
  if (meta === undefined) throw new CodecError('INVALID_OPTION', FORMAT, `no column ${JSON.stringify(options.column)} with metadata in row group ${g}`)
  if (meta.bloom_filter_offset === undefined) return undefined
  const memory = source instanceof Uint8Array ? source : source instanceof ArrayBuffer ? new Uint8Array(source) : null
  const reader = memory === null ? rangeReader(source, FORMAT) : null
  const size = memory !== null ? memory.length : reader!.size
  const offset = safeOffset(meta.bloom_filter_offset, size)
  const read = (at: number, length: number): Promise<Uint8Array> | Uint8Array => (memory !== null ? memory.subarray(at, at + length) : readExactly(reader!, at, length, FORMAT))
  const length = meta.bloom_filter_length
  if (length !== undefined && (length < 0 || offset + length > size)) {
    throw new CodecError('INVALID_DATA', FORMAT, `bloom filter of ${length} bytes at ${offset} lies past the end of the ${size}-byte file`, offset)
  }
  const first = await read(offset, length ?? Math.min(HEADER_PROBE, size - offset))
  const c = new ThriftCursor(first, 0, offset)
  let numBytes: number
  try {
    numBytes = readBloomFilterHeader(c)
  } catch (error) {
    if (error instanceof CodecError && error.code === 'TRUNCATED') throw new CodecError('INVALID_DATA', FORMAT, `bloom filter header at ${offset} runs past ${first.length} bytes: ${error.message}`, error.offset)
    throw error
  }
  const bitsetAt = offset + c.offset
  if (bitsetAt + numBytes > size || (length !== undefined && c.offset + numBytes > length)) {
    throw new CodecError('INVALID_DATA', FORMAT, `bloom filter bitset of ${numBytes} bytes at ${bitsetAt} lies past ${length !== undefined ? `its ${length}-byte filter` : `the end of the ${size}-byte file`}`, bitsetAt)
  }
  const bitset = length !== undefined ? first.subarray(c.offset, c.offset + numBytes) : await read(bitsetAt, numBytes)
  return splitBlockFilter(bitset, meta.type)
}

function safeOffset(value: Int64, size: number): number {
  const n = typeof value === 'bigint' ? (value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : -1) : value
  if (!Number.isSafeInteger(n) || n < 0 || n >= size) throw new CodecError('INVALID_DATA', FORMAT, `bloom filter offset ${String(value)} lies outside the ${size}-byte file`)
  return n
}
