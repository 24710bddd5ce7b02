// gzip read as gzip reads it: a .gz file padded with zero bytes after its last member
// (tape and block-device archives pad to their block size) decodes through decode(),
// decodeStream() and decompress() as `gzip -dc`, pigz and node:zlib decode it, padding
// split across chunks included; DecompressionStream stays strict (the Compression
// Streams standard: bytes after the member are an error). Bytes after a member that
// start no member and are not all zero are TRAILING_DATA at the member's end.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import zlib from 'node:zlib'
import { CodecError } from '../lib/errors.js'
import { decodeWhole as decode } from '../lib/whole-buffer.js'
import { decodeStream, decompress, DecompressionStream } from '../streams/index.js'
import { enginesOf } from '../lib/formats.js'
import { cliMissing, runCli } from './_cli.js'
import { rejection } from './_caught.js'
import { read } from './_streams.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { join } from 'node:path'

const data = filesCorpus(join(root, 'lib'), 20_000, /\.ts$/)
const member = new Uint8Array(zlib.gzipSync(data))
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0
const zeros = (n: number) => new Uint8Array(n)

/** A stream of `bytes` in the given chunk lengths (the last chunk takes the rest). */
function inChunks(bytes: Uint8Array, lengths: number[]): ReadableStream<BufferSource> {
  const parts: Uint8Array[] = []
  let at = 0
  for (const n of lengths) {
    parts.push(bytes.slice(at, at + n))
    at += n
  }
  parts.push(bytes.slice(at))
  return new ReadableStream<BufferSource>({
    start(c) {
      for (const p of parts) c.enqueue(p as Uint8Array<ArrayBuffer>)
      c.close()
    },
  })
}

/** Chunkings of a padded file: whole, member then padding, padding split (1 byte, across chunks). */
const chunkings = (padded: Uint8Array): number[][] => [
  [],
  [member.length],
  [member.length + 1],
  [member.length - 3, 5, 7],
  Array.from({ length: Math.ceil(padded.length / 97) }, () => 97),
]

const PADDINGS = [1, 511, 10 * 1024]
const gzipMissing = cliMissing('gzip')

for (const pad of PADDINGS) {
  const padded = concat(member, zeros(pad))

  test(`${pad} zero bytes of padding: gzip -dc and node:zlib decode the original (the oracles)`, () => {
    assert.ok(same(new Uint8Array(zlib.gunzipSync(padded)), data), 'node:zlib')
    if (gzipMissing) {
      console.log(`# skipped: gzip -dc on ${pad} bytes of padding: ${gzipMissing}`)
      return
    }
    assert.ok(same(runCli('gzip', ['-dc'], padded), data), 'gzip -dc')
  })

  for (const engine of enginesOf('gzip')) {
    test(`${pad} zero bytes of padding, engine ${engine}: decode(), decodeStream() and decompress() give the original`, async () => {
      assert.ok(same(await decode('gzip', padded, { engine }), data), 'decode()')
      for (const lengths of chunkings(padded)) {
        const how = `chunks ${lengths.slice(0, 4).join(', ')}${lengths.length > 4 ? ', ...' : ''}`
        assert.ok(same(await read(inChunks(padded, lengths).pipeThrough(decodeStream('gzip', { engine }))), data), `decodeStream, ${how}`)
        assert.ok(same(await read(inChunks(padded, lengths).pipeThrough(decompress({ engine }))), data), `decompress(), ${how}`)
      }
    })
  }

  test(`${pad} zero bytes of padding: DecompressionStream('gzip') stays strict (TRAILING_DATA)`, async () => {
    for (const lengths of chunkings(padded)) {
      const error = (await rejection(read(inChunks(padded, lengths).pipeThrough(new DecompressionStream('gzip'))))) as TypeError & { code?: string }
      assert.instance(error, TypeError)
      assert.is(error.code, 'TRAILING_DATA')
    }
  })
}

test('two members, then padding: both members decoded, as gzip -dc does', async () => {
  const second = new Uint8Array(zlib.gzipSync(data.subarray(0, 777)))
  const file = concat(member, second, zeros(4096))
  const expected = concat(data, data.subarray(0, 777))
  assert.ok(same(new Uint8Array(zlib.gunzipSync(file)), expected), 'node:zlib')
  if (!gzipMissing) assert.ok(same(runCli('gzip', ['-dc'], file), expected), 'gzip -dc')
  else console.log(`# skipped: gzip -dc on two members and padding: ${gzipMissing}`)
  assert.ok(same(await decode('gzip', file), expected))
  assert.ok(same(await read(inChunks(file, [member.length + 1, 3]).pipeThrough(decodeStream('gzip'))), expected))
})

test('a member split after its first magic byte (1f | 8b ...) still starts a member', async () => {
  const file = concat(member, member)
  for (const lengths of [[member.length + 1], [member.length, 1], [member.length + 1, 1]]) {
    assert.ok(same(await read(inChunks(file, lengths).pipeThrough(decodeStream('gzip'))), concat(data, data)), lengths.join(','))
  }
})

test('bytes after a member that start no member: TRAILING_DATA at the end of the member, not INVALID_DATA', async () => {
  const cases: Array<[string, Uint8Array]> = [
    ['text', new TextEncoder().encode('trailing text')],
    ['zeros, then a non-zero byte', concat(zeros(600), new Uint8Array([7]))],
    ['zeros, then a member (gzip stops at the padding)', concat(zeros(3), member)],
    ['1f and a wrong second byte', new Uint8Array([0x1f, 0x00])],
    ['a lone 1f at the end', new Uint8Array([0x1f])],
  ]
  for (const [name, tail] of cases) {
    const file = concat(member, tail)
    const one = await rejection(decode('gzip', file))
    assert.instance(one, CodecError, name)
    assert.is((one as CodecError).code, 'TRAILING_DATA', `${name}: ${(one as Error).message}`)
    assert.is((one as CodecError).offset, member.length, name)
    for (const lengths of [[], [member.length + 1], [member.length + 2, 1]]) {
      const e = await rejection(read(inChunks(file, lengths).pipeThrough(decompress())))
      assert.instance(e, CodecError, name)
      assert.is((e as CodecError).code, 'TRAILING_DATA', `${name}, chunks ${lengths.join(',')}: ${(e as Error).message}`)
      assert.is((e as CodecError).offset, member.length, `${name}, chunks ${lengths.join(',')}`)
    }
  }
})

test('only zero bytes, no member: not a gzip file (INVALID_DATA at byte 0)', async () => {
  const e = await rejection(decode('gzip', zeros(512)))
  assert.instance(e, CodecError)
  assert.is((e as CodecError).code, 'INVALID_DATA')
  assert.is((e as CodecError).offset, 0)
})

test.run()
