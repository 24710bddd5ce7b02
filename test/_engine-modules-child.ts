// Child process for test/engine-modules.test.ts: records every WebAssembly module this
// process compiles or instantiates, runs one scenario through the public API, and prints
// {"modules": [...file names...], "bytes": n} as JSON. A fresh process per scenario, so
// no engine was loaded before it.
//
// Usage: node --import tsx test/_engine-modules-child.ts <scenario> < input
// The input (stdin) is what the scenario decodes, or encodes.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { root } from './_fixtures.js'

const manifest = JSON.parse(readFileSync(join(root, 'lib', 'codecs', 'wasm', 'engines.json'), 'utf8')) as { outputs: Record<string, { sha256: string }> }
const names = new Map(Object.entries(manifest.outputs).map(([file, entry]) => [entry.sha256, file]))
// sluice's own kernels (scripts/build-wasm-kernels.mjs): the deflate family's decoder, LZ4's and LZ4 HC's.
for (const kernel of ['inflate', 'lz4', 'lz4hc']) names.set(createHash('sha256').update(readFileSync(join(root, 'lib', 'codecs', 'wasm', 'gen', `${kernel}.wasm`))).digest('hex'), `${kernel}.wasm`)
const seen = new Set<string>()

/** The engine file whose bytes `source` holds (engines.json), or what else it is. */
function identify(source: unknown): string {
  if (source instanceof WebAssembly.Module) {
    const exported = WebAssembly.Module.exports(source).map((e) => e.name)
    // The inflate kernel (inflate.wat) is compiled from its bytes, then instantiated as a Module.
    if (exported.includes('codes') && exported.includes('crc32')) return 'inflate.wasm'
    // So is the LZ4 kernel (lz4.wat).
    if (exported.includes('decode') && exported.includes('xxh32')) return 'lz4.wasm'
    return `module exporting ${exported.length} names`
  }
  if (ArrayBuffer.isView(source) || source instanceof ArrayBuffer) {
    const bytes = ArrayBuffer.isView(source) ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength) : new Uint8Array(source)
    const sha = createHash('sha256').update(bytes).digest('hex')
    return names.get(sha) ?? `other module (${bytes.length} bytes)`
  }
  return `other source (${Object.prototype.toString.call(source)})`
}

const wasm = WebAssembly as unknown as Record<'compile' | 'instantiate', (source: unknown, ...rest: unknown[]) => Promise<unknown>>
for (const fn of ['compile', 'instantiate'] as const) {
  const original = wasm[fn].bind(WebAssembly)
  wasm[fn] = (source, ...rest) => {
    // Node's own fetch (undici) compiles its HTTP parser (llhttp) when `Response` is
    // first used: not one of ours.
    if (!new Error().stack?.includes('node:internal/deps/undici')) seen.add(identify(source))
    return original(source, ...rest)
  }
}

const scenario = process.argv[2]
const input = new Uint8Array(readFileSync(0))
/** The dictionary of the dcz/dcb scenarios (the test encodes with the same bytes). */
const dictionary = new TextEncoder().encode('a dictionary the test and this child share: '.repeat(40))

const sluice = await import('../index.js')
const drain = async (stream: ReadableStream<Uint8Array>): Promise<number> => {
  let n = 0
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) n += chunk.length
  return n
}
const body = (): ReadableStream<Uint8Array> => new Response(input).body!

let bytes: number
switch (scenario) {
  case 'zstd-stream-decode':
    bytes = await drain(body().pipeThrough(sluice.zstdDecode()))
    break
  case 'zstd-one-shot-decode':
    bytes = (await sluice.decode('zstd', input)).length
    break
  case 'zstd-decode-response':
    bytes = (await sluice.decodeResponse(new Response(input, { headers: { 'content-encoding': 'zstd' } })).arrayBuffer()).byteLength
    break
  case 'dcz-decode':
    bytes = (await sluice.decode('dcz', input, { dictionary })).length
    break
  case 'zstd-stream-encode':
    bytes = await drain(body().pipeThrough(sluice.zstdEncode()))
    break
  case 'dcz-encode':
    bytes = (await sluice.encode('dcz', input, { dictionary })).length
    break
  case 'brotli-decode':
    bytes = (await sluice.decode('brotli', input)).length
    break
  case 'brotli-encode':
    bytes = (await sluice.encode('brotli', input)).length
    break
  case 'gzip-stream-encode':
    bytes = await drain(body().pipeThrough(sluice.gzipEncode()))
    break
  case 'gzip-one-shot-encode':
    bytes = (await sluice.encode('gzip', input)).length
    break
  case 'gzip-stream-decode':
    bytes = await drain(body().pipeThrough(sluice.gzipDecode()))
    break
  case 'lz4-stream-encode':
    bytes = await drain(body().pipeThrough(sluice.lz4Encode()))
    break
  case 'lz4-hc-one-shot-encode':
    bytes = (await sluice.encode('lz4', input, { level: 9 })).length
    break
  case 'lz4-hc-stream-encode':
    bytes = await drain(body().pipeThrough(sluice.lz4Encode({ level: 12 })))
    break
  case 'lz4-js-hc-encode':
    bytes = (await sluice.encode('lz4', input, { level: 9, engine: 'js' })).length
    break
  default:
    throw new Error(`unknown scenario ${scenario}`)
}
console.log(JSON.stringify({ modules: [...seen].sort(), bytes }))
