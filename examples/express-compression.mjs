// Task: compress an Express app's responses (zstd, br, gzip as the client accepts), with
// server-sent events flushed per write. Docs: docs/servers.md.
import express from 'express'
import { decodeResponse } from 'sluice/fetch'
import { compression } from 'sluice/node'

const app = express()
app.use(compression())
const rows = Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `item ${i}` }))
app.get('/rows', (req, res) => res.json(rows))
app.get('/events', (req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  let n = 0
  const timer = setInterval(() => (++n === 3 ? res.end(`data: ${n}\n\n`) : res.write(`data: ${n}\n\n`)), 20)
  res.on('close', () => clearInterval(timer))
})
const server = app.listen(0, '127.0.0.1')
await new Promise((ok) => server.once('listening', ok))
const base = `http://127.0.0.1:${server.address().port}`
try {
  for (const coding of ['zstd', 'br', 'gzip']) {
    const response = await fetch(`${base}/rows`, { headers: { 'accept-encoding': coding } })
    if (response.headers.get('content-encoding') !== coding) throw new Error(`asked for ${coding}, got ${response.headers.get('content-encoding')}`)
    // Node's fetch decodes br and gzip itself (keeping the header); zstd is left to us.
    const body = await decodeResponse(response, { skip: ['br', 'gzip'] }).json()
    if (body.length !== rows.length) throw new Error(`${coding}: wrong body`)
  }
  const events = await decodeResponse(await fetch(`${base}/events`, { headers: { 'accept-encoding': 'zstd' } })).text()
  if ((events.match(/^data: /gm) ?? []).length !== 3) throw new Error(`events: ${events}`)
  const plain = await fetch(`${base}/rows`, { headers: { 'accept-encoding': 'identity' } })
  if (plain.headers.get('content-encoding') !== null) throw new Error('identity was encoded')
  console.log('ok: Express responses in zstd, br and gzip; events flushed; identity left alone')
} finally {
  server.close()
}
