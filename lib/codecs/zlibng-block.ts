/**
 * The deflate blocks of block mode (lib/parallel/blocks.ts) on zlib-ng, pigz's way: one
 * raw deflate stream per level kept by the realm (each worker, or the caller's thread
 * for jobs run inline) and reset for every block rather than created and freed, primed
 * with the 32 KiB of input before the block (deflateSetDictionary), and the block's
 * CRC-32 or Adler-32 computed by zlib-ng while the block is in the engine's memory
 * (native/zlibng-deflate.c `zd_block`: one call per block). The output is copied out
 * once, into an array of its exact size that owns its buffer, so that a worker transfers
 * it as it is.
 *
 * The streams (about 400 KiB each, one per level used) and the staging area (the
 * largest block's input and bound so far) stay for the realm's lifetime: a wasm
 * memory never shrinks, so freeing them would return nothing.
 *
 * The engine is passed in (lib/parallel/deflate-tools.ts loads it through the deflate
 * family's module), so that this module, part of the threads code, shares no module with
 * the gzip encoder's chunk.
 */
import { CodecError } from '../errors.js'
import type { ZlibngEngine } from './wasm/zlibng-engine.js'

/** A block's deflate data and its checksum (0 with `check` 'none'). */
export interface DeflateBlock {
  readonly output: Uint8Array
  readonly check: number
}

/** What one block is: `input[prefix..)` with `input[0..prefix)` (or `dictionary`) as its history. */
export interface DeflateBlockInput {
  readonly level: number
  readonly input: Uint8Array
  readonly prefix: number
  readonly dictionary: Uint8Array | null
  readonly last: boolean
  readonly check: 'crc32' | 'adler32' | 'none'
}

const CHECK = { none: 0, crc32: 1, adler32: 2 } as const

/**
 * Room past zlib's deflateBound: the kernel gives each deflate() call 256 KiB of room
 * (native/zlibng-deflate.c BLOCK_PIECE), as the span encoder does, so that the bytes are
 * the ones block mode always wrote.
 */
const PIECE_ROOM = 256 * 1024

/** The io words (consumed, produced, checksum), then the block's history and input, then its output. */
const IO_BYTES = 16

/** zlib's return codes (zlib-ng.h). */
const Z_OK = 0
const Z_STREAM_END = 1

/** What the realm keeps for blocks: level -> its raw deflate stream, and the staging area. */
const streams = new Map<number, number>()
let stage = 0
let stageBytes = 0

/** Encodes one block (see `DeflateBlockInput`) on the realm's zlib-ng `engine`; errors are `CodecError`s. */
export function encodeDeflateBlock(engine: ZlibngEngine, block: DeflateBlockInput): DeflateBlock {
  const { exports: native, heap } = engine
  const history = block.prefix > 0 ? block.input.subarray(0, block.prefix) : (block.dictionary ?? EMPTY)
  const data = block.input.subarray(block.prefix)
  let stream = streams.get(block.level)
  if (stream === undefined) {
    stream = native.zd_create(block.level, -15)
    if (stream === 0) throw new CodecError('LIMIT_EXCEEDED', 'deflate-raw', 'wasm memory exhausted creating a zlib-ng deflate stream for block mode')
    streams.set(block.level, stream)
  }
  const room = native.zd_bound(stream, data.length) + PIECE_ROOM
  const need = IO_BYTES + history.length + data.length + room
  if (need > stageBytes) {
    if (stage !== 0) native.free(stage)
    stage = native.malloc(need)
    stageBytes = stage === 0 ? 0 : need
    if (stage === 0) throw new CodecError('LIMIT_EXCEEDED', 'deflate-raw', `wasm memory exhausted staging a ${data.length}-byte block`)
  }
  const at = stage + IO_BYTES
  const out = at + history.length + data.length
  heap.refresh()
  if (block.prefix > 0) heap.bytes.set(block.input, at)
  else {
    heap.bytes.set(history, at)
    heap.bytes.set(data, at + history.length)
  }
  const result = native.zd_block(stream, at, history.length, data.length, block.last ? 1 : 0, out, room, stage, CHECK[block.check])
  heap.refresh()
  const io = stage >>> 2
  const consumed = heap.words[io]!
  const produced = heap.words[io + 1]!
  const check = heap.words[io + 2]!
  if (result !== (block.last ? Z_STREAM_END : Z_OK) || consumed !== data.length) {
    throw new CodecError('INVALID_DATA', 'deflate-raw', `zlib-ng did not encode a ${data.length}-byte block (deflate returned ${result})`)
  }
  return { output: heap.bytes.slice(out, out + produced), check }
}

const EMPTY = new Uint8Array(0)
