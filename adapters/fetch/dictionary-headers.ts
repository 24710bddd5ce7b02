/**
 * The headers of RFC 9842 (Compression Dictionary Transport), built and parsed:
 *
 *     headers.set('use-as-dictionary', useAsDictionary({ match: '/app/*.js', id: 'app-v1' }))
 *     parseAvailableDictionary(request.headers.get('available-dictionary')) // Uint8Array(32) | null
 *
 * - `Use-As-Dictionary` (section 2.1, response): a structured-field Dictionary with
 *   `match` (a URL pattern, required), `match-dest`, `id` and `type`.
 * - `Available-Dictionary` (section 2.2, request): the SHA-256 of the one dictionary the
 *   client offers, as a structured-field Byte Sequence (`:base64:`).
 * - `Dictionary-ID` (section 2.3, request): the `id` the dictionary was stored with.
 */
import { TRANSPORT_HASH_BYTES } from '../../lib/dictionary-lookup.js'
import { CodecError } from '../../lib/errors.js'
import { parseItem, serializeBinary, serializeDictionary, serializeString, serializeStringList, serializeToken } from './structured-fields.js'

const HTTP = 'http'

/** SHA-256 digests are 32 bytes (RFC 9842 section 2.2 names the dictionary by one). */
export const DICTIONARY_HASH_BYTES = TRANSPORT_HASH_BYTES

/** RFC 9842 section 2.1.3: "The id value string length ... supports up to 1024 characters". */
export const MAX_DICTIONARY_ID = 1024

/** The fields of a `Use-As-Dictionary` header (RFC 9842 section 2.1), for `useAsDictionary()`. */
export interface UseAsDictionaryOptions {
  /**
   * The URL pattern (WHATWG URL Pattern, without regular-expression groups) of the
   * requests that may use this response as their dictionary, relative to its URL and
   * same-origin, e.g. `'/data/*'` or `'/app/*\/main.js'`. Percent-encoded: the pattern
   * matches the percent-encoded path (section 2.1.1), and a structured-field String
   * carries printable ASCII only.
   */
  match: string
  /** Fetch request destinations the dictionary is for (e.g. `['script']`); empty or absent: all. */
  matchDest?: readonly string[]
  /** The server's name for the dictionary (up to 1024 characters), echoed in `Dictionary-ID`. */
  id?: string
  /** The dictionary's format, a token; `raw` (the only one defined, and the default) if absent. */
  type?: string
}

/**
 * The value of a `Use-As-Dictionary` response header, e.g.
 * `match="/data/*", match-dest=("script"), id="v1"`. Throws `INVALID_OPTION` for what
 * the header cannot carry: non-ASCII or control characters, an empty `match` or one
 * with a regular-expression group (section 2.1.1 forbids them), an `id` over 1024
 * characters, a `type` that is not a token. An empty `id` is the default and left out.
 */
export function useAsDictionary(options: UseAsDictionaryOptions): string {
  if (typeof options !== 'object' || options === null) throw new CodecError('INVALID_OPTION', HTTP, 'useAsDictionary takes an object with match (and optionally matchDest, id, type)')
  const { match, matchDest, id, type } = options
  const members: Array<[string, string]> = []
  const m = serializeString('match', match)
  if (match.length === 0) throw new CodecError('INVALID_OPTION', HTTP, 'match must not be empty: it is the URL pattern of the requests that may use the dictionary (RFC 9842 section 2.1.1)')
  const group = regExpGroupAt(match)
  if (group >= 0) {
    throw new CodecError('INVALID_OPTION', HTTP, `match ${JSON.stringify(match)} has a regular-expression group at index ${group}, which RFC 9842 section 2.1.1 does not allow (use * wildcards, or escape the parenthesis as \\()`)
  }
  members.push(['match', m])
  if (matchDest !== undefined) members.push(['match-dest', serializeStringList('matchDest', matchDest)])
  if (id !== undefined) {
    const value = serializeString('id', id)
    if (id.length > MAX_DICTIONARY_ID) throw new CodecError('INVALID_OPTION', HTTP, `id has ${id.length} characters, more than the ${MAX_DICTIONARY_ID} RFC 9842 section 2.1.3 allows`)
    if (id.length > 0) members.push(['id', value])
  }
  if (type !== undefined) members.push(['type', serializeToken('type', type)])
  return serializeDictionary(members)
}

/**
 * The index of the first unescaped `(` of a URL pattern, or -1. In URL Pattern syntax
 * a `(` always opens a regular expression (`\(` is a literal parenthesis).
 */
function regExpGroupAt(pattern: string): number {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++
    else if (pattern[i] === '(') return i
  }
  return -1
}

/** `Available-Dictionary`'s value for a SHA-256 digest: `:base64:` (RFC 8941 section 4.1.8). */
export function availableDictionary(sha256: ArrayBuffer | ArrayBufferView): string {
  const bytes = hashBytes(sha256)
  return serializeBinary(bytes)
}

function hashBytes(value: ArrayBuffer | ArrayBufferView): Uint8Array {
  let bytes: Uint8Array
  if (value instanceof ArrayBuffer) bytes = new Uint8Array(value)
  else if (ArrayBuffer.isView(value)) bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
  else throw new CodecError('INVALID_OPTION', HTTP, 'the hash must be an ArrayBuffer or an ArrayBufferView')
  if (bytes.length !== DICTIONARY_HASH_BYTES) throw new CodecError('INVALID_OPTION', HTTP, `the hash must be a ${DICTIONARY_HASH_BYTES}-byte SHA-256, got ${bytes.length} bytes`)
  return bytes
}

/**
 * The SHA-256 an `Available-Dictionary` value names, or null when the value is absent
 * or not exactly one structured-field Byte Sequence of 32 bytes (parameters, which no
 * specification defines for it, are ignored as RFC 8941 section 3.1.2 asks). A
 * malformed value means "no dictionary", never an error: the response is then
 * negotiated without one.
 */
export function parseAvailableDictionary(value: string | null): Uint8Array<ArrayBuffer> | null {
  const item = parseItem(value)
  if (item === null || !(item.value instanceof Uint8Array) || item.value.length !== DICTIONARY_HASH_BYTES) return null
  return item.value
}

/**
 * The id a `Dictionary-ID` value names (a structured-field String of up to 1024
 * characters, RFC 9842 section 2.3), or null when absent or malformed.
 */
export function parseDictionaryId(value: string | null): string | null {
  const item = parseItem(value)
  if (item === null || typeof item.value !== 'string' || item.value.length > MAX_DICTIONARY_ID) return null
  return item.value
}
