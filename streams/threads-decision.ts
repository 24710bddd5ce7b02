/**
 * Whether a call runs on the threads implementation (issue 22): the one rule every
 * surface applies before it loads any of it (the one-shot `encode()`/`decode()`, the
 * stream factories, `CompressionStream`/`DecompressionStream`, the Node adapter,
 * `encodeResponse`). Where it says no, the call is the serial one and no threads code
 * is loaded: `threads: 1` without `blockSize` (or a deflate index asked for) never loads
 * it. Both functions check the form of `threads` first (`INVALID_OPTION`), so that a
 * bad value is refused the same way whichever path the call would take.
 */
import type { Format } from '../lib/codec.js'
import { wantsBlocks } from '../lib/codec-options.js'
import { CodecError } from '../lib/errors.js'
import { rowOf } from '../lib/formats.js'
import { checkThreadsForm } from '../lib/options.js'

/**
 * Whether an encoder of `format` runs in block mode: `threads` other than 1, or
 * `blockSize` (except LZ4's, its frame option); lib/formats.ts `wantsBlocks`. `'auto'`
 * always does, so that its bytes do not depend on the machine.
 */
export function encodesInBlocks(format: Format, options: object): boolean {
  checkThreadsForm(format, (options as { threads?: unknown }).threads)
  return wantsBlocks(format, options)
}

/**
 * Whether a decoder of `format` runs on the threads implementation. `threads` other than
 * 1 on a format whose parallel decoder has something to split (its row's `blocks`,
 * lib/formats.ts): zstd frames and LZ4 independent blocks when the decoder takes further
 * frames (`concatenated` not false); one gzip, zlib or raw deflate stream cut into chunks
 * (issue 31), which runs sluice's own inflate kernels, so only with the default engine
 * and no dictionary. A deflate-family decode that asks for its index (`index` of
 * `decode()`, `onIndex` of a stream) runs there whatever `threads`: the chunks' block
 * starts build it; with another engine or a dictionary that is `INVALID_OPTION`.
 */
export function decodesInParallel(format: Format, given: object): boolean {
  const options = given as Readonly<Record<string, unknown>>
  const { threads, concatenated } = options
  checkThreadsForm(format, threads)
  const many = threads !== undefined && threads !== 1
  const family = rowOf(format).blocks?.family
  if (family !== 'deflate') return many && family !== undefined && concatenated !== false
  if (options.onIndex !== undefined && typeof options.onIndex !== 'function') throw new CodecError('INVALID_OPTION', format, 'onIndex must be a function (index) => void')
  const kernels = (options.engine === undefined || options.engine === 'wasm') && options.dictionary === undefined
  const asks = options.index !== undefined ? 'index' : options.onIndex !== undefined ? 'onIndex' : null
  if (asks && !kernels) {
    throw new CodecError('INVALID_OPTION', format, `${asks}: the index is built by sluice's inflate kernels (engine 'wasm', the default) on a stream without a preset dictionary`)
  }
  return kernels && (many || asks !== null)
}

/** `options` without `threads`, for the serial path of a surface whose codec does not take it. */
export function withoutThreads<O extends object>(options: O): Omit<O, 'threads'> {
  if (!('threads' in options)) return options
  const { threads: _, ...rest } = options as O & { threads?: unknown }
  return rest
}
