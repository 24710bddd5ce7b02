// The worker pool behind `threads` (streams/pool.ts, streams/parallel.ts): the same
// bytes for every thread count, outputs read by node:zlib and the CLIs, parallel and
// serial decoding agreeing, the caller's buffer never detached, a crashed worker
// failing its job with a CodecError and being replaced, closeWorkers(), idle workers
// never keeping a process alive, option checks.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as zlib from 'node:zlib'
import { gunzipSync, inflateSync } from 'node:zlib'
import { closeWorkers, CodecError, decode, encode, MIN_PARALLEL_BYTES } from '../index.js'
import { workerPool } from '../streams/pool.js'
import { encodeWhole as encodeSerial } from '../lib/whole-buffer.js'
import { requireCli, runCli } from './_cli.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'
import { warmWorkers } from './_workers.js'

// Above MIN_PARALLEL_BYTES, so that threads > 1 really goes through workers.
const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 3 * 1024 * 1024, /\.d\.ts$/)
const big = new Uint8Array(text.length + 600_000)
big.set(text)
big.set(randomBytes(600_000), text.length)

test('the input is large enough to reach the workers', () => {
  assert.ok(big.length >= 2 * MIN_PARALLEL_BYTES)
})

test('gzip, deflate, deflate-raw, zstd, lz4: the same bytes for 1, 2 and 3 threads', async () => {
  await warmWorkers(3, big)
  const before = workerPool().jobsOnWorkers
  for (const format of ['gzip', 'deflate', 'deflate-raw', 'zstd', 'lz4'] as const) {
    const blockSize = format === 'lz4' ? 262144 : 256 * 1024
    const one = await encode(format, big, { threads: 1, blockSize } as never)
    for (const threads of [2, 3]) assert.equal(await encode(format, big, { threads, blockSize } as never), one, `${format} threads ${threads}`)
    // threads alone: the format's default block size, same bytes as threads: 1 with it.
    const defaults = { gzip: 131072, deflate: 131072, 'deflate-raw': 131072, zstd: 1048576, lz4: 65536 }[format]
    assert.equal(await encode(format, big, { threads: 2 }), await encode(format, big, { threads: 1, blockSize: defaults } as never), `${format} default block size`)
  }
  // A count that only grows (the number of workers falls as idle ones end after IDLE_MS).
  assert.ok(workerPool().jobsOnWorkers > before, 'workers ran the jobs')
})

test('outputs read by node:zlib, gzip, pigz, zstd and lz4', async () => {
  const gz = await encode('gzip', big, { threads: 2, level: 6 })
  assert.equal(new Uint8Array(gunzipSync(gz)), big)
  if (requireCli('gzip')) assert.equal(runCli('gzip', ['-dc'], gz), big)
  if (requireCli('pigz')) assert.equal(runCli('pigz', ['-dc'], gz), big)
  assert.equal(new Uint8Array(inflateSync(await encode('deflate', big, { threads: 2 }))), big)
  const zst = await encode('zstd', big, { threads: 2, level: 3 })
  // node:zlib reads zstd from Node 22.15 on.
  const zstdDecompressSync = (zlib as { zstdDecompressSync?: (b: Uint8Array) => Uint8Array }).zstdDecompressSync
  if (zstdDecompressSync) assert.equal(new Uint8Array(zstdDecompressSync(zst)), big)
  if (requireCli('zstd')) assert.equal(runCli('zstd', ['-dc'], zst), big)
  const lz = await encode('lz4', big, { threads: 2 })
  assert.equal(lz, await encodeSerial('lz4', big), 'LZ4 block mode is the serial encoder\'s frame')
  if (requireCli('lz4')) assert.equal(runCli('lz4', ['-dc'], lz), big)
})

test('brotli with threads encodes on a worker: the serial bytes', async () => {
  const input = big.subarray(0, 2 * 1024 * 1024)
  assert.equal(await encode('brotli', input, { threads: 2, level: 5 }), await encodeSerial('brotli', input, { level: 5 }))
})

test('parallel zstd decoding agrees with the serial decoder: block mode, the CLI\'s multi-frame output, one frame', async () => {
  const frames = await encode('zstd', big, { blockSize: 65536 })
  assert.equal(await decode('zstd', frames, { threads: 2 }), big)
  assert.equal(await decode('zstd', frames, { threads: 3 }), await decode('zstd', frames))
  const one = await encode('zstd', big)
  assert.equal(await decode('zstd', one, { threads: 2 }), big, 'one frame: decoded serially')
  if (requireCli('zstd')) {
    // Two CLI frames with content sizes (read from files), then a skippable frame.
    const a = runCli('zstd', ['-c', '-q', '-3'], big.subarray(0, 1_500_000), 'file')
    const b = runCli('zstd', ['-c', '-q', '-3'], big.subarray(1_500_000), 'file')
    const skip = new Uint8Array([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3])
    const all = new Uint8Array(a.length + b.length + skip.length)
    all.set(a)
    all.set(b, a.length)
    all.set(skip, a.length + b.length)
    assert.equal(await decode('zstd', all, { threads: 2 }), big)
  }
})

test('parallel decoding: corrupt frames and limits are reported as the serial decoder reports them', async () => {
  const frames = await encode('zstd', big, { blockSize: 65536 })
  const bad = frames.slice()
  bad[Math.floor(bad.length / 2)] ^= 0x55
  const serial = await decode('zstd', bad).catch((e: unknown) => e)
  const parallel = await decode('zstd', bad, { threads: 2 }).catch((e: unknown) => e)
  assert.instance(parallel, CodecError)
  assert.is((parallel as CodecError).message, (serial as CodecError).message)
  const limited = await decode('zstd', frames, { threads: 2, maxOutputBytes: big.length - 1 }).catch((e: unknown) => e)
  assert.is((limited as CodecError).code, 'LIMIT_EXCEEDED')
})

test('the caller\'s buffer is copied, never detached', async () => {
  const input = big.slice()
  await encode('gzip', input, { threads: 2 })
  await decode('zstd', await encode('zstd', input, { threads: 2, blockSize: 65536 }), { threads: 2 })
  assert.is(input.byteLength, big.length)
  assert.equal(input, big)
})

test('a Node Buffer (whose slice() is a view, not a copy) is copied too: never detached, the same bytes as a Uint8Array', async () => {
  // A view into a larger Buffer, as readFileSync(...).subarray() gives.
  const whole = Buffer.alloc(big.length + 100)
  whole.set(big, 50)
  const input = whole.subarray(50, 50 + big.length)
  for (const format of ['gzip', 'deflate', 'zstd', 'lz4'] as const) {
    const out = await encode(format, input, { threads: 2 })
    assert.is(whole.byteLength, big.length + 100, `${format}: the caller's Buffer was detached`)
    assert.equal(out, await encode(format, big, { threads: 2 }), `${format}: a Buffer and a Uint8Array of the same bytes encode alike`)
  }
  assert.equal(new Uint8Array(input), big)
})

test('workers hand input buffers back; later calls copy their inputs into them and give the same bytes', async () => {
  await closeWorkers()
  await warmWorkers(2, big)
  const first = await encode('gzip', big, { threads: 2 })
  assert.ok(workerPool().inputsKept > 0, 'input buffers came back')
  // Shorter inputs than the buffers kept, then longer ones: each job sees exactly its bytes.
  const half = big.subarray(0, big.length >> 1)
  assert.equal(new Uint8Array(gunzipSync(await encode('gzip', half, { threads: 2 }))), half)
  assert.equal(await encode('gzip', big, { threads: 2 }), first)
  const frames = await encode('zstd', big, { threads: 2, blockSize: 65536 })
  assert.equal(await decode('zstd', frames, { threads: 2 }), big)
  // No worker left, nothing kept.
  await closeWorkers()
  assert.is(workerPool().inputsKept, 0)
  await warmWorkers(2, big)
})

test('a worker that dies mid-job fails the call with a CodecError, and the next call gets a new worker', async () => {
  const pending = encode('zstd', big, { threads: 2, blockSize: 65536, level: 9 })
  // Let the jobs reach the workers, then end one as a crash would.
  let crashed = false
  for (let i = 0; i < 200 && !crashed; i++) {
    await new Promise((r) => setTimeout(r, 5))
    crashed = workerPool().crashOne()
  }
  assert.ok(crashed, 'a worker was busy')
  const error = await pending.catch((e: unknown) => e)
  assert.instance(error, CodecError)
  assert.is((error as CodecError).code, 'ENGINE_UNAVAILABLE')
  assert.match((error as CodecError).message, /worker/)
  assert.equal(await decode('zstd', await encode('zstd', big, { threads: 2 })), big)
})

test('a job the structured clone refuses fails alone with a CodecError; the worker takes the next job (never a hang)', async () => {
  const pool = workerPool()
  pool.grow(1)
  const input = text.subarray(0, 100_000)
  const bad = await pool.run({ kind: 'encode', format: 'gzip', options: { level: () => 6 }, input }).catch((e: unknown) => e)
  assert.ok(bad instanceof CodecError && bad.code === 'ENGINE_UNAVAILABLE' && /could not be posted/.test(bad.message), String(bad))
  const good = await pool.run({ kind: 'encode', format: 'gzip', options: { level: 6 }, input })
  assert.equal(new Uint8Array(gunzipSync(good.output)), input)
})

test('a cold pool runs jobs on the caller\'s thread while its workers start one at a time; once they listen, jobs go to them', async () => {
  await closeWorkers()
  const pool = workerPool()
  pool.grow(2)
  const { runJob } = await import('../lib/parallel/jobs.js')
  const engines = await import('../lib/registry.js')
  const input = text.subarray(0, 200_000)
  const job = { kind: 'encode', format: 'gzip', options: { level: 6 }, input } as const
  let inline = 0
  const here = () => {
    inline++
    return runJob(job, engines)
  }
  const first = await pool.run(job, undefined, here)
  assert.is(inline, 1, 'the first job ran on this thread')
  assert.is(pool.workers, 1, 'one worker started meanwhile (one at a time)')
  for (let i = 0; i < 300 && pool.readyWorkers < 2; i++) {
    // Jobs keep running here while the workers start, one after the other.
    await pool.run(job, undefined, here)
    await new Promise((r) => setTimeout(r, 10))
  }
  assert.is(pool.readyWorkers, 2, 'both workers listen in the end')
  const before = inline
  const second = await pool.run(job, undefined, here)
  assert.is(inline, before, 'with the workers listening, the job went to one')
  assert.equal(second.output, first.output)
})

test('closeWorkers ends the workers; running jobs fail with ABORTED; the pool starts again', async () => {
  const pending = encode('gzip', big, { threads: 2 })
  await new Promise((r) => setTimeout(r, 20))
  await closeWorkers()
  const outcome = await pending.then(
    () => 'done',
    (e: unknown) => (e as CodecError).code,
  )
  // The call either finished before the close or was aborted by it; never left hanging.
  assert.ok(outcome === 'done' || outcome === 'ABORTED', String(outcome))
  assert.is(workerPool().workers, 0)
  assert.equal(new Uint8Array(gunzipSync(await encode('gzip', big, { threads: 2 }))), big)
})

test('idle workers never keep a Node process alive', () => {
  const script = `import { encode } from ${JSON.stringify(join(root, 'index.ts'))}
const data = new Uint8Array(4 << 20).map((_, i) => (i * 31) >> 7)
const out = await encode('gzip', data, { threads: 2 })
console.log('encoded', out.length)`
  // Exits by itself once the call resolved (the idle timer is 5 s, unreferenced); a
  // process kept alive would be killed by the timeout and fail here.
  const dir = mkdtempSync(join(tmpdir(), 'sluice-pool-'))
  const file = join(dir, 'child.mjs')
  writeFileSync(file, script)
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', timeout: 120_000 })
  rmSync(dir, { recursive: true, force: true })
  assert.is(r.status, 0, r.stderr)
  assert.match(r.stdout, /encoded \d+/)
})

test('option checks: threads and blockSize', async () => {
  for (const threads of [0, -1, 1.5, 257, '2', null]) {
    const e = await encode('gzip', big.subarray(0, 10), { threads: threads as never }).catch((x: unknown) => x)
    assert.is((e as CodecError).code, 'INVALID_OPTION', `threads ${String(threads)}`)
  }
  for (const [format, blockSize] of [['gzip', 1000], ['zstd', 32768], ['brotli', 65536], ['lz4', 100000]] as const) {
    const e = await encode(format, big.subarray(0, 10), { blockSize } as never).catch((x: unknown) => x)
    assert.is((e as CodecError).code, 'INVALID_OPTION', `${format} blockSize ${blockSize}`)
  }
  const e = await decode('gzip', new Uint8Array(0), { blockSize: 65536 } as never).catch((x: unknown) => x)
  assert.is((e as CodecError).code, 'INVALID_OPTION')
  // Unknown keys are refused at the call, before any job, on every path.
  for (const options of [{ threads: 2, levle: 5 }, { blockSize: 65536, levle: 5 }]) {
    const typo = await encode('zstd', big, options as never).catch((x: unknown) => x)
    assert.ok(typo instanceof CodecError && typo.code === 'INVALID_OPTION' && /did you mean 'level'/.test(typo.message), String(typo))
  }
  // 'auto' works everywhere; a small input stays on this thread and gives the block-mode bytes.
  const small = big.subarray(0, 100_000)
  assert.equal(await encode('gzip', small, { threads: 'auto' }), await encode('gzip', small, { blockSize: 131072 }))
})

test.run()
