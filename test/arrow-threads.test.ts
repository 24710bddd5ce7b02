// `threads` on the Arrow reader and writer (issue 22): the compressed buffers of each
// record batch decoded (and compressed) as jobs on the worker pool. Tables read with
// threads: 2 equal those read with threads: 1 (apache-arrow's own ZSTD and LZ4 files,
// ours, the arrow-testing compression fixtures); arrowEncode's bytes do not depend on
// threads and apache-arrow reads them; a corrupt body fails with the serial reader's
// error; bad values throw where the call is made.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  CompressionType, Dictionary, Field, type Data, type RecordBatch, Float64, Int32, List, RecordBatchStreamWriter, Struct, Table, tableFromIPC, Utf8, vectorFromArray,
} from 'apache-arrow'
import { CodecError } from '../lib/errors.js'
import { readInt64 } from '../lib/arrow/body.js'
import { IpcFramer } from '../lib/arrow/framing.js'
import { Status } from '../lib/status.js'
import { arrowDecode, arrowEncode, arrowEncodeFile, fromBuffer, readArrow } from '../adapters/arrow/index.js'
import { closeWorkers, MIN_PARALLEL_BYTES } from '../index.js'
import { workerPool } from '../streams/pool.js'
import { chunked, collect, diffTables, registerPeerCodecs } from './arrow-oracle.js'
import { fixture } from './_fixtures.js'

await registerPeerCodecs()

const ROWS = 100_000
const BATCH = 32_768

/** Eight columns of every kind of buffer (validity, values, offsets, data, dictionary indices, list, struct), some nulls, in 65,536-row batches. */
function wideTable(rows: number): Table {
  const whole = new Table({
    id: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => Math.imul(i, 2654435761) % 100_000)),
    small: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => i % 100)),
    x: vectorFromArray(Float64Array.from({ length: rows }, (_, i) => Math.round(Math.sin(i) * 1e4) / 100)),
    maybe: vectorFromArray(Array.from({ length: rows }, (_, i) => (i % 5 === 0 ? null : i * 3)), new Int32()),
    name: vectorFromArray(Array.from({ length: rows }, (_, i) => `user-${(i * 40503) % 50_000}-${i % 7 === 0 ? 'premium' : 'basic'}`), new Utf8()),
    cat: vectorFromArray(Array.from({ length: rows }, (_, i) => `cat-${(i * 7919) % 1000}`), new Dictionary(new Utf8(), new Int32())),
    list: vectorFromArray(Array.from({ length: rows }, (_, i) => [i, i + 1, i + 2].slice(0, i % 4)), new List(new Field('item', new Int32(), true))),
    st: vectorFromArray(
      Array.from({ length: rows }, (_, i) => ({ a: i % 30_000, b: i % 3 ? `s${i % 100}` : null })),
      new Struct([new Field('a', new Float64(), true), new Field('b', new Utf8(), true)]),
    ),
  })
  const batch = whole.batches[0]!
  const batches = []
  for (let at = 0; at < rows; at += BATCH) batches.push(batch.slice(at, Math.min(rows, at + BATCH)))
  return new Table(batches)
}

const table = wideTable(ROWS)
/** apache-arrow's own writer, with the peer codecs (its 21.2 prefixes: the compressed lengths). */
const peerWritten = (type: CompressionType): Uint8Array => RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true)

async function ourWrite(t: Table, options: Parameters<typeof arrowEncode>[0]): Promise<Uint8Array> {
  const source = new ReadableStream<Table>({ start(c) { c.enqueue(t); c.close() } })
  const parts = await collect(source.pipeThrough(arrowEncode(options)))
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return out
}

/**
 * Where two reads differ, or null: batch by batch, every buffer of every column, child
 * and dictionary compared byte for byte (stricter than comparing values, and fast).
 */
function sameBuffers(a: Table | RecordBatch[], b: Table | RecordBatch[]): string | null {
  const as = Array.isArray(a) ? a : a.batches
  const bs = Array.isArray(b) ? b : b.batches
  if (as.length !== bs.length) return `${as.length} batches, ${bs.length}`
  const bytes = (x: ArrayBufferView | undefined | null): Uint8Array => (x ? new Uint8Array(x.buffer, x.byteOffset, x.byteLength) : new Uint8Array(0))
  const visit = (x: Data, y: Data, where: string): string | null => {
    if (String(x.type) !== String(y.type) || x.length !== y.length || x.nullCount !== y.nullCount || x.offset !== y.offset) return `${where}: ${String(x.type)} ${x.length} != ${String(y.type)} ${y.length}`
    for (const key of ['values', 'valueOffsets', 'nullBitmap', 'typeIds'] as const) {
      if (Buffer.compare(bytes(x[key] as ArrayBufferView), bytes(y[key] as ArrayBufferView)) !== 0) return `${where}: ${key} differ`
    }
    if (x.children.length !== y.children.length) return `${where}: children`
    for (let i = 0; i < x.children.length; i++) {
      const d = visit(x.children[i]!, y.children[i]!, `${where}.${i}`)
      if (d) return d
    }
    if (!!x.dictionary !== !!y.dictionary) return `${where}: dictionary`
    if (x.dictionary) {
      const xs = x.dictionary.data
      const ys = y.dictionary!.data
      if (xs.length !== ys.length) return `${where}: dictionary chunks`
      for (let i = 0; i < xs.length; i++) {
        const d = visit(xs[i]!, ys[i]!, `${where} dictionary ${i}`)
        if (d) return d
      }
    }
    return null
  }
  for (let i = 0; i < as.length; i++) {
    const d = visit(as[i]!.data, bs[i]!.data, `batch ${i}`)
    if (d) return d
  }
  return null
}

/** The error of `f`, which must fail. */
async function failure(f: () => unknown): Promise<CodecError> {
  try {
    await f()
  } catch (e) {
    assert.instance(e, CodecError, String(e))
    return e as CodecError
  }
  throw new Error('expected a CodecError')
}

/** The decoded size of each compressed batch body of `bytes`, in order. */
function decodedBodies(bytes: Uint8Array): number[] {
  const framer = new IpcFramer(2 ** 31)
  let pos = 0
  const sizes: number[] = []
  while (!framer.ended && framer.transform(bytes.subarray(pos), true) === Status.Done) {
    pos += framer.consumed
    const batch = framer.message?.batch
    if (!batch || batch.compression < 0) continue
    let n = 0
    batch.bufferOffsets.forEach((off, i) => { if (batch.bufferLengths[i]! >= 8) n += Math.max(0, readInt64(framer.body!, off)) })
    sizes.push(n)
  }
  return sizes
}

/** The decoded size of the largest batch body of `bytes` (each must pass MIN_PARALLEL_BYTES to reach the workers). */
const largestDecodedBody = (bytes: Uint8Array): number => Math.max(0, ...decodedBodies(bytes))

test('the batches are large enough to reach the workers', async () => {
  const ours = await ourWrite(table, { compression: 'zstd' })
  assert.ok(largestDecodedBody(ours) >= MIN_PARALLEL_BYTES, `largest body ${largestDecodedBody(ours)}`)
})

/**
 * Jobs the pool has run, on workers or (while it warms) on this thread: a count that
 * only grows. (How many workers run at the end depends on timing: a cold pool runs jobs
 * here while its workers start, and idle workers end after IDLE_MS.)
 */
const jobsRun = (): number => workerPool().jobsOnWorkers + workerPool().jobsInline

test('apache-arrow-written ZSTD and LZ4 streams: threads: 2 reads the same table as threads: 1', async () => {
  await closeWorkers()
  const before = jobsRun()
  for (const type of [CompressionType.ZSTD, CompressionType.LZ4_FRAME]) {
    const bytes = peerWritten(type)
    const one = await readArrow(bytes)
    assert.is(diffTables(one, table), null, `threads 1, ${CompressionType[type]}`)
    const two = await readArrow(bytes, { threads: 2 })
    assert.is(sameBuffers(two, one), null, `readArrow threads 2, ${CompressionType[type]}`)
    const streamed = await collect(chunked(bytes, 65_536).pipeThrough(arrowDecode({ threads: 2 })))
    assert.is(sameBuffers(streamed, one), null, `arrowDecode threads 2, ${CompressionType[type]}`)
  }
  // apache-arrow's ZSTD frames state their content size, so their buffers went to jobs.
  assert.ok(jobsRun() > before, 'the buffers went to jobs')
})

test('our ZSTD and LZ4 streams and files: threads: 2 reads the same table as threads: 1', async () => {
  await closeWorkers()
  const before = jobsRun()
  for (const compression of ['zstd', 'lz4'] as const) {
    const stream = await ourWrite(table, { compression })
    const file = await arrowEncodeFile(table, { compression })
    for (const [what, bytes] of [['stream', stream], ['file', file]] as const) {
      const one = await readArrow(bytes)
      const two = await readArrow(bytes, { threads: 2 })
      assert.is(diffTables(two, table), null, `${compression} ${what} threads 2, values`)
      assert.is(sameBuffers(two, one), null, `${compression} ${what} threads 2`)
      for (const threads of [3, 'auto'] as const) {
        assert.is(sameBuffers(await readArrow(bytes, { threads }), one), null, `${compression} ${what} threads ${threads}`)
      }
      // A whole buffer through fromBuffer(): raw buffers are views, as in readArrow().
      assert.is(sameBuffers(await collect(fromBuffer(bytes).pipeThrough(arrowDecode({ threads: 2 }))), one), null, `${compression} ${what} fromBuffer`)
      // Odd chunking: the framer's bodies cross chunks.
      assert.is(sameBuffers(await collect(chunked(bytes, 7_777).pipeThrough(arrowDecode({ threads: 2 }))), one), null, `${compression} ${what} chunks`)
    }
  }
  assert.ok(jobsRun() > before, 'the buffers went to jobs')
})

test('once a large body went to the workers, a smaller later one (from 128 KiB) goes too', async () => {
  // Batches of 32,768 and 12,000 rows (the dictionary's message comes first, small).
  const two = wideTable(BATCH + 12_000)
  const bytes = await ourWrite(two, { compression: 'zstd' })
  const sizes = decodedBodies(bytes)
  const [first, last] = sizes.slice(-2) as [number, number]
  assert.ok(first >= MIN_PARALLEL_BYTES && last >= 128 * 1024 && last < MIN_PARALLEL_BYTES, String(sizes))
  const firstOnly = await ourWrite(new Table([two.batches[0]!]), { compression: 'zstd' })
  assert.equal(decodedBodies(firstOnly).slice(-1), [first])
  const one = await readArrow(bytes)
  // Workers listening: no job runs on this thread while the pool warms.
  for (let i = 0; i < 300 && workerPool().readyWorkers < 2; i++) await readArrow(firstOnly, { threads: 2 })
  assert.ok(workerPool().readyWorkers >= 2)
  let before = jobsRun()
  await readArrow(firstOnly, { threads: 2 })
  const jobsOfFirst = jobsRun() - before
  before = jobsRun()
  const read = await readArrow(bytes, { threads: 2 })
  assert.is(jobsRun() - before, jobsOfFirst + 1, 'the last batch was one job')
  assert.is(sameBuffers(read, one), null)
  // A stream of small bodies alone stays on this thread.
  before = jobsRun()
  const small = await ourWrite(new Table([two.batches[1]!]), { compression: 'zstd' })
  assert.is(diffTables(await readArrow(small, { threads: 2 }), new Table([two.batches[1]!])), null)
  assert.is(jobsRun() - before, 0)
})

test('a small table (below MIN_PARALLEL_BYTES) reads the same through the inline jobs', async () => {
  const small = wideTable(3000)
  for (const compression of ['zstd', 'lz4'] as const) {
    const bytes = await ourWrite(small, { compression })
    assert.ok(largestDecodedBody(bytes) < MIN_PARALLEL_BYTES)
    assert.is(diffTables(await readArrow(bytes, { threads: 2 }), small), null, compression)
  }
})

const compressionDir = fixture('arrow-testing', 'arrow-ipc-stream', 'integration', '2.0.0-compression')
if (!compressionDir || !existsSync(compressionDir)) {
  console.log('# skipped: arrow-testing 2.0.0-compression fixtures not found (../shared/fixtures or SLUICE_FIXTURES)')
  test.skip('arrow-testing compression fixtures: threads: 2 reads the same table as threads: 1')
} else {
  test('arrow-testing compression fixtures: threads: 2 reads the same table as threads: 1', async () => {
    for (const name of ['generated_lz4', 'generated_zstd', 'generated_uncompressible_lz4', 'generated_uncompressible_zstd']) {
      for (const ext of ['.stream', '.arrow_file']) {
        const bytes = new Uint8Array(readFileSync(join(compressionDir, name + ext)))
        const one = await readArrow(bytes)
        assert.ok(one.numRows > 0, name + ext)
        assert.is(sameBuffers(await readArrow(bytes, { threads: 2 }), one), null, `${name}${ext} readArrow`)
        assert.is(sameBuffers(await collect(chunked(bytes, 4096).pipeThrough(arrowDecode({ threads: 2 }))), one), null, `${name}${ext} arrowDecode`)
      }
    }
  })
}

test('arrowEncode / arrowEncodeFile with threads: 2 write the bytes of threads: 1, which apache-arrow reads', async () => {
  await closeWorkers()
  const before = jobsRun()
  for (const compression of ['zstd', 'lz4'] as const) {
    for (const level of [undefined, compression === 'zstd' ? 7 : 9]) {
      const one = await ourWrite(table, { compression, level })
      const two = await ourWrite(table, { compression, level, threads: 2 })
      assert.ok(one.length > 0)
      assert.equal(two, one, `${compression} level ${level} stream`)
      assert.is(diffTables(tableFromIPC(two), table), null, `apache-arrow reads ${compression} level ${level}`)
    }
    const file1 = await arrowEncodeFile(table, { compression })
    assert.equal(await arrowEncodeFile(table, { compression, threads: 3 }), file1, `${compression} file`)
    assert.equal(await arrowEncodeFile(table, { compression, threads: 'auto' }), file1, `${compression} file, auto`)
    // Small messages: the inline jobs give the same bytes too.
    const small = wideTable(2000)
    assert.equal(await ourWrite(small, { compression, threads: 2 }), await ourWrite(small, { compression }), `${compression} small`)
  }
  assert.ok(jobsRun() > before, 'the buffers went to jobs')
  // Uncompressed: nothing to spread, the same bytes.
  assert.equal(await ourWrite(table, { threads: 2 }), await ourWrite(table, {}))
  // A batch the stream cannot take (another column count) fails as on one thread.
  const mismatch = (threads: 1 | 2) =>
    failure(() => {
      const source = new ReadableStream<Table>({
        start(c) {
          c.enqueue(table)
          c.enqueue(new Table({ a: vectorFromArray(Int32Array.of(1, 2, 3)) }))
          c.close()
        },
      })
      return collect(source.pipeThrough(arrowEncode({ compression: 'zstd', threads })))
    })
  const [one, two] = [await mismatch(1), await mismatch(2)]
  assert.is(`${two.code} ${two.message}`, `${one.code} ${one.message}`)
})

/** `bytes` with the middle of the largest compressed buffer of the `nth` batch overwritten. */
function corruptLargestBuffer(bytes: Uint8Array, nth: number): Uint8Array {
  const out = bytes.slice()
  const framer = new IpcFramer(2 ** 31)
  let pos = 0
  let seen = 0
  while (!framer.ended && framer.transform(out.subarray(pos), true) === Status.Done) {
    pos += framer.consumed
    const batch = framer.message?.batch
    if (!batch || batch.compression < 0 || framer.message!.headerType !== 3 || seen++ !== nth) continue
    let best = -1
    batch.bufferLengths.forEach((len, i) => { if (readInt64(framer.body!, batch.bufferOffsets[i]!) !== -1 && (best < 0 || len > batch.bufferLengths[best]!)) best = i })
    const start = framer.bodyOffset + batch.bufferOffsets[best]! + 8
    const len = batch.bufferLengths[best]! - 8
    for (let k = 0; k < 64; k++) out[start + (len >> 1) + k] ^= 0x5a
    return out
  }
  throw new Error('no such batch')
}

test('a corrupt body: threads: 2 fails with the error of threads: 1', async () => {
  for (const compression of ['zstd', 'lz4'] as const) {
    const good = await ourWrite(table, { compression })
    for (const nth of [0, 2]) {
      const bad = corruptLargestBuffer(good, nth)
      const one = await failure(() => readArrow(bad))
      const two = await failure(() => readArrow(bad, { threads: 2 }))
      assert.is(two.code, one.code, `${compression} batch ${nth}: ${one.message} / ${two.message}`)
      assert.is(two.message, one.message)
      assert.is(two.offset, one.offset)
      const streamed = await failure(() => collect(chunked(bad, 65_536).pipeThrough(arrowDecode({ threads: 2 }))))
      assert.is(streamed.code, one.code)
    }
  }
  // apache-arrow's ZSTD file, whose buffers take their size from the frame header.
  const bad = corruptLargestBuffer(peerWritten(CompressionType.ZSTD), 1)
  const one = await failure(() => readArrow(bad))
  const two = await failure(() => readArrow(bad, { threads: 2 }))
  assert.is(`${two.code} ${two.message}`, `${one.code} ${one.message}`)
})

/** What a read gives: the batches, or the error's code and message. */
async function outcome(read: () => Promise<Table>): Promise<Table | string> {
  try {
    return await read()
  } catch (e) {
    assert.instance(e, CodecError, String(e))
    return `${(e as CodecError).code}: ${(e as CodecError).message} @${(e as CodecError).offset}`
  }
}

test('mutated streams: threads: 2 gives what threads: 1 gives (the same table or the same error)', async () => {
  // A small deterministic generator (xorshift32), so that a failure names its case.
  let seed = 0x9e3779b9
  const next = (n: number): number => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) % n
  }
  const inputs = [
    ['ours zstd', await ourWrite(table, { compression: 'zstd' })],
    ['ours lz4', await ourWrite(table, { compression: 'lz4' })],
    ['apache-arrow zstd', peerWritten(CompressionType.ZSTD)],
  ] as const
  let failures = 0
  for (const [name, good] of inputs) {
    for (let k = 0; k < 8; k++) {
      const bad = good.slice()
      // Past the schema message: bytes of batch metadata, prefixes and frames.
      const at = 512 + next(bad.length - 512)
      const kind = next(3)
      if (kind === 0) bad[at] ^= 1 << next(8)
      else if (kind === 1) bad.fill(0, at, Math.min(bad.length, at + 1 + next(16)))
      else for (let i = 0; i < 8 && at + i < bad.length; i++) bad[at + i] = next(256)
      const what = `${name}: mutation ${kind} at ${at}`
      const one = await outcome(() => readArrow(bad))
      const two = await outcome(() => readArrow(bad, { threads: 2 }))
      if (typeof one === 'string') {
        failures++
        assert.is(two, one, what)
      } else {
        assert.ok(two instanceof Table, `${what}: threads 2 failed (${String(two)}) where threads 1 read`)
        assert.is(sameBuffers(two as Table, one), null, what)
      }
    }
  }
  assert.ok(failures > 0, 'some mutations were errors')
})

/** How many batches a reader got before the stream failed, and the error's code. */
async function batchesBeforeError(stream: ReadableStream<RecordBatch>): Promise<{ batches: number; code: string }> {
  const reader = stream.getReader()
  let batches = 0
  try {
    for (;;) {
      const { done } = await reader.read()
      if (done) return { batches, code: 'none' }
      batches++
    }
  } catch (e) {
    assert.instance(e, CodecError, String(e))
    return { batches, code: (e as CodecError).code }
  }
}

test('reading ahead: the batches before a corrupt or cut message come out first, as with threads: 1', async () => {
  const good = await ourWrite(table, { compression: 'zstd' })
  const corrupt = corruptLargestBuffer(good, 2)
  // Cut inside the last batch's body.
  const cut = good.subarray(0, good.length - 2000)
  for (const [what, bytes] of [['corrupt batch 2', corrupt], ['cut', cut]] as const) {
    const one = await batchesBeforeError(fromBuffer(bytes).pipeThrough(arrowDecode()))
    const two = await batchesBeforeError(fromBuffer(bytes).pipeThrough(arrowDecode({ threads: 2 })))
    assert.ok(one.code !== 'none' && one.batches > 0, `${what}: ${JSON.stringify(one)}`)
    assert.equal(two, one, what)
  }
})

test('a worker lost mid-read fails the read with ENGINE_UNAVAILABLE (not masked by the serial path), and the next read works', async () => {
  const bytes = await ourWrite(table, { compression: 'zstd' })
  const one = await readArrow(bytes)
  await readArrow(bytes, { threads: 2 }) // the workers are up
  // A worker ended just after it replied fails nothing: try until one ends mid-job.
  let failed = 0
  for (let attempt = 0; attempt < 20 && failed === 0; attempt++) {
    const read = readArrow(bytes, { threads: 2 }).then(
      (t) => t,
      (e: unknown) => e,
    )
    let crashed = false
    for (let i = 0; i < 100_000 && !crashed; i++) {
      crashed = workerPool().crashOne()
      if (!crashed) await new Promise((r) => setImmediate(r))
    }
    const outcome = await read
    if (outcome instanceof Table) {
      assert.is(sameBuffers(outcome, one), null, 'a read that did not lose a job')
      continue
    }
    assert.instance(outcome, CodecError, String(outcome))
    assert.is((outcome as CodecError).code, 'ENGINE_UNAVAILABLE')
    assert.match((outcome as CodecError).message, /worker/)
    failed++
  }
  assert.is(failed, 1, 'a read lost a job to an ended worker')
  assert.is(sameBuffers(await readArrow(bytes, { threads: 2 }), one), null, 'the pool replaced the worker')
})

test('bad threads values throw where the call is made', async () => {
  for (const threads of [0, -1, 1.5, 257, '2', 'all', null, Number.NaN]) {
    const opts = { threads } as never
    for (const make of [() => arrowDecode(opts), () => arrowEncode(opts), () => arrowEncode({ compression: 'zstd', threads } as never)]) {
      try {
        make()
        assert.unreachable(`threads ${String(threads)}`)
      } catch (e) {
        assert.instance(e, CodecError, String(e))
        assert.is((e as CodecError).code, 'INVALID_OPTION')
        assert.match((e as CodecError).message, /threads/)
      }
    }
    assert.is((await failure(() => readArrow(new Uint8Array(0), opts))).code, 'INVALID_OPTION')
    assert.is((await failure(() => arrowEncodeFile(table, opts))).code, 'INVALID_OPTION')
  }
  // The good ones do not throw.
  for (const threads of [1, 2, 'auto', undefined] as const) {
    arrowDecode({ threads })
    arrowEncode({ compression: 'lz4', threads })
  }
})

test.after(() => closeWorkers())
test.run()
