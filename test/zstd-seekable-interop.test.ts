// Interop with facebook/zstd's reference seekable format (contrib/seekable_format, built
// natively from Debian's zstd 1.5.7 source by test/_zstd-reference.ts): archives its
// seekable_compression writes (table checksums on, frames without content size) read at
// random offsets here, and its seekable_decompression reads ours at random offsets.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { encode, openZstdSeekable, zstdFrames } from '../index.js'
import { concatBytes } from './_bytes.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { referenceTools } from './_zstd-reference.js'

const tools = referenceTools()
if (typeof tools === 'string') console.log(`# skipped: reference seekable_format interop: ${tools}`)
const interop = typeof tools === 'string' ? test.skip : test

const content = concatBytes([filesCorpus(join(root, 'node_modules/typescript/lib'), 1_200_000, /\.d\.ts$/), randomBytes(200_000)])
const dir = mkdtempSync(join(tmpdir(), 'sluice-seekable-interop-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))

let seed = 7
const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)

function same(a: Uint8Array, b: Uint8Array, what: string): void {
  assert.is(a.length, b.length, `${what}: length`)
  assert.ok(Buffer.compare(a, b) === 0, what)
}

interop('archives of the reference writer read at random offsets', async () => {
  const { compress } = tools as Exclude<typeof tools, string>
  for (const [frameSize, level] of [[65536, 3], [300_000, 9], [1, 1]] as const) {
    const input = frameSize === 1 ? content.subarray(0, 2000) : content
    const file = join(dir, `ref-${frameSize}`)
    writeFileSync(file, input)
    const r = spawnSync(compress, [file, String(frameSize), String(level)], { encoding: 'utf8' })
    assert.is(r.status, 0, r.stderr)
    const archive = new Uint8Array(readFileSync(`${file}.zst`))
    const reader = await openZstdSeekable(archive, { maxFrames: 1 << 20 })
    assert.is(reader.size, input.length)
    // Frames of frameSize bytes (the reference may end with an empty one).
    assert.ok(reader.frames.length >= Math.ceil(input.length / frameSize))
    assert.ok(reader.frames.every((f) => f.size <= frameSize))
    assert.ok(reader.frames.every((f) => f.checksum !== undefined), 'table checksums')
    for (let k = 0; k < 20; k++) {
      const offset = next() % input.length
      const length = next() % Math.min(4 * frameSize + 1, input.length - offset + 1)
      same(await reader.read(offset, length), input.subarray(offset, offset + length), `${frameSize}: read(${offset}, ${length})`)
    }
    // zstdFrames lists the same frames, then the table.
    const listed = await zstdFrames(archive)
    assert.is(listed.length, reader.frames.length + 1)
    assert.is(listed.at(-1)!.skippable, 0x184d2a5e)
  }
})

interop('the reference reader reads our archives at random offsets', async () => {
  const { decompress } = tools as Exclude<typeof tools, string>
  for (const options of [{ seekable: true }, { seekable: { checksums: true }, frameSize: 100_000 }, { seekable: true, frameSize: 4096, checksum: false }]) {
    const file = join(dir, 'ours.zst')
    writeFileSync(file, await encode('zstd', content, options))
    for (let k = 0; k < 8; k++) {
      const start = next() % content.length
      const end = start + (next() % Math.min(500_000, content.length - start + 1))
      const r = spawnSync(decompress, [file, String(start), String(end)], { maxBuffer: 1 << 26 })
      assert.is(r.status, 0, `${JSON.stringify(options)} ${start}-${end}: ${r.stderr}`)
      same(new Uint8Array(r.stdout), content.subarray(start, end), `${JSON.stringify(options)} ${start}-${end}`)
    }
  }
})

test.run()
