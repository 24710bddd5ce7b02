/**
 * The SHA-256 that names a dictionary in the RFC 9842 transports ('dcz', 'dcb'),
 * through WebCrypto (`crypto.subtle`, in every target runtime). It is asynchronous and
 * codecs are created synchronously, so the registry and prepare.ts compute it when a
 * codec is opened and pass it to the codec as `dictionaryDigest`. Kept apart from the
 * transport codecs so that opening a gzip stream does not load them.
 */
import { isDictionaryTransport } from './formats.js'

/**
 * The SHA-256 of `bytes`. WebCrypto refuses views of shared memory, so those are copied
 * first; an ArrayBuffer-backed view is hashed in place.
 */
export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  const own = bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : bytes.slice()
  return new Uint8Array(await crypto.subtle.digest('SHA-256', own))
}

/**
 * Sets `options.dictionaryDigest` to the SHA-256 of `options.dictionary` (already
 * checked) for a transport format; nothing for other formats. Resolves with nothing, so
 * that no `then` lookup runs on an object the caller can reach.
 */
export async function addDictionaryDigest(format: string, options: Record<string, unknown>): Promise<void> {
  if (!isDictionaryTransport(format)) return
  options.dictionaryDigest = await sha256(options.dictionary as Uint8Array)
}
