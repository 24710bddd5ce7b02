/**
 * Which WebAssembly modules each role loads: zstd and brotli ship a decoder module and an
 * encoder module (scripts/build-engines.mjs), and the deflate family decodes with sluice's
 * inflate kernel and encodes with zlib-ng, so that a user who only decodes downloads
 * and compiles no encoder, and the other way round; LZ4 compresses at levels 1 and 2 with
 * its kernel alone and loads the HC kernel for levels 3 to 12 (the TypeScript engine
 * loads no wasm). Each scenario runs in a fresh process
 * (test/_engine-modules-child.ts) that records every module compiled or instantiated.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import { root } from './_fixtures.js'

const child = join(root, 'test', '_engine-modules-child.ts')
const data = new TextEncoder().encode('sluice decodes and encodes streams; '.repeat(3000))
/** The child's dictionary (same bytes). */
const dictionary = new TextEncoder().encode('a dictionary the test and this child share: '.repeat(40))

function modulesOf(scenario: string, input: Uint8Array): { modules: string[]; bytes: number } {
  const p = spawnSync(process.execPath, ['--import', 'tsx', child, scenario], { cwd: root, input, encoding: 'utf8', timeout: 120_000 })
  assert.is(p.status, 0, `${scenario}: exit ${p.status}\n${p.stderr}`)
  return JSON.parse(p.stdout.trim().split('\n').pop()!) as { modules: string[]; bytes: number }
}

const zstdFrame = await encode('zstd', data)
const dczFrame = await encode('dcz', data, { dictionary })
const brotliStream = await encode('brotli', data)
const gzipMember = await encode('gzip', data)
// The inputs are what they claim (the children only count bytes).
assert.equal(await decode('dcz', dczFrame, { dictionary }), data)

const cases: Array<[string, Uint8Array, string[], number]> = [
  ['zstd-stream-decode', zstdFrame, ['zstd-dec.wasm'], data.length],
  ['zstd-one-shot-decode', zstdFrame, ['zstd-dec.wasm'], data.length],
  ['zstd-decode-response', zstdFrame, ['zstd-dec.wasm'], data.length],
  ['dcz-decode', dczFrame, ['zstd-dec.wasm'], data.length],
  ['zstd-stream-encode', data, ['zstd-enc.wasm'], -1],
  ['dcz-encode', data, ['zstd-enc.wasm'], -1],
  ['brotli-decode', brotliStream, ['brotli-dec.wasm'], data.length],
  ['brotli-encode', data, ['brotli-enc.wasm'], -1],
  ['gzip-stream-encode', data, ['zlibng-deflate.wasm'], -1],
  ['gzip-one-shot-encode', data, ['zlibng-deflate.wasm'], -1],
  ['gzip-stream-decode', gzipMember, ['inflate.wasm'], data.length],
  ['lz4-stream-encode', data, ['lz4.wasm'], -1],
  ['lz4-hc-one-shot-encode', data, ['lz4.wasm', 'lz4hc.wasm'], -1],
  ['lz4-hc-stream-encode', data, ['lz4.wasm', 'lz4hc.wasm'], -1],
  ['lz4-js-hc-encode', data, [], -1],
]

for (const [scenario, input, expected, bytes] of cases) {
  test(`${scenario}: ${expected.length > 0 ? `loads ${expected.join(', ')} and no other module` : 'loads no wasm module'}`, () => {
    const r = modulesOf(scenario, input)
    assert.equal(r.modules, expected)
    if (bytes >= 0) assert.is(r.bytes, bytes)
    else assert.ok(r.bytes > 0 && r.bytes < input.length, `${scenario}: ${r.bytes} bytes from ${input.length}`)
  })
}

test.run()
