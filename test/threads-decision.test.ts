/**
 * One rule for threads (streams/threads-decision.ts): every surface that takes `threads`
 * (the one-shot `encode()`/`decode()`, the stream factories, `CompressionStream` and
 * `DecompressionStream`, the Node adapter, `encodeResponse`) runs `threads: 1` without
 * `blockSize` serially, and loads none of the threads implementation, not even when the
 * package is imported; a call that asks for threads loads it. A fresh process records the
 * modules each scenario loads (test/_threads-decision-child.ts).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { decodesInParallel, encodesInBlocks } from '../streams/threads-decision.js'
import { CodecError } from '../index.js'
import { root } from './_fixtures.js'

/**
 * The threads implementation: the one-shot calls (streams/parallel.ts), the streams'
 * lazily loaded module and shells, the pool, the job runner and lib/parallel/. Not
 * streams/threads.ts (the `threads` option's check with the runtime's worker facts),
 * which `encodeResponse` runs at setup.
 */
const THREADS = /^streams\/(parallel|threads-impl|pool|job-runner|ordered-job-stream|block-encode-stream|parallel-decode-stream|parallel-inflate|parallel-inflate-stream|worker-file)\.ts$|^lib\/parallel\//

const child = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test', '_threads-decision-child.ts')], { cwd: root, encoding: 'utf8', timeout: 120_000 })
const loaded = child.status === 0 ? (JSON.parse(child.stdout.trim().split('\n').pop()!) as Record<string, string[]>) : null

test('the child ran', () => {
  assert.is(child.status, 0, child.stderr)
})

for (const scenario of ['import', 'encode() threads: 1', 'decode() threads: 1', 'decode() gzip threads: 1', 'gzipEncode threads: 1', 'zstdDecode threads: 1', 'gzipDecode threads: 1', 'CompressionStream threads: 1', 'DecompressionStream threads: 1', 'nodeEncode threads: 1', 'nodeDecode threads: 1', 'encodeResponse threads: 1']) {
  test(`${scenario}: no module of the threads implementation loads`, () => {
    const modules = loaded?.[scenario]
    assert.ok(modules, `${scenario} ran`)
    assert.equal(modules.filter((m) => THREADS.test(m)), [])
  })
}

test('a call that asks for threads loads it: the check above can fail', () => {
  assert.ok(loaded!['encode() blockSize']!.includes('streams/parallel.ts'), 'encode() with blockSize loads the one-shot threads calls')
  assert.ok(loaded!['zstdDecode threads: 2']!.includes('streams/threads-impl.ts'), 'zstdDecode({ threads: 2 }) loads the streams\' threads implementation')
})

test('the rule: threads other than 1 (or a blockSize) encodes in blocks; zstd, LZ4 and the deflate family decode in parallel with threads other than 1', () => {
  const verdict = (f: () => boolean): string => {
    try {
      return String(f())
    } catch (e) {
      return (e as CodecError).code
    }
  }
  const cases: Array<[Record<string, unknown>, string, string, string]> = [
    // options, gzip encode, lz4 encode, zstd decode
    [{}, 'false', 'false', 'false'],
    [{ threads: 1 }, 'false', 'false', 'false'],
    [{ threads: 2 }, 'true', 'true', 'true'],
    [{ threads: 'auto' }, 'true', 'true', 'true'],
    [{ blockSize: 65536 }, 'true', 'false', 'false'],
    [{ threads: 1, blockSize: 65536 }, 'true', 'false', 'false'],
    [{ threads: 2, concatenated: false }, 'true', 'true', 'false'],
    [{ threads: 0 }, 'INVALID_OPTION', 'INVALID_OPTION', 'INVALID_OPTION'],
    [{ threads: 'x' }, 'INVALID_OPTION', 'INVALID_OPTION', 'INVALID_OPTION'],
  ]
  for (const [options, gzip, lz4, zstd] of cases) {
    const label = JSON.stringify(options)
    assert.is(verdict(() => encodesInBlocks('gzip', options)), gzip, `gzip encode ${label}`)
    assert.is(verdict(() => encodesInBlocks('lz4', options)), lz4, `lz4 encode ${label}`)
    assert.is(verdict(() => decodesInParallel('zstd', options)), zstd, `zstd decode ${label}`)
  }
  // Nothing to split: a brotli decoder never decodes in parallel, but refuses a bad value.
  assert.is(decodesInParallel('brotli', { threads: 4 }), false)
  assert.throws(() => decodesInParallel('brotli', { threads: -1 }), (e: CodecError) => e instanceof CodecError && e.code === 'INVALID_OPTION')
  // The deflate family splits one stream with sluice's kernels (issue 31): the default
  // engine, no dictionary; asking for the index runs there whatever threads.
  const index = { format: 'gzip', compressedSize: 0, uncompressedSize: 0, points: [] }
  const deflate: Array<[Record<string, unknown>, string]> = [
    [{}, 'false'],
    [{ threads: 1 }, 'false'],
    [{ threads: 2 }, 'true'],
    [{ threads: 2, concatenated: false }, 'true'],
    [{ threads: 2, engine: 'wasm' }, 'true'],
    [{ threads: 2, engine: 'js' }, 'false'],
    [{ threads: 2, dictionary: new Uint8Array(8) }, 'false'],
    [{ index: true }, 'true'],
    [{ threads: 1, index }, 'true'],
    [{ onIndex: () => {} }, 'true'],
    [{ index: true, engine: 'node' }, 'INVALID_OPTION'],
    [{ onIndex: () => {}, dictionary: new Uint8Array(8) }, 'INVALID_OPTION'],
    [{ onIndex: 'yes' }, 'INVALID_OPTION'],
    [{ threads: -1 }, 'INVALID_OPTION'],
  ]
  for (const format of ['gzip', 'deflate', 'deflate-raw'] as const) {
    for (const [options, want] of deflate) assert.is(verdict(() => decodesInParallel(format, options)), want, `${format} decode ${JSON.stringify(options)}`)
  }
})

test.run()
