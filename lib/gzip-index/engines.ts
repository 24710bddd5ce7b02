/**
 * The parts random access into deflate streams runs on, per engine: indexable raw deflate
 * bodies (the block observer and bit starts of inflate-observer.ts), the deflate
 * family's wrapper decoder around one, and the window compressor and decompressor of
 * the index. `'wasm'` (the default, as for decoding) is sluice's inflate kernel with
 * zlib-ng compressing windows; `'js'` is the TypeScript inflater with fflate. node:zlib
 * cannot start inside a byte, so it has no part here.
 *
 * Loaded on first use through dynamic `import()`, as the registry loads codecs.
 */
import type { Encoder } from '../codec.js'
import { CodecError } from '../errors.js'
import { Status } from '../status.js'
import { crc32 } from '../codecs/checksum.js'
import { DeflateFamilyDecoder, type Crc32 } from '../codecs/deflate.js'
import type { IndexableBody } from '../codecs/inflate-observer.js'
import { WINDOW_SIZE, badIndex, type GzipIndexFormat, type GzipIndexPoint } from './gzip-index.js'
import type { WindowCompressor } from './index-builder.js'

/** The engines that can index and resume deflate streams. */
export type IndexEngine = 'wasm' | 'js'

/**
 * Windows are compressed at level 6: with zlib-ng, 6.5 KiB a window of text against 9.7
 * KiB at level 1 (the repository's bench/corpus.ts text), in 0.33 ms against 0.22 (2-core machine under load):
 * at the default spacing about 6% of the decode's time, paid once per point.
 */
const WINDOW_LEVEL = 6

/** One engine's parts. */
export interface IndexParts {
  readonly engine: IndexEngine
  /** A new raw deflate body (`gzip`: with the CRC-32 its engine computes). */
  body(format: GzipIndexFormat): IndexableBody
  /** The deflate family's decoder of `format` around `body` (headers, trailers, checks). */
  decoder(format: GzipIndexFormat, body: IndexableBody): DeflateFamilyDecoder
  /** The CRC-32 of the output `body` hands out: a gzip body of the wasm engine computes it as it decodes. */
  crc32(body: IndexableBody): Crc32
  /** A new window compressor (one encoder, reused). */
  compressor(): WindowCompressor
  /** A new raw deflate encoder at `level` (BGZF blocks). */
  rawEncoder(level: number): Encoder
}

const loading = new Map<IndexEngine, Promise<IndexParts>>()

/** Loads (once) the parts of `engine`. */
export function loadIndexParts(engine: IndexEngine = 'wasm'): Promise<IndexParts> {
  let p = loading.get(engine)
  if (!p) {
    p = engine === 'wasm' ? loadWasm() : engine === 'js' ? loadJs() : Promise.reject(new CodecError('INVALID_OPTION', 'gzip', `engine '${String(engine)}' cannot index or resume deflate streams; use 'wasm' or 'js'`))
    p.catch(() => loading.delete(engine))
    loading.set(engine, p)
  }
  return p
}

async function loadWasm(): Promise<IndexParts> {
  const [inflate, zlibng] = await Promise.all([import('../codecs/inflate-wasm.js'), import('../codecs/deflate-zlibng.js')])
  await Promise.all([inflate.loadInflateKernel(), zlibng.loadZlibngEncoder()])
  const parts = inflate.inflateWasmParts
  return {
    engine: 'wasm',
    body: (format) => parts.body(format),
    decoder: (format, body) => new DeflateFamilyDecoder(format, body, body instanceof inflate.WasmInflater ? parts.crc32!(body) : undefined),
    crc32: (body) => (body instanceof inflate.WasmInflater ? parts.crc32!(body) : crc32),
    compressor: () => compressorOn(new zlibng.ZlibngEncoder('deflate-raw', WINDOW_LEVEL, null)),
    rawEncoder: (level) => new zlibng.ZlibngEncoder('deflate-raw', level, null),
  }
}

async function loadJs(): Promise<IndexParts> {
  const [inflate, fflate] = await Promise.all([import('../codecs/inflate.js'), import('../codecs/deflate-fflate.js')])
  return {
    engine: 'js',
    body: () => new inflate.Inflater(),
    decoder: (format, body) => new DeflateFamilyDecoder(format, body),
    crc32: () => crc32,
    compressor: () => compressorOn(new fflate.FflateEncoder('deflate-raw', WINDOW_LEVEL)),
    rawEncoder: (level) => new fflate.FflateEncoder('deflate-raw', level),
  }
}

/** A window compressor on one raw deflate encoder, reset for each window. */
function compressorOn(encoder: Encoder): WindowCompressor {
  const out = new Uint8Array(WINDOW_SIZE + 1024)
  return (window) => {
    encoder.reset()
    const status = encoder.transform(window, out, true)
    if (status !== Status.Done || encoder.consumed !== window.length) {
      throw new CodecError('INVALID_DATA', 'gzip', `compressing a ${window.length}-byte window stopped with status ${status}`)
    }
    return out.slice(0, encoder.written)
  }
}

/**
 * Decompresses the window of point `i` into `into` (32 KiB): the raw deflate `window`
 * must decode to exactly `windowSize` bytes. Returns the view of them.
 */
export function inflateWindow(decoder: DeflateFamilyDecoder, point: GzipIndexPoint, i: number, into: Uint8Array): Uint8Array {
  const n = point.windowSize
  if (n === 0) return into.subarray(0, 0)
  decoder.reset()
  const status = decoder.transform(point.window, into.subarray(0, n), true)
  const ok = status === Status.Done && decoder.written === n && decoder.consumed === point.window.length
  // A window that would decode to more is cut off by the room: check that there is no more.
  if (!ok) {
    const why = status === Status.InvalidData ? decoder.failure!.message : status === Status.DestinationTooSmall ? `more than ${n} bytes` : status === Status.NeedMoreData ? 'a truncated stream' : `${decoder.written} bytes`
    throw badIndex(`point ${i}: its window of ${n} bytes decodes to ${why}`)
  }
  return into.subarray(0, n)
}
