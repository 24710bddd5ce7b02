// Long windows: files written by `zstd --long=N` (Debian package zstd) read with
// maxWindowLog up to 31, refused by default (27) before any window is allocated, and a
// 2^31 window refused with LIMIT_EXCEEDED naming what the 32-bit wasm engine lacks; our
// encoder's long (long-distance matching) and windowLog read back by the CLI. Each file
// streams from stdin, so the header keeps the whole window (the CLI fits the window to
// the size of a file it can stat).
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError, decode, encode, zstdFrames } from '../index.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { rejection } from './_caught.js'
import { requireCli, runCli } from './_cli.js'

const cliTest = requireCli('zstd', 'zstd --long files') ? test : test.skip
const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 2_000_000, /\.d\.ts$/)

async function codecError(promise: Promise<unknown>): Promise<CodecError> {
  const e = await rejection(promise)
  if (!(e instanceof CodecError)) throw new Error(`expected a CodecError, got ${String(e)}`, { cause: e })
  return e
}

cliTest('zstd --long=28 decodes with maxWindowLog 28 or more, not by default', async () => {
  const file = runCli('zstd', ['-q', '-c', '--long=28'], text, 'stdin')
  const [frame] = await zstdFrames(file)
  assert.is(frame!.windowSize, 2 ** 28)
  const refused = await codecError(decode('zstd', file))
  assert.is(refused.code, 'LIMIT_EXCEEDED')
  assert.match(refused.message, /268435456 bytes exceeds the limit 2\^27/)
  for (const maxWindowLog of [28, 31]) {
    const out = await decode('zstd', file, { maxWindowLog })
    assert.ok(Buffer.compare(out, text) === 0, `maxWindowLog ${maxWindowLog}`)
  }
})

cliTest('zstd --long=31: a 2^31 window is LIMIT_EXCEEDED naming the need, with maxWindowLog 31', async () => {
  const file = runCli('zstd', ['-q', '-c', '--long=31'], text.subarray(0, 100_000), 'stdin')
  assert.is((await zstdFrames(file))[0]!.windowSize, 2 ** 31)
  const e = await codecError(decode('zstd', file, { maxWindowLog: 31 }))
  assert.is(e.code, 'LIMIT_EXCEEDED')
  assert.match(e.message, /2147483648 bytes \(2\^31\) needs a 64-bit zstd.*engine: 'node'/)
  assert.is(e.offset, 5)
})

cliTest('zstd --long=31 on a file of known size: the window fits the content and decodes', async () => {
  // What `zstd --long=31 big.log` writes for a file under 2 GiB: the window is fitted to
  // the size; here 2 MB, so a 2^21 window, as the 1 GiB case gets 2^30.
  const file = runCli('zstd', ['-q', '-c', '--long=31'], text, 'file')
  const [frame] = await zstdFrames(file)
  assert.ok(frame!.windowSize! <= 2 ** 21)
  assert.ok(Buffer.compare(await decode('zstd', file, { maxWindowLog: 31 }), text) === 0)
})

cliTest('encoder long and windowLog: the CLI reads them back', async () => {
  const repeated = new Uint8Array(6_000_000)
  // The same 2 MB three times: matches 2 MB back, which only a long window reaches.
  for (let i = 0; i < 3; i++) repeated.set(text, i * 2_000_000)
  const plain = await encode('zstd', repeated, { level: 1, windowLog: 20 })
  const long = await encode('zstd', repeated, { level: 1, long: true })
  assert.ok(long.length * 2 < plain.length, `long ${long.length} vs ${plain.length}`)
  assert.ok(Buffer.compare(runCli('zstd', ['-d', '-c', '--long=27'], long), repeated) === 0)
  const w30 = await encode('zstd', text.subarray(0, 10_000), { windowLog: 30, contentSize: 10_000 })
  assert.ok(Buffer.compare(runCli('zstd', ['-d', '-c'], w30), text.subarray(0, 10_000)) === 0)
})

test('window options are checked where they are given', async () => {
  for (const options of [{ windowLog: 31 }, { windowLog: 9 }, { long: 'yes' }] as Record<string, unknown>[]) {
    assert.is((await codecError(encode('zstd', text.subarray(0, 10), options))).code, 'INVALID_OPTION', JSON.stringify(options))
  }
  for (const options of [{ maxWindowLog: 32 }, { maxWindowLog: 9 }]) {
    assert.is((await codecError(decode('zstd', new Uint8Array(0), options))).code, 'INVALID_OPTION', JSON.stringify(options))
  }
})

test.run()
