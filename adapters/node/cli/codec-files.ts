/**
 * `compress`, `decompress` and `test` over files and stdin/stdout, as gzip and zstd do
 * them: output goes to a temporary file beside the target and is renamed into place
 * only once complete (an error or Ctrl-C never leaves a truncated file), the input is
 * kept unless `--rm`, an existing output is not overwritten without `-f`, compressed
 * data is neither written to nor read from a terminal without `-f`, and the output
 * file gets the input's mode and times.
 */
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs'
import { chmod, lstat, readFile, rename, stat, unlink, utimes } from 'node:fs/promises'
import { fstatSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { Readable, Writable, type Duplex } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Format } from '../../../lib/codec.js'
import { decompress } from '../../../streams/decompress.js'
import { decodeStream } from '../../../streams/factories.js'
import { decodesInParallel } from '../../../streams/threads-decision.js'
import { nodeEncode } from '../streams.js'
import type { Args } from './args.js'
import { UsageError } from './args.js'
import { formatBytes, ProgressBar } from './progress-bar.js'
import { formatOfName, formatOfOption, suffixOf } from './suffixes.js'

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

/** Temporary files being written; removed on SIGINT/SIGTERM (see main.ts). */
export const pendingTemporaries = new Set<string>()

const STDIN = '-'

function formatOption(args: Args): Format | undefined {
  if (args.format === undefined) return undefined
  const format = formatOfOption(args.format)
  if (!format) throw new UsageError(`unknown format '${args.format}'`)
  return format
}

/** Runs compress/decompress/test over every input; returns the exit status. */
export async function runCodecCommand(args: Args, io: Io): Promise<Exit> {
  const format = formatOption(args)
  const files = args.files.length === 0 ? [STDIN] : args.files
  if (args.output !== undefined && files.length > 1) throw new UsageError('-o takes one input file')
  const dictionary = args.dictionary === undefined ? undefined : new Uint8Array(await readFile(args.dictionary)) as Uint8Array<ArrayBuffer>
  let exit: Exit = EXIT.OK
  for (const file of files) {
    try {
      await runOne(args, io, file, format, dictionary)
    } catch (error) {
      const name = file === STDIN ? 'stdin' : file
      if (error instanceof Warning) {
        if (!args.quiet) io.stderr.write(`sluice: ${name}: ${error.message}\n`)
        if (exit === EXIT.OK) exit = EXIT.WARNING
      } else {
        io.stderr.write(`sluice: ${name}: ${messageOf(error)}\n`)
        exit = EXIT.ERROR
      }
    }
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

async function runOne(args: Args, io: Io, file: string, forced: Format | undefined, dictionary: Uint8Array<ArrayBuffer> | undefined): Promise<void> {
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
  const source: Readable = fromStdin ? io.stdin : createReadStream(file)
  let transform: Duplex
  if (args.command === 'compress') {
    if (args.threads !== undefined) throw new UsageError('-T is for decompress and test')
    // zstd and LZ4 frames carry the content size when it is known, as their CLIs write it.
    const declared = size !== undefined && (plan.format === 'zstd' || plan.format === 'lz4') ? { contentSize: size } : {}
    transform = nodeEncode(plan.format!, { level: args.level, dictionary, onProgress, ...declared })
  } else {
    if (args.level !== undefined) throw new UsageError('a level is for compress')
    // -T: the format's parallel decoding stream (docs/threads.md) when the format is known
    // and has one; its progress is counted here, from the input fed.
    const threads = args.threads !== undefined && args.threads !== 1 && plan.format !== undefined && decodesInParallel(plan.format, { threads: args.threads, dictionary }) ? args.threads : undefined
    const pair = threads !== undefined ? decodeStream(plan.format!, { threads, dictionary }) : decompress({ format: plan.format, dictionary, onProgress })
    let fed = 0
    transform = Readable.fromWeb(pair.readable as import('node:stream/web').ReadableStream) as unknown as Duplex
    const writer = pair.writable.getWriter()
    // Feed the web pair from the Node source with backpressure; errors reach both sides.
    const feed = (async () => {
      try {
        for await (const chunk of source as AsyncIterable<Buffer>) {
          await writer.write(chunk as Uint8Array<ArrayBuffer>)
          fed += chunk.length
          if (threads !== undefined) onProgress?.({ bytesIn: fed, bytesOut: 0, ...(size !== undefined ? { totalIn: size } : {}) })
        }
        await writer.close()
      } catch (error) {
        await writer.abort(error).catch(() => undefined)
        throw error
      }
    })()
    feed.catch((error: unknown) => transform.destroy(error as Error))
  }
  const chain: NodeJS.ReadableStream[] = args.command === 'compress' ? [source, transform] : [transform]
  let outBytes = 0
  const counter = new Writable({
    write(chunk: Buffer, _e, cb) {
      outBytes += chunk.length
      cb()
    },
  })
  try {
    if (args.command === 'test') {
      await pipeline([...chain, counter] as unknown as [NodeJS.ReadableStream, NodeJS.WritableStream])
    } else if (plan.output === null) {
      await pipeline([...chain, countTo(io.stdout, (n) => (outBytes += n))] as unknown as [NodeJS.ReadableStream, NodeJS.WritableStream])
    } else {
      await writeAtomically(plan.output, chain, (n) => (outBytes += n))
      if (inputStat) {
        await chmod(plan.output, Number(inputStat.mode) & 0o7777)
        await utimes(plan.output, inputStat.atime, inputStat.mtime)
      }
    }
  } finally {
    bar?.clear()
    if (!fromStdin) (source as ReadStream).destroy()
  }
  if (plan.output !== null && args.remove && !fromStdin) await unlink(file)
  if (args.verbose) {
    const name = fromStdin ? 'stdin' : file
    if (args.command === 'test') io.stderr.write(`${name}: OK (${formatBytes(outBytes)})\n`)
    else {
      const inBytes = size ?? 0
      const [small, large] = args.command === 'compress' ? [outBytes, inBytes] : [inBytes, outBytes]
      const ratio = large > 0 ? ((1 - small / large) * 100).toFixed(1) : '0.0'
      io.stderr.write(`${name}: ${ratio}% (${formatBytes(inBytes)} => ${formatBytes(outBytes)}${plan.output ? `, ${plan.output}` : ''})\n`)
    }
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

/** Writes the chain's output to a temporary file beside `target`, renamed into place once complete. */
export async function writeAtomically(target: string, chain: NodeJS.ReadableStream[], count: (n: number) => void): Promise<void> {
  const temporary = join(dirname(target), `.${basename(target)}.sluice-${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`)
  pendingTemporaries.add(temporary)
  try {
    const out = createWriteStream(temporary, { flags: 'wx', mode: 0o600 })
    await pipeline([...chain, out] as unknown as [NodeJS.ReadableStream, NodeJS.WritableStream])
    count(out.bytesWritten)
    await rename(temporary, target)
  } catch (error) {
    await unlink(temporary).catch(() => undefined)
    throw error
  } finally {
    pendingTemporaries.delete(temporary)
  }
}
