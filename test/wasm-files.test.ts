/**
 * build/wasm-files.ts: how the package's builds load an engine's one `.wasm` file, and
 * what a user sees when it cannot be loaded: a CodecError `ENGINE_UNAVAILABLE` that
 * names the file, the URL tried and the fix.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fetchWasm } from '../build/wasm-fetch.js'
import { readWasm } from '../build/wasm-read.js'
import { CodecError } from '../lib/errors.js'
import { root } from './_fixtures.js'

const lz4 = join(root, 'lib', 'codecs', 'wasm', 'gen', 'lz4.wasm')

async function rejection(promise: Promise<unknown>): Promise<CodecError> {
  try {
    await promise
  } catch (error) {
    assert.instance(error, CodecError)
    return error as CodecError
  }
  throw new Error('expected a rejection')
}

test('readWasm reads a file: URL from disk', async () => {
  const bytes = await readWasm('lz4', 'lz4.wasm', pathToFileURL(lz4))
  assert.ok(bytes instanceof Uint8Array)
  assert.equal(new Uint8Array(bytes as Uint8Array), new Uint8Array(readFileSync(lz4)))
})

test('readWasm: a missing file names the file, the URL and the fix', async () => {
  const url = pathToFileURL(join(root, '.tmp', 'no-such-dir', 'zstd-dec.wasm'))
  const e = await rejection(readWasm('zstd', 'zstd-dec.wasm', url))
  assert.is(e.code, 'ENGINE_UNAVAILABLE')
  assert.is(e.format, 'zstd')
  assert.ok(e.message.includes('zstd-dec.wasm') && e.message.includes(url.href), e.message)
  assert.match(e.message, /keep sluice external/)
})

test('fetchWasm: without import.meta.url (an IIFE bundle) the error says to build ESM', async () => {
  const e = await rejection(
    fetchWasm('brotli', 'brotli-enc.wasm', () => {
      throw new TypeError('Invalid URL')
    }),
  )
  assert.is(e.code, 'ENGINE_UNAVAILABLE')
  assert.match(e.message, /brotli-enc\.wasm.*import\.meta\.url is not available.*build ESM/)
  assert.match(e.message, /copy node_modules\/sluice\/dist\/esm\/wasm\/\*\.wasm beside the bundle/)
})

test('fetchWasm: an HTTP 404 names the URL, the status and where the file ships; a 200 is handed over', async () => {
  const body = readFileSync(lz4)
  const server = createServer((req, res) => {
    if (req.url === '/assets/lz4.wasm') res.writeHead(200, { 'content-type': 'application/wasm' }).end(body)
    else res.writeHead(404).end('not found')
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/assets/`
  try {
    const e = await rejection(fetchWasm('zstd', 'zstd-dec.wasm', () => new URL('./zstd-dec.wasm', base)))
    assert.is(e.code, 'ENGINE_UNAVAILABLE')
    assert.ok(e.message.includes(`${base}zstd-dec.wasm: HTTP 404`), e.message)
    assert.ok(e.message.includes('node_modules/sluice/dist/esm/wasm/zstd-dec.wasm'), e.message)
    const ok = await fetchWasm('lz4', 'lz4.wasm', () => new URL('./lz4.wasm', base))
    assert.equal(new Uint8Array(await ok.arrayBuffer()), new Uint8Array(body))
  } finally {
    server.close()
  }
})

test.run()
