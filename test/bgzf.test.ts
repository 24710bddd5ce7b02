// BGZF (issue 31): what gzipEncode({ bgzf: true }) writes is read by bgzip -d and -t,
// indexed by bgzip -r into the same .gzi as ours, read at an offset by bgzip -b through
// our .gzi, indexed and queried by tabix (BED) and samtools faidx (FASTA) (Debian tabix
// and samtools); bgzip's own files and .gzi are read at random through openGzipIndexed;
// gzipIndex() of a BGZF file walks its block headers (a point per block, no windows).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError, decode, decodeGzipIndex, encode, encodeGzipIndex, gzipEncode, gzipIndex, gzipIndexFileFormat, openGzipIndexed } from '../index.js'
import { BGZF_BLOCK_INPUT, BGZF_EOF, bgzfBlockAt } from '../lib/codecs/bgzf.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { concatBytes } from './_bytes.js'
import { requireCli } from './_cli.js'
import { rejection } from './_caught.js'

const bgzipTest = requireCli('bgzip', 'bgzip cases') ? test : test.skip
const tabixTest = requireCli('tabix', 'tabix cases') ? test : test.skip
const samtoolsTest = requireCli('samtools', 'samtools cases') ? test : test.skip

const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 1_500_000, /\.d\.ts$/)
const content = concatBytes([text, randomBytes(200_000), text.subarray(0, 300_000)])

const dir = mkdtempSync(join(tmpdir(), 'sluice-bgzf-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))

function same(a: Uint8Array, b: Uint8Array, what: string): void {
  assert.is(a.length, b.length, `${what}: length`)
  assert.ok(Buffer.compare(a, b) === 0, `${what}: bytes`)
}

function run(cmd: string, args: string[], input?: Uint8Array): Uint8Array {
  const r = spawnSync(cmd, args, { input, maxBuffer: 1 << 28, cwd: dir })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.toString()}`)
  return new Uint8Array(r.stdout)
}

/** Every block of a BGZF file: its size, BC present, at most 64 KiB; the EOF marker last. */
function blocksOf(file: Uint8Array): number[] {
  const sizes: number[] = []
  for (let at = 0; at < file.length; ) {
    const block = bgzfBlockAt(file, at, at)
    assert.ok(block, `a BGZF block at ${at}`)
    sizes.push(block!.size)
    at += block!.size
  }
  same(file.subarray(file.length - 28), BGZF_EOF, 'the EOF marker')
  return sizes
}

test('the blocks: 0xff00 bytes of input each, BC sizes right, EOF marker; any gzip reader decodes them', async () => {
  for (const engine of ['wasm', 'js'] as const) {
    for (const level of [0, 1, 6, 9]) {
      const file = await encode('gzip', content, { bgzf: true, engine, level })
      const sizes = blocksOf(file)
      assert.is(sizes.length, Math.ceil(content.length / BGZF_BLOCK_INPUT) + 1, `${engine} level ${level}: blocks`)
      same(new Uint8Array(zlib.gunzipSync(file)), content, `node:zlib reads ${engine} level ${level}`)
      same(await decode('gzip', file), content, `sluice reads ${engine} level ${level}`)
    }
  }
  // Incompressible input: stored blocks, still within 64 KiB.
  const random = await encode('gzip', randomBytes(300_000), { bgzf: true })
  assert.ok(blocksOf(random).every((n) => n <= 65536))
  // Nothing in: the EOF marker alone, as bgzip writes for an empty file.
  same(await encode('gzip', new Uint8Array(0), { bgzf: true }), BGZF_EOF, 'empty')
})

test('the stream writes the same bytes; a flush ends the block early', async () => {
  const pieces = [content.subarray(0, 100_000), content.subarray(100_000, 100_001), content.subarray(100_001)]
  const stream = new Blob(pieces).stream().pipeThrough(gzipEncode({ bgzf: true }))
  same(new Uint8Array(await new Response(stream).arrayBuffer()), await encode('gzip', content, { bgzf: true }), 'stream = one-shot')
  const flushed = await new Response(new Blob([content.subarray(0, 1000)]).stream().pipeThrough(gzipEncode({ bgzf: true, flush: 'write' }))).arrayBuffer()
  assert.is(blocksOf(new Uint8Array(flushed)).length, 2, 'one block for the flushed 1000 bytes, then the EOF marker')
  const e = await rejection(encode('gzip', content, { bgzf: true, blockSize: 65536 }))
  assert.instance(e, CodecError)
  assert.is((e as CodecError).code, 'INVALID_OPTION')
})

test('gzipIndex() of BGZF walks the block headers: a point per block, no windows, .gzi round trip', async () => {
  const file = await encode('gzip', content, { bgzf: true })
  const index = await gzipIndex(file)
  const blocks = blocksOf(file)
  assert.is(index.points.length, blocks.length - 1, 'every block but the EOF marker')
  assert.ok(index.points.every((p, i) => p.windowSize === 0 && p.uncompressedOffset === i * BGZF_BLOCK_INPUT))
  const gzi = await encodeGzipIndex(index, { format: 'gzi' })
  assert.is(gzipIndexFileFormat(gzi), 'gzi')
  assert.equal((await decodeGzipIndex(gzi, { compressedSize: file.length, uncompressedSize: content.length })).points, index.points)
  const f = await openGzipIndexed(file, { index: gzi })
  for (const [offset, length] of [[0, 10], [BGZF_BLOCK_INPUT - 5, 10], [1_000_000, 700_000], [content.length - 1, 1]] as const) {
    same(await f.read(offset, length), content.subarray(offset, offset + length), `read ${offset}`)
  }
  // Each block read is checked against its own CRC-32 (a point at a member start).
  const damaged = file.slice()
  const at = index.points[3]!.compressedBitOffset / 8
  const size = blocks[3]!
  damaged[at - 18 + size - 8] ^= 1
  const g = await openGzipIndexed(damaged, { index })
  const e = await rejection(g.read(3 * BGZF_BLOCK_INPUT + 5, 10))
  assert.is((e as CodecError).code, 'CHECKSUM_MISMATCH')
  // A .gzi needs every point to be a block start.
  const plain = await gzipIndex(new Uint8Array(zlib.gzipSync(content)), { spacing: 1 << 20 })
  assert.is(((await rejection(Promise.resolve().then(() => encodeGzipIndex(plain, { format: 'gzi' })))) as CodecError).code, 'INVALID_OPTION')
})

bgzipTest('bgzip reads ours (-d, -t), indexes it into our .gzi (-r), and reads through our .gzi (-b, -s)', async () => {
  for (const engine of ['wasm', 'js'] as const) {
    const file = await encode('gzip', content, { bgzf: true, engine })
    writeFileSync(join(dir, 'ours.gz'), file)
    same(run('bgzip', ['-d', '-c', 'ours.gz']), content, `bgzip -d (${engine})`)
    run('bgzip', ['-t', 'ours.gz'])
    run('bgzip', ['-r', '-f', '-I', 'bgzip.gzi', 'ours.gz'])
    const ours = await encodeGzipIndex(await gzipIndex(file), { format: 'gzi' })
    same(ours, new Uint8Array(readFileSync(join(dir, 'bgzip.gzi'))), `bgzip -r writes our .gzi (${engine})`)
    writeFileSync(join(dir, 'ours.gzi'), ours)
    for (const [offset, length] of [[0, 100], [BGZF_BLOCK_INPUT * 3 - 7, 100_000], [content.length - 50, 50]]) {
      same(run('bgzip', ['-c', '-b', String(offset), '-s', String(length), '-I', 'ours.gzi', 'ours.gz']), content.subarray(offset!, offset! + length!), `bgzip -b ${offset} (${engine})`)
    }
  }
})

bgzipTest("we read bgzip's file through bgzip's .gzi, and index it ourselves the same way", async () => {
  writeFileSync(join(dir, 'theirs'), content)
  run('bgzip', ['-i', '-f', '-k', 'theirs'])
  const file = new Uint8Array(readFileSync(join(dir, 'theirs.gz')))
  const gzi = new Uint8Array(readFileSync(join(dir, 'theirs.gz.gzi')))
  const f = await openGzipIndexed(file, { index: gzi })
  assert.is(f.size, content.length)
  for (const [offset, length] of [[0, 10], [123_456, 654_321], [content.length - 3, 3]]) same(await f.read(offset!, length!), content.subarray(offset!, offset! + length!), `read ${offset}`)
  same(await encodeGzipIndex(await gzipIndex(file), { format: 'gzi' }), gzi, 'our walk gives bgzip\'s .gzi')
})

/** A sorted BED file: chromosome, start, end, name. */
function bed(): string {
  const lines: string[] = []
  for (const chr of ['chr1', 'chr2', 'chr3']) for (let i = 0; i < 20_000; i++) lines.push(`${chr}\t${i * 100}\t${i * 100 + 50}\tfeature_${chr}_${i}`)
  return lines.join('\n') + '\n'
}

tabixTest('tabix indexes and queries a BED file we compressed', async () => {
  const plain = new TextEncoder().encode(bed())
  writeFileSync(join(dir, 'x.bed.gz'), await encode('gzip', plain, { bgzf: true }))
  run('tabix', ['-f', '-p', 'bed', 'x.bed.gz'])
  const got = new TextDecoder().decode(run('tabix', ['x.bed.gz', 'chr2:500000-501000']))
  const want = bed().split('\n').filter((l) => l.startsWith('chr2\t') && Number(l.split('\t')[2]) > 499_999 && Number(l.split('\t')[1]) < 501_000)
  assert.equal(got.trimEnd().split('\n'), want)
})

samtoolsTest('samtools faidx indexes and reads a FASTA we compressed', async () => {
  const seq = (n: number, seed: number) => Array.from(randomBytes(n, seed), (b) => 'ACGT'[b & 3]).join('')
  const records = [['chrA', seq(200_000, 1)], ['chrB', seq(150_000, 2)]] as const
  const fasta = records.map(([name, s]) => `>${name}\n${s.match(/.{1,60}/g)!.join('\n')}\n`).join('')
  writeFileSync(join(dir, 'ref.fa.gz'), await encode('gzip', new TextEncoder().encode(fasta), { bgzf: true }))
  run('samtools', ['faidx', 'ref.fa.gz'])
  const got = new TextDecoder().decode(run('samtools', ['faidx', 'ref.fa.gz', 'chrB:100001-100120']))
  assert.is(got.split('\n').slice(1).join(''), records[1][1].slice(100_000, 100_120))
})

test.run()
