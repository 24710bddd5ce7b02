/**
 * `compress`, `decompress` and `test` over files and stdin/stdout, as gzip and zstd do
 * them: output goes to a temporary file beside the target and is renamed into place
 * only once complete (an error or a signal never leaves a truncated file), the input is
 * kept unless `--rm`, an existing output is not overwritten without `-f`, compressed
 * data is neither written to nor read from a terminal without `-f`, and the output
 * file gets the input's mode and times. The encoder and decoder streams, their options
 * and the size of the reads that feed them come from adapters/bench/compress-plan.ts,
 * which `sluice bench` measures through too.
 */
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs'
import { chmod, lstat, readFile, rename, stat, unlink, utimes } from 'node:fs/promises'
import { fstatSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Format } from '../../../lib/codec.js'
import { rowOf } from '../../../lib/formats.js'
import { compressPair, decoderOptions, decompressPair, encoderOptions, READ_BYTES, SettingsError, type CompressSettings } from '../../bench/compress-plan.js'
import { formatRatio, ratioOf } from '../../../lib/ratio.js'
import type { Args } from './args.js'
import { UsageError } from './args.js'
import { formatBytes } from '../../../lib/format-bytes.js'
import { ProgressBar } from './progress-bar.js'
import { formatOfName, suffixOf } from '../../../lib/suffixes.js'
import { formatOfOption } from './suffixes.js'

/** gzip's exit statuses: 0 ok, 1 error, 2 warning (gzip.c: OK, ERROR, WARNING). */
export const EXIT = Object.freeze({ OK: 0, ERROR: 1, WARNING: 2 } as const)
export type Exit = (typeof EXIT)[keyof typeof EXIT]

/** Where messages and the progress bar go (stderr), and what the command writes to (stdout). */
export interface Io {
  stdin: NodeJS.ReadStream
  stdout: NodeJS.WriteStream
  stderr: NodeJS.WriteStream
}

/** A per-file problem that is only a warning (exit 2), as gzip's "already exists" is. */
class Warning extends Error {}

/** Temporary files being written; removed on SIGINT, SIGTERM and SIGHUP (see main.ts). */
export const pendingTemporaries = new Set<string>()

const STDIN = '-'

function formatOption(args: Args): Format | undefined {
  if (args.format === undefined) return undefined
  const format = formatOfOption(args.format)
  if (!format) throw new UsageError(`unknown format '${args.format}'`)
  return format
}

/**
 * The encoding settings the command line gives (`-#`, `-T`, `--block-size`,
 * `--seekable`, `--frame-size`, `--long`, `-D`); `threads` is one value here.
 */
export function settingsOf(args: Args, dictionary?: Uint8Array<ArrayBuffer>): CompressSettings {
  if (args.threads !== undefined && args.threads.length !== 1) throw new UsageError(`-T takes one thread count for ${args.command} (a list is for bench)`)
  const settings: CompressSettings = {}
  if (args.level !== undefined) settings.level = args.level
  if (args.threads !== undefined) settings.threads = args.threads[0]!
  if (args.blockSize !== undefined) settings.blockSize = args.blockSize
  if (args.seekable) settings.seekable = true
  if (args.frameSize !== undefined) settings.frameSize = args.frameSize
  if (args.long !== undefined) settings.long = args.long
  if (dictionary !== undefined) settings.dictionary = dictionary
  return settings
}

/** One file's outcome, as `--json` prints it. */
export interface FileReport {
  file: string
  /** The file written; null for stdout (and for `test`, which writes nothing). */
  output?: string | null
  format?: Format | null
  /** compress: the level used (the format's default when none was given). */
  level?: number
  /** What was read and what was written (`test`: decoded), in bytes. */
  inputBytes?: number
  outputBytes?: number
  /** Uncompressed / compressed bytes (lib/ratio.ts). */
  ratio?: number | null
  ok: boolean
  /** Why the file failed (`ok: false`), and the `CodecError` code when there is one. */
  error?: string
  code?: string
  /** A warning (exit 2: e.g. the output exists), when that is all that happened. */
  warning?: string
}

/** Runs compress/decompress/test over every input; returns the exit status. */
export async function runCodecCommand(args: Args, io: Io): Promise<Exit> {
  const format = formatOption(args)
  const files = args.files.length === 0 ? [STDIN] : args.files
  if (args.output !== undefined && files.length > 1) throw new UsageError('-o takes one input file')
  if (args.command !== 'compress' && (args.seekable || args.frameSize !== undefined || args.blockSize !== undefined)) throw new UsageError('--seekable, --frame-size and --block-size are for compress')
  const dictionary = args.dictionary === undefined ? undefined : new Uint8Array(await readFile(args.dictionary)) as Uint8Array<ArrayBuffer>
  const settings = settingsOf(args, dictionary)
  let exit: Exit = EXIT.OK
  const reports: FileReport[] = []
  for (const file of files) {
    const name = file === STDIN ? 'stdin' : file
    try {
      reports.push(await runOne(args, io, file, format, settings))
    } catch (error) {
      if (error instanceof UsageError) throw error
      if (error instanceof Warning) {
        if (!args.quiet) io.stderr.write(`sluice: ${name}: ${error.message}\n`)
        if (exit === EXIT.OK) exit = EXIT.WARNING
        reports.push({ file: name, ok: true, warning: error.message })
      } else {
        io.stderr.write(`sluice: ${name}: ${messageOf(error)}\n`)
        exit = EXIT.ERROR
        const code = (error as { code?: unknown }).code
        reports.push({ file: name, ok: false, error: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) })
      }
    }
  }
  if (args.json) {
    // stdout carries the data with -c (or stdin to stdout): the report goes to stderr then.
    const dataOnStdout = args.command !== 'test' && reports.some((r) => r.output === null)
    const text = `${JSON.stringify(reports.length === 1 && files.length === 1 ? reports[0] : reports, null, 2)}\n`
    ;(dataOnStdout ? io.stderr : io.stdout).write(text)
  }
  return exit
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message
  }
  return String(error)
}

interface Plan {
  /** The output file, or null for stdout (or nowhere, for `test`). */
  output: string | null
  format: Format | undefined
}

async function runOne(args: Args, io: Io, file: string, forced: Format | undefined, settings: CompressSettings): Promise<FileReport> {
  const fromStdin = file === STDIN
  let size: number | undefined
  let inputStat: Awaited<ReturnType<typeof stat>> | undefined
  if (fromStdin) {
    // gzip: "compressed data not read from a terminal".
    if (args.command !== 'compress' && io.stdin.isTTY && !args.force) throw new Error('compressed data not read from a terminal. Use -f to force decompression.')
    try {
      const s = fstatSync(0)
      if (s.isFile()) size = s.size
    } catch {
      /* not a file: size unknown */
    }
  } else {
    inputStat = await stat(file)
    if (inputStat.isDirectory()) throw new Warning('is a directory -- ignored')
    if (!inputStat.isFile()) throw new Warning('is not a regular file -- ignored')
    size = inputStat.size
  }
  const plan = planOutput(args, file, forced)
  if (plan.output === null && args.command !== 'test') {
    // gzip: "compressed data not written to a terminal. Use -f to force compression."
    if (args.command === 'compress' && io.stdout.isTTY && !args.force) throw new Error('compressed data not written to a terminal. Use -f to force compression.')
  }
  if (plan.output !== null && !args.force && (await exists(plan.output))) throw new Warning(`${plan.output} already exists; not overwritten (use -f)`)

  const bar = !args.quiet && io.stderr.isTTY ? new ProgressBar(io.stderr, fromStdin ? 'stdin' : basename(file), size) : null
  const onProgress = bar?.update
  const countFed = args.command !== 'compress' && settings.threads !== undefined && settings.threads !== 1
  const source: Readable = fromStdin ? io.stdin : createReadStream(file, { highWaterMark: READ_BYTES })
  let pair: ReadableWritablePair<Uint8Array, BufferSource>
  try {
    if (args.command === 'compress') {
      const encoder = encoderOptions(plan.format!, settings, size)
      if (!args.quiet) for (const note of encoder.notes) io.stderr.write(`sluice: ${note}\n`)
      pair = compressPair(plan.format!, encoder, onProgress)
    } else {
      if (args.level !== undefined) throw new UsageError('a level is for compress')
      // -T: a decoder given onProgress decodes serially (it reports one serial decoder's
      // progress), so with threads the bar counts the input fed instead (below).
      pair = decompressPair(decoderOptions(plan.format, settings), countFed ? undefined : onProgress)
    }
  } catch (error) {
    if (!fromStdin) (source as ReadStream).destroy()
    throw error instanceof SettingsError ? new UsageError(error.message) : error
  }
  const transform = Readable.fromWeb(pair.readable as import('node:stream/web').ReadableStream)
  const writer = pair.writable.getWriter()
  let inBytes = 0
  // Feed the web pair from the Node source with backpressure; errors reach both sides.
  const feed = (async () => {
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        inBytes += chunk.length
        if (countFed) onProgress?.({ bytesIn: inBytes, bytesOut: 0, ...(size !== undefined ? { totalIn: size } : {}) })
        await writer.write(chunk as Uint8Array<ArrayBuffer>)
      }
      await writer.close()
    } catch (error) {
      await writer.abort(error).catch(() => undefined)
      throw error
    }
  })()
  feed.catch((error: unknown) => transform.destroy(error as Error))
  let outBytes = 0
  const counter = new Writable({
    write(chunk: Buffer, _e, cb) {
      outBytes += chunk.length
      cb()
    },
  })
  try {
    if (args.command === 'test') {
      await pipeline(transform, counter)
    } else if (plan.output === null) {
      await pipeline(transform, countTo(io.stdout, (n) => (outBytes += n)))
    } else {
      await writeAtomically(plan.output, transform, (n) => (outBytes += n))
      if (inputStat) {
        await chmod(plan.output, Number(inputStat.mode) & 0o7777)
        await utimes(plan.output, inputStat.atime, inputStat.mtime)
      }
    }
    await feed
  } finally {
    bar?.clear()
    if (!fromStdin) (source as ReadStream).destroy()
  }
  if (plan.output !== null && args.remove && !fromStdin) await unlink(file)
  const name = fromStdin ? 'stdin' : file
  const [original, compressed] = args.command === 'compress' ? [inBytes, outBytes] : [outBytes, inBytes]
  if (args.verbose && !args.json) {
    if (args.command === 'test') io.stderr.write(`${name}: OK (${formatBytes(outBytes)}, ratio ${formatRatio(original, compressed)})\n`)
    else io.stderr.write(`${name}: ${formatBytes(inBytes)} => ${formatBytes(outBytes)}, ratio ${formatRatio(original, compressed)}${plan.output ? `, ${plan.output}` : ''}\n`)
  }
  return {
    file: name,
    ...(args.command === 'test' ? {} : { output: plan.output }),
    format: plan.format ?? null,
    ...(args.command === 'compress' ? { level: settings.level ?? rowOf(plan.format!).levels[2] } : {}),
    inputBytes: inBytes,
    outputBytes: outBytes,
    ratio: ratioOf(original, compressed),
    ok: true,
  }
}

function planOutput(args: Args, file: string, forced: Format | undefined): Plan {
  const fromStdin = file === STDIN
  if (args.command === 'compress') {
    const format = forced ?? 'zstd'
    if (args.stdout || (fromStdin && args.output === undefined)) return { output: null, format }
    if (args.output !== undefined) return { output: args.output, format }
    const suffix = suffixOf(format)
    if (suffix === null) throw new UsageError(`${format} has no file suffix: write with -c or -o FILE`)
    if (file.toLowerCase().endsWith(suffix)) throw new Warning(`already has ${suffix} suffix -- unchanged`)
    return { output: file + suffix, format }
  }
  // decompress, test: --format, else the suffix, else the magic (decompress()).
  const named = fromStdin ? null : formatOfName(file)
  const format = forced ?? named?.format
  if (args.command === 'test' || args.stdout || (fromStdin && args.output === undefined)) return { output: null, format }
  if (args.output !== undefined) return { output: args.output, format }
  if (!named) throw new Warning('unknown suffix -- ignored (use -F FMT with -c or -o FILE)')
  return { output: named.stem, format }
}

/** Whether `path` exists (a dangling link too). */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch {
    return false
  }
}

/** A Writable that forwards to `out` (stdout) with its backpressure, counting, and never ends it. */
function countTo(out: NodeJS.WriteStream, count: (n: number) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _e, cb) {
      count(chunk.length)
      if (out.write(chunk)) cb()
      else out.once('drain', () => cb())
    },
    final(cb) {
      cb()
    },
  })
}

/** Writes `data` to a temporary file beside `target`, renamed into place once complete. */
export async function writeAtomically(target: string, data: Readable, count: (n: number) => void): Promise<void> {
  const temporary = join(dirname(target), `.${basename(target)}.sluice-${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`)
  pendingTemporaries.add(temporary)
  try {
    const out = createWriteStream(temporary, { flags: 'wx', mode: 0o600 })
    await pipeline(data, out)
    count(out.bytesWritten)
    await rename(temporary, target)
  } catch (error) {
    await unlink(temporary).catch(() => undefined)
    throw error
  } finally {
    pendingTemporaries.delete(temporary)
  }
}
