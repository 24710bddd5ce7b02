/**
 * The CLI's random access into gzip files (docs/gzip-archives.md):
 * - `sluice index FILE` writes the index of a gzip, zlib or raw deflate file (or the
 *   `.gzi` of a BGZF one) beside it, in sluice's format or, with `--format`, in
 *   indexed_gzip's, gztool's or bgzip's;
 * - `sluice decompress FILE|URL --offset N --length N [--index IDX]` writes that range of
 *   the content to stdout (or `-o FILE`), reading a URL by HTTP range requests. Without
 *   `--index` the index is built first (the whole file is read and decoded once).
 */
import { chmod, readFile, stat } from 'node:fs/promises'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { RangeSource } from '../../../lib/range-source.js'
import { zlibHeaderAt } from '../../../lib/detect.js'
import { gzipIndex } from '../../../streams/gzip-index.js'
import { openGzipIndexed } from '../../../streams/gzip-indexed.js'
import { encodeGzipIndex, type GzipIndexFileFormat } from '../../../lib/gzip-index/index-files.js'
import type { GzipIndexFormat } from '../../../lib/gzip-index/gzip-index.js'
import { httpRangeSource } from '../../fetch/http-range-source.js'
import { fileRangeSource } from '../file-range-source.js'
import { UsageError, type Args } from './args.js'
import { EXIT, exists, writeAtomically, type Exit, type Io } from './codec-files.js'
import { formatOfName } from '../../../lib/suffixes.js'
import { formatOfOption } from './suffixes.js'
import { formatBytes } from '../../../lib/format-bytes.js'

const INDEX_FORMATS: readonly GzipIndexFileFormat[] = ['sluice', 'indexed_gzip', 'gztool', 'gzi']

/** Where `sluice index FILE` writes, per index format (each tool's own habit). */
function indexPath(file: string, format: GzipIndexFileFormat): string {
  switch (format) {
    case 'indexed_gzip':
      return `${file}.gzidx`
    case 'gztool':
      // gztool: file.gz -> file.gzi, any other name -> name.gzi.
      return /\.gz$/i.test(file) ? `${file.slice(0, -3)}.gzi` : `${file}.gzi`
    case 'gzi':
      return `${file}.gzi`
    default:
      return `${file}.idx`
  }
}

const isUrl = (target: string): boolean => /^https?:\/\//i.test(target)

/** A range source over a path or an http(s) URL, and how to close it. */
async function openSource(target: string): Promise<{ source: RangeSource; close(): Promise<void> }> {
  if (isUrl(target)) return { source: await httpRangeSource(target), close: async () => {} }
  const file = await fileRangeSource(target)
  return { source: file, close: () => file.close() }
}

/** gzip, zlib or raw deflate: `-F`, else the name's suffix, else the first bytes. */
async function deflateFormat(args: Args, target: string, source: RangeSource): Promise<GzipIndexFormat> {
  const named = args.format !== undefined ? formatOfOption(args.format) : formatOfName(target.replace(/[?#].*$/, ''))?.format
  if (named !== undefined && named !== null) {
    if (named !== 'gzip' && named !== 'deflate' && named !== 'deflate-raw') throw new UsageError(`random access is for gzip, zlib (deflate) and raw deflate files, not ${named}`)
    return named
  }
  if (args.format !== undefined) throw new UsageError(`unknown format '${args.format}'`)
  const head = await source.read(0, Math.min(3, source.size))
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip'
  if (zlibHeaderAt(head) === 'match') return 'deflate'
  throw new UsageError(`${target} starts with neither a gzip nor a zlib header; for raw deflate use -F deflate-raw`)
}

/** `sluice index FILE...`. */
export async function runIndex(args: Args, io: Io): Promise<Exit> {
  if (args.files.length === 0) throw new UsageError('index needs a FILE')
  const format = (args.format ?? 'sluice') as GzipIndexFileFormat
  if (!INDEX_FORMATS.includes(format)) throw new UsageError(`index --format must be ${INDEX_FORMATS.join(', ')}; got '${args.format}'`)
  if (args.output !== undefined && args.files.length > 1) throw new UsageError('-o takes one input file')
  if (args.level !== undefined || args.offset !== undefined || args.length !== undefined) throw new UsageError('index takes no level, --offset or --length')
  let exit: Exit = EXIT.OK
  for (const file of args.files) {
    try {
      const target = args.stdout ? null : (args.output ?? indexPath(file, format))
      if (target !== null && !args.force && (await exists(target))) {
        if (!args.quiet) io.stderr.write(`sluice: ${target} already exists; not overwritten (use -f)\n`)
        if (exit === EXIT.OK) exit = EXIT.WARNING
        continue
      }
      const { source, close } = await openSource(file)
      let bytes: Uint8Array
      try {
        const kind = await deflateFormat({ ...args, format: undefined }, file, source)
        const index = await gzipIndex(source, { format: kind, spacing: args.spacing })
        bytes = encodeGzipIndex(index, { format })
        if (args.verbose) io.stderr.write(`${file}: ${index.points.length} points, ${formatBytes(bytes.length)} (${((bytes.length / Math.max(1, index.compressedSize)) * 100).toFixed(2)}% of ${formatBytes(index.compressedSize)})${target ? `, ${target}` : ''}\n`)
      } finally {
        await close()
      }
      if (target === null) io.stdout.write(bytes)
      else await writeFile(target, file, Readable.from([bytes]))
    } catch (error) {
      if (error instanceof UsageError) throw error
      io.stderr.write(`sluice: ${file}: ${error instanceof Error ? error.message : String(error)}\n`)
      exit = EXIT.ERROR
    }
  }
  return exit
}

/** `sluice decompress FILE|URL --offset N [--length N] [--index IDX]`. */
export async function runRange(args: Args, io: Io): Promise<Exit> {
  if (args.files.length !== 1) throw new UsageError('--offset and --length read a range of one FILE or URL')
  if (args.level !== undefined) throw new UsageError('a level is for compress')
  const target = args.files[0]!
  const { source, close } = await openSource(target)
  try {
    const format = await deflateFormat(args, target, source)
    const index = args.index === undefined ? undefined : new Uint8Array(await readFile(args.index))
    const file = await openGzipIndexed(source, { index, format, spacing: args.spacing })
    try {
      const offset = args.offset ?? 0
      if (offset > file.size) throw new UsageError(`--offset ${offset} is past the end of the content (${file.size} bytes)`)
      const length = Math.min(args.length ?? file.size - offset, file.size - offset)
      const content = Readable.fromWeb(file.stream(offset, length) as import('node:stream/web').ReadableStream)
      if (args.output === undefined) {
        await pipeline(content, toStdout(io.stdout))
      } else {
        if (!args.force && (await exists(args.output))) throw new Error(`${args.output} already exists; not overwritten (use -f)`)
        await writeFile(args.output, target, content)
      }
      if (args.verbose) io.stderr.write(`${target}: ${formatBytes(length)} from offset ${offset} of ${formatBytes(file.size)}\n`)
    } finally {
      file.close()
    }
  } finally {
    await close()
  }
  return EXIT.OK
}

function toStdout(out: NodeJS.WriteStream): Writable {
  // stdout is not ended: other output may follow (and ending it closes the process's stdout).
  return new Writable({
    write(chunk: Buffer, _e, cb) {
      if (out.write(chunk)) cb()
      else out.once('drain', () => cb())
    },
  })
}

/** Writes `content` to `target` atomically (codec-files.ts), with the mode of the input file `from` (a URL's: as created). */
async function writeFile(target: string, from: string, content: Readable): Promise<void> {
  await writeAtomically(target, content, () => undefined)
  if (!isUrl(from)) await chmod(target, Number((await stat(from)).mode) & 0o7777)
}
