// Task: dictionaries. Small JSON documents compressed with a shared dictionary, then an
// RFC 9842 delta served by encodeResponse and decoded by decodeResponse.
// Docs: docs/dictionaries.md, docs/codecs-and-options.md#dictionary.
import { createServer } from 'node:http'
import { decode, encode } from 'sluice'
import { availableDictionary, decodeResponse, encodeResponse, prepareDictionary } from 'sluice/fetch'
import { toNodeListener } from 'sluice/node'

const enc = new TextEncoder()
const doc = (i) => enc.encode(JSON.stringify({ id: i, user: `user${i}`, email: `user${i}@example.org`, plan: i % 2 ? 'pro' : 'free', tags: ['alpha', 'beta'], created: `2026-01-${String((i % 28) + 1).padStart(2, '0')}` }))
const dictionary = enc.encode(Array.from({ length: 20 }, (_, i) => new TextDecoder().decode(doc(1000 + i))).join('\n'))

// 1. Preset dictionary: each document compressed alone.
let plain = 0
let withDict = 0
for (let i = 0; i < 100; i++) {
  const d = doc(i)
  plain += (await encode('zstd', d)).length
  const packed = await encode('zstd', d, { dictionary })
  withDict += packed.length
  const back = await decode('zstd', packed, { dictionary })
  if (new TextDecoder().decode(back) !== new TextDecoder().decode(d)) throw new Error('round trip')
}
if (withDict >= plain) throw new Error('the dictionary did not help')
console.log(`ok: 100 documents, zstd alone ${plain} bytes, with a dictionary ${withDict} bytes (${(withDict / plain).toFixed(2)}x)`)

// 2. RFC 9842: a server sends a delta against a dictionary the client holds.
const v1 = enc.encode('export const a = 1\n'.repeat(200) + 'export const version = 1\n')
const v2 = enc.encode('export const a = 1\n'.repeat(200) + 'export const version = 2\n')
const prepared = await prepareDictionary({ bytes: v1, id: 'v1' })
const server = createServer(toNodeListener(async (request) => await encodeResponse(request, new Response(v2, { headers: { 'content-type': 'text/javascript' } }), { dictionaries: [prepared] })))
await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
try {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', v1))
  const response = await fetch(`http://127.0.0.1:${server.address().port}/app.js`, { headers: { 'accept-encoding': 'dcz, dcb, zstd', 'available-dictionary': availableDictionary(hash) } })
  const coding = response.headers.get('content-encoding')
  const size = (await response.clone().arrayBuffer()).byteLength
  const text = await decodeResponse(response, { dictionaries: [v1] }).text()
  if (coding !== 'dcz' || text !== new TextDecoder().decode(v2)) throw new Error(`coding ${coding}`)
  console.log(`ok: ${v2.length}-byte file sent as ${coding} in ${size} bytes`)
} finally {
  server.close()
}
