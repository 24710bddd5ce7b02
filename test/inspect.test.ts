// `sluice/inspect` (lib/inspect/): the library's inspector, which `sluice inspect` and
// the playground page print. Its reports on bytes, a Blob and a range source agree;
// files made by the reference CLIs (zstd, gzip, lz4) are read as they describe them
// (`zstd -lv`'s frame facts, gzip -N's name, lz4's flags); a seekable archive names its
// frame count; Parquet footers are read by ranges (two reads); the limits and errors are
// typed. `inspectText` is what the CLI prints (cli.test.ts checks the CLI against it).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { encode, CodecError } from '../index.js'
import { DEFAULT_MAX_INSPECT_BYTES, formatOfName, formatRatio, inspect, inspectText, ratioOf, suffixOf, type InspectReport } from '../lib/inspect/index.js'
import { hasCli } from './_cli.js'
import { filesCorpus } from './_corpus.js'
import { fixture, root } from './_fixtures.js'

const dir = mkdtempSync(join(tmpdir(), 'sluice-inspect-'))
const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 300_000, /\.d\.ts$/)
writeFileSync(join(dir, 'text.txt'), text)

async function rejects(promise: Promise<unknown>, code: string): Promise<CodecError> {
  try {
    await promise
  } catch (error) {
    assert.instance(error, CodecError)
    assert.is((error as CodecError).code, code, (error as Error).message)
    return error as CodecError
  }
  throw new Error(`expected ${code}`)
}

test('bytes, a Blob and a range source give one report', async () => {
  const zst = await encode('zstd', text, { level: 3 })
  const reads: Array<[number, number]> = []
  const source = { size: zst.length, read: async (offset: number, length: number) => (reads.push([offset, length]), zst.subarray(offset, offset + length)) }
  const fromBytes = await inspect(zst)
  assert.equal(await inspect(new Blob([zst as Uint8Array<ArrayBuffer>])), fromBytes)
  assert.equal(await inspect(source), fromBytes)
  assert.is(fromBytes.kind, 'zstd')
  const z = fromBytes as Extract<InspectReport, { kind: 'zstd' }>
  assert.is(z.zstdFrames, 1)
  assert.is(z.decompressedSize, text.length)
  assert.is(z.ratio, ratioOf(text.length, zst.length))
  assert.is(z.seekable, null)
  // The PAR1 check reads the last 4 bytes, then the file is read whole, once.
  assert.equal(reads, [[zst.length - 4, 4], [0, zst.length]])
})

;(hasCli('zstd') ? test : test.skip)('zstd CLI frames: the facts zstd -lv prints', async () => {
  execFileSync('sh', ['-c', 'zstd -q -19 --long=24 -c text.txt > a.zst && zstd -q -1 --no-check -c text.txt >> a.zst'], { cwd: dir })
  const r = (await inspect(readFileSync(join(dir, 'a.zst')))) as Extract<InspectReport, { kind: 'zstd' }>
  assert.is(r.zstdFrames, 2)
  assert.equal(r.frames.map((f) => f.contentSize), [text.length, text.length])
  assert.equal(r.frames.map((f) => typeof f.checksum), ['string', 'object'])
  assert.is(r.checksums, false)
  const lv = execFileSync('zstd', ['-lv', 'a.zst'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  assert.match(lv, new RegExp(`# Zstandard Frames: 2`))
  assert.is(r.compressedSize, readFileSync(join(dir, 'a.zst')).length)
  assert.match(inspectText(r, 'a.zst'), /^a\.zst: zstd\n {2}frames: 2 zstd, 0 skippable; checksums: no\n/)
})

test('a seekable archive: its seek table names the frames', async () => {
  const zst = await encode('zstd', text, { seekable: true, frameSize: 64 * 1024 })
  const r = (await inspect(zst)) as Extract<InspectReport, { kind: 'zstd' }>
  assert.is(r.seekable!.frames, Math.ceil(text.length / 65536))
  assert.is(r.seekable!.decompressedSize, text.length)
  assert.is(r.seekable!.largestFrame, 65536)
  assert.match(inspectText(r, 'x.zst'), new RegExp(`seekable archive: ${r.seekable!.frames} frames in its seek table`))
})

;(hasCli('gzip') ? test : test.skip)('gzip -N: name, mtime, OS, ISIZE', async () => {
  execFileSync('sh', ['-c', 'touch -d @1700000000 text.txt && gzip -c -9 -N text.txt > t.gz'], { cwd: dir })
  const r = (await inspect(readFileSync(join(dir, 't.gz')))) as Extract<InspectReport, { kind: 'gzip' }>
  assert.is(r.name, 'text.txt')
  assert.is(r.mtime, 1700000000)
  assert.is(r.extraFlags, 2)
  assert.is(r.uncompressedSizeMod32, text.length)
})

;(hasCli('lz4') ? test : test.skip)('lz4 CLI frames: flags and block size', async () => {
  execFileSync('sh', ['-c', 'lz4 -q -c -B5 --content-size text.txt > t.lz4'], { cwd: dir })
  const r = (await inspect(readFileSync(join(dir, 't.lz4')))) as Extract<InspectReport, { kind: 'lz4' }>
  assert.is(r.frames[0]!.blockMaxSize, 256 * 1024)
  assert.is(r.frames[0]!.contentSize, text.length)
  assert.is(r.decompressedSize, text.length)
})

test('the name tells what the bytes cannot: brotli by .br', async () => {
  const br = await encode('brotli', text, { level: 5 })
  await rejects(inspect(br), 'UNSUPPORTED')
  assert.is((await inspect(br, { name: 'https://example.com/a.txt.br?x=1' })).kind, 'brotli')
  assert.is(formatOfName('a.txt.br')!.format, 'brotli')
  assert.is(suffixOf('zstd'), '.zst')
})

const parquetFile = fixture('parquet-testing', 'data', 'lz4_raw_compressed_larger.parquet')
if (!parquetFile || !existsSync(parquetFile)) console.log('# skipped: inspect Parquet by ranges: ../shared/fixtures/parquet-testing is absent')
;(parquetFile && existsSync(parquetFile) ? test : test.skip)('Parquet: the footer by range reads, never the whole file', async () => {
  const bytes = readFileSync(parquetFile!)
  const reads: number[] = []
  const r = await inspect({ size: bytes.length, read: async (offset, length) => (reads.push(length), bytes.subarray(offset, offset + length)) })
  assert.is(r.kind, 'parquet')
  const { parquetMetadata } = await import('hyparquet')
  assert.is((r as Extract<InspectReport, { kind: 'parquet' }>).rows, Number(parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)).num_rows))
  // PAR1, then the footer's tail (64 KiB): 2 reads, far from the file's 381 kB.
  assert.is(reads.length, 2)
  assert.ok(reads[0]! + reads[1]! < bytes.length / 4, `reads ${reads.join(', ')} of ${bytes.length}`)
})

test('limits and errors: empty, too large, unknown, a bad option', async () => {
  await rejects(inspect(new Uint8Array(0)), 'TRUNCATED')
  const e = await rejects(inspect({ size: DEFAULT_MAX_INSPECT_BYTES + 1, read: async () => new Uint8Array(4) }), 'LIMIT_EXCEEDED')
  assert.match(e.message, /more than maxBytes/)
  await rejects(inspect(new Uint8Array(100), { maxBytes: 10 }), 'LIMIT_EXCEEDED')
  await rejects(inspect(new TextEncoder().encode('plain text, no magic')), 'UNSUPPORTED')
  await rejects(inspect(new Uint8Array(10), { maxBytes: -1 }), 'INVALID_OPTION')
  assert.is(formatRatio(300, 100), '×3.000 (33.33%)')
})

test.after(() => rmSync(dir, { recursive: true, force: true }))
test.run()
