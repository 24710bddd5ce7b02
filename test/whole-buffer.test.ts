/**
 * The one-shot calls over whole buffers (lib/whole-buffer.ts): a frame that declares its
 * size is decoded into one allocation of exactly that size; everything else (several
 * frames, a size that does not hold, no size at all, corrupt input) gives the same bytes
 * and the same errors as the streams, in one fixed-length array of exactly the output's
 * size. The input's type: a string is encoded as UTF-8, anything else not binary is a
 * CodecError.
 */
import { gzipSync } from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError } from '../lib/errors.js'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import { declaredSize } from '../lib/decode-buffer.js'
import { allocateBytes, OutputBytes } from '../lib/output-bytes.js'
import { CompressionStream, zstdEncode } from '../streams/index.js'
import { createDecoder } from '../lib/registry.js'
import type { Format } from '../lib/codec.js'
import { concatBytes as concat } from './_bytes.js'
import { requireCli, runCli } from './_cli.js'

const text = new TextEncoder().encode('one-shot decoding allocates its output once when the size is declared. '.repeat(2000))

/** An output is exact when its buffer holds nothing else (no larger block behind it). */
const exact = (out: Uint8Array) => out.byteOffset === 0 && out.buffer.byteLength === out.length

/** Whether `decode()` allocates `frame`'s output at a declared size (else it grows). */
async function takesExactPath(format: Format, frame: Uint8Array, engine?: 'js' | 'wasm'): Promise<boolean> {
  const decoder = await createDecoder(format, engine ? { engine } : {})
  try {
    return declaredSize(decoder, format, frame, 2 ** 31) >= 0
  } finally {
    decoder.dispose()
  }
}

test('zstd frame with a content size: one exact allocation', async () => {
  const frame = await encode('zstd', text) // our encoder pledges the size of one-shot input
  assert.ok(await takesExactPath('zstd', frame))
  const out = await decode('zstd', frame)
  assert.equal(out, text)
  assert.ok(exact(out), `output buffer is ${out.buffer.byteLength} bytes for ${out.length}`)
})

test('LZ4 frame with a content size: one exact allocation', async () => {
  const frame = await encode('lz4', text, { contentSize: text.length })
  assert.ok(await takesExactPath('lz4', frame))
  const out = await decode('lz4', frame)
  assert.equal(out, text)
  assert.ok(exact(out), `output buffer is ${out.buffer.byteLength} bytes for ${out.length}`)
})

test('gzip member: ISIZE sizes the output, in both engines', async () => {
  for (const engine of ['wasm', 'js'] as const) {
    assert.ok(await takesExactPath('gzip', gzipSync(text), engine), engine)
    const out = await decode('gzip', gzipSync(text), { engine })
    assert.equal(out, text)
    assert.ok(exact(out), `${engine}: output buffer is ${out.buffer.byteLength} bytes for ${out.length}`)
  }
})

test('frames from the reference CLIs decode exactly too', async () => {
  for (const name of ['zstd', 'lz4'] as const) {
    if (!requireCli(name, `${name} CLI frame with a content size`)) continue
    // From a file, so that the tool knows and declares the content size.
    const frame = runCli(name, name === 'lz4' ? ['-c', '-q', '--content-size'] : ['-c', '-q'], text, 'file')
    assert.ok(await takesExactPath(name, frame), `${name} CLI frame`)
    const out = await decode(name, frame)
    assert.equal(out, text)
    assert.ok(exact(out), `${name} CLI frame: output buffer is ${out.buffer.byteLength} bytes for ${out.length}`)
  }
})

test('concatenated gzip members: the last ISIZE is not the whole size, the result is still right and exact', async () => {
  const a = text.subarray(0, 1000)
  const b = text.subarray(1000, 1500)
  // The last member's ISIZE (500) is where the output starts; it grows past it.
  assert.ok(await takesExactPath('gzip', concat([gzipSync(a), gzipSync(b)])))
  const out = await decode('gzip', concat([gzipSync(a), gzipSync(b)]))
  assert.equal(out, concat([a, b]))
  assert.ok(exact(out))
})

test('LZ4 frame without a content size: sized by its blocks, exact when they are full (as the CLI writes them), else copied to its size', async () => {
  const full = text.subarray(0, 4 * 65536) // four full 64 KiB blocks
  for (const [input, what] of [[full, 'full blocks'], [text, 'a short last block']] as const) {
    const frame = await encode('lz4', input, { blockSize: 65536 } as object)
    assert.ok(await takesExactPath('lz4', frame), what)
    const out = await decode('lz4', frame)
    assert.equal(out, input, what)
    assert.ok(exact(out), `${what}: output buffer is ${out.buffer.byteLength} bytes for ${out.length}`)
  }
  if (requireCli('lz4', 'lz4 CLI frame without a content size')) {
    const big = new Uint8Array(8 * 2 ** 20)
    for (let at = 0; at < big.length; at += text.length) big.set(text.subarray(0, Math.min(text.length, big.length - at)), at)
    const frame = runCli('lz4', ['-c', '-q'], big) // from a pipe: no content size; 4 MiB blocks
    assert.ok(await takesExactPath('lz4', frame))
    const out = await decode('lz4', frame)
    assert.ok(Buffer.from(out).equals(Buffer.from(big)))
    assert.ok(exact(out))
  }
})

test('output of no declared size: one fixed-length array of exactly its size, never a resizable one', async () => {
  for (const [format, packed] of [
    ['brotli', await encode('brotli', text)],
    ['deflate', await encode('deflate', text)],
  ] as const) {
    assert.not.ok(await takesExactPath(format, packed), format)
    const out = await decode(format, packed)
    assert.equal(out, text, format)
    assert.ok(exact(out), `${format}: output buffer is ${out.buffer.byteLength} bytes for ${out.length}`)
    assert.not.ok((out.buffer as ArrayBuffer & { resizable?: boolean }).resizable, `${format}: a resizable buffer (web APIs refuse views of those)`)
    // What users do with a result: hand it to a Response.
    assert.is((await new Response(out as Uint8Array<ArrayBuffer>).arrayBuffer()).byteLength, text.length, `${format}: new Response(result)`)
  }
  const encoded = await encode('zstd', text)
  assert.ok(exact(encoded) && !(encoded.buffer as ArrayBuffer & { resizable?: boolean }).resizable, 'encode() output')
})

test('more than 64 MiB in one call, no declared size: LZ4 and zstd streams of several frames', async () => {
  // 96 MiB: above the 64 MiB that capped the caller's input once (issue 30).
  const big = new Uint8Array(96 << 20)
  for (let i = 0; i < big.length; i += 4096) big[i] = i >>> 12
  const lz = await encode('lz4', big)
  assert.equal(await decode('lz4', lz), big)
  const z = concat([await encode('zstd', big.subarray(0, 50 << 20)), await encode('zstd', big.subarray(50 << 20))])
  assert.equal(await decode('zstd', z), big)
  assert.equal(await decode('gzip', await encode('gzip', big, { level: 1 })), big)
})

test('a string to encode() is encoded as UTF-8; any other input that is not binary is INVALID_OPTION', async () => {
  const s = 'héllo, wörld — ' + 'x'.repeat(3000)
  assert.equal(await decode('zstd', await encode('zstd', s)), new TextEncoder().encode(s))
  assert.equal(await decode('gzip', await encode('gzip', s)), new TextEncoder().encode(s))
  for (const bad of [42, null, undefined, {}, [1, 2, 3], new Blob(['x'])]) {
    const e = await encode('zstd', bad as never).then(() => null, (x: unknown) => x)
    assert.instance(e, CodecError, `encode(${String(bad)})`)
    assert.is((e as CodecError).code, 'INVALID_OPTION')
    const d = await decode('zstd', bad as never).then(() => null, (x: unknown) => x)
    assert.instance(d, CodecError, `decode(${String(bad)})`)
  }
  const d = await decode('zstd', 'text' as never).then(() => null, (x: unknown) => x)
  assert.instance(d, CodecError, 'decode(string)')
  assert.match((d as CodecError).message, /string/)
})

test('wrong input types through the streams: a CodecError from the factories, the standard TypeError from the web classes', async () => {
  for (const bad of ['text', 42, {}]) {
    const pair = zstdEncode()
    const w = pair.writable.getWriter()
    const e = await w.write(bad as never).then(() => null, (x: unknown) => x)
    assert.instance(e, CodecError, `zstdEncode().write(${String(bad)})`)
    assert.is((e as CodecError).code, 'INVALID_OPTION')
    const web = new CompressionStream('gzip')
    const ww = web.writable.getWriter()
    const t = await ww.write(bad as never).then(() => null, (x: unknown) => x)
    assert.instance(t, TypeError, `CompressionStream.write(${String(bad)})`)
    assert.instance((t as TypeError).cause, CodecError)
  }
})

test('output a runtime cannot hold in one ArrayBuffer: LIMIT_EXCEEDED naming the stream API, before allocating', () => {
  const target = { format: 'zstd', streamApi: "decodeStream('zstd')" }
  for (const size of [2 ** 53, 2 ** 50]) {
    const e = (() => {
      try {
        OutputBytes.declared(size, Infinity, target)
      } catch (x) {
        return x
      }
      return null
    })()
    assert.instance(e, CodecError, `${size}`)
    assert.is((e as CodecError).code, 'LIMIT_EXCEEDED')
    assert.match((e as CodecError).message, /decodeStream\('zstd'\)/)
  }
  assert.is(allocateBytes(10, target, 'output').length, 10)
})

test('concatenated zstd frames decode to all of them', async () => {
  const a = await encode('zstd', text.subarray(0, 5000))
  const b = await encode('zstd', text.subarray(5000))
  assert.equal(await decode('zstd', concat([a, b])), text)
})

test('a gzip ISIZE that lies: the checksum error of the machine, not a short result', async () => {
  const gz = gzipSync(text)
  const lie = gz.slice()
  lie[lie.length - 4] ^= 0x01
  const err = await decode('gzip', lie).then(() => null, (e: unknown) => e)
  assert.instance(err, CodecError)
  assert.ok(['CHECKSUM_MISMATCH', 'INVALID_DATA'].includes((err as CodecError).code), (err as CodecError).message)
})

test('a hostile declared size is never allocated: limit and ratio bound apply first', async () => {
  const gz = gzipSync(text)
  const huge = gz.slice()
  huge.set([0xff, 0xff, 0xff, 0x7f], huge.length - 4) // ISIZE 2^31-1 from a few kB
  assert.not.ok(await takesExactPath('gzip', huge), 'more than the input can hold')
  const err = await decode('gzip', huge).then(() => null, (e: unknown) => e)
  assert.instance(err, CodecError)
  // Limits from the options still apply on the exact path.
  const limited = await decode('zstd', await encode('zstd', text), { maxOutputBytes: 100 }).then(() => null, (e: unknown) => e)
  assert.instance(limited, CodecError)
  assert.is((limited as CodecError).code, 'LIMIT_EXCEEDED')
})

test('trailing junk after one frame: TRAILING_DATA as from the streams', async () => {
  const frame = await encode('zstd', text)
  const err = await decode('zstd', concat([frame, new Uint8Array([1, 2, 3])])).then(() => null, (e: unknown) => e)
  assert.instance(err, CodecError)
})

test.run()
