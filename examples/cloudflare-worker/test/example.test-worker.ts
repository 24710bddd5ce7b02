/**
 * Tests the example Worker (../worker.ts) under workerd: a `test()` handler calls it
 * through a service binding; its upstream is a second Worker (./upstream.ts). Prints
 * the same `ok`/`FAIL` lines and `RESULT` counts as the runtime cases.
 */
import { tableFromIPC } from 'apache-arrow'

interface Env {
  EXAMPLE: { fetch(input: string, init?: RequestInit): Promise<Response> }
  ARROW_PLAIN: ArrayBuffer
  JSON_PLAIN: ArrayBuffer
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export default {
  async test(_controller: unknown, env: Env) {
    const counts = { runtime: 'workerd-example', passed: 0, failed: 0, skipped: 0 }
    const check = async (name: string, run: () => Promise<void>) => {
      try {
        await run()
        counts.passed++
        console.log(`ok workerd-example | ${name}`)
      } catch (error) {
        counts.failed++
        console.log(`FAIL workerd-example | ${name} | ${String(error)}`)
      }
    }
    const arrow = new Uint8Array(env.ARROW_PLAIN)
    const json = new Uint8Array(env.JSON_PLAIN)
    for (const suffix of ['zst', 'lz4']) {
      await check(`an Arrow IPC stream compressed with the ${suffix} CLI is served decoded, and apache-arrow reads it`, async () => {
        const res = await env.EXAMPLE.fetch(`http://example/table.arrow.${suffix}`)
        if (res.status !== 200) throw new Error(`status ${res.status}`)
        if (res.headers.get('content-type') !== 'application/vnd.apache.arrow.stream') throw new Error(`content-type ${res.headers.get('content-type')}`)
        const bytes = new Uint8Array(await res.arrayBuffer())
        if (!same(bytes, arrow)) throw new Error(`decoded ${bytes.length} bytes differ from the ${arrow.length}-byte IPC stream`)
        const table = tableFromIPC(bytes)
        if (table.numRows !== 1000 || table.getChild('id')?.get(999) !== 999) throw new Error(`table has ${table.numRows} rows`)
      })
    }
    await check('JSON compressed as data.json.lz4 is served decoded as application/json', async () => {
      const res = await env.EXAMPLE.fetch('http://example/data.json.lz4')
      if (res.headers.get('content-type') !== 'application/json') throw new Error(`content-type ${res.headers.get('content-type')}`)
      const text = await res.text()
      if (!same(new TextEncoder().encode(text), json)) throw new Error('JSON differs')
      JSON.parse(text)
    })
    await check('JSON sent with Content-Encoding: zstd is decoded by decodeResponse', async () => {
      const res = await env.EXAMPLE.fetch('http://example/data.json')
      if (res.headers.get('content-encoding') !== null) throw new Error('content-encoding still set')
      if (!same(new Uint8Array(await res.arrayBuffer()), json)) throw new Error('JSON differs')
    })
    await check('a corrupt upstream body errors the response body', async () => {
      const res = await env.EXAMPLE.fetch('http://example/corrupt.arrow.zst')
      let failed = false
      try {
        await res.arrayBuffer()
      } catch {
        failed = true
      }
      if (!failed) throw new Error('the corrupt body decoded without an error')
    })
    await check('a zstd bomb stops at MAX_OUTPUT_BYTES instead of filling memory', async () => {
      const res = await env.EXAMPLE.fetch('http://example/bomb.json.zst')
      const reader = res.body!.getReader()
      let received = 0
      let failed = false
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          received += value.length
        }
      } catch {
        failed = true
      }
      if (!failed) throw new Error(`decoded all ${received} bytes`)
      if (received > 1 << 20) throw new Error(`received ${received} bytes past the 1 MiB limit`)
    })
    await check('answers are compressed as the client accepts: gzip decodes to the same Arrow stream', async () => {
      const res = await env.EXAMPLE.fetch('http://example/table.arrow.zst', { headers: { 'Accept-Encoding': 'gzip' } })
      if (res.headers.get('content-encoding') !== 'gzip') throw new Error(`content-encoding ${res.headers.get('content-encoding')}`)
      if (!/accept-encoding/i.test(res.headers.get('vary') ?? '')) throw new Error(`vary ${res.headers.get('vary')}`)
      const decoded = new Uint8Array(await new Response(res.body!.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer())
      if (!same(decoded, arrow)) throw new Error(`decoded ${decoded.length} bytes differ from the ${arrow.length}-byte IPC stream`)
    })
    await check('a browser-like Accept-Encoding gets zstd', async () => {
      const res = await env.EXAMPLE.fetch('http://example/data.json', { headers: { 'Accept-Encoding': 'gzip, deflate, br, zstd' } })
      if (res.headers.get('content-encoding') !== 'zstd') throw new Error(`content-encoding ${res.headers.get('content-encoding')}`)
      const body = new Uint8Array(await res.arrayBuffer())
      if (body[0] !== 0x28 || body[1] !== 0xb5 || body[2] !== 0x2f || body[3] !== 0xfd) throw new Error('not a zstd frame')
    })
    await check('an upstream 404 becomes a 502', async () => {
      const res = await env.EXAMPLE.fetch('http://example/missing.arrow.zst')
      if (res.status !== 502) throw new Error(`status ${res.status}`)
    })
    console.log(`RESULT ${JSON.stringify(counts)}`)
    if (counts.failed > 0) throw new Error(`${counts.failed} check(s) failed`)
  },
}
