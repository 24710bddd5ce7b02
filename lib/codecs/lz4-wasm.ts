/**
 * LZ4 engine `'wasm'`: the frame and raw block codecs of `lz4.ts` (same frame logic,
 * same errors) with blocks decoded, frame blocks compressed and checksums computed by
 * sluice's hand-written WebAssembly kernel (`wasm/lz4.wat`, ~3 kB). The frame encoder
 * writes the same bytes as the TypeScript one; the raw block encoder is TypeScript.
 *
 * One instance, created when this module loads, serves every decoder. Its memory:
 *
 *     [0, 48)            xxHash32 state: the content checksum of the owner's frame
 *     [64, 64 + W)       window: linked-block history followed by decoded blocks
 *                        (or a raw block's output)
 *     SLACK              scratch for the decoder's wild copies (lz4.wat's contract)
 *     [input, +I)        the compressed block being decoded, copied in from the caller
 *     SLACK
 *
 * It grows once to the largest frame layout seen and is reused: independent 64 KiB
 * blocks need ~200 KB, linked ones ~1.2 MB (history + 1 MiB of room), 4 MiB blocks
 * ~8.5 MB. The decoder whose frame state (history, hash) is in memory is the
 * owner; when another decoder (or a raw block) needs the memory, the owner's <= 64 KiB
 * of history and 48 bytes of hash state are saved to its own arrays and put back when
 * it continues. One stream at a time, the common case, never copies state.
 *
 * Raw blocks whose input + output exceed SHARED_LIMIT use a second instance held only
 * through a `WeakRef`: reused while back-to-back large blocks keep it alive, collected
 * with its memory once unused, so one large block does not keep memory for the life of
 * the page.
 *
 * Frame encoders share a third instance (`EncodeMemory`), so that a stream decoding
 * one format into another never swaps decoder state out for an encoder:
 *
 *     [0, 48)            xxHash32 state: the content checksum of the owner's frame
 *     [64, +256 KiB)     the compressor's hash table (up to 2^16 entries)
 *     SLACK
 *     [input, +B)        the block being compressed, copied in (B: block size)
 *     SLACK
 *     [output, +B)       its compressed form
 *     SLACK
 *     [work, +320 KiB)   LZ4 HC's tables (levels 3 to 12 only)
 *
 * about 450 kB for 64 KiB blocks (770 kB with HC), 8.7 MB for 4 MiB blocks. A block is
 * compressed in one call, so only the 48-byte hash state changes hands between
 * encoders. Levels 3 to 12 compress with the HC kernel (lz4hc-wasm.ts), loaded by the
 * module's `prepare()` and instantiated on this memory.
 */
import { readU32LE, writeU32LE } from '../endian.js'
import type { CodecModule } from '../codec.js'
import type { OutputStage } from './frame-codec.js'
import { lz4BlockModule, lz4FrameModule, type HcSupport } from './lz4.js'
import { DEFAULT_HASH_LOG } from './lz4-block.js'
import { BLOCK_UNCOMPRESSED } from './lz4-frame-format.js'
import { ERR_BLOCK_CHECKSUM, ERR_MEMORY, type EncodeKernel, type FrameKernel, type RawBlockKernel } from './lz4-kernel.js'
import { HC_MIN_LEVEL } from './lz4hc.js'
import type { Lz4HcExports } from './lz4hc-wasm.js'
import { compile } from './wasm/instantiate.js'
import { lz4Wasm } from '#wasm/lz4'

/** The kernel's exports (wasm/lz4.wat); addresses are i32 byte offsets in `memory`. */
interface Lz4Exports {
  readonly memory: WebAssembly.Memory
  /** Block decoder; returns bytes written or ERR_INPUT/-OUTPUT/-OFFSET (-1..-3), -4 for a bad range. */
  decode(src: number, srcEnd: number, dst: number, dstEnd: number, dictStart: number): number
  xxh32_reset(state: number, seed: number): number
  xxh32_update(state: number, p: number, length: number): number
  xxh32_digest(state: number): number
  xxh32(p: number, length: number, seed: number): number
  /** Block compressor; returns the compressed size, -1 when it does not fit, -4 for a bad range. */
  compress(src: number, srcEnd: number, dst: number, dstEnd: number, table: number, hashLog: number): number
}

/** Address of the 48-byte xxHash32 state (layout in wasm/lz4.wat). */
const HASH_STATE = 0
const HASH_STATE_SIZE = 48
/** Start of the window. */
const WINDOW = 64
/** Scratch after the window and after the input: lz4.wat's decoder needs 32. */
const SLACK = 64
/** Linked blocks reach back 64 KiB (lz4_Frame_format.md, "Block Independence flag"). */
const HISTORY = 0x10000
/**
 * Room after the history in a linked frame's window: the history is slid back to the
 * window start when a block no longer fits, so at least 1 MiB of output passes between
 * two 64 KiB copies.
 */
const LINKED_ROOM = 0x100000
/** Raw blocks needing more memory than this get a dedicated instance. */
const SHARED_LIMIT = 16 * 1024 * 1024
const PAGE = 0x10000

/**
 * Grows `memory` to at least `end` bytes; returns a view of all of it, or null when it
 * cannot grow (over lz4.wat's 2 GiB maximum, or out of memory).
 */
function growTo(memory: WebAssembly.Memory, end: number): Uint8Array | null {
  const have = memory.buffer.byteLength
  if (end > have) {
    try {
      memory.grow(Math.ceil((end - have) / PAGE))
    } catch {
      return null
    }
  }
  return new Uint8Array(memory.buffer)
}

/** One instance and the layout of its memory. */
class Lz4Memory {
  readonly exports: Lz4Exports
  /** View of the whole memory; replaced after each grow (the old buffer is detached). */
  bytes: Uint8Array
  /** Window capacity (bytes from WINDOW). */
  windowSize = 0
  /** Address and capacity of the input staging area. */
  input = WINDOW + SLACK
  inputSize = 0
  /** The frame kernel whose history and hash state are in memory, if any. */
  owner: WasmFrameKernel | null = null

  constructor(instance: WebAssembly.Instance) {
    this.exports = instance.exports as unknown as Lz4Exports
    this.bytes = new Uint8Array(this.exports.memory.buffer)
  }

  /**
   * Makes room for a window of `windowSize` and `inputSize` bytes of input (both only
   * grow; the window keeps its contents). Returns false when the memory cannot grow
   * (over lz4.wat's 2 GiB maximum, or out of memory).
   */
  reserve(windowSize: number, inputSize: number): boolean {
    if (windowSize <= this.windowSize && inputSize <= this.inputSize) return true
    const w = Math.max(windowSize, this.windowSize)
    const i = Math.max(inputSize, this.inputSize)
    const bytes = growTo(this.exports.memory, WINDOW + w + SLACK + i + SLACK)
    if (!bytes) return false
    this.bytes = bytes
    this.windowSize = w
    this.input = WINDOW + w + SLACK
    this.inputSize = i
    return true
  }

  /** Takes the memory for a raw block: the owner's frame state is saved first. */
  evictOwner(): void {
    this.owner?.save()
    this.owner = null
  }
}

/** The compiled kernel and the instances shared by all codecs, set by `loadLz4Wasm()`. */
let compiled!: WebAssembly.Module
let shared!: Lz4Memory
let encoding!: EncodeMemory
let loading: Promise<void> | null = null

/** The frame decoder's kernel: one per decoder, all on the shared instance. */
class WasmFrameKernel implements FrameKernel {
  checksum = 0
  private readonly memory: Lz4Memory
  /** Frame flags from `begin()`. */
  private linked = false
  private contentChecksum = false
  /** Window this frame needs (history + room, or one block). */
  private windowSize = 0
  /** Largest block of this frame (input staging). */
  private blockMax = 0
  /** Next output address in the window (linked frames; valid while owner). */
  private pos = WINDOW
  /** A frame is in progress: its state is worth saving. */
  private active = false
  /** State saved when another decoder took the memory: history (<= 64 KiB) and hash. */
  private savedHistory: Uint8Array | null = null
  private savedLength = 0
  private readonly savedHash = new Uint8Array(HASH_STATE_SIZE)

  constructor(memory: Lz4Memory) {
    this.memory = memory
  }

  /** Puts this decoder's state into memory if another decoder's is there. */
  private acquire(): void {
    const memory = this.memory
    if (memory.owner === this) return
    memory.owner?.save()
    memory.owner = this
    if (!this.active) return
    const bytes = memory.bytes
    bytes.set(this.savedHash, HASH_STATE)
    if (this.linked) {
      // The window only grows, so the history saved from it fits again.
      bytes.set(this.savedHistory!.subarray(0, this.savedLength), WINDOW)
      this.pos = WINDOW + this.savedLength
    }
  }

  /** Called by the next owner: copies this decoder's state out of memory. */
  save(): void {
    if (!this.active) return
    const bytes = this.memory.bytes
    this.savedHash.set(bytes.subarray(HASH_STATE, HASH_STATE + HASH_STATE_SIZE))
    if (this.linked) {
      const keep = Math.min(this.pos - WINDOW, HISTORY)
      const saved = (this.savedHistory ??= new Uint8Array(HISTORY))
      saved.set(bytes.subarray(this.pos - keep, this.pos))
      this.savedLength = keep
    }
  }

  begin(blockMax: number, linked: boolean, contentChecksum: boolean): void {
    this.acquire()
    this.linked = linked
    this.contentChecksum = contentChecksum
    this.blockMax = blockMax
    this.windowSize = linked ? HISTORY + Math.max(blockMax, LINKED_ROOM) : blockMax
    this.pos = WINDOW
    this.active = true
    if (contentChecksum) this.memory.exports.xxh32_reset(HASH_STATE, 0)
  }

  /** Address where `length` more bytes of output go, sliding the history back if needed. */
  private place(length: number): number {
    if (!this.linked) return WINDOW
    const memory = this.memory
    let pos = this.pos
    if (pos + length > WINDOW + memory.windowSize) {
      const keep = Math.min(pos - WINDOW, HISTORY)
      memory.bytes.copyWithin(WINDOW, pos - keep, pos)
      pos = this.pos = WINDOW + keep
    }
    return pos
  }

  decode(data: Uint8Array, start: number, size: number, limit: number, blockChecksum: boolean, dst: Uint8Array, at: number, stage: OutputStage): number {
    this.acquire()
    const memory = this.memory
    if (!memory.reserve(this.windowSize, this.blockMax)) return ERR_MEMORY
    const x = memory.exports
    const input = memory.input
    memory.bytes.set(data.subarray(start, start + size), input)
    if (blockChecksum) {
      const actual = x.xxh32(input, size, 0) >>> 0
      if (actual !== readU32LE(data, start + size)) {
        this.checksum = actual
        return ERR_BLOCK_CHECKSUM
      }
    }
    const pos = this.place(limit)
    const n = x.decode(input, input + size, pos, pos + limit, this.linked ? WINDOW : pos)
    if (n < 0) return n
    if (this.contentChecksum) x.xxh32_update(HASH_STATE, pos, n)
    if (this.linked) this.pos = pos + n
    // Copied out now: another decoder may take the memory before the next call.
    const bytes = memory.bytes
    const direct = Math.min(n, dst.length - at)
    dst.set(bytes.subarray(pos, pos + direct), at)
    if (direct < n) {
      stage.take(this.blockMax).set(bytes.subarray(pos + direct, pos + n), 0)
      stage.hold(0, n - direct)
    }
    return n
  }

  append(data: Uint8Array, start: number, end: number): number {
    if (!this.linked && !this.contentChecksum) return 0
    this.acquire()
    const memory = this.memory
    if (!memory.reserve(this.windowSize, this.blockMax)) return ERR_MEMORY
    const n = end - start
    const pos = this.place(n)
    memory.bytes.set(data.subarray(start, end), pos)
    if (this.contentChecksum) memory.exports.xxh32_update(HASH_STATE, pos, n)
    if (this.linked) this.pos = pos + n
    return 0
  }

  leave(): void {
    // The history stays in memory (saved from there when another decoder takes it).
  }

  digest(): number {
    this.acquire()
    const hash = this.memory.exports.xxh32_digest(HASH_STATE) >>> 0
    // The content checksum ends the frame: nothing left to keep for it.
    this.active = false
    return hash
  }

  release(): void {
    if (this.memory.owner === this) this.memory.owner = null
    this.active = false
    this.savedHistory = null
  }
}

/** The instance for large raw blocks, while the garbage collector lets it live. */
let large: WeakRef<Lz4Memory> | null = null

/** Raw blocks: staged through the shared instance, or the large one. */
const decodeRaw: RawBlockKernel = (src, dst, size) => {
  let memory = shared
  if (size + src.length > SHARED_LIMIT) {
    const kept = large?.deref()
    if (kept !== undefined) memory = kept
    else {
      try {
        memory = new Lz4Memory(new WebAssembly.Instance(compiled, {}))
      } catch {
        return ERR_MEMORY
      }
      large = new WeakRef(memory)
    }
  } else {
    shared.evictOwner()
  }
  if (!memory.reserve(size, src.length)) return ERR_MEMORY
  const input = memory.input
  memory.bytes.set(src, input)
  const n = memory.exports.decode(input, input + src.length, WINDOW, WINDOW + size, WINDOW)
  if (n > 0) dst.set(memory.bytes.subarray(WINDOW, WINDOW + n), 0)
  return n
}

/** Start of the encoders' hash table, and its largest size (2^16 entries of 4 bytes). */
const TABLE = 64
const TABLE_SIZE = 4 << 16

/** The encoders' instance and the layout of its memory (see the top of this file). */
class EncodeMemory {
  readonly exports: Lz4Exports
  /** View of the whole memory; replaced after each grow. */
  bytes: Uint8Array
  /** Largest block the layout has room for, and the input and output addresses. */
  blockSize = 0
  input = 0
  output = 0
  /** LZ4 HC's tables, after the output, and the bytes reserved there (0 until an HC block). */
  work = 0
  workSize = 0
  /** The encoder whose content hash state is in memory, if any. */
  owner: WasmEncodeKernel | null = null

  constructor(instance: WebAssembly.Instance) {
    this.exports = instance.exports as unknown as Lz4Exports
    this.bytes = new Uint8Array(this.exports.memory.buffer)
  }

  /**
   * Makes room for blocks of `size` bytes and `workSize` bytes of HC tables; false when
   * the memory cannot grow.
   */
  reserve(size: number, workSize: number): boolean {
    if (size <= this.blockSize && workSize <= this.workSize) return true
    size = Math.max(size, this.blockSize)
    workSize = Math.max(workSize, this.workSize)
    // Each of input and output is preceded by the slack, where a frame block's 4-byte
    // size field goes, and followed by it, where its checksum goes.
    const input = TABLE + TABLE_SIZE + SLACK
    const output = input + size + SLACK
    const work = output + size + SLACK
    const bytes = growTo(this.exports.memory, work + workSize)
    if (!bytes) return false
    this.bytes = bytes
    this.blockSize = size
    this.input = input
    this.output = output
    this.work = work
    this.workSize = workSize
    return true
  }
}

/** The frame encoder's kernel: one per encoder, all on the encoders' instance. */
class WasmEncodeKernel implements EncodeKernel {
  private readonly memory: EncodeMemory
  /** The content hash was reset and nothing hashed since (the state need not be in memory). */
  private fresh = true
  /** Hash state saved when another encoder took the memory. */
  private readonly savedHash = new Uint8Array(HASH_STATE_SIZE)

  constructor(memory: EncodeMemory) {
    this.memory = memory
  }

  /** Puts this encoder's hash state into memory (a reset one when fresh). */
  private acquire(): void {
    const memory = this.memory
    if (memory.owner !== this) {
      memory.owner?.save()
      memory.owner = this
      if (!this.fresh) memory.bytes.set(this.savedHash, HASH_STATE)
    }
    if (this.fresh) {
      memory.exports.xxh32_reset(HASH_STATE, 0)
      this.fresh = false
    }
  }

  /** Called by the next owner: copies this encoder's hash state out of memory. */
  save(): void {
    const bytes = this.memory.bytes
    this.savedHash.set(bytes.subarray(HASH_STATE, HASH_STATE + HASH_STATE_SIZE))
  }

  begin(): void {
    this.fresh = true
  }

  block(data: Uint8Array, start: number, end: number, level: number, blockChecksum: boolean, contentChecksum: boolean, dst: Uint8Array, at: number, stage: OutputStage): number {
    const memory = this.memory
    const n = end - start
    // The module checked at the encoder's creation that the HC kernel is loaded.
    const hc = level >= HC_MIN_LEVEL ? hcKernel! : null
    if (!memory.reserve(n, hc === null ? 0 : hc.workSize)) return ERR_MEMORY
    this.acquire()
    const x = memory.exports
    const bytes = memory.bytes
    const input = memory.input
    bytes.set(data.subarray(start, end), input)
    if (contentChecksum) x.xxh32_update(HASH_STATE, input, n)
    // Output is capped at n - 1 bytes: a block that would not shrink is stored instead
    // (lz4_Frame_format.md "Block Size"), as in the TypeScript encoder.
    const output = memory.output
    const c = hc === null ? x.compress(input, input + n, output, output + n - 1, TABLE, DEFAULT_HASH_LOG) : hc.exports.compress(input, input + n, output, output + n - 1, memory.work, level)
    if (c < -1) throw new Error(`lz4 wasm compress: bad layout (${c})`)
    const block = c > 0 ? output : input
    const size = c > 0 ? c : n
    writeU32LE(bytes, block - 4, c > 0 ? c : (n | BLOCK_UNCOMPRESSED) >>> 0)
    let e = block + size
    if (blockChecksum) {
      writeU32LE(bytes, e, x.xxh32(block, size, 0))
      e += 4
    }
    // Copied out now: the next encoder's block goes to the same place.
    const first = block - 4
    const length = e - first
    const direct = Math.min(length, dst.length - at)
    dst.set(bytes.subarray(first, first + direct), at)
    if (direct < length) {
      stage.take(n + 8).set(bytes.subarray(first + direct, e), 0)
      stage.hold(0, length - direct)
    }
    return length
  }

  digest(): number {
    this.acquire()
    return this.memory.exports.xxh32_digest(HASH_STATE) >>> 0
  }

  release(): void {
    if (this.memory.owner === this) this.memory.owner = null
  }
}

/** The HC kernel on the encoders' instance, once loaded, with the size of its tables. */
let hcKernel: { exports: Lz4HcExports; workSize: number } | null = null
let hcLoading: Promise<void> | null = null

/** Levels 3 to 12: the HC kernel (lz4hc-wasm.ts), loaded and instantiated on first use. */
const wasmHc: HcSupport = {
  loaded: () => hcKernel !== null,
  load: () =>
    (hcLoading ??= (async () => {
      const m = await import('./lz4hc-wasm.js')
      hcKernel = { exports: await m.instantiateLz4Hc(encoding.exports.memory), workSize: m.HC_WORK_SIZE }
    })().catch((cause: unknown) => {
      // Not kept: a later encoder tries again.
      hcLoading = null
      throw cause
    })),
}

/** LZ4 frames, blocks decoded and compressed in wasm. */
const lz4: CodecModule = lz4FrameModule(
  () => new WasmFrameKernel(shared),
  () => new WasmEncodeKernel(encoding),
  wasmHc,
)

/** Raw LZ4 blocks, decoded in wasm. */
const lz4Block: CodecModule = lz4BlockModule(decodeRaw)

/**
 * Compiles and instantiates the kernel (once) and returns the two codec modules; codecs
 * can only be created after it resolved.
 */
export async function loadLz4Wasm(): Promise<{ lz4: CodecModule; lz4Block: CodecModule }> {
  loading ??= (async () => {
    compiled = await compile(await lz4Wasm())
    shared = new Lz4Memory(await WebAssembly.instantiate(compiled, {}))
    encoding = new EncodeMemory(await WebAssembly.instantiate(compiled, {}))
  })()
  loading.catch(() => (loading = null))
  await loading
  return { lz4, lz4Block }
}
