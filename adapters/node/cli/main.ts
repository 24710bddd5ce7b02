/**
 * `sluice`, the package's command-line tool (package.json `bin`; `npx sluice`):
 * compress, decompress, test and inspect files with the library's codecs, with the
 * command-line habits of gzip and zstd. Built by esbuild.config.mjs into
 * dist/bin/sluice.js (Node ESM with a shebang); run from source with
 * `node --import tsx adapters/node/cli/main.ts`.
 */
import { readFileSync } from 'node:fs'
import { parseArgs, UsageError, type Args } from './args.js'
import { EXIT, pendingTemporaries, runCodecCommand, type Exit, type Io } from './codec-files.js'
import { runBench } from './bench.js'
import { inspect, toJson, toText } from './inspect.js'
import { runIndex, runRange } from './gzip-ranges.js'
import { suffixTable } from './suffixes.js'
import { unlinkSync } from 'node:fs'

export const HELP = `Usage: sluice COMMAND [OPTIONS] [FILE...]

Commands:
  compress   FILE...      compress each FILE to FILE.SUFFIX (stdin to stdout without FILE)
  decompress FILE...      decompress each FILE.SUFFIX to FILE
  test       FILE...      decode and discard, as gzip -t: exit 0 if all are intact
  inspect    FILE|URL...  what the headers say: gzip header fields; zstd frames (sizes,
                          window, dictionary ID, checksum, as zstd -lv) and seek tables;
                          LZ4 frame flags; RFC 9842 dcz/dcb headers; Arrow IPC schema,
                          batches and body compression; Parquet schema, row groups,
                          codecs and statistics (a URL's Parquet footer is read by HTTP
                          range requests)
  bench      FILE...      formats x levels on your files: ratio, encode and decode MB/s,
                          peak memory, the Pareto-optimal rows marked
  index      FILE...      write the random-access index of a gzip, zlib or raw deflate
                          file (FILE.idx; a BGZF file's block list), docs/gzip-archives.md

Options:
  -F, --format=FMT   format (default for compress: zstd; for decompress: from the
                     suffix, else from the magic number; brotli needs .br or -F br)
  -1 ... -19, --level=N
                     compression level (gzip/zlib 0-9, brotli 0-11, zstd 1-19, lz4 1-12)
  -D FILE, --dictionary=FILE
                     dictionary (zstd trained or raw content, zlib, brotli raw; required
                     by dcz and dcb)
  -T N, --threads=N  compress in independent blocks on N workers (gzip, zlib, raw
                     deflate, zstd, lz4; 0 or auto: the machine's cores); the bytes
                     depend on --block-size only. decompress, test: decode on N
                     workers where the format splits: one gzip, zlib or raw deflate
                     stream, BGZF, zstd frames, LZ4 independent blocks (docs/threads.md)
  --block-size=SIZE  block mode's block size (e.g. 256K, 1M; LZ4: its frame's 64K,
                     256K, 1M or 4M)
  --seekable         zstd: a seekable archive (independent frames and a seek table)
  --frame-size=SIZE  a seekable archive's bytes per frame (default 1M)
  --long[=N]         zstd: long-distance matching, window log N (default 27); to
                     decompress a window above 27, give the same --long=N
  -c, --stdout       write to stdout and keep the input (several files are concatenated)
  -o FILE            write to FILE (one input)
  -f, --force        overwrite existing files; write compressed data to a terminal
  --rm               remove the input after success (it is kept by default, as zstd does)
  -k                 keep the input (the default; accepted for gzip users)
  -q, --quiet        no progress bar, no warnings
  -v, --verbose      report each file (sizes, ratio; test: OK)
  --json             print JSON (compress, decompress, test, inspect, bench): the
                     stable form for scripts; on stderr when stdout carries the data
  --offset=N, --length=N
                     decompress: write only N bytes of content from offset N (K, M, G
                     suffixes) of one gzip, zlib or raw deflate FILE or URL (read by
                     HTTP range requests), to stdout or -o FILE
  --index=IDX        decompress --offset: the file's index (sluice, indexed_gzip, gztool
                     or bgzip's .gzi); without it the index is built first (one full decode)
  --spacing=N        index: content bytes between access points (default 4M)
  index --format=IDX sluice (default, FILE.idx), indexed_gzip (FILE.gzidx), gztool
                     (FILE.gzi) or gzi (bgzip -i's, for BGZF: FILE.gzi)
  -h, --help         this text

Bench options:
  --formats=LIST     formats to run (default: gzip,zstd,brotli,lz4,snappy)
  --levels=LIST      levels for each format, e.g. 1,3,9 or 1-19 (default: a few per
                     format; levels outside a format's range are left out)
  -T LIST, --threads=LIST
                     thread counts, e.g. 1,2 (default 1)
  --rounds=N         timed rounds per row (default 3)
  --csv              print CSV instead of the table

A ratio is original size / compressed size (×2.85: 2.85 times smaller), with the
compressed size as a percent of the original beside it.

Without FILE, or with -, stdin is read and stdout written. Compressed data is not
written to (nor read from) a terminal without -f. Output is written to a temporary
file and renamed when complete: an error, Ctrl-C or a hangup never leaves a truncated
file. A progress bar (bytes, %, MB/s, ETA) is drawn on stderr when it is a terminal.

Formats and suffixes:
${suffixTable()}

Exit status (as gzip's): 0 success, 1 error, 2 warning (e.g. an output file already
exists and -f was not given, or an unknown suffix was ignored).
`

function version(): string {
  // dist/bin/sluice.js, or adapters/node/cli/main.ts when run from source.
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'sluice' && pkg.version) return pkg.version
    } catch {
      /* not there */
    }
  }
  return 'unknown'
}

async function runInspect(args: Args, io: Io): Promise<Exit> {
  if (args.files.length === 0) throw new UsageError('inspect needs a FILE or URL')
  let exit: Exit = EXIT.OK
  const reports = []
  for (const target of args.files) {
    try {
      const report = await inspect(target)
      if ('error' in report && typeof report.error === 'string') exit = EXIT.ERROR
      if (args.json) reports.push(report)
      else io.stdout.write(`${toText(report)}\n`)
    } catch (error) {
      io.stderr.write(`sluice: ${target}: ${error instanceof Error ? error.message : String(error)}\n`)
      exit = EXIT.ERROR
    }
  }
  if (args.json) io.stdout.write(`${reports.length === 1 && args.files.length === 1 ? toJson(reports[0]!) : `[${reports.map(toJson).join(',\n')}]`}\n`)
  return exit
}

/**
 * Runs the CLI with `argv` (without node and the script); resolves with the exit status.
 * `script`: the command's own file, when it runs as the command (bench runs each row in
 * a child process of it).
 */
export async function main(argv: readonly string[], io: Io = process, script?: string): Promise<Exit> {
  let args: Args
  try {
    args = parseArgs(argv)
  } catch (error) {
    io.stderr.write(`sluice: ${(error as Error).message}\nTry 'sluice --help'.\n`)
    return EXIT.ERROR
  }
  if (args.help || args.command === 'help') {
    if (args.files[0] === '--version') io.stdout.write(`sluice ${version()}\n`)
    else io.stdout.write(HELP)
    return EXIT.OK
  }
  try {
    if (args.command === 'inspect') return await runInspect(args, io)
    if (args.command === 'index') return await runIndex(args, io)
    if (args.command === 'decompress' && (args.offset !== undefined || args.length !== undefined || args.index !== undefined)) return await runRange(args, io)
    if (args.command === 'bench') return await runBench(args, io, script)
    return await runCodecCommand(args, io)
  } catch (error) {
    const usage = error instanceof UsageError ? "\nTry 'sluice --help'." : ''
    io.stderr.write(`sluice: ${(error as Error).message}${usage}\n`)
    return EXIT.ERROR
  }
}

/** Removes temporary outputs when interrupted or hung up, then exits as the signal would (128 + its number). */
function onSignal(signal: NodeJS.Signals, code: number): void {
  process.on(signal, () => {
    for (const file of pendingTemporaries) {
      try {
        unlinkSync(file)
      } catch {
        /* already gone */
      }
    }
    process.exit(128 + code)
  })
}

const invoked = process.argv[1] ?? ''
if (/(?:^|[\\/])(?:sluice(?:\.js)?|main\.ts)$/.test(invoked)) {
  onSignal('SIGHUP', 1)
  onSignal('SIGINT', 2)
  onSignal('SIGTERM', 15)
  // EPIPE on stdout (sluice decompress x.zst | head): stop quietly, as gzip does.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.OK)
    throw error
  })
  process.exitCode = await main(process.argv.slice(2), process, invoked)
}
