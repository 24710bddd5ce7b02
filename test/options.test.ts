// Options are checked where the call is made (STYLE.md example 9): on every surface, a
// bad value, a wrong type and an unknown key throw INVALID_OPTION synchronously from the
// call that created the stream, codec or duplex (the one-shot and span-codec helpers,
// which are async, reject before any engine loads). The cases per format come from the
// format table's option schema, so a new option is covered by adding it there.
// CompressionStream/DecompressionStream keep WebIDL's rules for their options dictionary.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError } from '../lib/errors.js'
import { FORMAT_TABLE, FORMATS, type Format } from '../lib/formats.js'
import { checkOptions, COMMON_OPTIONS, MACHINE_OPTIONS } from '../lib/codec-options.js'
import { nearestKey, type OptionSpec } from '../lib/options.js'
import type { Role } from '../lib/codec.js'
import { createDecoder, createEncoder, decode, decodeStream, encode, encodeStream, gzipEncode, zstdDecode, zstdEncode, brotliEncode, CompressionStream, DecompressionStream, decompress } from '../streams/index.js'
import { nodeDecode, nodeEncode, compression } from '../adapters/node/index.js'
import { decodeResponse, encodeResponse } from '../adapters/fetch/index.js'
import { compress } from '../adapters/hono/index.js'
import { arrowDecode, arrowEncode, registerArrowCodecs } from '../adapters/arrow/index.js'
import { loadParquetCompressors } from '../adapters/hyparquet/index.js'
import { rejection, thrown } from './_caught.js'

function assertInvalid(error: unknown, pattern: RegExp, label: string): void {
  assert.instance(error, CodecError, `${label}: ${String(error)}`)
  assert.is((error as CodecError).code, 'INVALID_OPTION', `${label}: ${String(error)}`)
  assert.match((error as CodecError).message, pattern, label)
}

/** What every case needs to be otherwise valid: the transports' dictionary, lz4-block's outputSize. */
function base(format: Format, role: Role): Record<string, unknown> {
  const o: Record<string, unknown> = {}
  if (FORMAT_TABLE[format].dictionary === 'required') o.dictionary = new Uint8Array([1, 2, 3])
  if (format === 'lz4-block' && role === 'decode') o.outputSize = 10
  return o
}

/** A value of the wrong type for a schema entry, and one of the right type but out of range (or null). */
function badValues(spec: OptionSpec): { wrongType: unknown; outOfRange: unknown } {
  switch (spec.type) {
    case 'integer':
      return { wrongType: String(spec.min), outOfRange: spec.max + 1 }
    case 'boolean':
      return { wrongType: 1, outOfRange: 'refuse' in spec && spec.refuse ? spec.refuse.value : null }
    case 'choice':
      return { wrongType: {}, outOfRange: typeof spec.values[0] === 'number' ? 12345 : 'none-of-these' }
    default:
      return { wrongType: 'x', outOfRange: -1 }
  }
}

/** Each option of each format and role: [format, role, key, spec]. */
const OWN = FORMATS.flatMap((format) =>
  (['decode', 'encode'] as const).flatMap((role) => Object.entries(FORMAT_TABLE[format].options[role] as Record<string, OptionSpec>).map(([key, spec]) => [format, role, key, spec] as const)),
)

/** A surface: makes a stream/codec/duplex of `format` for `role` with `options`, and how it fails. */
type Make = (format: Format, role: Role, options: Record<string, unknown>) => unknown
const SYNC_SURFACES: Array<[string, Make]> = [
  ['decodeStream/encodeStream', (f, r, o) => (r === 'decode' ? decodeStream(f, o) : encodeStream(f, o))],
  ['nodeDecode/nodeEncode', (f, r, o) => (r === 'decode' ? nodeDecode(f, o) : nodeEncode(f, o))],
]
const ASYNC_SURFACES: Array<[string, Make]> = [
  ['decode/encode', (f, r, o) => (r === 'decode' ? decode(f, new Uint8Array(0), o) : encode(f, new Uint8Array(0), o))],
  ['createDecoder/createEncoder', (f, r, o) => (r === 'decode' ? createDecoder(f, o) : createEncoder(f, o))],
]

test('nearestKey: one edit or a swap away names the key; far keys name none', () => {
  assert.is(nearestKey('levle', ['level', 'engine']), 'level')
  assert.is(nearestKey('maxWindowlog', ['maxWindowLog', 'maxOutputBytes']), 'maxWindowLog')
  assert.is(nearestKey('chunksize', ['chunkSize']), 'chunkSize')
  assert.is(nearestKey('colour', ['level', 'engine']), undefined)
})

for (const [name, make] of SYNC_SURFACES) {
  test(`${name}: every format option's wrong type, bad value and misspelt key throw INVALID_OPTION from the call`, () => {
    let cases = 0
    for (const [format, role, key, spec] of OWN) {
      if (spec.engines && !spec.engines.includes(FORMAT_TABLE[format].defaultEngine)) continue
      const { wrongType, outOfRange } = badValues(spec)
      assertInvalid(thrown(() => make(format, role, { ...base(format, role), [key]: wrongType })), new RegExp(`${key}`), `${format} ${role} ${key}: wrong type`)
      if (outOfRange !== null) assertInvalid(thrown(() => make(format, role, { ...base(format, role), [key]: outOfRange })), new RegExp(`${key}`), `${format} ${role} ${key}: bad value`)
      const typo = key.slice(0, -2) + key.at(-1) + key.at(-2)
      assertInvalid(thrown(() => make(format, role, { ...base(format, role), [typo]: wrongType })), new RegExp(`unknown \\w+ option '${typo}' \\(did you mean '${key}'\\?\\)`), `${format} ${role} ${typo}`)
      cases += 3
    }
    assert.ok(cases > 30, `${cases} cases`)
  })

  test(`${name}: the common options, per format and role, and unknown keys`, () => {
    for (const format of FORMATS) {
      for (const role of ['decode', 'encode'] as const) {
        const b = base(format, role)
        // A control: valid options construct.
        const made = make(format, role, b) as { destroy?(): void }
        made.destroy?.()
        assertInvalid(thrown(() => make(format, role, { ...b, engine: 'bogus' })), /engine "bogus" is not available/, `${format} ${role} engine`)
        assertInvalid(thrown(() => make(format, role, { ...b, chunkSize: '4096' })), /chunkSize must be an integer from 64 to 2\^30, got "4096" \(a string\)/, `${format} ${role} chunkSize`)
        assertInvalid(thrown(() => make(format, role, { ...b, levle: 3 })), /unknown \w+ option 'levle'/, `${format} ${role} levle`)
        if (role === 'encode') {
          const [min, max] = FORMAT_TABLE[format].levels
          assertInvalid(thrown(() => make(format, role, { ...b, level: String(max) })), new RegExp(`level must be an integer from ${min} to ${max}, got "${max}" \\(a string\\)`), `${format} level string`)
          assertInvalid(thrown(() => make(format, role, { ...b, level: max + 1 })), new RegExp(`level must be an integer from ${min} to ${max}, got ${max + 1}`), `${format} level range`)
          assertInvalid(thrown(() => make(format, role, { ...b, flush: 'often' })), /flush must be 'none' or 'write', got "often" \(a string\)/, `${format} flush`)
          // Decoder-only options are unknown to encoders.
          assertInvalid(thrown(() => make(format, role, { ...b, maxOutputBytes: 10 })), /unknown encoder option 'maxOutputBytes'/, `${format} encoder maxOutputBytes`)
        } else {
          assertInvalid(thrown(() => make(format, role, { ...b, maxOutputBytes: -1 })), /maxOutputBytes must be a non-negative integer or Infinity, got -1/, `${format} maxOutputBytes`)
          assertInvalid(thrown(() => make(format, role, { ...b, concatenated: 'yes' })), /concatenated must be a boolean, got "yes" \(a string\)/, `${format} concatenated`)
          assertInvalid(thrown(() => make(format, role, { ...b, level: 3 })), /unknown decoder option 'level'/, `${format} decoder level`)
        }
      }
    }
  })
}

test('the cases the issue names fail at creation, not when data flows', () => {
  assertInvalid(thrown(() => zstdDecode({ maxWindowLog: 99 })), /maxWindowLog must be an integer from 10 to 31, got 99/, 'zstdDecode maxWindowLog 99')
  // Up to 31 on every engine (zstd --long=31 files); the wasm engine refuses a 2^31 frame when it meets one.
  assert.is(checkOptions('zstd', 'decode', { maxWindowLog: 31 }).codec.maxWindowLog, 31)
  assertInvalid(thrown(() => zstdEncode({ seekable: { checksum: true } } as never)), /seekable: unknown option 'checksum' \(did you mean 'checksums'\?\)/, 'seekable typo')
  assertInvalid(thrown(() => zstdEncode({ seekable: true, frameSize: 0 })), /frameSize must be an integer from 1 to 2\^30, got 0/, 'frameSize 0')
  // Rules between options (zstdEncodeRules in lib/formats.ts), at the call too.
  assertInvalid(thrown(() => zstdEncode({ frameSize: 1000 })), /frameSize applies to seekable archives only/, 'frameSize alone')
  assertInvalid(thrown(() => zstdEncode({ seekable: { checksums: true }, checksum: false })), /not with checksum: false/, 'checksums without checksum')
  assertInvalid(thrown(() => brotliEncode({ lgwin: 99 })), /lgwin must be an integer from 10 to 24, got 99/, 'brotliEncode lgwin 99')
  assertInvalid(thrown(() => nodeEncode('brotli', { lgwin: 99 })), /lgwin must be an integer from 10 to 24, got 99/, 'nodeEncode lgwin 99')
  assertInvalid(thrown(() => nodeEncode('brotli', { engine: 'node', lgwin: 9 })), /lgwin must be an integer from 10 to 24, got 9/, 'nodeEncode node lgwin 9')
  // @ts-expect-error a typo TypeScript catches first
  assertInvalid(thrown(() => zstdEncode({ levle: 9 })), /unknown encoder option 'levle' \(did you mean 'level'\?\)/, 'zstdEncode levle')
  // @ts-expect-error the wrong type, which TypeScript catches first
  assertInvalid(thrown(() => gzipEncode({ level: '9' })), /level must be an integer from 0 to 9, got "9" \(a string\)/, 'gzipEncode level "9"')
  // Options an engine does not honour are refused on it, not ignored.
  assertInvalid(thrown(() => zstdDecode({ engine: 'node', maxWindowBytes: 2 ** 20 })), /maxWindowBytes is not available on engine 'node'/, 'node maxWindowBytes')
  assertInvalid(thrown(() => zstdEncode({ engine: 'node', contentSize: 20 })), /contentSize is not available on engine 'node'/, 'node contentSize')
  // node:zlib's libzstd accepts larger windows than the wasm engine's memory allows.
  assert.is(checkOptions('zstd', 'decode', { engine: 'node', maxWindowLog: 31 }).codec.maxWindowLog, 31)
})

test('the Node adapter throws from the call: no duplex, no unhandled error event', () => {
  let errors = 0
  const onError = () => errors++
  process.on('uncaughtException', onError)
  try {
    assertInvalid(thrown(() => nodeEncode('brotli', { lgwin: 99 })), /lgwin/, 'nodeEncode')
    assertInvalid(thrown(() => nodeDecode('zstd', { maxWindowLog: 99 })), /maxWindowLog/, 'nodeDecode')
    assertInvalid(thrown(() => nodeDecode('gzip', { duplex: 5 } as never)), /duplex must be an object of Duplex options, got 5/, 'duplex')
  } finally {
    process.off('uncaughtException', onError)
  }
  assert.is(errors, 0)
})

for (const [name, make] of ASYNC_SURFACES) {
  test(`${name}: rejects INVALID_OPTION for bad values, wrong types and unknown keys`, async () => {
    for (const [format, role, key, spec] of OWN) {
      if (spec.engines && !spec.engines.includes(FORMAT_TABLE[format].defaultEngine)) continue
      const { wrongType } = badValues(spec)
      assertInvalid(await rejection(make(format, role, { ...base(format, role), [key]: wrongType }) as Promise<unknown>), new RegExp(key), `${format} ${role} ${key}`)
    }
    assertInvalid(await rejection(make('zstd', 'encode', { levle: 9 }) as Promise<unknown>), /unknown encoder option 'levle' \(did you mean 'level'\?\)/, 'levle')
    assertInvalid(await rejection(make('brotli', 'encode', { lgwin: 99 }) as Promise<unknown>), /lgwin must be an integer from 10 to 24, got 99/, 'lgwin')
    assertInvalid(await rejection(make('gzip', 'encode', { level: '9' }) as Promise<unknown>), /got "9" \(a string\)/, 'level "9"')
    // Machine options belong to the streams: the span codecs do not take them.
    assertInvalid(await rejection(make('gzip', 'decode', { chunkSize: 4096 }) as Promise<unknown>), /unknown decoder option 'chunkSize'/, 'chunkSize')
  })
}

test('the one-shot decode takes concatenated; the span decoder does not', async () => {
  const data = await encode('gzip', new Uint8Array([1, 2, 3]))
  assert.equal(await decode('gzip', data, { concatenated: false }), new Uint8Array([1, 2, 3]))
  assertInvalid(await rejection(createDecoder('gzip', { concatenated: false } as never)), /unknown decoder option 'concatenated'/, 'createDecoder concatenated')
  assertInvalid(await rejection(encode('gzip', data, { flush: 'write' } as never)), /unknown encoder option 'flush'/, 'encode flush')
})

test('decompress(): options checked at creation against the formats it may detect; each detected format gets its own', async () => {
  // @ts-expect-error a typo
  assertInvalid(thrown(() => decompress({ maxWindowlog: 20 })), /unknown decoder option 'maxWindowlog' \(did you mean 'maxWindowLog'\?\)/, 'typo')
  assertInvalid(thrown(() => decompress({ maxWindowLog: 99 })), /maxWindowLog must be an integer/, 'bad value')
  assertInvalid(thrown(() => decompress({ format: 'zstd', maxWindowLog: 99 })), /maxWindowLog must be an integer/, 'bad value with format')
  assertInvalid(thrown(() => decompress({ passthrough: 'yes' as never })), /passthrough must be a boolean, got "yes" \(a string\)/, 'passthrough')
  // A zstd option does not reach a gzip stream that was detected instead.
  const gz = await encode('gzip', new Uint8Array([7, 8, 9]))
  const out = await new Response(new Blob([gz as Uint8Array<ArrayBuffer>]).stream().pipeThrough(decompress({ maxWindowLog: 20 }))).arrayBuffer()
  assert.equal(new Uint8Array(out), new Uint8Array([7, 8, 9]))
})

test('CompressionStream/DecompressionStream: WebIDL dictionary rules', () => {
  // Unknown members are ignored, as the platform ignores them (test/web-class-options.test.ts: the members read).
  new CompressionStream('zstd', { levle: 42 } as never)
  new DecompressionStream('gzip', { flush: 'bogus', level: 42 } as never) // not members of the decompression dictionary
  new CompressionStream('gzip', null as never)
  // A bad value of a known member: a TypeError from the constructor, code INVALID_OPTION.
  for (const [label, make] of [
    ['flush', () => new CompressionStream('gzip', { flush: 'often' as never })],
    ['dictionary type', () => new DecompressionStream('deflate', { dictionary: 5 as never })],
    ['dictionary refused', () => new CompressionStream('gzip', { dictionary: new Uint8Array(4) })],
    ['dictionary required', () => new DecompressionStream('dcz')],
    ['level', () => new CompressionStream('zstd', { level: 42 })],
    ['maxOutputBytes', () => new DecompressionStream('gzip', { maxOutputBytes: -1 })],
    ['streams', () => new CompressionStream('gzip', { streams: {} as never })],
  ] as const) {
    const error = thrown(make)
    assert.instance(error, TypeError, label)
    assert.is((error as TypeError & { code?: string }).code, 'INVALID_OPTION', label)
    assert.instance((error as TypeError).cause, CodecError, label)
  }
  // A BufferSource excludes shared memory.
  assert.instance(thrown(() => new DecompressionStream('deflate', { dictionary: new Uint8Array(new SharedArrayBuffer(4)) })), TypeError)
  // Not an object: a TypeError, as WebIDL's dictionary conversion throws.
  assert.instance(thrown(() => new CompressionStream('gzip', 5 as never)), TypeError)
  // An enum is converted to a string first.
  new CompressionStream('gzip', { flush: { toString: () => 'write' } as never })
})

test('encodeResponse, decodeResponse, the Node middleware and hono compress(): unknown keys and bad values throw from (or reject) the call', async () => {
  const request = new Request('http://localhost/', { headers: { 'accept-encoding': 'gzip' } })
  const response = () => new Response('x'.repeat(2000), { headers: { 'content-type': 'text/plain' } })
  // @ts-expect-error a typo
  assertInvalid(await rejection(encodeResponse(request, response(), { minByte: 10 })), /unknown option 'minByte' \(did you mean 'minBytes'\?\)/, 'encodeResponse typo')
  assertInvalid(await rejection(encodeResponse(request, response(), { levels: { br: 99 } })), /level must be an integer from 0 to 11, got 99/, 'encodeResponse level')
  // @ts-expect-error a coding that does not exist
  assertInvalid(await rejection(encodeResponse(request, response(), { levels: { brr: 5 } })), /unknown coding in levels 'brr' \(did you mean 'br'\?\)/, 'encodeResponse coding')
  assertInvalid(await rejection(encodeResponse(request, response(), { minBytes: '10' as never })), /minBytes must be a non-negative integer, got "10" \(a string\)/, 'encodeResponse minBytes')
  assertInvalid(await rejection(encodeResponse(request, response(), { engines: { gzip: 'bogus' as never } })), /engine "bogus"/, 'encodeResponse engine')
  // decodeResponse checks its options before reading any of the body.
  const encoded = () => new Response(new Uint8Array([0x1f, 0x8b]), { headers: { 'content-encoding': 'gzip' } })
  // @ts-expect-error a typo
  assertInvalid(thrown(() => decodeResponse(encoded(), { maxOutputByte: 10 })), /unknown option 'maxOutputByte' \(did you mean 'maxOutputBytes'\?\)/, 'decodeResponse typo')
  assertInvalid(thrown(() => decodeResponse(encoded(), { maxWindowLog: 40 })), /maxWindowLog must be an integer from 10 to 31, got 40/, 'decodeResponse maxWindowLog')
  // @ts-expect-error a typo
  assertInvalid(thrown(() => compression({ encoding: ['gzip'] })), /unknown option 'encoding' \(did you mean 'encodings'\?\)/, 'middleware typo')
  assertInvalid(thrown(() => compression({ flush: 'always' as never })), /flush must be 'none' or 'write', got "always" \(a string\)/, 'middleware flush')
  // @ts-expect-error a typo
  assertInvalid(thrown(() => compress({ treshold: 10 })), /unknown option 'treshold' \(did you mean 'threshold'\?\)/, 'hono typo')
  assertInvalid(thrown(() => compress({ threshold: -1 })), /minBytes must be a non-negative integer, got -1/, 'hono threshold')
  assertInvalid(thrown(() => compress({ contentTypeFilter: 'text/*' as never })), /contentTypeFilter must be a RegExp or a function, got "text\/\*" \(a string\)/, 'hono filter')
})

test('the Arrow and hyparquet adapters: unknown keys and bad values', async () => {
  // @ts-expect-error a typo
  assertInvalid(thrown(() => arrowEncode({ compresion: 'lz4' })), /unknown option 'compresion' \(did you mean 'compression'\?\)/, 'arrowEncode typo')
  assertInvalid(thrown(() => arrowEncode({ compression: 'zstd', level: 99 })), /level must be an integer from 1 to 19, got 99/, 'arrowEncode level')
  // @ts-expect-error a typo
  assertInvalid(thrown(() => arrowDecode({ maxMessageByte: 10 })), /unknown option 'maxMessageByte' \(did you mean 'maxMessageBytes'\?\)/, 'arrowDecode typo')
  assertInvalid(thrown(() => arrowDecode({ validate: 'all' as never })), /validate must be 'default' or 'full', got "all" \(a string\)/, 'arrowDecode validate')
  // @ts-expect-error a typo
  assertInvalid(await rejection(registerArrowCodecs({ lz4level: 3 })), /unknown option 'lz4level' \(did you mean 'lz4Level'\?\)/, 'registerArrowCodecs typo')
  // @ts-expect-error a typo
  assertInvalid(await rejection(loadParquetCompressors({ engine: { zstd: 'wasm' } })), /unknown option 'engine' \(did you mean 'engines'\?\)/, 'loadParquetCompressors typo')
  // @ts-expect-error an engine family that does not exist
  assertInvalid(await rejection(loadParquetCompressors({ engines: { zstdd: 'wasm' } })), /unknown engine family 'zstdd' \(did you mean 'zstd'\?\)/, 'loadParquetCompressors family')
})

test('the schema covers what the machine and the codecs take, once', () => {
  // A key is either common, a machine option or a format's own: never two of them.
  for (const role of ['decode', 'encode'] as const) {
    const common = Object.keys(COMMON_OPTIONS[role])
    const machine = Object.keys(MACHINE_OPTIONS[role])
    for (const key of machine) assert.not.ok(common.includes(key), key)
    for (const format of FORMATS) for (const key of Object.keys(FORMAT_TABLE[format].options[role])) assert.not.ok(common.includes(key) || machine.includes(key), `${format} ${key}`)
  }
})

test.run()
