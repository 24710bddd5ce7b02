// decompress(): format sniffing over real data (project sources, node binary slices)
// encoded by node:zlib and the reference `zstd`/`lz4` CLIs (Debian packages `zstd`,
// `lz4`); cases needing a missing CLI are skipped with the reason printed.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import * as ponyfill from 'web-streams-polyfill'
import { CodecError } from '../lib/errors.js'
import { detectFormat, SNIFF_LIMIT } from '../lib/detect.js'
import { decompress } from '../streams/decompress.js'
import type { StreamClasses } from '../streams/codec-stream.js'
import { binarySlice } from './_corpus.js'
import { root } from './_fixtures.js'
import { concatBytes as concat } from './_bytes.js'
import { rejection as rejects } from './_caught.js'

import { requireCli, runCli, type Cli } from './_cli.js'

const HAS_ZSTD = requireCli('zstd', 'zstd cases')
const HAS_LZ4 = requireCli('lz4', 'lz4 cases')
const HAS_BROTLI = existsSync(join(root, 'lib/codecs/brotli.ts'))
if (!HAS_BROTLI) console.log('# skipped: brotli cases: lib/codecs/brotli.ts is not there yet')

const cli = (name: Cli, input: Uint8Array, args: string[] = []): Uint8Array => runCli(name, ['-q', '-c', ...args], input)

const source = new Uint8Array(readFileSync(join(root, 'lib/machine.ts')))
const binary = binarySlice(6_000_000, 300_000)
const small = new Uint8Array(readFileSync(join(root, 'lib/status.ts')))

function split(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size))
  return out
}

/** Writes `chunks` and reads everything, concurrently; rejects with the first error. */
async function run(pair: TransformStream<BufferSource, Uint8Array>, chunks: Uint8Array[]): Promise<Uint8Array> {
  const writer = pair.writable.getWriter()
  const writing = (async () => {
    for (const c of chunks) await writer.write(c as Uint8Array<ArrayBuffer>)
    await writer.close()
  })()
  const parts: Uint8Array[] = []
  const reader = pair.readable.getReader()
  try {
    for (;;) {
      const r = await reader.read()
      if (r.done) break
      parts.push(r.value)
    }
  } catch (error) {
    await writing.catch(() => undefined) // the reader's error is the one reported
    throw error
  }
  await writing
  return concat(parts)
}

function skippable(payload: number): Uint8Array {
  const f = new Uint8Array(8 + payload)
  const v = new DataView(f.buffer)
  v.setUint32(0, 0x184d2a53, true)
  v.setUint32(4, payload, true)
  f.fill(0x5a, 8)
  return f
}

const equal = (a: Uint8Array, b: Uint8Array, what: string) => {
  assert.is(a.length, b.length, `${what}: length`)
  assert.ok(Buffer.compare(a, b) === 0, `${what}: bytes differ`)
}

type Case = { name: string; encode: (b: Uint8Array) => Uint8Array; available: boolean }
const cases: Case[] = [
  { name: 'gzip', encode: (b) => zlib.gzipSync(b), available: true },
  { name: 'zlib deflate', encode: (b) => zlib.deflateSync(b), available: true },
  { name: 'zlib deflate level 1', encode: (b) => zlib.deflateSync(b, { level: 1 }), available: true },
  { name: 'zlib deflate level 9, 1 KiB window', encode: (b) => zlib.deflateSync(b, { level: 9, windowBits: 10 }), available: true },
  { name: 'zstd', encode: (b) => cli('zstd', b), available: HAS_ZSTD },
  { name: 'zstd --no-check, 2 frames', encode: (b) => concat([cli('zstd', b.subarray(0, 1000), ['--no-check']), cli('zstd', b.subarray(1000))]), available: HAS_ZSTD },
  { name: 'lz4', encode: (b) => cli('lz4', b), available: HAS_LZ4 },
  { name: 'lz4 -BX --content-size', encode: (b) => cli('lz4', b, ['-BX', '--content-size']), available: HAS_LZ4 },
]

for (const c of cases) {
  const t = c.available ? test : test.skip
  t(`${c.name}: project source and node binary, whole and in 4 KiB chunks`, async () => {
    for (const [what, data] of [['source', source], ['binary', binary]] as const) {
      const encoded = c.encode(data)
      equal(await run(decompress(), [encoded]), data, `${what} whole`)
      equal(await run(decompress(), split(encoded, 4096)), data, `${what} 4 KiB chunks`)
    }
  })
  t(`${c.name}: 1-byte chunks`, async () => {
    const encoded = c.encode(small)
    equal(await run(decompress(), split(encoded, 1)), small, '1-byte chunks')
  })
}

test('detectFormat: magic numbers, prefixes, the zlib check', () => {
  const b = (...x: number[]) => new Uint8Array(x)
  assert.is(detectFormat(b(0x1f, 0x8b), false), 'gzip')
  assert.is(detectFormat(b(0x1f), false), null)
  assert.is(detectFormat(b(0x1f), true), 'truncated')
  assert.is(detectFormat(b(0x78, 0x9c, 0x03), false), 'deflate')
  assert.is(detectFormat(b(0x78, 0x9c), false), null)
  assert.is(detectFormat(b(0x78, 0xda, 0x07), false), 'unknown', 'BTYPE 11 is reserved')
  assert.is(detectFormat(b(0x88, 0x98, 0x03), false), 'unknown', 'CINFO 8 is over the 32 KiB window')
  assert.is(detectFormat(b(0x78, 0x9d, 0x03), false), 'unknown', 'check bits')
  assert.is(detectFormat(b(0x28, 0xb5, 0x2f, 0xfd), false), 'zstd')
  assert.is(detectFormat(b(0x28, 0xb5, 0x2f), false), null)
  assert.is(detectFormat(b(0x04, 0x22, 0x4d, 0x18), false), 'lz4')
  assert.is(detectFormat(b(0x04, 0x22, 0x4d, 0x19), false), 'unknown')
  assert.is(detectFormat(b(), false), null)
  assert.is(detectFormat(b(), true), 'truncated')
  assert.is(detectFormat(new TextEncoder().encode('{"json": true}'), false), 'unknown')
  // Skippable frame then LZ4: looked past; then an unknown frame: zstd reports it.
  assert.is(detectFormat(concat([skippable(3), b(0x04, 0x22, 0x4d, 0x18)]), false), 'lz4')
  assert.is(detectFormat(concat([skippable(3), b(0x04, 0x22)]), false), null)
  assert.is(detectFormat(concat([skippable(3), b(0x04, 0x22)]), true), 'zstd')
  assert.is(detectFormat(concat([skippable(3), b(1, 2, 3, 4)]), false), 'zstd')
  assert.is(detectFormat(skippable(3), true), 'zstd', 'only skippable frames')
  assert.is(detectFormat(skippable(3), false), null)
  // A skippable frame reaching past the sniff limit: not waited for.
  assert.is(detectFormat(skippable(SNIFF_LIMIT).subarray(0, 8), false), 'zstd')
})

const lz4Test = HAS_LZ4 ? test : test.skip
lz4Test('skippable frames before an LZ4 frame: looked past, whole and 1-byte chunks', async () => {
  const input = concat([skippable(0), skippable(1000), cli('lz4', small)])
  equal(await run(decompress(), [input]), small, 'whole')
  equal(await run(decompress(), split(input, 1)), small, '1-byte chunks')
})

const zstdTest = HAS_ZSTD ? test : test.skip
zstdTest('skippable frames before a zstd frame; only skippable frames; one beyond the sniff limit', async () => {
  const frame = cli('zstd', source)
  equal(await run(decompress(), split(concat([skippable(12), frame]), 1)), source, 'skippable + zstd, 1-byte chunks')
  equal(await run(decompress(), [concat([skippable(5), skippable(7)])]), new Uint8Array(0), 'only skippable frames')
  // 70 KB of skippable payload: more than the sniff buffer holds; zstd is picked and
  // decodes it without the sniffer buffering it.
  equal(await run(decompress(), split(concat([skippable(70_000), frame]), 8192)), source, 'large skippable frame')
})

zstdTest('an LZ4 frame after a skippable frame larger than the sniff limit is reported by zstd', async () => {
  const input = concat([skippable(SNIFF_LIMIT), HAS_LZ4 ? cli('lz4', small) : new Uint8Array([4, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7])])
  const error = (await rejects(run(decompress(), [input]))) as CodecError
  assert.instance(error, CodecError)
  assert.is(error.format, 'zstd')
})

test('gzip: concatenated members', async () => {
  const input = concat([zlib.gzipSync(small), zlib.gzipSync(source)])
  equal(await run(decompress(), split(input, 777)), concat([small, source]), 'two members')
  // Any BufferSource: ArrayBuffer and DataView chunks.
  const writer = (async () => {
    const pair = decompress()
    const w = pair.writable.getWriter()
    const out = new Response(pair.readable).arrayBuffer()
    const copy = input.slice()
    await w.write(copy.buffer.slice(0, 5))
    await w.write(new DataView(copy.buffer, 5))
    await w.close()
    return new Uint8Array(await out)
  })()
  equal(await writer, concat([small, source]), 'ArrayBuffer and DataView chunks')
})

test('format forces a format: raw deflate and brotli (no magic numbers)', async () => {
  equal(await run(decompress({ format: 'deflate-raw' }), [zlib.deflateRawSync(source)]), source, 'deflate-raw')
  if (HAS_BROTLI) equal(await run(decompress({ format: 'brotli' }), split(zlib.brotliCompressSync(binary), 5000)), binary, 'brotli')
  else console.log('# skipped: brotli part (no lib/codecs/brotli.ts)')
  // Without `format`, brotli is not recognised.
  const error = (await rejects(run(decompress(), [zlib.brotliCompressSync(source)]))) as CodecError
  assert.is(error.code, 'UNSUPPORTED')
})

test('unknown input: UNSUPPORTED with the first bytes in hex, on both sides', async () => {
  const pair = decompress()
  const writer = pair.writable.getWriter()
  const reader = pair.readable.getReader()
  const write = writer.write(source)
  const read = reader.read()
  const error = (await rejects(read)) as CodecError
  assert.instance(error, CodecError)
  assert.is(error.code, 'UNSUPPORTED')
  const hex = Array.from(source.subarray(0, 4), (x) => x.toString(16).padStart(2, '0')).join(' ')
  assert.ok(error.message.includes(hex), error.message)
  assert.is(await rejects(write), error)
  assert.is(await rejects(writer.closed), error)
})

test('passthrough: unknown input unchanged (whole, 1-byte chunks, 1-byte input); compressed input still decoded', async () => {
  equal(await run(decompress({ passthrough: true }), [source]), source, 'whole')
  equal(await run(decompress({ passthrough: true }), split(small, 1)), small, '1-byte chunks')
  // "(" is the first byte of zstd's magic: a prefix at the end passes through.
  equal(await run(decompress({ passthrough: true }), [new Uint8Array([0x28])]), new Uint8Array([0x28]), 'one byte')
  equal(await run(decompress({ passthrough: true }), split(zlib.gzipSync(source), 100)), source, 'gzip still decoded')
  // maxOutputBytes bounds passed-through output too.
  const error = (await rejects(run(decompress({ passthrough: true, maxOutputBytes: 1000 }), split(source, 300)))) as CodecError
  assert.is(error.code, 'LIMIT_EXCEEDED')
})

test('empty input: TRUNCATED error, or empty output with passthrough; a cut magic is TRUNCATED', async () => {
  const error = (await rejects(run(decompress(), []))) as CodecError
  assert.instance(error, CodecError)
  assert.is(error.code, 'TRUNCATED')
  equal(await run(decompress({ passthrough: true }), []), new Uint8Array(0), 'passthrough')
  equal(await run(decompress({ passthrough: true }), [new Uint8Array(0), new Uint8Array(0)]), new Uint8Array(0), 'empty chunks')
  const cut = (await rejects(run(decompress(), [new Uint8Array([0x28, 0xb5])]))) as CodecError
  assert.is(cut.code, 'TRUNCATED')
  assert.ok(cut.message.includes('28 b5'), cut.message)
  // A gzip header alone: the gzip decoder reports the truncation.
  const gz = (await rejects(run(decompress(), [zlib.gzipSync(source).subarray(0, 30)]))) as CodecError
  assert.is(gz.code, 'TRUNCATED')
  assert.is(gz.format, 'gzip')
})

test('corrupt data after detection errors both sides with the decoder\'s error', async () => {
  const bad = zlib.gzipSync(source)
  bad[bad.length - 6] ^= 0xff // CRC32
  const pair = decompress()
  const writer = pair.writable.getWriter()
  const writing = (async () => {
    for (const part of split(bad, 1000)) await writer.write(part as Uint8Array<ArrayBuffer>)
    await writer.close()
  })()
  const error = (await rejects(new Response(pair.readable).arrayBuffer())) as CodecError
  assert.instance(error, CodecError)
  assert.is(error.code, 'CHECKSUM_MISMATCH')
  assert.is(await rejects(writing), error)
  assert.is(await rejects(writer.closed), error)
})

test('maxOutputBytes: a 64 MiB zlib bomb stops at the limit', async () => {
  const bomb = zlib.deflateSync(new Uint8Array(64 << 20), { level: 9 })
  const error = (await rejects(run(decompress({ maxOutputBytes: 1 << 20 }), [bomb]))) as CodecError
  assert.is(error.code, 'LIMIT_EXCEEDED')
})

test('backpressure: decoded output follows the reads, not the input', async () => {
  // Count the chunks each stream enqueues (the inner decoding stream and the outer one
  // both come from the streams option).
  const counts: number[] = []
  class CountingReadable<R> extends ReadableStream<R> {
    constructor(source: UnderlyingDefaultSource<R>, strategy?: QueuingStrategy<R>) {
      const index = counts.push(0) - 1
      super(
        {
          ...source,
          start: (c) =>
            source.start?.({
              get desiredSize() { return c.desiredSize },
              close: () => c.close(),
              error: (e) => c.error(e),
              enqueue: (chunk) => {
                counts[index]!++
                c.enqueue(chunk)
              },
            }),
        },
        strategy,
      )
    }
  }
  const streams = { ReadableStream: CountingReadable, WritableStream } as unknown as StreamClasses
  const bomb = zlib.gzipSync(new Uint8Array(32 << 20)) // 32 MiB -> 512 chunks of 64 KiB
  const pair = decompress({ streams, chunkSize: 65536 })
  const writer = pair.writable.getWriter()
  const write = writer.write(bomb)
  const reader = pair.readable.getReader()
  const settle = async () => {
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r))
  }
  // Each stage keeps at most a chunk ahead of its reader: output grows with the reads,
  // not with the 512 chunks the input holds.
  for (const reads of [2, 12]) {
    while (counts[0]! < reads) assert.is((await reader.read()).value?.length, 65536)
    await settle()
    assert.is(counts.length, 2, 'outer and inner readable')
    assert.is(counts[0], reads, 'outer: exactly what was read')
    assert.ok(counts[1]! >= reads && counts[1]! <= reads + 2, `inner produced ${counts[1]} chunks for ${reads} reads`)
  }
  // The write is still pending: its input is not consumed yet.
  let settled = false
  write.then(() => (settled = true), () => (settled = true))
  await new Promise((r) => setImmediate(r))
  assert.is(settled, false)
  await reader.cancel(new Error('enough'))
  assert.is(((await rejects(write)) as Error).message, 'enough')
})

test('cancel and abort propagate; signal aborts both sides', async () => {
  // Cancel while a write waits for the consumer.
  {
    const pair = decompress()
    const writer = pair.writable.getWriter()
    const write = writer.write(zlib.gzipSync(new Uint8Array(8 << 20)))
    const reader = pair.readable.getReader()
    await reader.read()
    const reason = new Error('stop reading')
    await reader.cancel(reason)
    assert.is(await rejects(write), reason)
    assert.is(await rejects(writer.closed), reason)
  }
  // Abort the writable: the readable errors with the reason.
  {
    const pair = decompress()
    const writer = pair.writable.getWriter()
    await writer.write(new Uint8Array([0x1f])) // still sniffing
    const reason = new Error('stop writing')
    await writer.abort(reason)
    assert.is(await rejects(pair.readable.getReader().read()), reason)
  }
  // Signal during decoding.
  {
    const controller = new AbortController()
    const pair = decompress({ signal: controller.signal })
    const writer = pair.writable.getWriter()
    const write = writer.write(zlib.gzipSync(new Uint8Array(8 << 20)))
    const reader = pair.readable.getReader()
    await reader.read()
    const reason = new Error('aborted by signal')
    controller.abort(reason)
    assert.is(await rejects(reader.read()), reason)
    assert.is(await rejects(write), reason)
  }
  // Signal already aborted.
  {
    const controller = new AbortController()
    controller.abort(new Error('early'))
    const pair = decompress({ signal: controller.signal })
    assert.is(((await rejects(pair.readable.getReader().read())) as Error).message, 'early')
  }
})

test('streams option: web-streams-polyfill classes; pipeThrough from a polyfill source', async () => {
  const streams = { ReadableStream: ponyfill.ReadableStream, WritableStream: ponyfill.WritableStream } as unknown as StreamClasses
  const pair = decompress({ streams })
  assert.instance(pair.readable, ponyfill.ReadableStream)
  assert.instance(pair.writable, ponyfill.WritableStream)
  const encoded = zlib.gzipSync(source)
  const src = new ponyfill.ReadableStream<Uint8Array>({
    start(c) {
      for (const part of split(encoded, 1000)) c.enqueue(part)
      c.close()
    },
  })
  const parts: Uint8Array[] = []
  const out = src.pipeThrough(pair as unknown as ponyfill.ReadableWritablePair<Uint8Array, Uint8Array>)
  for await (const chunk of out as unknown as AsyncIterable<Uint8Array>) parts.push(chunk)
  equal(concat(parts), source, 'polyfill pipe')
})

test('bad options throw at construction', () => {
  const codeOf = (f: () => unknown) => {
    try {
      f()
    } catch (error) {
      return (error as CodecError).code
    }
    return 'no error'
  }
  assert.is(codeOf(() => decompress({ maxOutputBytes: -1 })), 'INVALID_OPTION')
  assert.is(codeOf(() => decompress({ chunkSize: 3 })), 'INVALID_OPTION')
  assert.is(codeOf(() => decompress({ passthrough: 'yes' as unknown as boolean })), 'INVALID_OPTION')
  assert.is(codeOf(() => decompress({ format: 'rar' as 'gzip' })), 'UNKNOWN_FORMAT')
  assert.is(codeOf(() => decompress({ threads: 0 })), 'INVALID_OPTION')
})

test('threads: a detected zstd stream of frames and an LZ4 frame decode on workers, gzip as before; the output is the input', async () => {
  const { encode, closeWorkers } = await import('../index.js')
  const source = binarySlice(6_000_000, 3_000_000)
  for (const format of ['zstd', 'lz4', 'gzip'] as const) {
    const encoded = await encode(format, source, { threads: 2 })
    const out = await new Response(new Blob([encoded as Uint8Array<ArrayBuffer>]).stream().pipeThrough(decompress({ threads: 2 }))).arrayBuffer()
    equal(new Uint8Array(out), source, `${format} detected, threads: 2`)
  }
  await closeWorkers()
})

test.run()
