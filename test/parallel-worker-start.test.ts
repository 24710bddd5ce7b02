// A worker's start (issue 32): a one-shot call with threads > 1 on an input below
// MIN_PARALLEL_BYTES starts no worker, then or later; a large one does, and gives the
// serial bytes. A starting worker loads the call's engine before it counts as ready
// (its warm-up, streams/warm-up.ts): the warm-up's loads per job kind, and the worker's
// answer to it, whatever the load gave.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { decode, encode, MIN_PARALLEL_BYTES } from '../index.js'
import { host } from '#worker-host'
// The pool's own closeWorkers ends the workers at once (the public one after a module load).
import { closeWorkers, workerPool } from '../streams/pool.js'
import { warmUp } from '../streams/warm-up.js'
import { workerFile } from '../streams/worker-file.js'
import { READY } from '../streams/worker-host.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import type { CodecFactories, Job } from '../lib/parallel/jobs.js'
import { filesCorpus, randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'

const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 3 * 1024 * 1024, /\.d\.ts$/)
const small = text.subarray(0, 300_000)
// Text, then bytes that do not compress: its gzip stream passes MIN_PARALLEL_BYTES too.
const mixed = new Uint8Array(text.length + 1_200_000)
mixed.set(text)
mixed.set(randomBytes(1_200_000), text.length)

test('the inputs sit on either side of MIN_PARALLEL_BYTES', () => {
  assert.ok(text.length >= 2 * MIN_PARALLEL_BYTES)
  assert.ok(small.length < MIN_PARALLEL_BYTES)
})

/**
 * Runs `call` on a cold pool and returns how many workers had started when the pool was
 * handed the call's first job (null: no job reached the pool), and the call's result.
 */
async function workersAtFirstJob<T>(call: () => Promise<T>): Promise<{ atFirstJob: number | null; result: T }> {
  closeWorkers()
  const pool = workerPool()
  const run = pool.run
  let atFirstJob: number | null = null
  pool.run = function (this: typeof pool, ...args: Parameters<typeof run>) {
    atFirstJob ??= pool.workers
    return run.apply(this, args)
  }
  try {
    const result = await call()
    return { atFirstJob, result }
  } finally {
    pool.run = run
  }
}

test('one-shot calls with threads: 2 on a large input start a worker and give the serial bytes', async () => {
  const gz = await encode('gzip', mixed, { level: 6 })
  assert.ok(gz.length >= MIN_PARALLEL_BYTES)
  const zst = await encode('zstd', text, { blockSize: 256 * 1024 })
  const calls: Array<[string, () => Promise<Uint8Array>, (out: Uint8Array) => void]> = [
    ['gzip encode', () => encode('gzip', text, { threads: 2 }), (out) => assert.equal(new Uint8Array(gunzipSync(out)), text)],
    ['zstd decode of frames', () => decode('zstd', zst, { threads: 2 }), (out) => assert.equal(out, text)],
    ['gzip decode', () => decode('gzip', gz, { threads: 2 }), (out) => assert.equal(out, mixed)],
  ]
  for (const [name, call, check] of calls) {
    const { atFirstJob, result } = await workersAtFirstJob(call)
    check(result)
    assert.is(atFirstJob, 0, `${name}: the pool was cold`)
    assert.ok(workerPool().workers >= 1, `${name}: a worker started`)
  }
  closeWorkers()
})

test('one-shot calls with threads: 2 on a small input start no worker, then or later', async () => {
  const gz = await encode('gzip', small)
  const zst = await encode('zstd', small, { blockSize: 65536 })
  for (const [name, call] of [
    ['gzip encode', () => encode('gzip', small, { threads: 2 })],
    ['gzip encode, a string', () => encode('gzip', new TextDecoder().decode(small), { threads: 'auto' })],
    ['zstd decode of frames', () => decode('zstd', zst, { threads: 2 })],
    ['gzip decode', () => decode('gzip', gz, { threads: 2 })],
  ] as const) {
    const { atFirstJob } = await workersAtFirstJob(call)
    // The early start is asynchronous (a module load): give it time to have happened.
    await new Promise((r) => setTimeout(r, 50))
    assert.is(workerPool().workers, 0, `${name}: no worker`)
    assert.ok(atFirstJob === null || atFirstJob === 0, name)
  }
})

/** The registry's factories, recording what each call asked for. */
function recording(): { codecs: CodecFactories; calls: string[] } {
  const calls: string[] = []
  const codecs = {
    createEncoder: (format: string, options: { engine?: string } = {}) => (calls.push(`encode ${format} ${options.engine ?? ''}`.trim()), createEncoder(format as never, options as never)),
    createDecoder: (format: string, options: { engine?: string } = {}) => (calls.push(`decode ${format} ${options.engine ?? ''}`.trim()), createDecoder(format as never, options as never)),
  } as unknown as CodecFactories
  return { codecs, calls }
}

test('warmUp loads the engine each kind of job runs on, without its input', async () => {
  const none = new Uint8Array(0)
  const cases: Array<[Job, string[]]> = [
    [{ kind: 'deflate-block', engine: 'wasm', level: 6, input: none, prefix: 0, dictionary: null, last: false, check: 'crc32' }, []],
    [{ kind: 'deflate-block', engine: 'js', level: 6, input: none, prefix: 0, dictionary: null, last: false, check: 'crc32' }, ['encode deflate-raw js']],
    [{ kind: 'encode', format: 'zstd', options: { level: 3 }, input: none }, ['encode zstd']],
    [{ kind: 'encode', format: 'brotli', options: {}, input: none }, ['encode brotli']],
    [{ kind: 'decode', format: 'zstd', options: {}, input: none, size: 1 << 20 }, ['decode zstd']],
    [{ kind: 'lz4-blocks', format: 'lz4', blockMax: 65536, blockChecksum: false, bound: 1 << 20, input: none }, ['decode lz4']],
    [{ kind: 'inflate-chunk', format: 'gzip', input: none, from: 0, at: 'search', searchEnd: 1 << 23, window: null, stop: -1, last: false, maxOutput: 1 << 22, points: false }, []],
    [{ kind: 'inflate-resolve', format: 'gzip', input: none, window: none }, []],
    [{ kind: 'arrow-decode', format: 'lz4', input: none, starts: [0], lengths: [100], sizes: [1000] }, ['decode lz4 wasm']],
    [{ kind: 'arrow-encode', format: 'zstd', level: undefined, input: none, lengths: [100] }, ['encode zstd wasm']],
    [{ kind: 'memory', size: 1 << 30, input: none }, []],
    [{ kind: 'xxh32', format: 'lz4', input: none, parts: [], lengths: [], steps: [], state: null, keep: false }, []],
  ]
  for (const [job, expected] of cases) {
    const { codecs, calls } = recording()
    await warmUp(job, codecs)
    assert.equal(calls, expected, job.kind)
  }
})

/** A worker started by the runtime's host; its messages in arrival order. */
function startWorker(): { post: (message: unknown) => void; next: () => Promise<unknown>; end: () => void } {
  const inbox: unknown[] = []
  const waiting: Array<(m: unknown) => void> = []
  const arrive = (message: unknown): void => void (waiting.length > 0 ? waiting.shift()!(message) : inbox.push(message))
  let ended = false
  // A failure (an uncaught error, an exit before the end) arrives as a message the test does not expect.
  const worker = host.start(workerFile(), arrive, (error) => ended || arrive({ failed: String(error) }))
  worker.hold(true)
  return {
    post: (message) => worker.post(message, []),
    next: () => (inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise((r) => waiting.push(r))),
    end: () => {
      ended = true
      worker.terminate()
    },
  }
}

test('a worker answers READY, then each warm-up with { warmed: true }, whatever the load gave; jobs run after', async () => {
  const w = startWorker()
  try {
    const input = new Uint8Array(0)
    w.post({ warm: { kind: 'encode', format: 'gzip', options: { level: 6 }, input } })
    // A level out of range: the factory refuses it; the warm-up still answers.
    w.post({ warm: { kind: 'encode', format: 'zstd', options: { level: 99 }, input } })
    assert.is(await w.next(), READY)
    assert.equal(await w.next(), { warmed: true })
    assert.equal(await w.next(), { warmed: true })
    w.post({ id: 7, job: { kind: 'encode', format: 'gzip', options: { level: 6 }, input: small } })
    const reply = (await w.next()) as { id: number; output: Uint8Array }
    assert.is(reply.id, 7)
    assert.equal(new Uint8Array(gunzipSync(reply.output)), small)
    // The refused level is the job's error when the job runs.
    w.post({ id: 8, job: { kind: 'encode', format: 'zstd', options: { level: 99 }, input: small } })
    const refused = (await w.next()) as { id: number; error: { code: string } }
    assert.is(refused.id, 8)
    assert.is(refused.error.code, 'INVALID_OPTION')
  } finally {
    w.end()
  }
})

test.run()
