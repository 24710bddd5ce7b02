/**
 * `gzipIndex()`: the random-access index of a gzip, zlib or raw deflate file
 * (lib/gzip-index/gzip-index.ts) in one pass over it, from bytes, a `Blob`, any range
 * source (read front to back in 1 MiB reads) or a stream. The file is decoded by the
 * indexing decoder (lib/gzip-index/indexing-decoder.ts) through the machine, so the
 * decode's checks all apply (CRCs, trailers, padding, trailing data); the output is
 * dropped. A BGZF file (lib/codecs/bgzf.ts) is not decoded: its block headers give every
 * point (lib/gzip-index/bgzf-walk.ts).
 */
import { joinBytes } from '../lib/bytes.js'
import { CodecError } from '../lib/errors.js'
import { Machine } from '../lib/machine.js'
import { checkKeys, checkInteger, checkOneOf } from '../lib/options.js'
import { rangeReader, readExactly, type ByteSource } from '../lib/range-source.js'
import { bgzfBlockAt } from '../lib/codecs/bgzf.js'
import { GZIP_INDEX_FORMATS, type GzipIndex, type GzipIndexFormat } from '../lib/gzip-index/gzip-index.js'
import { DEFAULT_SPACING } from '../lib/gzip-index/index-builder.js'
import { createIndexingDecoder } from '../lib/gzip-index/indexing-decoder.js'
import { BgzfWalker } from '../lib/gzip-index/bgzf-walk.js'
import type { IndexEngine } from '../lib/gzip-index/engines.js'

/** What `gzipIndex()` reads: bytes, a `Blob`, a range source, or a stream of the file. */
export type GzipIndexInput = ByteSource | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>

/** Options of `gzipIndex()`. */
export interface GzipIndexOptions {
  /**
   * Bytes of decoded content between access points; default 4 MiB (`DEFAULT_SPACING`):
   * the index is then about 0.8% of a text file's compressed size, and a read decodes
   * on average 2 MiB before the bytes it asks for. Ignored for BGZF, where every block
   * is a point and needs no window.
   */
  spacing?: number
  /** `'gzip'` (default: members, BGZF included), `'deflate'` (a zlib stream) or `'deflate-raw'`. */
  format?: GzipIndexFormat
  /** The decoder's engine: `'wasm'` (default) or `'js'`. */
  engine?: IndexEngine
}

/** Size of each read from a range source. */
const READ_SIZE = 1 << 20
/** Decoded output goes through one buffer of this size and is dropped. */
const SINK_SIZE = 1 << 20

/**
 * Builds the index of a gzip (default), zlib or raw deflate file by decoding it once
 * (its cost: one full decode, about 1.1 times a plain one) or, for BGZF, by walking its
 * block headers. Rejects with the decoder's errors for a damaged file.
 */
export async function gzipIndex(input: GzipIndexInput, options: GzipIndexOptions = {}): Promise<GzipIndex> {
  checkKeys('gzip', options, ['spacing', 'format', 'engine'])
  const format = checkOneOf('gzip', 'format', options.format, GZIP_INDEX_FORMATS, 'gzip')
  checkInteger(format, 'spacing', options.spacing, 1, Number.MAX_SAFE_INTEGER, DEFAULT_SPACING)
  checkOneOf(format, 'engine', options.engine, ['wasm', 'js'] as const, 'wasm')
  const chunks = chunksOf(input, format)
  // The first bytes tell whether this is BGZF (a gzip member with the BC subfield).
  const head: Uint8Array[] = []
  let headLength = 0
  while (format === 'gzip' && headLength < 64) {
    const r = await chunks.next()
    if (r.done) break
    head.push(r.value)
    headLength += r.value.length
  }
  const start = joinBytes(head, headLength)
  const all = (async function* (): AsyncGenerator<Uint8Array> {
    if (start.length > 0) yield start
    for (let r = await chunks.next(); !r.done; r = await chunks.next()) yield r.value
  })()
  if (start.length >= 12 && start[0] === 0x1f && start[1] === 0x8b && start[2] === 8 && bgzfBlockAt(start, 0, 0)) return walkBgzf(all)
  return decodeForIndex(all, format, options)
}

async function walkBgzf(chunks: AsyncIterable<Uint8Array>): Promise<GzipIndex> {
  const walker = new BgzfWalker()
  let total = 0
  for await (const chunk of chunks) {
    walker.push(chunk)
    total += chunk.length
  }
  return walker.finish(total)
}

async function decodeForIndex(chunks: AsyncIterable<Uint8Array>, format: GzipIndexFormat, options: GzipIndexOptions): Promise<GzipIndex> {
  const decoder = await createIndexingDecoder(format, { spacing: options.spacing, engine: options.engine })
  try {
    const machine = new Machine(decoder, { format, mode: 'decode', blockSize: SINK_SIZE, maxOutputBytes: Infinity, concatenated: format === 'gzip' })
    const sink = new Uint8Array(SINK_SIZE)
    let total = 0
    for await (const chunk of chunks) {
      if (chunk.length === 0) continue
      total += chunk.length
      machine.push(chunk)
      while (machine.nextInto(sink) > 0);
    }
    machine.end()
    while (machine.nextInto(sink) > 0);
    if (!machine.finished) throw new CodecError('TRUNCATED', format, 'the file ended inside the compressed stream', total)
    return decoder.finish(total)
  } finally {
    decoder.dispose()
  }
}

/** The input as chunks: range sources read front to back, streams as they come. */
async function* chunksOf(input: GzipIndexInput, format: string): AsyncGenerator<Uint8Array> {
  if (typeof ReadableStream !== 'undefined' && input instanceof ReadableStream) {
    const reader = (input as ReadableStream<Uint8Array>).getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        yield checkChunk(value, format)
      }
    } finally {
      reader.releaseLock()
    }
  }
  if (input !== null && typeof input === 'object' && Symbol.asyncIterator in input) {
    for await (const chunk of input as AsyncIterable<Uint8Array>) yield checkChunk(chunk, format)
    return
  }
  const reader = rangeReader(input as ByteSource, format)
  for (let at = 0; at < reader.size; at += READ_SIZE) yield await readExactly(reader, at, Math.min(READ_SIZE, reader.size - at), format)
}

function checkChunk(chunk: unknown, format: string): Uint8Array {
  if (!(chunk instanceof Uint8Array)) throw new CodecError('INVALID_OPTION', format, 'the stream must yield Uint8Array chunks')
  return chunk
}
