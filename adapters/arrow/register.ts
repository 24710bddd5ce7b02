import { CompressionType, compressionRegistry } from 'apache-arrow'
import type { Decoder, Encoder } from '../../lib/codec.js'
import { CodecError } from '../../lib/errors.js'
import { checkLevel, DEFAULT_MAX_OUTPUT_BYTES } from '../../lib/codec-options.js'
import { checkKeys, checkLimit } from '../../lib/options.js'
import { loadCodec } from '../../lib/registry.js'
import { Status, statusName } from '../../lib/status.js'
import { readInt64 } from '../../lib/arrow/body.js'
import { bodyEncoderOptions } from '../../lib/arrow/body-write.js'
import { decodeGrowing, decodeInto } from '../../lib/decode-buffer.js'

/** The shape of apache-arrow's `compressionRegistry` (ipc/compression/registry.ts). */
export interface ArrowCompressionRegistry {
  /** Installs `codec` for the `CompressionType` `type` (0 LZ4_FRAME, 1 ZSTD). */
  set(type: number, codec: { encode?(data: Uint8Array): Uint8Array; decode?(data: Uint8Array): Uint8Array }): void
}

/** Options of `registerArrowCodecs()`. */
export interface RegisterArrowCodecsOptions {
  /** Which codecs to install; default both. Anything else throws INVALID_OPTION. */
  codecs?: ('lz4' | 'zstd')[]
  /** LZ4 encoder level, 1-12. */
  lz4Level?: number
  /** zstd encoder level, 1-19. */
  zstdLevel?: number
  /** The most bytes one buffer may decode to. Default 2 GiB. */
  maxOutputBytes?: number
  /**
   * More registries to install into, e.g. `require('apache-arrow').compressionRegistry`
   * when the CommonJS build is loaded beside the ESM one (each has its own registry).
   */
  registries?: ArrowCompressionRegistry[]
}

/** The keys of `RegisterArrowCodecsOptions`; any other is `INVALID_OPTION`. */
const REGISTER_KEYS: readonly (keyof RegisterArrowCodecsOptions)[] = Object.freeze(['codecs', 'lz4Level', 'zstdLevel', 'maxOutputBytes', 'registries'])

/**
 * The codec apache-arrow calls. Its reader passes only the compressed frame, no
 * expected length (arrow-js ipc/reader.ts `_decompressBuffers`), as a view into the
 * message body right after the buffer's 8-byte length prefix. When the 8 bytes before
 * the view hold a plausible length, the frame is decoded straight into a buffer of
 * that size; if the frame turns out longer (apache-arrow 21.2 files store the
 * compressed length there) or there is no prefix, the size comes from decoding.
 * Either way the frame itself decides the output, so a wrong prefix costs speed, never
 * correctness.
 */
class ArrowCodec {
  constructor(
    private readonly decoder: Decoder,
    private readonly encoder: Encoder,
    private readonly maxBytes: number,
  ) {}

  decode(data: Uint8Array): Uint8Array {
    const d = this.decoder
    const target = { format: d.format, what: 'Arrow buffer', declaredBy: 'its prefix', base: 0, concatenated: false, context: ` (in a ${data.length}-byte Arrow buffer)`, size: 'hint' } as const
    let declared = -1
    if (data.byteOffset >= 8) declared = readInt64(new Uint8Array(data.buffer, data.byteOffset - 8, 8), 0)
    if (declared > 0 && declared <= this.maxBytes) {
      const dst = new Uint8Array(declared)
      const got = decodeInto(d, data, dst, target)
      if (got >= 0) return got === declared ? dst : dst.slice(0, got)
    }
    if (declared === 0 && data.length === 0) return new Uint8Array(0) // Java's empty buffers
    return decodeGrowing(d, data, this.maxBytes, target)
  }

  encode(data: Uint8Array): Uint8Array {
    const e = this.encoder
    e.reset()
    // Room for incompressible input plus frame overhead; grown if ever too small.
    let out = new Uint8Array(data.length + (data.length >> 7) + 64)
    let written = 0
    let consumed = 0
    for (;;) {
      const status = e.transform(data.subarray(consumed), out.subarray(written), true)
      written += e.written
      consumed += e.consumed
      // A view, not a copy: apache-arrow copies what it keeps (ipc/writer.ts).
      if (status === Status.Done) return out.subarray(0, written)
      if (status !== Status.DestinationTooSmall) {
        throw new CodecError(e.failure?.code ?? 'INVALID_DATA', e.format, `encoder failed: ${e.failure?.message ?? statusName(status)}`)
      }
      const grown = new Uint8Array(out.length * 2)
      grown.set(out.subarray(0, written))
      out = grown
    }
  }
}

/**
 * In Node, apache-arrow's CommonJS build (`require('apache-arrow')`) is a separate
 * module instance with its own registry (arrow-js has one `compressionRegistry` per
 * build). When that build is already loaded, its registry is found through the
 * require cache, without loading it. Elsewhere (browsers, workerd) there is none.
 */
function loadedCommonJsRegistry(): ArrowCompressionRegistry | null {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  if (typeof proc?.getBuiltinModule !== 'function') return null
  const mod = proc.getBuiltinModule('module') as { createRequire?: (url: string) => NodeJS.Require } | undefined
  if (!mod?.createRequire) return null
  // sluice's files are ES modules (require('sluice') loads them too); a user's bundle in
  // CommonJS format leaves import.meta empty.
  const here = import.meta.url
  if (!here) return null
  const require = mod.createRequire(here)
  let path: string
  try {
    path = require.resolve('apache-arrow')
  } catch {
    return null
  }
  const loaded = require.cache[path]?.exports as { compressionRegistry?: ArrowCompressionRegistry } | undefined
  return loaded?.compressionRegistry ?? null
}

/**
 * Installs this library's LZ4 frame and zstd codecs into apache-arrow's
 * `compressionRegistry` (the analogue of Arrow C++'s codec factory), so that
 * apache-arrow's own reader and writer use them. Installs into the registry of the
 * apache-arrow build this module imports, plus any in `options.registries`.
 */
export async function registerArrowCodecs(options: RegisterArrowCodecsOptions = {}): Promise<void> {
  checkKeys('arrow', options, REGISTER_KEYS)
  const codecs = options.codecs ?? ['lz4', 'zstd']
  for (const c of codecs) {
    if (c !== 'lz4' && c !== 'zstd') throw new CodecError('INVALID_OPTION', 'arrow', `codec ${JSON.stringify(c)} is not one this library provides for Arrow (lz4, zstd)`)
  }
  const max = checkLimit('arrow', 'maxOutputBytes', options.maxOutputBytes, DEFAULT_MAX_OUTPUT_BYTES)
  const registries: ArrowCompressionRegistry[] = [compressionRegistry as unknown as ArrowCompressionRegistry, ...(options.registries ?? [])]
  const cjs = loadedCommonJsRegistry()
  if (cjs) registries.push(cjs)
  for (const c of codecs) {
    const level = checkLevel(c, c === 'lz4' ? options.lz4Level : options.zstdLevel)
    const mod = c === 'lz4' ? await loadCodec('lz4', 'wasm') : await loadCodec('zstd', 'wasm')
    const encoderOptions = bodyEncoderOptions(c === 'lz4' ? 0 : 1, level)
    // LZ4 levels 3 to 12 load LZ4 HC here.
    await mod.prepare?.('encode', encoderOptions)
    const codec = new ArrowCodec(mod.createDecoder({ maxOutputBytes: max }), mod.createEncoder(encoderOptions), max)
    const entry = { encode: (d: Uint8Array) => codec.encode(d), decode: (d: Uint8Array) => codec.decode(d) }
    const type = c === 'lz4' ? CompressionType.LZ4_FRAME : CompressionType.ZSTD
    for (const r of new Set(registries)) r.set(type, entry)
  }
}
