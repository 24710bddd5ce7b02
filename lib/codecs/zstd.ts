/**
 * Zstandard (RFC 8878) as the registry loads it (lib/registry.ts): the codec module of
 * the `wasm` engine, libzstd 1.5.7 compiled to wasm as two instances (see
 * `wasm/zstd-engine.ts` for which build and why), each loaded only for its role.
 *
 * - zstd-decode.ts: the span decoder (frame headers through zstd-frame-format.ts);
 * - zstd-encode.ts: the span encoder, one frame per stream, and with `seekable` the
 *   seekable format's frames and seek table around it (zstd-seekable-encode.ts);
 * - zstd-dictionary.ts: trained and raw-content dictionaries, for both;
 * - zstd-heap.ts: what a codec holds in its instance's memory.
 */
import type { CodecModule, Role } from '../codec.js'
import { CodecError } from '../errors.js'
import { traitsOf } from '../formats.js'
import { loadZstdDecoderEngine, loadZstdEncoderEngine, type ZstdDecoderExports, type ZstdEncoderExports, type ZstdEngine } from './wasm/zstd-engine.js'
import { ZstdDecoder } from './zstd-decode.js'
import { ZstdEncoder } from './zstd-encode.js'
import { seekableOrPlain } from './zstd-seekable-encode.js'

/** The two engines, each instantiated on first use of its role by `loadZstd()`. */
let decoderEngine: ZstdEngine<ZstdDecoderExports> | undefined
let encoderEngine: ZstdEngine<ZstdEncoderExports> | undefined

/** `engine`, or ENGINE_UNAVAILABLE when the module was loaded for the other role only. */
function loaded<E>(engine: E | undefined, role: Role): E {
  if (engine === undefined) throw new CodecError('ENGINE_UNAVAILABLE', 'zstd', `the ${role === 'decode' ? 'decoder' : 'encoder'} engine is not loaded: load the module with role "${role}"`)
  return engine
}

const zstd: CodecModule = {
  traits: traitsOf('zstd'),
  createDecoder: (options) => new ZstdDecoder(loaded(decoderEngine, 'decode'), options),
  createEncoder: (options) => {
    const engine = loaded(encoderEngine, 'encode')
    // `seekable`: the seekable format's frames and seek table (zstd-seekable-encode.ts).
    return seekableOrPlain(options, (frameOptions) => new ZstdEncoder(engine, frameOptions))
  },
}

/**
 * Instantiates the wasm engine(s) `role` needs (once; both when omitted) and returns the
 * codec module. The registry calls this on first use; codecs can only be created after
 * it resolved, and only of a role whose engine is loaded.
 */
export async function loadZstd(role?: Role): Promise<CodecModule> {
  const [decoder, encoder] = await Promise.all([role !== 'encode' ? loadZstdDecoderEngine() : undefined, role !== 'decode' ? loadZstdEncoderEngine() : undefined])
  decoderEngine ??= decoder
  encoderEngine ??= encoder
  return zstd
}
