// Hostile input for the dictionary codecs and RFC 9842's dcz/dcb, case by case (the
// random cases are test/fuzz-dictionary.test.ts's): every byte of the header wrong, the
// header cut at every length, the header and nothing after it, empty and large
// dictionaries, zstd windows of every Window_Descriptor and hostile single-segment
// content sizes in a dcz body, large-window brotli in a dcb body, and wrong dictionaries
// where no hash protects them. Each case goes through the span codec (whole and in
// 1-byte pieces), one-shot decode(), the decoding stream and DecompressionStream, and
// must end in a CodecError with a stable code and the offset of the byte at fault (a
// TypeError carrying both from DecompressionStream), or in the right output.
//
// Dictionary size: no limit of its own. A dictionary is the caller's (decodeResponse
// looks it up in the caller's own store by the hash the body names: the body picks among
// dictionaries, it cannot make one larger), so its memory is the caller's choice; what a
// hostile body controls is the window, which dcz limits to max(8 MiB, 1.25 x the
// dictionary), never above 128 MiB whatever the dictionary (RFC 9842 section 2.2), and
// dcb to brotli's 16 MiB (RFC 9842 section 4, RFC 7932 section 9.1). A dictionary the
// wasm heap (2 GiB, scripts/build-engines.mjs --max-memory) cannot hold is refused as a
// CodecError LIMIT_EXCEEDED, as other exhausted memory is: a trained zstd dictionary when
// the codec is created (zstd-dictionary.ts dictionaryOf), raw content when the first frame is set
// up (zstd-dictionary.ts applyDictionary, brotli-engine.ts create: a failed malloc); not run here,
// as it takes several GiB of memory.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createHash } from 'node:crypto'
import * as zlib from 'node:zlib'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { Status } from '../lib/status.js'
import { dczWindowLimit } from '../lib/codecs/dictionary-transport.js'
import { parseFrameHeader } from '../lib/codecs/zstd-frame-format.js'
import { loadZstdDecoderEngine } from '../lib/codecs/wasm/zstd-engine.js'
import { decodeWhole as oneShotDecode, encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { DecompressionStream, decodeStream } from '../streams/index.js'
import { packageDocuments } from '../bench/corpus.js'
import { concatBytes } from './_bytes.js'
import { chunked, read } from './_streams.js'
import { decodeSpans, step } from './_span.js'

const docs = packageDocuments(200)
const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
const inputs = docs.filter((_, k) => k % 10 !== 0).map((d) => d.bytes)
const input = concatBytes(inputs.slice(0, 5))
const sha = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest())
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0
const MAGIC = { dcz: [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00], dcb: [0xff, 0x44, 0x43, 0x42] } as const
const transports = ['dcz', 'dcb'] as const
type Transport = (typeof transports)[number]
const headerOf = (f: Transport, dict: Uint8Array): Uint8Array => concatBytes([Uint8Array.from(MAGIC[f]), sha(dict)])
const headerLength = (f: Transport): number => MAGIC[f].length + 32

type Outcome = { bytes: Uint8Array } | { code: string; offset: number }
const describe = (o: Outcome): string => ('bytes' in o ? `${o.bytes.length} bytes` : `${o.code} at ${o.offset}`)

async function settle(run: () => Promise<Uint8Array>): Promise<Outcome> {
  try {
    return { bytes: await run() }
  } catch (e) {
    if (e instanceof CodecError) return { code: e.code, offset: e.offset }
    // DecompressionStream: a TypeError with the code, and the CodecError as its cause.
    if (e instanceof TypeError && e.cause instanceof CodecError && (e as { code?: string }).code === e.cause.code) return { code: e.cause.code, offset: e.cause.offset }
    throw e
  }
}

/**
 * What every surface makes of `bytes`: the span decoder whole and in 1-byte pieces
 * (NeedMoreData at the end is the driver's TRUNCATED, as the machine judges it), one-shot
 * decode(), decodeStream in 1-byte and 4 KiB chunks, and DecompressionStream.
 */
async function everySurface(format: Format, bytes: Uint8Array, options: Record<string, unknown>): Promise<Array<[string, Outcome]>> {
  const out: Array<[string, Outcome]> = []
  for (const split of [bytes.length, 1]) {
    const decoder = await createDecoder(format, options)
    const r = decodeSpans(decoder, bytes, { split })
    decoder.dispose()
    out.push([
      `span, ${split === 1 ? '1-byte pieces' : 'whole'}`,
      r.status === Status.InvalidData ? { code: r.failure!.code, offset: r.failure!.offset } : r.status === Status.NeedMoreData ? { code: 'TRUNCATED', offset: r.consumed } : { bytes: r.out },
    ])
  }
  out.push(['decode()', await settle(() => oneShotDecode(format, bytes, options))])
  for (const n of [1, 4096]) out.push([`decodeStream, ${n}-byte chunks`, await settle(() => read(chunked(bytes, n).pipeThrough(decodeStream(format, options))))])
  out.push(['DecompressionStream', await settle(() => read(chunked(bytes, 100).pipeThrough(new DecompressionStream(format, options))))])
  return out
}

/** Every surface ends in `code` at `offset`, however the input was split. */
async function expectError(format: Format, bytes: Uint8Array, options: Record<string, unknown>, code: string, offset: number, what: string): Promise<void> {
  for (const [surface, o] of await everySurface(format, bytes, options)) {
    assert.ok('code' in o, `${what}, ${surface}: ${describe(o)}, expected ${code}`)
    if (!('code' in o)) continue
    assert.is(o.code, code, `${what}, ${surface}`)
    assert.is(o.offset, offset, `${what}, ${surface}: offset`)
  }
}

async function expectBytes(format: Format, bytes: Uint8Array, options: Record<string, unknown>, want: Uint8Array, what: string): Promise<void> {
  for (const [surface, o] of await everySurface(format, bytes, options)) {
    assert.ok('bytes' in o && same(o.bytes, want), `${what}, ${surface}: ${describe(o)}`)
  }
}

const encoded: Record<Transport, Uint8Array> = {
  dcz: await oneShotEncode('dcz', input, { dictionary }),
  dcb: await oneShotEncode('dcb', input, { dictionary }),
}

test('every header byte wrong: INVALID_DATA in the magic, CHECKSUM_MISMATCH in the hash, at that byte, on every surface', async () => {
  for (const f of transports) {
    const good = encoded[f]
    for (let at = 0; at < headerLength(f); at++) {
      // One bit (the low one, which turns dcz's 5E into another skippable frame's 5F) and
      // the whole byte inverted.
      for (const flip of [0x01, 0xff]) {
        const bad = good.slice()
        bad[at]! ^= flip
        const code = at < MAGIC[f].length ? 'INVALID_DATA' : 'CHECKSUM_MISMATCH'
        await expectError(f, bad, { dictionary }, code, at, `${f} byte ${at} ^ 0x${flip.toString(16)}`)
      }
    }
  }
})

test('the header cut at every length 0..header, and the header with nothing after it: TRUNCATED at the end', async () => {
  for (const f of transports) {
    for (let n = 0; n <= headerLength(f); n++) {
      await expectError(f, encoded[f].subarray(0, n), { dictionary }, 'TRUNCATED', n, `${f} cut at ${n}`)
    }
    // The header alone, built by hand: the same.
    await expectError(f, headerOf(f, dictionary), { dictionary }, 'TRUNCATED', headerLength(f), `${f} header only`)
    // The body cut anywhere: TRUNCATED at the end, never output that passes for the whole.
    for (const n of [headerLength(f) + 1, headerLength(f) + 4, Math.floor(encoded[f].length / 2), encoded[f].length - 1]) {
      for (const [surface, o] of await everySurface(f, encoded[f].subarray(0, n), { dictionary })) {
        assert.ok('code' in o, `${f} cut at ${n}, ${surface}: ${describe(o)}`)
        // A cut inside the zstd frame header or a block may also be INVALID_DATA.
        if ('code' in o) assert.ok(o.code === 'TRUNCATED' || o.code === 'INVALID_DATA', `${f} cut at ${n}, ${surface}: ${o.code}`)
      }
    }
  }
})

test('an empty dictionary: round trips, its SHA-256 in the header, refused for a stream made with another', async () => {
  const empty = new Uint8Array(0)
  const emptySha = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
  for (const f of transports) {
    const withEmpty = await oneShotEncode(f, input, { dictionary: empty })
    assert.is(Buffer.from(withEmpty.subarray(MAGIC[f].length, headerLength(f))).toString('hex'), emptySha)
    await expectBytes(f, withEmpty, { dictionary: empty }, input, `${f} with an empty dictionary`)
    let first = 0
    const a = sha(dictionary)
    const b = sha(empty)
    while (a[first] === b[first]) first++
    await expectError(f, withEmpty, { dictionary }, 'CHECKSUM_MISMATCH', MAGIC[f].length + first, `${f}: empty-dictionary stream, a dictionary given`)
    await expectError(f, encoded[f], { dictionary: empty }, 'CHECKSUM_MISMATCH', MAGIC[f].length + first, `${f}: dictionary stream, the empty one given`)
  }
})

test('dcz window limit: max(8 MiB, 1.25 x dictionary), capped at 128 MiB however large the dictionary', () => {
  assert.is(dczWindowLimit(0), 2 ** 23)
  assert.is(dczWindowLimit(2 ** 23), 2 ** 23 + 2 ** 21)
  // 1.25 x 102.4 MiB reaches the cap; larger dictionaries do not raise it.
  assert.is(dczWindowLimit(Math.ceil(2 ** 27 / 1.25)), 2 ** 27)
  for (const n of [2 ** 28, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER]) assert.is(dczWindowLimit(n), 2 ** 27, `${n}`)
})

// RFC 8878 section 3.1.1.1: Frame_Header_Descriptor, then Window_Descriptor (absent for a
// single segment), then Frame_Content_Size.
const zstdMagic = [0x28, 0xb5, 0x2f, 0xfd]
const windowFrame = (descriptor: number): Uint8Array => Uint8Array.of(...zstdMagic, 0x00, descriptor)
/** A single-segment frame header (descriptor E0: 8-byte content size) declaring `size`. */
function singleSegment(size: bigint): Uint8Array {
  const b = new Uint8Array(13)
  b.set([...zstdMagic, 0xe0])
  new DataView(b.buffer).setBigUint64(5, size, true)
  return b
}

test('dcz: every Window_Descriptor is accepted within the limit and LIMIT_EXCEEDED at it above, on every surface', async () => {
  const header = headerOf('dcz', dictionary)
  const limit = dczWindowLimit(dictionary.length)
  let refused = 0
  for (let d = 0; d < 256; d++) {
    const frame = windowFrame(d)
    const window = parseFrameHeader(frame, 4).windowSize
    const bytes = concatBytes([header, frame])
    const decoder = await createDecoder('dcz', { dictionary })
    const status = step(decoder, bytes, new Uint8Array(64), false)
    if (window <= limit) {
      assert.is(status, Status.NeedMoreData, `descriptor ${d}: window ${window}`)
    } else {
      assert.is(status, Status.InvalidData, `descriptor ${d}: window ${window}`)
      assert.is(decoder.failure!.code, 'LIMIT_EXCEEDED')
      assert.is(decoder.failure!.offset, 45)
      refused++
    }
    decoder.dispose()
    // The streams and decode() give the same verdict (and a truncated frame otherwise).
    if (window > limit && d % 8 === 1) await expectError('dcz', bytes, { dictionary }, 'LIMIT_EXCEEDED', 45, `descriptor ${d}`)
  }
  assert.is(refused, 256 - 13 * 8 - 1, '8 MiB and below: exponents 0-12 and 13 with mantissa 0')
  // Single-segment frames: the window is the content size (section 3.1.1.1.2).
  for (const size of [BigInt(limit) + 1n, 2n ** 32n, 2n ** 53n, 2n ** 64n - 1n]) {
    await expectError('dcz', concatBytes([header, singleSegment(size)]), { dictionary }, 'LIMIT_EXCEEDED', 45, `content size ${size}`)
  }
})

test('dcz: a window above the limit is refused before the decoder allocates it', async () => {
  const memory = (await loadZstdDecoderEngine()).heap.memory!
  // 64 MiB: above dcz's 8 MiB for this dictionary, within plain zstd's 2^27.
  const bytes = concatBytes([headerOf('dcz', dictionary), windowFrame(16 << 3), Uint8Array.of(0x01, 0x00, 0x00)])
  const decoder = await createDecoder('dcz', { dictionary })
  const before = memory.buffer.byteLength
  assert.is(step(decoder, bytes, new Uint8Array(64), true), Status.InvalidData)
  assert.is(decoder.failure!.code, 'LIMIT_EXCEEDED')
  assert.is(memory.buffer.byteLength, before, 'the wasm heap did not grow')
  decoder.dispose()
  // The control: plain zstd takes the same frame, and its window is allocated.
  const zstd = await createDecoder('zstd')
  step(zstd, bytes.subarray(40), new Uint8Array(64), true)
  // (At least half of it: the heap may have had room for part of it already.)
  assert.ok(memory.buffer.byteLength >= before + 2 ** 25, `grew ${memory.buffer.byteLength - before} bytes`)
  zstd.dispose()
})

test('dcb: a large-window brotli stream (window above 16 MiB) is LIMIT_EXCEEDED at its first byte; lgwin 24 decodes', async () => {
  const header = headerOf('dcb', dictionary)
  const { BROTLI_PARAM_LARGE_WINDOW, BROTLI_PARAM_LGWIN } = zlib.constants
  for (const lgwin of [25, 28, 30]) {
    const large = new Uint8Array(zlib.brotliCompressSync(input, { params: { [BROTLI_PARAM_LARGE_WINDOW]: 1, [BROTLI_PARAM_LGWIN]: lgwin } }))
    // The large-window WBITS (brotli's extension): 0010001, a value RFC 7932 section 9.1 reserves.
    assert.is(large[0]! & 0x7f, 0x11)
    await expectError('dcb', concatBytes([header, large]), { dictionary }, 'LIMIT_EXCEEDED', headerLength('dcb'), `dcb, lgwin ${lgwin}`)
    for (const engine of ['wasm', 'node'] as const) await expectError('brotli', large, { engine }, 'LIMIT_EXCEEDED', 0, `brotli on ${engine}, lgwin ${lgwin}`)
  }
  // The largest window RFC 7932 allows, with the dictionary: decodes.
  const widest = await oneShotEncode('dcb', input, { dictionary, lgwin: 24 })
  await expectBytes('dcb', widest, { dictionary }, input, 'dcb, lgwin 24')
})

/**
 * Positions of `dict` the stream refers to: changing the byte there changes the output.
 * Found by decoding with the byte changed (`checksum: false`, so nothing stops it).
 */
async function referencedWithoutCheck(format: 'zstd' | 'brotli', stream: Uint8Array, dict: Uint8Array, tries: number): Promise<{ silent: number; errors: number; positions: number[] }> {
  let silent = 0
  let errors = 0
  const positions: number[] = []
  for (let k = 0; k < tries; k++) {
    const at = Math.floor(((k + 0.5) / tries) * dict.length)
    const wrong = dict.slice()
    wrong[at]! ^= 0x20
    const o = await settle(() => oneShotDecode(format, stream, { dictionary: wrong }))
    if ('code' in o) errors++
    else if (!same(o.bytes, input)) {
      silent++
      positions.push(at)
    }
  }
  return { silent, errors, positions }
}

test('zstd with a wrong raw dictionary: silently wrong without the content checksum, always an error with it', async () => {
  // A raw-content prefix has no ID in the frame (RFC 8878 section 3.1.1.1.3 names trained
  // dictionaries only), so only XXH64 of the content notices other bytes. Our encoder
  // writes it by default; frames written without it (checksum: false, zstd --no-check)
  // decode a wrong raw dictionary to wrong output: documented here, not a CodecError.
  const unchecked = await oneShotEncode('zstd', input, { dictionary, checksum: false })
  const checked = await oneShotEncode('zstd', input, { dictionary })
  assert.is(parseFrameHeader(unchecked, 4).checksum, false)
  assert.is(parseFrameHeader(checked, 4).checksum, true)
  const r = await referencedWithoutCheck('zstd', unchecked, dictionary, 200)
  console.log(`# zstd without checksum, one dictionary byte changed at 200 places: ${r.silent} silently different, ${r.errors} errors`)
  assert.ok(r.silent > 0, 'some changed dictionary bytes give different output without an error')
  // The mismatch is placed at the frame's Content_Checksum (its last 4 bytes), whatever
  // the chunking (zstd-decode.ts feeds libzstd one part of the frame at a time).
  for (const at of r.positions) {
    const wrong = dictionary.slice()
    wrong[at]! ^= 0x20
    await expectError('zstd', checked, { dictionary: wrong }, 'CHECKSUM_MISMATCH', checked.length - 4, `checksummed frame, dictionary byte ${at} changed`)
  }
  // dcz's hash covers the dictionary whatever the frame's checksum flag.
  const dcz = concatBytes([headerOf('dcz', dictionary), unchecked])
  const wrong = dictionary.slice()
  wrong[r.positions[0]!]! ^= 0x20
  let first = 0
  while (sha(dictionary)[first] === sha(wrong)[first]) first++
  await expectError('dcz', dcz, { dictionary: wrong }, 'CHECKSUM_MISMATCH', 8 + first, 'dcz without the frame checksum')
  await expectBytes('dcz', dcz, { dictionary }, input, 'dcz without the frame checksum, right dictionary')
})

test('brotli with a wrong raw dictionary: brotli has no checksum, so wrong output is possible; dcb refuses it by its hash', async () => {
  const stream = await oneShotEncode('brotli', input, { dictionary, level: 9 })
  const r = await referencedWithoutCheck('brotli', stream, dictionary, 200)
  console.log(`# brotli, one dictionary byte changed at 200 places: ${r.silent} silently different, ${r.errors} errors`)
  assert.ok(r.silent > 0, 'RFC 7932 has no content checksum: some changed dictionary bytes decode to other bytes')
  const wrong = dictionary.slice()
  wrong[r.positions[0]!]! ^= 0x20
  let first = 0
  while (sha(dictionary)[first] === sha(wrong)[first]) first++
  await expectError('dcb', concatBytes([headerOf('dcb', dictionary), stream]), { dictionary: wrong }, 'CHECKSUM_MISMATCH', 4 + first, 'dcb')
})

test('a stream encoded without the dictionary inside dcb/dcz: decoded as the codec allows, or refused, never a crash', async () => {
  // Without a dictionary brotli's static-dictionary distances start right after the
  // window; an attached raw dictionary sits in between (brotli's compound dictionary),
  // so such a stream may fail (BROTLI_DECODER_ERROR_COMPOUND_DICTIONARY) or decode.
  for (const f of transports) {
    const inner = await oneShotEncode(f === 'dcz' ? 'zstd' : 'brotli', input, f === 'dcb' ? { level: 11 } : {})
    for (const [surface, o] of await everySurface(f, concatBytes([headerOf(f, dictionary), inner]), { dictionary })) {
      if ('bytes' in o) assert.ok(same(o.bytes, input), `${f}, ${surface}: different output`)
      else assert.ok(o.code === 'INVALID_DATA', `${f}, ${surface}: ${o.code}`)
    }
  }
})

test("engine 'node', zlib FDICT and raw deflate: hostile dictionary cases as on the wasm engine", async () => {
  for (const format of ['deflate', 'deflate-raw'] as const) {
    const stream = await oneShotEncode(format, input, { dictionary })
    for (const engine of ['wasm', 'js', 'node'] as const) {
      await expectBytes(format, stream, { dictionary, engine }, input, `${format} on ${engine}`)
      if (format === 'deflate') {
        // A wrong dictionary is named at DICTID (bytes 2-5), a missing one at FLG's FDICT bit.
        await expectError(format, stream, { dictionary: dictionary.subarray(1), engine }, 'CHECKSUM_MISMATCH', 2, `${format} on ${engine}, wrong dictionary`)
        await expectError(format, stream, { engine }, 'UNSUPPORTED', 1, `${format} on ${engine}, no dictionary`)
        // Cut inside the header or DICTID (bytes 0-5): TRUNCATED at the cut.
        for (let n = 1; n <= 6; n++) await expectError(format, stream.subarray(0, n), { dictionary, engine }, 'TRUNCATED', n, `${format} on ${engine}, cut at ${n}`)
      }
    }
  }
})

test('a dictionary larger than the window: references reach only as far as the frame allows, and decode', async () => {
  // 12 MiB of dictionary (the 1.25 rule: a 15 MiB window limit) in front of the input.
  const big = concatBytes([new Uint8Array(12 << 20).map((_, i) => (i * 2654435761) >>> 24), dictionary])
  const encoder = await createEncoder('dcz', { dictionary: big })
  encoder.dispose()
  const dcz = await oneShotEncode('dcz', input, { dictionary: big })
  assert.ok(parseFrameHeader(dcz, 44).windowSize <= dczWindowLimit(big.length))
  await expectBytes('dcz', dcz, { dictionary: big }, input, 'dcz, 12 MiB dictionary')
  const dcb = await oneShotEncode('dcb', input, { dictionary: big })
  await expectBytes('dcb', dcb, { dictionary: big }, input, 'dcb, 12 MiB dictionary')
})

test.run()
