// The `sluice` command as users run it, for the CLI suites: a child process per call,
// from source (`node --import tsx adapters/node/cli/main.ts`), in a scratch directory.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { root } from './_fixtures.js'

/** The command's source entry. */
export const MAIN = join(root, 'adapters/node/cli/main.ts')
/** tsx's loader by its path: the children run in a scratch directory, where `tsx` does not resolve. */
export const TSX = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href
/** The command as a shell word list, for command lines run through `sh` or `script`. */
export const SLUICE_SH = `'${process.execPath}' --import '${TSX}' '${MAIN}'`

export interface Run {
  status: number | null
  stdout: Buffer
  stderr: string
}

/** Runs `sluice ARGS` in `cwd`, with `input` on stdin. */
export function sluiceIn(cwd: string, args: readonly string[], input?: Uint8Array, env: Record<string, string> = {}): Run {
  const r: SpawnSyncReturns<Buffer> = spawnSync(process.execPath, ['--import', TSX, MAIN, ...args], { cwd, input, maxBuffer: 1 << 28, env: { ...process.env, ...env } })
  // EPIPE: the command ended before reading its input (a usage error); its status tells.
  if (r.error && (r.error as NodeJS.ErrnoException).code !== 'EPIPE') throw r.error
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() }
}

/** Runs a shell command line in `cwd`. */
export function shIn(cwd: string, command: string, input?: Uint8Array): Run {
  const r = spawnSync('sh', ['-c', command], { cwd, input, maxBuffer: 1 << 28 })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() }
}
