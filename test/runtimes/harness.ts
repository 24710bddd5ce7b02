/**
 * The tiny harness every runtime entry shares: runs `cases` in order, one at a time,
 * prints one line per case (`ok`, `FAIL` with the error, `skip` with the reason) and
 * last a `RESULT {"runtime":..,"passed":..,"failed":..,"skipped":..}` line that
 * `scripts/runtimes.mjs` reads.
 */
import { cases, Skip, type Context } from './cases.js'

export interface Counts {
  runtime: string
  passed: number
  failed: number
  skipped: number
}

/** A case that hangs fails after this long instead of stalling the whole matrix. */
const CASE_TIMEOUT_MS = 60_000

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return `${error.name}${code ? ` [${String(code)}]` : ''}: ${error.message}`
  }
  return String(error)
}

export async function runCases(ctx: Context, log: (line: string) => void = (line) => console.log(line)): Promise<Counts> {
  const counts: Counts = { runtime: ctx.runtime, passed: 0, failed: 0, skipped: 0 }
  for (const c of cases) {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${CASE_TIMEOUT_MS / 1000} s`)), CASE_TIMEOUT_MS)
    })
    try {
      await Promise.race([c.run(ctx), timeout])
      counts.passed++
      log(`ok ${ctx.runtime} | ${c.name}`)
    } catch (error) {
      if (error instanceof Skip) {
        counts.skipped++
        log(`skip ${ctx.runtime} | ${c.name} | ${error.message}`)
      } else {
        counts.failed++
        log(`FAIL ${ctx.runtime} | ${c.name} | ${describe(error)}`)
      }
    } finally {
      clearTimeout(timer)
    }
  }
  log(`RESULT ${JSON.stringify(counts)}`)
  return counts
}
