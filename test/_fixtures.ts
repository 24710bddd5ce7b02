import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

/** The project root. */
export const root = resolve(here, '..')

/**
 * The shared fixtures folder (`../shared/fixtures` beside the checkout), or `null` when
 * this clone has none: tests that need it then report themselves as skipped, with the
 * reason, through `skipped()`.
 */
export const fixtures: string | null = (() => {
  const dir = process.env.SLUICE_FIXTURES ?? resolve(root, '..', 'shared', 'fixtures')
  return existsSync(dir) ? dir : null
})()

export function fixture(...parts: string[]): string | null {
  return fixtures ? join(fixtures, ...parts) : null
}
