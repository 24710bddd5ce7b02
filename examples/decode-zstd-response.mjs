// Task: decode a zstd response. A loopback server sends a zstd file twice: as a file
// (Content-Type application/zstd) and as HTTP content coding (Content-Encoding: zstd,
// which Node 20's fetch leaves encoded). Docs: README "First steps", docs/servers.md.
import { createServer } from 'node:http'
import { encode, zstdDecode } from 'sluice'
import { decodeResponse } from 'sluice/fetch'

const text = 'one line of a log file\n'.repeat(20_000)
const zst = await encode('zstd', new TextEncoder().encode(text), { level: 9 })
const server = createServer((req, res) => {
  if (req.url === '/log.txt.zst') return void res.writeHead(200, { 'content-type': 'application/zstd' }).end(zst)
  res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'zstd' }).end(zst)
})
await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
const base = `http://127.0.0.1:${server.address().port}`
try {
  // A .zst file: pipe the body through the decoder, reading it ourselves (keeps CodecErrors).
  const file = await fetch(`${base}/log.txt.zst`)
  let decoded = ''
  const reader = file.body.pipeThrough(zstdDecode()).pipeThrough(new TextDecoderStream()).getReader()
  for (let r; !(r = await reader.read()).done; ) decoded += r.value
  if (decoded !== text) throw new Error('file: decoded text differs')

  // Content-Encoding: zstd: decodeResponse decodes what the runtime's fetch did not.
  const coded = await decodeResponse(await fetch(`${base}/log.txt`), { skip: ['br'] }).text()
  if (coded !== text) throw new Error('content coding: decoded text differs')
  console.log(`ok: ${zst.length} bytes of zstd decoded to ${text.length} bytes, as a file and as Content-Encoding`)
} finally {
  server.close()
}
