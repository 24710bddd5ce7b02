/**
 * One-shot `decode()`: a single frame that declares its size is decoded into one
 * allocation of exactly that size; everything else (several frames, a size that does
 * not hold, corrupt input) gives the same bytes and the same errors as the streams.
 */
import { gzipSync } from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError } from '../lib/errors.js'
import { declaredSizeDecode, decode, encode } from '../lib/oneshot.js'
import { createDecoder } from '../lib/registry.js'
import type { Format } from '../lib/codec.js'
import { concatBytes as concat } from './_bytes.js'
import { requireCli, runCli } from './_cli.js'

const text = new TextEncoder().encode('one-shot decoding allocates its output once when the size is declared. '.repeat(2000))

/** An output is exact when its buffer holds nothing else (no larger block behind it). */
const exact = (out: Uint8Array) => out.byteOffset === 0 && out.buffer.byteLength === out.length

/** Whether `decode()` takes the one-allocation path for `frame` (else the machine's). */
async function takesExactPath(format: Format, frame: Uint8Array, engine?: 'js' | 'wasm'): Promise<boolean> {
  const decoder = await createDecoder(format, engine ? { engine } : {})
  try {
    return declaredSizeDecode(decoder, format, frame, 2 ** 31) !== null
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
  assert.not.ok(await takesExactPath('lz4', await encode('lz4', text)), 'a frame without content size has nothing to go by')
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

test('concatenated gzip members: the last ISIZE is not the whole size, the result is still right', async () => {
  const a = text.subarray(0, 1000)
  const b = text.subarray(1000, 1500)
  assert.not.ok(await takesExactPath('gzip', concat([gzipSync(a), gzipSync(b)])))
  const out = await decode('gzip', concat([gzipSync(a), gzipSync(b)]))
  assert.equal(out, concat([a, b]))
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
