/**
 * The parts of HTTP Structured Field Values (RFC 8941) that the RFC 9842 headers use:
 * serializing Strings, Tokens, Byte Sequences, Inner Lists and Dictionaries (for
 * `Use-As-Dictionary`), and parsing one Item (for `Available-Dictionary`, a Byte
 * Sequence, and `Dictionary-ID`, a String). Parsing follows RFC 8941 section 4.2: a
 * value that does not parse is refused whole (null), never guessed at.
 */
import { CodecError } from '../../lib/errors.js'

const HTTP = 'http'

/** A bare item as parsed (RFC 8941 section 3.3); tokens are told apart from strings. */
export type BareItem = number | string | boolean | Uint8Array<ArrayBuffer> | { token: string }

export interface Item {
  value: BareItem
  params: Map<string, BareItem>
}

// ---------------------------------------------------------------------------------------
// Serializing (RFC 8941 section 4.1). Each throws `INVALID_OPTION` naming `what`.

/**
 * An sf-string (section 4.1.6): printable ASCII only (0x20-0x7E), `"` and `\` escaped.
 * Anything else (control characters, non-ASCII) cannot be carried: percent-encode URLs.
 */
export function serializeString(what: string, value: unknown): string {
  if (typeof value !== 'string') throw new CodecError('INVALID_OPTION', HTTP, `${what} must be a string, got ${describe(value)}`)
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) {
      throw new CodecError('INVALID_OPTION', HTTP, `${what} has ${codePoint(value, i)} at index ${i}, which a structured-field String cannot carry (RFC 8941 section 3.3.3: printable ASCII only)`)
    }
  }
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

/** `( ALPHA / "*" ) *( tchar / ":" / "/" )` (section 3.3.4). */
const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*$/

/** An sf-token (section 4.1.7). */
export function serializeToken(what: string, value: unknown): string {
  if (typeof value !== 'string' || !TOKEN.test(value)) {
    throw new CodecError('INVALID_OPTION', HTTP, `${what} must be a structured-field Token (a letter or "*", then letters, digits and !#$%&'*+-.^_\`|~:/; RFC 8941 section 3.3.4), got ${describe(value)}`)
  }
  return value
}

/** An sf-binary (section 4.1.8): `:` base64 with padding `:`. */
export function serializeBinary(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]!)
  return `:${btoa(s)}:`
}

/** An inner list of strings (section 4.1.1.1): `("a" "b")`. */
export function serializeStringList(what: string, values: unknown): string {
  if (!Array.isArray(values)) throw new CodecError('INVALID_OPTION', HTTP, `${what} must be an array of strings, got ${describe(values)}`)
  return `(${values.map((v, i) => serializeString(`${what}[${i}]`, v)).join(' ')})`
}

/** A Dictionary (section 4.1.2) of already serialized members, in the order given. */
export function serializeDictionary(members: ReadonlyArray<readonly [key: string, value: string]>): string {
  return members.map(([key, value]) => `${key}=${value}`).join(', ')
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an Array'
  return typeof value
}

function codePoint(s: string, i: number): string {
  return `U+${s.codePointAt(i)!.toString(16).toUpperCase().padStart(4, '0')}`
}

// ---------------------------------------------------------------------------------------
// Parsing one Item (RFC 8941 section 4.2.3), with its parameters.

/** Parser state: the input and a position in it. */
interface Cursor {
  s: string
  at: number
}

/** `value` as an sf Item, or null when it is not one (section 4.2: fail means ignore the field). */
export function parseItem(value: string | null): Item | null {
  if (value === null) return null
  const c: Cursor = { s: value, at: 0 }
  skipSpaces(c)
  const item = bareItem(c)
  if (item === null) return null
  const params = parameters(c)
  if (params === null) return null
  skipSpaces(c)
  // Anything after the item, e.g. a second field line joined with ", ": not one Item.
  return c.at === c.s.length ? { value: item, params } : null
}

function skipSpaces(c: Cursor): void {
  while (c.s.charCodeAt(c.at) === 0x20) c.at++
}

function bareItem(c: Cursor): BareItem | null {
  const ch = c.s[c.at]
  if (ch === undefined) return null
  if (ch === '-' || (ch >= '0' && ch <= '9')) return number(c)
  if (ch === '"') return string(c)
  if (ch === ':') return binary(c)
  if (ch === '?') return boolean(c)
  if (/[A-Za-z*]/.test(ch)) return token(c)
  return null
}

/** Section 4.2.4: up to 15 integer digits, or 12 before and 3 after a decimal point. */
function number(c: Cursor): number | null {
  const m = /^-?(\d+)(\.(\d+))?/.exec(c.s.slice(c.at))
  if (m === null) return null
  const [whole, int, dot, frac] = m
  if (dot === undefined ? int!.length > 15 : int!.length > 12 || frac!.length > 3) return null
  c.at += whole!.length
  return Number(whole)
}

/** Section 4.2.5: printable ASCII, with only `\"` and `\\` as escapes. */
function string(c: Cursor): string | null {
  let out = ''
  for (c.at++; c.at < c.s.length; c.at++) {
    const ch = c.s[c.at]!
    const code = ch.charCodeAt(0)
    if (ch === '\\') {
      const next = c.s[++c.at]
      if (next !== '"' && next !== '\\') return null
      out += next
    } else if (ch === '"') {
      c.at++
      return out
    } else if (code < 0x20 || code > 0x7e) return null
    else out += ch
  }
  return null
}

function token(c: Cursor): { token: string } {
  const m = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(c.s.slice(c.at))!
  c.at += m[0].length
  return { token: m[0] }
}

/**
 * Section 4.2.7: base64 (RFC 4648 section 4) between colons. Padding may be left out
 * and non-zero pad bits are accepted, as the section asks of parsers ("SHOULD NOT
 * fail"); any other character, `=` inside the data, or a length no base64 has fails.
 */
function binary(c: Cursor): Uint8Array<ArrayBuffer> | null {
  const end = c.s.indexOf(':', c.at + 1)
  if (end < 0) return null
  const text = c.s.slice(c.at + 1, end)
  const m = /^([A-Za-z0-9+/]*)(={0,2})$/.exec(text)
  if (m === null) return null
  const data = m[1]!
  const pad = m[2]!.length
  if (data.length % 4 === 1 || (pad > 0 && (data.length + pad) % 4 !== 0)) return null
  c.at = end + 1
  const decoded = atob(data.padEnd(data.length + ((4 - (data.length % 4)) % 4), '='))
  const out = new Uint8Array(decoded.length)
  for (let i = 0; i < decoded.length; i++) out[i] = decoded.charCodeAt(i)
  return out
}

function boolean(c: Cursor): boolean | null {
  const d = c.s[c.at + 1]
  if (d !== '0' && d !== '1') return null
  c.at += 2
  return d === '1'
}

/** Section 4.2.3.2: `*( ";" *SP key [ "=" bare-item ] )`; a key given twice keeps the last. */
function parameters(c: Cursor): Map<string, BareItem> | null {
  const params = new Map<string, BareItem>()
  while (c.s[c.at] === ';') {
    c.at++
    skipSpaces(c)
    const m = /^[a-z*][a-z0-9_\-.*]*/.exec(c.s.slice(c.at))
    if (m === null) return null
    c.at += m[0].length
    let value: BareItem = true
    if (c.s[c.at] === '=') {
      c.at++
      const v = bareItem(c)
      if (v === null) return null
      value = v
    }
    params.set(m[0], value)
  }
  return params
}
