// The servers never promise what they cannot deliver (issue 30): encodeResponse (through
// toNodeListener), hono's compress() (on @hono/node-server) and the Node compression()
// middleware encode a body of any size (here 72 MiB, above the 64 MiB that once cut
// them off after the headers were sent), and a body that fails midway aborts the
// response: curl and Node's fetch see an error, never a short body that looks complete.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { getRequestListener } from '@hono/node-server'
import { Hono } from 'hono'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { encodeResponse, type ContentCoding } from '../adapters/fetch/index.js'
import { compress } from '../adapters/hono/index.js'
import { compression, toNodeListener } from '../adapters/node/index.js'
import { curl, HAS_CURL, listen, nodeFetch, sha256, type Loopback } from './_http.js'

if (!HAS_CURL) console.log('# skipped: curl cases: curl is not installed (apt-get install -y curl)')

const MiB = 1 << 20
/** 72 MiB that compresses (a repeated 4 KiB pattern with a counter in every block). */
const big = (() => {
  const b = new Uint8Array(72 * MiB)
  for (let i = 0; i < b.length; i += 4096) {
    b.fill((i >>> 12) & 0xff, i, i + 4096)
    b[i + 7] = (i >>> 20) & 0xff
  }
  return b
})()
const bigSha = sha256(big)

/** 200 KB, then the upstream fails. */
function failing(): ReadableStream<Uint8Array> {
  let sent = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < 4) controller.enqueue(big.slice(sent * 50_000, (sent + 1) * 50_000))
      else controller.error(new Error('upstream failed'))
    },
  })
}

/** Routes every server below answers: /big (72 MiB in one chunk) and /broken. */
type Route = '/big' | '/broken'

/** The whole body of /big, decoded: by Node's fetch (gzip) and curl (zstd, or gzip without the CLI). */
async function fetchesBig(s: Loopback, label: string): Promise<void> {
  const got = await nodeFetch(`${s.url}/big`, 'gzip')
  assert.is(got.encoding, 'gzip', `${label} fetch: Content-Encoding`)
  assert.is(got.body.length, big.length, `${label} fetch: length`)
  assert.is(sha256(got.body), bigSha, `${label} fetch: bytes`)
  if (HAS_CURL) {
    const got = await curl(`${s.url}/big`, 'zstd')
    assert.is(got.encoding, 'zstd', `${label} curl: Content-Encoding`)
    assert.is(sha256(got.body), bigSha, `${label} curl: bytes`)
  }
}

/**
 * /broken fails on every client: never a clean end. Where the body failed before a byte
 * of it was encoded, a server may still answer 500 (hono's Node adapter does, when the
 * body errors before its headers are written): an error the client sees too.
 */
async function failsBroken(s: Loopback, label: string): Promise<void> {
  for (const coding of ['zstd', 'br', 'gzip', 'deflate'] as ContentCoding[]) {
    if (HAS_CURL) {
      const got = await curl(`${s.url}/broken`, coding).then(
        (r) => r,
        () => null,
      )
      assert.ok(got === null || got.status >= 500, `${label} curl ${coding}: the transfer must fail (got ${got?.status}, ${got?.body.length} bytes)`)
    }
    const rejected = await fetch(`${s.url}/broken`, { headers: { 'accept-encoding': coding } })
      .then(async (r) => {
        if (r.status >= 500) return true
        assert.is(r.headers.get('content-encoding'), coding, `${label} fetch ${coding}: encoded`)
        await r.arrayBuffer()
        return false
      })
      .catch(() => true)
    assert.ok(rejected, `${label} fetch ${coding}: the body must error`)
  }
}

test('encodeResponse: a 72 MiB body in one chunk is sent whole; a body failing midway aborts the response', async () => {
  const s = await listen(
    toNodeListener((request) => {
      const path = new URL(request.url).pathname as Route
      const body = path === '/big' ? new Response(big).body! : failing()
      return encodeResponse(request, new Response(body, { headers: { 'content-type': 'application/octet-stream' } }))
    }),
  )
  try {
    await fetchesBig(s, 'encodeResponse')
    await failsBroken(s, 'encodeResponse')
  } finally {
    await s.close()
  }
})

test("hono's compress(): a 72 MiB body is sent whole; a body failing midway aborts the response", async () => {
  const app = new Hono()
  app.use(compress())
  app.get('/big', (c) => c.body(big as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'application/octet-stream' }))
  app.get('/broken', (c) => c.body(failing(), 200, { 'content-type': 'text/plain' }))
  const s = await listen(getRequestListener(app.fetch))
  try {
    await fetchesBig(s, 'hono')
    await failsBroken(s, 'hono')
  } finally {
    await s.close()
  }
})

test('compression() middleware: res.end() of 72 MiB is sent whole; a handler failing midway aborts the response', async () => {
  const middleware = compression()
  const s = await listen((req: IncomingMessage, res: ServerResponse) => {
    middleware(req, res, () => {
      res.setHeader('content-type', 'application/octet-stream')
      if (req.url === '/big') {
        res.end(big)
        return
      }
      // 200 KB written, then the handler's source fails: it destroys the response.
      let k = 0
      const timer = setInterval(() => {
        if (k++ < 4) res.write(big.subarray(k * 50_000, (k + 1) * 50_000))
        else {
          clearInterval(timer)
          res.destroy(new Error('upstream failed'))
        }
      }, 5)
    })
  })
  try {
    await fetchesBig(s, 'compression()')
    await failsBroken(s, 'compression()')
  } finally {
    await s.close()
  }
})

test.run()
