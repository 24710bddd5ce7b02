// The options dictionary of our `CompressionStream` / `DecompressionStream`, in the
// manner of the web-platform-tests of the Compression Streams standard (each case named
// as a WPT file would be): the members WebIDL reads (section 3.2.17: in lexicographic
// order, inherited ones too, unknown ones never), each documented option checked at
// construction (a `TypeError` whose `cause` is the `CodecError`), and the options doing
// what they say, with the same bytes as `encodeStream`/`encode()` and their checks.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError, CompressionStream, DecompressionStream, decode, encode, encodeStream, FORMATS } from '../index.js'
import { COMMON_OPTIONS } from '../lib/codec-options.js'
import { rowOf, WEB_FORMATS, webFormat } from '../lib/formats.js'
import { STREAM_KEYS } from '../streams/codec-stream.js'
import { thrown } from './_caught.js'

const input = new TextEncoder().encode(Array.from({ length: 4000 }, (_, i) => `line ${i}: sluice compresses this, level by level\n`).join(''))

async function through(pair: ReadableWritablePair<Uint8Array, Uint8Array>, bytes: Uint8Array = input): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(pair)).arrayBuffer())
}
const pair = (p: unknown) => p as ReadableWritablePair<Uint8Array, Uint8Array>

/** Every option the format table documents for a role, over every format (the schema), with the role's common ones. */
const documented = (role: 'decode' | 'encode') => new Set([...Object.keys(COMMON_OPTIONS[role]), ...FORMATS.flatMap((f) => Object.keys(rowOf(f).options[role]))])

/** The TypeError a constructor throws, checked for the standard's shape and the library's cause. */
function typeErrorOf(make: () => unknown, label: string): TypeError & { code?: string } {
  const error = thrown(make) as TypeError & { code?: string }
  assert.instance(error, TypeError, label)
  assert.instance(error.cause, CodecError, `${label}: the cause is the CodecError`)
  assert.is(error.code, (error.cause as CodecError).code, `${label}: the same code`)
  return error
}

test('compression-options-members: the members read are the documented options, in lexicographic order, inherited ones included, others never', () => {
  for (const [Class, role, name] of [
    [CompressionStream, 'encode', 'gzip'],
    [DecompressionStream, 'decode', 'gzip'],
  ] as const) {
    const read: string[] = []
    const options = new Proxy(Object.create({ inherited: 1 }) as object, {
      get(target, key, receiver) {
        if (typeof key === 'string') read.push(key)
        return Reflect.get(target, key, receiver)
      },
    })
    new Class(name, options as never)
    const expected = [...new Set([...documented(role), ...(role === 'encode' ? ['flush'] : []), ...STREAM_KEYS[role]])].sort()
    assert.equal(read, expected, `${Class.name}: members read`)
    assert.ok(read.includes('level') === (role === 'encode'), `${Class.name}: level is a member of the encoder's dictionary only`)
    assert.ok(read.includes('maxOutputBytes') === (role === 'decode'), `${Class.name}: maxOutputBytes is a member of the decoder's dictionary only`)
    // An inherited member is read as an own one (WebIDL's [[Get]]).
    const proto = Object.create({ level: 99 }) as object
    if (role === 'encode') typeErrorOf(() => new Class(name, proto as never), 'an inherited level is read')
  }
})

test('compression-options-unknown: unknown members are ignored (WebIDL dictionaries), on every web format', () => {
  for (const format of WEB_FORMATS) {
    const needs = rowOf(webFormat(format)!.format).dictionary === 'required' ? { dictionary: new Uint8Array(8) } : {}
    new CompressionStream(format, { ...needs, levle: 'typo', compressionLevel: 99, quality: -1 } as never)
    new DecompressionStream(format, { ...needs, maxOutputByte: -1, whatever: {} } as never)
    // Members of the other dictionary are unknown here: level to a decoder, flush too.
    new DecompressionStream(format, { ...needs, level: 42, flush: 'often' } as never)
  }
})

test('compression-options-checked: every documented member is checked at construction (TypeError, cause CodecError INVALID_OPTION)', () => {
  // A string is a bad value for every option the schema documents (integers, booleans,
  // choices, flags, limits, engines, levels, dictionaries).
  for (const format of WEB_FORMATS) {
    const f = webFormat(format)!.format
    const needs = rowOf(f).dictionary === 'required' ? { dictionary: new Uint8Array(8) } : {}
    for (const [Class, role] of [
      [CompressionStream, 'encode'],
      [DecompressionStream, 'decode'],
    ] as const) {
      for (const key of documented(role)) {
        if (key === 'dictionary' && rowOf(f).dictionary === 'required') continue
        const label = `${Class.name}('${format}', { ${key}: 'bad' })`
        const error = typeErrorOf(() => new Class(format, { ...needs, [key]: 'bad value' } as never), label)
        assert.is(error.code, 'INVALID_OPTION', label)
      }
    }
  }
  // A member of another format is a bad value for this one: named in the message.
  const other = typeErrorOf(() => new CompressionStream('gzip', { seekable: true }), 'seekable on gzip')
  assert.match(other.message, /unknown encoder option 'seekable'; gzip takes /)
  // Ranges as encodeStream checks them.
  assert.match(typeErrorOf(() => new CompressionStream('zstd', { level: 42 }), 'zstd level 42').message, /level must be an integer from 1 to 19, got 42/)
  assert.match(typeErrorOf(() => new CompressionStream('brotli', { lgwin: 30 }), 'brotli lgwin 30').message, /lgwin must be an integer from 10 to 24, got 30/)
  assert.match(typeErrorOf(() => new DecompressionStream('zstd', { maxWindowLog: 40 }), 'maxWindowLog 40').message, /maxWindowLog must be an integer from 10 to 31, got 40/)
  assert.match(typeErrorOf(() => new CompressionStream('zstd', { frameSize: 1024 }), 'frameSize without seekable').message, /frameSize applies to seekable archives only/)
})

test('compression-options-level: level changes the output, as encodeStream and encode() write it', async () => {
  // The guide's own example, new CompressionStream('zstd', { level: 5 }), and the range's ends.
  const sizes = new Map<number, number>()
  for (const level of [1, 5, 19]) {
    const web = await through(pair(new CompressionStream('zstd', { level })))
    assert.equal(web, await through(encodeStream('zstd', { level })), `level ${level}: the bytes of encodeStream`)
    // encode() states the content size in the frame header (the input is whole there);
    // told the size, the stream writes the same frame.
    assert.equal(await through(pair(new CompressionStream('zstd', { level, contentSize: input.length }))), await encode('zstd', input, { level }), `level ${level}: the bytes of encode()`)
    assert.equal(await decode('zstd', web), input)
    sizes.set(level, web.length)
  }
  assert.ok(sizes.get(19)! < sizes.get(1)!, `level 19 (${sizes.get(19)} bytes) is smaller than level 1 (${sizes.get(1)} bytes)`)
  for (const [format, low, high] of [
    ['gzip', 1, 9],
    ['deflate', 1, 9],
    ['deflate-raw', 1, 9],
    ['brotli', 0, 11],
  ] as const) {
    const a = await through(pair(new CompressionStream(format, { level: low })))
    const b = await through(pair(new CompressionStream(format, { level: high })))
    assert.ok(b.length < a.length, `${format}: level ${high} (${b.length}) smaller than level ${low} (${a.length})`)
    assert.equal(b, await encode(format, input, { level: high }), `${format} level ${high}: the bytes of encode()`)
  }
})

test('compression-options-format: a format\'s own options take effect (zstd checksum and window, brotli lgwin, LZ4 block checksums, gzip BGZF)', async () => {
  const withSum = await through(pair(new CompressionStream('zstd', { checksum: true })))
  const without = await through(pair(new CompressionStream('zstd', { checksum: false })))
  assert.is(withSum.length - without.length, 4, 'the XXH64 content checksum is 4 bytes')
  const seekable = await through(pair(new CompressionStream('zstd', { seekable: true, frameSize: 16384 })))
  assert.equal(await decode('zstd', seekable), input)
  // The seek table's magic (0x8F92EAB1, little-endian) ends a seekable archive.
  assert.equal([...seekable.subarray(-4)], [0xb1, 0xea, 0x92, 0x8f])
  const bgzf = await through(pair(new CompressionStream('gzip', { bgzf: true })))
  assert.equal(bgzf, await encode('gzip', input, { bgzf: true }))
  assert.equal([...bgzf.subarray(12, 14)], [0x42, 0x43], 'the BC extra subfield')
  const lz4 = await through(pair(new CompressionStream('lz4', { blockChecksum: true })))
  assert.equal(lz4, await through(encodeStream('lz4', { blockChecksum: true })))
  assert.equal(await decode('lz4', lz4), input)
  const decoded = await through(pair(new DecompressionStream('zstd', { maxWindowLog: 23 })), await encode('zstd', input))
  assert.equal(decoded, input)
})

test('decompression-options-limit: maxOutputBytes stops a decoder, a TypeError whose cause is LIMIT_EXCEEDED', async () => {
  const gz = await encode('gzip', input)
  const reader = new Blob([gz as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip', { maxOutputBytes: 1000 })).getReader()
  let error: unknown
  try {
    for (;;) if ((await reader.read()).done) break
  } catch (e) {
    error = e
  }
  assert.instance(error, TypeError)
  assert.is(((error as TypeError).cause as CodecError).code, 'LIMIT_EXCEEDED')
})

test.run()
