// The result memory of one-shot parallel decodes (lib/parallel/result-memory.ts): a worker
// writes its pages and transfers it; outputs that come first are kept (bounded) and
// copied in; without a listening worker, or when the job fails, the memory is made on
// the caller's thread. The same bytes every way. And the pool queues no job behind a
// `memory` job (streams/pool.ts).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { runJob, type Job, type JobResult, type JobRunner } from '../lib/parallel/jobs.js'
import { MIN_PREPARED_BYTES, ResultMemory, STASH_BYTES } from '../lib/parallel/result-memory.js'
import { createDecoder, createEncoder } from '../lib/registry.js'
import { closeWorkers, decode, encode } from '../index.js'
import { workerPool } from '../streams/pool.js'
import { jobRunner } from '../streams/job-runner.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { join } from 'node:path'
import { warmWorkers } from './_workers.js'

const codecs = { createEncoder, createDecoder }
/** A new inline runner (a function of its own: the runners below add `onWorker` to it). */
const inline = (): JobRunner => (job) => runJob(job, codecs)

/** A runner whose `memory` jobs wait for `release()` (or fail with `fail`), run inline. */
function heldRunner(fail = false): { run: JobRunner; release: () => void; asked: () => number } {
  let asked = 0
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const onWorker = (job: Job): Promise<JobResult> => {
    asked++
    return gate.then(() => (fail ? Promise.reject(new Error('worker gone')) : runJob(job, codecs)))
  }
  return { run: Object.assign(inline(), { onWorker: () => onWorker }), release: () => release(), asked: () => asked }
}

const piece = (n: number, value: number): Uint8Array => new Uint8Array(n).fill(value)

test('outputs before the memory are kept and copied in when it comes; the result is every byte in place', async () => {
  const size = MIN_PREPARED_BYTES * 2
  const { run, release, asked } = heldRunner()
  const copied: Uint8Array[] = []
  const memory = new ResultMemory(size, run, (o) => copied.push(o))
  assert.is(asked(), 1, 'one memory job')
  const half = size / 2
  assert.is(memory.put(piece(half, 1), 0), undefined, 'below the stash bound: no wait')
  assert.is(copied.length, 0, 'kept, not yet copied')
  release()
  assert.is(memory.put(piece(half, 2), half) instanceof Promise, size >= STASH_BYTES, 'a wait once the stash holds STASH_BYTES (the memory is not here yet)')
  const out = await memory.result()
  assert.is(out.length, size)
  assert.is(out[0], 1)
  assert.is(out[half - 1], 1)
  assert.is(out[half], 2)
  assert.is(out[size - 1], 2)
  assert.is(copied.length, 2, 'each output handed back once copied')
})

test('a stash at its bound waits for the memory; a failed memory job: the memory is made here, same bytes', async () => {
  const size = STASH_BYTES * 2
  const { run, release } = heldRunner(true)
  const memory = new ResultMemory(size, run)
  const wait = memory.put(piece(STASH_BYTES, 3), 0)
  assert.ok(wait instanceof Promise, 'waits at the bound')
  let done = false
  void wait!.then(() => (done = true))
  await new Promise((r) => setTimeout(r, 20))
  assert.is(done, false, 'still waiting while the memory job runs')
  release()
  await wait
  memory.put(piece(STASH_BYTES, 4), STASH_BYTES)
  const out = await memory.result(size - 1)
  assert.is(out.length, size - 1, 'a shorter result: its first bytes')
  assert.is(out.buffer.byteLength, size - 1, 'a buffer of its own, not a view of a larger one')
  assert.is(out[0], 3)
  assert.is(out[size - 2], 4)
})

test('no worker listening, or a small result: the memory is made here, no job', async () => {
  let asked = 0
  const none: JobRunner = Object.assign(inline(), { onWorker: () => null })
  const counting: JobRunner = Object.assign(inline(), { onWorker: () => (job: Job) => (asked++, runJob(job, codecs)) })
  for (const [run, size] of [[none, MIN_PREPARED_BYTES * 2], [counting, MIN_PREPARED_BYTES - 1], [inline(), MIN_PREPARED_BYTES * 2]] as const) {
    const memory = new ResultMemory(size, run)
    assert.is(memory.put(piece(10, 9), 5), undefined)
    const out = await memory.result()
    assert.is(out.length, size)
    assert.is(out[5], 9)
    assert.is(out[4], 0)
  }
  assert.is(asked, 0)
})

test('the memory job: every byte zero, the whole buffer its own; a cold pool offers no worker', async () => {
  const r = await runJob({ kind: 'memory', size: 10_000, input: new Uint8Array(0) }, codecs)
  assert.is(r.output.length, 10_000)
  assert.is(r.output.buffer.byteLength, 10_000)
  assert.ok(r.output.every((b) => b === 0))
  closeWorkers()
  assert.is(jobRunner(2, 2 ** 24, codecs).onWorker!(), null, 'no worker listens yet')
  assert.is(jobRunner(1, 2 ** 24, codecs).onWorker, undefined, 'inline: none')
})

test('one-shot parallel decodes on workers with the memory made there: the serial bytes; no job queued behind it', async () => {
  const text = filesCorpus(join(root, 'node_modules/typescript/lib'), 12 * 1024 * 1024, /\.d\.ts$/)
  await warmWorkers(2, text)
  const pool = workerPool()
  assert.ok(pool.readyWorkers > 0)
  const zstd = await encode('zstd', text, { blockSize: 1024 * 1024 })
  const lz4 = await encode('lz4', text, { blockSize: 262144 })
  for (let round = 0; round < 3; round++) {
    assert.equal(await decode('zstd', zstd, { threads: 2 }), text)
    assert.equal(await decode('lz4', lz4, { threads: 2 }), text)
  }
  // A memory job and three jobs after it (posted at once): the other worker takes two
  // (its depth), the third waits in the queue rather than behind the memory job.
  await new Promise((r) => setTimeout(r, 50))
  assert.is(pool.readyWorkers, 2)
  const before = pool.jobsOnWorkers
  const run = jobRunner(2, 2 ** 24, codecs)
  const memory = run.onWorker!()!({ kind: 'memory', size: 64 * 1024 * 1024, input: new Uint8Array(0) })
  const small = (n: number) => run({ kind: 'encode', format: 'lz4', options: {}, input: new Uint8Array(n) })
  const three = [small(1), small(2), small(3)]
  assert.is(pool.queued, 1, 'one job queued, none behind the memory job')
  const frames = (await Promise.all(three)).map((r) => r.output)
  assert.equal(await Promise.all(frames.map((f) => decode('lz4', f))), [new Uint8Array(1), new Uint8Array(2), new Uint8Array(3)])
  assert.is((await memory).output.length, 64 * 1024 * 1024)
  assert.is(pool.jobsOnWorkers - before, 4)
})

test.after(() => closeWorkers())
test.run()
