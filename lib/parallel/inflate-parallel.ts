/**
 * One-shot parallel decoding of one gzip, zlib or raw deflate stream (issue 31): the
 * plans of inflate-run.ts over input that is all there, the output gathered into one
 * array (first sized by gzip's last ISIZE), and, when asked, the stream's index built
 * from the block starts the chunks met (index-points.ts).
 *
 * Returns null when the input is not for this path (a zlib stream with a preset
 * dictionary, a stream too small to split without an index) or when the run did not
 * reach the stream's end with every check passed (bytes after the stream, a corrupt
 * chunk, an index that does not match): the caller then decodes serially, which judges
 * the input and reports its usual error and offset. Errors that are not the input's
 * (`ENGINE_UNAVAILABLE`, `ABORTED`) are thrown.
 */
import { readU32LE } from '../endian.js'
import type { GzipIndex } from '../gzip-index/gzip-index.js'
import type { GzipIndexBuilder } from '../gzip-index/index-builder.js'
import type { ChainPosition } from './inflate-chain.js'
import { IndexPoints } from './index-points.js'
import { runInflate, type InflatePlan, type InflateSource } from './inflate-run.js'
import type { JobRunner } from './jobs.js'

/**
 * Compressed bytes per chunk: at most 4 MiB (about 19 MiB of output on text at gzip
 * -6, rapidgzip's default too), so that the part decoded before the markers die out
 * (often a few MiB on indented source text) is a small share; at least 1 MiB, and
 * otherwise about four chunks per thread, so that the last chunks balance the threads.
 */
export function deflateChunkBytes(bytes: number, threads: number): number {
  return Math.min(4 * 1024 * 1024, Math.max(1024 * 1024, Math.ceil(bytes / (4 * threads))))
}

/** A chunk's input runs this far past the next chunk's start: where it really ends is the first candidate boundary after it. */
export const MARGIN_BYTES = 256 * 1024
/** With an index, spans are grouped to about this much output per job. */
export const GROUP_OUTPUT = 4 * 1024 * 1024

type Format = 'gzip' | 'deflate' | 'deflate-raw'

export interface InflateParallelOptions {
  readonly maxOutputBytes: number
  /** gzip: whether members may follow each other (the serial decoder's `concatenated`). */
  readonly concatenated: boolean
  /** Compressed bytes per chunk (default `deflateChunkBytes`); smaller in tests, so that small inputs make many chunks. */
  readonly chunkBytes?: number
  /** How far a chunk's input runs past the next chunk's start. */
  readonly marginBytes?: number
  /** Decode the spans of this index instead of guessing. */
  readonly index?: GzipIndex
  /** The decompressed window of the index's point `i`. */
  readonly window?: (i: number) => Promise<Uint8Array>
  /** Build the stream's index into this builder. */
  readonly builder?: GzipIndexBuilder
  /** Decode these groups of whole members (BGZF, bgzf.ts) instead of guessing. */
  readonly members?: readonly { readonly start: number; readonly end: number; readonly size: number }[]
}

/** Where the deflate data (or the first member) starts, or null when the stream is not for this path. */
export function streamStart(head: Uint8Array, format: Format): ChainPosition | null {
  if (format === 'gzip') return { bit: 0, kind: 'member' }
  if (format === 'deflate-raw') return { bit: 0, kind: 'block' }
  // RFC 1950 section 2.2: CMF, FLG; a preset dictionary (FDICT) goes to the serial decoder.
  if (head.length < 2) return null
  const cmf = head[0]!
  const flg = head[1]!
  if ((cmf & 15) !== 8 || cmf >> 4 > 7 || ((cmf << 8) | flg) % 31 !== 0 || flg & 0x20) return null
  return { bit: 16, kind: 'block' }
}

/** Decodes `bytes` in parallel (see the module comment), or returns null. */
export async function inflateParallel(bytes: Uint8Array, format: Format, options: InflateParallelOptions, run: JobRunner, inFlight: number): Promise<Uint8Array | null> {
  const start = streamStart(bytes, format)
  if (!start) return null
  let plan: InflatePlan
  if (options.members) {
    plan = { kind: 'members', groups: options.members }
  } else if (options.index) {
    plan = { kind: 'index', index: options.index, window: options.window!, groupBytes: GROUP_OUTPUT }
  } else {
    const chunkBytes = options.chunkBytes ?? deflateChunkBytes(bytes.length, inFlight >>> 1)
    if (bytes.length - start.bit / 8 <= chunkBytes) return null
    plan = { kind: 'guess', chunkBytes, marginBytes: options.marginBytes ?? MARGIN_BYTES }
  }
  const size = options.members ? options.members.reduce((n, g) => n + g.size, 0) : options.index ? options.index.uncompressedSize : format === 'gzip' && bytes.length >= 18 ? readU32LE(bytes, bytes.length - 4) : bytes.length * 4
  const out = new OutputBuffer(size, options.maxOutputBytes)
  const points = options.builder ? new IndexPoints(options.builder) : null
  const r = await runInflate(wholeSource(bytes), { format, start, maxOutputBytes: options.maxOutputBytes, concatenated: options.concatenated, plan, points: points !== null, inFlight, recycle: true }, run, (piece, chain) => {
    points?.emit(piece, chain.points)
    out.push(piece)
  })
  // Bytes after the stream (another member's would have been decoded): the serial
  // decoder's to judge.
  if (!r.ok || r.chain.position.bit !== bytes.length * 8) return null
  points?.finish(r.chain.points)
  return out.result()
}

/** The input of a one-shot decode: all there. */
function wholeSource(bytes: Uint8Array): InflateSource {
  const n = bytes.length
  return {
    until: (end) => Promise.resolve(Math.min(end, n)),
    available: () => n,
    slice: (from, to) => bytes.subarray(from, to),
    length: () => n,
    release: () => {},
    changed: () => Promise.resolve(),
  }
}

/** The output, grown as it comes (by half again), first sized by a guess (gzip's last ISIZE). */
class OutputBuffer {
  private bytes: Uint8Array
  private length = 0

  constructor(guess: number, limit: number) {
    this.bytes = new Uint8Array(Math.max(0, Math.min(guess, limit, 2 ** 31)))
  }

  push(piece: Uint8Array): void {
    const need = this.length + piece.length
    if (need > this.bytes.length) {
      const grown = new Uint8Array(Math.max(need, Math.floor(this.bytes.length * 1.5)))
      grown.set(this.bytes.subarray(0, this.length))
      this.bytes = grown
    }
    this.bytes.set(piece, this.length)
    this.length = need
  }

  result(): Uint8Array {
    return this.length === this.bytes.length ? this.bytes : this.bytes.slice(0, this.length)
  }
}
