/**
 * Windows converted between the foreign index formats and ours, synchronously (so that
 * `encodeGzipIndex` and `decodeGzipIndex` need no engine loaded first): the TypeScript
 * inflater reads a window, fflate compresses one. A window is at most 32 KiB, so either
 * takes well under a millisecond.
 */
import { Status } from '../status.js'
import { Inflater } from '../codecs/inflate.js'
import { FflateEncoder } from '../codecs/deflate-fflate.js'
import { MAX_COMPRESSED_WINDOW, WINDOW_SIZE, badIndex } from './gzip-index.js'

let inflater: Inflater | null = null
let scratch: Uint8Array | null = null

/**
 * Decompresses a raw deflate window (at most 32 KiB, `what` names it in errors): the
 * whole of `raw` must be one deflate stream. Returns new memory.
 */
export function inflateWindowSync(raw: Uint8Array, what: string): Uint8Array {
  const inf = (inflater ??= new Inflater())
  const out = (scratch ??= new Uint8Array(WINDOW_SIZE + 1))
  inf.reset()
  const status = inf.run(raw, 0, out, 0, 0)
  if (status !== Status.Done || inf.inPos !== raw.length || inf.outPos > WINDOW_SIZE) {
    const why = status === Status.InvalidData ? inf.failure!.message : status === Status.Done ? (inf.outPos > WINDOW_SIZE ? 'more than 32768 bytes' : `${raw.length - inf.inPos} bytes after its end`) : status === Status.NeedMoreData ? 'a truncated stream' : 'more than 32768 bytes'
    throw badIndex(`${what}: its window does not decode: ${why}`)
  }
  return out.slice(0, inf.outPos)
}

let encoder: FflateEncoder | null = null

/** Compresses a window (at most 32 KiB) as raw deflate, level 6. */
export function deflateWindowSync(window: Uint8Array): Uint8Array {
  const enc = (encoder ??= new FflateEncoder('deflate-raw', 6))
  const out = new Uint8Array(MAX_COMPRESSED_WINDOW)
  enc.reset()
  const status = enc.transform(window, out, true)
  if (status !== Status.Done) throw badIndex(`compressing a ${window.length}-byte window stopped with status ${status}`)
  return out.slice(0, enc.written)
}
