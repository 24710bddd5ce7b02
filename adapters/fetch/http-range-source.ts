/**
 * A `RangeSource` (lib/range-source.ts) over HTTP: the size from a `HEAD` (or, when the
 * server refuses `HEAD`, from the `Content-Range` of a first ranged `GET`), then one
 * `GET` with `Range: bytes=a-b` (RFC 9110 §14.2) per read. Works wherever `fetch` does:
 * browsers, Workers, Deno, Bun, Node.
 *
 * The resource must not change between reads, and the server must honour `Range`:
 * - a strong `ETag` from the first response is sent as `If-Range` (RFC 9110 §13.1.5): a
 *   server whose resource changed answers 200 with the new representation instead of
 *   206, and a 206 whose `ETag` or `Content-Range` length differs from the first is
 *   refused the same way; either is a `CodecError` (`INVALID_DATA`) saying the resource
 *   changed, never bytes of two versions mixed;
 * - a 200 to a ranged request from a server that did not change the resource means it
 *   ignores `Range`: `UNSUPPORTED`, naming the status, before the body is read (it is
 *   cancelled, so a large file is not downloaded whole);
 * - ranges are of the bytes as stored: the request asks for `Accept-Encoding: identity`
 *   (browsers send it for range requests themselves), and a response with another
 *   `Content-Encoding` is `UNSUPPORTED`.
 */
import { CodecError } from '../../lib/errors.js'
import type { RangeSource } from '../../lib/range-source.js'

const FORMAT = 'http'

/** Options of `httpRangeSource`: a `RequestInit` for every request, and the `fetch` to use. */
export interface HttpRangeSourceInit extends RequestInit {
  /** The fetch function; default `globalThis.fetch`. */
  fetch?: typeof fetch
}

/** A `RangeSource` over one HTTP resource. */
export interface HttpRangeSource extends RangeSource {
  /** The resource's URL as a string (`String(url)` of what `httpRangeSource` was given); every request goes to it. */
  readonly url: string
  /** The resource's `ETag` as the first response gave it, or null. */
  readonly etag: string | null
  /** Requests made so far (the size probe included). */
  readonly requests: number
}

/**
 * Opens `url` as a range source: one request for the size (`HEAD`, or a ranged `GET`
 * when `HEAD` is refused), then one ranged `GET` per `read(offset, length)`. Rejects with a
 * `CodecError`: `INVALID_OPTION` for an HTTP error status, `UNSUPPORTED` for a server that
 * ignores `Range` or encodes the body.
 */
export async function httpRangeSource(url: string | URL, init: HttpRangeSourceInit = {}): Promise<HttpRangeSource> {
  const { fetch: fetchOption, ...requestInit } = init
  const doFetch = fetchOption ?? globalThis.fetch
  if (typeof doFetch !== 'function') throw new CodecError('INVALID_OPTION', FORMAT, 'no fetch in this runtime; pass init.fetch')
  const href = String(url)
  let requests = 0
  const request = (method: string, headers: Record<string, string>): Promise<Response> => {
    const merged = new Headers(requestInit.headers)
    merged.set('accept-encoding', 'identity')
    for (const [k, v] of Object.entries(headers)) merged.set(k, v)
    requests++
    return doFetch(href, { ...requestInit, method, headers: merged })
  }

  let size: number
  let etag: string | null
  const head = await request('HEAD', {})
  const headLength = head.headers.get('content-length')
  if (head.ok && headLength !== null && /^\d+$/.test(headLength.trim())) {
    checkIdentity(head, href)
    size = Number(headLength.trim())
    etag = strongEtag(head.headers.get('etag'))
  } else {
    // No HEAD (405, 501) or no length: a first ranged GET says both.
    await head.body?.cancel()
    const probe = await request('GET', { range: 'bytes=0-0' })
    if (probe.status === 416) {
      // RFC 9110 §15.5.17: an empty representation has no satisfiable range.
      const total = parseContentRange(probe.headers.get('content-range'))?.total
      await probe.body?.cancel()
      if (total === 0) return makeSource(href, 0, null, request, () => requests)
    }
    if (probe.status !== 206) {
      await probe.body?.cancel()
      if (probe.ok) throw new CodecError('UNSUPPORTED', FORMAT, `${href}: the server ignores Range (status ${probe.status} instead of 206 Partial Content); it cannot be read by ranges`)
      throw statusError(probe, href, 'GET')
    }
    checkIdentity(probe, href)
    const range = parseContentRange(probe.headers.get('content-range'))
    await probe.body?.cancel()
    if (range === null || range.total < 0) throw new CodecError('UNSUPPORTED', FORMAT, `${href}: 206 without a Content-Range that gives the resource's length`)
    size = range.total
    etag = strongEtag(probe.headers.get('etag'))
  }
  return makeSource(href, size, etag, request, () => requests)
}

function makeSource(
  url: string,
  size: number,
  etag: string | null,
  request: (method: string, headers: Record<string, string>) => Promise<Response>,
  count: () => number,
): HttpRangeSource {
  return {
    url,
    size,
    etag,
    get requests() {
      return count()
    },
    async read(offset: number, length: number): Promise<Uint8Array> {
      if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > size) {
        throw new CodecError('INVALID_OPTION', FORMAT, `read(${offset}, ${length}) is outside the resource's ${size} bytes`)
      }
      if (length === 0) return new Uint8Array(0)
      const headers: Record<string, string> = { range: `bytes=${offset}-${offset + length - 1}` }
      if (etag !== null) headers['if-range'] = etag
      const response = await request('GET', headers)
      if (response.status !== 206) {
        await response.body?.cancel()
        if (response.status === 200) {
          const now = strongEtag(response.headers.get('etag'))
          if (etag !== null && now !== etag) throw changed(url, `its ETag is now ${now ?? 'absent'}, was ${etag}`)
          throw new CodecError('UNSUPPORTED', FORMAT, `${url}: the server ignores Range (status 200 instead of 206 Partial Content for bytes ${offset}-${offset + length - 1})`)
        }
        if (response.status === 416) throw changed(url, `the range ${offset}-${offset + length - 1} of its ${size} bytes is no longer satisfiable (416)`)
        throw statusError(response, url, 'GET')
      }
      checkIdentity(response, url)
      const range = parseContentRange(response.headers.get('content-range'))
      if (range !== null && range.total >= 0 && range.total !== size) {
        await response.body?.cancel()
        throw changed(url, `its length is now ${range.total} bytes, was ${size}`)
      }
      const now = strongEtag(response.headers.get('etag'))
      if (etag !== null && now !== null && now !== etag) {
        await response.body?.cancel()
        throw changed(url, `its ETag is now ${now}, was ${etag}`)
      }
      if (range !== null && (range.start !== offset || range.end !== offset + length - 1)) {
        await response.body?.cancel()
        throw new CodecError('INVALID_DATA', FORMAT, `${url}: asked for bytes ${offset}-${offset + length - 1}, the server sent ${range.start}-${range.end}`)
      }
      const body = new Uint8Array(await response.arrayBuffer())
      if (body.length !== length) {
        throw new CodecError('TRUNCATED', FORMAT, `${url}: ${body.length} bytes for the range ${offset}-${offset + length - 1} (${length} bytes)`, offset + Math.min(body.length, length))
      }
      return body
    },
  }
}

function changed(url: string, why: string): CodecError {
  return new CodecError('INVALID_DATA', FORMAT, `${url}: the resource changed while it was being read: ${why}`)
}

function statusError(response: Response, url: string, method: string): CodecError {
  return new CodecError('INVALID_OPTION', FORMAT, `${method} ${url}: ${response.status} ${response.statusText}`.trimEnd())
}

/** Ranges are of the stored bytes: a body with a content coding cannot be read by ranges here. */
function checkIdentity(response: Response, url: string): void {
  const coding = response.headers.get('content-encoding')
  if (coding !== null && coding.trim() !== '' && coding.trim().toLowerCase() !== 'identity') {
    void response.body?.cancel()
    throw new CodecError('UNSUPPORTED', FORMAT, `${url}: the server sent Content-Encoding ${coding}; ranges must be of the stored bytes (serve the file without a content coding)`)
  }
}

/** A strong entity tag (RFC 9110 §8.8.3), the only kind `If-Range` may carry (§13.1.5). */
function strongEtag(value: string | null): string | null {
  if (value === null) return null
  const v = value.trim()
  return v.startsWith('"') ? v : null
}

/** `Content-Range: bytes a-b/total` (RFC 9110 §14.4); total -1 for `*`. */
function parseContentRange(value: string | null): { start: number; end: number; total: number } | null {
  if (value === null) return null
  const m = /^\s*bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)\s*$/i.exec(value)
  if (!m) return null
  return { start: m[1] ? Number(m[1]) : -1, end: m[2] ? Number(m[2]) : -1, total: m[3] === '*' ? -1 : Number(m[3]) }
}
