// The peers bench/arrow.ts measures against: apache-arrow with the LZ4 and ZSTD codecs
// its docs suggest (lz4js, zstd-codec) registered in its compressionRegistry.
//
// The test suites register the same peers through test/arrow-oracle.ts. The two stay
// apart on purpose: each must register into the apache-arrow that its own side imports
// (the benches' dependencies may be installed apart from the suites'), and a registry
// filled in one copy of apache-arrow is empty in the other.
import { createRequire } from 'node:module'
import { CompressionType, compressionRegistry } from 'apache-arrow'

const require = createRequire(import.meta.url)

interface Codec {
  compress(data: Uint8Array, level?: number): Uint8Array
  decompress(data: Uint8Array): Uint8Array
}

/**
 * zstd-codec's Simple API. Its module is an emscripten thenable that hangs when awaited
 * (BASELINES.md), so its `run(callback)` is wrapped in a plain promise.
 */
function zstdCodec(): Promise<Codec> {
  const { ZstdCodec } = require('zstd-codec') as { ZstdCodec: { run(cb: (z: { Simple: new () => Codec }) => void): void } }
  return new Promise((resolve) => ZstdCodec.run((z) => resolve(new z.Simple())))
}

/** Registers lz4js (LZ4 frames; it has no levels) and zstd-codec at level 3. */
export async function registerPeerCodecs(): Promise<void> {
  const lz4js = require('lz4js') as Codec
  const zstd = await zstdCodec()
  compressionRegistry.set(CompressionType.LZ4_FRAME, {
    encode: (d) => Uint8Array.from(lz4js.compress(d)),
    decode: (d) => Uint8Array.from(lz4js.decompress(d)),
  })
  compressionRegistry.set(CompressionType.ZSTD, { encode: (d) => zstd.compress(d, 3), decode: (d) => zstd.decompress(d) })
}
