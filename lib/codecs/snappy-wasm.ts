/**
 * Snappy engine `'wasm'`: the codecs of snappy.ts (same framing logic, same errors) with
 * whole blocks decoded and compressed and CRC-32C computed by sluice's hand-written
 * WebAssembly kernel (`wasm/snappy.wat`, ~2 kB).
 *
 * One instance, created when this module loads, serves every codec. Its memory:
 *
 *     [0, 4)             the CRC-32C of the last output decoded by decode_crc
 *     [1024, 9216)       CRC-32C tables (filled by crc32c_init)
 *     [INPUT, +I)        the compressed block (or the bytes to checksum), copied in
 *     SLACK
 *     [output, +O)       the decoded block, copied out
 *     SLACK
 *
 * and when compressing:
 *
 *     [TABLE, +32 KiB)   the compressor's hash table
 *     [SOURCE, +I)       the bytes to compress, copied in
 *     SLACK
 *     [output, +O)       the block (maxCompressedLength(I) at most), copied out
 *     SLACK
 *
 * It grows to the largest block seen up to SHARED_LIMIT; a larger block gets an instance
 * of its own for that call, so one large block does not keep its memory for the life of
 * the page.
 */
import type { CodecModule } from '../codec.js'
import { snappyModules } from './snappy.js'
import { maxCompressedLength, writeVarint } from './snappy-block.js'
import { ERR_MEMORY, type SnappyKernel } from './snappy-kernel.js'
import { compile } from './wasm/instantiate.js'
import { snappyWasm } from '#wasm/snappy'

/** The kernel's exports (wasm/snappy.wat); addresses are i32 byte offsets in `memory`. */
interface SnappyExports {
  readonly memory: WebAssembly.Memory
  /** Elements [src, srcEnd) into [dst, dstEnd); returns bytes written or ERR_* (-1..-4). */
  decode(src: number, srcEnd: number, dst: number, dstEnd: number): number
  /** As decode; on success stores the output's CRC-32C at address 0. */
  decode_crc(src: number, srcEnd: number, dst: number, dstEnd: number): number
  crc32c_init(): void
  crc32c(p: number, length: number, crc: number): number
  /** [src, srcEnd) as one block (preamble included) at dst; returns its end or ERR_RANGE. */
  compress(src: number, srcEnd: number, dst: number, table: number): number
  /** As compress without the preamble (a piece of a block, a multiple of 64 KiB long unless last). */
  fragments(src: number, srcEnd: number, dst: number, table: number): number
}

/** Where staged input starts (after the CRC tables). */
const INPUT = 16384
/** Scratch after each range: snappy.wat's wild copies need 16. */
const SLACK = 64
/** The compressor's hash table (32 KiB, in place of staged decoder input). */
const TABLE = INPUT
/** Where the bytes to compress are staged. */
const SOURCE = TABLE + 32768
/** Larger blocks are compressed in pieces of this size (a multiple of the 64 KiB fragments). */
const PIECE = 1 << 20
/** Blocks needing more memory than this run in an instance of their own. */
const SHARED_LIMIT = 16 * 1024 * 1024
const PAGE = 0x10000

class SnappyMemory {
  readonly exports: SnappyExports
  /** View of the whole memory; replaced after each grow (the old buffer is detached). */
  bytes: Uint8Array

  constructor(instance: WebAssembly.Instance) {
    this.exports = instance.exports as unknown as SnappyExports
    this.exports.crc32c_init()
    this.bytes = new Uint8Array(this.exports.memory.buffer)
  }

  /** Makes `end` bytes addressable (plus the slack snappy.wat's limit keeps); false when memory cannot grow. */
  reserve(end: number): boolean {
    const memory = this.exports.memory
    const need = end + SLACK
    const have = memory.buffer.byteLength
    if (need > have) {
      try {
        memory.grow(Math.ceil((need - have) / PAGE))
      } catch {
        return false
      }
      this.bytes = new Uint8Array(memory.buffer)
    }
    return true
  }
}

let compiled!: WebAssembly.Module
let shared!: SnappyMemory
let loading: Promise<void> | null = null

/** The wasm kernel (one object, all on the shared instance: each call is complete). */
/** The shared instance with `top` bytes addressable, or one of its own for a large call; null without memory. */
function memoryFor(top: number): SnappyMemory | null {
  let memory = shared
  if (top > SHARED_LIMIT) {
    try {
      memory = new SnappyMemory(new WebAssembly.Instance(compiled, {}))
    } catch {
      return null
    }
  }
  return memory.reserve(top) ? memory : null
}

const kernel: SnappyKernel = {
  checksum: 0,
  decodeInto(src, start, end, dst, at, length, checksum) {
    const n = end - start
    const output = INPUT + n + SLACK
    const memory = memoryFor(output + length + SLACK)
    if (memory === null) return ERR_MEMORY
    memory.bytes.set(src.subarray(start, end), INPUT)
    const x = memory.exports
    const r = checksum ? x.decode_crc(INPUT, INPUT + n, output, output + length) : x.decode(INPUT, INPUT + n, output, output + length)
    if (r < 0) return r
    if (r !== length) return -1 // ERR_INPUT: the elements end before the declared length
    const bytes = memory.bytes
    if (checksum) this.checksum = (bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24)) >>> 0
    dst.set(bytes.subarray(output, output + length), at)
    return length
  },
  crc32c(data, start, end) {
    const n = end - start
    if (!shared.reserve(INPUT + n + SLACK)) throw new RangeError(`snappy wasm: cannot grow memory for ${n} bytes`)
    shared.bytes.set(data.subarray(start, end), INPUT)
    return shared.exports.crc32c(INPUT, n, 0) >>> 0
  },
  encodeInto(src, start, end, dst, op, checksum) {
    const total = end - start
    // Up to PIECE bytes staged at a time: the fragments are independent, so the block is
    // the same as from one call, and the shared memory stays small.
    const piece = Math.min(total, PIECE)
    const output = SOURCE + piece + SLACK
    if (!shared.reserve(output + maxCompressedLength(piece) + SLACK)) return ERR_MEMORY
    const x = shared.exports
    op = writeVarint(dst, op, total)
    let crc = 0
    for (let p = start; p < end || p === start; p += PIECE) {
      const n = Math.min(PIECE, end - p)
      shared.bytes.set(src.subarray(p, p + n), SOURCE)
      if (checksum) crc = x.crc32c(SOURCE, n, crc)
      const r = x.fragments(SOURCE, SOURCE + n, output, TABLE)
      // ERR_RANGE cannot happen (reserve() made every range addressable); fail loudly if it does.
      if (r < output) throw new RangeError(`snappy wasm: compress returned ${r}`)
      dst.set(shared.bytes.subarray(output, r), op)
      op += r - output
      if (n === 0) break
    }
    if (checksum) this.checksum = crc >>> 0
    return op
  },
}

/**
 * Compiles and instantiates the kernel (once) and returns the two codec modules and the
 * kernel (for the hyparquet decompressor); codecs can only be created after it resolved.
 */
export async function loadSnappyWasm(): Promise<{ snappy: CodecModule; snappyRaw: CodecModule; kernel: SnappyKernel }> {
  loading ??= (async () => {
    compiled = await compile(await snappyWasm())
    shared = new SnappyMemory(await WebAssembly.instantiate(compiled, {}))
  })()
  loading.catch(() => (loading = null))
  await loading
  return { ...wasmModules, kernel }
}

const wasmModules = /* @__PURE__ */ snappyModules(() => kernel)
