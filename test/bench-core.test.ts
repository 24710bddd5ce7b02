/**
 * `sluice bench`'s measuring core (adapters/bench/), in this process: the Pareto fronts,
 * the grid, the encoder plan compress and bench share, one measured row against the
 * library's `encode()`, the ratio and CSV forms, and the command line's new options
 * (adapters/node/cli/args.ts). The command itself, against `sluice compress` and the
 * reference CLIs, is in cli-bench.test.ts and cli-options.test.ts.
 */
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { encode } from '../index.js'
import { encoderOptions, decoderOptions, SettingsError } from '../adapters/bench/compress-plan.js'
import { DEFAULT_GRID, gridOf } from '../adapters/bench/grid.js'
import { measureRow } from '../adapters/bench/measure.js'
import { markPareto, paretoFront } from '../adapters/bench/pareto.js'
import { formatRatio, ratioOf } from '../lib/ratio.js'
import { CSV_COLUMNS, toCsv, type BenchRow } from '../adapters/bench/report.js'
import { parseArgs, parseSize, UsageError } from '../adapters/node/cli/args.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'

test('paretoFront: a row is kept unless another is at least as good on both and better on one; ties stay', () => {
  const rows = [
    { name: 'fast', x: 2, y: 500 },
    { name: 'dense', x: 9, y: 2 },
    { name: 'middle', x: 5, y: 100 },
    { name: 'dominated', x: 4, y: 90 }, // middle beats it on both
    { name: 'tie-a', x: 3, y: 300 },
    { name: 'tie-b', x: 3, y: 300 },
    { name: 'same-speed-worse', x: 1, y: 500 }, // fast: same speed, better ratio
  ]
  const front = paretoFront(rows, (r) => r.x, (r) => r.y)
  assert.equal(rows.filter((_, i) => front[i]).map((r) => r.name), ['fast', 'dense', 'middle', 'tie-a', 'tie-b'])
  const marked = markPareto([
    { ratio: 2, encodeMBps: 500, decodeMBps: 10 },
    { ratio: 3, encodeMBps: 100, decodeMBps: 900 },
    { ratio: 1.5, encodeMBps: 50, decodeMBps: 20 },
  ])
  assert.equal(marked.map((r) => [r.paretoEncode, r.paretoDecode, r.pareto]), [
    [true, false, true],
    [true, true, true],
    [false, false, false],
  ])
})

test('gridOf: the default grid; levels out of a format\'s range left out with a note; one thread for formats without blocks', () => {
  const all = gridOf()
  assert.equal(all.notes, [])
  assert.equal(all.specs.map((s) => `${s.format}-${s.level}`), Object.entries(DEFAULT_GRID).flatMap(([f, levels]) => levels!.map((l) => `${f}-${l}`)))
  const wide = gridOf(['gzip', 'zstd'], [1, 12, 19])
  assert.equal(wide.specs.map((s) => `${s.format}-${s.level}`), ['gzip-1', 'zstd-1', 'zstd-12', 'zstd-19'])
  assert.match(wide.notes.join('\n'), /gzip: levels 12, 19 left out \(gzip has 0 to 9\)/)
  const threaded = gridOf(['zstd', 'brotli'], [3], [1, 2])
  assert.equal(threaded.specs.map((s) => `${s.format}-${s.level}-T${s.threads}`), ['zstd-3-T1', 'zstd-3-T2', 'brotli-3-T1'])
  assert.match(threaded.notes.join('\n'), /brotli: no independent blocks, runs on one thread/)
  assert.equal(gridOf(['deflate']).specs.map((s) => s.level), [1, 6, 9])
})

test('encoderOptions: the content size where one frame holds the input; block mode, seekable and --long as the library takes them', () => {
  assert.equal(encoderOptions('zstd', { level: 3 }, 1000).options, { level: 3, contentSize: 1000 })
  assert.equal(encoderOptions('zstd', { level: 3 }).options, { level: 3 }, 'a pipe: size unknown')
  assert.equal(encoderOptions('lz4', {}, 5).options, { contentSize: 5 })
  assert.equal(encoderOptions('gzip', { level: 9 }, 5).options, { level: 9 })
  // zstd in block mode and seekable archives write each frame's own size.
  assert.equal(encoderOptions('zstd', { threads: 2 }, 5).options, { threads: 2 })
  assert.equal(encoderOptions('zstd', { blockSize: 1 << 20 }, 5).options, { blockSize: 1 << 20 })
  assert.equal(encoderOptions('zstd', { seekable: true, frameSize: 4096 }, 5).options, { seekable: true, frameSize: 4096 })
  assert.equal(encoderOptions('zstd', { long: true }, 5).options, { long: true, contentSize: 5 })
  assert.equal(encoderOptions('zstd', { long: 28 }).options, { long: true, windowLog: 28 })
  const brotli = encoderOptions('brotli', { threads: 'auto' })
  assert.equal(brotli.options, {})
  assert.match(brotli.notes[0]!, /brotli has no independent blocks: -T 0 ignored/)
  assert.throws(() => encoderOptions('gzip', { seekable: true }), (e: unknown) => e instanceof SettingsError && /--seekable is for zstd, not gzip/.test(e.message))
  assert.throws(() => encoderOptions('zstd', { frameSize: 4096 }), /--frame-size is for seekable archives/)
  assert.throws(() => encoderOptions('lz4', { long: true }), /--long is for zstd/)
  assert.equal(decoderOptions('zstd', { long: 28, threads: 2 }), { format: 'zstd', threads: 2, maxWindowLog: 28 })
  assert.equal(decoderOptions(undefined, { long: true }), {}, '--long (27) is the decoder default already')
  assert.equal(decoderOptions(undefined, { long: 30 }), { maxWindowLog: 30 }, 'a detected format: zstd takes it')
  assert.equal(decoderOptions('gzip', { long: 30 }), { format: 'gzip' }, 'gzip has no window to accept')
})

test('measureRow: sizes, ratio and speeds of one row; the bytes are encode()\'s where the stream and encode() agree (gzip, LZ4 with its content size)', async () => {
  const input = filesCorpus(join(root, 'node_modules/typescript/lib'), 300_000, /\.d\.ts$/)
  let readings = 0
  let last: [number, number] = [0, 0]
  for (const [format, level, same] of [
    ['gzip', 6, await encode('gzip', input, { level: 6 })],
    ['lz4', 1, await encode('lz4', input, { contentSize: input.length })],
  ] as const) {
    const row = await measureRow(input, { format, level, threads: 1 }, {
      rounds: 2,
      minRoundSeconds: 0.01,
      memory: () => (readings++, 1000 + readings),
      onProgress: (done, total) => (last = [done, total]),
    })
    assert.is(row.outputBytes, same.length, `${format}: bench's size is encode()'s`)
    assert.is(row.inputBytes, input.length)
    assert.is(row.ratio, ratioOf(input.length, same.length))
    assert.is(row.rounds, 2)
    assert.ok(row.encodeMBps > 0 && row.encodeMBpsMin <= row.encodeMBps && row.encodeMBps <= row.encodeMBpsMax, JSON.stringify(row))
    assert.ok(row.decodeMBps > 0 && row.decodeMBpsMin <= row.decodeMBps && row.decodeMBps <= row.decodeMBpsMax, JSON.stringify(row))
    assert.ok(row.encodePasses >= 1 && row.decodePasses >= 1)
    // The fake probe rises by one per reading: the peak is the readings after the baseline.
    assert.ok(typeof row.peakMemoryBytes === 'number' && row.peakMemoryBytes > 0)
    assert.is(last[0], last[1], 'the last progress report is complete')
  }
  const none = await measureRow(input.subarray(0, 10_000), { format: 'snappy', level: 1, threads: 1 }, { rounds: 1, minRoundSeconds: 0 })
  assert.is(none.peakMemoryBytes, null, 'no probe, no memory figure')
  const refused = await measureRow(input, { format: 'zstd', level: 3, threads: 1 }, { rounds: 0 }).then(() => null, (e: unknown) => e)
  assert.instance(refused, RangeError)
  assert.match((refused as Error).message, /rounds must be a whole number from 1, got 0/)
})

test('ratio: original / compressed with the percent of the original; CSV fields quoted as RFC 4180 says', () => {
  assert.is(ratioOf(1000, 351), 2.849)
  assert.is(ratioOf(1000, 0), null)
  assert.is(ratioOf(null, 10), null)
  assert.is(formatRatio(1000, 351), '×2.849 (35.10%)')
  assert.is(formatRatio(10_000, 10), '×1000.00 (0.10%)')
  assert.is(formatRatio(undefined, 10), 'unknown')
  const row = { file: 'a "quoted", file.txt', format: 'zstd', level: 3, threads: 'auto', inputBytes: 10, outputBytes: 5, ratio: 2, encodeMBps: 1, encodeMBpsMin: 1, encodeMBpsMax: 1, decodeMBps: 2, decodeMBpsMin: 2, decodeMBpsMax: 2, rounds: 3, encodePasses: 1, decodePasses: 1, peakMemoryBytes: null, pareto: true, paretoEncode: true, paretoDecode: false } as BenchRow
  const [header, line, end] = toCsv([row]).split('\r\n')
  assert.is(header, CSV_COLUMNS.join(','))
  assert.is(line, '"a ""quoted"", file.txt",zstd,3,auto,10,5,2,1,1,1,2,2,2,3,1,1,,true,true,false')
  assert.is(end, '')
})

test('args: -T (0 is auto), --threads lists, sizes with K/M, --long and --long=N, --levels ranges, bench', () => {
  assert.equal(parseArgs(['compress', '-T0', 'f']).threads, ['auto'])
  assert.equal(parseArgs(['compress', '-T', '2', 'f']).threads, [2])
  assert.equal(parseArgs(['compress', '-19T2', 'f']).threads, [2])
  assert.equal(parseArgs(['bench', '--threads=1,2,auto', 'f']).threads, [1, 2, 'auto'])
  assert.is(parseArgs(['compress', '--block-size=256K', 'f']).blockSize, 262144)
  assert.is(parseArgs(['compress', '--frame-size', '1MiB', '--seekable', 'f']).frameSize, 1 << 20)
  assert.is(parseSize('block-size', '65536'), 65536)
  assert.throws(() => parseSize('block-size', '1.5M'), (e: unknown) => e instanceof UsageError)
  const long = parseArgs(['compress', '--long', '28'])
  assert.is(long.long, true)
  assert.equal(long.files, ['28'], 'as zstd: --long N is --long and a file N')
  assert.is(parseArgs(['compress', '--long=30', 'f']).long, 30)
  assert.throws(() => parseArgs(['compress', '--long=x']), /--long=N takes a window log/)
  assert.equal(parseArgs(['b', '--levels=1-3,9', '--formats=zstd,gz', '--rounds=2', '--csv', 'f']), {
    ...parseArgs(['bench', 'f']),
    levels: [1, 2, 3, 9],
    formats: ['zstd', 'gz'],
    rounds: 2,
    csv: true,
  })
  assert.throws(() => parseArgs(['bench', '--levels=9-1']), /runs backwards/)
  assert.throws(() => parseArgs(['bench', '--rounds=0']), /--rounds takes a whole number from 1/)
  assert.throws(() => parseArgs(['compress', '-Tx']), /threads must be a whole number or auto/)
})

test.run()
