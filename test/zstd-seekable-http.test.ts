// Range sources against real servers and files: httpRangeSource over a loopback node:http
// server that serves a seekable archive statically (requests counted, as a CDN would bill
// them), servers that ignore Range, refuse HEAD, or change the file between reads; and
// fileRangeSource over a file path and an open FileHandle. Parquet footers read through
// the same sources.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError, encode, httpRangeSource, openZstdSeekable, zstdFrames } from '../index.js'
import { fileRangeSource } from '../adapters/node/index.js'
import { parquetMetadata } from '../lib/parquet/index.js'
import { filesCorpus } from './_corpus.js'
import { root, fixture } from './_fixtures.js'
import { listen, rangeServer, type Served } from './_http.js'
import { rejection } from './_caught.js'
import { readFileSync } from 'node:fs'

const content = filesCorpus(join(root, 'node_modules/typescript/lib'), 2_000_000, /\.d\.ts$/)
const FRAME = 128 * 1024
const archive = await encode('zstd', content, { seekable: true, frameSize: FRAME })

async function codecError(promise: Promise<unknown>): Promise<CodecError> {
  const e = await rejection(promise)
  if (!(e instanceof CodecError)) throw new Error(`expected a CodecError, got ${String(e)}`, { cause: e })
  return e
}

function same(a: Uint8Array, b: Uint8Array, what: string): void {
  assert.is(a.length, b.length, what)
  assert.ok(Buffer.compare(a, b) === 0, what)
}

test('a seekable archive over HTTP: one HEAD, one read for the table, one per range after', async () => {
  const log: string[] = []
  const server = await listen(rangeServer({ body: archive, etag: '"v1"' }, log))
  try {
    const source = await httpRangeSource(`${server.url}/logs.zst`)
    assert.is(source.size, archive.length)
    assert.is(source.etag, '"v1"')
    const reader = await openZstdSeekable(source, { cacheFrames: 0 })
    assert.is(log.length, 2, log.join(', '))
    assert.is(log[0], 'HEAD')
    // A range across two frames: one ranged GET of exactly the two frames.
    const offset = 3 * FRAME - 100
    same(await reader.read(offset, 1000), content.subarray(offset, offset + 1000), 'read')
    const f = reader.frames
    assert.equal(log.slice(2), [`GET bytes=${f[2]!.compressedOffset}-${f[3]!.compressedOffset + f[3]!.compressedSize - 1}`])
    assert.is(source.requests, 3)
    // zstdFrames over HTTP: about one request per MiB of frames, none inside the table.
    log.length = 0
    const frames = await zstdFrames(source)
    assert.is(frames.length, f.length + 1)
    assert.ok(log.length <= Math.ceil(archive.length / (1 << 20)) + 1, log.join(', '))
  } finally {
    await server.close()
  }
})

test('a server that ignores Range, or refuses HEAD', async () => {
  const log: string[] = []
  const ignoring = await listen(rangeServer({ body: archive, mode: 'ignore' }, log))
  try {
    const source = await httpRangeSource(ignoring.url)
    const e = await codecError(openZstdSeekable(source))
    assert.is(e.code, 'UNSUPPORTED')
    assert.match(e.message, /ignores Range \(status 200 instead of 206/)
  } finally {
    await ignoring.close()
  }
  const noHead = await listen(rangeServer({ body: archive, mode: 'no-head', etag: '"a"' }, log))
  try {
    log.length = 0
    const source = await httpRangeSource(noHead.url)
    assert.equal(log, ['HEAD', 'GET bytes=0-0'])
    assert.is(source.size, archive.length)
    const reader = await openZstdSeekable(source)
    same(await reader.read(5, 10), content.subarray(5, 15), 'after a GET probe')
  } finally {
    await noHead.close()
  }
  const gzip = await listen(rangeServer({ body: archive, mode: 'gzip' }, log))
  try {
    assert.is((await codecError(httpRangeSource(gzip.url))).code, 'UNSUPPORTED')
  } finally {
    await gzip.close()
  }
  const missing = await listen((_req, res) => res.writeHead(404).end())
  try {
    const e = await codecError(httpRangeSource(missing.url))
    assert.is(e.code, 'INVALID_OPTION')
    assert.match(e.message, /404/)
  } finally {
    await missing.close()
  }
})

test('the resource changes between reads: INVALID_DATA, never mixed bytes', async () => {
  const log: string[] = []
  const served: Served = { body: archive, etag: '"v1"' }
  const server = await listen(rangeServer(served, log))
  try {
    const reader = await openZstdSeekable(await httpRangeSource(server.url))
    // Same length, new ETag: If-Range makes the server answer 200 with the new file.
    served.etag = '"v2"'
    served.body = archive.slice()
    const e = await codecError(reader.read(0, 10))
    assert.is(e.code, 'INVALID_DATA')
    assert.match(e.message, /changed.*ETag is now "v2", was "v1"/)
    // No ETag at all, and the length changes: the Content-Range total tells.
    served.etag = undefined
    const plain = await openZstdSeekable(await httpRangeSource(server.url))
    served.body = new Uint8Array(archive.length + 1)
    const c = await codecError(plain.read(0, 10))
    assert.is(c.code, 'INVALID_DATA')
    assert.match(c.message, /length is now/)
  } finally {
    await server.close()
  }
})

test('fileRangeSource over a path and over a FileHandle', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-seekable-'))
  try {
    const path = join(dir, 'a.zst')
    writeFileSync(path, archive)
    const source = await fileRangeSource(path)
    const reader = await openZstdSeekable(source)
    same(await reader.read(FRAME * 7 + 1, 50_000), content.subarray(FRAME * 7 + 1, FRAME * 7 + 50_001), 'path')
    await source.close()
    const handle = await open(path)
    const reader2 = await openZstdSeekable(await fileRangeSource(handle))
    same(await reader2.read(0, 100), content.subarray(0, 100), 'handle')
    await handle.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

const parquetDir = fixture('parquet-testing', 'data')
if (!parquetDir) console.log('# skipped: Parquet footers over HTTP: the shared fixtures (parquet-testing) are absent')
;(parquetDir ? test : test.skip)('Parquet footers through the same range sources', async () => {
  const bytes = new Uint8Array(readFileSync(join(parquetDir!, 'alltypes_tiny_pages.parquet')))
  const log: string[] = []
  const server = await listen(rangeServer({ body: bytes, etag: '"p"' }, log))
  try {
    const overHttp = await parquetMetadata(await httpRangeSource(server.url))
    const inMemory = await parquetMetadata(bytes)
    assert.is(overHttp.num_rows, inMemory.num_rows)
    assert.is(overHttp.metadata_length, inMemory.metadata_length)
  } finally {
    await server.close()
  }
})

test.run()
