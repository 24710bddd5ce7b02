// Index files (issue 31): sluice's own format round trips and refuses hostile or damaged
// indexes before allocating for them (offsets past the end, windows of the wrong size,
// points out of order, counts larger than the bytes, CRCs); indexed_gzip's format
// (Debian python3-indexed-gzip, under /usr/bin/python3) and gztool's (Debian gztool)
// verified both ways against the real tools: each reads the index we write and seeks
// through it, and we read the index each writes (gztool's default, with line numbers).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError, decodeGzipIndex, encodeGzipIndex, gzipIndex, gzipIndexFileFormat, openGzipIndexed, type GzipIndex } from '../index.js'
import { crc32 } from '../lib/codecs/checksum.js'
import { writeU32LE } from '../lib/endian.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { concatBytes } from './_bytes.js'
import { requireCli } from './_cli.js'

const PYTHON = '/usr/bin/python3'
const hasIndexedGzip = spawnSync(PYTHON, ['-c', 'import indexed_gzip'], { stdio: 'ignore' }).status === 0
if (!hasIndexedGzip) console.log('# skipped: indexed_gzip cases: /usr/bin/python3 cannot import indexed_gzip (apt-get install -y python3-indexed-gzip)')
const pyTest = hasIndexedGzip ? test : test.skip
const gztoolTest = requireCli('gztool', 'gztool index cases') ? test : test.skip

const content = concatBytes([filesCorpus(join(root, 'node_modules/typescript/lib'), 6_000_000, /\.d\.ts$/), randomBytes(300_000), filesCorpus(join(root, 'node_modules'), 2_000_000, /\.js$/)])
const gz = new Uint8Array(zlib.gzipSync(content, { level: 6 }))
/** Three members, the middle one small. */
const members = concatBytes([zlib.gzipSync(content.subarray(0, 3_000_000)), zlib.gzipSync(content.subarray(3_000_000, 3_100_000)), zlib.gzipSync(content.subarray(3_100_000))])
const SPACING = 1 << 20

const dir = mkdtempSync(join(tmpdir(), 'sluice-gzindex-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))

function same(a: Uint8Array, b: Uint8Array, what: string): void {
  assert.is(a.length, b.length, `${what}: length`)
  assert.ok(Buffer.compare(a, b) === 0, `${what}: bytes`)
}

async function invalid(f: () => Promise<unknown>, pattern: RegExp, what: string): Promise<void> {
  try {
    await f()
  } catch (e) {
    assert.instance(e, CodecError, what)
    assert.is((e as CodecError).code, 'INVALID_DATA', `${what}: ${(e as Error).message}`)
    assert.match((e as Error).message, pattern, what)
    return
  }
  assert.unreachable(`${what}: accepted`)
}

/** Reads ranges through `index` and compares them with the content. */
async function readsThrough(file: Uint8Array, index: GzipIndex | Uint8Array, expected: Uint8Array, what: string): Promise<void> {
  const f = await openGzipIndexed(file, { index })
  for (const [offset, length] of [[0, 1000], [2_500_000, 700_000], [expected.length - 5000, 5000], [4_123_457, 1]]) {
    same(await f.read(offset!, length!), expected.subarray(offset!, offset! + length!), `${what} ${offset}+${length}`)
  }
  f.close()
}

test('sluice format: the same index back, recognised by its magic', async () => {
  for (const [file, format] of [[gz, 'gzip'], [members, 'gzip'], [new Uint8Array(zlib.deflateSync(content)), 'deflate'], [new Uint8Array(zlib.deflateRawSync(content)), 'deflate-raw']] as const) {
    const index = await gzipIndex(file, { spacing: SPACING, format })
    const bytes = await encodeGzipIndex(index)
    assert.is(gzipIndexFileFormat(bytes), 'sluice')
    assert.equal(await decodeGzipIndex(bytes), index, format)
    await readsThrough(file, bytes, content, `sluice ${format}`)
  }
})

test('sluice format: index size at the default spacing is under 1% of a text file', async () => {
  const text = filesCorpus(join(root, 'node_modules'), 24_000_000, /\.(d\.ts|js)$/)
  const file = new Uint8Array(zlib.gzipSync(text, { level: 6 }))
  const bytes = await encodeGzipIndex(await gzipIndex(file))
  assert.ok(bytes.length < 0.01 * file.length, `${bytes.length} bytes for ${file.length}`)
})

/** An index file with `edit` applied to its points (sluice format), both CRCs recomputed. */
async function edited(edit: (b: Uint8Array, view: DataView, n: number) => void): Promise<Uint8Array> {
  const b = (await encodeGzipIndex(await gzipIndex(gz, { spacing: SPACING }))).slice()
  const view = new DataView(b.buffer)
  edit(b, view, view.getUint32(12, true))
  writeU32LE(b, 32, crc32(b, 0, 0, 32))
  writeU32LE(b, b.length - 4, crc32(b, 0, 36, b.length - 4))
  return b
}

test('sluice format: hostile indexes refused before allocation', async () => {
  const point = (i: number) => 36 + 24 * i
  const good = await encodeGzipIndex(await gzipIndex(gz, { spacing: SPACING }))
  await invalid(() => decodeGzipIndex(good.subarray(0, 30)), /shorter/, 'too short')
  // A count of 2^32 - 1 points in a few KiB: refused by length, nothing allocated for it.
  const huge = good.slice(0, 4096)
  writeU32LE(huge, 12, 0xffffffff)
  writeU32LE(huge, 32, crc32(huge, 0, 0, 32))
  await invalid(() => decodeGzipIndex(huge), /lists 4294967295 points/, 'huge count')
  const flipped = good.slice()
  flipped[flipped.length - 100] ^= 1
  await invalid(() => decodeGzipIndex(flipped), /CRC-32/, 'a flipped bit in a window')
  const header = good.slice()
  header[20] ^= 1
  await invalid(() => decodeGzipIndex(header), /header CRC-32/, 'a flipped bit in the header')
  const far = await edited((b, v, n) => v.setUint32(point(n - 1) + 8, gz.length * 8 + 1, true))
  await invalid(() => decodeGzipIndex(far), /past the end/, 'a bit offset past the file')
  const beyond = await edited((b, v, n) => v.setUint32(point(n - 1), content.length + 1, true))
  await invalid(() => decodeGzipIndex(beyond), /outside the content/, 'an offset past the content')
  const disorder = await edited((b, v) => {
    const a = b.slice(point(1), point(2))
    b.copyWithin(point(1), point(2), point(3))
    b.set(a, point(2))
  })
  await invalid(() => decodeGzipIndex(disorder), /in order/, 'points out of order')
  const bigWindow = await edited((b, v) => v.setUint32(point(1) + 16, 40000, true))
  await invalid(() => decodeGzipIndex(bigWindow), /window of 40000/, 'a window larger than 32 KiB')
  const longWindow = await edited((b, v) => v.setUint32(point(1) + 20, 40000, true))
  await invalid(() => decodeGzipIndex(longWindow), /cannot take 40000|windows take/, 'a compressed window longer than deflate writes')
  const noWindow = await edited((b, v) => v.setUint32(point(1) + 20, 0, true))
  await invalid(() => decodeGzipIndex(noWindow), /cannot take 0/, 'a window size with no window bytes')
  await invalid(() => decodeGzipIndex(new Uint8Array(64)), /not a gzip index/, 'unknown bytes')
  // A window that says 32768 bytes but decodes to fewer: found when a read needs it.
  const wrongSize = await edited((b, v) => v.setUint32(point(1) + 16, 32000, true))
  const f = await openGzipIndexed(gz, { index: await decodeGzipIndex(wrongSize) })
  const offset = (await decodeGzipIndex(wrongSize)).points[1]!.uncompressedOffset
  const e = await f.read(offset + 10, 10).then(() => null, (error: unknown) => error)
  assert.instance(e, CodecError)
  assert.match((e as Error).message, /window of 32000 bytes decodes to more than 32000 bytes/)

})

test('an index object with points out of order or past the file is refused by openGzipIndexed', async () => {
  const index = await gzipIndex(gz, { spacing: SPACING })
  const swapped = { ...index, points: [index.points[0]!, index.points[2]!, index.points[1]!, ...index.points.slice(3)] }
  const e1 = await openGzipIndexed(gz, { index: swapped }).then(() => null, (e: unknown) => e)
  assert.instance(e1, CodecError)
  assert.match((e1 as Error).message, /in order/)
  const e2 = await openGzipIndexed(gz.subarray(0, gz.length - 1), { index }).then(() => null, (e: unknown) => e)
  assert.instance(e2, CodecError)
  assert.is((e2 as CodecError).code, 'INVALID_DATA')
  assert.match((e2 as Error).message, /made for a file of/)
})

pyTest('indexed_gzip reads the index we write, and we read the one it writes', async () => {
  const file = join(dir, 'data.gz')
  writeFileSync(file, members)
  const index = await gzipIndex(members, { spacing: SPACING })
  const ours = await encodeGzipIndex(index, { format: 'indexed_gzip' })
  assert.is(gzipIndexFileFormat(ours), 'indexed_gzip')
  writeFileSync(join(dir, 'ours.gzidx'), ours)
  // indexed_gzip imports ours (it checks the compressed size), lists our points and reads through them.
  const script = `
import sys, indexed_gzip as ig
f = ig.IndexedGzipFile(sys.argv[1], index_file=sys.argv[2])
points = list(f.seek_points())
out = sys.stdout.buffer
out.write(("%d\\n" % len(points)).encode())
for off, n in ((0, 1000), (2500000, 700000), (4123457, 5000), (${content.length - 3000}, 3000)):
    f.seek(off)
    out.write(f.read(n))
g = ig.IndexedGzipFile(sys.argv[1], spacing=${SPACING})
g.build_full_index()
g.export_index(sys.argv[3])
`
  const r = spawnSync(PYTHON, ['-c', script, file, join(dir, 'ours.gzidx'), join(dir, 'theirs.gzidx')], { maxBuffer: 1 << 26 })
  assert.is(r.status, 0, r.stderr.toString())
  const stdout = new Uint8Array(r.stdout)
  const newline = stdout.indexOf(10)
  assert.is(Number(new TextDecoder().decode(stdout.subarray(0, newline))), index.points.length, 'indexed_gzip sees our points')
  const expected = concatBytes([content.subarray(0, 1000), content.subarray(2_500_000, 3_200_000), content.subarray(4_123_457, 4_128_457), content.subarray(content.length - 3000)])
  same(stdout.subarray(newline + 1), expected, 'indexed_gzip through our index')
  const theirs = new Uint8Array(readFileSync(join(dir, 'theirs.gzidx')))
  assert.is(gzipIndexFileFormat(theirs), 'indexed_gzip')
  const decoded = await decodeGzipIndex(theirs)
  assert.ok(decoded.points.length >= 6, `${decoded.points.length} points`)
  // Its points at member starts have no window; ours agree on where every member starts.
  assert.ok(decoded.points.filter((p) => p.windowSize === 0).length >= 3, 'a window-less point per member')
  await readsThrough(members, theirs, content, 'their index')
  // Round trip through its format: the same points back.
  assert.equal((await decodeGzipIndex(await encodeGzipIndex(decoded, { format: 'indexed_gzip' }))).points.map((p) => [p.uncompressedOffset, p.compressedBitOffset]), decoded.points.map((p) => [p.uncompressedOffset, p.compressedBitOffset]))
})

gztoolTest('gztool reads the index we write, and we read the one it writes (with line numbers)', async () => {
  const file = join(dir, 'g.gz')
  writeFileSync(file, members)
  const ourIndex = await gzipIndex(members, { spacing: SPACING })
  const ours = await encodeGzipIndex(ourIndex, { format: 'gztool' })
  assert.is(gzipIndexFileFormat(ours), 'gztool')
  writeFileSync(join(dir, 'ours.gzi'), ours)
  // -W: use the index, never write one; -b offset, -r length.
  for (const [offset, length] of [[2_500_000, 700_000], [content.length - 3000, 3000], [3_050_000, 100_000]]) {
    const r = spawnSync('gztool', ['-W', '-I', join(dir, 'ours.gzi'), '-b', String(offset), '-r', String(length), file], { maxBuffer: 1 << 26 })
    assert.is(r.status, 0, r.stderr.toString())
    same(new Uint8Array(r.stdout), content.subarray(offset!, offset! + length!), `gztool -b ${offset}`)
  }
  const listed = spawnSync('gztool', ['-l', '-I', join(dir, 'ours.gzi'), file])
  const points = /Number of index points\s*:\s*(\d+)/.exec(listed.stdout.toString() + listed.stderr.toString())
  assert.is(Number(points?.[1]), ourIndex.points.length, 'gztool -l counts our points')
  // gztool's own, version 1 (line numbers) by default.
  const r = spawnSync('gztool', ['-f', '-s', '1', '-I', join(dir, 'theirs.gzi'), file])
  assert.is(r.status, 0, r.stderr.toString())
  const theirs = new Uint8Array(readFileSync(join(dir, 'theirs.gzi')))
  assert.is(String.fromCharCode(...theirs.subarray(8, 16)), 'gzipindX', 'gztool writes line numbers by default')
  assert.is(gzipIndexFileFormat(theirs), 'gztool')
  const decoded = await decodeGzipIndex(theirs, { compressedSize: members.length })
  assert.is(decoded.uncompressedSize, content.length)
  assert.ok(decoded.points.length >= 4, `${decoded.points.length} points`)
  await readsThrough(members, theirs, content, 'gztool index')
  const e = await decodeGzipIndex(theirs).then(() => null, (error: unknown) => error as CodecError)
  assert.is(e?.code, 'INVALID_OPTION', 'gztool indexes need the compressed size')
})

test.run()
