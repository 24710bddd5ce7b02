// The Express-style compression() middleware on a real node:http server, beyond the
// client matrix in encode-response-clients.test.ts: server-sent events written with
// res.write() reach the client one by one (each decoded by node:zlib's streaming
// decoder before the next is written), writeHead() headers are seen, HEAD and 304 are
// left alone, and a client that goes away destroys the encoder.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import * as zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { compression } from '../adapters/node/index.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { listen } from './_http.js'

const text = Buffer.from(filesCorpus(root + '/lib', 100_000))

function get(url: string, headers: Record<string, string>, method = 'GET'): Promise<{ res: IncomingMessage; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('end', () => resolve({ res, body: Buffer.concat(parts) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

test('SSE written with res.write(): each event decodes before the next is written', async () => {
  const count = 6
  const waiters: Array<() => void> = []
  const seen = Array.from({ length: count }, (_, k) => new Promise<void>((resolve) => (waiters[k] = resolve)))
  const mw = compression()
  const s = await listen((req, res) =>
    mw(req, res, async () => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
      for (let k = 0; k < count; k++) {
        res.write(`id: ${k}\ndata: ${'y'.repeat(k * 30)}\n\n`)
        // A deadline against a hang (without flushing the event would never arrive).
        let timer: NodeJS.Timeout | undefined
        const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 30_000)))
        const got = await Promise.race([seen[k]!.then(() => 'seen' as const), late])
        clearTimeout(timer)
        if (got === 'late') break
      }
      res.end()
    }),
  )
  try {
    const all = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${s.url}/`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        assert.is(res.headers['content-encoding'], 'gzip')
        assert.is(res.headers['vary'], 'Accept-Encoding')
        const gunzip = zlib.createGunzip()
        let got = ''
        gunzip.on('data', (c: Buffer) => {
          got += c.toString()
          for (let k = 0; k < count; k++) if (got.includes(`id: ${k}\ndata: ${'y'.repeat(k * 30)}\n\n`)) waiters[k]!()
        })
        gunzip.on('end', () => resolve(got))
        gunzip.on('error', reject)
        res.pipe(gunzip)
      })
      req.on('error', reject)
      req.end()
    })
    for (let k = 0; k < count; k++) assert.ok(all.includes(`id: ${k}\n`), `event ${k}`)
  } finally {
    await s.close()
  }
})

test('res.flush() on a response that is not an event stream: what was written decodes before the rest is written', async () => {
  const first = 'first part of a long page\n'.repeat(50)
  let seenFirst: () => void = () => {}
  const seen = new Promise<void>((resolve) => (seenFirst = resolve))
  const mw = compression()
  const s = await listen((req, res) =>
    mw(req, res, async () => {
      res.writeHead(200, { 'Content-Type': 'text/html' })
      res.write(first)
      ;(res as ServerResponse & { flush(): void }).flush()
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 30_000)))
      const got = await Promise.race([seen.then(() => 'seen' as const), late])
      clearTimeout(timer)
      res.end(got === 'seen' ? 'the rest' : 'flush did not reach the client')
    }),
  )
  try {
    const all = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${s.url}/`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        assert.is(res.headers['content-encoding'], 'gzip')
        const gunzip = zlib.createGunzip()
        let got = ''
        gunzip.on('data', (c: Buffer) => {
          got += c.toString()
          if (got.startsWith(first)) seenFirst()
        })
        gunzip.on('end', () => resolve(got))
        gunzip.on('error', reject)
        res.pipe(gunzip)
      })
      req.on('error', reject)
      req.end()
    })
    assert.is(all, first + 'the rest')
  } finally {
    await s.close()
  }
})

test('writeHead() headers decide; HEAD, 304, no-transform and Content-Encoding are left alone', async () => {
  const mw = compression()
  const s = await listen((req: IncomingMessage, res: ServerResponse) =>
    mw(req, res, () => {
      const url = req.url ?? '/'
      if (url === '/304') {
        res.writeHead(304, { ETag: '"x"' })
        res.end()
      } else if (url === '/png') {
        res.writeHead(200, { 'Content-Type': 'image/png' })
        res.end(text)
      } else if (url === '/no-transform') {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-transform' })
        res.end(text)
      } else if (url === '/encoded') {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' })
        res.end(zlib.gzipSync(text))
      } else if (url === '/small') {
        res.setHeader('Content-Type', 'text/plain')
        res.end('tiny')
      } else {
        res.writeHead(200, 'Fine', { 'Content-Type': 'text/plain', ETag: '"strong"', 'Content-Length': String(text.length) })
        res.end(text)
      }
    }),
  )
  try {
    const ok = await get(`${s.url}/`, { 'accept-encoding': 'br' })
    assert.is(ok.res.statusMessage, 'Fine')
    assert.is(ok.res.headers['content-encoding'], 'br')
    assert.is(ok.res.headers['content-length'], undefined)
    assert.is(ok.res.headers['etag'], 'W/"strong"')
    assert.is(Buffer.compare(zlib.brotliDecompressSync(ok.body), text), 0)
    const head = await get(`${s.url}/`, { 'accept-encoding': 'br' }, 'HEAD')
    assert.is(head.res.headers['content-encoding'], undefined)
    assert.is(head.res.headers['content-length'], String(text.length))
    for (const path of ['/304', '/png', '/no-transform', '/small']) {
      const r = await get(`${s.url}${path}`, { 'accept-encoding': 'gzip' })
      assert.is(r.res.headers['content-encoding'], undefined, path)
    }
    const encoded = await get(`${s.url}/encoded`, { 'accept-encoding': 'zstd, gzip' })
    assert.is(encoded.res.headers['content-encoding'], 'gzip')
    assert.is(Buffer.compare(zlib.gunzipSync(encoded.body), text), 0, 'encoded once')
  } finally {
    await s.close()
  }
})

test('a client that goes away destroys the encoder (the handler sees close)', async () => {
  const mw = compression()
  let closed = 0
  const s = await listen((req, res) =>
    mw(req, res, () => {
      res.setHeader('Content-Type', 'text/plain')
      res.on('close', () => closed++)
      const tick = () => {
        if (res.destroyed) return
        res.write(text.subarray(0, 20_000))
        setTimeout(tick, 1)
      }
      tick()
    }),
  )
  try {
    for (let i = 0; i < 10; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`${s.url}/`, { headers: { 'accept-encoding': i % 2 ? 'zstd' : 'gzip' } }, (res) => {
          res.once('data', () => {
            req.destroy()
            resolve()
          })
        })
        req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)))
        req.end()
      })
    }
    for (let wait = 0; wait < 300 && closed < 10; wait++) await new Promise((r) => setTimeout(r, 10))
    assert.is(closed, 10)
  } finally {
    await s.close()
  }
})

test.run()
