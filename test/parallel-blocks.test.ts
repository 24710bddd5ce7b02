// Block mode without workers (lib/parallel): the jobs run inline through runJob, so
// these are the bytes every thread count must reproduce. Oracles: node:zlib, the gzip,
// pigz, zstd and lz4 CLIs; the checksum combination against checksum.ts over the whole.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { gunzipSync, inflateSync, inflateRawSync, gzipSync } from 'node:zlib'
import { adler32, crc32 } from '../lib/codecs/checksum.js'
import { adler32Combine, crc32Combine } from '../lib/parallel/combine.js'
import { blockPlan, checkBlockSize, encodeBlocks, runOrdered } from '../lib/parallel/blocks.js'
import { decodeFrameGroups, zstdFrameGroups } from '../lib/parallel/zstd-frames.js'
import { runJob as runJobWith, type Job, type JobResult } from '../lib/parallel/jobs.js'
import { createDecoder, createEncoder } from '../lib/registry.js'

/** Jobs inline on this thread, with the registry's engines (as streams/job-runner.ts runs them). */
const runJob = (job: Job): Promise<JobResult> => runJobWith(job, { createEncoder, createDecoder })
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import type { Encoder, Format } from '../lib/codec.js'
import { Status } from '../lib/status.js'
import { loadZlibngEngine } from '../lib/codecs/wasm/zlibng-engine.js'
import { CodecError } from '../lib/errors.js'
import { cliMissing, requireCli, runCli } from './_cli.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { join } from 'node:path'

const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 1_500_000, /\.d\.ts$/)
const mixed = new Uint8Array(700_000)
mixed.set(text.subarray(0, 400_000))
mixed.set(randomBytes(300_000), 400_000)

const inline = (plan: ReturnType<typeof blockPlan>, bytes: Uint8Array, inFlight = 4) => encodeBlocks(plan!, bytes, runJob, inFlight)

test('crc32Combine and adler32Combine match the checksum of the whole', () => {
  for (const [la, lb] of [[0, 0], [0, 7], [9, 0], [1, 1], [40_000, 123_457], [5, 1 << 20], [70_000, 65_521 * 3 + 2]] as const) {
    const a = randomBytes(la, la + 1)
    const b = randomBytes(lb, lb + 7)
    const ab = new Uint8Array(la + lb)
    ab.set(a)
    ab.set(b, la)
    assert.is(crc32Combine(crc32(a), crc32(b), lb), crc32(ab), `crc ${la}+${lb}`)
    assert.is(adler32Combine(adler32(a), adler32(b), lb), adler32(ab), `adler ${la}+${lb}`)
  }
})

test('deflate family: blocks read by node:zlib, every block size and input edge', async () => {
  for (const format of ['gzip', 'deflate', 'deflate-raw'] as const) {
    const read = format === 'gzip' ? gunzipSync : format === 'deflate' ? inflateSync : inflateRawSync
    for (const bytes of [new Uint8Array(0), text.subarray(0, 1), text.subarray(0, 32 * 1024), text.subarray(0, 128 * 1024), text.subarray(0, 128 * 1024 + 1), mixed]) {
      for (const blockSize of [32 * 1024, 100_000, 128 * 1024]) {
        const out = await inline(blockPlan(format, blockSize, { level: 6 }), bytes)
        assert.equal(new Uint8Array(read(out)), bytes, `${format} ${bytes.length} bytes in ${blockSize}-byte blocks`)
        assert.equal(await decode(format, out), bytes)
      }
    }
  }
})

test('deflate family: one block is the serial encoder\'s stream byte for byte', async () => {
  for (const format of ['gzip', 'deflate', 'deflate-raw'] as const) {
    const bytes = text.subarray(0, 50_000)
    const serial = await encode(format, bytes, { level: 6 })
    const blocks = await inline(blockPlan(format, 128 * 1024, { level: 6 }), bytes)
    assert.equal(blocks, serial, format)
  }
})

test('deflate: a zlib preset dictionary reaches the first block, FDICT in the header', async () => {
  const dictionary = text.subarray(200_000, 260_000)
  const bytes = text.subarray(0, 300_000)
  const out = await inline(blockPlan('deflate', 64 * 1024, { level: 6, dictionary }), bytes)
  assert.equal(new Uint8Array(inflateSync(out, { dictionary })), bytes)
  assert.equal(await decode('deflate', out, { dictionary }), bytes)
})

/** All of `src` through a span encoder, then a sync flush unless `final`: what block mode's jobs wrote on a new encoder per block. */
function throughEncoder(encoder: Encoder, src: Uint8Array, final: boolean): Uint8Array {
  const dst = new Uint8Array(src.length + 65536)
  let written = 0
  let rest = src
  for (;;) {
    const status = encoder.transform(rest, dst.subarray(written), final)
    written += encoder.written
    rest = rest.subarray(encoder.consumed)
    if (status === Status.Done) break
    assert.is(status, Status.DestinationTooSmall)
  }
  if (!final) {
    assert.is(encoder.flush(dst.subarray(written)), Status.Done)
    written += encoder.written
  }
  return dst.slice(0, written)
}

test('deflate blocks on zlib-ng (one stream per level, reused): each block the bytes of a new encoder, whatever ran before it', async () => {
  // Jobs of other levels, dictionaries, lengths and check kinds in between: a block's
  // bytes depend only on its own job (lib/codecs/zlibng-block.ts, native zd_reset).
  const jobs: Job[] = []
  const dictionary = text.subarray(900_000, 960_000)
  for (let i = 0; i < 12; i++) {
    const start = 40_000 + i * 97_000
    const level = [6, 1, 9, 6, 0, 4][i % 6]!
    const prefix = i % 4 === 3 ? 0 : 32 * 1024
    jobs.push({
      kind: 'deflate-block',
      engine: 'wasm',
      level,
      input: (i % 5 === 4 ? mixed : text).subarray(start - prefix, start + 60_000 + i * 7_000),
      prefix,
      dictionary: prefix === 0 && i % 8 === 3 ? dictionary : null,
      last: i % 3 === 2,
      check: (['crc32', 'adler32', 'none'] as const)[i % 3]!,
    })
  }
  const expected = await Promise.all(
    jobs.map(async (job) => {
      if (job.kind !== 'deflate-block') throw new Error('deflate-block jobs only')
      const history = job.prefix > 0 ? job.input.subarray(0, job.prefix) : job.dictionary
      const encoder = await createEncoder('deflate-raw', { engine: 'wasm', level: job.level, ...(history ? { dictionary: history } : {}) })
      const block = job.input.subarray(job.prefix)
      const output = throughEncoder(encoder, block, job.last)
      encoder.dispose()
      return { output, check: job.check === 'crc32' ? crc32(block) : job.check === 'adler32' ? adler32(block) : 0 }
    }),
  )
  // Twice over, in two orders: the reused streams have encoded other blocks before each.
  for (const order of [jobs.map((_, i) => i), jobs.map((_, i) => jobs.length - 1 - i)]) {
    for (const i of order) {
      const r = await runJob(jobs[i]!)
      assert.equal(r.output, expected[i]!.output, `job ${i}`)
      assert.is(r.check, expected[i]!.check, `job ${i} check`)
      assert.is(r.output.byteLength, r.output.buffer.byteLength, 'the output owns its buffer (a worker transfers it as it is)')
    }
  }
})

test('zlib-ng: a reset stream encodes as a new one (no bytes of the previous stream reach the match finder)', async () => {
  // With a bare deflateReset, some of these blocks (32 KiB of history, then 64 KiB, so
  // the window slides) differed from a new stream's: the window's high-water mark and
  // the chain table carried over (native/zlibng-deflate.c zd_reset).
  const { exports: native, heap } = await loadZlibngEngine()
  const stage = native.malloc(1 << 20)
  /** One Z_FINISH stream of `data` after `history` on `stream`. */
  const encodeOn = (stream: number, history: Uint8Array, data: Uint8Array): Uint8Array => {
    heap.refresh()
    const at = stage + 16
    heap.bytes.set(history, at)
    heap.bytes.set(data, at + history.length)
    const out = at + history.length + data.length
    assert.is(native.zd_dictionary(stream, at, history.length), 0)
    assert.is(native.zd_step(stream, 4, at + history.length, data.length, out, 512 * 1024, stage), 1)
    heap.refresh()
    return heap.bytes.slice(out, out + heap.words[(stage >>> 2) + 1]!)
  }
  for (const level of [1, 6]) {
    const reused = native.zd_create(level, -15)
    for (let i = 1; i < 16; i++) {
      const history = text.subarray((i << 16) - 32768, i << 16)
      const data = text.subarray(i << 16, (i + 1) << 16)
      const fresh = native.zd_create(level, -15)
      const expected = encodeOn(fresh, history, data)
      native.zd_free(fresh)
      assert.is(native.zd_reset(reused), 0)
      assert.equal(encodeOn(reused, history, data), expected, `level ${level}, block ${i}`)
    }
    native.zd_free(reused)
  }
  native.free(stage)
})

test('gzip blocks: the gzip and pigz CLIs read them, and the size cost is small', async () => {
  const out = await inline(blockPlan('gzip', 128 * 1024, { level: 6 }), text)
  if (requireCli('gzip')) assert.equal(runCli('gzip', ['-dc'], out), text)
  if (requireCli('pigz')) assert.equal(runCli('pigz', ['-dc'], out), text)
  const one = gzipSync(text, { level: 6 }).length
  const serial = (await encode('gzip', text, { level: 6 })).length
  console.log(`# gzip 128 KiB blocks: ${out.length} bytes, one stream ${serial} (node:zlib ${one}): +${((out.length / serial - 1) * 100).toFixed(2)}%`)
  assert.ok(out.length < serial * 1.01, `${out.length} vs ${serial}`)
})

test('zstd: independent frames with content size and checksum, read by the zstd CLI', async () => {
  for (const bytes of [new Uint8Array(0), text.subarray(0, 10), mixed, text]) {
    const out = await inline(blockPlan('zstd', 64 * 1024, { level: 3 }), bytes)
    assert.equal(await decode('zstd', out), bytes)
    if (!cliMissing('zstd')) assert.equal(runCli('zstd', ['-dc'], out), bytes)
    const groups = zstdFrameGroups(out, 1)
    if (bytes.length > 64 * 1024) {
      assert.is(groups!.length, Math.ceil(bytes.length / (64 * 1024)), 'one frame per block, each with its content size')
    } else {
      assert.is(groups, null, 'one frame does not split')
    }
  }
  if (!requireCli('zstd')) return
  const out = await inline(blockPlan('zstd', 1024 * 1024, { level: 3 }), text)
  const listed = new TextDecoder().decode(runCli('zstd', ['-lv'], out, 'file'))
  assert.match(listed, /# Zstandard Frames: *2/)
  assert.match(listed, /Check: XXH64/)
})

test('zstd: frame groups decode inline to the serial result; mixed frames stay serial', async () => {
  const out = await inline(blockPlan('zstd', 64 * 1024, { level: 3 }), mixed)
  for (const target of [1, 100_000, 300_000]) {
    const groups = zstdFrameGroups(out, target)!
    const decoded = await decodeFrameGroups(out, groups, {}, Infinity, runJob, 2)
    assert.equal(decoded, mixed, `target ${target}`)
  }
  assert.is(await decodeFrameGroups(out, zstdFrameGroups(out, 1)!, {}, mixed.length - 1, runJob, 2), null, 'over the limit: left to the serial decoder')
  // A frame without a content size (the CLI reading a pipe) keeps the stream serial.
  if (requireCli('zstd')) {
    const piped = runCli('zstd', ['-c', '-q'], text.subarray(0, 100_000), 'pipe')
    const both = new Uint8Array(out.length + piped.length)
    both.set(out)
    both.set(piped, out.length)
    assert.is(zstdFrameGroups(both, 1), null)
  }
  assert.is(zstdFrameGroups(out.subarray(0, out.length - 3), 1), null, 'truncated: serial')
})

test('lz4: one frame of independent blocks, byte for byte the serial encoder\'s, read by the lz4 CLI', async () => {
  for (const blockSize of [65536, 262144, 1048576, 4194304]) {
    for (const bytes of [new Uint8Array(0), text.subarray(0, 5), mixed, text]) {
      for (const extra of [{}, { blockChecksum: true }, { contentChecksum: false }, { contentSize: bytes.length }]) {
        const options = { level: 1, blockSize, ...extra }
        const out = await inline(blockPlan('lz4', blockSize, options), bytes)
        assert.equal(out, await encode('lz4', bytes, options as never), `${blockSize} ${bytes.length} ${JSON.stringify(extra)}`)
      }
    }
  }
  if (requireCli('lz4')) assert.equal(runCli('lz4', ['-dc'], await inline(blockPlan('lz4', 65536, {}), text)), text)
})

test('the same bytes whatever the number of jobs in flight', async () => {
  for (const format of ['gzip', 'zstd', 'lz4'] as Format[]) {
    const plan = blockPlan(format, format === 'lz4' ? 65536 : 64 * 1024, {})
    const one = await inline(plan, mixed, 1)
    for (const inFlight of [2, 3, 8]) assert.equal(await inline(plan, mixed, inFlight), one, `${format} ${inFlight}`)
  }
})

test('runOrdered: results in order, at most inFlight started, a failure waits for the started jobs', async () => {
  let running = 0
  let most = 0
  const order: number[] = []
  const run = async (job: Job): Promise<JobResult> => {
    running++
    most = Math.max(most, running)
    await new Promise((r) => setTimeout(r, (7 - job.input.length) * 2))
    running--
    if (job.input.length === 99) throw new CodecError('INVALID_DATA', 'zstd', 'job failed')
    return { output: job.input, check: 0 }
  }
  const job = (n: number): Job => ({ kind: 'decode', format: 'zstd', options: {}, input: new Uint8Array(n), size: 0 })
  await runOrdered(7, job, run, 3, (i, r) => {
    order.push(i * 10 + r.output.length)
  })
  assert.equal(order, [0, 11, 22, 33, 44, 55, 66])
  assert.is(most, 3)
  running = 0
  const err = await runOrdered(5, (i) => job(i === 1 ? 99 : i), run, 3, () => {}).catch((e: unknown) => e)
  assert.instance(err, CodecError)
  assert.is(running, 0, 'no job left running after the failure')
})

test('checkBlockSize: ranges per family, none for formats without block mode', async () => {
  assert.is(checkBlockSize('gzip', undefined), undefined)
  assert.is(checkBlockSize('gzip', 32768), 32768)
  assert.is(checkBlockSize('zstd', 65536), 65536)
  for (const [format, value] of [['gzip', 32767], ['zstd', 65535], ['zstd', 1.5], ['lz4', 100_000], ['gzip', '128k']] as const) {
    assert.throws(() => checkBlockSize(format, value), (e: CodecError) => e.code === 'INVALID_OPTION', `${format} ${value}`)
  }
  for (const format of ['brotli', 'lz4-block', 'dcz'] as const) assert.throws(() => checkBlockSize(format, 65536), (e: CodecError) => e.code === 'INVALID_OPTION' && /no block mode/.test(e.message))
  const refused = await inline(blockPlan('zstd', 65536, { contentSize: 5 }), new Uint8Array(5)).catch((e: unknown) => e)
  assert.ok(refused instanceof CodecError && refused.code === 'INVALID_OPTION' && /contentSize/.test(refused.message), String(refused))
})

test('a failing job fails the whole call with its CodecError', async () => {
  // A zstd frame group whose bytes were corrupted after the split: the job's decoder reports it.
  const out = await inline(blockPlan('zstd', 64 * 1024, { level: 3 }), mixed)
  const groups = zstdFrameGroups(out, 1)!
  const bad = out.slice()
  bad[groups[2]!.start + 20] ^= 0xff
  const err = await decodeFrameGroups(bad, groups, {}, Infinity, runJob, 3).catch((e: unknown) => e)
  assert.instance(err, CodecError)
})

test.run()
