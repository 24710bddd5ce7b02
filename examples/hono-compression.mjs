// Task: compress a hono app's responses with sluice/hono's compress(), a drop-in for
// hono/compress that also speaks zstd. Docs: docs/servers.md.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { decodeResponse } from 'sluice/fetch'
import { compress } from 'sluice/hono'

const app = new Hono()
app.use(compress())
const report = { rows: Array.from({ length: 5000 }, (_, i) => ({ id: i, ok: i % 3 !== 0 })) }
app.get('/report', (c) => c.json(report))
app.get('/tiny', (c) => c.text('short', 200, { 'content-length': '5' }))
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
await new Promise((ok) => server.once('listening', ok))
const base = `http://127.0.0.1:${server.address().port}`
try {
  const response = await fetch(`${base}/report`, { headers: { 'accept-encoding': 'zstd, br;q=0.9, gzip;q=0.8' } })
  if (response.headers.get('content-encoding') !== 'zstd') throw new Error(`expected zstd, got ${response.headers.get('content-encoding')}`)
  if (!/accept-encoding/i.test(response.headers.get('vary') ?? '')) throw new Error('no Vary: Accept-Encoding')
  const body = await decodeResponse(response).json()
  if (body.rows.length !== 5000) throw new Error('wrong body')
  const tiny = await fetch(`${base}/tiny`, { headers: { 'accept-encoding': 'zstd' } })
  if (tiny.headers.get('content-encoding') !== null) throw new Error('a 5-byte body was compressed')
  console.log('ok: hono responses in zstd (by q-value), Vary set, small bodies left alone')
} finally {
  server.close()
}
