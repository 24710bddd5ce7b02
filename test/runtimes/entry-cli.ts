/**
 * Entry for Node, Deno and Bun: `<runtime> entry.mjs <name> [server-url]`. Imports the
 * package by its name, so the runtime's own `exports` resolution picks the build.
 */
import type { Context, FetchLib, Lib } from './cases.js'
import { runCases } from './harness.js'

const args = (globalThis as unknown as { process: { argv: string[] } }).process.argv
const [runtime = 'unknown', server = ''] = args.slice(2)
// @ts-ignore: resolved through the package's `exports` to dist/, which the type check may run before
const lib = (await import('sluice')) as unknown as Lib
// @ts-ignore: resolved through the package's `exports` to dist/, which the type check may run before
const fetchLib = (await import('sluice/fetch').catch(() => null)) as FetchLib | null

const ctx: Context = { runtime, lib, fetchLib, RS: ReadableStream, streamOptions: {}, globalStreams: true, server: server || null }
const counts = await runCases(ctx)
;(globalThis as unknown as { process: { exitCode: number } }).process.exitCode = counts.failed > 0 ? 1 : 0
