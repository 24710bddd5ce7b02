/**
 * The dictionaries a server encodes `dcz` and `dcb` responses with (RFC 9842): what
 * `encodeResponse`'s and `compression()`'s `dictionaries` option holds, and how a
 * request's `Available-Dictionary` (and `Dictionary-ID`) picks one of them.
 *
 *     const v1 = await prepareDictionary({ bytes: await readFile('app.v1.js'), id: 'app-v1' })
 *     await encodeResponse(request, response, { dictionaries: [v1] })
 *
 * The choice is made while the response's headers are, synchronously, and WebCrypto's
 * SHA-256 is asynchronous: so dictionaries are hashed once, ahead, by
 * `prepareDictionary`, never per request.
 *
 * An array is searched by hash alone: the hash names the bytes the client has, while
 * the id "MUST NOT be relied upon by the server to guarantee the contents of the
 * dictionary" (RFC 9842 section 2.1.3). `Dictionary-ID` is passed to a lookup function,
 * for servers that key their dictionaries by it.
 */
import { toBytes, type BinaryInput } from '../../lib/bytes.js'
import { sha256 as digest } from '../../lib/dictionary-digest.js'
import { sha256Sync } from '../../lib/sha256-sync.js'
import { hashHex } from '../../lib/dictionary-lookup.js'
import { CodecError } from '../../lib/errors.js'
import { checkDictionary } from '../../lib/codec-options.js'
import { DICTIONARY_HASH_BYTES, MAX_DICTIONARY_ID, parseAvailableDictionary, parseDictionaryId, availableDictionary } from './dictionary-headers.js'
import { serializeString } from './structured-fields.js'

const HTTP = 'http'

/** A dictionary with its SHA-256, as `prepareDictionary` makes it (frozen). */
export interface ServerDictionary {
  /** The dictionary's bytes (a copy of what was given). */
  readonly bytes: Uint8Array
  /** Its SHA-256, the name clients send in `Available-Dictionary` (RFC 9842 section 2.2). */
  readonly sha256: Uint8Array
  /** `Available-Dictionary`'s form of the hash, `:base64:`. */
  readonly hash: string
  /** The `id` given to clients in `Use-As-Dictionary` (section 2.1.3); '' for none. */
  readonly id: string
}

/** A dictionary's bytes, with the `id` announced for it in `Use-As-Dictionary`. */
export interface DictionarySource {
  /** The dictionary's bytes (copied). */
  bytes: BinaryInput
  /** Its `id` (RFC 9842 section 2.1.3), sent back by clients in `Dictionary-ID`. */
  id?: string
}

/**
 * A lookup for servers with many dictionaries (e.g. every past release of a file):
 * the dictionary for the hash a request names (and its `Dictionary-ID`, null when
 * absent or malformed), or undefined. Only a dictionary whose `sha256` is the
 * requested hash is used (section 2.1.3: "The dictionary hash MUST be validated before
 * use"). A lookup that answers differently for different ids of one hash should add
 * `Dictionary-ID` to the response's `Vary` itself.
 */
export type ServerDictionaryLookup = (sha256: Uint8Array, id: string | null) => ServerDictionary | BufferSource | undefined

/**
 * `encodeResponse`'s `dictionaries`, in the forms `decodeResponse` takes too: prepared
 * dictionaries, raw bytes (hashed once, then cached by the object given), or a lookup
 * returning either.
 */
export type ServerDictionariesOption = readonly (ServerDictionary | BufferSource)[] | ServerDictionaryLookup

/**
 * A dictionary hashed (SHA-256 through WebCrypto) and copied once, for the
 * `dictionaries` option of `encodeResponse` and `compression()`. Takes the bytes (an
 * ArrayBuffer or any view) or `{ bytes, id }`; `id` is what the server announces in
 * `Use-As-Dictionary` (up to 1024 printable ASCII characters).
 */
export async function prepareDictionary(source: BinaryInput | DictionarySource): Promise<ServerDictionary> {
  const isSource = typeof source === 'object' && source !== null && !(source instanceof ArrayBuffer) && !ArrayBuffer.isView(source) && 'bytes' in source
  const given = isSource ? (source as DictionarySource).bytes : source
  const id = isSource ? ((source as DictionarySource).id ?? '') : ''
  try {
    toBytes(given, true)
  } catch {
    throw new CodecError('INVALID_OPTION', HTTP, 'prepareDictionary takes an ArrayBuffer, an ArrayBufferView or { bytes, id }')
  }
  serializeString('id', id)
  if (id.length > MAX_DICTIONARY_ID) throw new CodecError('INVALID_OPTION', HTTP, `id has ${id.length} characters, more than the ${MAX_DICTIONARY_ID} RFC 9842 section 2.1.3 allows`)
  // The copy checkDictionary makes is passed to every encoder without another copy.
  const bytes = checkDictionary('dcz', given)!
  const sha256 = await digest(bytes)
  return Object.freeze({ bytes, sha256, hash: availableDictionary(sha256), id })
}

function isPrepared(d: unknown): d is ServerDictionary {
  if (typeof d !== 'object' || d === null) return false
  const { bytes, sha256, id } = d as Partial<ServerDictionary>
  return bytes instanceof Uint8Array && sha256 instanceof Uint8Array && sha256.length === DICTIONARY_HASH_BYTES && typeof id === 'string'
}

/**
 * Raw dictionaries, prepared once per object given: the choice is made synchronously
 * while the headers are, so raw bytes are hashed here with the synchronous SHA-256
 * (once; a server passes the same buffers on every setup and every lookup answer).
 * Keyed by the caller's object: change a dictionary by passing a new one.
 */
const preparedRaw = new WeakMap<object, ServerDictionary>()

/** A raw BufferSource as a prepared dictionary (cached), or undefined when `d` is not one. */
function fromRaw(d: unknown): ServerDictionary | undefined {
  if (typeof d !== 'object' || d === null || !(d instanceof ArrayBuffer || ArrayBuffer.isView(d) || (typeof SharedArrayBuffer === 'function' && d instanceof SharedArrayBuffer))) return undefined
  let prepared = preparedRaw.get(d)
  if (!prepared) {
    const bytes = checkDictionary('dcz', d)!
    const sha256 = sha256Sync(bytes)
    prepared = Object.freeze({ bytes, sha256, hash: availableDictionary(sha256), id: '' })
    preparedRaw.set(d, prepared)
  }
  return prepared
}

/** Finds the dictionary of a request, for one checked `dictionaries` option. */
export type DictionaryChooser = (requestHeader: (name: string) => string | null) => ServerDictionary | undefined

/** Checks the option (once, at setup) and returns the chooser. */
export function dictionaryChooser(option: unknown): DictionaryChooser {
  if (typeof option === 'function') {
    const lookup = option as ServerDictionaryLookup
    return (header) => {
      const hash = parseAvailableDictionary(header('available-dictionary'))
      if (hash === null) return undefined
      const given: unknown = lookup(hash.slice(), parseDictionaryId(header('dictionary-id')))
      if (given === undefined) return undefined
      const found = isPrepared(given) ? given : fromRaw(given)
      if (found === undefined) throw new CodecError('INVALID_OPTION', HTTP, `the dictionaries lookup returned neither a dictionary (prepareDictionary's or a BufferSource) nor undefined for SHA-256 ${hashHex(hash)}`)
      return hashHex(found.sha256) === hashHex(hash) ? found : undefined
    }
  }
  if (!Array.isArray(option)) throw new CodecError('INVALID_OPTION', HTTP, 'dictionaries must be an array of dictionaries (prepareDictionary results or BufferSources), or a lookup function')
  const byHash = new Map<string, ServerDictionary>()
  option.forEach((given: unknown, i) => {
    const d = isPrepared(given) ? given : fromRaw(given)
    if (d === undefined) {
      throw new CodecError('INVALID_OPTION', HTTP, `dictionaries[${i}] is neither a BufferSource nor a dictionary made by prepareDictionary`)
    }
    // Two entries with the same bytes: the first one's id.
    if (!byHash.has(hashHex(d.sha256))) byHash.set(hashHex(d.sha256), d)
  })
  return (header) => {
    const hash = parseAvailableDictionary(header('available-dictionary'))
    return hash === null ? undefined : byHash.get(hashHex(hash))
  }
}
