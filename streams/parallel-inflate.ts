/**
 * `decode('gzip' | 'deflate' | 'deflate-raw', data, { threads, index })` (issue 31): one
 * stream decoded on `threads`, part of the threads implementation (./parallel.ts).
 *
 * - BGZF (gzip members that state their sizes): groups of members of about 4 MiB of
 *   output as jobs (lib/parallel/bgzf.ts), each decoded through its members' headers and
 *   trailers by the chunk decoder.
 * - With `index` (a `GzipIndex` or its bytes, lib/gzip-index/): the spans between its
 *   points as jobs, each from its point's window (lib/parallel/inflate-parallel.ts).
 * - Otherwise chunks decoded from guessed block boundaries, the two-stage method
 *   (lib/parallel/inflate-run.ts).
 * - `index: true`: the result is `{ data, index }`, the stream's index built from the
 *   block starts the chunks met (the same index `gzipIndex()` builds), or for BGZF from
 *   its block headers.
 *
 * Parallel decoding runs sluice's own wasm kernels, so an `engine` other than the
 * default, a preset dictionary, or an input too small to split decodes serially, as
 * does every input that fails a check, so that errors are the serial decoder's (and the
 * index, when asked, is then built by `gzipIndex()`).
 */
import { CodecError } from '../lib/errors.js'
import { Status } from '../lib/status.js'
import { checkOptions } from '../lib/codec-options.js'
import type { DecodeOptions } from '../lib/whole-buffer.js'
import { bgzfGroups } from '../lib/parallel/bgzf.js'
import { GROUP_OUTPUT, inflateParallel } from '../lib/parallel/inflate-parallel.js'
import { MIN_PARALLEL_BYTES } from '../lib/options.js'
import { checkGzipIndex, type GzipIndex } from '../lib/gzip-index/gzip-index.js'
import { DEFAULT_SPACING, GzipIndexBuilder } from '../lib/gzip-index/index-builder.js'
import { inflateWindow, loadIndexParts } from '../lib/gzip-index/engines.js'
import { createIndexingDecoder } from '../lib/gzip-index/indexing-decoder.js'
import { BgzfWalker } from '../lib/gzip-index/bgzf-walk.js'
import { bgzfBlockAt } from '../lib/codecs/bgzf.js'
import { jobRunner } from './job-runner.js'
import type { InlineCodecs } from './parallel.js'

type DeflateFormat = 'gzip' | 'deflate' | 'deflate-raw'

/** The formats decoded here. */
export const isDeflate = (format: string): format is DeflateFormat => format === 'gzip' || format === 'deflate' || format === 'deflate-raw'

/** Decodes `bytes` (see the module comment); `index: true` resolves to `{ data, index }`. */
export async function decodeDeflate(format: DeflateFormat, bytes: Uint8Array, options: Record<string, unknown>, threads: number, codecs: InlineCodecs): Promise<Uint8Array | { data: Uint8Array; index: GzipIndex }> {
  const { index: indexOption, ...rest } = options
  const { engine, maxOutputBytes, concatenated, codec } = checkOptions(format, 'decode', rest, { machine: ['concatenated', 'onProgress'] })
  const given = indexOption === undefined || indexOption === true ? null : checkIndexFor(format, bytes, indexOption)
  const wantIndex = indexOption === true
  const parallel = threads > 1 && bytes.length >= MIN_PARALLEL_BYTES && engine === 'wasm' && !codec.dictionary && rest.onProgress === undefined
  let data: Uint8Array | null = null
  let index: GzipIndex | null = null
  if (parallel) {
    const run = jobRunner(threads, bytes.length, codecs)
    try {
      const groups = format === 'gzip' && concatenated ? bgzfGroups(bytes, GROUP_OUTPUT) : null
      if (groups) {
        data = await inflateParallel(bytes, format, { maxOutputBytes, concatenated, members: groups }, run, 2 * threads)
      } else {
        const parts = wantIndex || given ? await loadIndexParts('wasm') : null
        const builder = wantIndex ? new GzipIndexBuilder(format, DEFAULT_SPACING, parts!.compressor()) : undefined
        let window: ((i: number) => Promise<Uint8Array>) | undefined
        if (given) {
          const decoder = parts!.decoder('deflate-raw', parts!.body('deflate-raw'))
          window = async (i) => inflateWindow(decoder, given.points[i]!, i, new Uint8Array(32768))
        }
        data = await inflateParallel(bytes, format, { maxOutputBytes, concatenated, index: given ?? undefined, window, builder }, run, 2 * threads)
        if (data && builder) index = builder.finish(bytes.length, data.length)
      }
    } catch (error) {
      // Corrupt input is the serial decoder's to judge.
      if (!(error instanceof CodecError) || error.code === 'ENGINE_UNAVAILABLE' || error.code === 'ABORTED') throw error
      data = null
    }
  }
  data ??= await codecs.decodeSerial(format, bytes, rest as DecodeOptions<DeflateFormat>)
  if (!wantIndex) return data
  // Built serially when the parallel decode did not build it: a BGZF file from its block
  // headers, anything else by decoding it again with the indexing decoder (what
  // `gzipIndex()` does; that module is not imported here, where it would move into the
  // bundle of every user of the root entry).
  index ??= format === 'gzip' && bgzfBlockAt(bytes, 0, 0) ? bgzfIndex(bytes) : await indexByDecoding(format, bytes)
  return { data, index }
}

/** A BGZF file's index from its block headers. */
function bgzfIndex(bytes: Uint8Array): GzipIndex {
  const walker = new BgzfWalker()
  walker.push(bytes)
  return walker.finish(bytes.length)
}

/** The index by one more serial decode, through the indexing decoder. */
async function indexByDecoding(format: DeflateFormat, bytes: Uint8Array): Promise<GzipIndex> {
  const decoder = await createIndexingDecoder(format, {})
  try {
    const sink = new Uint8Array(1 << 20)
    for (let at = 0; ; ) {
      const status = decoder.transform(bytes.subarray(at), sink, true)
      at += decoder.consumed
      if (status === Status.Done) {
        // Another member, or (as the serial decode accepted) zero padding to the end.
        if (format !== 'gzip' || bytes.subarray(at).every((b) => b === 0)) break
        decoder.reset()
      } else if (status !== Status.DestinationTooSmall) {
        // The serial decode above succeeded, so this cannot happen short of a bug.
        throw new CodecError('INVALID_DATA', format, 'building the index failed where decoding did not')
      }
    }
    return decoder.finish(bytes.length)
  } finally {
    decoder.dispose()
  }
}

/**
 * The index given for `bytes`, made for this format and a file of this size. (Its bytes
 * are read by `decodeGzipIndex` first: that module is not imported here, where it would
 * move into the bundle of every user of the root entry.)
 */
function checkIndexFor(format: DeflateFormat, bytes: Uint8Array, value: unknown): GzipIndex {
  if (value instanceof Uint8Array) throw new CodecError('INVALID_OPTION', format, 'index: pass a GzipIndex (decodeGzipIndex(bytes) reads an index file)')
  const index = checkGzipIndex(value)
  if (index.format !== format) throw new CodecError('INVALID_OPTION', format, `index is of a ${index.format} file, not ${format}`)
  if (index.compressedSize !== bytes.length) throw new CodecError('INVALID_DATA', format, `index was made for a file of ${index.compressedSize} bytes; this one has ${bytes.length}`)
  return index
}
