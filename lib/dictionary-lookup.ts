/**
 * Finding the dictionary an RFC 9842 body names. A `dcz` or `dcb` stream starts with a
 * fixed header: the magic, then the SHA-256 of its dictionary (sections 4 and 5), so a
 * reader that holds several dictionaries looks the right one up by that hash. Shared by
 * `decompress()` (streams/decompress.ts) and `decodeResponse()` (adapters/fetch); kept
 * apart from the transport codecs (codecs/dictionary-transport.ts) so that sniffing does
 * not load them.
 */
import { toBytes } from './bytes.js'
import { sha256 } from './dictionary-digest.js'
import { CodecError } from './errors.js'
import { transportOf, type TransportFormat } from './formats.js'

export type { TransportFormat } from './formats.js'

/**
 * Header bytes before the hash (the format table's `transport.magic`): dcz's is a zstd
 * skippable frame of 32 bytes (magic 0x184D2A5E, RFC 8878 section 3.1.2), dcb's four
 * bytes of its own (RFC 9842 sections 4, 5).
 */
export const transportMagic = (format: TransportFormat): readonly number[] => transportOf(format).magic
export const TRANSPORT_HASH_BYTES = 32

/** Bytes of the whole header of `format`: magic and hash. */
export const transportHeaderLength = (format: TransportFormat): number => transportMagic(format).length + TRANSPORT_HASH_BYTES

/**
 * 'match' when `head` starts with `format`'s whole header (magic and hash), 'partial'
 * while the bytes so far agree with its magic, 'no' otherwise.
 */
export function transportHeaderAt(format: TransportFormat, head: Uint8Array): 'match' | 'partial' | 'no' {
  const magic = transportMagic(format)
  for (let i = 0; i < Math.min(magic.length, head.length); i++) if (head[i] !== magic[i]) return 'no'
  return head.length >= transportHeaderLength(format) ? 'match' : 'partial'
}

/** The SHA-256 in a matched header (a view of `head`). */
export const transportHash = (format: TransportFormat, head: Uint8Array): Uint8Array =>
  head.subarray(transportMagic(format).length, transportHeaderLength(format))

/**
 * A dictionary with its SHA-256 already computed, as the fetch adapter's
 * `prepareDictionary()` makes it: used as it is, not hashed again.
 */
export interface HashedDictionary {
  /** The dictionary's bytes, used as they are (not copied). */
  readonly bytes: Uint8Array
  /** Their SHA-256 (32 bytes), the hash a `dcz`/`dcb` header names; trusted, not recomputed. */
  readonly sha256: Uint8Array
}

/**
 * A dictionary as the `dictionaries` option takes it: its bytes (hashed with SHA-256
 * once, when a body first needs a dictionary), or a prepared one with its hash (what
 * `prepareDictionary()` returns), used as it is.
 */
export type DictionaryInput = BufferSource | HashedDictionary

/**
 * The `dictionaries` option as a function: given the SHA-256 (32 bytes) that a `dcz` or
 * `dcb` header names (RFC 9842 sections 4, 5), returns that dictionary, or `undefined`
 * when it has none (the body is then rejected with a `CodecError`). May be async, e.g.
 * to fetch or read the dictionary from a cache.
 */
export type DictionaryLookup = (sha256: Uint8Array) => DictionaryInput | undefined | Promise<DictionaryInput | undefined>

/** `dictionaries`: an array (raw bytes hashed once; prepared ones as they are) or a lookup by SHA-256. */
export type DictionariesOption = readonly DictionaryInput[] | DictionaryLookup

/** Whether `d` is a prepared dictionary (bytes and a 32-byte SHA-256). */
export function isHashedDictionary(d: unknown): d is HashedDictionary {
  if (typeof d !== 'object' || d === null || ArrayBuffer.isView(d) || d instanceof ArrayBuffer) return false
  const { bytes, sha256 } = d as Partial<HashedDictionary>
  return bytes instanceof Uint8Array && sha256 instanceof Uint8Array && sha256.length === TRANSPORT_HASH_BYTES
}

export function hashHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * Finds dictionaries by hash, for one decoded body (an array's digests are computed
 * once, on the first body that needs one). `label` is the errors' format (`'http'`,
 * `'decompress'`). The option is checked when the finder is made.
 */
export class DictionaryFinder {
  private hashed: Array<{ hash: string; bytes: Uint8Array }> | null = null

  constructor(
    private readonly option: DictionariesOption | undefined,
    private readonly label: string,
  ) {
    if (option === undefined || typeof option === 'function') return
    if (!Array.isArray(option)) throw new CodecError('INVALID_OPTION', label, 'dictionaries must be an array of BufferSources or a lookup function')
    for (const d of option) {
      if (isHashedDictionary(d)) continue
      try {
        toBytes(d as BufferSource, true)
      } catch {
        throw new CodecError('INVALID_OPTION', label, 'dictionaries must hold only ArrayBuffers or ArrayBufferViews')
      }
    }
  }

  /**
   * The dictionary whose SHA-256 is `hash`; a `CodecError` (`UNSUPPORTED`) naming the
   * hash when none is known: the body cannot be decoded without it. `what` names the
   * body in that message (`Content-Encoding dcz`, `dcz input`).
   */
  async find(what: string, hash: Uint8Array): Promise<Uint8Array> {
    const name = hashHex(hash)
    const option = this.option
    let found: Uint8Array | undefined
    if (typeof option === 'function') {
      const given = await option(hash.slice())
      if (given !== undefined) {
        try {
          found = isHashedDictionary(given) ? given.bytes : toBytes(given, true)
        } catch {
          throw new CodecError('INVALID_OPTION', this.label, `the dictionaries lookup returned neither a BufferSource nor undefined for SHA-256 ${name}`)
        }
      }
    } else if (option !== undefined) {
      this.hashed ??= await Promise.all(
        option.map(async (d) => {
          if (isHashedDictionary(d)) return { hash: hashHex(d.sha256), bytes: d.bytes }
          const bytes = toBytes(d, true)
          return { hash: hashHex(await sha256(bytes)), bytes }
        }),
      )
      found = this.hashed.find((d) => d.hash === name)?.bytes
    }
    if (found === undefined) {
      throw new CodecError('UNSUPPORTED', this.label, `${what} needs the dictionary with SHA-256 ${name}, which the dictionaries option does not provide`)
    }
    return found
  }
}
