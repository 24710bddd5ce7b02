/**
 * Body buffers of one RecordBatch or DictionaryBatch message laid out for writing, the
 * twin of body.ts: each buffer 8-byte aligned, optionally compressed one by one
 * (Message.fbs `BodyCompression`, method BUFFER).
 */
import type { Encoder } from '../codec.js'
import { align8 } from '../bytes.js'
import { CodecError } from '../errors.js'
import { Status } from '../status.js'
import type { BatchLayout } from './metadata-write.js'

/** The field nodes (length, null count pairs) and buffers of one message, in order. */
export interface BodyBuffers {
  nodes: number[]
  buffers: Uint8Array[]
  variadicCounts: number[]
}

/**
 * Encoder options for body buffers (`compression` 0 LZ4_FRAME, 1 ZSTD). LZ4 frames
 * carry no content checksum, as Arrow C++ writes them (its LZ4 frame codec starts from
 * zeroed `LZ4F_preferences_t`) and as lz4js does: each buffer's length prefix and the
 * frame's block sizes already catch truncation, and the checksum would cost an
 * xxHash32 pass over every buffer on write and again on read.
 */
export function bodyEncoderOptions(compression: number, level: number | undefined): Record<string, unknown> {
  return compression === 0 ? { level, contentChecksum: false } : { level }
}

/**
 * A message body laid out: its regions (`layout`), its length, and how to write it.
 * Uncompressed bodies are copied from the source buffers straight into the message's
 * memory; compressed ones were written into the writer's scratch memory first (their
 * size is known only after compressing) and are copied from there.
 */
export interface Body {
  layout: BatchLayout
  length: number
  /** Writes the body into `dst` (zeroed memory of exactly `length` bytes). */
  writeTo(dst: Uint8Array): void
}

/**
 * Lays the buffers out as a message body (each 8-byte aligned). With an encoder, each
 * non-empty buffer is stored as its int64 uncompressed length and the compressed
 * frame, or as -1 and the raw bytes when the frame would not be smaller: the encoder
 * gets a destination one byte shorter than the input, so an incompressible buffer
 * stops it early instead of being compressed in full and thrown away. Compressed
 * bodies go into `scratch(capacity)`, memory the writer reuses from message to message.
 */
export function layoutBody(a: BodyBuffers, length: number, encoder: Encoder | null, compression: number, scratch: (capacity: number) => Uint8Array): Body {
  const regions: number[] = []
  if (!encoder) {
    let at = 0
    for (const b of a.buffers) {
      regions.push(at, b.length)
      at += align8(b.length)
    }
    const buffers = a.buffers
    return {
      layout: { length, nodes: a.nodes, buffers: regions, compression: -1, variadicCounts: a.variadicCounts },
      length: at,
      writeTo(dst) {
        for (let i = 0; i < buffers.length; i++) if (buffers[i]!.length > 0) dst.set(buffers[i]!, regions[2 * i]!)
      },
    }
  }
  const body = scratch(compressedCapacity(a.buffers))
  const at = compressBuffers(a.buffers, encoder, body, regions)
  const filled = body.subarray(0, at)
  return {
    layout: { length, nodes: a.nodes, buffers: regions, compression, variadicCounts: a.variadicCounts },
    length: at,
    writeTo(dst) {
      dst.set(filled)
    },
  }
}

/** Memory enough for `buffers` compressed by `compressBuffers` (each region's prefix, and room for it stored raw). */
export function compressedCapacity(buffers: readonly Uint8Array[]): number {
  let capacity = 0
  for (const b of buffers) capacity += align8(b.length) + 8
  return capacity
}

/**
 * Compresses `buffers` one by one into `body` from its start (at least
 * `compressedCapacity(buffers)` bytes), each region 8-byte aligned: the int64
 * uncompressed length and the frame, or -1 and the raw bytes when the frame would not
 * be smaller (the encoder gets a destination one byte shorter than the input, so an
 * incompressible buffer stops it early), zero bytes up to the next aligned start.
 * Pushes each region's offset and length onto `regions`; returns the bytes used (a
 * multiple of 8). The serial writer (`layoutBody`) and the parallel writer's jobs
 * (body-jobs.ts) both run this, so a body's bytes do not depend on `threads`: each
 * region depends on its buffer alone, wherever it is compressed.
 */
export function compressBuffers(buffers: readonly Uint8Array[], encoder: Encoder, body: Uint8Array, regions: number[]): number {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength)
  let at = 0
  for (const b of buffers) {
    if (b.length === 0) { regions.push(at, 0); continue }
    encoder.reset()
    const status = b.length > 1 ? encoder.transform(b, body.subarray(at + 8, at + 8 + b.length - 1), true) : Status.DestinationTooSmall
    let size: number
    if (status === Status.Done) {
      size = encoder.written
      view.setBigInt64(at, BigInt(b.length), true)
    } else if (status === Status.DestinationTooSmall) {
      size = b.length
      view.setBigInt64(at, -1n, true)
      body.set(b, at + 8)
    } else {
      const f = encoder.failure
      throw new CodecError(f?.code ?? 'INVALID_DATA', 'arrow', `${encoder.format} encoder failed: ${f?.message ?? 'unknown'}`)
    }
    // Zero the bytes between this region and the next one's aligned start (the
    // memory may hold bytes of earlier messages).
    const end = at + 8 + size
    body.fill(0, end, align8(end))
    regions.push(at, 8 + size)
    at = align8(end)
  }
  return at
}
