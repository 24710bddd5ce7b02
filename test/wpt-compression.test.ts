// The web-platform-tests of the Compression Streams standard (WPT `compression/`, as
// vendored in nodejs/node test/fixtures/wpt/compression), restated for our drop-in
// `CompressionStream` / `DecompressionStream`, for the standard formats and for our
// extras ('brotli', 'zstd', 'lz4'). Each block names the WPT file it ports. Where WPT
// uses pako to check compressed output, node:zlib (and the zstd/lz4 CLIs) are the
// oracle. Cases that need a browser (postMessage, idlharness's WebIDL parser,
// ShadowRealm) are ported as far as Node can express them; the rest is skipped with the
// reason printed.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { randomFillSync } from 'node:crypto'
import * as vm from 'node:vm'
import { fileURLToPath } from 'node:url'
import { CompressionStream, DecompressionStream } from '../streams/index.js'
import {
  ALL_FORMATS,
  COMPRESSED_EMPTY,
  COMPRESSED_EXPECTED,
  EXPECTED,
  INVALID_DEFLATE,
  INVALID_GZIP,
  type Outcome,
  type WebFormat,
  bufferSourceInput,
  codecMissing,
  concat,
  describeError,
  detach,
  guard,
  largeBinary,
  largeText,
  observe,
  readAll,
  referenceCompress,
  referenceDecompress,
  referenceMissing,
  smallText,
  text,
} from './_wpt.js'

// ---------------------------------------------------------------------------------------
// Harness: every case gets a hang guard; skips print their reason once, with a count.

const HANG_MS = 30_000
const skipCounts = new Map<string, number>()

/** WPT_ONLY=<regex> runs only the matching cases (for debugging one case). */
const only = process.env.WPT_ONLY ? new RegExp(process.env.WPT_ONLY) : null

function t(name: string, fn: () => Promise<void> | void, skip: string | null = null): void {
  if (only && !only.test(name)) return
  if (skip) {
    skipCounts.set(skip, (skipCounts.get(skip) ?? 0) + 1)
    test.skip(name, () => {})
    return
  }
  test(name, async () => {
    const t0 = performance.now()
    if (process.env.WPT_TRACE) console.log(`# start: ${name}`)
    try {
      await guard(Promise.resolve().then(fn), HANG_MS, name)
    } finally {
      durations.push([performance.now() - t0, name])
    }
  })
}
/** Per-case wall time, printed (slowest first) with WPT_TIMINGS=1; never asserted on. */
const durations: [number, string][] = []

/** Why cases of `format` needing the fixture `bytes` cannot run, or null. */
function cannot(format: WebFormat, needsReference = false): string | null {
  return codecMissing(format) ?? (needsReference ? referenceMissing(format) : null)
}

/** Whether DecompressionStream(format) takes a sequence of frames (zstd, LZ4 by spec). */
const concatenable = (format: WebFormat) => format === 'zstd' || format === 'lz4'

function assertBytes(actual: Uint8Array, expected: Uint8Array, message: string): void {
  if (actual.length !== expected.length) {
    assert.unreachable(`${message}: ${actual.length} bytes, expected ${expected.length}`)
  }
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i]) assert.unreachable(`${message}: first difference at byte ${i} (${actual[i]} != ${expected[i]})`)
  }
}

async function assertRejectsTypeError(p: Promise<unknown>, what: string): Promise<void> {
  const o = await observe(p)
  if (o.ok) assert.unreachable(`${what} should reject with a TypeError, but fulfilled`)
  else if (!(o.error instanceof TypeError)) assert.unreachable(`${what} should reject with a TypeError, got ${describeError(o.error)}`)
}

/** What the classes accept: a BufferSource (any typed array, DataView or ArrayBuffer). */
type Chunk = ArrayBuffer | ArrayBufferView

/** Writes `chunks` without waiting (as WPT does), reading concurrently; every write and the close must succeed. */
async function throughChunks(stream: CompressionStream | DecompressionStream, chunks: readonly Chunk[]): Promise<Uint8Array> {
  const writer = stream.writable.getWriter()
  const writes = chunks.map((c) => observe(writer.write(c)))
  const closed = observe(writer.close())
  const out = await readAll(stream.readable)
  for (const [i, w] of (await Promise.all(writes)).entries()) {
    if (!w.ok) assert.unreachable(`write ${i} rejected: ${describeError(w.error)}`)
  }
  const c = await closed
  if (!c.ok) assert.unreachable(`close rejected: ${describeError(c.error)}`)
  return out
}

/** Compresses `chunks` written without waiting (as WPT does), reading concurrently. */
const compressChunks = (format: WebFormat, chunks: readonly Chunk[]): Promise<Uint8Array> => throughChunks(new CompressionStream(format), chunks)
const decompressChunks = (format: WebFormat, chunks: readonly Chunk[]): Promise<Uint8Array> => throughChunks(new DecompressionStream(format), chunks)

/** Checks compressed output with the reference decoder and with our own decoder. */
async function assertDecodesTo(format: WebFormat, compressed: Uint8Array, expected: Uint8Array, label: string): Promise<void> {
  if (!referenceMissing(format)) {
    assertBytes(referenceDecompress(format, compressed), expected, `${label}: reference decoder`)
  }
  assertBytes(await decompressChunks(format, [compressed]), expected, `${label}: DecompressionStream round trip`)
}

// Unhandled rejections would mean the stream lost an error somewhere (and would crash
// a default Node process); they are collected and asserted on at the end.
const unhandled: unknown[] = []
process.on('unhandledRejection', (reason) => {
  unhandled.push(reason)
})

// ---------------------------------------------------------------------------------------
// compression-constructor-error.any.js, decompression-constructor-error.tentative.any.js,
// compression-stream.any.js ("constructor should throw on invalid format").

for (const [label, Class] of [
  ['CompressionStream', CompressionStream],
  ['DecompressionStream', DecompressionStream],
] as const) {
  const Ctor = Class as unknown as new (...args: unknown[]) => unknown
  t(`constructor-error: ${label}("a") throws TypeError`, () => {
    assert.throws(() => new Ctor('a'), (e: unknown) => e instanceof TypeError)
  })
  t(`constructor-error: ${label}("nonvalid") throws TypeError`, () => {
    assert.throws(() => new Ctor('nonvalid'), (e: unknown) => e instanceof TypeError)
  })
  t(`constructor-error: ${label}() with no input throws TypeError`, () => {
    assert.throws(() => new Ctor(), (e: unknown) => e instanceof TypeError)
  })
  t(`constructor-error: ${label}({toString() {throw}}) throws that error`, () => {
    const thrown = new Error('from toString')
    assert.throws(
      () => new Ctor({ toString() { throw thrown } }),
      (e: unknown) => e === thrown,
    )
  })
  // WebIDL enums compare exactly: no case folding, no trimming.
  for (const bad of ['GZIP', ' gzip', 'gzip\0', 'lz4-block', '']) {
    t(`constructor-error: ${label}(${JSON.stringify(bad)}) throws TypeError`, () => {
      assert.throws(() => new Ctor(bad), (e: unknown) => e instanceof TypeError)
    })
  }
  t(`constructor: ${label} accepts every format of ours and a String object`, () => {
    for (const f of ALL_FORMATS) new Ctor(f)
    new Ctor(new String('gzip'))
  })
}

// ---------------------------------------------------------------------------------------
// compression-bad-chunks.any.js: a chunk that is not a BufferSource (SharedArrayBuffer
// and views on one included) rejects the write and errors the readable with TypeError.

interface BadChunk {
  name: string
  value: () => unknown
}
const sharedMemory = () => new WebAssembly.Memory({ shared: true, initial: 1, maximum: 1 }).buffer
const BAD_CHUNKS: BadChunk[] = [
  { name: 'undefined', value: () => undefined },
  { name: 'null', value: () => null },
  { name: 'numeric', value: () => 3.14 },
  { name: 'object, not BufferSource', value: () => ({}) },
  { name: 'array', value: () => [65] },
  { name: 'SharedArrayBuffer', value: sharedMemory },
  { name: 'shared Uint8Array', value: () => new Uint8Array(sharedMemory()) },
]

// Beyond WPT, each file is run again for the classes' threads forms (`threads: 2`:
// block-mode CompressionStream, parallel DecompressionStream for 'zstd' and 'lz4'): they
// follow the standard's rules as the serial forms do.
interface Form {
  label: string
  formats: readonly WebFormat[]
  options: { threads: number } | undefined
}
const COMPRESSION_FORMS: Form[] = [
  { label: '', formats: ALL_FORMATS, options: undefined },
  { label: ', threads: 2', formats: ['deflate', 'deflate-raw', 'gzip', 'zstd', 'lz4'], options: { threads: 2 } },
]

for (const { label, formats, options } of COMPRESSION_FORMS) {
  for (const format of formats) {
    for (const chunk of BAD_CHUNKS) {
      t(`compression-bad-chunks${label}: chunk of type ${chunk.name} errors the stream for ${format}`, async () => {
        const cs = new CompressionStream(format, options)
        const reader = cs.readable.getReader()
        const writer = cs.writable.getWriter()
        const writePromise = writer.write(chunk.value() as Chunk)
        const readPromise = reader.read()
        await assertRejectsTypeError(writePromise, 'write')
        await assertRejectsTypeError(readPromise, 'read')
      }, cannot(format))
    }
  }
}

// ---------------------------------------------------------------------------------------
// decompression-bad-chunks.any.js: bad chunks, and bytes that are not the format, error
// the stream: close(), closed, read() and reader.closed all reject with TypeError.

const BAD_DECOMPRESSION_CHUNKS: BadChunk[] = [
  ...BAD_CHUNKS,
  { name: 'invalid deflate bytes', value: () => INVALID_DEFLATE.slice() },
  { name: 'invalid gzip bytes', value: () => INVALID_GZIP.slice() },
]
const DECOMPRESSION_FORMS: Form[] = [
  { label: '', formats: ALL_FORMATS, options: undefined },
  { label: ', threads: 2', formats: ['zstd', 'lz4'], options: { threads: 2 } },
]

for (const { label, formats, options } of DECOMPRESSION_FORMS) {
  for (const format of formats) {
    for (const chunk of BAD_DECOMPRESSION_CHUNKS) {
      t(`decompression-bad-chunks${label}: chunk of type ${chunk.name} errors the stream for ${format}`, async () => {
        const ds = new DecompressionStream(format, options)
        const reader = ds.readable.getReader()
        const writer = ds.writable.getWriter()
        // WPT ignores these two; they are observed so that no rejection goes unhandled.
        const write = observe(writer.write(chunk.value() as Chunk))
        const firstRead = observe(reader.read())
        await assertRejectsTypeError(writer.close(), 'writer.close()')
        await assertRejectsTypeError(writer.closed, 'writer.closed')
        await assertRejectsTypeError(reader.read(), 'reader.read()')
        await assertRejectsTypeError(reader.closed, 'reader.closed')
        // Stronger than WPT: nothing decodes from these inputs, so the first read fails too.
        const r = await firstRead
        if (r.ok) assert.unreachable(`first read gave ${JSON.stringify(r.value)} instead of an error`)
        await write
      }, cannot(format))
    }
  }
}

// ---------------------------------------------------------------------------------------
// decompression-buffersource.any.js (+ .tentative): every kind of BufferSource is read as
// its bytes. Added: views with offsets, Node's pooled Buffer and cross-realm buffers.

type Kind = { name: string; make: (bytes: Uint8Array) => Chunk; skip?: string | null }
/** A copy of `bytes` placed at byte `offset` of a larger buffer filled with junk. */
function embedded(bytes: Uint8Array, offset: number): ArrayBuffer {
  const buf = new Uint8Array(offset + bytes.length + 13).fill(0xa5)
  buf.set(bytes, offset)
  return buf.buffer
}
const own = (bytes: Uint8Array) => bytes.slice().buffer
const Float16 = (globalThis as { Float16Array?: new (b: ArrayBuffer) => ArrayBufferView }).Float16Array
const KINDS: Kind[] = [
  { name: 'ArrayBuffer', make: (b) => own(b) },
  { name: 'Int8Array', make: (b) => new Int8Array(own(b)) },
  { name: 'Uint8Array', make: (b) => new Uint8Array(own(b)) },
  { name: 'Uint8ClampedArray', make: (b) => new Uint8ClampedArray(own(b)) },
  { name: 'Int16Array', make: (b) => new Int16Array(own(b)) },
  { name: 'Uint16Array', make: (b) => new Uint16Array(own(b)) },
  { name: 'Int32Array', make: (b) => new Int32Array(own(b)) },
  { name: 'Uint32Array', make: (b) => new Uint32Array(own(b)) },
  {
    name: 'Float16Array',
    make: (b) => new Float16!(own(b)),
    skip: Float16 ? null : `Float16Array does not exist in Node ${process.versions.node}`,
  },
  { name: 'Float32Array', make: (b) => new Float32Array(own(b)) },
  { name: 'Float64Array', make: (b) => new Float64Array(own(b)) },
  { name: 'BigInt64Array', make: (b) => new BigInt64Array(own(b)) },
  { name: 'BigUint64Array', make: (b) => new BigUint64Array(own(b)) },
  { name: 'DataView', make: (b) => new DataView(own(b)) },
  { name: 'Uint8Array at byte offset 3 of a larger buffer', make: (b) => new Uint8Array(embedded(b, 3), 3, b.length) },
  { name: 'DataView at byte offset 5 of a larger buffer', make: (b) => new DataView(embedded(b, 5), 5, b.length) },
  { name: 'Int32Array at byte offset 8 of a larger buffer', make: (b) => new Int32Array(embedded(b, 8), 8, b.length / 4) },
  { name: 'Float64Array at byte offset 16 of a larger buffer', make: (b) => new Float64Array(embedded(b, 16), 16, b.length / 8) },
  { name: 'Node Buffer (pooled, non-zero byteOffset)', make: (b) => Buffer.from(b) },
  {
    name: 'ArrayBuffer from another realm (node:vm)',
    make: (b) => {
      const ab = vm.runInNewContext(`new ArrayBuffer(${b.length})`) as ArrayBuffer
      new Uint8Array(ab).set(b)
      return ab
    },
  },
  {
    name: 'Uint8Array from another realm (node:vm)',
    make: (b) => {
      const u = vm.runInNewContext(`new Uint8Array(${b.length})`) as Uint8Array
      u.set(b)
      return u
    },
  },
]

for (const format of ALL_FORMATS) {
  const input = bufferSourceInput(format)
  for (const kind of KINDS) {
    t(`decompression-buffersource: chunk of type ${kind.name} works for ${format}`, async () => {
      const { bytes, expected } = input!
      const chunk = kind.make(bytes)
      assert.is(chunk.byteLength, bytes.length)
      const ds = new DecompressionStream(format)
      const reader = ds.readable.getReader()
      const writer = ds.writable.getWriter()
      const write = observe(writer.write(chunk))
      const close = observe(writer.close())
      const { value } = await reader.read()
      assert.ok(value instanceof Uint8Array, 'first chunk is a Uint8Array')
      assertBytes(value!, expected, 'first chunk')
      assert.ok((await reader.read()).done, 'nothing after the output')
      assert.ok((await write).ok && (await close).ok, 'write and close fulfil')
    }, kind.skip ?? cannot(format, true))
  }
}

// ---------------------------------------------------------------------------------------
// decompression-empty-input.any.js (+ .tentative): a stream of nothing decodes to no
// chunks at all; the write fulfils.

for (const format of ALL_FORMATS) {
  t(`decompression-empty-input: decompressing ${format} empty input works`, async () => {
    const ds = new DecompressionStream(format)
    const reader = ds.readable.getReader()
    const writer = ds.writable.getWriter()
    const writePromise = writer.write(COMPRESSED_EMPTY[format]!)
    const close = observe(writer.close())
    const { value, done } = await reader.read()
    assert.ok(done, 'read() sets done')
    assert.is(value, undefined, 'value is undefined')
    await writePromise
    assert.ok((await close).ok, 'close fulfils')
  }, cannot(format, true))
}

// ---------------------------------------------------------------------------------------
// decompression-correct-input.any.js: output arrives without closing the writable.

for (const format of ALL_FORMATS) {
  t(`decompression-correct-input: decompressing ${format} input works (before close)`, async () => {
    const ds = new DecompressionStream(format)
    const reader = ds.readable.getReader()
    const writer = ds.writable.getWriter()
    const write = observe(writer.write(COMPRESSED_EXPECTED[format]!))
    const { value } = await reader.read()
    assertBytes(value!, EXPECTED, 'value')
    const w = await write
    if (!w.ok) assert.unreachable(`write rejected: ${describeError(w.error)}`)
    await reader.cancel()
  }, cannot(format, true))
}

// ---------------------------------------------------------------------------------------
// decompression-uint8array-output.any.js: output chunks are Uint8Array (not a subclass,
// not a Buffer).

for (const format of ALL_FORMATS) {
  t(`decompression-uint8array-output: decompressing ${format} output gives Uint8Array chunks`, async () => {
    const ds = new DecompressionStream(format)
    const reader = ds.readable.getReader()
    const writer = ds.writable.getWriter()
    const writePromise = writer.write(COMPRESSED_EXPECTED[format]!)
    const { value } = await reader.read()
    assert.is(value!.constructor, Uint8Array, 'type should match')
    await writePromise
    await reader.cancel()
  }, cannot(format, true))
  t(`compression output: ${format} gives Uint8Array chunks`, async () => {
    const cs = new CompressionStream(format)
    const writer = cs.writable.getWriter()
    const write = observe(writer.write(text('Hello')))
    const close = observe(writer.close())
    const reader = cs.readable.getReader()
    let chunks = 0
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      assert.is(value.constructor, Uint8Array)
      chunks++
    }
    assert.ok(chunks > 0, 'at least one chunk')
    assert.ok((await write).ok && (await close).ok)
  }, cannot(format))
}

// ---------------------------------------------------------------------------------------
// decompression-corrupt-input.any.js: one field changed at a time; each case says whether
// the stream must fail (with TypeError) or still give exactly 'expected output'.

type Result = 'success' | 'error' | 'corrupt' | string
interface Field {
  name: string
  offset: number
  length: number
  cases: { value: number; result: 'success' | 'error' }[]
}

async function tryDecompress(input: Uint8Array, format: WebFormat): Promise<{ result: Result; close: Outcome<void> }> {
  const ds = new DecompressionStream(format)
  const reader = ds.readable.getReader()
  const writer = ds.writable.getWriter()
  const write = observe(writer.write(input))
  const close = observe(writer.close())
  let out: number[] = []
  for (;;) {
    try {
      const { value, done } = await reader.read()
      if (done) break
      out = out.concat(Array.from(value))
    } catch (e) {
      await write
      return { result: e instanceof TypeError ? 'error' : `${describeError(e)}`, close: await close }
    }
  }
  await write
  const same = out.length === EXPECTED.length && out.every((b, i) => b === EXPECTED[i])
  return { result: same ? 'success' : 'corrupt', close: await close }
}

function corruptInput(input: Uint8Array, offset: number, length: number, value: number): Uint8Array {
  const output = new Uint8Array(input)
  if (offset < 0) offset += input.length
  output.fill(value, offset, offset + length)
  return output
}

/** The WPT fields for deflate and gzip; our own for zstd and LZ4 (read from the fixture). */
function fieldsOf(format: WebFormat, base: Uint8Array): Field[] {
  switch (format) {
    case 'deflate':
      // RFC 1950: CMF, FLG (FCHECK makes 4 of 256 values valid), last data byte, ADLER32.
      return [
        { name: 'CMF', offset: 0, length: 1, cases: [{ value: 0, result: 'error' }] },
        { name: 'FLG', offset: 1, length: 1, cases: [{ value: 218, result: 'success' }, { value: 1, result: 'success' }, { value: 94, result: 'success' }, { value: 157, result: 'error' }] },
        { name: 'DATA', offset: 18, length: 1, cases: [{ value: 4, result: 'success' }, { value: 5, result: 'error' }] },
        { name: 'ADLER', offset: -4, length: 4, cases: [{ value: 255, result: 'error' }] },
      ]
    case 'gzip':
      // RFC 1952: ID1/ID2, CM, FLG (FHCRC makes a header CRC appear from the data),
      // MTIME/XFL/OS (free), last data byte, CRC32, ISIZE.
      return [
        { name: 'ID', offset: 0, length: 2, cases: [{ value: 255, result: 'error' }] },
        { name: 'CM', offset: 2, length: 1, cases: [{ value: 0, result: 'error' }] },
        { name: 'FLG', offset: 3, length: 1, cases: [{ value: 1, result: 'success' }, { value: 2, result: 'error' }] },
        { name: 'MTIME', offset: 4, length: 4, cases: [{ value: 255, result: 'success' }] },
        { name: 'XFL', offset: 8, length: 1, cases: [{ value: 255, result: 'success' }] },
        { name: 'OS', offset: 9, length: 1, cases: [{ value: 128, result: 'success' }] },
        { name: 'DATA', offset: 26, length: 1, cases: [{ value: 3, result: 'error' }, { value: 4, result: 'success' }] },
        { name: 'CRC', offset: -8, length: 4, cases: [{ value: 0, result: 'error' }] },
        { name: 'ISIZE', offset: -4, length: 4, cases: [{ value: 1, result: 'error' }] },
      ]
    case 'zstd': {
      // RFC 8878 §3.1.1: magic, Frame_Header_Descriptor (bit 3 reserved, must be 0), and
      // the Content_Checksum the CLI writes by default (FHD bit 2) = low 32 bits of XXH64.
      const fhd = base[4]!
      const fields: Field[] = [
        { name: 'Magic_Number', offset: 0, length: 4, cases: [{ value: 0, result: 'error' }] },
        { name: 'Frame_Header_Descriptor reserved bit', offset: 4, length: 1, cases: [{ value: fhd | 0x08, result: 'error' }] },
      ]
      if (fhd & 0x04) fields.push({ name: 'Content_Checksum', offset: -4, length: 4, cases: [{ value: 0, result: 'error' }] })
      return fields
    }
    case 'lz4': {
      // LZ4 frame format 1.6.x: magic, FLG version (must be 01), header checksum HC
      // (byte after FLG, BD and the optional content size), content checksum (FLG bit 2).
      const flg = base[4]!
      const hcOffset = 6 + (flg & 0x08 ? 8 : 0) + (flg & 0x01 ? 4 : 0)
      const fields: Field[] = [
        { name: 'Magic', offset: 0, length: 4, cases: [{ value: 0, result: 'error' }] },
        { name: 'FLG version', offset: 4, length: 1, cases: [{ value: flg & 0x3f, result: 'error' }] },
        { name: 'HC', offset: hcOffset, length: 1, cases: [{ value: base[hcOffset]! ^ 0xff, result: 'error' }] },
      ]
      if (flg & 0x04) fields.push({ name: 'Content checksum', offset: -4, length: 4, cases: [{ value: 0, result: 'error' }] })
      return fields
    }
    case 'deflate-raw':
    case 'brotli':
      return []
  }
}

for (const format of ALL_FORMATS) {
  // WPT's table covers deflate, gzip and brotli; deflate-raw, zstd and lz4 are ours.
  const skip = cannot(format, true)
  const base = COMPRESSED_EXPECTED[format]
  t(`decompression-corrupt-input: the unchanged input for '${format}' decompresses successfully`, async () => {
    const { result, close } = await tryDecompress(base!, format)
    assert.is(result, 'success')
    assert.ok(close.ok, 'close fulfils')
  }, skip)
  t(`decompression-corrupt-input: truncating the input for '${format}' gives an error`, async () => {
    const { result, close } = await tryDecompress(base!.subarray(0, -1), format)
    assert.is(result, 'error')
    assert.ok(!close.ok && close.error instanceof TypeError, 'close rejects with the TypeError')
  }, skip)
  t(`decompression-corrupt-input: trailing junk for '${format}' gives an error`, async () => {
    const { result, close } = await tryDecompress(new Uint8Array([...base!, 0]), format)
    assert.is(result, 'error')
    assert.ok(!close.ok && close.error instanceof TypeError, 'close rejects with the TypeError')
  }, skip)
  if (skip) continue
  for (const { name, offset, length, cases } of fieldsOf(format, base!)) {
    for (const { value, result } of cases) {
      t(`decompression-corrupt-input: format '${format}' field ${name} is ${result} for ${value}`, async () => {
        const corrupted = corruptInput(base!, offset, length, value)
        const got = await tryDecompress(corrupted, format)
        assert.is(got.result, result, 'result should match')
        assert.is(got.close.ok, result === 'success', 'close fulfils exactly when decoding succeeds')
      })
    }
  }
}

t(`decompression-corrupt-input: the deflate input compressed with a dictionary gives an error`, async () => {
  // zlib stream with FDICT set (RFC 1950 §2.2): the decoder has no dictionary to use.
  const withDictionary = new Uint8Array([0x78, 0xbb, 0x74, 0xee, 0x09, 0x59, 0x2b, 0xc1, 0x2e, 0x0c, 0x00, 0x74, 0xee, 0x09, 0x59])
  const { result } = await tryDecompress(withDictionary, 'deflate')
  assert.is(result, 'error')
}, cannot('deflate'))

// Every single-byte change to the deflate and gzip inputs either errors or still decodes
// to exactly the right bytes (the WPT file tests chosen positions; this tests all, with
// the value flipped). Never a non-TypeError, never wrong output without an error.
for (const format of ALL_FORMATS) {
  t(`decompression-corrupt-input (every byte): flipping any byte of the ${format} input errors or decodes correctly`, async () => {
    const base = COMPRESSED_EXPECTED[format]!
    const bad: string[] = []
    for (let i = 0; i < base.length; i++) {
      const corrupted = corruptInput(base, i, 1, base[i]! ^ 0xff)
      const { result } = await tryDecompress(corrupted, format)
      if (result !== 'error' && result !== 'success') bad.push(`byte ${i}: ${result}`)
    }
    // deflate-raw and brotli carry no checksum: a flipped literal decodes to other bytes
    // without any possible error, so 'corrupt' is allowed only for them.
    const allowed = format === 'deflate-raw' || format === 'brotli' ? bad.filter((b) => !b.endsWith(': corrupt')) : bad
    assert.equal(allowed, [], allowed.join('; '))
  }, cannot(format, true))
}

// ---------------------------------------------------------------------------------------
// decompression-extra-input.any.js: output first, then the TypeError for the junk. zstd
// and LZ4 streams are sequences of frames, so a trailing byte may begin a next frame and
// can only be judged at the end: for them the writable is closed too.

for (const format of ALL_FORMATS) {
  t(`decompression-extra-input: decompressing ${format} input with extra pad still gives the output`, async () => {
    const ds = new DecompressionStream(format)
    const reader = ds.readable.getReader()
    const writer = ds.writable.getWriter()
    const write = observe(writer.write(new Uint8Array([...COMPRESSED_EXPECTED[format]!, 0])))
    const close = concatenable(format) ? observe(writer.close()) : null
    const { value } = await reader.read()
    assertBytes(value!, EXPECTED, 'value')
    await assertRejectsTypeError(reader.read(), 'the read after the output')
    await write
    if (close) await close
  }, cannot(format, true))
}

// ---------------------------------------------------------------------------------------
// decompression-split-chunk.any.js (+ .tentative): chunks of 1..15 bytes, written without
// waiting. Added: two chunks split at every position, and empty chunks between bytes.

function splitInto(bytes: Uint8Array, size: number): Uint8Array[] {
  const parts: Uint8Array[] = []
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.slice(i, i + size))
  return parts
}

for (const format of ALL_FORMATS) {
  const skip = cannot(format, true)
  for (let size = 1; size < 16; size++) {
    t(`decompression-split-chunk: pieces of size ${size} work in ${format}`, async () => {
      assertBytes(await decompressChunks(format, splitInto(COMPRESSED_EXPECTED[format]!, size)), EXPECTED, 'value should match')
    }, skip)
  }
  t(`decompression-split-chunk: two chunks split at every position work in ${format}`, async () => {
    const bytes = COMPRESSED_EXPECTED[format]!
    for (let at = 0; at <= bytes.length; at++) {
      assertBytes(await decompressChunks(format, [bytes.slice(0, at), bytes.slice(at)]), EXPECTED, `split at ${at}`)
    }
  }, skip)
  t(`decompression-split-chunk: one-byte chunks with empty chunks between work in ${format}`, async () => {
    const chunks = splitInto(COMPRESSED_EXPECTED[format]!, 1).flatMap((c) => [new Uint8Array(0), c, new ArrayBuffer(0)])
    assertBytes(await decompressChunks(format, chunks), EXPECTED, 'value should match')
  }, skip)
  t(`decompression-split-chunk: a large ${format} stream in 1000-byte chunks`, async () => {
    const data = largeText().subarray(0, 256 * 1024)
    const compressed = await compressChunks(format, [data])
    assertBytes(await decompressChunks(format, splitInto(compressed, 1000)), data, 'value should match')
  }, cannot(format))
}

// ---------------------------------------------------------------------------------------
// compression-stream.any.js (+ .tentative): empty, small and large inputs compress to
// data the reference decoder (and ours) restores. WPT's media files are replaced by
// files of this checkout: a small text, 512 KiB of .d.ts text, 512 KiB of the node binary.

const INPUTS: [string, () => Uint8Array][] = [
  ['empty data', () => new Uint8Array(0)],
  ['small amount data', smallText],
  ['large amount data (text)', largeText],
  ['large amount data (binary)', largeBinary],
]
for (const format of ALL_FORMATS) {
  for (const [label, make] of INPUTS) {
    t(`compression-stream: ${format} ${label} is reinflated back to its origin`, async () => {
      const data = make()
      const compressed = await compressChunks(format, [data])
      await assertDecodesTo(format, compressed, data, label)
    }, cannot(format))
  }
}

// The decoding counterpart (not in WPT): the reference encoder's output of the same
// inputs decodes with DecompressionStream, in one chunk and in 4 KiB chunks.
for (const format of ALL_FORMATS) {
  for (const [label, make] of INPUTS) {
    t(`reference-compressed: ${format} ${label} from the reference encoder decodes`, async () => {
      const data = make()
      const compressed = referenceCompress(format, data)
      assertBytes(await decompressChunks(format, [compressed]), data, 'one chunk')
      assertBytes(await decompressChunks(format, splitInto(compressed, 4096)), data, '4 KiB chunks')
    }, cannot(format, true))
  }
}

// ---------------------------------------------------------------------------------------
// compression-including-empty-chunk.any.js (+ .tentative): empty chunks change nothing.

for (const format of ALL_FORMATS) {
  for (const list of [['', 'Hello', 'Hello'], ['Hello', '', 'Hello'], ['Hello', 'Hello', '']]) {
    t(`compression-including-empty-chunk: compressing [${list}] with ${format} gives 'HelloHello'`, async () => {
      const compressed = await compressChunks(format, list.map(text))
      await assertDecodesTo(format, compressed, text('HelloHello'), 'value should match')
    }, cannot(format))
  }
}

// ---------------------------------------------------------------------------------------
// compression-multiple-chunks.any.js (+ .tentative): 2..16 chunks of 'Hello'.

for (const format of ALL_FORMATS) {
  for (let n = 2; n <= 16; n++) {
    t(`compression-multiple-chunks: compressing ${n} chunks with ${format} works`, async () => {
      const hello = text('Hello')
      const compressed = await compressChunks(format, Array.from({ length: n }, () => hello))
      await assertDecodesTo(format, compressed, text('Hello'.repeat(n)), 'value should match')
    }, cannot(format))
  }
}

// ---------------------------------------------------------------------------------------
// compression-large-flush-output.any.js: the first 35,579 bytes of "[0,1,...,9999]", whose
// final flush is large, are not truncated.

for (const format of ALL_FORMATS) {
  t(`compression-large-flush-output: ${format} compression with large flush output`, async () => {
    const full = text(JSON.stringify(Array.from({ length: 10_000 }, (_, i) => i)))
    assert.is(full.length, 48_891)
    const data = full.subarray(0, 35_579)
    await assertDecodesTo(format, await compressChunks(format, [data]), data, 'value should match')
  }, cannot(format))
}

// ---------------------------------------------------------------------------------------
// compression-output-length.any.js (+ .tentative): real data comes out smaller.

for (const format of ALL_FORMATS) {
  for (const [label, make] of INPUTS.slice(2)) {
    t(`compression-output-length: ${format} output of ${label} is shorter than the input`, async () => {
      const data = make()
      const compressed = await compressChunks(format, [data])
      assert.ok(compressed.length < data.length, `${compressed.length} >= ${data.length}`)
    }, cannot(format))
  }
}

// ---------------------------------------------------------------------------------------
// compression-with-detach.window.js, decompression-with-detach.window.js: the input's
// buffer is detached while output is being read (WPT detaches it with postMessage from a
// getter on Object.prototype.then, looked up when read() resolves; Node detaches it with
// structuredClone's transfer list). The result must still be right.

async function withDetachOnRead<T>(buffer: ArrayBuffer, body: () => Promise<T>): Promise<{ value: T; detached: boolean }> {
  let detached = false
  Object.defineProperty(Object.prototype, 'then', {
    configurable: true,
    get() {
      if (!detached && buffer.byteLength > 0) detached = detach(buffer)
      return undefined
    },
  })
  try {
    return { value: await body(), detached }
  } finally {
    delete (Object.prototype as { then?: unknown }).then
  }
}

for (const format of ALL_FORMATS) {
  t(`compression-with-detach: ${format} data is compressed correctly even if the input is detached partway`, async () => {
    const input = new Uint8Array(500_000)
    randomFillSync(input)
    const copy = input.slice()
    const cs = new CompressionStream(format)
    const writer = cs.writable.getWriter()
    const write = observe(writer.write(input))
    const close = observe(writer.close())
    const { value: output, detached } = await withDetachOnRead(input.buffer, () => readAll(cs.readable))
    assert.ok(detached, 'the input was detached during the reads')
    await write
    await close
    assertBytes(await decompressChunks(format, [output]), copy, 'decompressing the output gives the input')
  }, cannot(format))

  t(`decompression-with-detach: ${format} data is decompressed correctly even if the input is detached partway`, async () => {
    const input = await compressChunks(format, [new Uint8Array(1_000_000)])
    const ds = new DecompressionStream(format)
    const writer = ds.writable.getWriter()
    const write = observe(writer.write(input))
    const close = observe(writer.close())
    const { value: output, detached } = await withDetachOnRead(input.buffer as ArrayBuffer, () => readAll(ds.readable))
    assert.ok(detached, 'the input was detached during the reads')
    await write
    await close
    assert.is(output.byteLength, 1_000_000, 'output should be the right length')
    assert.ok(output.every((b) => b === 0), 'output is all zeros')
  }, cannot(format))
}

// WPT runs each file in a fresh page, so CompressionStream(format) there is the first
// stream of its engine. In this file earlier cases have loaded every engine already;
// these run the case above in a fresh Node process per format, where the engine loads
// lazily between writer.write() and the sink's write().
/** Runs one case of this file in a fresh Node process; resolves to a failure or null. */
async function runInFreshProcess(pattern: string): Promise<string | null> {
  const { spawn } = await import('node:child_process')
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, FORCE_COLOR: '0', WPT_FRESH_CHILD: '1', WPT_ONLY: pattern, WPT_TIMINGS: '', WPT_TRACE: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code === 0 && /Total:\s+1\b/.test(out) && /Passed:\s+1\b/.test(out)) return null
  const reason = /FAIL\s+"[^"]*"\s*\n\s*([^\n]+)/.exec(out)?.[1] ?? out.slice(-400)
  return `exited ${code}: ${reason.replace(/\s+\(unreachable\)/g, '').trim()}`
}

if (!process.env.WPT_FRESH_CHILD) {
  // One per engine module: deflate, deflate-raw and gzip share lib/codecs/deflate-js.ts.
  for (const format of ['deflate', 'brotli', 'zstd', 'lz4'] as const) {
    t(`compression-with-detach (fresh process, engine not loaded yet): ${format}`, async () => {
      const failure = await runInFreshProcess(`^compression-with-detach: ${format} `)
      if (failure) assert.unreachable(`in a fresh process: ${failure}`)
    }, cannot(format))
  }
}

// The same, expressed without the Object.prototype hook: the input is detached right
// after the first output chunk has been read, while the stream still has input to use.

/** Writes `input` to `stream`, detaches its buffer once the first chunk is read, and returns all output. */
async function detachAfterFirstRead(stream: CompressionStream | DecompressionStream, input: Uint8Array): Promise<Uint8Array> {
  const writer = stream.writable.getWriter()
  const write = observe(writer.write(input))
  const close = observe(writer.close())
  const reader = stream.readable.getReader()
  const parts: Uint8Array[] = []
  const first = await reader.read()
  assert.ok(!first.done, 'a first chunk')
  parts.push(first.value!)
  assert.ok(detach(input.buffer as ArrayBuffer), 'detached')
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    parts.push(value)
  }
  const w = await write
  const c = await close
  assert.ok(w.ok && c.ok, 'write and close fulfil')
  return concat(parts)
}

for (const format of ALL_FORMATS) {
  t(`detach after the first read: ${format} compression still gives the whole input`, async () => {
    const input = new Uint8Array(500_000)
    randomFillSync(input)
    const copy = input.slice()
    const out = await detachAfterFirstRead(new CompressionStream(format), input)
    assertBytes(await decompressChunks(format, [out]), copy, 'decompressing the output gives the input')
  }, cannot(format))

  t(`detach after the first read: ${format} decompression still gives the whole output`, async () => {
    const data = largeText()
    const input = await compressChunks(format, [data])
    assertBytes(await detachAfterFirstRead(new DecompressionStream(format), input), data, 'output')
  }, cannot(format))
}

// ---------------------------------------------------------------------------------------
// idlharness.https.any.js: WebIDL's shape of the interfaces, checked directly (Node has
// no WebIDL parser harness). idlharness-shadowrealm.window.js needs ShadowRealm.

for (const [name, Class] of [
  ['CompressionStream', CompressionStream],
  ['DecompressionStream', DecompressionStream],
] as const) {
  t(`idlharness: ${name} is a constructor of length 1 that requires new`, () => {
    assert.type(Class, 'function')
    assert.is(Class.length, 1)
    assert.is(Class.name, name)
    assert.throws(() => (Class as unknown as (f: string) => unknown)('deflate'), (e: unknown) => e instanceof TypeError)
  })
  t(`idlharness: ${name}.prototype readable/writable are enumerable, configurable getters without setters (WebIDL §3.7.6)`, () => {
    for (const attr of ['readable', 'writable']) {
      const d = Object.getOwnPropertyDescriptor(Class.prototype, attr)
      assert.ok(d && typeof d.get === 'function', `${attr} is an accessor`)
      assert.is(d!.set, undefined, `${attr} has no setter`)
      assert.is(d!.configurable, true, `${attr} is configurable`)
      assert.is(d!.enumerable, true, `${attr} is enumerable`)
    }
  })
  t(`idlharness: ${name}.prototype getters throw TypeError on a foreign this`, () => {
    for (const attr of ['readable', 'writable']) {
      const get = Object.getOwnPropertyDescriptor(Class.prototype, attr)!.get!
      assert.throws(() => get.call({}), (e: unknown) => e instanceof TypeError)
    }
  })
  t(`idlharness: ${name}.prototype[Symbol.toStringTag] is the data property '${name}' (WebIDL §3.7.3)`, () => {
    const instance = new Class('deflate')
    assert.is(Object.prototype.toString.call(instance), `[object ${name}]`)
    const d = Object.getOwnPropertyDescriptor(Class.prototype, Symbol.toStringTag)
    assert.ok(d, 'own property of the prototype')
    assert.equal(
      { value: d!.value, writable: d!.writable, enumerable: d!.enumerable, configurable: d!.configurable },
      { value: name, writable: false, enumerable: false, configurable: true },
    )
  })
  t(`idlharness: new ${name}('deflate') exposes a ReadableStream and a WritableStream (GenericTransformStream)`, () => {
    const s = new Class('deflate')
    assert.ok(s.readable instanceof ReadableStream)
    assert.ok(s.writable instanceof WritableStream)
    assert.is(s.readable, s.readable, 'the same object each time')
  })
  t(`idlharness-shadowrealm: ${name} inside a ShadowRealm`, () => {}, 'ShadowRealm does not exist in Node (idlharness-shadowrealm.window.js needs a browser)')
}

t('our classes are the ones under test, not the runtime globals', () => {
  assert.is.not(CompressionStream, (globalThis as { CompressionStream?: unknown }).CompressionStream)
  assert.is.not(DecompressionStream, (globalThis as { DecompressionStream?: unknown }).DecompressionStream)
})

// GenericTransformStream: usable with pipeThrough both ways.
for (const format of ALL_FORMATS) {
  t(`pipeThrough: ${format} round trip through both classes`, async () => {
    const data = smallText()
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(data.slice(0, 100))
        c.enqueue(data.slice(100))
        c.close()
      },
    })
    const out = await readAll(source.pipeThrough(new CompressionStream(format)).pipeThrough(new DecompressionStream(format)))
    assertBytes(out, data, 'round trip')
  }, cannot(format))
}

t('no unhandled promise rejections during the run', () => {
  assert.equal(unhandled.map(describeError), [])
})

for (const [reason, count] of skipCounts) console.log(`# skipped: ${count} case(s): ${reason}`)
if (process.env.WPT_TIMINGS) {
  test.after(() => {
    durations.sort((a, b) => b[0] - a[0])
    for (const [ms, name] of durations.slice(0, 25)) console.log(`# ${ms.toFixed(0).padStart(6)} ms  ${name}`)
  })
}

test.run()
