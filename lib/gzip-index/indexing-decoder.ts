/**
 * A deflate family decoder (gzip, zlib, raw deflate) that builds the stream's index
 * (gzip-index.ts) while it decodes: its body reports each block start
 * (inflate-observer.ts), and the start that is due (index-builder.ts) becomes a point
 * with the body's history as its window. One pass, the same output and checks as the
 * plain decoder; the cost is one test per block and one compressed window per point.
 *
 * It is a span decoder like any other, so the machine (lib/machine.ts) drives it through
 * concatenated gzip members: a member starts where the machine resets it, at the input
 * and output it has counted so far, and the body's member-relative offsets are made
 * offsets in the file and the content from there.
 */
import type { Decoder } from '../codec.js'
import type { Failure } from '../errors.js'
import type { Status } from '../status.js'
import type { DeflateFamilyDecoder } from '../codecs/deflate.js'
import type { BlockObserver, IndexableBody } from '../codecs/inflate-observer.js'
import { checkInteger } from '../options.js'
import type { GzipIndex, GzipIndexFormat } from './gzip-index.js'
import { DEFAULT_SPACING, GzipIndexBuilder } from './index-builder.js'
import { loadIndexParts, type IndexEngine } from './engines.js'

export class IndexingDecoder implements Decoder, BlockObserver {
  readonly format: string
  consumed = 0
  written = 0
  failure: Failure | null = null
  /** Input consumed and output written over every member so far. */
  totalIn = 0
  totalOut = 0
  /** Where the current member starts in the file and in the content. */
  private memberIn = 0
  private memberOut = 0

  constructor(
    private readonly inner: DeflateFamilyDecoder,
    private readonly body: IndexableBody,
    readonly builder: GzipIndexBuilder,
  ) {
    this.format = inner.format
    body.observer = this
  }

  block(bit: number, out: number): void {
    const at = this.memberOut + out
    if (this.builder.due(at)) this.builder.add(this.memberIn * 8 + bit, at, this.body.history())
  }

  transform(src: Uint8Array, dst: Uint8Array, final: boolean): Status {
    const inner = this.inner
    const status = inner.transform(src, dst, final)
    this.consumed = inner.consumed
    this.written = inner.written
    this.failure = inner.failure
    this.totalIn += inner.consumed
    this.totalOut += inner.written
    return status
  }

  /** The next member starts here (the machine resets a decoder between members). */
  reset(): void {
    this.inner.reset()
    this.memberIn = this.totalIn
    this.memberOut = this.totalOut
    this.consumed = this.written = 0
    this.failure = null
  }

  startsMember(src: Uint8Array): 'match' | 'partial' | 'no' {
    return this.inner.startsMember(src)
  }

  /**
   * The index, once the whole input was decoded: `compressedSize` is the file's size
   * (padding after the last member included, which the decoder did not consume).
   */
  finish(compressedSize: number): GzipIndex {
    return this.builder.finish(compressedSize, this.totalOut)
  }

  dispose(): void {
    this.body.observer = null
    this.inner.dispose()
  }
}

/** Options of `createIndexingDecoder`. */
export interface IndexingOptions {
  /** Output bytes between access points; default `DEFAULT_SPACING` (4 MiB). */
  spacing?: number
  /** `'wasm'` (default) or `'js'`. */
  engine?: IndexEngine
}

/** A new indexing decoder of `format` (its engine loaded first). */
export async function createIndexingDecoder(format: GzipIndexFormat, options: IndexingOptions = {}): Promise<IndexingDecoder> {
  const spacing = checkInteger(format, 'spacing', options.spacing, 1, Number.MAX_SAFE_INTEGER, DEFAULT_SPACING)
  const parts = await loadIndexParts(options.engine)
  const body = parts.body(format)
  return new IndexingDecoder(parts.decoder(format, body), body, new GzipIndexBuilder(format, spacing, parts.compressor()))
}
