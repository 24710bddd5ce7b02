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
 */
import type { BinaryInput } from '../lib/bytes.js'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { checkBlockSize, checkOptions, checkThreadsForm, rowOf } from '../lib/formats.js'
import { createDecoder, createEncoder } from '../lib/registry.js'

/** A readable/writable pair whose `flush()` ends the current block. */
export interface BlockEncoderPair extends ReadableWritablePair<Uint8Array, BinaryInput> {
  flush(): Promise<void>
}

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
  const open = (): Promise<BlockEncoderPair> => (inner ??= import('./threads-impl.js').then((m) => m.openBlockStream(format, options, { createEncoder, createDecoder })))
  let writer: WritableStreamDefaultWriter<BinaryInput> | null = null
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null
  const writerOf = async () => (writer ??= (await open()).writable.getWriter())
  const readerOf = async () => (reader ??= (await open()).readable.getReader())
  // The outer sides only relay: the inner stream does the buffering and backpressure.
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
  return { readable, writable, flush: async () => (await open()).flush() }
}
