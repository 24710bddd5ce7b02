/**
 * Entry for the browser page (test/runtimes/index.html): runs the cases, logs each
 * line to the console and leaves the counts in `globalThis.__sluiceResult`.
 */
// @ts-ignore: resolved through the package's `exports` to dist/, which the type check may run before
import * as root from 'sluice'
// @ts-ignore: resolved through the package's `exports` to dist/, which the type check may run before
import * as fetchAdapter from 'sluice/fetch'
import type { Context, FetchLib, Lib } from './cases.js'
import { runCases } from './harness.js'

const ctx: Context = {
  runtime: 'chromium',
  lib: root as unknown as Lib,
  fetchLib: fetchAdapter as unknown as FetchLib,
  RS: ReadableStream,
  streamOptions: {},
  globalStreams: true,
  server: new URL('./', location.href).href,
}
;(globalThis as Record<string, unknown>).__sluiceResult = await runCases(ctx)
