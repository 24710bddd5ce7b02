/**
 * The threads forms of streams (issue 22), as the surfaces make them when
 * ./threads-decision.ts says so: encoding streams in block mode (`threads` / `blockSize`
 * on the encoder factories, `CompressionStream`, `encodeResponse`, the Node adapter) and
 * decoding streams with `threads` (zstd, LZ4, the deflate family). Options are checked
 * here, where the stream is made (issue 20), with the format table's checks
 * (lib/codec-options.ts `checkBlockSize`, lib/options.ts `checkThreadsForm`); the
 * streams themselves (./block-encode-stream.ts: the same `BlockEncoder` as the one-shot
 * `encode()`, so the same bytes; ./parallel-decode-stream.ts; ./parallel-inflate-stream.ts;
 * all on the ordered-job shell, ./ordered-job-stream.ts) are part of the threads
 * implementation (./threads-impl.ts), loaded with the stream's first use, so that a
 * user who never asks for threads does not download it. A runtime without workers
 * (workerd) refuses `threads > 1` then: the stream errors with `ENGINE_UNAVAILABLE`.
 * Errors and chunks follow the caller's `SurfaceRules` (the web classes' `TypeError`s
 * and no shared memory) from the first load on.
 */
import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { rowOf } from '../lib/formats.js'
import { checkBlockSize, checkOptions, threadsDecodeKeys } from '../lib/codec-options.js'
import { checkThreadsForm } from '../lib/options.js'
import { prepareDecoder } from '../lib/prepare.js'
import { Machine } from '../lib/machine.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { classes, type StreamClasses, type SurfaceRules } from './codec-stream.js'

/** A threads stream's pair: `flush()` ends the current block (encoders) or rejects with `UNSUPPORTED` (decoders). */
export interface ThreadsPair extends ReadableWritablePair<Uint8Array, BinaryInput> {
  flush(): Promise<void>
}

let loading: Promise<typeof import('./threads-impl.js')> | null = null
/** The threads implementation, loaded once for every stream. */
const threadsImpl = (): Promise<typeof import('./threads-impl.js')> => (loading ??= import('./threads-impl.js').catch((error: unknown) => {
    loading = null // a failed load (a chunk that did not arrive) is tried again next time
    throw error
  }))

/**
 * An encoding stream of `format` in block mode; options are checked now, synchronously.
 * `rules`: how its errors and chunks meet the user (the web classes pass theirs; default
 * the library's: `CodecError`s, any binary input).
 */
export function parallelEncodeStream(format: Format, options: Record<string, unknown>, rules?: SurfaceRules): ThreadsPair {
  checkThreadsForm(format, options.threads)
  checkBlockSize(format, options.blockSize)
  // Every option at once (unknown keys too), before any worker or engine starts; the
  // threads keys are the shell's here (LZ4's blockSize is its codec option).
  const { codec } = checkOptions(format, 'encode', options, { machine: ['flush', 'chunkSize'], shell: ['signal', 'streams', 'threads', ...(format === 'lz4' ? [] : ['blockSize'])] })
  if (!rowOf(format).blocks) throw new CodecError('UNSUPPORTED', format, `threads > 1 on a ${format} stream: ${format} has no independent blocks; encode() with threads runs it on one worker`)
  if (format === 'zstd' && codec.contentSize !== undefined) {
    throw new CodecError('INVALID_OPTION', format, 'contentSize declares one frame; block mode (blockSize or threads > 1) writes one frame per block, each with its own content size')
  }
  return lazyPair(format, options, (m) => m.openBlockStream(format, options, rules, { createEncoder, createDecoder }))
}

/**
 * A decoding stream with `threads` (./threads-decision.ts `decodesInParallel`): zstd
 * frames or LZ4 independent blocks decoded as jobs, in order (./parallel-decode-stream.ts),
 * or one gzip, zlib or raw deflate stream in chunks (./parallel-inflate-stream.ts; also
 * for `onIndex`); options are checked now, synchronously. `rules`: how its errors and
 * chunks meet the user (`DecompressionStream`'s).
 */
export function parallelDecodeStream(format: Format, options: Record<string, unknown>, rules?: SurfaceRules): ThreadsPair {
  checkThreadsForm(format, options.threads)
  checkOptions(format, 'decode', options, threadsDecodeKeys(format))
  return lazyPair(format, options, (m) => m.openDecodeStream(format, options, rules, { createEncoder, createDecoder, prepareDecoder, Machine }))
}

/**
 * The pair `open` makes from the threads implementation, on first use, behind outer
 * sides that relay to it. A failure to open (`ENGINE_UNAVAILABLE` where there are no
 * workers) reaches the user through the stream's rules (./threads-impl.ts).
 */
function lazyPair(format: Format, options: Record<string, unknown>, open: (m: typeof import('./threads-impl.js')) => ThreadsPair): ThreadsPair {
  let inner: Promise<ThreadsPair> | null = null
  const opened = (): Promise<ThreadsPair> => (inner ??= threadsImpl().then(open))
  return { ...relay(opened, classes(options.streams as StreamClasses | undefined, format)), flush: async () => (await opened()).flush() }
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
