/**
 * Parquet footer decode, in memory: ours (full, and selective: 10 columns without
 * statistics) against hyparquet `parquetMetadata`, parquet-wasm (parquet-rs, through
 * `readSchema`, which decodes the footer and converts the schema to Arrow),
 * @dsnp/parquetjs (its generated Thrift `FileMetaData.read`), and the floor: our Thrift
 * reader skipping every value of the footer, allocating nothing.
 *
 * Files are written by real writers, half float64 (DOUBLE), half utf8 (STRING)
 * columns, statistics on, uncompressed, and cached in `.tmp/parquet-bench/` (the writers
 * and the cache are in bench/_parquet.ts, shared with bench/parquet-cold.ts):
 * - parquet-wasm's `writeParquet` (parquet-rs), from apache-arrow tables, up to 10,000
 *   columns. It writes the Arrow schema into the footer too (`ARROW:schema`).
 * - hyparquet-writer for 100,000 columns (and 10,000, to compare the two writers on
 *   one width): parquet-wasm spends minutes writing that wide a file (most of it in
 *   garbage collection: 120 full collections for 5,000 columns), hyparquet-writer
 *   about 15 s. Its footers have no `ARROW:schema` blob (which the floor skips in one
 *   step), so ratios to the floor are higher on them than on parquet-wasm's.
 * Every decoder gets only the footer and its 8-byte trailer.
 *
 * Timing: every decoder runs in a process of its own (bench/parquet-decoders.ts), so
 * each pays for its own garbage only (in one shared process, the megabytes hyparquet
 * and parquetjs leave were collected during whatever ran next; and a forced collection
 * between samples does not help: its sweeping goes on in helper threads and lands in
 * the next sample). Interleaved rounds: each round takes one sample of every decoder
 * (a batch of calls of about 10 ms), one process at a time, in an order rotated from
 * round to round; every figure is the median over the rounds, and the ratios of ours
 * to the floor are medians of the per-round ratios. CPU time of the decoder's process
 * (`process.cpuUsage`: its GC helper threads included), not wall time: the machine is
 * shared.
 *
 * Run: node --import tsx bench/parquet.ts [--quick] [--only=100x1,10x1000] [--generate] [--ours] [--rounds=N] [--verbose]
 *   --quick: the three smallest files, fewer rounds; --only: files by key (columns x
 *   row groups, `-hw` for the hyparquet-writer file of 10,000 columns); --generate:
 *   write the files, measure nothing; --ours: only the floor and our decoders;
 *   --verbose: every sample. DECODER_FLAGS: Node flags for the decoder processes (for
 *   example `--no-allocation-site-pretenuring`, to see what V8's pretenuring costs).
 */
import { Decoder, fmt, footerLength, generate, median, type Spec } from './_parquet.js'

const quick = process.argv.includes('--quick')
const generateOnly = process.argv.includes('--generate')
const oursOnly = process.argv.includes('--ours')
const verbose = process.argv.includes('--verbose')
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',')
const roundsArg = process.argv.find((a) => a.startsWith('--rounds='))
const ROUNDS = roundsArg ? Number(roundsArg.slice('--rounds='.length)) : quick ? 7 : 15

const specs: Spec[] = [
  { key: '100x1', name: '100 cols', columns: 100, rowGroups: 1, writer: 'parquet-wasm' },
  { key: '1000x1', name: '1,000 cols', columns: 1000, rowGroups: 1, writer: 'parquet-wasm' },
  { key: '10000x1', name: '10,000 cols', columns: 10000, rowGroups: 1, writer: 'parquet-wasm' },
  { key: '10x1000', name: '10 cols x 1,000 rgs', columns: 10, rowGroups: 1000, writer: 'parquet-wasm' },
  { key: '10000x1-hw', name: '10,000 cols', columns: 10000, rowGroups: 1, writer: 'hyparquet-writer' },
  { key: '100000x1', name: '100,000 cols', columns: 100000, rowGroups: 1, writer: 'hyparquet-writer' },
]

/** The decoders, in the order of the table; each runs in its own process (bench/parquet-decoders.ts). */
const NAMES = ['floor', 'full', 'selective', 'hyparquet', 'parquet-wasm', 'parquetjs']
const PEERS = new Set(['hyparquet', 'parquet-wasm', 'parquetjs'])

const header =
  '| file (writer; footer bytes) | floor | ours full | ours selective | hyparquet | parquet-wasm | parquetjs | full/floor | sel/floor | hyparquet/ours | wasm/ours | parquetjs/ours |'
const chosen = only ? specs.filter((s) => only.includes(s.key)) : quick ? specs.slice(0, 3) : specs
const paths = chosen.map(generate)
if (!generateOnly) {
  const decoders = NAMES.filter((name) => !oursOnly || !PEERS.has(name)).map((name) => new Decoder(name))
  console.log(`# node ${process.version}; ${ROUNDS} interleaved rounds per file, each decoder in its own process; CPU ms per decode, medians`)
  console.log(header)
  console.log('|' + '---|'.repeat(12))
  for (let f = 0; f < chosen.length; f++) {
    const spec = chosen[f]!
    const columns = Array.from({ length: Math.min(10, spec.columns) }, (_, i) => `c${Math.floor((i * spec.columns) / 10)}`)
    // hyparquet and parquetjs take seconds on 100,000 columns: a few rounds, one call each.
    const big = spec.columns >= 100000
    for (const d of decoders) {
      d.failed = d.child.exitCode === null && d.child.signalCode === null ? null : d.failed
      d.samples = []
      await d.ask({ load: paths[f], columns })
      await d.ask({ calibrate: big && PEERS.has(d.name) ? 0 : quick ? 100 : 200, sampleMs: quick ? 5 : 10 })
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < decoders.length; k++) {
        const d = decoders[(round + k) % decoders.length]!
        if (big && PEERS.has(d.name) && round >= 3) continue
        const reply = await d.ask({ sample: true })
        if (typeof reply.ms === 'number') d.samples.push(reply.ms)
      }
    }
    const [floor, full, selective, hyp, pw, pj] = NAMES.map((name) => median(decoders.find((d) => d.name === name)?.samples ?? []))
    /** Median over the rounds of `d`'s sample / the floor's sample of the same round. */
    const perRound = (d: Decoder) => median(d.samples.map((s, i) => s / decoders[0]!.samples[i]!))
    const line = [
      `${spec.name} (${spec.writer}; ${footerLength(paths[f]!).toLocaleString('en')})`,
      ...[floor!, full!, selective!, hyp!, pw!, pj!].map(fmt),
      perRound(decoders[1]!).toFixed(2),
      perRound(decoders[2]!).toFixed(2),
      (hyp! / full!).toFixed(1),
      (pw! / full!).toFixed(1),
      (pj! / full!).toFixed(1),
    ]
    console.log(`| ${line.join(' | ')} |`)
    for (const d of decoders) if (d.failed !== null) console.log(`# ${spec.key}: ${d.name} failed: ${d.failed}`)
    if (verbose) for (const d of decoders) console.log(`# ${spec.key} ${d.name}: ${d.samples.map(fmt).join(' ')}`)
  }
  for (const d of decoders) d.child.kill()
  console.log(
    '# full/floor and sel/floor: medians of per-round ratios (targets <= 2 and <= 1.2); peers/ours: median peer / median ours full (higher is better for us)',
  )
}
