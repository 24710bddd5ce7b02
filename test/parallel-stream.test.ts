// Block mode as a stream (streams/parallel-stream.ts): the same bytes as the one-shot
// encode() for any chunking and thread count, flush() ending a block, bounded jobs in
// flight, backpressure, cancel and abort, option checks at the call.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { CodecError, CompressionStream, decode, encode, encodeResponse, gzipEncode, lz4Encode, zstdEncode, brotliEncode, deflateRawEncode } from '../index.js'
import { BlockEncoder, blockPlan } from '../lib/parallel/blocks.js'
import { closeWorkers, workerPool } from '../streams/pool.js'
import { checkBlockSize } from '../lib/parallel/block-options.js'
import { checkThreads } from '../streams/threads.js'
import { blockFamily } from '../lib/parallel/block-options.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { randomChunks } from './_streams.js'
import { rejection } from './_caught.js'
import { warmWorkers } from './_workers.js'

const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 2_500_000, /\.d\.ts$/)
const input = new Uint8Array(text.length + 300_000)
input.set(text)
input.set(randomBytes(300_000), text.length)


async function collect(pair: ReadableWritablePair<Uint8Array, Uint8Array>, chunks: Uint8Array[]): Promise<Uint8Array> {
  const reading = new Response(pair.readable).arrayBuffer()
  const writer = pair.writable.getWriter()
  for (const c of chunks) await writer.write(c)
  await writer.close()
  return new Uint8Array(await reading)
}

test('BlockEncoder: any chunking of the input gives the one-shot bytes (inline jobs)', async () => {
  const { runJob } = await import('../lib/parallel/jobs.js')
  const engines = await import('../lib/registry.js')
  for (const format of ['gzip', 'zstd', 'lz4'] as const) {
    const plan = blockPlan(format, format === 'lz4' ? 65536 : 65536, {})!
    const oneShot = await encode(format, input, { blockSize: format === 'lz4' ? undefined : 65536, threads: format === 'lz4' ? 2 : 1 })
    for (const most of [1000, 70_000, 300_000]) {
      const e = await BlockEncoder.open(plan)
      const jobs = randomChunks(input, most).flatMap((c) => e.push(c))
      jobs.push(...e.end())
      const parts = [e.header()]
      for (const job of jobs) parts.push(e.take(await runJob(job, engines)))
      parts.push(e.trailer())
      assert.equal(new Uint8Array(await new Blob(parts as BlobPart[]).arrayBuffer()), oneShot, `${format} chunks up to ${most}`)
    }
  }
})

test('streams: the one-shot bytes for 1 and 2 threads, any chunking', async () => {
  for (const [format, factory] of [['gzip', gzipEncode], ['zstd', zstdEncode], ['lz4', lz4Encode]] as const) {
    const blockSize = format === 'lz4' ? 65536 : 131072
    const expected = await encode(format, input, { threads: 2, blockSize } as never)
    for (const threads of [1, 2]) {
      for (const most of [5000, 400_000]) {
        const got = await collect(factory({ threads, blockSize } as never), randomChunks(input, most, threads))
        assert.equal(got, expected, `${format} threads ${threads} chunks up to ${most}`)
      }
    }
  }
})

test('streams: a Buffer the caller reuses after each write is copied at the write (its slice() is a view)', async () => {
  const expected = await encode('gzip', input, { threads: 2 })
  const pair = gzipEncode({ threads: 2 })
  const reading = new Response(pair.readable).arrayBuffer()
  const writer = pair.writable.getWriter()
  const scratch = Buffer.alloc(100_000)
  for (let at = 0; at < input.length; at += scratch.length) {
    const n = Math.min(scratch.length, input.length - at)
    scratch.set(input.subarray(at, at + n))
    await writer.write(scratch.subarray(0, n))
    scratch.fill(0xaa)
  }
  await writer.close()
  assert.equal(new Uint8Array(await reading), expected)
})

test('streams: flush() ends the current block; the output so far decodes', async () => {
  const pair = deflateRawEncode({ threads: 2, blockSize: 65536 })
  const reader = pair.readable.getReader()
  const writer = pair.writable.getWriter()
  const first = input.subarray(0, 100_000)
  const reading = (async () => {
    const parts: Uint8Array[] = []
    for (;;) {
      const r = await reader.read()
      if (r.done) return parts
      parts.push(r.value)
    }
  })()
  await writer.write(first)
  await pair.flush()
  await writer.write(input.subarray(100_000, 150_000))
  await writer.close()
  const all = new Uint8Array(await new Blob((await reading) as BlobPart[]).arrayBuffer())
  assert.equal(await decode('deflate-raw', all), input.subarray(0, 150_000))
  // flush: 'write' and gzip: node:zlib reads the member.
  const gz = await collect(gzipEncode({ threads: 2, flush: 'write' }), randomChunks(input.subarray(0, 500_000), 200_000))
  assert.equal(new Uint8Array(gunzipSync(gz)), input.subarray(0, 500_000))
})

test('streams: at most 2 × threads jobs queued, and a reader that stops reading stops the writes', async () => {
  const pair = zstdEncode({ threads: 2, blockSize: 65536 })
  const writer = pair.writable.getWriter()
  let written = 0
  // Nobody reads: writes must stop resolving while the output waits.
  const writing = (async () => {
    for (const c of randomChunks(input, 65536)) {
      await writer.write(c)
      written += c.length
      assert.ok(workerPool().queued <= 4, `queued ${workerPool().queued}`)
    }
  })()
  writing.catch(() => {})
  await new Promise((r) => setTimeout(r, 1500))
  assert.ok(written < input.length, `${written} of ${input.length} written without a reader`)
  // Cancel: the writer side errors, queued jobs are dropped.
  await pair.readable.cancel(new Error('enough'))
  const error = await writing.then(
    () => null,
    (e: unknown) => e,
  )
  assert.ok(error instanceof Error, 'the pending write failed after the cancel')
  assert.is(workerPool().queued, 0)
})

test('streams: an AbortSignal errors both sides', async () => {
  const controller = new AbortController()
  const pair = gzipEncode({ threads: 2, signal: controller.signal })
  const reading = new Response(pair.readable).arrayBuffer().then(
    () => 'done',
    (e: unknown) => (e as Error).message,
  )
  const writer = pair.writable.getWriter()
  await writer.write(input.subarray(0, 400_000))
  controller.abort(new CodecError('ABORTED', 'gzip', 'stop'))
  assert.match(await reading, /stop/)
})

test('streams: options checked at the call', () => {
  assert.throws(() => gzipEncode({ threads: 0 }), (e: CodecError) => e.code === 'INVALID_OPTION')
  assert.throws(() => zstdEncode({ blockSize: 1000 }), (e: CodecError) => e.code === 'INVALID_OPTION')
  assert.throws(() => zstdEncode({ threads: 2, contentSize: 5 }), (e: CodecError) => e.code === 'INVALID_OPTION')
  assert.throws(() => brotliEncode({ threads: 2 }), (e: CodecError) => e.code === 'UNSUPPORTED')
  assert.throws(() => gzipEncode({ threads: 2, levle: 5 } as never), (e: CodecError) => e.code === 'INVALID_OPTION' && /did you mean 'level'/.test(e.message))
})

test('blockSize and threads by the format table: the smallest block per family, LZ4\'s four sizes, none for formats without blocks', () => {
  const verdict = (f: () => unknown): string => {
    try {
      f()
      return 'ok'
    } catch (e) {
      return (e as CodecError).code
    }
  }
  const sizes = [undefined, 0, 32767, 32768, 65535, 65536, 100000, 262144, 2 ** 30, 2 ** 30 + 1, 1.5, '65536', null]
  const expected: Record<string, string> = {
    deflate: 'ok INVALID_OPTION INVALID_OPTION ok ok ok ok ok ok INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION',
    zstd: 'ok INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION ok ok ok ok INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION',
    lz4: 'ok INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION ok INVALID_OPTION ok INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION',
    none: 'ok INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION',
  }
  const families = { gzip: 'deflate', deflate: 'deflate', 'deflate-raw': 'deflate', zstd: 'zstd', lz4: 'lz4', brotli: 'none', snappy: 'none', dcz: 'none', dcb: 'none', 'lz4-block': 'none' } as const
  for (const [format, family] of Object.entries(families)) {
    assert.is(blockFamily(format as never) ?? 'none', family, `${format}'s family`)
    assert.is(sizes.map((size) => verdict(() => checkBlockSize(format as never, size))).join(' '), expected[family], `${format} blockSize verdicts`)
  }
  // In Node the runtime has workers: only the form is refused.
  const threads = [undefined, 'auto', 'x', 0, 1, 2, 2.5, 256, 257, -1, null, '2']
  assert.is(threads.map((t) => verdict(() => checkThreads('gzip', t))).join(' '), 'ok ok INVALID_OPTION INVALID_OPTION ok ok INVALID_OPTION ok INVALID_OPTION INVALID_OPTION INVALID_OPTION INVALID_OPTION')
})

test('CompressionStream takes threads and blockSize: the encode() bytes; bad values are TypeErrors', async () => {
  const got = await collect(new CompressionStream('gzip', { threads: 2 }) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>, randomChunks(input, 100_000))
  assert.equal(got, await encode('gzip', input, { threads: 2 }))
  assert.throws(() => new CompressionStream('gzip', { threads: 0 }), (e: Error) => e instanceof TypeError)
  assert.throws(() => new CompressionStream('deflate', { blockSize: 10 }), (e: Error) => e instanceof TypeError)
})

test('CompressionStream with threads: a failure is the standard\'s TypeError carrying the CodecError, as without threads', async () => {
  await warmWorkers(2, input)
  const cs = new CompressionStream('gzip', { threads: 2, blockSize: 32768 })
  const reader = cs.readable.getReader()
  const writer = cs.writable.getWriter()
  const writing = writer.write(input).catch((e: unknown) => e)
  // The header, then the first block: jobs are on the workers now; ending the workers
  // fails them (and those queued) with ABORTED.
  await reader.read()
  await reader.read()
  closeWorkers()
  let error: unknown = null
  for (;;) {
    const r = await reader.read().catch((e: unknown) => ((error = e), null))
    if (!r || r.done) break
  }
  assert.instance(error, TypeError, 'the read fails with a TypeError')
  assert.instance((error as TypeError).cause, CodecError)
  assert.is((error as { code?: string }).code, 'ABORTED')
  assert.is(await writing, error, 'the write fails with the same error')
})

test('encodeResponse with threads: large bodies of known length in block mode, small ones as always', async () => {
  const request = new Request('http://x/', { headers: { 'accept-encoding': 'zstd, gzip' } })
  const large = await encodeResponse(request, new Response(input, { headers: { 'content-type': 'text/plain', 'content-length': String(input.length) } }), { threads: 2, encodings: ['gzip'] })
  assert.is(large.headers.get('content-encoding'), 'gzip')
  const body = new Uint8Array(await large.arrayBuffer())
  assert.equal(body, await encode('gzip', input, { threads: 2, level: 6 }), 'block mode, the one-shot bytes')
  const small = input.subarray(0, 5000)
  const plain = await encodeResponse(request, new Response(small, { headers: { 'content-type': 'text/plain', 'content-length': String(small.length) } }), { threads: 2, encodings: ['gzip'] })
  assert.equal(new Uint8Array(await plain.arrayBuffer()), await encode('gzip', small, { level: 6 }), 'a small body: the serial stream')
  assert.is(((await rejection(encodeResponse(request, new Response('x'), { threads: -1 }))) as CodecError).code, 'INVALID_OPTION')
})

test.run()
