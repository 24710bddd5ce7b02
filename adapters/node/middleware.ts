/**
 * HTTP response compression for Node servers (`node:http`, Express, Connect, Fastify's
 * middie): the same negotiation and rules as `encodeResponse` (adapters/fetch), for
 * handlers that write to a `ServerResponse`.
 *
 *     const app = express()
 *     app.use(compression())            // zstd, br, gzip, deflate, as the client accepts
 *
 * And the bridge between fetch-style handlers and `node:http`:
 *
 *     createServer(toNodeListener(async (request) => await encodeResponse(request, render(request))))
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { checkEncodeOptions, planEncoding, weakETag, type EncodeResponseOptions, type HeaderLookup } from '../fetch/encode-response.js'
import { nodeEncode, type NodeCodecDuplex } from './streams.js'

/**
 * Connect/Express's `next`: called once the response is set up to be encoded.
 * @inline
 */
type Next = (error?: unknown) => void
type WriteCallback = (error?: Error | null) => void

/** A header of a Node message as one string (lists joined as RFC 9110 §5.3 allows), or null. */
function joined(value: string | number | readonly string[] | undefined): string | null {
  if (value === undefined) return null
  return Array.isArray(value) ? value.join(', ') : String(value)
}

function byteLength(chunk: unknown, encoding?: BufferEncoding): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, encoding)
  if (ArrayBuffer.isView(chunk)) return chunk.byteLength
  return 0
}

function toBuffer(chunk: unknown, encoding?: BufferEncoding): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, encoding)
  if (Buffer.isBuffer(chunk)) return chunk
  if (ArrayBuffer.isView(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  throw new TypeError('chunk must be a string, Buffer or Uint8Array')
}

/**
 * An Express/Connect-style middleware (`(req, res, next)`) that encodes what the
 * handlers after it write, when the request accepts a coding and the response is
 * eligible (see `encodeResponse`). The decision is made at the first `write()`,
 * `writeHead()` or `end()`, from the status and headers set by then. `res.end(body)`
 * without earlier writes counts as a body of known length (for `minBytes`).
 *
 * Backpressure is kept: `res.write()` returns false while the encoder is full and
 * `'drain'` follows. A client that goes away destroys the encoder.
 * `text/event-stream` responses are flushed after every `res.write()`; elsewhere
 * `res.flush()` writes a sync point on demand (as with the `compression` package).
 */
export function compression(options: EncodeResponseOptions = {}): (req: IncomingMessage, res: ServerResponse, next?: Next) => void {
  const checked = checkEncodeOptions(options)
  return (req, res, next) => {
    encodeNodeResponse(req, res, checked)
    next?.()
  }
}

/** Makes `res` encode its body as `compression()` does; see there. */
export function encodeNodeResponse(req: IncomingMessage, res: ServerResponse, options: EncodeResponseOptions = {}): void {
  const checked = checkEncodeOptions(options)
  const write = res.write
  const end = res.end
  const writeHead = res.writeHead
  let decided = false
  let encoder: NodeCodecDuplex | null = null
  /** The body's length when `end(body)` came first, for the `minBytes` rule. */
  let knownLength: number | null = null

  const requestHeader: HeaderLookup = (name) => joined(req.headers[name])
  const responseHeader: HeaderLookup = (name) => {
    if (name === 'content-length' && knownLength !== null && !res.hasHeader('content-length')) return String(knownLength)
    return joined(res.getHeader(name))
  }

  const decide = () => {
    if (decided) return
    decided = true
    if (res.headersSent) return
    const plan = planEncoding(req.method ?? 'GET', requestHeader, res.statusCode, responseHeader, true, checked)
    if (plan === null) return
    res.setHeader('Vary', plan.vary)
    if (plan.coding === null) return
    res.setHeader('Content-Encoding', plan.coding)
    res.removeHeader('Content-Length')
    const etag = joined(res.getHeader('etag'))
    if (etag !== null) res.setHeader('ETag', weakETag(etag))
    const e = nodeEncode(plan.format, { level: plan.level, engine: plan.engine, flush: plan.flush, dictionary: plan.dictionary })
    encoder = e
    e.on('data', (chunk: Buffer) => {
      if (!(write as (c: Buffer) => boolean).call(res, chunk)) e.pause()
    })
    res.on('drain', () => e.resume())
    e.on('drain', () => res.emit('drain'))
    e.on('end', () => (end as () => void).call(res))
    e.on('error', (error) => res.destroy(error))
    // The client went away (or the handler destroyed the response): free the encoder.
    res.on('close', () => {
      if (!e.destroyed) e.destroy()
    })
  }

  res.writeHead = function (this: ServerResponse, status: number, reason?: unknown, headers?: unknown): ServerResponse {
    if (typeof reason !== 'string') {
      headers = reason
      reason = undefined
    }
    if (!decided) {
      res.statusCode = status
      if (typeof reason === 'string') res.statusMessage = reason
      if (Array.isArray(headers)) {
        // Raw form: [name, value, name, value, ...] or [[name, value], ...].
        const pairs: Array<[string, string]> = Array.isArray(headers[0]) ? (headers as Array<[string, string]>) : []
        if (pairs.length === 0) for (let i = 0; i + 1 < headers.length; i += 2) pairs.push([String(headers[i]), String(headers[i + 1])])
        for (const [k, v] of pairs) res.appendHeader(k, v)
      } else if (headers !== null && typeof headers === 'object') {
        for (const [k, v] of Object.entries(headers as Record<string, string | number | string[]>)) if (v !== undefined) res.setHeader(k, v)
      }
      decide()
      return writeHead.call(res, res.statusCode)
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).call(res, status, ...(reason === undefined ? [] : [reason]), ...(headers === undefined ? [] : [headers]))
  } as ServerResponse['writeHead']

  res.write = function (this: ServerResponse, chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    decide()
    if (encoder === null) return (write as (...a: unknown[]) => boolean).apply(res, [chunk, encoding, callback].filter((a) => a !== undefined))
    if (typeof encoding === 'function') {
      callback = encoding
      encoding = undefined
    }
    return encoder.write(toBuffer(chunk, encoding as BufferEncoding | undefined), callback as WriteCallback | undefined)
  } as ServerResponse['write']

  // A sync point after what was written so far; nothing to do while unencoded.
  ;(res as ServerResponse & { flush(): void }).flush = () => {
    decide()
    ;(encoder as NodeCodecDuplex | null)?.flush()
  }

  res.end = function (this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown): ServerResponse {
    if (typeof chunk === 'function') {
      callback = chunk
      chunk = undefined
    } else if (typeof encoding === 'function') {
      callback = encoding
      encoding = undefined
    }
    if (!decided) knownLength = chunk === undefined || chunk === null ? 0 : byteLength(chunk, encoding as BufferEncoding | undefined)
    decide()
    if (encoder === null) return (end as (...a: unknown[]) => ServerResponse).apply(res, [chunk, encoding, callback].filter((a) => a !== undefined))
    if (typeof callback === 'function') res.once('finish', callback as () => void)
    if (chunk !== undefined && chunk !== null) encoder.end(toBuffer(chunk, encoding as BufferEncoding | undefined))
    else encoder.end()
    return res
  } as ServerResponse['end']
}

/** A fetch `Request` for a Node request (the body streams; `signal` aborts when the client goes away). */
export function toRequest(req: IncomingMessage, res?: ServerResponse): Request {
  const host = joined(req.headers.host) ?? '127.0.0.1'
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true
  const url = new URL(req.url ?? '/', `${secure ? 'https' : 'http'}://${host}`)
  const headers = new Headers()
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
  const controller = new AbortController()
  ;(res ?? req).once('close', () => {
    if (!(res?.writableFinished ?? req.complete)) controller.abort()
  })
  const method = req.method ?? 'GET'
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: controller.signal }
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>
    init.duplex = 'half'
  }
  return new Request(url, init)
}

/**
 * Sends a fetch `Response` through a Node `ServerResponse`, streaming, with the
 * socket's backpressure. A body that errors midway destroys the response (the client
 * sees an aborted transfer, not a short body that looks complete); a client that goes
 * away cancels the body. Resolves when the response is finished or destroyed.
 */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status
  if (response.statusText) res.statusMessage = response.statusText
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') continue
    res.setHeader(name, value)
  }
  const cookies = response.headers.getSetCookie?.() ?? []
  if (cookies.length > 0) res.setHeader('set-cookie', cookies)
  const body = response.body
  if (body === null) {
    await new Promise<void>((resolve) => res.end(resolve))
    return
  }
  const reader = body.getReader()
  let closed = false
  const onClose = () => {
    closed = true
    if (!res.writableFinished) reader.cancel(new Error('the client closed the connection')).catch(() => undefined)
  }
  res.once('close', onClose)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (closed) return
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go)
            res.off('close', go)
            resolve()
          }
          res.on('drain', go)
          res.on('close', go)
        })
      }
    }
    if (!closed) await new Promise<void>((resolve) => res.end(resolve))
  } catch (error) {
    res.destroy(error as Error)
  } finally {
    res.off('close', onClose)
  }
}

/** A fetch-style handler. */
export type FetchHandler = (request: Request) => Response | Promise<Response>

/** A `node:http` request listener that answers through a fetch-style handler. */
export function toNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let request: Request
    try {
      request = toRequest(req, res)
    } catch {
      res.statusCode = 400
      res.end()
      return
    }
    Promise.resolve()
      .then(() => handler(request))
      .then((response) => sendResponse(res, response))
      .catch((error: unknown) => {
        if (!res.headersSent) {
          res.statusCode = 500
          res.end()
        } else res.destroy(error as Error)
      })
  }
}
