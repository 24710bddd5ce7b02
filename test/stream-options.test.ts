// `decodeStream(format)` / `encodeStream(format)` take exactly what the named factories
// (`gzipDecode()`, `zstdEncode()`, ...) take, found from the factories themselves: each
// names the keys it knows when it refuses an unknown one, on its serial path and on its
// threads path (block mode, parallel decoding), and each of those keys must be known to
// the generic form, with the same outcome for the same value. A key added to a named
// factory only fails here. Then the bytes: `encodeStream('gzip', { threads: 2 })` (issue
// 33: refused before) writes what `gzipEncode({ threads: 2 })` and `encode()` write.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import * as root from '../index.js'
import { decode, decodeStream, encode, encodeStream, type Format } from '../index.js'
import { isFormat } from '../lib/formats.js'
import { closeWorkers } from '../streams/pool.js'

type Factory = (options?: Record<string, unknown>) => unknown

/** The named factories of the root entry, by their names: `<format>Decode`, `<format>Encode` (camelCase of the format). */
const NAMED = Object.entries(root).flatMap(([name, value]) => {
  const m = /^([a-z][a-zA-Z0-9]*)(Decode|Encode)$/.exec(name)
  if (!m || typeof value !== 'function') return []
  const format = m[1]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
  if (!isFormat(format)) return []
  return [{ name, format: format as Format, role: m[2] === 'Decode' ? ('decode' as const) : ('encode' as const), make: value as Factory }]
})

const generic = (format: Format, role: 'decode' | 'encode'): Factory => (options) => (role === 'decode' ? decodeStream(format, options as never) : encodeStream(format, options as never))

/** What a call did: 'ok', or the error's code and message. */
function outcome(call: () => unknown): string {
  try {
    const made = call() as { readable?: ReadableStream } | undefined
    void made?.readable?.cancel().catch(() => undefined) // nothing was written: free it
    return 'ok'
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`
  }
}

/** The keys a factory names when it refuses an unknown one (`... <format> takes a, b, c`). */
function keysNamed(make: Factory, extra: Record<string, unknown>): string[] {
  const said = outcome(() => make({ ...extra, notAnOption: 1 }))
  const m = /unknown (?:decoder|encoder) option 'notAnOption'.*takes (.*)$/.exec(said)
  assert.ok(m, `the refusal names the keys: ${said}`)
  return m![1]!.split(', ').sort()
}

test('the named factories are found: one decoder and one encoder per format that has them', () => {
  const names = NAMED.map((n) => n.name).sort()
  assert.ok(names.length >= 18, names.join(', '))
  for (const f of ['gzip', 'deflate', 'deflate-raw', 'zstd', 'brotli', 'lz4', 'snappy', 'dcz', 'dcb']) {
    assert.ok(NAMED.some((n) => n.format === f && n.role === 'decode') && NAMED.some((n) => n.format === f && n.role === 'encode'), f)
  }
})

test('decodeStream/encodeStream know every key the named factory knows, on the serial and the threads paths', () => {
  for (const { name, format, role, make } of NAMED) {
    const same = generic(format, role)
    // Serial, then the threads path (block mode; parallel decoding where the format splits).
    for (const extra of [{}, { threads: 2 }]) {
      const theirs = keysNamed(make, extra)
      const ours = keysNamed(same, extra)
      assert.equal(ours, theirs, `${name}(${JSON.stringify(extra)}) and ${role}Stream('${format}') know the same keys`)
      for (const key of [...theirs, 'threads', ...(role === 'encode' ? ['blockSize'] : [])]) {
        // The same outcome for the same value (a string is refused by every value check;
        // 1 and true pass some), never "unknown" for a key the factory takes.
        for (const value of ['x', 1, true]) {
          const options = { ...extra, [key]: value }
          const a = outcome(() => make(options))
          const b = outcome(() => same(options))
          assert.is(b, a, `${name} vs ${role}Stream('${format}') with ${JSON.stringify(options)}`)
          assert.not.match(b, new RegExp(`unknown (decoder|encoder) option '${key}'`), `${role}Stream('${format}') knows ${key}`)
        }
      }
    }
  }
})

test("encodeStream('gzip', { threads: 2 }) and the other threads forms: the named factory's bytes, encode()'s bytes", async () => {
  const input = new TextEncoder().encode(Array.from({ length: 60_000 }, (_, i) => `row ${i}, ${(i * 7919) % 1000}\n`).join(''))
  const through = async (p: unknown) => new Uint8Array(await new Response(new Blob([input]).stream().pipeThrough(p as ReadableWritablePair<Uint8Array, Uint8Array>)).arrayBuffer())
  try {
    for (const [format, options] of [
      ['gzip', { threads: 2 }],
      ['deflate', { threads: 2, blockSize: 65536 }],
      ['zstd', { threads: 2, level: 5 }],
      ['gzip', { blockSize: 32768 }],
    ] as const) {
      const named = NAMED.find((n) => n.format === format && n.role === 'encode')!.make
      const mine = await through(encodeStream(format, options))
      assert.equal(mine, await through(named(options)), `${format} ${JSON.stringify(options)}: encodeStream = ${format}Encode`)
      assert.equal(mine, await encode(format, input, options), `${format} ${JSON.stringify(options)}: encodeStream = encode()`)
      assert.equal(await decode(format, mine), input)
    }
    // Parallel decoding through the generic form: the serial decoder's output.
    const frames = await encode('zstd', input, { threads: 2, blockSize: 65536 })
    const back = new Uint8Array(await new Response(new Blob([frames as Uint8Array<ArrayBuffer>]).stream().pipeThrough(decodeStream('zstd', { threads: 2 }))).arrayBuffer())
    assert.equal(back, input)
  } finally {
    await closeWorkers()
  }
})

test.run()
