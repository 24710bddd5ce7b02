// Real HTTP clients for the server-side suites: a loopback server, curl --compressed,
// Node's fetch (undici) and headless Chromium (Debian's, driven by playwright-core).
// Clients that are not installed make their cases skip with a reason.
import { execFile } from 'node:child_process'
import { hasCli, runCli } from './_cli.js'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const HAS_CURL = hasCli('curl')
export const HAS_ZSTD = hasCli('zstd')
export const CHROMIUM = '/usr/bin/chromium'
export const HAS_CHROMIUM = existsSync(CHROMIUM)

/** What each client sends when it is not forced: browsers, Node 20's fetch, curl 7.88 --compressed. */
export const BROWSER_ACCEPT = 'gzip, deflate, br, zstd'

export interface Loopback {
  url: string
  server: Server
  close(): Promise<void>
}

/** A node:http server on 127.0.0.1 (a free port). */
export async function listen(listener: RequestListener): Promise<Loopback> {
  const server = createServer(listener)
  // No idle timeout: a client (Node's fetch) reusing a kept-alive socket must not race the
  // server closing it (ECONNRESET, 'fetch failed'); close() ends every connection.
  server.keepAliveTimeout = 0
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex')

export interface Fetched {
  status: number
  /** The Content-Encoding the server sent (null: none). */
  encoding: string | null
  /** The body as the client decoded it. */
  body: Uint8Array
}

/** `curl --compressed` (decodes zstd, br, gzip, deflate itself), with `accept` as Accept-Encoding if given. */
export function curl(url: string, accept?: string): Promise<Fetched> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-curl-'))
  const args = ['-s', '-S', '--compressed', '--max-time', '60', '-D', join(dir, 'h'), '-o', join(dir, 'b'), '-w', '%{http_code}']
  if (accept !== undefined) args.push('-H', `Accept-Encoding: ${accept}`)
  args.push(url)
  return new Promise((resolve, reject) => {
    execFile('curl', args, { maxBuffer: 1 << 20 }, async (error, stdout, stderr) => {
      try {
        if (error) throw new Error(`curl ${url} failed: ${stderr || error.message}`)
        const { readFileSync } = await import('node:fs')
        const headers = readFileSync(join(dir, 'h'), 'latin1')
        const encoding = /^content-encoding:\s*(.+?)\s*$/im.exec(headers)?.[1]?.toLowerCase() ?? null
        resolve({ status: Number(stdout), encoding, body: new Uint8Array(readFileSync(join(dir, 'b'))) })
      } catch (e) {
        reject(e)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
}

/**
 * `curl` without `--compressed`: the body exactly as the server sent it, for codings
 * curl cannot decode (dcz, dcb). `headers` are sent as given.
 */
export function curlRaw(url: string, headers: Record<string, string>): Promise<Fetched> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-curl-'))
  const args = ['-s', '-S', '--max-time', '60', '-D', join(dir, 'h'), '-o', join(dir, 'b'), '-w', '%{http_code}']
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`)
  args.push(url)
  return new Promise((resolve, reject) => {
    execFile('curl', args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      try {
        if (error) throw new Error(`curl ${url} failed: ${stderr || error.message}`)
        const head = readFileSync(join(dir, 'h'), 'latin1')
        const encoding = /^content-encoding:\s*(.+?)\s*$/im.exec(head)?.[1]?.toLowerCase() ?? null
        resolve({ status: Number(stdout), encoding, body: new Uint8Array(readFileSync(join(dir, 'b'))) })
      } catch (e) {
        reject(e)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
}

/**
 * Node's own fetch. Node 20's undici decodes gzip, deflate and br; a zstd body stays
 * encoded there and is decoded with the reference CLI.
 */
export async function nodeFetch(url: string, accept?: string): Promise<Fetched> {
  const response = await fetch(url, accept === undefined ? {} : { headers: { 'accept-encoding': accept } })
  const encoding = response.headers.get('content-encoding')
  let body: Uint8Array = new Uint8Array(await response.arrayBuffer())
  const zstdMagic = body.length >= 4 && body[0] === 0x28 && body[1] === 0xb5 && body[2] === 0x2f && body[3] === 0xfd
  if (encoding === 'zstd' && zstdMagic) {
    body = runCli('zstd', ['-d', '-c', '-q'], body)
  }
  return { status: response.status, encoding, body }
}

export interface BrowserResult {
  path: string
  status: number
  encoding: string | null
  length: number
  sha256: string
}

/**
 * Fetches `paths` from a page of `base` in headless Chromium (which sends its own
 * Accept-Encoding and decodes zstd, br, gzip and deflate natively). Returns the decoded
 * bodies' lengths and SHA-256.
 */
export async function chromiumFetch(base: string, pagePath: string, paths: string[]): Promise<BrowserResult[]> {
  return chromiumEvaluate<BrowserResult[]>(
    base,
    pagePath,
    `(async (list) => {
      ${PAGE_FETCH}
      const out = []
      for (const path of list) out.push(await fetched(path))
      return out
    })(${JSON.stringify(paths)})`,
  )
}

/**
 * Page-side source text: `fetched(path, init)` fetches (`cache: 'no-store'` unless
 * `init` says otherwise) and describes the decoded body as a `BrowserResult`.
 */
export const PAGE_FETCH = `
  const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('')
  const fetched = async (path, init = { cache: 'no-store' }) => {
    const r = await fetch(path, init)
    const body = await r.arrayBuffer()
    return { path, status: r.status, encoding: r.headers.get('content-encoding'), length: body.byteLength, sha256: hex(await crypto.subtle.digest('SHA-256', body)) }
  }`

/**
 * Opens `pagePath` of `base` in a fresh headless Chromium profile and returns what
 * `script` (page-side source text: the test runner's transpiler adds helpers to
 * functions it compiles, which do not exist in the page) evaluates to.
 */
export async function chromiumEvaluate<T>(base: string, pagePath: string, script: string): Promise<T> {
  const { chromium } = await import('playwright-core')
  const userDataDir = mkdtempSync(join(tmpdir(), 'sluice-chromium-'))
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage']
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args })
  try {
    const page = await context.newPage()
    await page.goto(new URL(pagePath, base).href)
    return (await page.evaluate(script)) as T
  } finally {
    await context.close()
    rmSync(userDataDir, { recursive: true, force: true })
  }
}

export interface Served {
  body: Uint8Array
  etag?: string
  /** 'ignore': every GET is a 200 with the whole body; 'no-head': HEAD is 405. */
  mode?: 'ignore' | 'no-head' | 'gzip'
}

/** A static file server honouring Range and If-Range (RFC 9110 §14), logging each request. */
export function rangeServer(served: Served, log: string[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const range = req.headers.range
    log.push(`${req.method} ${range ?? ''}`.trim())
    const body = served.body
    const headers: Record<string, string> = { 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream' }
    if (served.etag) headers.etag = served.etag
    if (served.mode === 'gzip') headers['content-encoding'] = 'gzip'
    if (req.method === 'HEAD') {
      if (served.mode === 'no-head') return res.writeHead(405).end()
      return res.writeHead(200, { ...headers, 'content-length': String(body.length) }).end()
    }
    const ifRange = req.headers['if-range']
    const m = range && served.mode !== 'ignore' && (!ifRange || ifRange === served.etag) ? /^bytes=(\d+)-(\d+)$/.exec(range) : null
    if (!m) return res.writeHead(200, { ...headers, 'content-length': String(body.length) }).end(body)
    const start = Number(m[1])
    const end = Math.min(Number(m[2]), body.length - 1)
    if (start >= body.length) return res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end()
    res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${body.length}`, 'content-length': String(end - start + 1) })
    res.end(body.subarray(start, end + 1))
  }
}
