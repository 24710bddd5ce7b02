// Every limit of docs/errors-and-limits.md, reached: LIMIT_EXCEEDED with a message that
// names the option raising it (or says that none does, and what to use instead), on
// every surface that has the limit; and the defaults: the streams decode past the 2 GiB
// that one-shot decode() and decodeResponse stop at (shown with a smaller limit given
// and with Infinity: the default values are checked where the options are built).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { tableFromArrays, tableToIPC } from 'apache-arrow'
import { CodecError } from '../lib/errors.js'
import { checkOptions, DEFAULT_MAX_OUTPUT_BYTES } from '../lib/codec-options.js'
import { FORMATS, rowOf } from '../lib/formats.js'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import { createDecoder } from '../lib/registry.js'
import { Machine, MAX_TAIL_BYTES } from '../lib/machine.js'
import { decodeStream, decompress, zstdFrames } from '../streams/index.js'
import { STREAM_SURFACE } from '../lib/prepare.js'
import { decodeResponse, MAX_CONTENT_ENCODINGS } from '../adapters/fetch/index.js'
import { readArrow } from '../adapters/arrow/index.js'
import { parquetMetadataSync } from '../lib/parquet/index.js'
import { nodeDecode } from '../adapters/node/index.js'
import { read } from './_streams.js'

const zeros = new Uint8Array(1 << 20)

/** The CodecError `f` throws or rejects with. */
async function failure(f: () => unknown): Promise<CodecError> {
  try {
    await f()
  } catch (e) {
    if (e instanceof CodecError) return e
    throw e
  }
  throw new Error('expected a CodecError')
}

/** Formats that need no option of their own to decode (the dictionary transports do, raw LZ4 its outputSize). */
const plain = FORMATS.filter((f) => rowOf(f).dictionary !== 'required' && f !== 'lz4-block')

test('maxOutputBytes: every format, one-shot, stream, Node stream and span decoder: LIMIT_EXCEEDED naming maxOutputBytes', async () => {
  for (const format of plain) {
    const packed = await encode(format, zeros)
    const limit = { maxOutputBytes: 1000 }
    const oneShot = await failure(() => decode(format, packed, limit))
    const stream = await failure(() => read(new Blob([packed as Uint8Array<ArrayBuffer>]).stream().pipeThrough(decodeStream(format, limit))))
    const node = await failure(
      () =>
        new Promise((resolve, reject) => {
          const d = nodeDecode(format, limit)
          d.on('data', () => {}).on('end', resolve).on('error', reject)
          d.end(packed)
        }),
    )
    const span = await failure(async () => {
      const m = new Machine(await createDecoder(format, limit), { format, mode: 'decode', blockSize: 65536, maxOutputBytes: 1000, concatenated: true })
      m.push(packed)
      m.end()
      while (m.next()) {
        /* until the limit */
      }
    })
    for (const [surface, e] of [['decode()', oneShot], ['decodeStream()', stream], ['nodeDecode()', node], ['span decoder', span]] as const) {
      assert.is(e.code, 'LIMIT_EXCEEDED', `${format} ${surface}: ${e.message}`)
      assert.match(e.message, /maxOutputBytes/, `${format} ${surface}`)
    }
  }
})

test('maxOutputBytes defaults: 2 GiB where output is held (one-shot, span decoders), none for the streams', () => {
  assert.is(DEFAULT_MAX_OUTPUT_BYTES, 2 ** 31)
  for (const format of plain) {
    assert.is(checkOptions(format, 'decode', {}).maxOutputBytes, 2 ** 31, `${format}: span decoders`)
    assert.is(checkOptions(format, 'decode', {}, { machine: ['concatenated', 'onProgress'] }).maxOutputBytes, 2 ** 31, `${format}: one-shot decode()`)
    assert.is(checkOptions(format, 'decode', {}, STREAM_SURFACE).maxOutputBytes, Infinity, `${format}: streams`)
    // The codec gets the surface's limit too (a frame declaring more fails at its header).
    assert.is(checkOptions(format, 'decode', {}, STREAM_SURFACE).codec.maxOutputBytes, Infinity)
  }
})

test('decodeResponse: 2 GiB by default, maxOutputBytes named', async () => {
  const body = await encode('zstd', zeros)
  const e = await failure(() => decodeResponse(new Response(body as Uint8Array<ArrayBuffer>, { headers: { 'content-encoding': 'zstd' } }), { maxOutputBytes: 1000 }).arrayBuffer())
  assert.is(e.code, 'LIMIT_EXCEEDED')
  assert.match(e.message, /maxOutputBytes/)
  // decompress() too (a stream: no default cap, the option when given).
  const d = await failure(() => read(new Blob([body as Uint8Array<ArrayBuffer>]).stream().pipeThrough(decompress({ maxOutputBytes: 1000 }))))
  assert.match(d.message, /maxOutputBytes/)
})

test('maxWindowLog: a zstd frame asking for a larger window names maxWindowLog', async () => {
  // Frame header: no content size, window descriptor 2^(10+17) = 128 MiB.
  const frame = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x00, 17 << 3, 0x01, 0x00, 0x00])
  for (const run of [() => decode('zstd', frame, { maxWindowLog: 20 }), () => read(new Blob([frame]).stream().pipeThrough(decodeStream('zstd', { maxWindowLog: 20 })))]) {
    const e = await failure(run)
    assert.is(e.code, 'LIMIT_EXCEEDED')
    assert.match(e.message, /maxWindowLog/)
  }
})

test('Content-Encoding layers: more than 5 names MAX_CONTENT_ENCODINGS, not an option', async () => {
  const e = await failure(() => decodeResponse(new Response(zeros, { headers: { 'content-encoding': 'gzip, gzip, gzip, gzip, gzip, gzip' } })))
  assert.is(e.code, 'LIMIT_EXCEEDED')
  assert.match(e.message, new RegExp(`MAX_CONTENT_ENCODINGS, not an option`))
  assert.is(MAX_CONTENT_ENCODINGS, 5)
})

test('maxMessageBytes (Arrow) and maxFooterBytes (Parquet) are named', async () => {
  const ipc = tableToIPC(tableFromArrays({ a: Int32Array.from({ length: 1000 }, (_, i) => i) }), 'stream')
  const e = await failure(() => readArrow(ipc, { maxMessageBytes: 100 }))
  assert.is(e.code, 'LIMIT_EXCEEDED')
  assert.match(e.message, /maxMessageBytes/)
  // A Parquet file's last 8 bytes: the footer length, then PAR1.
  const file = new Uint8Array(4 + 1000 + 8)
  file.set([0x50, 0x41, 0x52, 0x31])
  new DataView(file.buffer).setUint32(file.length - 8, 1000, true)
  file.set([0x50, 0x41, 0x52, 0x31], file.length - 4)
  const p = await failure(() => parquetMetadataSync(file, { maxFooterBytes: 100 }))
  assert.is(p.code, 'LIMIT_EXCEEDED')
  assert.match(p.message, /maxFooterBytes/)
})

test('maxFrames (zstdFrames) is named', async () => {
  const frame = await encode('zstd', new Uint8Array(10))
  const three = new Uint8Array(frame.length * 3)
  for (let i = 0; i < 3; i++) three.set(frame, i * frame.length)
  const e = await failure(() => zstdFrames(three, { maxFrames: 2 }))
  assert.is(e.code, 'LIMIT_EXCEEDED')
  assert.match(e.message, /maxFrames/)
})

test("a codec's own leftover (64 MiB) says no option raises it and what to use; the caller's input has no cap", async () => {
  assert.is(MAX_TAIL_BYTES, 64 * 2 ** 20)
  // A raw LZ4 block is decoded whole: a stream of one keeps all of it until the end.
  const block = new Uint8Array(MAX_TAIL_BYTES + 1)
  const e = await failure(() => {
    const d = decodeStream('lz4-block', { outputSize: 1 })
    const w = d.writable.getWriter()
    void w.write(block.subarray(0, 1 << 20)).catch(() => {})
    void w.write(block.subarray(1 << 20)).catch(() => {})
    return read(d.readable)
  })
  assert.is(e.code, 'LIMIT_EXCEEDED')
  assert.match(e.message, /no option raises this/)
  assert.match(e.message, /decode\(\)/)
})

test("limits of a format itself say that no option raises them: a Snappy framing chunk longer than the format allows", async () => {
  // The stream identifier (framing_format.txt section 4.1), then a compressed-data chunk
  // whose 3-byte length says 0xffffff: more than 65536 bytes of data can take.
  const stream = Uint8Array.of(0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59, 0x00, 0xff, 0xff, 0xff)
  for (const engine of ['js', 'wasm'] as const) {
    const e = await failure(() => decode('snappy', stream, { engine }))
    assert.is(e.code, 'LIMIT_EXCEEDED', `${engine}: ${e.message}`)
    assert.match(e.message, /not an option/, engine)
    assert.is(e.offset, 10, engine)
  }
})

test.run()
