/**
 * Encoding streams in block mode (issue 22): `threads` / `blockSize` on the encoder
 * factories, `CompressionStream` and `encodeResponse`. Options are checked here, where
 * the stream is made (issue 20), with the format table's checks (lib/formats.ts `checkBlockSize`, `checkThreadsForm`); the stream
 * itself (parallel-stream-impl.ts: the same `BlockEncoder` as the one-shot `encode()`,
 * so the same bytes, with at most `2 × threads` jobs in flight, reader backpressure,
 * `flush()` ending a block, cancel and abort dropping queued jobs) is part of the threads
 * implementation (./threads-impl.ts), loaded with the stream's first use, so that a
 * user who never asks for threads does not download it. A runtime without workers
 * (workerd) refuses `threads > 1` then: the stream errors with `ENGINE_UNAVAILABLE`.
 * Decoding streams with `threads` (parallelDecodeStream) are made the same way.
 */
import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { checkBlockSize, checkOptions, checkThreadsForm, rowOf } from '../lib/formats.js'
import { prepareDecoder } from '../lib/prepare.js'
import { Machine } from '../lib/machine.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { classes, type StreamClasses } from './codec-stream.js'

/** A readable/writable pair whose `flush()` ends the current block. */
export interface BlockEncoderPair extends ReadableWritablePair<Uint8Array, BinaryInput> {
  flush(): Promise<void>
}

let loading: Promise<typeof import('./threads-impl.js')> | null = null
/** The threads implementation, loaded once for every stream. */
const threadsImpl = (): Promise<typeof import('./threads-impl.js')> => (loading ??= import('./threads-impl.js').catch((error: unknown) => {
    loading = null // a failed load (a chunk that did not arrive) is tried again next time
    throw error
  }))

/** An encoding stream of `format` in block mode; options are checked now, synchronously. */
export function parallelEncodeStream(format: Format, options: Record<string, unknown>): BlockEncoderPair {
  checkThreadsForm(format, options.threads)
  checkBlockSize(format, options.blockSize)
  // Every option at once (unknown keys too), before any worker or engine starts; the
  // threads keys are the shell's here (LZ4's blockSize is its codec option).
  const { codec } = checkOptions(format, 'encode', options, { machine: ['flush', 'chunkSize'], shell: ['signal', 'streams', 'threads', ...(format === 'lz4' ? [] : ['blockSize'])] })
  if (!rowOf(format).blocks) throw new CodecError('UNSUPPORTED', format, `threads > 1 on a ${format} stream: ${format} has no independent blocks; encode() with threads runs it on one worker`)
  if (format === 'zstd' && codec.contentSize !== undefined) {
    throw new CodecError('INVALID_OPTION', format, 'contentSize declares one frame; block mode (blockSize or threads > 1) writes one frame per block, each with its own content size')
  }
  let inner: Promise<BlockEncoderPair> | null = null
  const open = (): Promise<BlockEncoderPair> => (inner ??= threadsImpl().then((m) => m.openBlockStream(format, options, { createEncoder, createDecoder })))
  return { ...relay(open, classes(options.streams as StreamClasses | undefined, format)), flush: async () => (await open()).flush() }
}

/**
 * Whether a decoding stream of `format` with these options decodes in parallel: with
 * `threads` above 1, zstd and LZ4 (unless `concatenated: false`) and the deflate family
 * (with its default engine, sluice's kernels, and no dictionary); a deflate-family
 * stream asked for its index (`onIndex`) whatever `threads`.
 */
export function decodesInParallel(format: Format, options: { threads?: unknown; concatenated?: unknown; onIndex?: unknown; engine?: unknown; dictionary?: unknown }): boolean {
  const deflate = (format === 'gzip' || format === 'deflate' || format === 'deflate-raw') && (options.engine === undefined || options.engine === 'wasm') && options.dictionary === undefined
  if (options.threads === undefined || options.threads === 1) return deflate && options.onIndex !== undefined
  return deflate || ((format === 'zstd' || format === 'lz4') && options.concatenated !== false)
}

/**
 * A decoding stream of zstd, LZ4 or the deflate family with `threads`
 * (parallel-decode-impl.ts: frames or independent blocks decoded as jobs, in order;
 * inflate-stream-impl.ts: one deflate stream in chunks); options are checked now,
 * synchronously. `surface` maps its errors (`DecompressionStream`'s `TypeError`s).
 */
export function parallelDecodeStream(format: Format, options: Record<string, unknown>, surface?: (error: unknown) => unknown, allowShared = true): Pair & { flush(): Promise<void> } {
  checkThreadsForm(format, options.threads)
  const deflate = format === 'gzip' || format === 'deflate' || format === 'deflate-raw'
  if (deflate && options.onIndex !== undefined && typeof options.onIndex !== 'function') throw new CodecError('INVALID_OPTION', format, 'onIndex must be a function (index) => void')
  // Not onProgress: it reports one serial decoder's progress.
  checkOptions(format, 'decode', options, { machine: ['chunkSize', 'concatenated'], shell: ['signal', 'streams', 'threads', ...(deflate ? ['onIndex'] : [])] })
  let inner: Promise<Pair & { flush(): Promise<void> }> | null = null
  const open = () => (inner ??= threadsImpl().then((m) => m.openDecodeStream(format, options, allowShared, surface, { createEncoder, createDecoder, prepareDecoder, Machine })))
  return { ...relay(open, classes(options.streams as StreamClasses | undefined, format)), flush: async () => (await open()).flush() }
}

type Pair = ReadableWritablePair<Uint8Array, BinaryInput>

/**
 * Outer sides that only relay to the pair `open()` makes on first use: the inner stream
 * does the buffering and backpressure. Built from the stream classes the options name
 * (`streams`, e.g. a polyfill's), like every stream of the package.
 */
function relay(open: () => Promise<Pair>, { ReadableStream, WritableStream }: StreamClasses): Pair {
  let writer: WritableStreamDefaultWriter<BinaryInput> | null = null
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null
  const writerOf = async () => (writer ??= (await open()).writable.getWriter())
  const readerOf = async () => (reader ??= (await open()).readable.getReader())
  const readable = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const r = await (await readerOf()).read()
        if (r.done) controller.close()
        else controller.enqueue(r.value)
      },
      async cancel(reason) {
        await (await readerOf()).cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
  const writable = new WritableStream<BinaryInput>({
    async write(chunk) {
      await (await writerOf()).write(chunk)
    },
    async close() {
      await (await writerOf()).close()
    },
    async abort(reason) {
      await (await writerOf()).abort(reason)
    },
  })
  return { readable, writable }
}
