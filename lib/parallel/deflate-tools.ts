/**
 * The deflate family's wrapper headers and checksums, as block mode uses them (the gzip
 * header and CRC-32, the zlib header and Adler-32): loaded from the deflate family's
 * default engine module (lib/codecs/deflate-wasm.ts `blockTools`) rather than imported,
 * so that the threads implementation does not share those modules with the codecs and
 * split their chunk in a user's bundle (the repository's test/bundle-size.test.ts).
 */
import type { blockTools } from '../codecs/deflate-wasm.js'

/** The wrappers' headers and checksums. */
export type DeflateTools = typeof blockTools

let loading: Promise<DeflateTools> | null = null

/** Loads the deflate family's tools once per realm. */
export function loadDeflateTools(): Promise<DeflateTools> {
  return (loading ??= import('../codecs/deflate-wasm.js').then((m) => m.blockTools))
}
