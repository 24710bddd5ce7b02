/**
 * The `sluice` command (adapters/node/cli), run as users run it: a child process per
 * call, from source (`node --import tsx`), and once as the built dist/bin/sluice.js.
 * Oracles: the gzip, zstd, lz4 and brotli CLIs (each direction of every round trip),
 * `zstd -lv` and `lz4 --list` for inspect, apache-arrow and hyparquet for the Arrow and
 * Parquet fixtures, and a real terminal (`script`) for the progress bar and the
 * terminal refusal. Missing tools and fixtures skip their cases with the reason.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { filesCorpus } from './_corpus.js'
import { fixture, root } from './_fixtures.js'
import { hasCli, requireCli } from './_cli.js'
import { listen, rangeServer } from './_http.js'
import { decodeGzipIndex, encodeGzipIndex, gzipIndex, gzipIndexFileFormat } from '../index.js'
import { gzipSync } from 'node:zlib'
import { MAIN, shIn, SLUICE_SH, sluiceIn, TSX, type Run } from './_sluice.js'

const dir = mkdtempSync(join(tmpdir(), 'sluice-cli-test-'))
/** Real text: TypeScript's declarations, 2 MB. */
const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 2_000_000, /\.d\.ts$/)
const textFile = join(dir, 'text.txt')
writeFileSync(textFile, text)

/** Runs `sluice ARGS` in `dir`, with `input` on stdin. */
const sluice = (args: readonly string[], input?: Uint8Array, env: Record<string, string> = {}): Run => sluiceIn(dir, args, input, env)

/** Runs `sluice ARGS` in `dir` asynchronously: for a server that runs in this process. */
function sluiceAsync(args: readonly string[]): Promise<Run> {
  return new Promise<Run>((resolve) => {
    const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd: dir })
    const out: Buffer[] = []
    let err = ''
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => (err += c))
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(out), stderr: err }))
  })
}

/** Runs a shell command line in `dir`. */
const sh = (command: string, input?: Uint8Array): Run => shIn(dir, command, input)

const fresh = (name: string): string => {
  const path = join(dir, name)
  rmSync(path, { force: true })
  return path
}
const same = (a: Uint8Array, b: Uint8Array, what: string) => assert.ok(Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0, `${what}: contents differ (${a.length} vs ${b.length} bytes)`)
/** No temporary files left beside the outputs. */
const noTemporaries = () => assert.equal(readdirSync(dir).filter((f) => f.includes('.sluice-')), [])

// Each reference tool: how it compresses a file to stdout, and decompresses stdin.
const REFERENCE = [
  { cli: 'gzip', format: 'gz', suffix: '.gz', compress: 'gzip -c -6', decompress: 'gzip -dc' },
  { cli: 'zstd', format: 'zst', suffix: '.zst', compress: 'zstd -q -c -3', decompress: 'zstd -q -dc' },
  { cli: 'lz4', format: 'lz4', suffix: '.lz4', compress: 'lz4 -q -c', decompress: 'lz4 -q -dc' },
  { cli: 'brotli', format: 'br', suffix: '.br', compress: 'brotli -c -q 5', decompress: 'brotli -dc' },
] as const

for (const ref of REFERENCE) {
  const present = requireCli(ref.cli, `${ref.cli} round trips`)
  ;(present ? test : test.skip)(`${ref.cli}: our files decode with ${ref.cli}, its files with ours (files and pipes)`, () => {
    // Ours -> theirs, file to file (format from -F, output name from the suffix).
    const ours = fresh(`text.txt${ref.suffix}`)
    const made = sluice(['compress', `-F${ref.format}`, 'text.txt'])
    assert.is(made.status, 0, made.stderr)
    assert.ok(existsSync(ours), 'output named with the suffix')
    assert.ok(existsSync(textFile), 'input kept by default')
    same(sh(`${ref.decompress} < '${ours}'`).stdout, text, `${ref.cli} decoding ours`)
    // Theirs -> ours, file to file (format from the suffix).
    const theirs = fresh(`theirs${ref.suffix}`)
    assert.is(sh(`${ref.compress} text.txt > '${theirs}'`).status, 0)
    fresh('theirs')
    const back = sluice(['decompress', `theirs${ref.suffix}`])
    assert.is(back.status, 0, back.stderr)
    same(readFileSync(join(dir, 'theirs')), text, `ours decoding ${ref.cli}`)
    // Pipes both ways: stdin to stdout.
    const piped = sluice(['compress', '-F', ref.format, '-c'], text)
    assert.is(piped.status, 0, piped.stderr)
    same(sh(ref.decompress, piped.stdout).stdout, text, `${ref.cli} decoding our stdout`)
    const fromPipe = sluice(['decompress', '-F', ref.format], sh(`${ref.compress} text.txt`).stdout)
    assert.is(fromPipe.status, 0, fromPipe.stderr)
    same(fromPipe.stdout, text, `ours decoding ${ref.cli} on stdin`)
    noTemporaries()
  })
}

;(requireCli('lz4', 'LZ4 HC levels against lz4 -N') ? test : test.skip)('compress -F lz4 -3 ... -12: the frames of lz4 -N -B4 -BI --content-size (byte for byte with lz4 1.9.4, within 1% otherwise), which lz4 decodes', () => {
  const version = /v(\d+\.\d+\.\d+)/.exec(sh('lz4 --version').stdout.toString())?.[1]
  // Our defaults are lz4's -B4 -BI (64 KiB independent blocks); the CLI declares the
  // content size of a file, as --content-size does.
  for (const level of [3, 9, 10, 12]) {
    const ours = sluice(['compress', '-F', 'lz4', `-${level}`, '-c', 'text.txt'])
    assert.is(ours.status, 0, ours.stderr)
    const theirs = sh(`lz4 -${level} -B4 -BI --content-size -q -c text.txt`).stdout
    const diff = (ours.stdout.length / theirs.length - 1) * 100
    assert.ok(Math.abs(diff) <= 1, `level ${level}: ${ours.stdout.length} bytes, lz4 -${level} ${theirs.length} (${diff.toFixed(2)}%)`)
    if (version === '1.9.4') same(ours.stdout, theirs, `level ${level} against lz4 ${version}`)
    same(sh('lz4 -q -dc', ours.stdout).stdout, text, `lz4 decoding our level ${level}`)
  }
})

;(hasCli('zstd') && hasCli('gzip') && hasCli('lz4') ? test : test.skip)('decompress finds the format by its magic when the name does not say', () => {
  for (const [tool, name] of [['zstd -q -c', 'a.bin'], ['gzip -c', 'b.bin'], ['lz4 -q -c', 'c.bin']] as const) {
    const input = sh(`${tool} text.txt`).stdout
    const r = sluice(['decompress', '-c'], input)
    assert.is(r.status, 0, `${tool}: ${r.stderr}`)
    same(r.stdout, text, `${tool} by magic (${name})`)
  }
})

test('levels: -1 … -19 and --level=N reach the encoder; a level out of range is an error', () => {
  const fast = sluice(['compress', '-1', '-c'], text)
  const best = sluice(['compress', '--level=19', '-c'], text)
  assert.is(fast.status, 0, fast.stderr)
  assert.is(best.status, 0, best.stderr)
  assert.ok(best.stdout.length < fast.stdout.length, `-19 (${best.stdout.length}) smaller than -1 (${fast.stdout.length})`)
  const bad = sluice(['compress', '-F', 'gz', '-12', '-c'], text)
  assert.is(bad.status, 1)
  assert.match(bad.stderr, /level must be an integer from 0 to 9/)
})

test('exit codes as gzip: 0 ok, 2 when the output exists (kept as it was), 1 for corrupt input and bad usage', () => {
  fresh('text.txt.zst')
  assert.is(sluice(['compress', 'text.txt']).status, 0)
  const before = readFileSync(join(dir, 'text.txt.zst'))
  writeFileSync(join(dir, 'text.txt.zst'), 'precious')
  const again = sluice(['compress', 'text.txt'])
  assert.is(again.status, 2, again.stderr)
  assert.match(again.stderr, /already exists; not overwritten/)
  assert.is(readFileSync(join(dir, 'text.txt.zst'), 'utf8'), 'precious')
  const forced = sluice(['compress', '-f', 'text.txt'])
  assert.is(forced.status, 0, forced.stderr)
  same(readFileSync(join(dir, 'text.txt.zst')), before, 'overwritten with -f')
  writeFileSync(join(dir, 'plain.data'), 'x')
  const unknown = sluice(['decompress', 'plain.data'])
  assert.is(unknown.status, 2)
  assert.match(unknown.stderr, /unknown suffix -- ignored/)
  assert.is(sluice(['frobnicate']).status, 1)
  assert.is(sluice(['compress', '--bogus']).status, 1)
  assert.is(sluice(['compress', '-F', 'nope', '-c'], text).status, 1)
  // A warning and an error in one run: the error wins.
  writeFileSync(join(dir, 'broken.zst'), Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00]))
  assert.is(sluice(['decompress', 'plain.data', 'broken.zst']).status, 1)
})

test('an error mid-stream leaves no output file and no temporary file', () => {
  const zst = sluice(['compress', '-c'], text).stdout
  writeFileSync(join(dir, 'cut.zst'), zst.subarray(0, zst.length >> 1))
  fresh('cut')
  const r = sluice(['decompress', 'cut.zst'])
  assert.is(r.status, 1)
  assert.match(r.stderr, /TRUNCATED|input ended/)
  assert.not.ok(existsSync(join(dir, 'cut')), 'no partial output')
  noTemporaries()
  // test (as gzip -t): the same verdicts, nothing written.
  assert.is(sluice(['test', 'cut.zst']).status, 1)
  writeFileSync(join(dir, 'whole.zst'), zst)
  const ok = sluice(['test', '-v', 'whole.zst'])
  assert.is(ok.status, 0, ok.stderr)
  assert.match(ok.stderr, /whole.zst: OK/)
})

test('--rm removes the input only after success; output keeps the input mode and mtime', () => {
  const input = join(dir, 'gone.txt')
  writeFileSync(input, text, { mode: 0o640 })
  utimesSync(input, new Date('2020-01-02T03:04:05Z'), new Date('2020-01-02T03:04:05Z'))
  fresh('gone.txt.zst')
  const r = sluice(['compress', '--rm', 'gone.txt'])
  assert.is(r.status, 0, r.stderr)
  assert.not.ok(existsSync(input))
  const st = statSync(join(dir, 'gone.txt.zst'))
  assert.is(st.mode & 0o777, 0o640)
  assert.is(st.mtime.toISOString(), '2020-01-02T03:04:05.000Z')
  writeFileSync(join(dir, 'bad.zst'), 'not zstd at all')
  assert.is(sluice(['decompress', '--rm', 'bad.zst']).status, 1)
  assert.ok(existsSync(join(dir, 'bad.zst')), 'input kept after a failure')
})

test('-D: a dictionary reaches the codec both ways (zstd raw content)', () => {
  writeFileSync(join(dir, 'dict'), text.subarray(0, 200_000))
  const body = text.subarray(1_000_000, 1_100_000)
  const withDict = sluice(['compress', '-D', 'dict', '-c'], body)
  const without = sluice(['compress', '-c'], body)
  assert.is(withDict.status, 0, withDict.stderr)
  const back = sluice(['decompress', '-D', 'dict', '-F', 'zst'], withDict.stdout)
  same(back.stdout, body, 'with the dictionary')
  const missing = sluice(['decompress', '-F', 'zst'], withDict.stdout)
  assert.is(missing.status, 1)
  if (hasCli('zstd')) same(sh(`zstd -q -dc -D dict`, withDict.stdout).stdout, body, 'zstd -D decodes ours')
  void without
})

const SCRIPT = requireCli('script', 'terminal cases (script from util-linux)')
/** Runs a command line with a terminal as stdin, stdout and stderr; returns what the terminal showed. */
function inTerminal(command: string): { status: number | null; screen: string } {
  const r = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: dir, encoding: 'utf8', env: { ...process.env, COLUMNS: '100' } })
  return { status: r.status, screen: r.stdout }
}
const cli = SLUICE_SH

;(SCRIPT ? test : test.skip)('refuses to write compressed data to a terminal without -f, as gzip does', () => {
  const r = inTerminal(`${cli} compress < text.txt`)
  assert.is(r.status, 1)
  assert.match(r.screen, /compressed data not written to a terminal\. Use -f/)
  const reading = inTerminal(`${cli} decompress`)
  assert.is(reading.status, 1)
  assert.match(reading.screen, /not read from a terminal/)
  if (hasCli('gzip')) assert.match(inTerminal('gzip < text.txt').screen, /compressed data not written to a terminal/)
})

;(SCRIPT ? test : test.skip)('a progress bar on a terminal stderr (%, MB/s, ETA), none with -q or when stderr is not a terminal', () => {
  // A large file, so that the bar is drawn before the end.
  const big = join(dir, 'big.txt')
  writeFileSync(big, Buffer.concat(Array.from({ length: 12 }, () => text)))
  fresh('big.txt.gz')
  const shown = inTerminal(`${cli} compress -F gz big.txt`)
  assert.is(shown.status, 0, shown.screen)
  assert.match(shown.screen, /\rbig\.txt\s+\d+%\s+[\d.]+ \w?i?B \/ 22\.\d+ MiB\s+[\d.]+ MB\/s/)
  assert.match(shown.screen, /\x1b\[K/)
  fresh('big.txt.gz')
  const quiet = inTerminal(`${cli} compress -q -F gz big.txt`)
  assert.is(quiet.status, 0)
  assert.is(quiet.screen, '')
  fresh('big.txt.gz')
  const redirected = inTerminal(`${cli} compress -F gz big.txt 2> stderr.txt`)
  assert.is(redirected.status, 0)
  assert.is(readFileSync(join(dir, 'stderr.txt'), 'utf8'), '')
  rmSync(big)
})

/** `inspect --json` of a file in `dir`. */
function inspectJson(target: string): Record<string, any> {
  const r = sluice(['inspect', '--json', target])
  assert.is(r.status, 0, r.stderr)
  return JSON.parse(r.stdout.toString())
}

;(hasCli('zstd') ? test : test.skip)('inspect: zstd frames as zstd -lv reports them', () => {
  for (const args of ['-q -f -19', '-q -f --no-check', '-q -f -D dict']) {
    fresh('lv.zst')
    assert.is(sh(`zstd ${args} text.txt -o lv.zst`).status, 0)
    const lv = sh('zstd -lv lv.zst').stdout.toString()
    const j = inspectJson('lv.zst')
    assert.is(j.kind, 'zstd')
    assert.is(j.zstdFrames, Number(/Zstandard Frames: (\d+)/.exec(lv)![1]))
    assert.is(j.frames[0].dictionaryId, Number(/DictID: (\d+)/.exec(lv)![1]))
    assert.is(j.frames[0].windowSize, Number(/Window Size: .*\((\d+) B\)/.exec(lv)![1]))
    assert.is(j.compressedSize, Number(/Compressed Size: .*\((\d+) B\)/.exec(lv)![1]))
    assert.is(j.decompressedSize, Number(/Decompressed Size: .*\((\d+) B\)/.exec(lv)![1]))
    const check = /Check: XXH64 ([0-9a-f]+)/.exec(lv)
    assert.is(j.frames[0].checksum, check ? check[1]!.padStart(8, '0') : null)
  }
  const human = sluice(['inspect', 'lv.zst']).stdout.toString()
  assert.match(human, /lv\.zst: zstd\n\s+frames: 1 zstd, 0 skippable/)
})

;(hasCli('lz4') ? test : test.skip)('inspect: LZ4 frame flags as lz4 --list reports them', () => {
  for (const args of ['-q -f', '-q -f -B4 --content-size', '-q -f -BD --no-frame-crc']) {
    fresh('l.lz4')
    assert.is(sh(`lz4 ${args} text.txt l.lz4`).status, 0)
    const list = sh('lz4 --list l.lz4').stdout.toString()
    const [, bs, dep] = /LZ4Frame\s+B(\d)([ID])/.exec(list)!
    const j = inspectJson('l.lz4')
    assert.is(j.kind, 'lz4')
    const f = j.frames[0]
    assert.is(f.blockMaxSize, [0, 0, 0, 0, 64, 256, 1024, 4096][Number(bs)]! * 1024)
    assert.is(f.flags.blockIndependence, dep === 'I')
    assert.is(f.flags.contentSize, args.includes('--content-size'))
    assert.is(f.flags.contentChecksum, !args.includes('--no-frame-crc'))
  }
})

;(hasCli('gzip') ? test : test.skip)('inspect: gzip header fields (name and mtime from gzip -N)', () => {
  utimesSync(textFile, new Date('2021-06-07T08:09:10Z'), new Date('2021-06-07T08:09:10Z'))
  fresh('g.gz')
  assert.is(sh('gzip -N -9 -c text.txt > g.gz').status, 0)
  const j = inspectJson('g.gz')
  assert.is(j.kind, 'gzip')
  assert.is(j.name, 'text.txt')
  assert.is(j.mtimeIso, '2021-06-07T08:09:10.000Z')
  assert.is(j.flags.name, true)
  assert.is(j.extraFlags, 2)
  assert.is(j.uncompressedSizeMod32, text.length)
  const ours = sluice(['compress', '-F', 'gz', '-c'], text)
  writeFileSync(join(dir, 'ours.gz'), ours.stdout)
  assert.is(inspectJson('ours.gz').uncompressedSizeMod32, text.length)
})

test('inspect: RFC 9842 dcz header names the dictionary SHA-256', async () => {
  const { createHash } = await import('node:crypto')
  const dictionary = text.subarray(0, 100_000)
  writeFileSync(join(dir, 'd.dict'), dictionary)
  const r = sluice(['compress', '-F', 'dcz', '-D', 'd.dict', '-o', 'x.dcz', 'text.txt', '-f'])
  assert.is(r.status, 0, r.stderr)
  const j = inspectJson('x.dcz')
  assert.is(j.kind, 'dcz')
  assert.is(j.dictionarySha256, createHash('sha256').update(dictionary).digest('hex'))
  assert.is(j.inner.kind, 'zstd')
  assert.is(j.inner.zstdFrames, 1)
  const back = sluice(['decompress', '-D', 'd.dict', '-c', 'x.dcz'])
  same(back.stdout, text, 'dcz round trip')
})

const arrowFile = fixture('arrow-testing', 'arrow-ipc-stream', 'integration', '2.0.0-compression', 'generated_zstd.arrow_file')
const arrowStream = fixture('arrow-testing', 'arrow-ipc-stream', 'integration', '2.0.0-compression', 'generated_lz4.stream')
if (!arrowFile || !existsSync(arrowFile)) console.log('# skipped: inspect Arrow: ../shared/fixtures/arrow-testing is absent')
;(arrowFile && existsSync(arrowFile) ? test : test.skip)('inspect: Arrow IPC schema, batches and body compression, against apache-arrow', async () => {
  const { tableFromIPC } = await import('apache-arrow')
  // apache-arrow decodes compressed bodies with the codecs registered with it.
  const { registerArrowCodecs } = await import('../adapters/arrow/index.js')
  await registerArrowCodecs()
  for (const [path, codec] of [[arrowFile!, 'ZSTD'], [arrowStream!, 'LZ4_FRAME']] as const) {
    const table = tableFromIPC(readFileSync(path))
    const j = inspectJson(path)
    assert.is(j.kind, path.endsWith('.stream') ? 'arrow-stream' : 'arrow-file')
    assert.equal(j.compression, [codec])
    assert.is(j.rows, table.numRows)
    assert.is(j.recordBatches, table.batches.length)
    assert.equal(j.schema.map((f: { name: string }) => f.name), table.schema.fields.map((f) => f.name))
    assert.equal(j.schema.map((f: { nullable: boolean }) => f.nullable), table.schema.fields.map((f) => f.nullable))
    assert.ok(j.uncompressedBodyBytes > 0)
  }
})

const parquetFile = fixture('parquet-testing', 'data', 'alltypes_plain.snappy.parquet')
const parquetZstd = fixture('parquet-testing', 'data', 'byte_stream_split.zstd.parquet')
if (!parquetFile || !existsSync(parquetFile)) console.log('# skipped: inspect Parquet: ../shared/fixtures/parquet-testing is absent')
;(parquetFile && existsSync(parquetFile) ? test : test.skip)('inspect: Parquet schema, row groups, codecs and statistics, against hyparquet; a URL by range requests', async () => {
  const { parquetMetadata } = await import('hyparquet')
  for (const path of [parquetFile!, parquetZstd!]) {
    const bytes = readFileSync(path)
    const meta = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
    const j = inspectJson(path)
    assert.is(j.kind, 'parquet')
    assert.is(j.rows, Number(meta.num_rows))
    assert.is(j.rowGroups.length, meta.row_groups.length)
    assert.equal(j.codecs.sort(), [...new Set(meta.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data!.codec)))].sort())
    assert.equal(j.columns.map((c: { path: string }) => c.path), meta.row_groups[0]!.columns.map((c) => c.meta_data!.path_in_schema.join('.')))
  }
  // Statistics summary: alltypes_plain has none; a file written with statistics does.
  const { parquetWriteBuffer } = await import('hyparquet-writer')
  const ids = Array.from({ length: 1000 }, (_, i) => i * 3 - 500)
  const written = new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'id', data: Int32Array.from(ids), type: 'INT32' }], rowGroupSize: 300 }))
  writeFileSync(join(dir, 'stats.parquet'), written)
  const stats = inspectJson('stats.parquet')
  assert.is(stats.rowGroups.length, 4)
  assert.is(stats.columns[0].min, -500)
  assert.is(stats.columns[0].max, 2497)
  // Over HTTP: a loopback server that serves ranges; the footer costs one range read.
  const requests: string[] = []
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.headers.range ?? ''}`)
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')
    if (req.method === 'HEAD' || !m) {
      res.writeHead(200, { 'content-length': written.length, 'accept-ranges': 'bytes' })
      res.end(req.method === 'HEAD' ? undefined : written)
      return
    }
    const [a, b] = [Number(m[1]), Math.min(Number(m[2]), written.length - 1)]
    res.writeHead(206, { 'content-length': b - a + 1, 'content-range': `bytes ${a}-${b}/${written.length}` })
    res.end(written.subarray(a, b + 1))
  })
  // No idle timeout, as test/_http.ts listen(): the CLI's fetch reuses kept-alive sockets.
  server.keepAliveTimeout = 0
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stats.parquet`
    const r = await sluiceAsync(['inspect', '--json', url])
    assert.is(r.status, 0, r.stderr)
    const remote = JSON.parse(r.stdout.toString())
    assert.equal({ ...remote, source: '', reads: 0 }, { ...stats, source: '', reads: 0 })
    assert.ok(requests.every((q) => q.startsWith('HEAD') || /bytes=\d+-\d+/.test(q)), requests.join(', '))
    assert.not.ok(requests.some((q) => q === 'GET '), 'never the whole file')
  } finally {
    server.closeAllConnections()
    server.close()
  }
})

test('index: FILE.idx by default, the foreign formats with --format; an existing index is kept (exit 2)', async () => {
  const gz = join(dir, 'ranged.txt.gz')
  writeFileSync(gz, gzipSync(text))
  for (const [format, name, kind] of [[undefined, 'ranged.txt.gz.idx', 'sluice'], ['gztool', 'ranged.txt.gzi', 'gztool'], ['indexed_gzip', 'ranged.txt.gz.gzidx', 'indexed_gzip']] as const) {
    fresh(name)
    const r = sluice(['index', '--spacing=256K', ...(format ? [`--format=${format}`] : []), 'ranged.txt.gz'])
    assert.is(r.status, 0, r.stderr)
    const bytes = new Uint8Array(readFileSync(join(dir, name)))
    assert.is(gzipIndexFileFormat(bytes), kind)
    assert.ok((await decodeGzipIndex(bytes, { compressedSize: statSync(gz).size })).points.length >= 6, `${kind}: points every 256 KiB`)
  }
  const again = sluice(['index', 'ranged.txt.gz'])
  assert.is(again.status, 2, again.stderr)
  assert.match(again.stderr, /already exists/)
  assert.is(sluice(['index', '--format=zip', 'ranged.txt.gz']).status, 1)
  noTemporaries()
})

test('decompress --offset --length: a range of a file, through its index or without one', () => {
  const gz = join(dir, 'ranged.txt.gz')
  writeFileSync(gz, gzipSync(text))
  fresh('ranged.txt.gz.idx')
  assert.is(sluice(['index', '--spacing=256K', 'ranged.txt.gz']).status, 0)
  const offset = 1_234_567
  for (const args of [['--index', 'ranged.txt.gz.idx'], []]) {
    const r = sluice(['decompress', 'ranged.txt.gz', `--offset=${offset}`, '--length=300000', ...args])
    assert.is(r.status, 0, r.stderr)
    same(r.stdout, text.subarray(offset, offset + 300_000), `range ${args.join(' ') || 'without an index'}`)
  }
  const out = fresh('range.out')
  assert.is(sluice(['decompress', 'ranged.txt.gz', '--offset=1M', '--index=ranged.txt.gz.idx', '-o', 'range.out']).status, 0)
  same(readFileSync(out), text.subarray(1 << 20), 'to the end, into -o FILE')
  assert.is(sluice(['decompress', 'ranged.txt.gz', `--offset=${text.length + 1}`, '--index=ranged.txt.gz.idx']).status, 1)
  noTemporaries()
})

test('decompress --offset of a URL: a HEAD, then one range request through the index', async () => {
  const body = new Uint8Array(gzipSync(text))
  writeFileSync(join(dir, 'served.idx'), await encodeGzipIndex(await gzipIndex(body, { spacing: 256 * 1024 })))
  const log: string[] = []
  const server = await listen(rangeServer({ body, etag: '"s1"' }, log))
  try {
    const offset = 1_500_000
    const r = await sluiceAsync(['decompress', `${server.url}/served.txt.gz`, `--offset=${offset}`, '--length=100000', '--index=served.idx'])
    assert.is(r.status, 0, r.stderr)
    same(r.stdout, text.subarray(offset, offset + 100_000), 'the range')
    assert.is(log.length, 2, log.join(', '))
    assert.match(log[1]!, /^GET bytes=\d+-\d+$/)
  } finally {
    await server.close()
  }
})

test('the built dist/bin/sluice.js runs with its shebang (esbuild.config.mjs buildCli)', async () => {
  const out = mkdtempSync(join(tmpdir(), 'sluice-cli-build-'))
  try {
    // @ts-ignore: plain ESM build script without types
    const { buildCli } = (await import('../esbuild.config.mjs')) as { buildCli(outdir: string): Promise<unknown> }
    await buildCli(join(out, 'bin'))
    const bin = join(out, 'bin', 'sluice.js')
    assert.ok(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n'))
    const r = spawnSync(bin, ['compress', '-F', 'br', '-c'], { input: text, maxBuffer: 1 << 28 })
    assert.is(r.status, 0, r.stderr?.toString())
    const back = spawnSync(bin, ['decompress', '-F', 'br', '-c'], { input: r.stdout, maxBuffer: 1 << 28 })
    same(back.stdout, text, 'built CLI round trip (brotli, a .wasm engine read from beside it)')
    const help = spawnSync(bin, ['--help'], { encoding: 'utf8' })
    assert.match(help.stdout, /Exit status \(as gzip's\): 0 success, 1 error, 2 warning/)
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
})

test.after(() => rmSync(dir, { recursive: true, force: true }))
test.run()
