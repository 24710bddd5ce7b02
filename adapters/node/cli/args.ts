/**
 * The CLI's command line: a subcommand, then gzip- and zstd-style options in any order
 * among the file names. Short flags combine (`-cf`, `-19c`); a run of digits is a
 * level (`-1` … `-19`); `-F`, `-D`, `-o` and `-T` take the next word (or the rest of
 * their word: `-Fgzip`, `-T2`); long options take `--name=value` or `--name value`; `--` ends the
 * options. Mistakes throw `UsageError` (exit 1, like gzip's bad usage).
 */

/** A mistake on the command line; the message is shown with a pointer to `--help`. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export const COMMANDS = ['compress', 'decompress', 'test', 'inspect', 'index', 'help'] as const
export type Command = (typeof COMMANDS)[number]

/** Short names for the commands, as the reference tools spell them. */
const COMMAND_ALIASES: Readonly<Record<string, Command>> = { c: 'compress', d: 'decompress', x: 'decompress', t: 'test', i: 'inspect' }

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
  /** `inspect --json`. */
  json: boolean
  /** `decompress --offset`: the first content byte to write (random access, gzip-ranges.ts). */
  offset?: number
  /** `decompress --length`: how many content bytes to write. */
  length?: number
  /** `decompress --index`: the index file of a random access read. */
  index?: string
  /** `index --spacing` (and reads that build an index): content bytes between access points. */
  spacing?: number
  /** `-T N` / `--threads=N`: decompress and test on N threads (0: every core, as zstd's -T0). */
  threads?: number | 'auto'
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
  help: 'help',
}

const LONG_VALUES = new Set(['format', 'level', 'dictionary', 'output', 'offset', 'length', 'index', 'spacing', 'threads'])

/** A byte count: digits, with an optional K, M or G (powers of 1024), as gztool takes them. */
function parseBytes(name: string, text: string): number {
  const m = /^(\d+)([kKmMgG]?)$/.exec(text)
  const n = m ? Number(m[1]) * 1024 ** ' kmg'.indexOf((m[2] || ' ').toLowerCase()) : NaN
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} must be a whole number of bytes (with K, M or G), got '${text}'`)
  return n
}

function parseLevel(text: string): number {
  if (!/^\d{1,2}$/.test(text)) throw new UsageError(`level must be a whole number (e.g. -9 or --level=9), got '${text}'`)
  return Number(text)
}

/** Parses `argv` (without `node` and the script). */
export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { command: 'help', files: [], stdout: false, force: false, remove: false, quiet: false, verbose: false, json: false, help: false }
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
    else if (name === 'offset' || name === 'length' || name === 'spacing') args[name] = parseBytes(name, value)
    else if (name === 'threads') {
      if (!/^\d{1,3}$/.test(value)) throw new UsageError(`threads must be a whole number (-T 4; -T 0 for every core), got '${value}'`)
      args.threads = Number(value) === 0 ? 'auto' : Number(value)
    }
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
