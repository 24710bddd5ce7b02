/**
 * The `sluice` command's options that mirror the library's (issue 33): `-T`/`--threads`
 * and `--block-size` (the bytes of `encode()` with the same `threads`/`blockSize`),
 * `--seekable`/`--frame-size` and `--long[=N]` (read by the zstd CLI), `inspect` naming a
 * seekable archive, `--json` on compress, decompress and test, one ratio in `-v` and
 * `inspect`, Snappy as `.sz` (python-snappy as the oracle), temporary files removed on
 * SIGHUP as on SIGINT and SIGTERM. Missing tools skip their cases with the reason.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { decode, encode } from '../index.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { requireCli } from './_cli.js'
import { MAIN, shIn, sluiceIn, TSX, type Run } from './_sluice.js'

const dir = mkdtempSync(join(tmpdir(), 'sluice-cli-options-'))
/** Real text: TypeScript's declarations, 3 MB (three 1 MiB blocks and more). */
const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 3_000_000, /\.d\.ts$/)
writeFileSync(join(dir, 'text.txt'), text)

const sluice = (args: readonly string[], input?: Uint8Array): Run => sluiceIn(dir, args, input)
const sh = (command: string, input?: Uint8Array): Run => shIn(dir, command, input)
const same = (a: Uint8Array, b: Uint8Array, what: string) => assert.ok(Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0, `${what}: contents differ (${a.length} vs ${b.length} bytes)`)
const ok = (r: Run, what: string) => assert.is(r.status, 0, `${what}: ${r.stderr}`)

test('-T 2 writes the bytes of the library\'s threads: 2 (gzip, zstd, LZ4); -T0 those of threads: \'auto\'; --block-size those of blockSize', async () => {
  const cases = [
    ['gzip', ['-T', '2'], { threads: 2 }],
    ['zstd', ['-T2'], { threads: 2 }],
    // LZ4: compress writes the content size of a file it knows, as with one thread.
    ['lz4', ['--threads=2'], { threads: 2, contentSize: text.length }],
    ['zstd', ['-T0'], { threads: 'auto' }],
    ['zstd', ['--block-size=256K'], { blockSize: 256 * 1024 }],
    ['gzip', ['-T2', '--block-size=64K', '-9'], { threads: 2, blockSize: 64 * 1024, level: 9 }],
  ] as const
  for (const [format, flags, options] of cases) {
    const r = sluice(['compress', '-F', format, ...flags, '-c', 'text.txt'])
    ok(r, `${format} ${flags.join(' ')}`)
    same(r.stdout, await encode(format, text, options as never), `sluice compress -F ${format} ${flags.join(' ')} vs encode(${JSON.stringify(options)})`)
    const back = sluice(['decompress', '-F', format, '-T2', '-c'], r.stdout)
    ok(back, `decompress -T2 ${format}`)
    same(back.stdout, text, `${format} round trip on two threads`)
    const detected = sluice(['decompress', '-T2', '-c'], r.stdout)
    ok(detected, `decompress -T2, ${format} detected`)
    same(detected.stdout, text, `${format} detected, on two threads`)
  }
  // A format without independent blocks runs on one thread, with a warning.
  const br = sluice(['compress', '-F', 'br', '-T2', '-c', 'text.txt'])
  ok(br, 'brotli -T2')
  assert.match(br.stderr, /brotli has no independent blocks: -T 2 ignored, one thread/)
  same(br.stdout, sluice(['compress', '-F', 'br', '-c', 'text.txt']).stdout, 'brotli -T2 is brotli')
  assert.is(sluice(['compress', '-T', '1,2', '-c', 'text.txt']).status, 1, 'a list is for bench')
})

const ZSTD = requireCli('zstd', 'zstd CLI cases (--seekable, --long)')

;(ZSTD ? test : test.skip)('--seekable: the zstd CLI reads the archive; inspect names it with its frame count, as zstd -lv counts the frames', () => {
  rmSync(join(dir, 'text.txt.zst'), { force: true })
  ok(sluice(['compress', '--seekable', '--frame-size=256K', 'text.txt']), 'compress --seekable')
  same(sh('zstd -q -dc text.txt.zst').stdout, text, 'zstd -d of the seekable archive')
  const frames = Math.ceil(text.length / (256 * 1024))
  const lv = sh('zstd -lv text.txt.zst').stdout.toString()
  assert.is(Number(/Zstandard Frames: (\d+)/.exec(lv)![1]), frames)
  const j = JSON.parse(sluice(['inspect', '--json', 'text.txt.zst']).stdout.toString())
  assert.is(j.zstdFrames, frames)
  assert.is(j.seekable.frames, frames)
  assert.is(j.seekable.decompressedSize, text.length)
  assert.is(j.seekable.largestFrame, 256 * 1024)
  assert.is(j.seekable.tableOffset + j.seekable.tableBytes, j.compressedSize)
  assert.match(sluice(['inspect', 'text.txt.zst']).stdout.toString(), new RegExp(`seekable archive: ${frames} frames in its seek table`))
  // A plain stream is not called seekable.
  ok(sh('zstd -q -f text.txt -o plain.zst'), 'zstd')
  assert.is(JSON.parse(sluice(['inspect', '--json', 'plain.zst']).stdout.toString()).seekable, null)
  assert.is(sluice(['compress', '--frame-size=1M', '-c', 'text.txt']).status, 1, '--frame-size without --seekable')
  assert.is(sluice(['compress', '-F', 'gz', '--seekable', '-c', 'text.txt']).status, 1, '--seekable is for zstd')
})

;(ZSTD ? test : test.skip)('--long and --long=N: zstd decodes them; a window above 2^27 needs --long=N in zstd -d and in sluice decompress, as zstd\'s own', async () => {
  const long = sluice(['compress', '--long', '-c', 'text.txt'])
  ok(long, '--long')
  same(sh('zstd -q -dc', long.stdout).stdout, text, 'zstd -d of --long')
  // From a pipe the size is unknown, so the frame keeps its 2^28 window.
  const piped = sluice(['compress', '--long=28', '-c'], text)
  ok(piped, '--long=28 from a pipe')
  writeFileSync(join(dir, 'long28.zst'), piped.stdout)
  assert.match(sh('zstd -lv long28.zst').stdout.toString(), /Window Size: 256 MiB/)
  const refused = sh('zstd -q -dc', piped.stdout)
  assert.is.not(refused.status, 0, 'zstd -d without --long=28 refuses a 2^28 window')
  assert.match(refused.stderr, /--long=28/)
  same(sh('zstd -q -dc --long=28', piped.stdout).stdout, text, 'zstd -d --long=28')
  const ours = sluice(['decompress', '-F', 'zst', '-c'], piped.stdout)
  assert.is(ours.status, 1)
  assert.match(ours.stderr, /LIMIT_EXCEEDED/)
  const oursLong = sluice(['decompress', '--long=28', '-c'], piped.stdout)
  ok(oursLong, 'decompress --long=28')
  same(oursLong.stdout, text, 'decompress --long=28')
  // The library decodes it with the same limit.
  same(await decode('zstd', piped.stdout, { maxWindowLog: 28 }), text, 'decode with maxWindowLog 28')
  assert.is(sluice(['compress', '-F', 'lz4', '--long', '-c', 'text.txt']).status, 1, '--long is for zstd')
  // Decoding, --long=N is a limit: formats without a window ignore it, as zstd -d does.
  const gz = sluice(['compress', '-F', 'gz', '-c', 'text.txt']).stdout
  same(sluice(['decompress', '--long=28', '-c'], gz).stdout, text, 'decompress --long=28 of gzip')
})

test('--json: one object per file (an array for several), on stdout, or on stderr when stdout carries the data', () => {
  rmSync(join(dir, 'text.txt.gz'), { force: true })
  const made = sluice(['compress', '--json', '-F', 'gz', 'text.txt'])
  ok(made, 'compress --json')
  const one = JSON.parse(made.stdout.toString())
  assert.equal(one, { file: 'text.txt', output: 'text.txt.gz', format: 'gzip', level: 6, inputBytes: text.length, outputBytes: readFileSync(join(dir, 'text.txt.gz')).length, ratio: one.ratio, ok: true })
  assert.is(one.ratio, Math.round((text.length / one.outputBytes) * 10000) / 10000)
  const piped = sluice(['compress', '--json', '-9', '-c'], text)
  ok(piped, 'compress --json -c')
  const report = JSON.parse(piped.stderr)
  assert.is(report.output, null)
  assert.is(report.outputBytes, piped.stdout.length)
  assert.is(report.level, 9)
  writeFileSync(join(dir, 'broken.gz'), Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]))
  const tested = sluice(['test', '--json', 'text.txt.gz', 'broken.gz'])
  assert.is(tested.status, 1)
  const [good, bad] = JSON.parse(tested.stdout.toString())
  assert.equal(good, { file: 'text.txt.gz', format: 'gzip', inputBytes: one.outputBytes, outputBytes: text.length, ratio: one.ratio, ok: true })
  assert.is(bad.file, 'broken.gz')
  assert.is(bad.ok, false)
  assert.type(bad.code, 'string')
  const back = sluice(['decompress', '--json', '-c', 'text.txt.gz'])
  ok(back, 'decompress --json -c')
  assert.is(JSON.parse(back.stderr).outputBytes, text.length)
  same(back.stdout, text, 'decompress -c with --json')
})

test('one ratio: -v and inspect state original / compressed the same way for the same file', () => {
  rmSync(join(dir, 'text.txt.zst'), { force: true })
  const v = sluice(['compress', '-v', 'text.txt'])
  ok(v, 'compress -v')
  const size = readFileSync(join(dir, 'text.txt.zst')).length
  const expected = `×${(text.length / size).toFixed(3)} (${((size / text.length) * 100).toFixed(2)}%)`
  assert.ok(v.stderr.includes(`ratio ${expected}`), `${v.stderr} has ${expected}`)
  assert.ok(sluice(['inspect', 'text.txt.zst']).stdout.toString().includes(`ratio ${expected}`), 'inspect')
  assert.ok(sluice(['test', '-v', 'text.txt.zst']).stderr.includes(`ratio ${expected}`), 'test -v')
})

/**
 * python-snappy's framing format through Debian's python3 (test/snappy.test.ts says why
 * python3-crc32c's function replaces its CRC-32C helper).
 */
function python(mode: 'compress' | 'decompress', input: Uint8Array): Uint8Array {
  const call = mode === 'compress' ? 's.StreamCompressor().add_chunk(d)' : 's.StreamDecompressor().decompress(d)'
  const r = spawnSync('/usr/bin/python3', ['-c', `import sys, crc32c, snappy.snappy as s\ns._crc32c = crc32c.crc32c\nd = sys.stdin.buffer.read()\nsys.stdout.buffer.write(${call})`], { input, maxBuffer: 1 << 28 })
  if (r.error || r.status !== 0) throw new Error(`python-snappy ${mode} failed: ${r.error?.message ?? r.stderr.toString()}`)
  return new Uint8Array(r.stdout)
}
const pythonSnappy = spawnSync('/usr/bin/python3', ['-c', 'import snappy, crc32c']).status === 0
if (!pythonSnappy) console.log('# skipped: .sz files against python-snappy: /usr/bin/python3 lacks python3-snappy or python3-crc32c (Debian packages)')

;(pythonSnappy ? test : test.skip)('Snappy: compress writes FILE.sz (the framing format python-snappy and snzip read); decompress finds it by the suffix', () => {
  rmSync(join(dir, 'text.txt.sz'), { force: true })
  ok(sluice(['compress', '-F', 'snappy', 'text.txt']), 'compress -F snappy')
  same(python('decompress', readFileSync(join(dir, 'text.txt.sz'))), text, 'python-snappy decoding ours')
  writeFileSync(join(dir, 'theirs.sz'), python('compress', text))
  rmSync(join(dir, 'theirs'), { force: true })
  ok(sluice(['decompress', 'theirs.sz']), 'decompress theirs.sz')
  same(readFileSync(join(dir, 'theirs')), text, 'ours decoding python-snappy')
  ok(sluice(['compress', '-F', 'sz', '-c', 'text.txt']), '-F sz')
})

test('SIGHUP, SIGINT and SIGTERM remove the temporary output and leave no output file', async () => {
  // 36 MB at level 19: seconds of work, so the signal arrives mid-file.
  writeFileSync(join(dir, 'big.txt'), Buffer.concat(Array.from({ length: 12 }, () => text)))
  for (const [signal, number] of [['SIGHUP', 1], ['SIGINT', 2], ['SIGTERM', 15]] as const) {
    rmSync(join(dir, 'big.txt.zst'), { force: true })
    const child = spawn(process.execPath, ['--import', TSX, MAIN, 'compress', '-19', '-q', 'big.txt'], { cwd: dir, stdio: 'ignore' })
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const temporaries = () => readdirSync(dir).filter((f) => f.includes('.sluice-'))
    for (let i = 0; i < 600 && temporaries().length === 0; i++) await new Promise((r) => setTimeout(r, 50))
    assert.is(temporaries().length, 1, `${signal}: the temporary file appeared`)
    child.kill(signal)
    assert.is(await exited, 128 + number, `${signal}: exit status 128 + ${number}`)
    assert.equal(temporaries(), [], `${signal}: no temporary file left`)
    assert.not.ok(existsSync(join(dir, 'big.txt.zst')), `${signal}: no output file`)
  }
  rmSync(join(dir, 'big.txt'))
})

test.after(() => rmSync(dir, { recursive: true, force: true }))
test.run()
