/**
 * The dictionaries `decodeResponse` may use for RFC 9842's `dcz` and `dcb` content
 * codings: the stream's header names its dictionary by SHA-256 (sections 4 and 5), and
 * the client looks the dictionary up by that hash. Given as an array (hashed once, on
 * the first body that needs one) or as a lookup function (e.g. into a cache keyed by
 * the `Available-Dictionary` hash the request sent, RFC 9842 section 2.2).
 */
import { toBytes } from '../../lib/bytes.js'
import { CodecError } from '../../lib/errors.js'

/** A dictionary for a hash, or undefined when there is none. */
export type DictionaryLookup = (sha256: Uint8Array) => BufferSource | undefined | Promise<BufferSource | undefined>

export type DictionariesOption = readonly BufferSource[] | DictionaryLookup

const FORMAT = 'http'

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes.slice()))
}

/** Finds dictionaries by hash; one per decoded body (array digests computed once). */
export class DictionaryFinder {
  private hashed: Array<{ hash: string; bytes: Uint8Array }> | null = null

  constructor(private readonly option: DictionariesOption | undefined) {
    if (option === undefined || typeof option === 'function') return
    if (!Array.isArray(option)) throw new CodecError('INVALID_OPTION', FORMAT, 'dictionaries must be an array of BufferSources or a lookup function')
    for (const d of option) {
      try {
        toBytes(d, true)
      } catch {
        throw new CodecError('INVALID_OPTION', FORMAT, 'dictionaries must hold only ArrayBuffers or ArrayBufferViews')
      }
    }
  }

  /**
   * The dictionary whose SHA-256 is `hash`; a `CodecError` naming the hash when none
   * is known (the body cannot be decoded without it).
   */
  async find(coding: string, hash: Uint8Array): Promise<Uint8Array> {
    const name = hex(hash)
    const option = this.option
    let found: Uint8Array | undefined
    if (typeof option === 'function') {
      const given = await option(hash.slice())
      if (given !== undefined) {
        try {
          found = toBytes(given, true)
        } catch {
          throw new CodecError('INVALID_OPTION', FORMAT, `the dictionaries lookup returned neither a BufferSource nor undefined for SHA-256 ${name}`)
        }
      }
    } else if (option !== undefined) {
      this.hashed ??= await Promise.all(
        option.map(async (d) => {
          const bytes = toBytes(d, true)
          return { hash: hex(await sha256(bytes)), bytes }
        }),
      )
      found = this.hashed.find((d) => d.hash === name)?.bytes
    }
    if (found === undefined) {
      throw new CodecError('UNSUPPORTED', FORMAT, `Content-Encoding ${coding} needs the dictionary with SHA-256 ${name}, which the dictionaries option does not provide`)
    }
    return found
  }
}
