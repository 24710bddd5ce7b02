/**
 * Node 20 with web-streams-polyfill (the WHATWG reference implementation's port) in
 * place of the runtime's streams: the global stream classes are removed before the
 * library loads, and the cases hand the polyfill's classes over through the `streams`
 * option. Proves that nothing depends on one runtime's stream quirks, and that the
 * library works where no global streams exist.
 */
import { ReadableStream as PolyfillReadable, WritableStream as PolyfillWritable } from 'web-streams-polyfill'
import type { Context, FetchLib, Lib } from './cases.js'
import { runCases } from './harness.js'

const g = globalThis as Record<string, unknown>
for (const name of ['ReadableStream', 'WritableStream', 'TransformStream', 'CompressionStream', 'DecompressionStream', 'TextEncoderStream', 'TextDecoderStream']) delete g[name]

const args = (globalThis as unknown as { process: { argv: string[] } }).process.argv
const runtime = args[2] ?? 'node-polyfill'
// Imported only now, after the globals are gone (static imports would run first).
// @ts-ignore: resolved through the package's `exports` to dist/, which the type check may run before
const lib = (await import('sluice')) as unknown as Lib
void (null as FetchLib | null)

const ctx: Context = {
  runtime,
  lib,
  // decodeResponse builds a Response, whose body needs the runtime's own stream classes.
  fetchLib: null,
  RS: PolyfillReadable as unknown as typeof ReadableStream,
  streamOptions: { streams: { ReadableStream: PolyfillReadable as unknown as typeof ReadableStream, WritableStream: PolyfillWritable as unknown as typeof WritableStream } },
  globalStreams: false,
  server: null,
  noFetch: "decodeResponse returns a Response, whose body is the runtime's own ReadableStream; this run removed the global stream classes",
}
const counts = await runCases(ctx)
;(globalThis as unknown as { process: { exitCode: number } }).process.exitCode = counts.failed > 0 ? 1 : 0
