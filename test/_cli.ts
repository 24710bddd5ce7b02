// The reference command-line tools the suites use as oracles: whether each is installed,
// why a case skips when it is not, and running one on some input. Every suite asks here
// instead of probing with its own child_process calls.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The reference CLIs, each with the Debian package that provides it (as CI installs them). */
const PACKAGE = {
  zstd: 'zstd',
  lz4: 'lz4',
  brotli: 'brotli',
  gzip: 'gzip',
  pigz: 'pigz',
  curl: 'curl',
  script: 'bsdutils',
  gztool: 'gztool',
  bgzip: 'tabix',
  tabix: 'tabix',
  samtools: 'samtools',
} as const
export type Cli = keyof typeof PACKAGE

/** How a tool is asked whether it runs: `--version`, except where that exits non-zero. */
const PROBE: Partial<Record<Cli, readonly string[]>> = { gztool: ['-h'] }

const present = new Map<Cli, boolean>()

/** Whether `name --version` runs and exits 0 (asked once per process). */
export function hasCli(name: Cli): boolean {
  let has = present.get(name)
  if (has === undefined) present.set(name, (has = spawnSync(name, PROBE[name] ?? ['--version'], { stdio: 'ignore' }).status === 0))
  return has
}

/** Why `name` cannot be used here (it is missing, and how to install it), or null. */
export function cliMissing(name: Cli): string | null {
  return hasCli(name) ? null : `the ${name} CLI is not installed (apt-get install -y ${PACKAGE[name]})`
}

/** Whether `name` is installed; when not, prints `# skipped: <what>: <why>` once. */
export function requireCli(name: Cli, what = `${name} CLI cases`): boolean {
  const missing = cliMissing(name)
  if (missing) console.log(`# skipped: ${what}: ${missing}`)
  return !missing
}

/**
 * How the input reaches the tool: on stdin (`stdin`); as a file whose path is appended
 * to the arguments (`file`), so the tool knows its size (zstd and lz4 then write it in
 * the frame header); or through `cat |` (`pipe`), so the tool cannot know the size.
 */
export type Feed = 'stdin' | 'file' | 'pipe'

let scratch: string | null = null
function scratchFile(input: Uint8Array): string {
  if (!scratch) {
    const dir = (scratch = mkdtempSync(join(tmpdir(), 'sluice-cli-')))
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  const file = join(scratch, 'input')
  writeFileSync(file, input)
  return file
}

function spawn(name: Cli, args: readonly string[], input: Uint8Array, feed: Feed) {
  const options = { input: feed === 'file' ? undefined : input, maxBuffer: 1 << 30 }
  if (feed === 'file') return spawnSync(name, [...args, scratchFile(input)], options)
  // The tool and its arguments reach the shell as positional parameters ("$@"): no quoting.
  if (feed === 'pipe') return spawnSync('sh', ['-c', 'cat | "$@"', 'sh', name, ...args], options)
  return spawnSync(name, args, options)
}

/** The tool's output for `input`; throws with its stderr when it fails. */
export function runCli(name: Cli, args: readonly string[], input: Uint8Array, feed: Feed = 'stdin'): Uint8Array {
  const r = spawn(name, args, input, feed)
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${name} ${args.join(' ')} exited ${r.status}: ${r.stderr.toString().trim()}`)
  return new Uint8Array(r.stdout.buffer, r.stdout.byteOffset, r.stdout.byteLength)
}

/** The tool's output for `input`, or null when the tool is missing or refuses (an option this version lacks). */
export function tryCli(name: Cli, args: readonly string[], input: Uint8Array, feed: Feed = 'stdin'): Uint8Array | null {
  if (!hasCli(name)) return null
  const r = spawn(name, args, input, feed)
  return r.status === 0 ? new Uint8Array(r.stdout.buffer, r.stdout.byteOffset, r.stdout.byteLength) : null
}

/**
 * What the tool wrote to stdout for `input`, whatever its exit status: for decoding a
 * prefix of a stream, which the tools report as truncated (exit 1) after writing what
 * they decoded.
 */
export function cliOutput(name: Cli, args: readonly string[], input: Uint8Array): Uint8Array {
  const r = spawn(name, args, input, 'stdin')
  if (r.error) throw r.error
  return new Uint8Array(r.stdout.buffer, r.stdout.byteOffset, r.stdout.byteLength)
}
