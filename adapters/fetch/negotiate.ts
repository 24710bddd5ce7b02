/**
 * Content-coding negotiation from a request's `Accept-Encoding` (RFC 9110 §12.5.3).
 *
 *     negotiate('gzip, deflate, br, zstd', ['zstd', 'br', 'gzip', 'deflate']) // 'zstd'
 *
 * The rules, as the RFC gives them:
 * - Each element is a coding name with an optional weight `;q=` from 0 to 1 (§12.4.2);
 *   names are case-insensitive (§8.4.1). `q=0` means "not acceptable".
 * - `*` matches every coding not listed by name (§12.5.3).
 * - `identity` (no coding) is acceptable unless excluded by `identity;q=0`, or by
 *   `*;q=0` without an `identity` element of its own.
 * - An empty value means the client wants no coding at all.
 * - `x-gzip` is gzip (§8.4.1.3: recipients SHOULD treat it as gzip).
 *
 * Among the codings the client accepts, the highest weight wins; equal weights go by
 * the server's preference order. When `identity` is given a weight (its own or `*`'s)
 * above every coding offered (e.g. `gzip;q=0.5, identity`), no coding is chosen.
 *
 * Without an `Accept-Encoding` field the RFC allows any coding, but clients that send
 * none (curl without `--compressed`, many scripts and health checks) cannot decode
 * one: such requests are answered without a coding, as servers commonly do (nginx
 * gzip, hono compress(), Express compression).
 */
import { HTTP_CODINGS, httpOf, type HttpCoding, type TransportFormat } from '../../lib/formats.js'

/**
 * The content codings this library can produce, by their HTTP names (the format table's
 * codings that are not dictionary transports), in the default offer's order.
 * @useDeclaredType
 */
export type ContentCoding = Exclude<HttpCoding, DictionaryCoding>

/** The default `encodings` of `encodeResponse`, in its order of preference. */
export const CONTENT_CODINGS: readonly ContentCoding[] = /* @__PURE__ */ Object.freeze(HTTP_CODINGS.filter((c) => !httpOf(c).transport) as ContentCoding[])

/**
 * The dictionary-compressed codings of RFC 9842 (sections 4 and 5), offered only with a
 * dictionary the request names in `Available-Dictionary`: the codings of the format
 * table's transports.
 * @useDeclaredType
 */
export type DictionaryCoding = TransportFormat & HttpCoding

/** The RFC 9842 codings, put first in the order when `dictionaries` is given. */
export const DICTIONARY_CODINGS: readonly DictionaryCoding[] = /* @__PURE__ */ Object.freeze(HTTP_CODINGS.filter((c) => httpOf(c).transport) as DictionaryCoding[])

/** One element of an `Accept-Encoding` value. */
export interface AcceptedCoding {
  /** The coding name, lowercased (`x-gzip` is reported as `gzip`). */
  coding: string
  /** The weight, 0 to 1. */
  q: number
}

/**
 * `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (RFC 9110 §12.4.2).
 * Elements with a weight outside that grammar are ignored, not guessed at.
 */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/

/**
 * The elements of an `Accept-Encoding` value in the order given. Malformed elements
 * (a bad name or weight) are left out.
 */
export function parseAcceptEncoding(value: string): AcceptedCoding[] {
  const out: AcceptedCoding[] = []
  for (const element of value.split(',')) {
    const [rawName, ...params] = element.split(';')
    const name = rawName!.trim().toLowerCase()
    // Empty list elements are allowed and ignored (RFC 9110 §5.6.1).
    if (name.length === 0) continue
    if (!/^(?:\*|[!#$%&'*+\-.^_`|~0-9a-z]+)$/.test(name)) continue
    let q = 1
    let valid = true
    for (const param of params) {
      const eq = param.indexOf('=')
      const key = (eq < 0 ? param : param.slice(0, eq)).trim().toLowerCase()
      if (key !== 'q') continue
      const weight = eq < 0 ? '' : param.slice(eq + 1).trim()
      if (!QVALUE.test(weight)) {
        valid = false
        break
      }
      q = Number(weight)
    }
    if (valid) out.push({ coding: name === 'x-gzip' ? 'gzip' : name, q })
  }
  return out
}

/**
 * The weight the client gives `coding`: its own element (the highest, if listed twice),
 * else `*`'s, else 0 for codings and 1 for `identity`.
 */
export function weightOf(accepted: readonly AcceptedCoding[], coding: string): number {
  let own = -1
  let star = -1
  for (const a of accepted) {
    if (a.coding === coding) own = Math.max(own, a.q)
    else if (a.coding === '*') star = Math.max(star, a.q)
  }
  if (own >= 0) return own
  if (star >= 0) return star
  return coding === 'identity' ? 1 : 0
}

/**
 * The coding to use for a request whose `Accept-Encoding` is `header` (null: the
 * field is absent), from `offered` in the server's order of preference; `null` for
 * none (send the body as it is).
 */
export function negotiate<C extends string>(header: string | null, offered: readonly C[]): C | null {
  if (header === null) return null
  const accepted = parseAcceptEncoding(header)
  if (accepted.length === 0) return null
  let best: C | null = null
  let bestQ = 0
  for (const coding of offered) {
    const q = weightOf(accepted, coding)
    if (q > bestQ) {
      best = coding
      bestQ = q
    }
  }
  if (best === null) return null
  // The client prefers no coding to every coding offered, when it says so (an
  // `identity` element, or `*`); unlisted, identity is only "acceptable".
  if (accepted.some((a) => a.coding === 'identity' || a.coding === '*') && weightOf(accepted, 'identity') > bestQ) return null
  return best
}
