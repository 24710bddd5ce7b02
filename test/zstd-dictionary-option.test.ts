// The zstd `dictionary` option on every surface (span codecs, encode/decode, the stream
// factories, CompressionStream/DecompressionStream, the Node adapter), with the `zstd`
// CLI as the peer both ways: raw content (`zstd -D` on any file) and a trained
// dictionary (`zstd --train` on real small documents, bench/corpus.ts
// packageDocuments), the dictionary ID written and checked, wrong and missing
// dictionaries refused.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { CodecError } from '../lib/errors.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { Status } from '../lib/status.js'
import { parseFrameHeader } from '../lib/codecs/zstd-frame-format.js'
import { nodeDecode, nodeEncode } from '../adapters/node/index.js'
import { decodeWhole as oneShotDecode, encodeWhole as oneShotEncode } from '../lib/whole-buffer.js'
import { decodeGrowing } from '../lib/decode-buffer.js'
import { CompressionStream, DecompressionStream, zstdDecode, zstdEncode } from '../streams/index.js'
import { packageDocuments } from '../bench/corpus.js'
import { chunked, nodeRun, read } from './_streams.js'
import { concatBytes } from './_bytes.js'
import { decodeSpans, encodeSpans } from './_span.js'
import { rejection } from './_caught.js'
import { requireCli } from './_cli.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'

const hasZstd = requireCli('zstd', 'zstd CLI dictionary cases')
const cliTest = hasZstd ? test : test.skip

const docs = packageDocuments(200)
// Every 10th document makes the raw dictionary (and the training set's held-out inputs
// are the others), so that no input is inside the dictionary it is encoded with.
const rawDictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
const inputs = docs.filter((_, k) => k % 10 !== 0).map((d) => d.bytes)
const some = inputs.filter((_, k) => k % 9 === 0)
const otherRaw = concatBytes(inputs.slice(0, 6))

const scratch = mkdtempSync(join(tmpdir(), 'sluice-zstd-dict-option-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))
let files = 0
const file = (bytes: Uint8Array): string => {
  const path = join(scratch, `f${files++}`)
  writeFileSync(path, bytes)
  return path
}
function zstdCli(args: string[], input: Uint8Array): { status: number; out: Uint8Array; err: string } {
  const r = spawnSync('zstd', ['-q', '-c', ...args], { input, maxBuffer: 1 << 30 })
  return { status: r.status ?? -1, out: new Uint8Array(r.stdout), err: r.stderr.toString() }
}

/** A dictionary trained by the CLI on the documents (RFC 8878 section 5 format), or null. */
function train(samples: Uint8Array[], id?: number): Uint8Array | null {
  if (!hasZstd) return null
  const dir = mkdtempSync(join(scratch, 'train-'))
  const paths = samples.map((s, k) => {
    const p = join(dir, `${k}.json`)
    writeFileSync(p, s)
    return p
  })
  const out = join(dir, 'dict')
  const r = spawnSync('zstd', ['-q', '--train', ...paths, '-o', out, '--maxdict=16384', ...(id === undefined ? [] : [`--dictID=${id}`])])
  return r.status === 0 ? new Uint8Array(readFileSync(out)) : null
}
const trained = train(docs.map((d) => d.bytes))
const otherTrained = train(docs.map((d) => d.bytes), 4242)

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0
const idOf = (frame: Uint8Array): number => parseFrameHeader(frame, 4).dictionaryId
const readU32 = (b: Uint8Array, at: number): number => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0

test('the documents are real and the trained dictionary is one', () => {
  assert.ok(inputs.length >= 60, `${inputs.length} package.json files`)
  assert.ok(rawDictionary.length > 4_000, `raw dictionary ${rawDictionary.length} bytes`)
  if (trained) {
    assert.is(readU32(trained, 0), 0xec30a437, 'magic 37 A4 30 EC')
    assert.is.not(readU32(trained, 4), 0, 'a trained dictionary has an ID')
    assert.is(readU32(otherTrained!, 4), 4242)
  }
})

cliTest('CLI -> ours: raw and trained dictionaries, span splits, one-shot, streams, Node adapter', async () => {
  for (const [kind, dictionary] of [['raw', rawDictionary], ['trained', trained!]] as const) {
    const dictFile = file(dictionary)
    for (const bytes of some) {
      const peer = zstdCli(['-D', dictFile], bytes).out
      if (kind === 'trained') assert.is(idOf(peer), readU32(dictionary, 4), 'the CLI wrote the ID')
      else assert.is(idOf(peer), 0, 'raw content has no ID')
      const span = await createDecoder('zstd', { dictionary })
      for (const split of [1, 7, 4096]) {
        span.reset()
        const got = decodeSpans(span, peer, { split, room: 333 })
        assert.is(got.status, Status.Done, `${kind} split ${split}`)
        assert.ok(same(got.out, bytes), `${kind} split ${split}`)
      }
      span.dispose()
      assert.ok(same(await oneShotDecode('zstd', peer, { dictionary }), bytes), `${kind}: decode()`)
      assert.ok(same(await read(chunked(peer, 100).pipeThrough(zstdDecode({ dictionary, chunkSize: 64 }))), bytes), `${kind}: zstdDecode`)
      assert.ok(same(await read(chunked(peer, 50).pipeThrough(new DecompressionStream('zstd', { dictionary }))), bytes), `${kind}: DecompressionStream`)
      assert.ok(same(await nodeRun(nodeDecode('zstd', { dictionary }), peer), bytes), `${kind}: nodeDecode`)
    }
  }
})

cliTest('ours -> CLI: raw and trained dictionaries, the ID written, smaller than without', async () => {
  for (const [kind, dictionary] of [['raw', rawDictionary], ['trained', trained!]] as const) {
    const dictFile = file(dictionary)
    let withTotal = 0
    let withoutTotal = 0
    for (const bytes of some) {
      const outputs: Array<[string, Uint8Array]> = [
        ['encode()', await oneShotEncode('zstd', bytes, { dictionary })],
        ['zstdEncode', await read(chunked(bytes, 333).pipeThrough(zstdEncode({ dictionary, chunkSize: 64 })))],
        ['CompressionStream', await read(chunked(bytes, 1000).pipeThrough(new CompressionStream('zstd', { dictionary })))],
        ['nodeEncode', await nodeRun(nodeEncode('zstd', { dictionary }), bytes)],
      ]
      const span = await createEncoder('zstd', { dictionary, level: 9 })
      outputs.push(['span level 9', encodeSpans(span, bytes, { split: 100, room: 77 })])
      span.dispose()
      for (const [what, frame] of outputs) {
        assert.is(idOf(frame), kind === 'trained' ? readU32(dictionary, 4) : 0, `${kind} ${what}: Dictionary_ID`)
        const back = zstdCli(['-d', '-D', dictFile], frame)
        assert.is(back.status, 0, `${kind} ${what}: ${back.err}`)
        assert.ok(same(back.out, bytes), `${kind} ${what}`)
      }
      withTotal += outputs[0]![1].length
      withoutTotal += (await oneShotEncode('zstd', bytes)).length
    }
    assert.ok(withTotal < withoutTotal * 0.9, `${kind}: ${withTotal} bytes with the dictionary, ${withoutTotal} without`)
  }
})

cliTest('a dictionary and a known size: the header carries both, as zstd -D writes it (zstd -lv), one-shot decode allocates exactly', async () => {
  // 400 kB of node_modules JSON files: more than the encoder's 256 KiB staging, so a final
  // call with all the input is staged in several steps.
  const all = filesCorpus(join(root, 'node_modules'), 400_000, /\.json$/)
  assert.is(all.length, 400_000)
  for (const [kind, dictionary] of [['raw', rawDictionary], ['trained', trained!]] as const) {
    const dictFile = file(dictionary)
    const id = kind === 'trained' ? readU32(dictionary, 4) : 0
    for (const bytes of [some[0]!, all]) {
      const outputs: Array<[string, Uint8Array]> = [['encode()', await oneShotEncode('zstd', bytes, { dictionary })]]
      // The CLI's own frame from a file (it knows the size): the same header fields.
      const cliFrame = zstdCli(['-D', dictFile, file(bytes)], new Uint8Array(0))
      assert.is(cliFrame.status, 0, cliFrame.err)
      outputs.push(['zstd -D', cliFrame.out])
      for (const [split, room] of [[bytes.length, 1 << 20], [1000, 77], [100_000, 1 << 16]] as const) {
        const span = await createEncoder('zstd', { dictionary, contentSize: bytes.length })
        outputs.push([`span contentSize, split ${split}, room ${room}`, encodeSpans(span, bytes, { split, room })])
        span.dispose()
      }
      for (const [what, frame] of outputs) {
        const where = `${kind}, ${bytes.length} bytes, ${what}`
        const header = parseFrameHeader(frame, 4)
        assert.is(header.dictionaryId, id, `${where}: Dictionary_ID`)
        assert.is(header.contentSize, bytes.length, `${where}: Frame_Content_Size`)
        const listed = spawnSync('zstd', ['-lv', file(frame)], { encoding: 'utf8' })
        assert.is(listed.status, 0, listed.stderr)
        assert.match(listed.stdout, new RegExp(`Decompressed Size: .*\\(${bytes.length} B\\)`), `${where}: zstd -lv ${listed.stdout}`)
        if (id !== 0) assert.match(listed.stdout, new RegExp(`DictID: ${id}\\b`), `${where}: zstd -lv`)
        const back = zstdCli(['-d', '-D', dictFile], frame)
        assert.is(back.status, 0, `${where}: ${back.err}`)
        assert.ok(same(back.out, bytes), where)
        // lib/whole-buffer.ts allocates the declared size once and decodes into it.
        const decoder = await createDecoder('zstd', { dictionary })
        const exact = decodeGrowing(decoder, frame, Infinity, { format: 'zstd', what: 'frame', declaredBy: 'its header', base: 0, concatenated: false })
        decoder.dispose()
        assert.ok(same(exact, bytes), `${where}: exact-size decode`)
      }
    }
  }
})

test('a frame that fails on the single-pass path is decoded again by streaming, with the dictionary applied again', async () => {
  const bytes = concatBytes(some)
  for (const dictionary of [rawDictionary, ...(trained ? [trained] : [])]) {
    const frame = await oneShotEncode('zstd', bytes, { dictionary })
    // A wrong checksum is found only after the whole content was decoded: streaming
    // gets there only if the dictionary (a prefix is used up by one attempt) was applied.
    const bad = frame.slice()
    bad[bad.length - 1]! ^= 0xff
    const decoder = await createDecoder('zstd', { dictionary })
    const out = new Uint8Array(bytes.length)
    assert.is(decoder.transform(bad, out, true), Status.InvalidData)
    assert.is(decoder.failure?.code, 'CHECKSUM_MISMATCH', decoder.failure?.message)
    assert.ok(same(out.subarray(0, decoder.written), bytes.subarray(0, decoder.written)))
    decoder.reset()
    assert.is(decoder.transform(frame, out.fill(0), true), Status.Done)
    assert.ok(same(out, bytes))
    decoder.dispose()
  }
})

test('round trips over reset: the dictionary is applied again for every frame', async () => {
  for (const dictionary of [rawDictionary, ...(trained ? [trained] : [])]) {
    const encoder = await createEncoder('zstd', { dictionary })
    const decoder = await createDecoder('zstd', { dictionary })
    for (const bytes of some.slice(0, 4)) {
      encoder.reset()
      const frame = encodeSpans(encoder, bytes, { split: 500 })
      decoder.reset()
      const got = decodeSpans(decoder, frame)
      assert.is(got.status, Status.Done)
      assert.ok(same(got.out, bytes))
    }
    // Two frames in one stream, each needing the dictionary.
    const a = await oneShotEncode('zstd', some[0]!, { dictionary })
    const b = await oneShotEncode('zstd', some[1]!, { dictionary })
    assert.ok(same(await oneShotDecode('zstd', concatBytes([a, b]), { dictionary }), concatBytes([some[0]!, some[1]!])))
    encoder.dispose()
    decoder.dispose()
  }
})

test('one decoder over many frames keeps its dictionary loaded, through mid-frame resets, failures and single-pass fallbacks', async () => {
  // zstd-decode.ts keeps the decoder's libzstd context (and a trained dictionary loaded into it)
  // from frame to frame; every way a frame can end must leave it right for the next.
  const plain = await oneShotEncode('zstd', some[3]!)
  for (const dictionary of [rawDictionary, ...(trained ? [trained] : [])]) {
    const frames = await Promise.all(inputs.slice(0, 60).map((bytes) => oneShotEncode('zstd', bytes, { dictionary })))
    const decoder = await createDecoder('zstd', { dictionary })
    for (let k = 0; k < frames.length; k++) {
      const frame = frames[k]!
      const want = inputs[k]!
      const out = new Uint8Array(want.length)
      decoder.reset()
      switch (k % 6) {
        case 1: // cut off mid-frame, then reset
          assert.ok([Status.DestinationTooSmall, Status.NeedMoreData].includes(decoder.transform(frame.subarray(0, frame.length >> 1), new Uint8Array(100), false) as 1 | 2))
          decoder.reset()
          break
        case 2: { // a wrong checksum, streamed
          const bad = frame.slice()
          bad[bad.length - 1]! ^= 0xff
          assert.is(decodeSpans(decoder, bad, { split: 700, room: 900 }).failure?.code, 'CHECKSUM_MISMATCH')
          decoder.reset()
          break
        }
        case 3: { // a wrong checksum in one call with exact room: the single pass fails, streaming finds it
          const bad = frame.slice()
          bad[bad.length - 1]! ^= 0xff
          assert.is(decoder.transform(bad, out, true), Status.InvalidData)
          assert.is(decoder.failure?.code, 'CHECKSUM_MISMATCH')
          decoder.reset()
          break
        }
        case 4: // a frame made without the dictionary, between frames that need it
          assert.ok(same(decodeSpans(decoder, plain).out, some[3]!))
          decoder.reset()
          break
      }
      // The frame itself, single pass (exact room) on even frames, streamed on odd ones.
      const got = k % 2 === 0 ? (assert.is(decoder.transform(frame, out, true), Status.Done, `frame ${k}`), out) : decodeSpans(decoder, frame, { split: 1000, room: 1000 }).out
      assert.ok(same(got, want), `frame ${k}`)
    }
    decoder.dispose()
    // The same frames as one stream.
    for (const n of [1000, 65536]) assert.ok(same(await read(chunked(concatBytes(frames), n).pipeThrough(zstdDecode({ dictionary }))), concatBytes(inputs.slice(0, 60))), `stream, ${n}-byte chunks`)
  }
})

test('an empty dictionary changes no output', async () => {
  const bytes = some[0]!
  assert.ok(same(await oneShotEncode('zstd', bytes, { dictionary: new Uint8Array(0) }), await oneShotEncode('zstd', bytes)))
})

cliTest('a frame naming another dictionary ID is INVALID_DATA at the ID, before any output', async () => {
  const frame = zstdCli(['-D', file(trained!)], some[0]!).out
  const idAt = 5 + parseFrameHeader(frame, 4).windowBytes
  for (const dictionary of [otherTrained!, rawDictionary]) {
    const span = await createDecoder('zstd', { dictionary })
    const got = decodeSpans(span, frame)
    assert.is(got.status, Status.InvalidData)
    assert.is(got.out.length, 0, 'no output')
    assert.is(got.failure!.code, 'INVALID_DATA')
    assert.is(got.failure!.offset, idAt)
    assert.match(got.failure!.message, new RegExp(`dictionary with ID ${readU32(trained!, 4)}`))
    span.dispose()
    const e = (await rejection(oneShotDecode('zstd', frame, { dictionary }))) as CodecError
    assert.instance(e, CodecError)
    assert.is(e.code, 'INVALID_DATA')
  }
})

cliTest('a frame needing a dictionary when none was given is UNSUPPORTED, naming the ID', async () => {
  const frame = zstdCli(['-D', file(trained!)], some[0]!).out
  const e = (await rejection(oneShotDecode('zstd', frame))) as CodecError
  assert.is(e.code, 'UNSUPPORTED')
  assert.match(e.message, new RegExp(`ID ${readU32(trained!, 4)}.*dictionary option`))
  const t = await rejection(read(chunked(frame, 10).pipeThrough(new DecompressionStream('zstd'))))
  assert.instance(t, TypeError)
})

test('raw content encoded with one dictionary does not decode to the input with another', async () => {
  const bytes = some[2]!
  const frame = await oneShotEncode('zstd', bytes, { dictionary: rawDictionary })
  // Without an ID nothing names the dictionary: libzstd finds references it cannot
  // resolve (INVALID_DATA), or the content checksum differs.
  for (const dictionary of [otherRaw, undefined]) {
    const e = (await rejection(oneShotDecode('zstd', frame, dictionary ? { dictionary } : {}))) as CodecError
    assert.instance(e, CodecError)
    assert.ok(['INVALID_DATA', 'CHECKSUM_MISMATCH'].includes(e.code), e.code)
  }
})

test('a corrupt trained dictionary is refused as INVALID_OPTION, encoder and decoder', async () => {
  const bad = new Uint8Array(64)
  bad.set([0x37, 0xa4, 0x30, 0xec, 1, 0, 0, 0])
  for (const e of [await rejection(oneShotEncode('zstd', some[0]!, { dictionary: bad })), await rejection(createDecoder('zstd', { dictionary: bad }))] as CodecError[]) {
    assert.is(e.code, 'INVALID_OPTION')
    assert.match(e.message, /trained dictionary .*ID 1/)
  }
})

test.run()
