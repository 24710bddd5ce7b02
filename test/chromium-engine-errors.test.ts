// A wasm engine that cannot be fetched, in headless Chromium: which reading idioms hand
// the page our CodecError (ENGINE_UNAVAILABLE, with the file's URL and the fix) and
// which turn it into the browser's TypeError. The page imports the package bundled for
// browsers (esbuild.config.mjs esmTarget('browser'), built here into a scratch directory,
// the .wasm files beside its chunks) from a loopback server that
// answers 404 for zstd's .wasm files; the brotli engine is served, as a control.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, normalize } from 'node:path'
import { build } from 'esbuild'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
// @ts-ignore: plain ESM build script without types
import { esmTarget } from '../esbuild.config.mjs'
import { chromiumEvaluate, HAS_CHROMIUM, listen } from './_http.js'

if (!HAS_CHROMIUM) console.log('# skipped: engine errors in Chromium: /usr/bin/chromium is not installed (apt-get install -y chromium)')

interface Outcome {
  idiom: string
  name: string
  code: string | null
  message: string
}

;(HAS_CHROMIUM ? test : test.skip)('a failed wasm fetch: reader, pipeTo and one-shot calls reject with the CodecError; Response.text() with a TypeError', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-engine-errors-'))
  try {
    await build({ ...(esmTarget as (kind: string, outdir: string) => object)('browser', join(dir, 'browser')), logLevel: 'error' })
    const server = await listen((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      if (path === '/') {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end('<!doctype html><title>engine errors</title>')
        return
      }
      if (/zstd[^/]*\.wasm$/.test(path)) {
        res.writeHead(404)
        res.end()
        return
      }
      const file = normalize(join(dir, path))
      try {
        const body = readFileSync(file)
        res.writeHead(200, { 'content-type': file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript' })
        res.end(body)
      } catch {
        res.writeHead(404)
        res.end()
      }
    })
    try {
      const outcomes = await chromiumEvaluate<Outcome[]>(
        server.url,
        '/',
        `(async () => {
          const m = await import('/browser/index.js')
          const zst = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x01, 0x09, 0x00, 0x00, 0x61])
          const input = () => new Blob([zst]).stream()
          const out = []
          const record = async (idiom, fn) => {
            try { await fn(); out.push({ idiom, name: 'none', code: null, message: '' }) }
            catch (e) { out.push({ idiom, name: e?.name ?? typeof e, code: e?.code ?? null, message: String(e?.message ?? e) }) }
          }
          await record('reader', async () => { const r = input().pipeThrough(m.zstdDecode()).getReader(); for (;;) { if ((await r.read()).done) break } })
          await record('pipeTo', () => input().pipeThrough(m.zstdDecode()).pipeTo(new WritableStream()))
          await record('one-shot decode', () => m.decode('zstd', zst))
          await record('Response.text', () => new Response(input().pipeThrough(m.zstdDecode())).text())
          await record('brotli control', async () => { const b = await m.encode('brotli', new TextEncoder().encode('hello')); if (new TextDecoder().decode(await m.decode('brotli', b)) !== 'hello') throw new Error('brotli round trip') })
          return out
        })()`,
      )
      const by = Object.fromEntries(outcomes.map((o) => [o.idiom, o]))
      for (const idiom of ['reader', 'pipeTo', 'one-shot decode']) {
        assert.is(by[idiom]!.name, 'CodecError', `${idiom}: ${JSON.stringify(by[idiom])}`)
        assert.is(by[idiom]!.code, 'ENGINE_UNAVAILABLE', idiom)
        assert.match(by[idiom]!.message, /zstd[^ ]*\.wasm/)
        assert.match(by[idiom]!.message, /HTTP 404/)
      }
      // The browser's Response body readers replace a stream's error with their own.
      assert.is(by['Response.text']!.name, 'TypeError', JSON.stringify(by['Response.text']))
      assert.is(by['brotli control']!.name, 'none', JSON.stringify(by['brotli control']))
    } finally {
      await server.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
