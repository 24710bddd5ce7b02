// Parallel decoding (issue 22): zstd streams of several frames and LZ4 frames with
// independent blocks, one-shot (`decode(format, data, { threads })`) and as streams
// (`zstdDecode`/`lz4Decode({ threads })`, `DecompressionStream`), give the serial
// decoder's bytes, and its error code (and offset) on corrupt input. Every case runs
// the jobs inline (threads: 1 through the same stream code: streams/threads-impl.ts
// `openDecodeStream`, lib/parallel/lz4-frames.ts with `runJob`) and on 2 workers.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { gunzipSync, gzipSync } from 'node:zlib'
import { nodeDecode, nodeEncode } from '../adapters/node/index.js'
import { closeWorkers, CodecError, decode, MIN_PARALLEL_BYTES, DecompressionStream, encode, gzipDecode, lz4Decode, zstdDecode } from '../index.js'
import { decodeWhole as decodeSerial } from '../lib/whole-buffer.js'
import { runJob, type Job, type JobRunner } from '../lib/parallel/jobs.js'
import { outputMemory } from '../lib/parallel/scratch.js'
import { decodeFrameGroups, zstdFrameGroups } from '../lib/parallel/zstd-frames.js'
import { prepareDecoder } from '../lib/prepare.js'
import { Machine } from '../lib/machine.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { decodeLz4Frames } from '../lib/parallel/lz4-frames.js'
import { headerChecksum } from '../lib/codecs/lz4-frame-format.js'
import { decodeLz4 } from '../streams/parallel.js'
import { Lz4Cutter } from '../lib/parallel/lz4-cutter.js'
import { ZstdCutter } from '../lib/parallel/zstd-cutter.js'
import { openDecodeStream } from '../streams/threads-impl.js'
import { workerPool } from '../streams/pool.js'
import { requireCli, runCli } from './_cli.js'
import { rejection, thrown } from './_caught.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { randomChunks } from './_streams.js'
import { concatBytes } from './_bytes.js'
import { warmWorkers } from './_workers.js'

/** Jobs run inline, on this thread, with the registry's span codecs (as `threads: 1` runs them). */
const inline: JobRunner = (job) => runJob(job, { createEncoder, createDecoder })
/** A parallel decoding stream as the shell opens it (streams/parallel-stream.ts), its jobs inline with `threads: 1`. */
const openInline = (format: 'zstd' | 'lz4', options: Record<string, unknown>) => openDecodeStream(format, options, undefined, { createEncoder, createDecoder, prepareDecoder, Machine })

const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 2_500_000, /\.d\.ts$/)
const input = new Uint8Array(text.length + 400_000)
input.set(text)
input.set(randomBytes(400_000), text.length)

const join2 = (...parts: Uint8Array[]): Uint8Array => concatBytes(parts)


type Pair = ReadableWritablePair<Uint8Array, Uint8Array>

/** The pair's output for `chunks` written in turn, or the error it failed with. */
async function through(pair: Pair, chunks: Uint8Array[]): Promise<Uint8Array> {
  const reading = new Response(pair.readable).arrayBuffer()
  const writer = pair.writable.getWriter()
  const writing = (async () => {
    for (const c of chunks) await writer.write(c)
    await writer.close()
  })()
  const [out] = await Promise.all([reading, writing.catch(() => undefined)])
  return new Uint8Array(out)
}

/** The ways to decode `data` in parallel: one-shot and streams, jobs inline and on 2 workers. */
function parallelWays(format: 'zstd' | 'lz4', most = 100_000): Array<[string, (data: Uint8Array, options?: Record<string, unknown>) => Promise<Uint8Array>]> {
  const factory = format === 'zstd' ? zstdDecode : lz4Decode
  const ways: Array<[string, (data: Uint8Array, options?: Record<string, unknown>) => Promise<Uint8Array>]> = [
    ['one-shot, 2 workers', (data, options = {}) => decode(format, data, { ...options, threads: 2 })],
    ['stream, inline jobs', (data, options = {}) => through(openInline(format, { ...options, threads: 1 }), randomChunks(data, most))],
    ['stream, 2 workers', (data, options = {}) => through(factory({ ...options, threads: 2 } as never), randomChunks(data, most, 3))],
  ]
  if (format === 'lz4') {
    ways.push([
      'one-shot, inline jobs',
      async (data, options = {}) => decodeLz4(data, options, inline, 4, { decodeSerial }),
    ])
  }
  return ways
}

/** What `promise` gives, in short: its bytes' length and hash, or the CodecError's code and offset. */
async function outcome(promise: Promise<Uint8Array>): Promise<string> {
  try {
    const bytes = await promise
    return `bytes ${bytes.length} ${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`
  } catch (error) {
    if (error instanceof CodecError) return `${error.code} at ${error.offset}`
    throw error
  }
}
const expected = async (bytes: Uint8Array) => outcome(Promise.resolve(bytes))

/** Every parallel way agrees with the serial decoder on `data` (bytes, or error code and offset). */
async function agree(format: 'zstd' | 'lz4', data: Uint8Array, label: string, options: Record<string, unknown> = {}, offsets = true): Promise<string> {
  const serial = await outcome(decodeSerial(format, data, options))
  for (const [way, run] of parallelWays(format)) {
    const got = await outcome(run(data, options))
    if (!offsets && !serial.startsWith('bytes')) assert.is(got.split(' ')[0], serial.split(' ')[0], `${label}: ${way}: ${got} vs serial ${serial}`)
    else assert.is(got, serial, `${label}: ${way}`)
  }
  return serial
}

test('zstd: block-mode frames, one-shot and streams, inline and on workers, give the serial bytes', async () => {
  await warmWorkers(2, input)
  const before = workerPool().jobsOnWorkers
  const z = await encode('zstd', input, { blockSize: 256 * 1024 })
  const cutter = new ZstdCutter({})
  const jobs = [...cutter.push(z), ...cutter.end()].filter((c) => c.kind === 'job')
  assert.ok(jobs.length >= 2, `${jobs.length} jobs`)
  assert.is(await agree('zstd', z, 'block mode'), await expected(input))
  // A count that only grows (the number of workers falls as idle ones end after IDLE_MS).
  assert.ok(workerPool().jobsOnWorkers > before, 'workers ran the jobs')
})

test('zstd: frames from the zstd CLI, with and without content sizes, skippable frames between', async () => {
  if (!requireCli('zstd')) return
  const pieces = [input.subarray(0, 900_000), input.subarray(900_000, 2_000_000), input.subarray(2_000_000)]
  // From a file the CLI writes the content size; through a pipe it cannot.
  const sized = pieces.map((p) => runCli('zstd', ['-q', '-c', '-3'], p, 'file'))
  const unsized = pieces.map((p) => runCli('zstd', ['-q', '-c', '-3'], p, 'pipe'))
  const skippable = new Uint8Array([0x50, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5])
  assert.is(await agree('zstd', join2(...sized), 'sized'), await expected(input))
  assert.is(await agree('zstd', join2(sized[0]!, unsized[1]!, sized[2]!), 'mixed'), await expected(input))
  assert.is(await agree('zstd', join2(unsized[0]!, skippable, sized[1]!, skippable, sized[2]!), 'skippable'), await expected(input))
  // One frame of -T2 (several jobs, one frame): not split, the same bytes.
  assert.is(await agree('zstd', runCli('zstd', ['-q', '-c', '-T2'], input, 'file'), 'one frame'), await expected(input))
})

test('lz4: frames from the lz4 CLI (independent, dependent, checksums, sizes, legacy) and from our encoder', async () => {
  const ours = await encode('lz4', input, { blockSize: 262144, blockChecksum: true })
  assert.is(await agree('lz4', ours, 'ours'), await expected(input))
  const cutter = new Lz4Cutter({ maxOutputBytes: 2 ** 31 })
  const cuts = [...cutter.push(ours), ...cutter.end()]
  assert.ok(cuts.filter((c) => c.kind === 'job').length >= 2 && cuts.every((c) => c.kind !== 'serial'), 'our frame splits')
  assert.equal(await decodeLz4Frames(ours, { maxOutputBytes: 2 ** 31 }, inline, 4), input, 'decoded by jobs, not by the serial fallback')
  // The sum of the jobs' bounds over maxOutputBytes: no job starts (null: serial).
  assert.is(await decodeLz4Frames(ours, { maxOutputBytes: input.length - 1 }, inline, 4), null)
  if (!requireCli('lz4')) return
  for (const args of [[], ['-B4'], ['-B5', '-BX'], ['-B6', '--no-frame-crc'], ['-BD'], ['-B4', '-BD', '-BX']]) {
    const c = runCli('lz4', ['-q', '-c', ...args], input, 'file')
    assert.is(await agree('lz4', c, args.join(' ')), await expected(input))
  }
  // The legacy frame: the serial decoder's refusal, from every way.
  assert.is(await agree('lz4', runCli('lz4', ['-q', '-c', '-l'], input, 'file'), '-l'), 'UNSUPPORTED at 0')
  const withSize = runCli('lz4', ['-q', '-c', '-B4', '--content-size'], input, 'file')
  assert.is(await agree('lz4', withSize, '--content-size'), await expected(input))
  // Concatenated frames, dependent ones and skippable frames between.
  const a = runCli('lz4', ['-q', '-c', '-B4'], input.subarray(0, 1_500_000), 'pipe')
  const b = runCli('lz4', ['-q', '-c', '-B4', '-BD'], input.subarray(1_500_000, 2_000_000), 'pipe')
  const c = runCli('lz4', ['-q', '-c', '-B5', '-BX'], input.subarray(2_000_000), 'pipe')
  const skippable = new Uint8Array([0x5f, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 7, 7, 7])
  assert.is(await agree('lz4', join2(a, skippable, b, c), 'concatenated'), await expected(input))
})

test('one-shot parallel decodes hand the memory of outputs they copied to later jobs (scratch), same bytes', async () => {
  // A runner that records the scratch each job came with, and runs it inline.
  const seen: Array<ArrayBuffer | null> = []
  const kinds: string[] = []
  const recording: JobRunner = (job: Job) => {
    if (job.kind === 'lz4-blocks' || job.kind === 'decode') seen.push(job.scratch ?? null)
    kinds.push(job.kind)
    return inline(job)
  }
  // LZ4 jobs aim at 1 MiB of output (lib/parallel/cuts.ts): enough input for several.
  const three = join2(input, input, input)
  const lz4 = await encode('lz4', three, { blockSize: 65536 })
  assert.equal(await decodeLz4Frames(lz4, { maxOutputBytes: 2 ** 31 }, recording, 2), three)
  assert.ok(seen.length > 3, `${seen.length} jobs`)
  assert.equal(seen.slice(0, 2), [null, null], 'the first jobs in flight have no scratch yet')
  assert.ok(seen.slice(2).every((s) => s instanceof ArrayBuffer), 'each later job reuses an output copied away (hashed first)')
  assert.ok(kinds.includes('xxh32'), 'the content checksum is computed by xxh32 jobs')
  seen.length = 0
  const zstd = await encode('zstd', input, { blockSize: 256 * 1024 })
  const groups = zstdFrameGroups(zstd, 300_000)!
  assert.ok(groups.length > 3, `${groups?.length} groups`)
  assert.equal(await decodeFrameGroups(zstd, groups, {}, 2 ** 31, recording, 2), input)
  assert.ok(seen.slice(2).some((s) => s instanceof ArrayBuffer), 'zstd jobs reuse outputs copied away')
  // A scratch too small for the output is not used; a large enough one is, from its start.
  const small = new ArrayBuffer(10)
  assert.is(outputMemory(small, 11).buffer === small, false)
  const big = new ArrayBuffer(100)
  const view = outputMemory(big, 40)
  assert.ok(view.buffer === big && view.byteOffset === 0 && view.length === 40)
})

test('corrupted bytes: the serial decoder\'s error code and offset (the bytes where it decodes)', async () => {
  const part = input.subarray(0, 1_500_000)
  const cases = [
    ['zstd', await encode('zstd', part, { blockSize: 128 * 1024 }), true],
    ['lz4', await encode('lz4', part, { blockSize: 65536, blockChecksum: true }), true],
    ['lz4', await encode('lz4', part, { blockSize: 65536 }), true],
    // With a content size, a block decoding past it is found once the job is back: the
    // serial decoder's code, at the start of the job's blocks.
    ['lz4', await encode('lz4', part, { blockSize: 65536, contentSize: part.length }), false],
  ] as const
  let x = 12345
  const failures = new Map<string, number>()
  for (const [format, data, offsets] of cases) {
    for (let i = 0; i < 16; i++) {
      x = (x * 1103515245 + 12345) >>> 0
      const bad = data.slice()
      const at = x % bad.length
      bad[at] ^= 1 << (x >>> 28) % 8
      const serial = await agree(format, bad, `${format} byte ${at}`, {}, offsets)
      if (!serial.startsWith('bytes')) failures.set(serial.split(' ')[0]!, (failures.get(serial.split(' ')[0]!) ?? 0) + 1)
    }
    await agree(format, data.subarray(0, data.length - 5), `${format} truncated`)
    await agree(format, data.subarray(0, 700_001), `${format} cut mid-stream`)
  }
  assert.ok(failures.size >= 2, `several kinds of failure: ${[...failures.keys()].join(', ')}`)
})

test('lz4 one-shot: the content checksums of several frames, computed by xxh32 jobs in order (hash-chain.ts); a wrong one: null (the serial decoder reports it)', async () => {
  const kinds: string[] = []
  const recording: JobRunner = (job: Job) => {
    kinds.push(job.kind)
    return inline(job)
  }
  // Enough content for 8 jobs or more (fewer hash on the caller's thread: lz4-frames.ts).
  const big = join2(input, input, input)
  const a = big.subarray(0, 4_000_000)
  const b = big.subarray(4_000_000, 6_000_000)
  const c = big.subarray(6_000_000)
  // With, without and with a content checksum; an empty frame with one between.
  const frames = [await encode('lz4', a, { blockSize: 65536 }), await encode('lz4', b, { blockSize: 65536, contentChecksum: false }), await encode('lz4', new Uint8Array(0)), await encode('lz4', c, { blockSize: 262144 })]
  const all = join2(...frames)
  assert.equal(await decodeLz4Frames(all, { maxOutputBytes: 2 ** 31 }, recording, 3), big)
  assert.ok(kinds.filter((k) => k === 'xxh32').length >= 2, kinds.join())
  // On workers: the hash jobs there, the outputs they hashed kept for the next jobs.
  await warmWorkers(2, input)
  for (let i = 0; i < 3; i++) assert.equal(await decode('lz4', all, { threads: 2 }), big)
  // A content checksum changed in the last frame, then in the empty one.
  for (const at of [all.length - 1, frames[0]!.length + frames[1]!.length + frames[2]!.length - 1]) {
    const bad = all.slice()
    bad[at] ^= 0x10
    assert.is(await decodeLz4Frames(bad, { maxOutputBytes: 2 ** 31 }, recording, 3), null, `byte ${at}`)
    assert.is(((await rejection(decode('lz4', bad, { threads: 2 }))) as CodecError).code, 'CHECKSUM_MISMATCH')
  }
})

test('lz4: a wrong content checksum or content size: the serial decoder\'s error, one check for streams and one-shot (Lz4FrameChecks)', async () => {
  const part = input.subarray(0, 1_500_000)
  const frame = await encode('lz4', part, { blockSize: 65536, contentSize: part.length })
  const checksum = frame.slice()
  checksum[checksum.length - 2] ^= 4
  assert.is(await agree('lz4', checksum, 'content checksum'), `CHECKSUM_MISMATCH at ${frame.length - 4}`)
  /** The frame declaring `size` (its header checksum made again). */
  const declaring = (size: number): Uint8Array => {
    const x = frame.slice()
    x[6] = size & 0xff
    x[7] = (size >>> 8) & 0xff
    x[8] = (size >>> 16) & 0xff
    x[14] = headerChecksum(x, 4, 14)
    return x
  }
  assert.is(await agree('lz4', declaring(part.length + 1), 'content size + 1'), `INVALID_DATA at ${frame.length - 8}`)
  // A block past the declared size: found once its job is back, at the start of the job's blocks.
  assert.match(await agree('lz4', declaring(part.length - 1), 'content size - 1', {}, false), /^INVALID_DATA at /)
})

/** The cuts of `chunks` pushed in turn, in a form that does not depend on the chunking (serial bytes merged). */
function cutsOf(cutter: ZstdCutter | Lz4Cutter, chunks: Uint8Array[]): string[] {
  const out: string[] = []
  let serial: number[] = []
  let serialStart = -1
  const flush = () => {
    if (serialStart >= 0) out.push(`serial ${serialStart} ${serial.length} ${createHash('sha256').update(new Uint8Array(serial)).digest('hex').slice(0, 12)}`)
    serial = []
    serialStart = -1
  }
  for (const cut of [...chunks.flatMap((c) => cutter.push(c)), ...cutter.end()]) {
    if (cut.kind === 'serial') {
      if (serialStart < 0) serialStart = cut.start
      else assert.is(cut.start, serialStart + serial.length, 'serial bytes are consecutive')
      serial.push(...cut.bytes)
      continue
    }
    flush()
    if (cut.kind === 'job') out.push(`job ${cut.start}-${cut.end} ${cut.size} ${createHash('sha256').update(cut.job.input).digest('hex').slice(0, 12)}`)
    else out.push(JSON.stringify(cut))
  }
  flush()
  return out
}

test('cutters: the same cuts for any chunking (whole, one byte at a time, random), pure', async () => {
  const piece = (from: number, n: number) => input.subarray(from, from + n)
  const skip = new Uint8Array([0x51, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9])
  const zstdInputs = [await encode('zstd', piece(0, 300_000), { blockSize: 65536 }), join2(await encode('zstd', piece(0, 100_000)), skip, await encode('zstd', piece(100_000, 5000), { contentSize: undefined }), skip)]
  if (requireCli('zstd')) zstdInputs.push(join2(runCli('zstd', ['-q', '-c'], piece(0, 70_000), 'pipe'), await encode('zstd', piece(0, 200_000), { blockSize: 65536 })))
  const lz4Inputs = [await encode('lz4', piece(0, 300_000), { blockChecksum: true, contentSize: 300_000 }), join2(await encode('lz4', piece(0, 100_000)), skip.map((b, i) => (i === 0 ? 0x5a : b)), await encode('lz4', piece(5, 70_000), { contentChecksum: false }))]
  if (requireCli('lz4')) lz4Inputs.push(join2(runCli('lz4', ['-q', '-c', '-BD', '-BX'], piece(0, 200_000)), await encode('lz4', piece(0, 200_000))))
  for (const [format, inputs] of [['zstd', zstdInputs], ['lz4', lz4Inputs]] as const) {
    const make = () => (format === 'zstd' ? new ZstdCutter({}) : new Lz4Cutter({ maxOutputBytes: 2 ** 31 }))
    for (const data of inputs) {
      const whole = cutsOf(make(), [data])
      assert.ok(whole.length > 0)
      assert.equal(cutsOf(make(), [...data].map((b) => new Uint8Array([b]))), whole, `${format}: one byte at a time`)
      for (const most of [3, 17, 1000]) assert.equal(cutsOf(make(), randomChunks(data, most, most)), whole, `${format}: chunks up to ${most}`)
    }
  }
})

test('a stream that nobody reads stops taking input: bounded memory', async () => {
  // 1 MiB frames of zeros: a few bytes each, a MiB of output each.
  const frames = await encode('zstd', new Uint8Array(64 << 20), { blockSize: 1 << 20 })
  const cutter = new ZstdCutter({})
  const units = cutter.push(frames).concat(cutter.end())
  const perFrame = units.filter((c) => c.kind === 'job').map((c) => (c.kind === 'job' ? c.job.input : new Uint8Array(0)))
  assert.is(perFrame.length, 64)
  const pair = zstdDecode({ threads: 2 })
  const writer = pair.writable.getWriter()
  let accepted = 0
  const writing = (async () => {
    for (const f of perFrame) {
      await writer.write(f)
      accepted++
    }
  })().then(
    () => null,
    (e: unknown) => e,
  )
  // Wait until the writes stop making progress (each check waits for the pool's jobs).
  let last = -1
  while (last !== accepted) {
    last = accepted
    await new Promise((r) => setTimeout(r, 200))
  }
  // In flight: 2 x threads jobs, the readable side's queue (2 x threads MiB), a frame
  // held by the cutter and one write; far from all 64.
  assert.ok(accepted < 16, `${accepted} of 64 frames taken with no reader`)
  // Cancelled without a reason: the blocked write fails with ABORTED (and returns).
  await pair.readable.cancel()
  const error = await writing
  assert.instance(error, CodecError)
  assert.is((error as CodecError).code, 'ABORTED')
})

test('a slow reader: the stream waits for it and finishes (the writes and the job consumer both wait for room)', async () => {
  const data = new Uint8Array(16 << 20).map((_, i) => (i * 7 + (i >> 13)) & 0xff)
  for (const [format, factory] of [['zstd', zstdDecode], ['lz4', lz4Decode]] as const) {
    const encoded = await encode(format, data, { blockSize: format === 'zstd' ? 1 << 20 : 262144 } as never)
    const pair = factory({ threads: 2 })
    const reading = (async () => {
      const reader = pair.readable.getReader()
      const parts: Uint8Array[] = []
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        parts.push(r.value)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      return concatBytes(parts)
    })()
    const writer = pair.writable.getWriter()
    const writing = (async () => {
      for (let at = 0; at < encoded.length; at += 1 << 20) await writer.write(encoded.subarray(at, at + (1 << 20)))
      await writer.close()
    })()
    // A guard against a hang, not a timing check: the stream takes well under a second.
    let guard: ReturnType<typeof setTimeout> | undefined
    const hang = new Promise<never>((_, reject) => (guard = setTimeout(() => reject(new Error(`${format}: the stream hung`)), 120_000)))
    const [out] = await Promise.race([Promise.all([reading, writing]), hang])
    clearTimeout(guard)
    assert.equal(out, data, format)
  }
})

test('one-shot LZ4 decoding to less than MIN_PARALLEL_BYTES stays serial: no worker starts', async () => {
  closeWorkers()
  // Three frames: a group of blocks ends with its frame, so they are three jobs.
  const small = input.subarray(0, 600_000)
  const l = join2(await encode('lz4', small.subarray(0, 200_000)), await encode('lz4', small.subarray(200_000, 400_000)), await encode('lz4', small.subarray(400_000)))
  assert.equal(await decode('lz4', l, { threads: 2 }), small)
  assert.is(workerPool().workers, 0)
  // Not even inline jobs (slower than the serial decoder on one thread): the serial path.
  let jobs = 0
  const counting: JobRunner = (job) => (jobs++, inline(job))
  assert.equal(await decodeLz4(l, {}, counting, 4, { decodeSerial }, MIN_PARALLEL_BYTES), small)
  assert.is(jobs, 0)
  assert.equal(await decodeLz4(l, {}, counting, 4, { decodeSerial }), small)
  assert.ok(jobs >= 2, 'without the floor, the same input runs as jobs')
})

test('one-byte writes give the one-shot bytes', async () => {
  const small = input.subarray(2_000_000, 2_300_000)
  for (const format of ['zstd', 'lz4'] as const) {
    const data = await encode(format, small, { blockSize: 65536 })
    const bytes = [...data].map((b) => new Uint8Array([b]))
    assert.equal(await through(openInline(format, { threads: 1 }), bytes), small, `${format} inline`)
    assert.equal(await through((format === 'zstd' ? zstdDecode : lz4Decode)({ threads: 2 }), bytes), small, `${format} workers`)
  }
})

test('maxOutputBytes: the serial decoder\'s LIMIT_EXCEEDED, before the output passes it', async () => {
  const z = await encode('zstd', input, { blockSize: 256 * 1024 })
  const l = await encode('lz4', input, { blockSize: 262144 })
  for (const [format, data] of [['zstd', z], ['lz4', l]] as const) {
    for (const [way, run] of parallelWays(format)) {
      const error = await rejection(run(data, { maxOutputBytes: 1_000_000 }))
      assert.instance(error, CodecError, `${format} ${way}`)
      assert.is((error as CodecError).code, 'LIMIT_EXCEEDED', `${format} ${way}`)
      assert.equal(await run(data, { maxOutputBytes: input.length }), input, `${format} ${way} at the limit`)
    }
  }
})

test('cancel mid-stream: the queued jobs are dropped, the writer fails', async () => {
  const z = await encode('zstd', input, { blockSize: 65536 })
  const pair = zstdDecode({ threads: 2 })
  const reader = pair.readable.getReader()
  const writer = pair.writable.getWriter()
  const writing = writer.write(z).then(
    () => 'written',
    (e: unknown) => e,
  )
  const first = await reader.read()
  assert.ok(!first.done && first.value.length > 0)
  await reader.cancel(new Error('enough'))
  const w = await writing
  const closed = await writer.close().then(
    () => 'closed',
    (e: unknown) => e,
  )
  assert.ok(w instanceof Error || closed instanceof Error, 'the writable side fails after the cancel')
  assert.is(workerPool().queued, 0, 'no job left queued')
})

test('an abort signal stops the stream', async () => {
  const z = await encode('zstd', input, { blockSize: 65536 })
  const controller = new AbortController()
  const pair = zstdDecode({ threads: 2, signal: controller.signal })
  const reader = pair.readable.getReader()
  const writer = pair.writable.getWriter()
  const writing = writer.write(z).catch((e: unknown) => e)
  await reader.read()
  controller.abort(new Error('stop'))
  const error = await rejection(reader.read())
  assert.is((error as Error).message, 'stop')
  await writing
  assert.is(workerPool().queued, 0)
})

test('DecompressionStream with threads: the bytes, and TypeErrors carrying the CodecError', async () => {
  const z = await encode('zstd', input, { blockSize: 256 * 1024 })
  const l = await encode('lz4', input)
  for (const [format, data] of [['zstd', z], ['lz4', l]] as const) {
    assert.equal(await through(new DecompressionStream(format, { threads: 2 }) as Pair, randomChunks(data, 300_000)), input, format)
    const bad = data.slice()
    bad[data.length >> 1] ^= 0xff
    const error = await rejection(through(new DecompressionStream(format, { threads: 2 }) as Pair, [bad]))
    assert.instance(error, TypeError, format)
    assert.instance((error as TypeError).cause, CodecError)
    assert.is((error as { code?: string }).code, ((error as TypeError).cause as CodecError).code)
  }
  const typeError = thrown(() => new DecompressionStream('zstd', { threads: 0 }))
  assert.instance(typeError, TypeError)
  assert.is((typeError as { code?: string }).code, 'INVALID_OPTION')
})

test('options are checked at the call; formats without anything to split decode as before', async () => {
  for (const bad of [{ threads: 0 }, { threads: 1.5 }, { threads: 'many' }, { threads: 2, maxOutputBytes: -1 }, { threads: 2, chunkSiz: 4 }, { threads: 2, onProgress: () => {} }]) {
    const error = thrown(() => zstdDecode(bad as never))
    assert.instance(error, CodecError, JSON.stringify(bad))
    assert.is((error as CodecError).code, 'INVALID_OPTION')
  }
  assert.instance(thrown(() => lz4Decode({ threads: 2, blockSize: 65536 } as never)), CodecError)
  const gz = await encode('gzip', input)
  assert.equal(await through(gzipDecode({ threads: 2 }), randomChunks(gz, 100_000)), input)
  assert.instance(thrown(() => gzipDecode({ threads: -1 })), CodecError)
  // A decoder has no sync points: flush() rejects as on a serial decoding stream.
  const error = await rejection((zstdDecode({ threads: 2 }) as unknown as { flush(): Promise<void> }).flush())
  assert.is((error as CodecError).code, 'UNSUPPORTED')
})

/** A Node readable's bytes. */
async function drainNode(readable: NodeJS.ReadableStream): Promise<Uint8Array> {
  const parts: Buffer[] = []
  await pipeline(readable, new Writable({ write(chunk: Buffer, _e, cb) { parts.push(chunk); cb() } }))
  return new Uint8Array(Buffer.concat(parts))
}

test('Node adapter: nodeDecode/nodeEncode with threads, against node:zlib and the CLIs', async () => {
  // Decoding: zstd frames of block mode, LZ4 independent blocks from the CLI.
  const z = await encode('zstd', input, { blockSize: 256 * 1024 })
  assert.equal(await drainNode(Readable.from(randomChunks(z, 200_000)).pipe(nodeDecode('zstd', { threads: 2 }))), input, 'zstd')
  const l = requireCli('lz4') ? runCli('lz4', ['-q', '-c', '-B5', '-BX'], input, 'file') : await encode('lz4', input)
  assert.equal(await drainNode(Readable.from(randomChunks(l, 200_000)).pipe(nodeDecode('lz4', { threads: 2 }))), input, 'lz4')
  // Encoding in block mode: the bytes of encode() with the same options, read by node:zlib and zstd.
  const gz = await drainNode(Readable.from(randomChunks(input, 150_000)).pipe(nodeEncode('gzip', { threads: 2, blockSize: 65536 })))
  assert.equal(gz, await encode('gzip', input, { threads: 2, blockSize: 65536 }))
  assert.equal(new Uint8Array(gunzipSync(gz)), input, 'node:zlib reads it')
  const zst = await drainNode(Readable.from(randomChunks(input, 150_000)).pipe(nodeEncode('zstd', { threads: 2 })))
  if (requireCli('zstd')) assert.equal(runCli('zstd', ['-dc'], zst), input, 'the zstd CLI reads it')
  // A gzip decoder has nothing to split: threads is accepted and it decodes as before.
  assert.equal(await drainNode(Readable.from([gzipSync(input)]).pipe(nodeDecode('gzip', { threads: 2 }))), input)
  // Corrupt input: an 'error' event with the serial decoder's CodecError.
  const bad = z.slice()
  bad[z.length >> 1] ^= 0xff
  const serial = (await rejection(decodeSerial('zstd', bad))) as CodecError
  const error = (await rejection(drainNode(Readable.from([bad]).pipe(nodeDecode('zstd', { threads: 2 }))))) as CodecError
  assert.instance(error, CodecError)
  assert.is(`${error.code} ${error.offset}`, `${serial.code} ${serial.offset}`)
})

test('Node adapter: options are checked at the call, thrown, never an error event', () => {
  for (const make of [
    () => nodeDecode('zstd', { threads: 0 }),
    () => nodeDecode('zstd', { threads: 2, maxOutputByte: 1 } as never),
    () => nodeDecode('gzip', { threads: 'x' } as never),
    () => nodeEncode('gzip', { threads: 2, blockSize: 100 }),
    () => nodeEncode('zstd', { blockSize: 65536, levl: 3 } as never),
    () => nodeEncode('brotli', { threads: 2 }),
    () => nodeEncode('gzip', { threads: 2, duplex: { objectMode: true } as never }),
  ]) {
    const error = thrown(make)
    assert.instance(error, CodecError, String(make))
  }
})

test('Node Buffers given to workers are copied, never detached (Buffer#slice is a view)', async () => {
  const plain = Buffer.from(input)
  const z = Buffer.from(await encode('zstd', plain, { threads: 2, blockSize: 256 * 1024 }))
  assert.is(plain.byteLength, input.length, 'encode() input intact')
  assert.equal(await decode('zstd', z, { threads: 2 }), input)
  assert.is(z.byteLength > 0 && z.buffer.byteLength > 0, true, 'decode() input intact')
  const chunks = randomChunks(z, 300_000).map((c) => Buffer.from(c))
  assert.equal(await through(zstdDecode({ threads: 2 }), chunks), input)
  assert.ok(chunks.every((c) => c.buffer.byteLength > 0), 'stream chunks intact')
})

test('one-shot decode with onProgress and threads: decoded on this thread, progress reported', async () => {
  const z = await encode('zstd', input, { blockSize: 256 * 1024 })
  const l = await encode('lz4', input)
  for (const [format, data] of [['zstd', z], ['lz4', l]] as const) {
    let reports = 0
    assert.equal(await decode(format, data, { threads: 2, concatenated: true, onProgress: () => void reports++ }), input)
    assert.ok(reports > 0, format)
  }
})

test.after(() => closeWorkers())
test.run()
