/**
 * The CLI's command line: a subcommand, then gzip- and zstd-style options in any order
 * among the file names. Short flags combine (`-cf`, `-19c`); a run of digits is a
 * level (`-1` … `-19`); `-F`, `-D`, `-o` and `-T` take the next word (or the rest of
 * their word: `-Fgzip`, `-T0`); long options take `--name=value` or `--name value`
 * (`--long` takes its number only as `--long=N`, as zstd's); `--` ends the options.
 * Mistakes throw `UsageError` (exit 1, like gzip's bad usage).
 */
import type { Threads } from '../../../streams/thread-options.js'
import { parseLevels } from '../../bench/grid.js'


/** A mistake on the command line; the message is shown with a pointer to `--help`. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export const COMMANDS = ['compress', 'decompress', 'test', 'inspect', 'index', 'bench', 'help'] as const
export type Command = (typeof COMMANDS)[number]

/** Short names for the commands, as the reference tools spell them. */
const COMMAND_ALIASES: Readonly<Record<string, Command>> = { c: 'compress', d: 'decompress', x: 'decompress', t: 'test', i: 'inspect', b: 'bench' }

export interface Args {
  command: Command
  files: string[]
  /** `--format` / `-F`: a format name or a suffix (`gz`, `zst`, `br`, `zz`, `lz4`). */
  format?: string
  level?: number
  /** `-D`: dictionary file. */
  dictionary?: string
  /** `-o`: output file (one input only). */
  output?: string
  /** `-c`: write to stdout, keep the input. */
  stdout: boolean
  /** `-f`: overwrite, write compressed data to a terminal. */
  force: boolean
  /** `--rm`: remove the input after success (it is kept by default, as zstd does). */
  remove: boolean
  /** `-q`: no progress bar, no warnings. */
  quiet: boolean
  /** `-v`: say what was done per file. */
  verbose: boolean
  /** `--json`: compress, test, inspect and bench print JSON. */
  json: boolean
  /** `decompress --offset`: the first content byte to write (random access, gzip-ranges.ts). */
  offset?: number
  /** `decompress --length`: how many content bytes to write. */
  length?: number
  /** `decompress --index`: the index file of a random access read. */
  index?: string
  /** `index --spacing` (and reads that build an index): content bytes between access points. */
  spacing?: number
  /** `bench --csv`. */
  csv: boolean
  /**
   * `-T N`, `--threads=N` (`0` is `'auto'`, as zstd's `-T0`); bench takes a list
   * (`--threads=1,2`), every other command one value.
   */
  threads?: Threads[]
  /** `--block-size=SIZE`: block mode's block size, in bytes. */
  blockSize?: number
  /** `--seekable`: a zstd seekable archive. */
  seekable: boolean
  /** `--frame-size=SIZE`: a seekable archive's bytes per frame. */
  frameSize?: number
  /** `--long` (true) or `--long=N` (the window log). */
  long?: true | number
  /** `bench --formats=LIST`. */
  formats?: string[]
  /** `bench --levels=LIST` (`1,3,9`, `1-9`). */
  levels?: number[]
  /** `bench --rounds=N`. */
  rounds?: number
  /** Internal: the row a `bench` child process runs (adapters/node/cli/bench.ts), as JSON. */
  benchRow?: string
  help: boolean
}

const LONG_FLAGS: Readonly<Record<string, keyof Args>> = {
  stdout: 'stdout',
  'to-stdout': 'stdout',
  force: 'force',
  rm: 'remove',
  quiet: 'quiet',
  verbose: 'verbose',
  json: 'json',
  csv: 'csv',
  seekable: 'seekable',
  help: 'help',
}

const LONG_VALUES = new Set(['format', 'level', 'dictionary', 'output', 'offset', 'length', 'index', 'spacing', 'threads', 'block-size', 'frame-size', 'formats', 'levels', 'rounds', 'row'])

function parseLevel(text: string): number {
  if (!/^\d{1,2}$/.test(text)) throw new UsageError(`level must be a whole number (e.g. -9 or --level=9), got '${text}'`)
  return Number(text)
}

/** `-T N`: a thread count, `auto`, or `0` for auto (zstd's `-T0`: "detect the number of physical cores"). */
function parseThreads(text: string): Threads[] {
  return text.split(',').map((part) => {
    const t = part.trim().toLowerCase()
    if (t === 'auto' || t === '0') return 'auto'
    if (!/^\d{1,4}$/.test(t)) throw new UsageError(`threads must be a whole number or auto (-T0), got '${text}'`)
    return Number(t)
  })
}

/** Binary multiples, as zstd's `--block-size=`/`-B#` and lz4's `-B` take them: `64K`, `1M`, `1MiB`, or bytes. */
const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 }

/** A size: `65536`, `64K`, `1M`, `1MiB` (K, M, G are 1024-based). */
export function parseSize(name: string, text: string): number {
  const m = /^(\d+)\s*([a-z]*)$/i.exec(text.trim())
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined
  const n = m && unit !== undefined ? Number(m[1]) * unit : NaN
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} takes a size such as 65536, 256K or 1M, got '${text}'`)
  return n
}

/** Parses `argv` (without `node` and the script). */
export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { command: 'help', files: [], stdout: false, force: false, remove: false, quiet: false, verbose: false, json: false, csv: false, seekable: false, help: false }
  let i = 0
  const first = argv[0]
  if (first === undefined || first === '-h' || first === '--help') {
    args.help = true
    return args
  }
  if (first === '--version' || first === '-V') {
    args.command = 'help'
    args.files = ['--version']
    return args
  }
  const command = (COMMANDS as readonly string[]).includes(first) ? (first as Command) : COMMAND_ALIASES[first]
  if (!command) throw new UsageError(`unknown command '${first}'; expected one of ${COMMANDS.join(', ')}`)
  args.command = command
  i = 1
  const setValue = (name: string, value: string | undefined): void => {
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`)
    if (name === 'format') args.format = value
    else if (name === 'level') args.level = parseLevel(value)
    else if (name === 'dictionary') args.dictionary = value
    else if (name === 'output') args.output = value
    else if (name === 'index') args.index = value
    else if (name === 'offset' || name === 'length' || name === 'spacing') args[name] = parseSize(name, value)
    else if (name === 'threads') args.threads = parseThreads(value)
    else if (name === 'block-size') args.blockSize = parseSize(name, value)
    else if (name === 'frame-size') args.frameSize = parseSize(name, value)
    else if (name === 'formats') args.formats = value.split(',').map((f) => f.trim()).filter((f) => f !== '')
    else if (name === 'levels') {
      try {
        args.levels = parseLevels(value)
      } catch (error) {
        throw new UsageError((error as Error).message)
      }
    }
    else if (name === 'rounds') {
      if (!/^\d{1,3}$/.test(value) || Number(value) < 1) throw new UsageError(`--rounds takes a whole number from 1, got '${value}'`)
      args.rounds = Number(value)
    } else if (name === 'row') args.benchRow = value
  }
  let options = true
  while (i < argv.length) {
    const word = argv[i++]!
    if (!options || word === '-' || !word.startsWith('-')) {
      args.files.push(word)
      continue
    }
    if (word === '--') {
      options = false
      continue
    }
    if (word.startsWith('--')) {
      const eq = word.indexOf('=')
      const name = word.slice(2, eq < 0 ? undefined : eq)
      if (name === 'long') {
        // zstd: `--long` or `--long=N` (a window log), never `--long N`.
        if (eq < 0) args.long = true
        else if (/^\d{1,2}$/.test(word.slice(eq + 1))) args.long = Number(word.slice(eq + 1))
        else throw new UsageError(`--long=N takes a window log (e.g. --long=27), got '${word}'`)
        continue
      }
      if (LONG_VALUES.has(name)) {
        setValue(name, eq < 0 ? argv[i++] : word.slice(eq + 1))
        continue
      }
      const flag = LONG_FLAGS[name]
      if (!flag || eq >= 0) throw new UsageError(`unknown option '${word}'`)
      ;(args as unknown as Record<string, boolean>)[flag] = true
      continue
    }
    // A cluster of short flags.
    for (let j = 1; j < word.length; j++) {
      const c = word[j]!
      if (c >= '0' && c <= '9') {
        let k = j
        while (k < word.length && word[k]! >= '0' && word[k]! <= '9') k++
        args.level = parseLevel(word.slice(j, k))
        j = k - 1
        continue
      }
      const takes = c === 'F' ? 'format' : c === 'D' ? 'dictionary' : c === 'o' ? 'output' : c === 'T' ? 'threads' : null
      if (takes) {
        const rest = word.slice(j + 1)
        setValue(takes, rest !== '' ? rest : argv[i++])
        break
      }
      switch (c) {
        case 'c': args.stdout = true; break
        case 'f': args.force = true; break
        case 'k': break // keep the input: the default
        case 'q': args.quiet = true; break
        case 'v': args.verbose = true; break
        case 'h': args.help = true; break
        default: throw new UsageError(`unknown option '-${c}' in '${word}'`)
      }
    }
  }
  return args
}
