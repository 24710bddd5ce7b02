/**
 * The `lz4-blocks` job of parallel LZ4 decoding (lz4-cutter.ts): a run of independent
 * blocks cut out of a frame, decoded by the LZ4 frame span decoder (its engine's block
 * kernel, its checks of block sizes, block checksums and block data) fed a frame header
 * made for them (magic, FLG with Block Independence and the frame's Block Checksum
 * flag, BD with its Block Maximum Size, the header checksum), the blocks as they stand,
 * and an end mark. The content size and checksum are the driver's, on the outputs in
 * order. Errors carry offsets in the job's input.
 */
import type { Decoder } from '../codec.js'
import { CodecError } from '../errors.js'
import { Status } from '../status.js'
import { FLG_BLOCK_CHECKSUM, FLG_BLOCK_INDEPENDENCE, MAX_HEADER_LENGTH, writeFrameHeader } from '../codecs/lz4-frame-format.js'
import type { Lz4BlocksJob } from './jobs.js'
import { outputMemory } from './scratch.js'

/** Makes an LZ4 frame span decoder (lib/registry.ts `createDecoder`, or a worker's). */
export type Lz4DecoderFactory = (format: 'lz4', options: { engine?: Lz4BlocksJob['engine']; maxOutputBytes: number }) => Promise<Decoder>

/** magic, FLG, BD, HC. */
const HEADER_LENGTH = 7
const END_MARK = new Uint8Array(4)

/** The header of a frame of independent blocks of at most `blockMax` bytes, without content size or checksum. */
function header(blockMax: number, blockChecksum: boolean): Uint8Array {
  const h = new Uint8Array(MAX_HEADER_LENGTH)
  return h.subarray(0, writeFrameHeader(h, 0, FLG_BLOCK_INDEPENDENCE | (blockChecksum ? FLG_BLOCK_CHECKSUM : 0), blockMax, -1))
}

/** Decodes the job's blocks into at most `job.bound` bytes (a view of the start of the job's `scratch` when it holds them, else of memory of its own). */
export async function decodeLz4Blocks(job: Lz4BlocksJob, createDecoder: Lz4DecoderFactory): Promise<Uint8Array> {
  const decoder = await createDecoder('lz4', { engine: job.engine, maxOutputBytes: job.bound })
  try {
    const out = outputMemory(job.scratch, job.bound)
    let op = 0
    const parts = [header(job.blockMax, job.blockChecksum), job.input, END_MARK]
    for (let k = 0; k < parts.length; k++) {
      let src = parts[k]!
      for (;;) {
        const status = decoder.transform(src, out.subarray(op), k === parts.length - 1)
        op += decoder.written
        src = src.subarray(decoder.consumed)
        if (status === Status.InvalidData) {
          const f = decoder.failure
          throw new CodecError(f?.code ?? 'INVALID_DATA', 'lz4', f?.message ?? 'invalid block', Math.max(0, (f?.offset ?? HEADER_LENGTH) - HEADER_LENGTH))
        }
        if (status === Status.Done && k === parts.length - 1 && src.length === 0) return out.subarray(0, op)
        if (status === Status.NeedMoreData && src.length === 0 && k < parts.length - 1) break
        // Output past the bound (every block decodes to at most the Block Maximum Size),
        // or an end before the end mark: neither happens with blocks the cutter cut.
        throw new CodecError('INVALID_DATA', 'lz4', `blocks decode past their bound of ${job.bound} bytes`, 0)
      }
    }
    throw new CodecError('INVALID_DATA', 'lz4', 'the blocks did not end', job.input.length)
  } finally {
    decoder.dispose()
  }
}
