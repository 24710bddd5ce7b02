// The deflate family's `wasm` encoder, zlib-ng's deflate (lib/codecs/deflate-zlibng.ts),
// checked against node:zlib and the gzip / pigz command-line tools as decoders: every
// level, gzip / zlib / raw wrappers, input splits and output rooms down to one byte, sync
// and full flush points that decode on their own, preset dictionaries, reuse after
// reset(), and sizes beside node:zlib's. Output is standard deflate, not compared byte
// for byte with zlib.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import zlib from 'node:zlib'
import type { Encoder, Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { Status, statusName } from '../lib/status.js'
import { loadDeflateWasm } from '../lib/codecs/deflate-wasm.js'
import { ZlibngEncoder } from '../lib/codecs/deflate-zlibng.js'
import { adler32 } from '../lib/codecs/checksum.js'
import { encodeSpans } from './_span.js'
import { samples, releasePair } from './_corpus.js'
import { cliMissing, runCli } from './_cli.js'
import { thrown } from './_caught.js'

const wasm = await loadDeflateWasm('encode')
const modules = { gzip: wasm.gzip, deflate: wasm.deflate, 'deflate-raw': wasm.deflateRaw }
const formats = ['gzip', 'deflate', 'deflate-raw'] as const
const inputs = samples()

const zDecode = (f: Format, data: Uint8Array, opts: zlib.ZlibOptions = {}): Buffer =>
  f === 'gzip' ? zlib.gunzipSync(data, opts) : f === 'deflate' ? zlib.inflateSync(data, opts) : zlib.inflateRawSync(data, opts)
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0
const encoder = (f: (typeof formats)[number], options: Record<string, unknown> = {}): Encoder => modules[f].createEncoder(options)

test('the wasm engine encodes with zlib-ng', () => {
  for (const f of formats) assert.instance(encoder(f), ZlibngEncoder)
})

test('every level 0-9, every wrapper: node:zlib decodes the bytes back', () => {
  for (const f of formats) {
    for (let level = 0; level <= 9; level++) {
      for (const [name, data] of inputs) {
        const out = encodeSpans(encoder(f, { level }), data)
        assert.ok(same(zDecode(f, out), data), `${f} level ${level} ${name}`)
      }
    }
  }
})

test('the gzip header: deflate, no flags, MTIME 0, OS 255', () => {
  const out = encodeSpans(encoder('gzip'), new Uint8Array(100))
  assert.equal([...out.subarray(0, 8)], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0])
  assert.is(out[9], 255)
})

test('one-byte input splits and output rooms: node:zlib decodes; the room alone never changes the bytes', () => {
  const data = inputs.find(([n]) => n === 'project source')![1]
  for (const f of formats) {
    const whole = encodeSpans(encoder(f), data)
    for (const [split, room] of [[1, 1 << 20], [1 << 20, 1], [3, 7], [65536, 65536], [100_000, 1000], [2000, 1]] as const) {
      const out = encodeSpans(encoder(f), data, { split, room })
      assert.ok(same(zDecode(f, out), data), `${f} split ${split} room ${room}`)
      // zlib-ng's matches depend on how much input it sees at once, not on the room.
      if (split >= data.length) assert.ok(same(out, whole), `${f} room ${room}`)
    }
  }
})

test('sync flush after each piece: everything so far decodes with node:zlib before the end', () => {
  const data = inputs.find(([n]) => n === 'node_modules text 300 KB')![1]
  for (const f of formats) {
    const enc = encoder(f)
    const dst = new Uint8Array(1 << 20)
    const parts: Uint8Array[] = []
    for (let pos = 0; pos < data.length; pos += 40_000) {
      const piece = data.subarray(pos, Math.min(data.length, pos + 40_000))
      assert.is(enc.transform(piece, dst, false), Status.Done)
      assert.is(enc.consumed, piece.length)
      parts.push(dst.slice(0, enc.written))
      assert.is(enc.flush(dst), Status.Done)
      parts.push(dst.slice(0, enc.written))
      const so = Buffer.concat(parts)
      // A sync flush ends on a byte boundary with an empty stored block (00 00 FF FF).
      assert.equal([...so.subarray(so.length - 4)], [0, 0, 0xff, 0xff], `${f} at ${pos}`)
      const decoded = zDecode(f, so, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
      assert.ok(same(decoded, data.subarray(0, pos + piece.length)), `${f}: prefix up to ${pos + piece.length}`)
    }
    assert.is(enc.transform(new Uint8Array(0), dst, true), Status.Done)
    parts.push(dst.slice(0, enc.written))
    assert.ok(same(zDecode(f, Buffer.concat(parts)), data), f)
  }
})

test('a flush into a one-byte destination comes out a byte at a time; a second flush adds nothing', () => {
  const data = inputs.find(([n]) => n === 'project source')![1]
  const enc = encoder('deflate-raw')
  const big = new Uint8Array(1 << 20)
  assert.is(enc.transform(data, big, false), Status.Done)
  const parts = [big.slice(0, enc.written)]
  const one = new Uint8Array(1)
  let calls = 0
  for (;;) {
    const s = enc.flush(one)
    parts.push(one.slice(0, enc.written))
    calls++
    if (s === Status.Done) break
    assert.is(statusName(s), 'DestinationTooSmall')
  }
  assert.ok(calls > 100, `${calls} calls`)
  assert.is(enc.flush(big), Status.Done)
  assert.is(enc.written, 0)
  const so = Buffer.concat(parts)
  assert.ok(same(zlib.inflateRawSync(so, { finishFlush: zlib.constants.Z_SYNC_FLUSH }), data))
})

test('full flush: what follows decodes on its own (no match reaches back past it)', () => {
  const data = inputs.find(([n]) => n === 'node_modules text 300 KB')![1]
  const enc = encoder('deflate-raw') as ZlibngEncoder
  const dst = new Uint8Array(1 << 20)
  const half = data.length >> 1
  assert.is(enc.transform(data.subarray(0, half), dst, false), Status.Done)
  const first = [dst.slice(0, enc.written)]
  assert.is(enc.flush(dst, true), Status.Done)
  first.push(dst.slice(0, enc.written))
  assert.is(enc.transform(data.subarray(half), dst, true), Status.Done)
  const rest = dst.slice(0, enc.written)
  // The second half alone is a valid raw deflate stream of the second half's bytes.
  assert.ok(same(zlib.inflateRawSync(rest), data.subarray(half)))
  assert.ok(same(zlib.inflateRawSync(Buffer.concat([...first, rest])), data))
})

test('preset dictionaries: zlib writes FDICT + DICTID, raw primes the window; node:zlib decodes with the same bytes', () => {
  const pair = releasePair('lib.es5.d.ts')
  const dictionary = pair?.dictionary ?? inputs.find(([n]) => n === 'node_modules text 300 KB')![1].subarray(0, 100_000)
  const body = pair?.body ?? inputs.find(([n]) => n === 'node_modules text 300 KB')![1].subarray(100_000)
  for (const f of ['deflate', 'deflate-raw'] as const) {
    const withDict = encodeSpans(encoder(f, { dictionary }), body, { split: 50_000 })
    const without = encodeSpans(encoder(f), body)
    assert.ok(withDict.length < without.length, `${f}: ${withDict.length} with the dictionary, ${without.length} without`)
    assert.ok(same(zDecode(f, withDict, { dictionary }), body), f)
    if (f === 'deflate') {
      assert.ok(withDict[1]! & 0x20, 'FDICT')
      assert.is(Buffer.from(withDict.subarray(2, 6)).readUInt32BE(0), adler32(dictionary), 'DICTID')
    }
  }
  // An empty dictionary changes nothing: no FDICT.
  const empty = encodeSpans(encoder('deflate', { dictionary: new Uint8Array(0) }), body)
  assert.is(empty[1]! & 0x20, 0)
  // gzip has none (RFC 1952), refused by the option check before any engine.
  assert.instance(thrown(() => encoder('gzip', { dictionary })), CodecError)
})

test('reset() reuses the encoder: the same stream again, the dictionary given again', () => {
  const data = inputs.find(([n]) => n === 'project source')![1]
  const dictionary = data.subarray(0, 2000)
  for (const f of formats) {
    const enc = encoder(f, f === 'gzip' ? {} : { dictionary })
    const first = encodeSpans(enc, data)
    enc.reset()
    const second = encodeSpans(enc, data)
    assert.ok(same(first, second), f)
    enc.dispose()
  }
})

test('input after the end fails; use after dispose() throws', () => {
  const enc = encoder('gzip')
  encodeSpans(enc, new Uint8Array(10))
  assert.is(enc.transform(new Uint8Array(0), new Uint8Array(10), true), Status.Done)
  assert.is(enc.transform(new Uint8Array(1), new Uint8Array(10), false), Status.InvalidData)
  assert.is(enc.failure?.code, 'INVALID_OPTION')
  enc.dispose()
  assert.instance(thrown(() => enc.transform(new Uint8Array(1), new Uint8Array(10), false)), CodecError)
})

test('level 6 sizes within 1.03x of node:zlib level 6 (issue 23)', () => {
  for (const [name, data] of inputs) {
    if (data.length < 1000) continue
    for (const f of formats) {
      const ours = encodeSpans(encoder(f, { level: 6 }), data).length
      const theirs = (f === 'gzip' ? zlib.gzipSync(data, { level: 6 }) : f === 'deflate' ? zlib.deflateSync(data, { level: 6 }) : zlib.deflateRawSync(data, { level: 6 })).length
      assert.ok(ours <= theirs * 1.03, `${f} ${name}: ${ours} bytes, node:zlib ${theirs}`)
    }
  }
})

test("level 6's narrowed search (native/zlibng-deflate.c): between levels 5 and 7 in size, still level 6 in the headers", () => {
  const data = inputs.find(([n]) => n === 'node_modules text 300 KB')![1]
  const size = (level: number) => encodeSpans(encoder('deflate-raw', { level }), data).length
  const [five, six, seven] = [size(5), size(6), size(7)]
  assert.ok(five > six && six > seven, `sizes at levels 5, 6, 7: ${five}, ${six}, ${seven}`)
  // zlib's FLEVEL (RFC 1950 §2.2) says "default" (2) at level 6, "fast" (1) at level 5.
  assert.is(encodeSpans(encoder('deflate', { level: 6 }), data)[1]! >> 6, 2)
  assert.is(encodeSpans(encoder('deflate', { level: 5 }), data)[1]! >> 6, 1)
})

for (const cli of ['gzip', 'pigz'] as const) {
  const missing = cliMissing(cli)
  if (missing) {
    console.log(`# skipped: ${cli} decodes our gzip members: ${missing}`)
    continue
  }
  test(`${cli} -d decodes our gzip members, every level, and concatenated members`, () => {
    for (const level of [0, 1, 4, 6, 9]) {
      for (const [name, data] of inputs) {
        const out = encodeSpans(encoder('gzip', { level }), data, { split: 65536 })
        assert.ok(same(runCli(cli, ['-dc'], out), data), `${cli} level ${level} ${name}`)
      }
    }
    const a = inputs[2]![1]
    const b = inputs[3]![1]
    const two = Buffer.concat([encodeSpans(encoder('gzip'), a), encodeSpans(encoder('gzip', { level: 1 }), b)])
    assert.ok(same(runCli(cli, ['-dc'], two), Buffer.concat([a, b])))
    // Their own -t (test) accepts the member: CRC-32 and ISIZE are right.
    runCli(cli, ['-t'], encodeSpans(encoder('gzip'), a))
  })
}

test.run()
