// Flush on write and flush(): after each write, everything written so far decodes with an
// independent decoder that is given only the bytes out so far: node:zlib reading with
// sync flush (deflate family, brotli), the reference `zstd` and `lz4` CLIs (Debian
// packages; missing -> their cases are skipped) on the prefix.
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import * as zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { loadCodec, type Engine } from '../lib/registry.js'
import { Machine } from '../lib/machine.js'
import { CompressionStream, encodeStream, gzipEncode } from '../streams/index.js'
import { nodeEncode } from '../adapters/node/index.js'
import { concatBytes } from './_bytes.js'
import { cliOutput, requireCli } from './_cli.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'

const CLI = { zstd: requireCli('zstd', 'zstd prefix cases'), lz4: requireCli('lz4', 'lz4 prefix cases') }
const engineLoads = async (format: Format, engine: Engine) => loadCodec(format, engine, 'encode').then(() => true, () => false)
const NODE_ZSTD = await engineLoads('zstd', 'node')
if (!NODE_ZSTD) console.log(`# skipped: zstd on engine 'node': node:zlib has no zstd in Node ${process.versions.node} (needs 22.15)`)

/** Decodes a prefix of a stream (no end) with a decoder that is not ours. */
function decodePrefix(format: Format, bytes: Uint8Array): Uint8Array {
  const sync = { finishFlush: zlib.constants.Z_SYNC_FLUSH }
  switch (format) {
    case 'gzip':
      return zlib.gunzipSync(bytes, sync)
    case 'deflate':
      return zlib.inflateSync(bytes, sync)
    case 'deflate-raw':
      return zlib.inflateRawSync(bytes, sync)
    case 'brotli':
      return zlib.brotliDecompressSync(bytes, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
    case 'zstd':
    case 'lz4': {
      // The frame has no end yet: the CLI reports that (exit 1) after writing what it decoded.
      return cliOutput(format, ['-d', '-c', '-q'], bytes)
    }
    default:
      throw new Error(`no prefix decoder for ${format}`)
  }
}

/** Reads what the readable side offers until it waits for more input. */
function collector(readable: ReadableStream<Uint8Array>) {
  const reader = readable.getReader()
  const got: Uint8Array[] = []
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null
  let ended = false
  return {
    got,
    get ended() {
      return ended
    },
    /** Writes `chunk` while reading; returns once the write resolved and the output stopped. */
    async write(writer: WritableStreamDefaultWriter<Uint8Array>, chunk: Uint8Array): Promise<void> {
      let settled = false
      const w = writer.write(chunk).then(() => {
        settled = true
      })
      while (!settled) await this.drain()
      await w
      await this.drain()
    },
    /** Calls `flush()` while reading; returns once it resolved and the output stopped. */
    async flush(pair: { flush(): Promise<void> }): Promise<void> {
      let settled = false
      const f = pair.flush().finally(() => {
        settled = true
      })
      while (!settled) await this.drain()
      await f
      await this.drain()
    },
    /** Closes the writer while reading, to the end of the stream. */
    async close(writer: WritableStreamDefaultWriter<Uint8Array>): Promise<void> {
      const c = writer.close()
      while (!ended) await this.drain()
      await c
    },
    /** Reads until a read stays pending past every queued task (the stream waits for input). */
    async drain(): Promise<void> {
      for (;;) {
        pending ??= reader.read()
        const idle = new Promise<'idle'>((resolve) => setImmediate(() => resolve('idle')))
        const r = await Promise.race([pending, idle])
        if (r === 'idle') return
        pending = null
        if (r.done) {
          ended = true
          return
        }
        got.push(r.value)
      }
    },
  }
}

/**
 * Pieces of a text corpus, of growing sizes (SSE-like lines to 70 KB). They total less
 * than 128 KiB: the zstd CLI decodes into a 128 KiB buffer, and when an unfinished
 * frame's input ends just as that buffer fills, it stops without the rest.
 */
const source = filesCorpus(root + '/lib', 400_000)
const sizes = [1, 17, 200, 3000, 70_000, 40_000, 5]
const pieces: Uint8Array[] = []
{
  let at = 0
  for (const n of sizes) {
    pieces.push(source.subarray(at % source.length, (at % source.length) + n))
    at += n
  }
}

const cases: Array<[Format, Engine | undefined, boolean]> = [
  ['gzip', undefined, true],
  ['gzip', 'js', true],
  ['gzip', 'node', true],
  ['deflate', undefined, true],
  ['deflate', 'js', true],
  ['deflate', 'node', true],
  ['deflate-raw', undefined, true],
  ['deflate-raw', 'node', true],
  ['zstd', undefined, CLI.zstd],
  ['zstd', 'node', CLI.zstd && NODE_ZSTD],
  ['lz4', 'js', CLI.lz4],
  ['lz4', 'wasm', CLI.lz4],
  ['brotli', undefined, true],
  ['brotli', 'node', true],
]

for (const [format, engine, runnable] of cases) {
  const name = `flush 'write' ${format}${engine ? ` (${engine})` : ''}: after each write, all written so far decodes`
  ;(runnable ? test : test.skip)(name, async () => {
    const pair = encodeStream(format, { flush: 'write', engine, level: format === 'brotli' ? 5 : undefined })
    const writer = pair.writable.getWriter()
    const out = collector(pair.readable)
    const written: Uint8Array[] = []
    for (const piece of pieces) {
      written.push(piece)
      await out.write(writer, piece)
      const decoded = decodePrefix(format, concatBytes(out.got))
      assert.equal(decoded.length, concatBytes(written).length, `${format} after ${written.length} writes: decoded length`)
      assert.ok(Buffer.compare(decoded, concatBytes(written)) === 0, `${format} after ${written.length} writes: bytes`)
    }
    await out.close(writer)
  })
}

/**
 * The output of each write of `pieces` through `format`'s encoder with flush: 'write',
 * one segment per write (the first one with the gzip/zlib header).
 */
async function segments(format: Format, options: Record<string, unknown>): Promise<Uint8Array[]> {
  const pair = encodeStream(format, { flush: 'write', ...options })
  const writer = pair.writable.getWriter()
  const out = collector(pair.readable)
  const result: Uint8Array[] = []
  for (const piece of pieces) {
    const before = out.got.length
    await out.write(writer, piece)
    result.push(concatBytes(out.got.slice(before)))
  }
  await out.close(writer)
  return result
}

const inflateAlone = (segment: Uint8Array): Buffer => zlib.inflateRawSync(segment, { finishFlush: zlib.constants.Z_SYNC_FLUSH })

for (const engine of [undefined, 'js', 'node'] as const) {
  for (const format of ['deflate-raw', 'gzip'] as const) {
    test(`fullFlush ${format}${engine ? ` (${engine})` : ''}: after each sync point, a fresh node:zlib raw inflater with no history decodes the next write alone`, async () => {
      const full = await segments(format, { engine, fullFlush: true })
      // Segment 0 carries the gzip header; every later one is raw deflate on its own.
      for (let i = 1; i < pieces.length; i++) {
        const alone = inflateAlone(full[i]!)
        assert.ok(Buffer.compare(alone, pieces[i]!) === 0, `write ${i}: ${alone.length} bytes decoded alone, ${pieces[i]!.length} written`)
      }
      // The sync flush (the default) keeps the history: some later write refers back
      // past its sync point and does not decode alone.
      const sync = await segments(format, { engine })
      const failures = sync.slice(1).filter((segment, i) => {
        try {
          return Buffer.compare(inflateAlone(segment), pieces[i + 1]!) !== 0
        } catch {
          return true
        }
      })
      assert.ok(failures.length > 0, 'a sync flush keeps matches reaching back')
    })
  }
}

test('fullFlush is a deflate-family option: a boolean, refused by the other formats', () => {
  assert.throws(() => encodeStream('gzip', { fullFlush: 'yes' } as never), (e: unknown) => e instanceof CodecError && e.code === 'INVALID_OPTION')
  assert.throws(() => encodeStream('zstd', { fullFlush: true } as never), (e: unknown) => e instanceof CodecError && e.code === 'INVALID_OPTION')
})

test("flush 'none' (the default) writes no sync point: small writes stay buffered", async () => {
  const pair = encodeStream('deflate-raw', {})
  const writer = pair.writable.getWriter()
  const out = collector(pair.readable)
  await out.write(writer, new TextEncoder().encode('data: hello\n\n'.repeat(10)))
  assert.is(concatBytes(out.got).length, 0, 'nothing is out before the end')
  await out.close(writer)
  assert.ok(concatBytes(out.got).length > 0)
})

test('flush() writes a sync point on demand; resolves at once after close', async () => {
  for (const format of ['gzip', 'zstd', 'brotli'] as const) {
    if (format === 'zstd' && !CLI.zstd) continue
    const pair = encodeStream(format)
    const writer = pair.writable.getWriter()
    const out = collector(pair.readable)
    const text = new TextEncoder().encode('event: tick\ndata: 1\n\n')
    await out.write(writer, text)
    await out.flush(pair)
    const decoded = decodePrefix(format, concatBytes(out.got))
    assert.is(new TextDecoder().decode(decoded), 'event: tick\ndata: 1\n\n', format)
    await out.close(writer)
    await pair.flush()
  }
})

test("a raw LZ4 block cannot flush: 'write' throws UNSUPPORTED at creation, flush() rejects", async () => {
  try {
    encodeStream('lz4-block', { flush: 'write' })
    assert.unreachable('should throw')
  } catch (error) {
    assert.instance(error, CodecError)
    assert.is((error as CodecError).code, 'UNSUPPORTED')
  }
  const pair = encodeStream('lz4-block')
  try {
    await pair.flush()
    assert.unreachable('flush should reject')
  } catch (error) {
    assert.is((error as CodecError).code, 'UNSUPPORTED')
  }
  await pair.writable.abort()
})

test("bad flush values are refused; CompressionStream takes flush: 'write' and has flush()", async () => {
  assert.throws(() => encodeStream('gzip', { flush: 'always' as never }), (e: CodecError) => e.code === 'INVALID_OPTION')
  const cs = new CompressionStream('gzip', { flush: 'write' })
  const writer = cs.writable.getWriter()
  const out = collector(cs.readable)
  await out.write(writer, new TextEncoder().encode('one'))
  assert.is(new TextDecoder().decode(decodePrefix('gzip', concatBytes(out.got))), 'one')
  await out.flush(cs)
  const zs = gzipEncode()
  assert.type(zs.flush, 'function')
  await out.close(writer)
})

test("the Node duplex takes flush: 'write' too", async () => {
  const duplex = nodeEncode('gzip', { flush: 'write' })
  const got: Buffer[] = []
  duplex.on('data', (chunk: Buffer) => got.push(chunk))
  await new Promise<void>((resolve) => duplex.write(Buffer.from('first line\n'), () => resolve()))
  await new Promise((resolve) => setImmediate(resolve))
  assert.is(zlib.gunzipSync(Buffer.concat(got), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString(), 'first line\n')
  duplex.end()
  await pipeline(duplex, new Writable({ write: (_c, _e, cb) => cb() }))
})

test('the Node duplex: flush() is ordered after the writes before it, and what they wrote then decodes', async () => {
  const duplex = nodeEncode('gzip')
  const got: Buffer[] = []
  duplex.on('data', (chunk: Buffer) => got.push(chunk))
  duplex.write(Buffer.from('one, '))
  duplex.write(Buffer.from('two'))
  await new Promise<void>((resolve) => duplex.flush(() => resolve()))
  await new Promise((resolve) => setImmediate(resolve))
  assert.is(zlib.gunzipSync(Buffer.concat(got), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString(), 'one, two')
  duplex.end(Buffer.from(', three'))
  await pipeline(duplex, new Writable({ write: (_c, _e, cb) => cb() }))
  assert.is(zlib.gunzipSync(Buffer.concat(got)).toString(), 'one, two, three')
})

test('the machine: requestFlush() on a decoder is a caller mistake; flushes are counted once each', async () => {
  const mod = await loadCodec('deflate-raw', 'js')
  const decoding = new Machine(mod.createDecoder({}), { format: 'deflate-raw', mode: 'decode', blockSize: 1024, maxOutputBytes: Infinity, concatenated: false })
  assert.throws(() => decoding.requestFlush(), (e: CodecError) => e.code === 'INVALID_OPTION')
  // A 64-byte block: the sync point spans blocks and is still written once.
  const m = new Machine(mod.createEncoder({}), { format: 'deflate-raw', mode: 'encode', blockSize: 64, maxOutputBytes: Infinity, concatenated: false, flush: 'write' })
  const parts: Uint8Array[] = []
  for (const piece of [source.subarray(0, 5000), source.subarray(5000, 5001)]) {
    m.push(piece)
    for (let out = m.next(); out !== null; out = m.next()) parts.push(out.slice())
    assert.ok(m.needsInput)
  }
  assert.is(m.flushes, 2)
  assert.is(Buffer.compare(decodePrefix('deflate-raw', concatBytes(parts)), source.subarray(0, 5001)), 0)
  m.end()
  for (let out = m.next(); out !== null; out = m.next()) parts.push(out.slice())
  assert.ok(m.finished)
  assert.is(Buffer.compare(zlib.inflateRawSync(concatBytes(parts)), source.subarray(0, 5001)), 0)
})

test.run()
