/**
 * sluice/node: codecs as Node Duplex streams, with real files through stream.pipeline,
 * the reference CLIs and node:zlib as oracles.
 */
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip, createGzip, gzipSync, brotliCompressSync } from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { decodeFile, fromWebReadable, nodeDecode, nodeEncode, toWebReadable } from '../adapters/node/index.js'
import { CodecError } from '../lib/errors.js'
import { gzipDecode } from '../streams/index.js'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import { releasePair } from './_corpus.js'
import { root } from './_fixtures.js'
import { cliMissing, runCli, type Cli } from './_cli.js'

const dir = mkdtempSync(join(tmpdir(), 'sluice-node-adapter-'))
/** A real file from disk: TypeScript's DOM declarations (1.9 MB of text). */
const source = join(root, 'node_modules', 'typescript', 'lib', 'lib.dom.d.ts')
const original = readFileSync(source)

/** Collects a Node readable into one Buffer. */
async function drain(readable: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = []
  await pipeline(readable, new Writable({ write(chunk, _e, cb) { parts.push(chunk); cb() } }))
  return Buffer.concat(parts)
}

for (const format of ['gzip', 'deflate', 'deflate-raw', 'lz4', 'zstd', 'brotli', 'snappy'] as const) {
  test(`${format}: file -> nodeEncode -> file -> nodeDecode -> file, with stream.pipeline`, async () => {
    const packed = join(dir, `dom.${format}`)
    const unpacked = join(dir, `dom.${format}.out`)
    await pipeline(createReadStream(source, { highWaterMark: 64 * 1024 }), nodeEncode(format), createWriteStream(packed))
    const packedSize = readFileSync(packed).length
    assert.ok(packedSize < original.length / 3, `${format}: ${packedSize} bytes from ${original.length}`)
    await pipeline(createReadStream(packed, { highWaterMark: 1000 }), nodeDecode(format), createWriteStream(unpacked))
    assert.ok(readFileSync(unpacked).equals(original), `${format}: the round trip differs`)
  })
}

const clis: Array<[format: 'zstd' | 'lz4' | 'brotli' | 'gzip', cli: Cli, args: string[]]> = [
  ['gzip', 'gzip', ['-c', '-6']],
  ['zstd', 'zstd', ['-c', '-q', '-19', '--check']],
  ['lz4', 'lz4', ['-c', '-q', '-BX']],
  ['brotli', 'brotli', ['-c', '-q', '9']],
]
for (const [format, cli, args] of clis) {
  const name = `${format}: a file compressed by the reference ${cli} CLI decodes with pipeline(createReadStream, nodeDecode)`
  const missing = cliMissing(cli)
  if (missing) {
    console.log(`# skipped: ${name}: ${missing}`)
    test.skip(name)
    continue
  }
  test(name, async () => {
    const packed = join(dir, `cli.${format}`)
    writeFileSync(packed, runCli(cli, args, original, 'file'))
    const decoded = await drain(createReadStream(packed).pipe(nodeDecode(format)))
    assert.ok(decoded.equals(original))
    // And ours is accepted by the reference decoder.
    const ours = join(dir, `ours.${format}`)
    await pipeline(createReadStream(source), nodeEncode(format), createWriteStream(ours))
    const back = runCli(cli, ['-d', '-c', ...(cli === 'brotli' ? [] : ['-q'])], readFileSync(ours), 'file')
    assert.ok(Buffer.from(back.buffer, back.byteOffset, back.byteLength).equals(original), `${cli} -d of our ${format} differs`)
  })
}

test('gzip: interoperates with node:zlib streams both ways', async () => {
  const viaZlib = await drain(Readable.from([original]).pipe(createGzip()).pipe(nodeDecode('gzip')))
  assert.ok(viaZlib.equals(original))
  const viaUs = await drain(Readable.from([original]).pipe(nodeEncode('gzip', { level: 9 })).pipe(createGunzip()))
  assert.ok(viaUs.equals(original))
})

test('decodeFile: a path and an open FileHandle', async () => {
  const packed = join(dir, 'handle.gz')
  writeFileSync(packed, gzipSync(original))
  assert.ok((await drain(await decodeFile(packed, 'gzip'))).equals(original))
  const handle = await open(packed)
  assert.ok((await drain(await decodeFile(handle, 'gzip'))).equals(original))
})

test('corrupt file: pipeline rejects with the CodecError (code and offset)', async () => {
  const bad = Buffer.from(gzipSync(original))
  bad[bad.length - 6]! ^= 0x55 // RFC 1952 §2.3.1: the CRC32 trailer
  const file = join(dir, 'bad.gz')
  writeFileSync(file, bad)
  try {
    await pipeline(createReadStream(file), nodeDecode('gzip'), new Writable({ write(_c, _e, cb) { cb() } }))
    assert.unreachable('pipeline resolved')
  } catch (error) {
    assert.instance(error, CodecError)
    assert.is((error as CodecError).code, 'CHECKSUM_MISMATCH')
  }
})

test('truncated input: TRUNCATED; bad options throw at construction', async () => {
  const gz = gzipSync(original).subarray(0, 5000)
  try {
    await drain(Readable.from([gz]).pipe(nodeDecode('gzip')))
    assert.unreachable('resolved')
  } catch (error) {
    assert.is((error as CodecError).code, 'TRUNCATED')
  }
  assert.throws(() => nodeEncode('zstd', { level: 99 }), (e: unknown) => e instanceof CodecError && e.code === 'INVALID_OPTION')
  assert.throws(() => nodeDecode('gzip', { maxOutputBytes: -5 }), (e: unknown) => e instanceof CodecError && e.code === 'INVALID_OPTION')
})

test('backpressure: a 64 MiB bomb written whole waits for its reader (bounded buffering)', async () => {
  const bomb = gzipSync(Buffer.alloc(64 << 20))
  const decoder = nodeDecode('gzip')
  let writeDone = false
  decoder.write(bomb, () => (writeDone = true))
  // Let the engine load and the codec run as far as it will without a reader.
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
  assert.ok(decoder.readableLength <= 2 * 64 * 1024, `buffered ${decoder.readableLength} bytes with no reader`)
  assert.not.ok(writeDone, 'the write finished although its output was not read')
  let total = 0
  decoder.end()
  for await (const chunk of decoder) total += (chunk as Buffer).length
  assert.is(total, 64 << 20)
  assert.ok(writeDone)
})

test('maxOutputBytes: LIMIT_EXCEEDED before more than the limit is produced', async () => {
  let received = 0
  try {
    await pipeline(Readable.from([gzipSync(Buffer.alloc(8 << 20))]), nodeDecode('gzip', { maxOutputBytes: 1 << 20 }), new Writable({ write(c, _e, cb) { received += c.length; cb() } }))
    assert.unreachable('resolved')
  } catch (error) {
    assert.is((error as CodecError).code, 'LIMIT_EXCEEDED')
  }
  assert.ok(received <= 1 << 20, `received ${received}`)
})

test('concatenated: false: one member decodes and ends; a second member is TRAILING_DATA', async () => {
  const member = gzipSync(Buffer.from('one member'))
  assert.is(String(await drain(Readable.from([member]).pipe(nodeDecode('gzip', { concatenated: false })))), 'one member')
  try {
    await drain(Readable.from([member, member]).pipe(nodeDecode('gzip', { concatenated: false })))
    assert.unreachable('resolved')
  } catch (error) {
    assert.is((error as CodecError).code, 'TRAILING_DATA')
  }
})

test("engine 'node' (node:zlib) through the same duplex", async () => {
  const br = brotliCompressSync(original)
  const decoded = await drain(Readable.from([br]).pipe(nodeDecode('brotli', { engine: 'node' })))
  assert.ok(decoded.equals(original))
})

test('toWebReadable / fromWebReadable: a file through a WHATWG codec stream and back', async () => {
  const web = toWebReadable(createReadStream(join(dir, 'handle.gz'))).pipeThrough(gzipDecode())
  assert.ok((await drain(fromWebReadable(web))).equals(original))
})

const release = releasePair('lib.es5.d.ts')
if (!release) console.log('# skipped: Node duplex dictionary case: the older TypeScript release (a dependency of @arethetypeswrong/cli) is not in node_modules')

test('nodeEncode / nodeDecode pass the dictionary on: zstd, brotli, deflate, deflate-raw, dcz, dcb through pipeline()', async () => {
  if (!release) return
  const { dictionary, body } = release
  for (const format of ['zstd', 'brotli', 'deflate', 'deflate-raw', 'dcz', 'dcb'] as const) {
    const encoded = await drain(Readable.from([body.subarray(0, 70_000), body.subarray(70_000)]).pipe(nodeEncode(format, { dictionary })))
    const plain = format === 'dcz' ? 'zstd' : format === 'dcb' ? 'brotli' : format
    const without = await encode(plain, body)
    // deflate's window is 32 KiB: only the dictionary's end helps a 218 KB body.
    const factor = format.startsWith('deflate') ? 1 : 2
    assert.ok(encoded.length * factor < without.length, `${format}: ${encoded.length} bytes with the dictionary, ${without.length} without`)
    assert.ok(Buffer.compare(await decode(format, encoded, { dictionary }), body) === 0, `${format}: the one-shot decoder reads the duplex's output`)
    const decoded = await drain(Readable.from([encoded.subarray(0, 100), encoded.subarray(100)]).pipe(nodeDecode(format, { dictionary })))
    assert.ok(Buffer.compare(decoded, body) === 0, `${format}: the decoding duplex`)
    // Another dictionary: a CodecError, never other bytes (the zstd checksum, zlib's DICTID, the dcz/dcb hash; raw deflate and brotli have no check).
    if (format === 'deflate-raw' || format === 'brotli') continue
    // Shifted by 1000 bytes: every reference into it names other bytes.
    const other = dictionary.subarray(1000)
    const error = await drain(Readable.from([encoded]).pipe(nodeDecode(format, { dictionary: other }))).then(() => null, (e: unknown) => e)
    assert.instance(error, CodecError, `${format} with another dictionary`)
  }
})

test.after(() => rmSync(dir, { recursive: true, force: true }))
test.run()
