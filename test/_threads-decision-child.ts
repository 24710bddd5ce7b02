// Child process for test/threads-decision.test.ts: runs every surface that takes
// `threads` with `threads: 1` (and no `blockSize`), then two calls that do ask for
// threads, and prints, per scenario, the repository's modules it loaded first, as JSON.
// A fresh process, so that nothing was loaded before; the package is imported only after
// the module hooks (./_loaded-modules.mjs) listen.
import { register } from 'node:module'
import { relative } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { MessageChannel } from 'node:worker_threads'
import { root } from './_fixtures.js'

const { port1, port2 } = new MessageChannel()
register(new URL('./_loaded-modules.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] })
const loaded: string[] = []
let mark: { name: string; seen: () => void } | null = null
port1.on('message', (url: string) => {
  if (mark && url.endsWith(`//${mark.name}`)) mark.seen()
  else if (url.startsWith('file:')) loaded.push(relative(root, fileURLToPath(url)))
})

/** The modules `run` loads: a marker module is loaded after it, and its message waited for (the port keeps the order). */
async function scenario(name: string, run: () => Promise<unknown>): Promise<void> {
  const from = loaded.length
  await run()
  const seen = new Promise<void>((resolve) => (mark = { name, seen: resolve }))
  await import(`data:text/javascript,export default 0//${name}`)
  await seen
  result[name] = loaded.slice(from).filter((m) => !m.startsWith('node_modules'))
}
const result: Record<string, string[]> = {}

let sluice!: typeof import('../index.js')
let nodeDecode!: typeof import('../adapters/node/index.js').nodeDecode
let nodeEncode!: typeof import('../adapters/node/index.js').nodeEncode
let encodeResponse!: typeof import('../adapters/fetch/index.js').encodeResponse
await scenario('import', async () => {
  sluice = await import('../index.js')
  ;({ nodeDecode, nodeEncode } = await import('../adapters/node/index.js'))
  ;({ encodeResponse } = await import('../adapters/fetch/index.js'))
})
const data = new TextEncoder().encode('sluice runs on threads only when asked to; '.repeat(30_000))
const zstd = await sluice.encode('zstd', data)
const gzip = await sluice.encode('gzip', data)
const drain = async (stream: ReadableStream<Uint8Array>): Promise<number> => {
  let n = 0
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) n += chunk.length
  return n
}
const body = (bytes: Uint8Array): ReadableStream<Uint8Array> => new Response(bytes as Uint8Array<ArrayBuffer>).body!
const nodeThrough = (duplex: NodeJS.ReadWriteStream, bytes: Uint8Array) =>
  pipeline(
    Readable.from([bytes]),
    duplex,
    new Writable({
      write(_c, _e, cb) {
        cb()
      },
    }),
  )

await scenario('encode() threads: 1', () => sluice.encode('gzip', data, { threads: 1 }))
await scenario('decode() threads: 1', () => sluice.decode('zstd', zstd, { threads: 1 }))
await scenario('decode() gzip threads: 1', () => sluice.decode('gzip', gzip, { threads: 1 }))
await scenario('gzipEncode threads: 1', () => drain(body(data).pipeThrough(sluice.gzipEncode({ threads: 1 }))))
await scenario('zstdDecode threads: 1', () => drain(body(zstd).pipeThrough(sluice.zstdDecode({ threads: 1 }))))
await scenario('gzipDecode threads: 1', () => drain(body(gzip).pipeThrough(sluice.gzipDecode({ threads: 1 }))))
await scenario('CompressionStream threads: 1', () => drain(body(data).pipeThrough(new sluice.CompressionStream('gzip', { threads: 1 }) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)))
await scenario('DecompressionStream threads: 1', () => drain(body(zstd).pipeThrough(new sluice.DecompressionStream('zstd', { threads: 1 }) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)))
await scenario('nodeEncode threads: 1', () => nodeThrough(nodeEncode('gzip', { threads: 1 }), data))
await scenario('nodeDecode threads: 1', () => nodeThrough(nodeDecode('gzip', { threads: 1 }), gzip))
await scenario('encodeResponse threads: 1', async () => {
  const request = new Request('http://x/', { headers: { 'accept-encoding': 'gzip' } })
  const response = new Response(data, { headers: { 'content-type': 'text/plain', 'content-length': String(data.length) } })
  return (await encodeResponse(request, response, { threads: 1 })).arrayBuffer()
})
// Calls that ask for threads: the implementation loads (the check above can fail).
await scenario('encode() blockSize', () => sluice.encode('gzip', data, { threads: 1, blockSize: 65536 }))
await scenario('zstdDecode threads: 2', () => drain(body(zstd).pipeThrough(sluice.zstdDecode({ threads: 2 }))))
await sluice.closeWorkers()
port1.close()
console.log(JSON.stringify(result))
