// Random access through an index (issue 31): openGzipIndexed over every range source the
// zstd seekable reader takes (bytes, Blob, { size, read }, a file, HTTP ranges from a
// loopback server with the requests counted: one per read after the index), stream(),
// the span cache, both engines, gzip / zlib / raw deflate and concatenated members, a
// file that changed (INVALID_DATA, never quietly wrong bytes), damaged data (the
// decoder's code at the file offset), and opening without an index.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError, encodeGzipIndex, gzipIndex, httpRangeSource, openGzipIndexed, type RangeSource } from '../index.js'
import { fileRangeSource } from '../adapters/node/index.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { concatBytes } from './_bytes.js'
import { listen, rangeServer } from './_http.js'
import { rejection } from './_caught.js'

const content = concatBytes([filesCorpus(join(root, 'node_modules/typescript/lib'), 5_000_000, /\.d\.ts$/), randomBytes(400_000), filesCorpus(join(root, 'node_modules'), 3_000_000, /\.js$/)])
const gz = new Uint8Array(zlib.gzipSync(content, { level: 6 }))
const SPACING = 1 << 20
const index = await gzipIndex(gz, { spacing: SPACING })

function same(a: Uint8Array, b: Uint8Array, what: string): void {
  assert.is(a.length, b.length, `${what}: length`)
  assert.ok(Buffer.compare(a, b) === 0, `${what}: bytes`)
}

/** A range source over `bytes` that records every read. */
function counting(bytes: Uint8Array): RangeSource & { reads: [number, number][] } {
  const reads: [number, number][] = []
  return { size: bytes.length, reads, read: async (offset, length) => (reads.push([offset, length]), bytes.slice(offset, offset + length)) }
}

async function codecError(promise: Promise<unknown>): Promise<CodecError> {
  const e = await rejection(promise)
  if (!(e instanceof CodecError)) throw new Error(`expected a CodecError, got ${String(e)}`, { cause: e })
  return e
}

/** Offsets across points, inside spans, at both ends. */
const RANGES: Array<[number, number]> = [
  [0, 1],
  [0, 100_000],
  [index.points[2]!.uncompressedOffset - 10, 20],
  [index.points[3]!.uncompressedOffset, 1 << 20],
  [5_100_000, 500_000], // inside the incompressible part (stored blocks)
  [content.length - 777, 777],
  [content.length, 0],
]

test('every source: bytes, Blob, { size, read }, a file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-gzindexed-'))
  try {
    writeFileSync(join(dir, 'f.gz'), gz)
    const file = await fileRangeSource(join(dir, 'f.gz'))
    for (const [name, source] of [['bytes', gz], ['ArrayBuffer', gz.slice().buffer], ['Blob', new Blob([gz])], ['range source', counting(gz)], ['file', file]] as const) {
      const f = await openGzipIndexed(source, { index })
      assert.is(f.size, content.length)
      assert.is(f.compressedSize, gz.length)
      for (const [offset, length] of RANGES) same(await f.read(offset, length), content.subarray(offset, offset + length), `${name} ${offset}+${length}`)
      f.close()
    }
    await file.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('one range request per read after the index; adjacent spans in one; cached spans read none', async () => {
  const source = counting(gz)
  const f = await openGzipIndexed(source, { index: await encodeGzipIndex(index) })
  assert.is(source.reads.length, 0, 'opening with an index reads nothing')
  const p = index.points
  // A read inside one span: one request, from the point before it.
  const inside = p[2]!.uncompressedOffset + 1000
  same(await f.read(inside, 5000), content.subarray(inside, inside + 5000), 'inside')
  assert.is(source.reads.length, 1)
  assert.is(source.reads[0]![0], Math.floor(p[2]!.compressedBitOffset / 8))
  // Again: from the cache.
  same(await f.read(inside + 100, 4000), content.subarray(inside + 100, inside + 4100), 'cached')
  assert.is(source.reads.length, 1)
  // Across three spans: still one request.
  assert.ok(p.length >= 6, `${p.length} points`)
  const across = p[3]!.uncompressedOffset - 1000
  const length = p[5]!.uncompressedOffset - across + 1000
  same(await f.read(across, length), content.subarray(across, across + length), 'across')
  assert.is(source.reads.length, 2)
  const [offset, size] = source.reads[1]!
  assert.is(offset, Math.floor(p[2]!.compressedBitOffset / 8))
  assert.ok(offset + size <= (p[6] ? Math.ceil(p[6].compressedBitOffset / 8) + 1 : gz.length), 'no more than the spans it needs')
  // With maxGroupBytes smaller than the spans, a read takes several requests but is the same.
  const small = counting(gz)
  const g = await openGzipIndexed(small, { index, maxGroupBytes: 100_000, cacheSpans: 0 })
  same(await g.read(across, length), content.subarray(across, across + length), 'small groups')
  assert.ok(small.reads.every(([, n]) => n <= 100_000), 'each request within maxGroupBytes')
})

test('over HTTP: a HEAD, then one ranged GET per random 1 MiB read', async () => {
  const log: string[] = []
  const server = await listen(rangeServer({ body: gz, etag: '"g1"' }, log))
  try {
    const f = await openGzipIndexed(await httpRangeSource(`${server.url}/data.gz`), { index, cacheSpans: 0 })
    assert.equal(log, ['HEAD'])
    for (const offset of [3_333_333, 123, content.length - (1 << 20), 6_000_001]) {
      const before = log.length
      same(await f.read(offset, 1 << 20), content.subarray(offset, offset + (1 << 20)), `read at ${offset}`)
      assert.is(log.length - before, 1, log.slice(before).join(', '))
      assert.match(log[log.length - 1]!, /^GET bytes=\d+-\d+$/)
    }
  } finally {
    await server.close()
  }
})

test('stream(): the same bytes, in pieces, cancel stops it', async () => {
  const f = await openGzipIndexed(gz, { index })
  const chunks: Uint8Array[] = []
  for await (const chunk of f.stream(1_000_001, 4_000_000) as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk)
  same(concatBytes(chunks), content.subarray(1_000_001, 5_000_001), 'stream')
  const all: Uint8Array[] = []
  for await (const chunk of f.stream() as unknown as AsyncIterable<Uint8Array>) all.push(chunk)
  same(concatBytes(all), content, 'the whole content')
  const reader = f.stream(0).getReader()
  await reader.read()
  await reader.cancel()
  // Pieces of cached spans are copies: changing one changes no later read.
  const first = (await f.stream(0, 10).getReader().read()).value!
  first.fill(0)
  same(await f.read(0, 10), content.subarray(0, 10), 'cache untouched')
})

test('both engines; gzip, zlib, raw deflate; concatenated members and padding', async () => {
  const cases: Array<[string, Uint8Array, 'gzip' | 'deflate' | 'deflate-raw']> = [
    ['zlib', new Uint8Array(zlib.deflateSync(content)), 'deflate'],
    ['raw', new Uint8Array(zlib.deflateRawSync(content, { level: 1 })), 'deflate-raw'],
    ['members', concatBytes([zlib.gzipSync(content.subarray(0, 2_000_000)), zlib.gzipSync(new Uint8Array(0)), zlib.gzipSync(content.subarray(2_000_000)), new Uint8Array(512)]), 'gzip'],
  ]
  for (const engine of ['wasm', 'js'] as const) {
    for (const [name, file, format] of cases) {
      const f = await openGzipIndexed(file, { format, engine, spacing: 700_000 })
      assert.is(f.index.format, format)
      assert.is(f.size, content.length, name)
      for (const [offset, length] of RANGES) same(await f.read(offset, length), content.subarray(offset, offset + length), `${engine} ${name} ${offset}+${length}`)
      f.close()
    }
  }
})

test('a file that changed is INVALID_DATA: another size, or the same size with other bytes', async () => {
  const other = new Uint8Array(zlib.gzipSync(content, { level: 1 }))
  const e1 = await codecError(openGzipIndexed(other, { index }))
  assert.is(e1.code, 'INVALID_DATA')
  // The same size, other content: the points no longer fall on block starts.
  const shifted = concatBytes([content.subarray(0, 100), new TextEncoder().encode('a change'), content.subarray(100)])
  let same_ = new Uint8Array(zlib.gzipSync(shifted, { level: 6 }))
  same_ = same_.length >= gz.length ? same_.subarray(0, gz.length) : concatBytes([same_, new Uint8Array(gz.length - same_.length)])
  const f = await openGzipIndexed(same_, { index, cacheSpans: 0 })
  const e2 = await codecError(f.read(index.points[1]!.uncompressedOffset + 5, index.points[3]!.uncompressedOffset - index.points[1]!.uncompressedOffset))
  assert.is(e2.code, 'INVALID_DATA', e2.message)
  // Over HTTP, a file replaced between reads is refused by its ETag.
  const served = { body: gz, etag: '"v1"' }
  const server = await listen(rangeServer(served, []))
  try {
    const g = await openGzipIndexed(await httpRangeSource(`${server.url}/x.gz`), { index, cacheSpans: 0 })
    await g.read(10, 10)
    served.etag = '"v2"'
    assert.is((await codecError(g.read(3_000_000, 10))).code, 'INVALID_DATA')
  } finally {
    await server.close()
  }
})

test('damaged data: the decoder\'s code at the offset in the file', async () => {
  const damaged = gz.slice()
  const at = Math.floor(index.points[3]!.compressedBitOffset / 8) + 5000
  for (let i = 0; i < 64; i++) damaged[at + i] = 0xff
  const f = await openGzipIndexed(damaged, { index, cacheSpans: 0 })
  same(await f.read(0, 1000), content.subarray(0, 1000), 'a span before the damage reads')
  const e = await codecError(f.read(index.points[3]!.uncompressedOffset + 10, 1 << 20))
  assert.is(e.code, 'INVALID_DATA')
  assert.ok(e.offset >= at && e.offset <= at + 64, `offset ${e.offset}, damage at ${at}`)
  // A damaged trailer is found by a read that reaches the end: the CRC is the member's.
  const trailer = gz.slice()
  trailer[trailer.length - 6] ^= 1
  const g = await openGzipIndexed(trailer, { index: await gzipIndex(gz, { spacing: 1 << 30 }) })
  const e2 = await codecError(g.read(content.length - 10, 10))
  assert.is(e2.code, 'CHECKSUM_MISMATCH')
  assert.is(e2.offset, trailer.length - 8 + 2)
})

test('without an index, opening builds one (its points as gzipIndex makes them)', async () => {
  const source = counting(gz)
  const f = await openGzipIndexed(source, { spacing: SPACING })
  assert.equal(f.index.points.map((p) => p.compressedBitOffset), index.points.map((p) => p.compressedBitOffset))
  assert.ok(source.reads.reduce((n, [, l]) => n + l, 0) === gz.length, 'read once, whole')
  same(await f.read(4_000_000, 10), content.subarray(4_000_000, 4_000_010), 'read')
})

test('gzipIndex() takes bytes, a Blob, a range source, a ReadableStream, a Node stream: the same index', async () => {
  const { Readable } = await import('node:stream')
  const points = (i: { points: readonly { compressedBitOffset: number }[] }) => i.points.map((p) => p.compressedBitOffset)
  const chunks = (size: number) => Array.from({ length: Math.ceil(gz.length / size) }, (_, k) => gz.subarray(k * size, (k + 1) * size))
  for (const [name, input] of [
    ['Blob', new Blob([gz])],
    ['range source', counting(gz)],
    ['ReadableStream', new Blob([gz]).stream()],
    ['Node stream of 1000-byte chunks', Readable.from(chunks(1000))],
    ['async iterable of 1-byte chunks at the start', (async function* () { for (let i = 0; i < 100; i++) yield gz.subarray(i, i + 1); yield gz.subarray(100) })()],
  ] as const) {
    assert.equal(points(await gzipIndex(input as Parameters<typeof gzipIndex>[0], { spacing: SPACING })), points(index), name)
  }
  // The decode's checks apply: a truncated file, bytes after the last member.
  assert.is((await codecError(gzipIndex(gz.subarray(0, gz.length - 3)))).code, 'TRUNCATED')
  assert.is((await codecError(gzipIndex(concatBytes([gz, new Uint8Array([1, 2, 3])])))).code, 'TRAILING_DATA')
  assert.is((await codecError(gzipIndex(gz, { spacing: 0 }))).code, 'INVALID_OPTION')
})

test('reads at once, each with its own decoders; bad ranges and a closed file are INVALID_OPTION', async () => {
  const f = await openGzipIndexed(gz, { index, cacheSpans: 1 })
  const offsets = [0, 0.3, 0.5, 0.9, 0.1, 0.75].map((x) => Math.floor(x * (content.length - 300_000)))
  const got = await Promise.all(offsets.map((o) => f.read(o, 300_000)))
  offsets.forEach((o, i) => same(got[i]!, content.subarray(o, o + 300_000), `concurrent ${o}`))
  assert.is((await codecError(Promise.resolve().then(() => f.read(content.length - 1, 2)))).code, 'INVALID_OPTION')
  assert.is((await codecError(Promise.resolve().then(() => f.read(-1, 2)))).code, 'INVALID_OPTION')
  f.close()
  assert.is((await codecError(Promise.resolve().then(() => f.read(0, 1)))).code, 'INVALID_OPTION')
  assert.is((await codecError(openGzipIndexed(gz, { index, engine: 'node' as 'js' }))).code, 'INVALID_OPTION')
  assert.is((await codecError(openGzipIndexed(gz, { indx: index } as never))).code, 'INVALID_OPTION')
})

test.run()
