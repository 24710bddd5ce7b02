// Parallel decoding of one gzip, zlib or raw deflate stream (issue 31): the chunk decoder
// and its candidate search, the one-shot plans (guessed chunks, index spans) and the
// decoding streams, against the serial decoder as the oracle, on streams written by
// node:zlib (every strategy and level), gzip, pigz (--independent, --rsyncable), bgzip,
// concatenated members of every size, and streams full of false block-header and
// member-header look-alikes. Small chunk sizes make small inputs cut into many chunks,
// so that guesses, chunks that run out of input and chunks decoded again are all met.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import { CodecError, closeWorkers, decode, decodeGzipIndex, deflateDecode, deflateRawDecode, DecompressionStream, encodeGzipIndex, gzipDecode, gzipIndex } from '../index.js'
import { nodeDecode } from '../adapters/node/index.js'
import { decodeWhole as decodeSerial } from '../lib/whole-buffer.js'
import { runJob, type Job, type JobRunner } from '../lib/parallel/jobs.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { prepareDecoder } from '../lib/prepare.js'
import { Machine } from '../lib/machine.js'
import { inflateParallel } from '../lib/parallel/inflate-parallel.js'
import { inflateChunk } from '../lib/parallel/inflate-chunk.js'
import { bgzfGroups } from '../lib/parallel/bgzf.js'
import { inflateWindow, loadIndexParts } from '../lib/gzip-index/engines.js'
import { openInflatePair } from '../streams/parallel-inflate-stream.js'
import { filesCorpus } from '../bench/corpus.js'
import { root, fixtures } from './_fixtures.js'
import { concatBytes } from './_bytes.js'
import { randomChunks } from './_streams.js'
import { basicMutations, plainData } from './_mutations.js'
import { Readable } from 'node:stream'

type Format = 'gzip' | 'deflate' | 'deflate-raw'

const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 600_000, /\.d\.ts$/)
const engines = { createEncoder, createDecoder }
/** Jobs run inline, counted by kind. */
function inlineRunner(): { run: JobRunner; jobs: Map<string, number> } {
  const jobs = new Map<string, number>()
  const run: JobRunner = (job: Job) => {
    const key = job.kind === 'inflate-chunk' ? `${job.kind}:${job.at}` : job.kind
    jobs.set(key, (jobs.get(key) ?? 0) + 1)
    return runJob(job, engines)
  }
  return { run, jobs }
}
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0

/** A CLI's output for `input` (`args` read stdin), or null when the CLI is not installed. */
function cli(command: string, args: string[], input: Uint8Array): Uint8Array | null {
  const r = spawnSync(command, args, { input, maxBuffer: 1 << 28 })
  if (r.error || r.status !== 0) return null
  return new Uint8Array(r.stdout)
}
/** bgzip needs a file. */
function bgzip(input: Uint8Array): Uint8Array | null {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bgzf-'))
  try {
    writeFileSync(join(dir, 'x'), input)
    const r = spawnSync('bgzip', ['-c', join(dir, 'x')], { maxBuffer: 1 << 28 })
    return r.error || r.status !== 0 ? null : new Uint8Array(r.stdout)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Streams with false look-alikes: stored blocks (level 0) holding deflate data, gzip headers and empty stored blocks' bytes. */
function lookAlikes(): Uint8Array {
  const inner = gzipSync(text.subarray(0, 200_000), { level: 6 })
  const fakes: Uint8Array[] = []
  for (let i = 0; i < 2000; i++) fakes.push(Uint8Array.of(0x00, 0x00, 0xff, 0xff, 0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 3, i & 0xff, 0x05))
  return concatBytes([inner, concatBytes(fakes), inner.subarray(0, 50_000), text.subarray(0, 20_000)])
}

interface Case {
  readonly name: string
  readonly format: Format
  readonly bytes: Uint8Array
}

function cases(): Case[] {
  const t = text.subarray(0, 300_000)
  const out: Case[] = []
  for (const level of [1, 6, 9]) out.push({ name: `node:zlib gzip level ${level}`, format: 'gzip', bytes: gzipSync(t, { level }) })
  out.push({ name: 'node:zlib gzip level 0 (stored blocks)', format: 'gzip', bytes: gzipSync(t, { level: 0 }) })
  out.push({ name: 'node:zlib gzip Z_FIXED (fixed-code blocks only)', format: 'gzip', bytes: gzipSync(t, { strategy: constants.Z_FIXED }) })
  out.push({ name: 'node:zlib gzip Z_HUFFMAN_ONLY', format: 'gzip', bytes: gzipSync(t, { strategy: constants.Z_HUFFMAN_ONLY }) })
  out.push({ name: 'node:zlib gzip Z_RLE', format: 'gzip', bytes: gzipSync(t, { strategy: constants.Z_RLE }) })
  out.push({ name: 'node:zlib gzip memLevel 1 (small blocks)', format: 'gzip', bytes: gzipSync(t, { memLevel: 1 }) })
  out.push({ name: 'node:zlib zlib', format: 'deflate', bytes: deflateSync(t) })
  out.push({ name: 'node:zlib raw deflate', format: 'deflate-raw', bytes: deflateRawSync(t) })
  out.push({ name: 'node:zlib raw deflate, 1-byte stored block per flush', format: 'deflate-raw', bytes: deflateRawSync(t, { level: 0, chunkSize: 64 }) })
  out.push({ name: 'look-alikes in stored blocks', format: 'gzip', bytes: gzipSync(lookAlikes(), { level: 0 }) })
  out.push({ name: 'look-alikes compressed', format: 'gzip', bytes: gzipSync(lookAlikes(), { level: 6 }) })
  // Members of every size, concatenated (RFC 1952 section 2.2).
  const sizes = [0, 1, 10, 1000, 5000, 100_000, 33_000, 7]
  let at = 0
  out.push({
    name: 'members of 0 B to 100 kB',
    format: 'gzip',
    bytes: concatBytes(
      sizes.map((n) => {
        const m = gzipSync(t.subarray(at, at + n))
        at += n
        return m
      }),
    ),
  })
  out.push({ name: '300 members of 1 kB', format: 'gzip', bytes: concatBytes(Array.from({ length: 300 }, (_, i) => gzipSync(t.subarray(i * 1000, i * 1000 + 1000)))) })
  for (const [name, command, args] of [
    ['gzip -6', 'gzip', ['-6', '-c']],
    ['gzip -1', 'gzip', ['-1', '-c']],
    ['pigz', 'pigz', ['-p', '2', '-c']],
    ['pigz --independent', 'pigz', ['-p', '2', '-i', '-c']],
    ['pigz --rsyncable', 'pigz', ['-p', '2', '--rsyncable', '-c']],
    ['pigz -z (zlib)', 'pigz', ['-p', '2', '-z', '-c']],
  ] as const) {
    const bytes = cli(command, [...args], t)
    if (bytes) out.push({ name, format: name.includes('zlib') ? 'deflate' : 'gzip', bytes })
    else console.log(`# skipped: ${name} (${command} not installed)`)
  }
  const bgzf = bgzip(t)
  if (bgzf) out.push({ name: 'bgzip', format: 'gzip', bytes: bgzf })
  else console.log('# skipped: bgzip (not installed)')
  return out
}

const all = cases()

test('the parallel one-shot plan gives the serial decoder\'s bytes on every stream, for chunks of 300 B to 64 KiB', async () => {
  for (const c of all) {
    const want = await decodeSerial(c.format, c.bytes)
    for (const chunkBytes of [300, 1500, 8192, 65536]) {
      // A stream of fewer than two chunks is the serial decoder's.
      if (chunkBytes * 2 > c.bytes.length) continue
      const { run, jobs } = inlineRunner()
      const got = await inflateParallel(c.bytes, c.format, { maxOutputBytes: Infinity, concatenated: true, chunkBytes, marginBytes: chunkBytes }, run, 4)
      assert.ok(got, `${c.name}, chunks of ${chunkBytes}: the parallel plan gave up`)
      assert.ok(same(got, want), `${c.name}, chunks of ${chunkBytes}: ${got.length} bytes differ from the serial decoder's ${want.length}`)
      const chunkJobs = (jobs.get('inflate-chunk:search') ?? 0) + (jobs.get('inflate-chunk:member') ?? 0) + (jobs.get('inflate-chunk:block') ?? 0)
      assert.ok(chunkJobs >= 2, `${c.name}, chunks of ${chunkBytes}: ${chunkJobs} chunk jobs`)
    }
  }
})

test('guesses: chunk searches start where the chunk before ends, most of the time', async () => {
  const gz = gzipSync(text, { level: 6 })
  const { run, jobs } = inlineRunner()
  const got = await inflateParallel(gz, 'gzip', { maxOutputBytes: Infinity, concatenated: true, chunkBytes: 4096, marginBytes: 65_536 }, run, 4)
  assert.ok(got && same(got, text))
  const searched = jobs.get('inflate-chunk:search') ?? 0
  const again = (jobs.get('inflate-chunk:block') ?? 0) + (jobs.get('inflate-chunk:member') ?? 0) - 1
  assert.ok(searched > 10, `${searched} searched chunks`)
  // A decode again is a wrong guess or a chunk whose range holds no candidate block start:
  // a few, not most.
  assert.ok(again <= searched / 2, `${again} of ${searched} chunks decoded again`)
})

test('the chunk job: a search finds the block start the chunk before ends at, and decodes with markers until the window is known', async () => {
  const gz = gzipSync(text, { level: 6 })
  const first = await inflateChunk({ kind: 'inflate-chunk', format: 'gzip', input: gz.subarray(0, 60_000), from: 0, at: 'member', searchEnd: 0, window: null, stop: 30_000 * 8, last: false, maxOutput: Infinity, points: false })
  assert.is(first.info.reason, 'stop')
  assert.is(first.info.endKind, 'block')
  const end = first.info.end
  const second = await inflateChunk({ kind: 'inflate-chunk', format: 'gzip', input: gz.subarray(30_000), from: 0, at: 'search', searchEnd: 30_000 * 8, window: null, stop: -1, last: true, maxOutput: Infinity, points: false })
  assert.is(30_000 * 8 + second.info.start, end, 'the search starts at the bit the chunk before ended at')
  assert.ok(second.info.symbols > 0, 'symbols decoded while the window was unknown')
  assert.is(second.info.endKind, 'end')
  const trailer = second.info.segments[second.info.segments.length - 1]!.trailer!
  assert.is(trailer.values[1], text.length, 'ISIZE read from the trailer')
})

test('an index: spans decode from their points; the index built while decoding is gzipIndex()\'s', async () => {
  for (const c of all.filter((c) => c.format === 'gzip' && !c.name.includes('bgzip'))) {
    const index = await gzipIndex(c.bytes, { spacing: 20_000 })
    const parts = await loadIndexParts('wasm')
    const decoder = parts.decoder('deflate-raw', parts.body('deflate-raw'))
    const window = async (i: number) => inflateWindow(decoder, index.points[i]!, i, new Uint8Array(32768)).slice()
    const { run } = inlineRunner()
    const got = await inflateParallel(c.bytes, 'gzip', { maxOutputBytes: Infinity, concatenated: true, index, window }, run, 4)
    assert.ok(got && same(got, await decodeSerial('gzip', c.bytes)), `${c.name}: decoded through its index`)
  }
  const gz = gzipSync(text)
  const r = await decode('gzip', gz, { threads: 2, index: true })
  assert.ok(same(r.data, text))
  assert.equal(await encodeGzipIndex(r.index), await encodeGzipIndex(await gzipIndex(gz)), 'the same index as gzipIndex()')
})

test('an index that does not match the file: refused, or the serial decoder\'s result', async () => {
  const gz = gzipSync(text)
  const other = gzipSync(text.subarray(1000))
  const index = await gzipIndex(gz, { spacing: 50_000 })
  const err = await decode('gzip', other, { threads: 2, index }).catch((e: unknown) => e)
  assert.instance(err, CodecError)
  assert.is((err as CodecError).code, 'INVALID_DATA', 'an index made for a file of another size')
  // Points moved off their blocks: the spans do not meet; the output is still the serial decoder's.
  const moved = { ...index, points: index.points.map((p, i) => (i === 2 ? { ...p, compressedBitOffset: p.compressedBitOffset + 3 } : p)) }
  assert.ok(same(await decode('gzip', gz, { threads: 2, index: moved }), text))
  const bytes = await decode('gzip', gz, { threads: 2, index: await decodeGzipIndex(await encodeGzipIndex(index)) })
  assert.ok(same(bytes, text), 'an index read back from its file')
})

test('BGZF: member groups as jobs, each of exactly its members\' ISIZEs', async () => {
  const c = all.find((x) => x.name === 'bgzip')
  if (!c) return console.log('# skipped: BGZF (bgzip not installed)')
  const groups = bgzfGroups(c.bytes, 65_536)!
  assert.ok(groups.length > 2)
  assert.is(groups.reduce((n, g) => n + g.size, 0), 300_000)
  const gz = gzipSync(text)
  assert.is(bgzfGroups(gz, 65_536), null, 'plain gzip is not BGZF')
})

test('mutated streams: a parallel result is always the serial decoder\'s bytes, else the serial decoder judges', async () => {
  // Chunks of a 2nd to a 12th of the input: always at least two.
  const chunkBytes = fc.integer({ min: 2, max: 12 })
  const format = fc.constantFrom<Format>('gzip', 'deflate', 'deflate-raw')
  const level = fc.integer({ min: 0, max: 9 })
  let parallel = 0
  let refused = 0
  await fc.assert(
    fc.asyncProperty(plainData, fc.oneof(fc.constant({ kind: 'none', apply: (b: Uint8Array) => b }), ...basicMutations), chunkBytes, format, level, async (data, mutation, chunk, f, l) => {
      const packed = f === 'gzip' ? gzipSync(data, { level: l }) : f === 'deflate' ? deflateSync(data, { level: l }) : deflateRawSync(data, { level: l })
      const bad = mutation.apply(concatBytes([packed, f === 'gzip' ? gzipSync(data.subarray(0, 50)) : new Uint8Array(0)]))
      const serial = await decodeSerial(f, bad).catch((e: unknown) => e as CodecError)
      const size = Math.max(4, Math.floor(bad.length / chunk))
      const got = await inflateParallel(bad, f, { maxOutputBytes: Infinity, concatenated: true, chunkBytes: size, marginBytes: size }, inlineRunner().run, 4)
      if (got === null) {
        refused++
        return true
      }
      parallel++
      return serial instanceof Uint8Array && same(got, serial)
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 1500) / 3, seed: 0x31 },
  )
  console.log(`# mutated streams: ${parallel} decoded in parallel (each the serial decoder's bytes), ${refused} left to the serial decoder`)
})

/** Drains a stream pair fed `parts`; resolves to its bytes or its error. */
async function through(pair: ReadableWritablePair<Uint8Array, Uint8Array>, parts: Uint8Array[]): Promise<Uint8Array | unknown> {
  const reading = (async () => {
    const reader = pair.readable.getReader()
    const out: Uint8Array[] = []
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return concatBytes(out)
      out.push(value)
    }
  })()
  const writing = (async () => {
    const w = pair.writable.getWriter()
    for (const p of parts) await w.write(p)
    await w.close()
  })()
  const [r, wr] = await Promise.allSettled([reading, writing])
  if (r.status === 'rejected') return r.reason
  if (wr.status === 'rejected') return wr.reason
  return r.value
}

/** The parallel decoding stream with small chunks, its jobs inline. */
const smallChunks = (format: Format, chunkBytes: number, onIndex?: (i: unknown) => void) =>
  openInflatePair(format, { threads: 1, engine: 'wasm', maxOutputBytes: Infinity, codec: {}, chunkSize: undefined, signal: undefined, streams: undefined, rules: { surface: (e) => e, allowShared: true }, concatenated: true, onIndex: onIndex as never, chunkBytes, marginBytes: chunkBytes }, { createEncoder, createDecoder, prepareDecoder, Machine })

test('decoding streams: the serial decoder\'s bytes whatever the chunking; onIndex hands back gzipIndex()\'s index', async () => {
  for (const c of all) {
    const want = await decodeSerial(c.format, c.bytes)
    for (const chunkBytes of [700, 20_000]) {
      const got = await through(smallChunks(c.format, chunkBytes), randomChunks(c.bytes, 5000))
      assert.ok(got instanceof Uint8Array && same(got, want), `${c.name}, chunks of ${chunkBytes}: ${got instanceof Uint8Array ? `${got.length} bytes` : String(got)}`)
    }
  }
  const gz = gzipSync(text)
  let index: unknown = null
  const got = await through(smallChunks('gzip', 30_000, (i) => (index = i)), randomChunks(gz, 10_000))
  assert.ok(got instanceof Uint8Array && same(got, text))
  assert.ok(index, 'onIndex was called')
  assert.equal(await encodeGzipIndex(index as never), await encodeGzipIndex(await gzipIndex(gz)))
})

test('decoding streams: a damaged stream fails with the serial decoder\'s code and offset', async () => {
  const bases: Record<Format, Uint8Array> = {
    gzip: concatBytes([gzipSync(text.subarray(0, 150_000)), gzipSync(text.subarray(150_000, 200_000))]),
    deflate: deflateSync(text.subarray(0, 150_000)),
    'deflate-raw': deflateRawSync(text.subarray(0, 150_000)),
  }
  const serialStream = (f: Format) => (f === 'gzip' ? gzipDecode() : f === 'deflate' ? deflateDecode() : deflateRawDecode())
  let compared = 0
  await fc.assert(
    fc.asyncProperty(fc.constantFrom<Format>('gzip', 'gzip', 'deflate', 'deflate-raw'), fc.oneof(...basicMutations), fc.constantFrom(500, 3000, 40_000), async (f, mutation, chunk) => {
      const bad = mutation.apply(bases[f])
      const serial = await through(serialStream(f), randomChunks(bad, 20_000))
      const got = await through(smallChunks(f, chunk), randomChunks(bad, 20_000))
      compared++
      if (serial instanceof Uint8Array) return got instanceof Uint8Array && same(got, serial)
      const s = serial as CodecError
      const g = got as CodecError
      return g instanceof CodecError && g.code === s.code && g.offset === s.offset
    }),
    { numRuns: 90, seed: 0x32 },
  )
  assert.ok(compared > 0)
})

test('decoding streams: a cancelled reader or an abort signal stops the chunk jobs; the writer fails, nothing hangs', async () => {
  const gz = gzipSync(text)
  const open = (signal?: AbortSignal) =>
    openInflatePair('gzip', { threads: 1, engine: 'wasm', maxOutputBytes: Infinity, codec: {}, chunkSize: undefined, signal, streams: undefined, rules: { surface: (e) => e, allowShared: true }, concatenated: true, onIndex: undefined, chunkBytes: 5000, marginBytes: 5000 }, { createEncoder, createDecoder, prepareDecoder, Machine })
  const settle = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => e)
  // The reader cancels after its first chunk.
  const pair = open()
  const reader = pair.readable.getReader()
  const writer = pair.writable.getWriter()
  const writing = settle((async () => {
    for (const part of randomChunks(gz, 4000)) await writer.write(part)
    await writer.close()
  })())
  const first = await reader.read()
  assert.ok(!first.done && first.value.length > 0)
  await reader.cancel(new Error('enough'))
  assert.instance(await writing, Error, 'the writable side fails after the cancel')
  // The signal aborts while the reader waits.
  const controller = new AbortController()
  const aborted = open(controller.signal)
  const r = aborted.readable.getReader()
  const w = aborted.writable.getWriter()
  const writes = settle((async () => {
    for (const part of randomChunks(gz, 4000)) await w.write(part)
    await w.close()
  })())
  await r.read()
  controller.abort(new Error('stop'))
  // What was queued before the abort may still come out; then the reader fails with the reason.
  const error = await settle((async () => {
    for (let x = await r.read(); !x.done; x = await r.read());
  })())
  assert.is((error as Error).message, 'stop')
  assert.instance(await writes, Error)
})

test('the public surfaces with threads: decode(), gzipDecode, DecompressionStream, nodeDecode (workers, inputs over 1 MiB)', async () => {
  const big = concatBytes([text, text, text])
  const gz = gzipSync(big)
  const zz = deflateSync(big)
  try {
    assert.ok(same(await decode('gzip', gz, { threads: 2 }), big))
    assert.ok(same(await decode('deflate', zz, { threads: 2 }), big))
    const fromStream = await through(gzipDecode({ threads: 2 }), randomChunks(gz, 200_000))
    assert.ok(fromStream instanceof Uint8Array && same(fromStream, big))
    const web = await through(new DecompressionStream('deflate', { threads: 2 } as never) as never, randomChunks(zz, 100_000))
    assert.ok(web instanceof Uint8Array && same(web, big))
    const parts: Uint8Array[] = []
    for await (const p of Readable.from(randomChunks(gz, 150_000)).pipe(nodeDecode('gzip', { threads: 2 }))) parts.push(p as Uint8Array)
    assert.ok(same(concatBytes(parts), big))
    // A damaged stream: the serial decoder's error, through workers too.
    const bad = gz.slice()
    bad[Math.floor(bad.length * 0.7)]! ^= 0x10
    const serial = await decodeSerial('gzip', bad).catch((e: unknown) => e as CodecError)
    const threaded = await decode('gzip', bad, { threads: 2 }).catch((e: unknown) => e as CodecError)
    assert.instance(threaded, CodecError)
    assert.is((threaded as CodecError).code, (serial as CodecError).code)
    assert.is((threaded as CodecError).offset, (serial as CodecError).offset)
    // maxOutputBytes: the serial decoder's LIMIT_EXCEEDED, no chunk decoding far past it.
    const limited = await decode('gzip', gz, { threads: 2, maxOutputBytes: 1_000_000 }).catch((e: unknown) => e as CodecError)
    const limitedSerial = await decodeSerial('gzip', gz, { maxOutputBytes: 1_000_000 }).catch((e: unknown) => e as CodecError)
    assert.is((limited as CodecError).code, 'LIMIT_EXCEEDED')
    assert.is((limited as CodecError).offset, (limitedSerial as CodecError).offset)
  } finally {
    await closeWorkers()
  }
})

test('the CLI: sluice decompress -T 2 and test -T2 give what gzip -d gives; compress -T 2 writes what -T 1 writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-cli-T-'))
  try {
    const big = concatBytes([text, text])
    const file = join(dir, 'big.gz')
    writeFileSync(file, gzipSync(big))
    const main = join(root, 'adapters/node/cli/main.ts')
    const out = spawnSync(process.execPath, ['--import', 'tsx', main, 'decompress', '-T', '2', '-c', file], { cwd: root, maxBuffer: 1 << 28 })
    assert.is(out.status, 0, String(out.stderr))
    assert.ok(same(new Uint8Array(out.stdout), big))
    const t = spawnSync(process.execPath, ['--import', 'tsx', main, 'test', '-T2', '-v', file], { cwd: root })
    assert.is(t.status, 0, String(t.stderr))
    // compress -T: block mode on workers (docs/cli.md), whose bytes depend on the block size only.
    const [c2, c1] = ['2', '1'].map((t) => spawnSync(process.execPath, ['--import', 'tsx', main, 'compress', '-F', 'gz', '--block-size=256K', '-T', t, '-c', file], { cwd: root, maxBuffer: 1 << 28 }))
    assert.is(c2!.status, 0, String(c2!.stderr))
    assert.ok(c2!.stdout.length > 0 && c2!.stdout.equals(c1!.stdout), 'compress -T 2 writes what -T 1 writes')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('every .gz fixture of the shared test files decodes in parallel to the serial decoder\'s bytes', async () => {
  if (!fixtures) return console.log('# skipped: .gz fixtures (no ../shared/fixtures)')
  const files: string[] = []
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (name.endsWith('.gz')) files.push(p)
    }
  }
  walk(fixtures)
  for (const file of files) {
    const bytes = new Uint8Array(readFileSync(file))
    const want = await decodeSerial('gzip', bytes).catch((e: unknown) => e)
    const got = await inflateParallel(bytes, 'gzip', { maxOutputBytes: Infinity, concatenated: true, chunkBytes: Math.max(64, bytes.length >> 3), marginBytes: 256 }, inlineRunner().run, 4)
    if (want instanceof Uint8Array && got) assert.ok(same(got, want), file)
    else assert.ok(!(want instanceof Uint8Array) ? got === null : true, `${file}: a parallel result where the serial decoder fails`)
  }
  console.log(`# ${files.length} .gz fixtures`)
})

test.run()
