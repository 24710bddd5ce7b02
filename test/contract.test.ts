// The span-codec contract, table-driven over every engine of every format: exact-fit and
// empty destinations, 1-byte input splits and 1-byte destinations, empty chunks, the
// Done latch with trailing bytes left unconsumed, truncation, corrupt headers, and
// NeedMoreData never returned for bytes that can no longer become valid. An engine this
// Node lacks (node:zlib's zstd, from Node 22.15) runs in Node 26 (test/node26) as a
// child process, so no engine goes untested.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Format } from '../lib/codec.js'
import { enginesOf } from '../lib/formats.js'
import { loadCodec, type CodecModule } from '../lib/registry.js'
import { Status, statusName } from '../lib/status.js'
import { samples } from './_corpus.js'
import { concatBytes } from './_bytes.js'
import { decodeSpans, encodeStream, step } from './_span.js'
import { addDictionaryDigest } from '../lib/dictionary-digest.js'
import { node26Binary, node26Missing } from '../bench/_node26.js'

/** In a child process: only this `format:engine` (see the module comment). */
const only = process.env.SLUICE_CONTRACT_ONLY

interface Case {
  format: Format
  /** Bytes that no continuation can make valid, and a prefix that is still fine. */
  badHeader?: number[]
  goodPrefix: number[]
  /** Options every codec of the case is created with (the dictionary transports need one). */
  options?: Record<string, unknown>
  /** Options its encoders are created with besides (another level), named in the label. */
  encodeOptions?: Record<string, unknown>
  /**
   * Why the format has no end marker (Snappy's framing format ends with the input, at
   * any chunk boundary): `Done` comes only at the end of the input, so bytes after it are
   * not left unconsumed, and a cut at a chunk boundary is a complete (shorter) stream.
   */
  noEndMarker?: string
}

/** A dictionary for 'dcz'/'dcb', with the digest the registry would compute when opening. */
const transport = { dictionary: concatBytes(samples().map(([, d]) => d.subarray(0, 300))) } as Record<string, unknown>
await addDictionaryDigest('dcz', transport)

const cases: Case[] = [
  { format: 'gzip', badHeader: [0x1f, 0x8c], goodPrefix: [0x1f, 0x8b] },
  { format: 'deflate', badHeader: [0x78, 0x00], goodPrefix: [0x78] },
  // BFINAL=1, BTYPE=11 (reserved): RFC 1951 section 3.2.3.
  { format: 'deflate-raw', badHeader: [0x07], goodPrefix: [] },
  { format: 'lz4', badHeader: [0x04, 0x22, 0x4d, 0x17], goodPrefix: [0x04, 0x22, 0x4d] },
  // LZ4 HC: the hash chain (levels 3 to 9) and the optimal parser (10 to 12).
  { format: 'lz4', badHeader: [0x04, 0x22, 0x4d, 0x17], goodPrefix: [0x04, 0x22, 0x4d], encodeOptions: { level: 9 } },
  { format: 'lz4', badHeader: [0x04, 0x22, 0x4d, 0x17], goodPrefix: [0x04, 0x22, 0x4d], encodeOptions: { level: 12 } },
  { format: 'zstd', badHeader: [0x28, 0xb5, 0x2f, 0xfe], goodPrefix: [0x28, 0xb5, 0x2f] },
  { format: 'brotli', goodPrefix: [] },
  // RFC 9842: a wrong byte of the magic, then of the dictionary's hash.
  { format: 'dcz', badHeader: [0x5e, 0x2a, 0x4d, 0x19], goodPrefix: [0x5e, 0x2a, 0x4d, 0x18, 0x20], options: transport },
  // framing_format.txt section 4.1: the stream identifier's length field must be 6.
  { format: 'snappy', badHeader: [0xff, 0x06, 0x00, 0x01], goodPrefix: [0xff, 0x06, 0x00], noEndMarker: 'chunks run to the end of the input (framing_format.txt)' },
  // A varint preamble of 5 bytes must end there (format_description.txt section 1).
  { format: 'snappy-raw', badHeader: [0x80, 0x80, 0x80, 0x80, 0x80], goodPrefix: [0x80, 0x80] },
  { format: 'dcb', badHeader: [0xff, 0x44, 0x43, 0x42, (transport.dictionaryDigest as Uint8Array)[0]! ^ 1], goodPrefix: [0xff, 0x44, 0x43, 0x42], options: transport },
]

/** `mod` with `options` added to every codec it creates, and `encodeOptions` to every encoder. */
function withOptions(mod: CodecModule, options: Record<string, unknown> | undefined, encodeOptions: Record<string, unknown> | undefined): CodecModule {
  if (!options && !encodeOptions) return mod
  return {
    traits: mod.traits,
    createDecoder: (o) => mod.createDecoder({ ...options, ...o }),
    createEncoder: (o) => mod.createEncoder({ ...options, ...encodeOptions, ...o }),
  }
}

function bytesEqual(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

async function encodeAll(mod: CodecModule, data: Uint8Array): Promise<Uint8Array> {
  const enc = mod.createEncoder({})
  const r = encodeStream(enc, data, { split: 1 << 20, room: 1 << 16 })
  enc.dispose()
  assert.is(statusName(r.status), 'Done')
  return r.out
}

// Every engine of every format, as the format table lists them.
const runs = cases
  .flatMap((c) => enginesOf(c.format).map((engine) => ({ c, engine, label: `${c.format} (engine ${engine}${c.encodeOptions ? `, encoder ${JSON.stringify(c.encodeOptions)}` : ''})` })))
  .filter((r) => only === undefined || only === `${r.c.format}:${r.engine}`)

for (const { c, engine, label } of runs) {
  let mod: CodecModule | null = null
  let missing = ''
  try {
    mod = await loadCodec(c.format, engine)
  } catch (e) {
    missing = (e as Error).message
  }
  if (!mod) {
    const elsewhere = only === undefined && engine === 'node' ? node26Missing() : 'not loadable in this Node either'
    if (elsewhere === null) {
      test(`${label}: the contract, in Node 26 (this Node lacks the engine)`, () => {
        const r = spawnSync(node26Binary, ['--import', 'tsx', fileURLToPath(import.meta.url)], { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0', SLUICE_CONTRACT_ONLY: `${c.format}:${engine}` }, timeout: 600_000 })
        const out = `${r.stdout ?? ''}${r.stderr ?? ''}`
        const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? NaN)
        const passed = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? NaN)
        const skipped = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? NaN)
        assert.ok(r.status === 0 && total > 0 && passed === total && skipped === 0, `Node 26: ${out.slice(-2000)}`)
        console.log(`# ${label}: ${passed} contract cases passed in Node 26`)
      })
    } else {
      console.log(`# skipped: ${label} contract (${engine} engine not loadable: ${missing.split('\n')[0]}; ${elsewhere})`)
      test.skip(`${label}: contract`, () => {})
    }
    continue
  }
  // What the encoder options load first (LZ4 HC for LZ4 levels 3 to 12).
  await mod.prepare?.('encode', { ...c.options, ...c.encodeOptions })
  const m = withOptions(mod, c.options, c.encodeOptions)

  test(`${label}: encode then decode with exact-fit destinations`, async () => {
    for (const [name, data] of samples()) {
      const packed = await encodeAll(m, data)
      const dec = m.createDecoder({})
      const dst = new Uint8Array(data.length)
      const s = step(dec, packed, dst, true)
      // Exact fit: Done with everything written (or, for codecs that only discover the
      // end after more room, DestinationTooSmall with nothing left to write is not allowed).
      assert.is(statusName(s), 'Done', name)
      assert.is(dec.written, data.length, name)
      assert.is(dec.consumed, packed.length, name)
      assert.ok(bytesEqual(dst, data), name)
      dec.dispose()
    }
  })

  test(`${label}: 1-byte input splits and 1-byte destinations`, async () => {
    for (const [name, data] of samples().slice(0, 3)) {
      const packed = await encodeAll(m, data)
      const dec = m.createDecoder({})
      const r = decodeSpans(dec, packed, { split: 1, room: 1 })
      assert.is(statusName(r.status), 'Done', name)
      assert.ok(bytesEqual(r.out, data), name)
      assert.is(r.consumed, packed.length, name)
      // The encoder too: 1-byte input pieces and a 1-byte destination.
      const enc = m.createEncoder({})
      const e = encodeStream(enc, data, { split: 1, room: 1 })
      assert.is(statusName(e.status), 'Done', name)
      const back = m.createDecoder({})
      const r2 = decodeSpans(back, e.out, { split: 4096, room: 4096 })
      assert.ok(bytesEqual(r2.out, data), `${name}: encoder output with 1-byte steps`)
    }
  })

  test(`${label}: empty source and empty destination make no false progress`, async () => {
    const dec = m.createDecoder({})
    assert.is(statusName(step(dec, new Uint8Array(0), new Uint8Array(16), false)), 'NeedMoreData')
    assert.is(dec.consumed, 0)
    const packed = await encodeAll(m, samples()[2]![1])
    const s = step(dec, packed, new Uint8Array(0), false)
    assert.ok(s === Status.DestinationTooSmall || s === Status.NeedMoreData, statusName(s))
    assert.is(dec.written, 0)
  })

  if (c.noEndMarker) {
    test(`${label}: Done only at the end of the input (${c.noEndMarker})`, async () => {
      const data = samples()[2]![1]
      const packed = await encodeAll(m, data)
      const dec = m.createDecoder({})
      // All of it, not final: more chunks could follow.
      assert.is(statusName(step(dec, packed, new Uint8Array(data.length), false)), 'NeedMoreData')
      assert.is(dec.written, data.length)
      assert.is(statusName(step(dec, new Uint8Array(0), new Uint8Array(16), true)), 'Done')
      // The latch: Done again, nothing consumed.
      assert.is(statusName(step(dec, packed, new Uint8Array(16), true)), 'Done')
      assert.is(dec.consumed, 0)
    })
  } else test(`${label}: Done latches at the end with trailing bytes unconsumed`, async () => {
    const data = samples()[2]![1]
    const packed = await encodeAll(m, data)
    const junk = [0x00, 0x13, 0x37, 0x42]
    for (const split of [1, 7, packed.length + 4]) {
      const dec = m.createDecoder({})
      const r = decodeSpans(dec, concatBytes([packed, new Uint8Array(junk)]), { split, room: 4096 })
      assert.is(statusName(r.status), 'Done', `split ${split}`)
      assert.is(r.consumed, packed.length, `split ${split}`)
      assert.ok(bytesEqual(r.out, data))
      // reset() makes the codec reusable for the next frame.
      dec.reset()
      const again = decodeSpans(dec, packed, { split: 4096, room: 4096 })
      assert.is(statusName(again.status), 'Done')
      assert.ok(bytesEqual(again.out, data))
    }
  })

  test(`${label}: truncation is NeedMoreData, never Done`, async () => {
    const data = samples()[2]![1]
    const packed = await encodeAll(m, data)
    const cuts = new Set([0, 1, 2, 3, 5, 9, 17, packed.length >> 1, packed.length - 5, packed.length - 1])
    for (const cut of cuts) {
      if (cut < 0 || cut >= packed.length) continue
      const dec = m.createDecoder({})
      const r = decodeSpans(dec, packed.subarray(0, cut), { split: 3, room: 4096 })
      // A truncated stream may still look invalid to a format without framing at that
      // point, but it must never look complete (without an end marker: complete means
      // a prefix of the data, cut at a chunk boundary).
      if (c.noEndMarker && r.status === Status.Done) {
        assert.ok(bytesEqual(r.out, data.subarray(0, r.out.length)), `cut ${cut}`)
        continue
      }
      assert.is.not(r.status, Status.Done, `cut ${cut}`)
      if (r.status !== Status.NeedMoreData) assert.is(statusName(r.status), 'InvalidData', `cut ${cut}`)
    }
  })

  if (c.badHeader) {
    const bad = c.badHeader
    test(`${label}: a bad header is InvalidData at once, not NeedMoreData`, () => {
      const dec = m.createDecoder({})
      const s = step(dec, new Uint8Array(bad), new Uint8Array(64), false)
      assert.is(statusName(s), 'InvalidData')
      assert.ok(dec.failure && dec.failure.offset >= 0 && dec.failure.offset < bad.length + 1)
      const ok = m.createDecoder({})
      assert.is(statusName(step(ok, new Uint8Array(c.goodPrefix), new Uint8Array(64), false)), 'NeedMoreData')
    })
  }
}

test.run()
