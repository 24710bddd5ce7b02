// RFC 9842's dictionary transports, 'dcz' (zstd) and 'dcb' (brotli), on every surface:
// the header bytes exactly (magic and the dictionary's SHA-256, node:crypto as the
// oracle), round trips, the dictionary required, a wrong dictionary refused before any
// output, truncated headers, the dcz window limit (section 2.2), and the `zstd` CLI
// both ways on the body (`zstd -D dict` with the header stripped / prepended).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { CodecError } from '../lib/errors.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { Status } from '../lib/status.js'
import { parseFrameHeader } from '../lib/codecs/zstd-frame-format.js'
import { dczWindowLimit } from '../lib/codecs/dictionary-transport.js'
import { nodeDecode, nodeEncode } from '../adapters/node/index.js'
import { decodeWhole as oneShotDecode, encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { CompressionStream, DecompressionStream, dcbDecode, dcbEncode, dczDecode, dczEncode } from '../streams/index.js'
import { packageDocuments } from '../bench/corpus.js'
import { chunked, nodeRun, read } from './_streams.js'
import { concatBytes } from './_bytes.js'
import { decodeSpans, encodeSpans, step } from './_span.js'
import { rejection, thrown } from './_caught.js'
import { requireCli } from './_cli.js'

const hasZstd = requireCli('zstd', 'dcz bodies against the zstd CLI')
const cliTest = hasZstd ? test : test.skip

const docs = packageDocuments(200)
const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
const inputs = docs.filter((_, k) => k % 10 !== 0).map((d) => d.bytes)
const some = inputs.filter((_, k) => k % 17 === 0)
const other = concatBytes(inputs.slice(0, 6))
const sha = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest())
const MAGIC = { dcz: [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00], dcb: [0xff, 0x44, 0x43, 0x42] } as const
const formats = ['dcz', 'dcb'] as const
const headerLength = (f: 'dcz' | 'dcb'): number => MAGIC[f].length + 32

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0
const scratch = mkdtempSync(join(tmpdir(), 'sluice-dcz-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))
const dictFile = join(scratch, 'dict')
writeFileSync(dictFile, dictionary)
const zstdCli = (args: string[], input: Uint8Array) => {
  const r = spawnSync('zstd', ['-q', '-c', ...args], { input, maxBuffer: 1 << 30 })
  return { status: r.status, out: new Uint8Array(r.stdout), err: r.stderr.toString() }
}

test('the header is the magic, then the SHA-256 of the dictionary', async () => {
  for (const f of formats) {
    const encoded = await oneShotEncode(f, some[0]!, { dictionary })
    const n = MAGIC[f].length
    assert.equal([...encoded.subarray(0, n)], [...MAGIC[f]], `${f} magic`)
    assert.ok(same(encoded.subarray(n, n + 32), sha(dictionary)), `${f} hash`)
    if (f === 'dcz') assert.equal([...encoded.subarray(40, 44)], [0x28, 0xb5, 0x2f, 0xfd], 'then a zstd frame')
  }
})

test('round trips: encode/decode, factories, CompressionStream, Node adapter, span splits', async () => {
  for (const f of formats) {
    const [enc, dec] = f === 'dcz' ? [dczEncode, dczDecode] : [dcbEncode, dcbDecode]
    for (const bytes of some) {
      const outputs: Array<[string, Uint8Array]> = [
        ['encode()', await oneShotEncode(f, bytes, { dictionary })],
        ['factory', await read(chunked(bytes, 333).pipeThrough(enc({ dictionary, chunkSize: 64 })))],
        ['CompressionStream', await read(chunked(bytes, 1000).pipeThrough(new CompressionStream(f, { dictionary })))],
        ['nodeEncode', await nodeRun(nodeEncode(f, { dictionary }), bytes)],
      ]
      const span = await createEncoder(f, { dictionary })
      outputs.push(['span, 7-byte rooms', encodeSpans(span, bytes, { split: 100, room: 7 })])
      span.dispose()
      for (const [what, encoded] of outputs) {
        assert.ok(same(encoded.subarray(MAGIC[f].length, headerLength(f)), sha(dictionary)), `${f} ${what}: header`)
        assert.ok(same(await oneShotDecode(f, encoded, { dictionary }), bytes), `${f} ${what} -> decode()`)
        assert.ok(same(await read(chunked(encoded, 5).pipeThrough(dec({ dictionary }))), bytes), `${f} ${what} -> factory`)
        assert.ok(same(await read(chunked(encoded, 50).pipeThrough(new DecompressionStream(f, { dictionary }))), bytes), `${f} ${what} -> DecompressionStream`)
        assert.ok(same(await nodeRun(nodeDecode(f, { dictionary }), encoded), bytes), `${f} ${what} -> nodeDecode`)
      }
      const decoder = await createDecoder(f, { dictionary })
      for (const split of [1, 3, 41]) {
        decoder.reset()
        const got = decodeSpans(decoder, outputs[0]![1], { split, room: 100 })
        assert.is(got.status, Status.Done, `${f} split ${split}`)
        assert.ok(same(got.out, bytes), `${f} split ${split}`)
      }
      decoder.dispose()
    }
    // Smaller than the inner format without the dictionary, header included.
    const bytes = some[1]!
    const plain = await oneShotEncode(f === 'dcz' ? 'zstd' : 'brotli', bytes)
    assert.ok((await oneShotEncode(f, bytes, { dictionary })).length < plain.length, `${f} is smaller`)
  }
})

test('the dictionary is required: INVALID_OPTION on every surface', async () => {
  for (const f of formats) {
    const [enc, dec] = f === 'dcz' ? [dczEncode, dczDecode] : [dcbEncode, dcbDecode]
    for (const e of [thrown(() => enc({})), thrown(() => dec({})), thrown(() => nodeDecode(f)), await rejection(oneShotEncode(f, new Uint8Array(1))), await rejection(createDecoder(f))]) {
      assert.instance(e, CodecError)
      assert.is((e as CodecError).code, 'INVALID_OPTION')
      assert.match((e as CodecError).message, /dictionary option is required.*RFC 9842/)
    }
    const t = thrown(() => new DecompressionStream(f))
    assert.instance(t, TypeError)
    assert.is((t as { code?: string }).code, 'INVALID_OPTION')
    assert.is(((await rejection(oneShotEncode(f, new Uint8Array(1), { dictionary, engine: 'node' }))) as CodecError).code, 'INVALID_OPTION', 'wasm only')
  }
})

test('a wrong dictionary is CHECKSUM_MISMATCH at the first differing hash byte, before any output', async () => {
  for (const f of formats) {
    const encoded = await oneShotEncode(f, some[0]!, { dictionary })
    const want = sha(dictionary)
    const got = sha(other)
    let first = 0
    while (want[first] === got[first]) first++
    const decoder = await createDecoder(f, { dictionary: other })
    const r = decodeSpans(decoder, encoded)
    assert.is(r.status, Status.InvalidData)
    assert.is(r.out.length, 0)
    assert.is(r.failure!.code, 'CHECKSUM_MISMATCH')
    assert.is(r.failure!.offset, MAGIC[f].length + first)
    decoder.dispose()
    // Through a stream: no chunk is read before the error.
    const reader = chunked(encoded, 1000).pipeThrough(new DecompressionStream(f, { dictionary: other })).getReader()
    const e = await rejection(reader.read())
    assert.instance(e, TypeError)
    assert.is((e as { code?: string }).code, 'CHECKSUM_MISMATCH')
    // A wrong magic is INVALID_DATA at its byte.
    const bad = encoded.slice()
    bad[2]! ^= 1
    const e2 = (await rejection(oneShotDecode(f, bad, { dictionary }))) as CodecError
    assert.is(e2.code, 'INVALID_DATA')
    assert.is(e2.offset, 2)
  }
})

test('a truncated header needs more data, consumed as it arrives, then TRUNCATED', async () => {
  for (const f of formats) {
    const encoded = await oneShotEncode(f, some[0]!, { dictionary })
    const decoder = await createDecoder(f, { dictionary })
    const dst = new Uint8Array(100)
    for (let n = 0; n < headerLength(f); n++) {
      assert.is(step(decoder, encoded.subarray(n, n + 1), dst, false), Status.NeedMoreData, `${f} byte ${n}`)
      assert.is(decoder.consumed, 1)
      assert.is(decoder.written, 0)
    }
    decoder.dispose()
    for (const n of [0, 1, 20, headerLength(f) - 1, headerLength(f)]) {
      const e = (await rejection(oneShotDecode(f, encoded.subarray(0, n), { dictionary }))) as CodecError
      assert.is(e.code, 'TRUNCATED', `${f}: ${n} bytes`)
    }
  }
})

test('dcz: a frame window above max(8 MiB, 1.25 x dictionary) is LIMIT_EXCEEDED at its header', async () => {
  assert.is(dczWindowLimit(1000), 2 ** 23)
  assert.is(dczWindowLimit(10 << 20), Math.floor((10 << 20) * 1.25))
  assert.is(dczWindowLimit(200 << 20), 2 ** 27)
  // Frame header: no single segment, no checksum, no dictionary ID, no content size;
  // Window_Descriptor = exponent << 3 | mantissa (RFC 8878 section 3.1.1.1.2).
  const frame = (descriptor: number) => Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x00, descriptor)
  const window = (d: number) => parseFrameHeader(frame(d), 4).windowSize
  const with_ = async (dict: Uint8Array, d: number) => {
    const decoder = await createDecoder('dcz', { dictionary: dict })
    const header = concatBytes([Uint8Array.from(MAGIC.dcz), sha(dict), frame(d)])
    const status = step(decoder, header, new Uint8Array(64), false)
    const failure = decoder.failure
    decoder.dispose()
    return { status, failure }
  }
  // 8 MiB accepted, 9 MiB refused for a small dictionary.
  assert.is(window(13 << 3), 2 ** 23)
  assert.is((await with_(dictionary, 13 << 3)).status, Status.NeedMoreData)
  assert.is(window((13 << 3) | 1), 9 << 20)
  const refused = await with_(dictionary, (13 << 3) | 1)
  assert.is(refused.status, Status.InvalidData)
  assert.is(refused.failure!.code, 'LIMIT_EXCEEDED')
  assert.is(refused.failure!.offset, 40 + 5)
  // A 10 MiB dictionary allows 12.5 MiB: 12 MiB passes, 13 MiB does not.
  const big = new Uint8Array(10 << 20).map((_, i) => (i * 2654435761) >>> 24)
  assert.is(window((13 << 3) | 4), 12 << 20)
  assert.is((await with_(big, (13 << 3) | 4)).status, Status.NeedMoreData)
  assert.is((await with_(big, (13 << 3) | 5)).failure!.code, 'LIMIT_EXCEEDED')
  // Our encoder's window stays inside the limit.
  const encoded = await oneShotEncode('dcz', concatBytes(inputs), { dictionary, level: 19 })
  assert.ok(parseFrameHeader(encoded, 44).windowSize <= 2 ** 23)
})

test('dcz: a dictionary that starts with the trained-dictionary magic is still raw content', async () => {
  const magicLike = concatBytes([Uint8Array.of(0x37, 0xa4, 0x30, 0xec, 1, 2, 3, 4), dictionary])
  const bytes = some[0]!
  const encoded = await oneShotEncode('dcz', bytes, { dictionary: magicLike })
  assert.is(parseFrameHeader(encoded, 44).dictionaryId, 0)
  assert.ok(same(await oneShotDecode('dcz', encoded, { dictionary: magicLike }), bytes))
})

cliTest('dcz against the zstd CLI: our body with -D after the header, the CLI body behind a header', async () => {
  for (const bytes of some) {
    const ours = await oneShotEncode('dcz', bytes, { dictionary })
    const back = zstdCli(['-d', '-D', dictFile], ours.subarray(40))
    assert.is(back.status, 0, back.err)
    assert.ok(same(back.out, bytes), 'zstd -d -D dict')
    const body = zstdCli(['-D', dictFile, '-19'], bytes).out
    const theirs = concatBytes([Uint8Array.from(MAGIC.dcz), sha(dictionary), body])
    assert.ok(same(await oneShotDecode('dcz', theirs, { dictionary }), bytes), 'CLI body, our decoder')
    assert.ok(same(await read(chunked(theirs, 9).pipeThrough(new DecompressionStream('dcz', { dictionary }))), bytes))
  }
})

test.run()
