// The zstd encoder's one-pass path (ZstdEncoder.wholeInput): a first call that is the
// final one, with room for the worst case, compresses the whole input at once. Its frames
// are checked by the zstd CLI and our decoder, with the options that shape a frame
// (level, checksum, dictionary, contentSize); the staged path (a destination below the
// bound, or input in pieces) gives frames that decode to the same bytes.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { loadZstd } from '../lib/codecs/zstd.js'
import { loadZstdEncoderEngine } from '../lib/codecs/wasm/zstd-engine.js'
import { parseFrameHeader } from '../lib/codecs/zstd-frame-format.js'
import { decodeWhole as decode } from '../lib/whole-buffer.js'
import { Status } from '../lib/status.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { join } from 'node:path'
import { requireCli, runCli } from './_cli.js'

const zstd = await loadZstd()
const { exports: x } = await loadZstdEncoderEngine()
const data = filesCorpus(join(root, 'node_modules/typescript/lib'), 3_000_000, /\.d\.ts$/)
const dictionary = data.subarray(0, 100_000)
const cli = requireCli('zstd', 'zstd CLI checks of one-pass frames')

test('one call with room for the worst case: Done, all consumed, a frame the CLI and our decoder read', async () => {
  for (const options of [{}, { level: 1 }, { level: 9, checksum: false }, { contentSize: data.length }, { dictionary }]) {
    const enc = zstd.createEncoder(options)
    const dst = new Uint8Array(x.ZSTD_compressBound(data.length))
    assert.is(enc.transform(data, dst, true), Status.Done, enc.failure?.message)
    assert.is(enc.consumed, data.length)
    const frame = dst.slice(0, enc.written)
    assert.is(parseFrameHeader(frame, 4).contentSize, data.length, 'the content size is in the header')
    assert.equal(await decode('zstd', frame, 'dictionary' in options ? { dictionary } : {}), data, JSON.stringify(Object.keys(options)))
    if (cli && !('dictionary' in options)) assert.equal(runCli('zstd', ['-q', '-d', '-c'], frame), data)
    // Then the encoder is finished: input after the end fails, reset() starts over.
    assert.is(enc.transform(new Uint8Array(1), dst, true), Status.InvalidData)
    enc.reset()
    assert.is(enc.transform(data, dst, true), Status.Done)
    assert.equal(await decode('zstd', dst.slice(0, enc.written), 'dictionary' in options ? { dictionary } : {}), data)
    enc.dispose()
  }
})

test('a destination below the bound takes the staged path: the same content', async () => {
  const enc = zstd.createEncoder({})
  const dst = new Uint8Array(64 * 1024)
  const parts: Uint8Array[] = []
  let src = data
  for (;;) {
    const s = enc.transform(src, dst, true)
    parts.push(dst.slice(0, enc.written))
    src = src.subarray(enc.consumed)
    if (s === Status.Done) break
    assert.is(s, Status.DestinationTooSmall)
  }
  const frame = new Uint8Array(Buffer.concat(parts))
  assert.equal(await decode('zstd', frame), data)
})

test('a wrong contentSize still fails before any output', () => {
  const enc = zstd.createEncoder({ contentSize: data.length - 1 })
  const dst = new Uint8Array(x.ZSTD_compressBound(data.length))
  assert.is(enc.transform(data, dst, true), Status.InvalidData)
  assert.is(enc.failure?.code, 'INVALID_OPTION')
  assert.is(enc.written, 0)
})

test.run()
