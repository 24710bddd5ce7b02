import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CompressionType, Dictionary, Int32, RecordBatchStreamWriter, Table, Utf8, vectorFromArray, type RecordBatch } from 'apache-arrow'
import { CodecError } from '../lib/errors.js'
import { readMessage } from '../lib/arrow/metadata.js'
import { arrowDecode, fromBuffer, readArrow } from '../adapters/arrow/read.js'
import { arrowEncodeFile } from '../adapters/arrow/write.js'
import { fixture } from './_fixtures.js'
import { chunked, collect, diffTables, oracle, registerPeerCodecs } from './arrow-oracle.js'

await registerPeerCodecs()

const integration = fixture('arrow-testing', 'arrow-ipc-stream', 'integration')
const streamDir = fixture('arrow-testing', 'arrow-ipc-stream')
const fileDir = fixture('arrow-testing', 'arrow-ipc-file')

async function decodeChunks(bytes: Uint8Array, size: number): Promise<RecordBatch[]> {
  return collect(chunked(bytes, size).pipeThrough(arrowDecode()))
}

/** Resolves to the error a promise rejects with, or null. */
async function errorOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p
    return null
  } catch (e) {
    return e
  }
}

function isArrowError(e: unknown): e is CodecError {
  return e instanceof CodecError && e.format === 'arrow'
}

// --- The integration corpus: every .stream and .arrow_file, compared with apache-arrow.

if (!integration || !existsSync(integration)) {
  console.log('# skipped: arrow-testing fixtures not found (../shared/fixtures/arrow-testing)')
  test.skip('arrow-testing integration files')
} else {
  for (const dir of ['1.0.0-littleendian', '2.0.0-compression', 'cpp-21.0.0']) {
    const files = readdirSync(join(integration, dir)).filter((f) => /\.(stream|arrow_file)$/.test(f)).sort()
    for (const file of files) {
      const name = `${dir}/${file}`
      const bytes = new Uint8Array(readFileSync(join(integration, dir, file)))
      const theirs = oracle(bytes)
      if (typeof theirs === 'string') {
        // apache-arrow cannot read it (ListView, RunEndEncoded): we must fail cleanly
        // with UNSUPPORTED for the same reason, since it has no class to build.
        test(`${name}: apache-arrow cannot read it, ours fails cleanly`, async () => {
          console.log(`# skipped comparison for ${name}: apache-arrow: ${theirs}`)
          const e = await errorOf(readArrow(bytes))
          assert.ok(isArrowError(e), String(e))
          assert.is((e as CodecError).code, 'UNSUPPORTED')
        })
        continue
      }
      test(`${name}: from memory`, async () => {
        const ours = await readArrow(bytes)
        assert.is(diffTables(ours, theirs), null)
      })
      test(`${name}: fromBuffer() through arrowDecode`, async () => {
        const batches = await collect(fromBuffer(bytes).pipeThrough(arrowDecode()))
        assert.is(diffTables(batches, theirs), null)
      })
      for (const size of [1, 7, 65536]) {
        test(`${name}: ${size}-byte chunks`, async () => {
          const batches = await decodeChunks(bytes, size)
          assert.is(diffTables(batches, theirs), null)
        })
      }
    }
  }
}

// --- Zero-copy and memory ownership.

if (integration && existsSync(integration)) {
  test('uncompressed buffers alias the input from memory, not from a stream', async () => {
    const bytes = new Uint8Array(readFileSync(join(integration, 'cpp-21.0.0', 'generated_primitive.stream')))
    const inMemory = await readArrow(bytes)
    const streamed = await decodeChunks(bytes, 65536)
    const buffersOf = (t: Table | RecordBatch[]) => (Array.isArray(t) ? t : t.batches).flatMap((b) => b.data.children.map((c) => c.values as { buffer: ArrayBufferLike }))
    assert.ok(buffersOf(inMemory).some((v) => v?.buffer === bytes.buffer), 'some column is a view of the input')
    assert.ok(buffersOf(streamed).every((v) => v?.buffer !== bytes.buffer), 'streamed columns never alias a chunk')
  })

  test('compressed buffers decode into new memory', async () => {
    const bytes = new Uint8Array(readFileSync(join(integration, '2.0.0-compression', 'generated_lz4.stream')))
    const t = await readArrow(bytes)
    for (const b of t.batches) for (const c of b.data.children) assert.ok((c.values as { buffer?: ArrayBufferLike })?.buffer !== bytes.buffer)
  })
}

/**
 * Batches of a column of noise (stored raw: compression does not pay) beside a text
 * column that compresses, each batch with different values.
 */
function rawAndPacked(batches: number, rows: number): Table {
  const out: RecordBatch[] = []
  for (let b = 0; b < batches; b++) {
    let x = 0x9e3779b9 ^ (b + 1)
    const noise = Int32Array.from({ length: rows }, () => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return x })
    const text = Array.from({ length: rows }, (_, i) => `batch ${b} row ${i % 40}`)
    out.push(...new Table({ noise: vectorFromArray(noise), text: vectorFromArray(text, new Utf8()) }).batches)
  }
  return new Table(out)
}

for (const compression of ['lz4', 'zstd'] as const) {
  test(`${compression}: buffers stored raw alias the input from memory, decoded ones do not`, async () => {
    const table = rawAndPacked(1, 5000)
    const bytes = await arrowEncodeFile(table, { compression })
    const t = await readArrow(bytes)
    assert.is(diffTables(t, table), null)
    const [noise, text] = t.batches[0]!.data.children
    assert.is(noise!.values.buffer, bytes.buffer, 'the noise column is a view of the input')
    assert.ok(text!.values.buffer !== bytes.buffer, 'the text bytes are decoded into new memory')
  })

  test(`${compression}: buffers stored raw in bodies gathered from chunks survive the next body`, async () => {
    // Bodies spanning chunks are gathered into memory the framer reuses for the next
    // compressed body, so their raw buffers must be copied out, not aliased.
    const table = rawAndPacked(4, 3000)
    const bytes = await arrowEncodeFile(table, { compression })
    for (const size of [1000, 65536]) {
      const batches = await decodeChunks(bytes, size)
      assert.is(diffTables(batches, table), null, `${size}-byte chunks`)
    }
    const whole = await collect(fromBuffer(bytes).pipeThrough(arrowDecode()))
    assert.is(whole[0]!.data.children[0]!.values.buffer, bytes.buffer, 'fromBuffer() aliases raw buffers too')
    assert.is(diffTables(whole, table), null)
  })
}

// --- Pull-driven decoding, abort, and whole files read through their footer.

/** Whether `p` has settled after the tasks queued so far have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false
  p.then(() => (done = true), () => (done = true))
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0))
  return done
}

test('apache-arrow 21.2 buffers (prefix = compressed length) decode once into memory of their exact size', async () => {
  // The prefix does not give the size: it comes from the frame's header or from the
  // batch layout (adapters/arrow/sizes.ts), never from chunks joined after decoding.
  const rows = 5000
  const table = new Table({
    id: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => (i * 7919) % 1000)),
    s: vectorFromArray(Array.from({ length: rows }, (_, i) => `value-${i % 300}`), new Utf8()),
    d: vectorFromArray(Array.from({ length: rows }, (_, i) => `word-${i % 40}`), new Dictionary(new Utf8(), new Int32())),
  })
  let decoded = 0
  for (const type of [CompressionType.LZ4_FRAME, CompressionType.ZSTD]) {
    const bytes = RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true)
    const back = await readArrow(bytes)
    assert.is(diffTables(back, table), null)
    const [id, str, dict] = back.batches[0]!.data.children
    // Each decoded buffer fills its own memory: nothing over-allocated, nothing joined
    // (a buffer the writer stored raw, as lz4js leaves these offsets, is a view of the input).
    for (const [what, view, size] of [
      ['int32 values', id!.values, rows * 4],
      ['utf8 offsets', str!.valueOffsets, (rows + 1) * 4],
      ['utf8 data', str!.values, str!.valueOffsets[rows]!],
      ['dictionary indices', dict!.values, rows * 4],
    ] as const) {
      assert.is(view.byteLength, size, `${CompressionType[type]} ${what}`)
      if (view.buffer !== bytes.buffer) decoded++
      if (view.buffer !== bytes.buffer) assert.is(view.buffer.byteLength, size, `${CompressionType[type]} ${what}: its memory`)
    }
  }
  assert.ok(decoded >= 6, `${decoded} buffers decoded`)
})

test('arrowDecode decodes one batch per read: a chunk holding 40 batches is not decoded ahead of the reader', async () => {
  const table = rawAndPacked(40, 2000)
  const bytes = await arrowEncodeFile(table, { compression: 'zstd' })
  const stream = arrowDecode()
  const writer = stream.writable.getWriter()
  const reader = stream.readable.getReader()
  const written = writer.write(bytes)
  const first = await reader.read()
  assert.ok(!first.done && first.value.numRows === 2000)
  // The chunk is still being read: its write has not resolved, and the stream holds at
  // most the one batch its queue asks for.
  assert.not.ok(await settled(written), 'the write resolved before its batches were read')
  const rest: RecordBatch[] = [first.value!]
  const closed = writer.close()
  for (;;) {
    const r = await reader.read()
    if (r.done) break
    rest.push(r.value)
  }
  await written
  await closed
  assert.is(rest.length, 40)
  assert.is(diffTables(rest, table), null)
})

test('arrowDecode: an AbortSignal errors both sides with its reason', async () => {
  const bytes = await arrowEncodeFile(rawAndPacked(5, 1000), { compression: 'lz4' })
  const controller = new AbortController()
  const stream = arrowDecode({ signal: controller.signal })
  const reader = stream.readable.getReader()
  const writer = stream.writable.getWriter()
  const written = writer.write(bytes)
  assert.ok(!(await reader.read()).done)
  const reason = new Error('enough')
  controller.abort(reason)
  assert.is(await errorOf(reader.read()), reason)
  assert.is(await errorOf(written), reason)
})

test('a whole file from fromBuffer() is read through its footer, as readArrow reads it', async () => {
  const table = rawAndPacked(3, 1500)
  const file = await arrowEncodeFile(table, { compression: 'lz4' })
  // Spoil the end-of-stream marker that precedes the footer: a front-to-back reader
  // trips over it, a reader that follows the footer's blocks never looks at it.
  const footerLength = new DataView(file.buffer, file.byteOffset + file.length - 10, 4).getInt32(0, true)
  const eos = file.length - 10 - footerLength - 8
  assert.equal([...file.subarray(eos, eos + 4)], [0xff, 0xff, 0xff, 0xff])
  const spoiled = file.slice()
  spoiled.fill(0x5a, eos, eos + 8)
  assert.is(diffTables(await readArrow(spoiled), table), null)
  assert.is(diffTables(await collect(fromBuffer(spoiled).pipeThrough(arrowDecode())), table), null)
  const chunkedError = await errorOf(decodeChunks(spoiled, 4096))
  assert.ok(isArrowError(chunkedError), `front to back, in chunks: ${String(chunkedError)}`)
})

// --- Limits and truncation.

if (integration && existsSync(integration)) {
  const bytes = new Uint8Array(readFileSync(join(integration, 'cpp-21.0.0', 'generated_primitive.stream')))

  test('maxMessageBytes: a larger declared message fails with LIMIT_EXCEEDED', async () => {
    const e = await errorOf(readArrow(bytes, { maxMessageBytes: 256 }))
    assert.ok(isArrowError(e), String(e))
    assert.is((e as CodecError).code, 'LIMIT_EXCEEDED')
    assert.match((e as Error).message, /exceeds maxMessageBytes 256/)
    const s = await errorOf(decodeChunks(bytes.slice(), 7).then(() => null))
    assert.ok(s === null, 'the default limit reads it')
    const limited = await errorOf(collect(chunked(bytes, 7).pipeThrough(arrowDecode({ maxMessageBytes: 256 }))))
    assert.is((limited as CodecError).code, 'LIMIT_EXCEEDED')
  })

  test('a size prefix of 2^31-1 fails before any allocation', async () => {
    const hostile = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3])
    const e = await errorOf(readArrow(hostile, { maxMessageBytes: 1 << 20 }))
    assert.is((e as CodecError).code, 'LIMIT_EXCEEDED')
    const t = await errorOf(readArrow(hostile))
    assert.is((t as CodecError).code, 'TRUNCATED')
  })

  test('bad options throw INVALID_OPTION at construction', () => {
    assert.throws(() => arrowDecode({ maxMessageBytes: -1 }), (e: unknown) => (e as CodecError).code === 'INVALID_OPTION')
  })

  test('truncation anywhere is TRUNCATED, never a partial success', async () => {
    for (const cut of [0, 3, 7, 100, bytes.length >> 1, bytes.length - 9]) {
      const e = await errorOf(readArrow(bytes.subarray(0, cut)))
      assert.ok(isArrowError(e), `cut ${cut}: ${String(e)}`)
      assert.is((e as CodecError).code, 'TRUNCATED', `cut ${cut}`)
      const s = await errorOf(decodeChunks(bytes.subarray(0, cut), 7))
      assert.is((s as CodecError).code, 'TRUNCATED', `stream cut ${cut}`)
    }
  })

  test('readArrow takes ArrayBuffer, Blob and Response too', async () => {
    const theirs = oracle(bytes) as Table
    assert.is(diffTables(await readArrow(bytes.slice().buffer), theirs), null)
    assert.is(diffTables(await readArrow(new Blob([bytes])), theirs), null)
    assert.is(diffTables(await readArrow(new Response(bytes)), theirs), null)
    // An odd byte offset: typed arrays cannot be views there, so they are copied.
    const shifted = new Uint8Array(bytes.length + 1).subarray(1)
    shifted.set(bytes)
    assert.is(diffTables(await readArrow(shifted), theirs), null)
  })

  test('chunks may be ArrayBuffers and DataViews', async () => {
    const theirs = oracle(bytes) as Table
    const parts = [bytes.slice(0, 10).buffer, new DataView(bytes.slice(10).buffer)]
    const stream = new ReadableStream<ArrayBuffer | DataView>({ start(c) { for (const p of parts) c.enqueue(p); c.close() } })
    assert.is(diffTables(await collect(stream.pipeThrough(arrowDecode())), theirs), null)
  })
}

// --- The pre-0.15 framing (no continuation marker).

/** Rewrites a stream's prefixes to the legacy form: <int32 metadata size> <metadata> <body>. */
function toLegacy(stream: Uint8Array): Uint8Array {
  const out: number[] = []
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength)
  let pos = 0
  while (pos + 8 <= stream.length) {
    assert.is(view.getInt32(pos, true), -1)
    const len = view.getInt32(pos + 4, true)
    out.push(...stream.subarray(pos + 4, pos + 8))
    if (len === 0) break
    const meta = stream.subarray(pos + 8, pos + 8 + len)
    const bodyLength = readMessage(meta, 0).bodyLength
    out.push(...meta, ...stream.subarray(pos + 8 + len, pos + 8 + len + bodyLength))
    pos += 8 + len + bodyLength
  }
  return Uint8Array.from(out)
}

if (integration && existsSync(integration)) {
  for (const name of ['cpp-21.0.0/generated_dictionary.stream', '2.0.0-compression/generated_zstd.stream', 'cpp-21.0.0/generated_nested.stream']) {
    test(`pre-0.15 framing without continuation markers: ${name}`, async () => {
      const bytes = new Uint8Array(readFileSync(join(integration, name)))
      const legacy = toLegacy(bytes)
      assert.ok(legacy.length < bytes.length)
      const theirs = oracle(bytes) as Table
      assert.is(diffTables(await readArrow(legacy), theirs), null)
      for (const size of [1, 5, 4096]) assert.is(diffTables(await decodeChunks(legacy, size), theirs), null, `${size}-byte chunks`)
    })
  }
}

// --- Mutations: random byte damage must give a clean CodecError or a valid read.

if (integration && existsSync(integration)) {
  test('2,000 random mutations of valid files: CodecError or success, never anything else', async () => {
    const names = ['cpp-21.0.0/generated_primitive.stream', 'cpp-21.0.0/generated_nested.stream', 'cpp-21.0.0/generated_dictionary.arrow_file',
      'cpp-21.0.0/generated_union.stream', 'cpp-21.0.0/generated_binary_view.stream', '2.0.0-compression/generated_lz4.stream',
      '2.0.0-compression/generated_zstd.arrow_file', 'cpp-21.0.0/generated_map.stream']
    let seed = 12345
    const rand = (n: number) => {
      seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5
      return (seed >>> 0) % n
    }
    const outcomes: Record<string, number> = {}
    for (let k = 0; k < 2000; k++) {
      const original = readFileSync(join(integration, names[k % names.length]!))
      const bytes = new Uint8Array(original)
      const damage = 1 + rand(4)
      for (let d = 0; d < damage; d++) {
        const at = rand(bytes.length)
        bytes[at] = rand(3) === 0 ? 0xff : rand(256)
      }
      let e: unknown = null
      try {
        if (k % 4 === 3) await decodeChunks(bytes, 13)
        else await readArrow(bytes, { maxMessageBytes: 16 << 20 })
      } catch (x) {
        e = x
      }
      if (e !== null && !isArrowError(e)) assert.unreachable(`mutation ${k} of ${names[k % names.length]}: ${(e as Error)?.stack ?? String(e)}`)
      const key = e === null ? 'read' : (e as CodecError).code
      outcomes[key] = (outcomes[key] ?? 0) + 1
    }
    console.log(`# mutations: ${JSON.stringify(outcomes)}`)
  })
}

// --- Fuzz corpus: clean errors, no hang, no crash.

for (const [label, dir] of [['arrow-ipc-stream', streamDir], ['arrow-ipc-file', fileDir]] as const) {
  if (!dir || !existsSync(dir)) {
    console.log(`# skipped: ${label} fuzz corpus not found`)
    test.skip(`${label} fuzz corpus`)
    continue
  }
  test(`${label}: every fuzz/crash file reads or fails with a CodecError`, async () => {
    const files = readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile())
    const outcomes: Record<string, number> = {}
    for (const f of files) {
      const bytes = new Uint8Array(readFileSync(join(dir, f)))
      for (const mode of ['memory', 'stream'] as const) {
        let e: unknown = null
        try {
          if (mode === 'memory') await readArrow(bytes, { maxMessageBytes: 64 << 20 })
          else await collect(chunked(bytes, 7).pipeThrough(arrowDecode({ maxMessageBytes: 64 << 20 })))
        } catch (x) {
          e = x
        }
        if (e !== null && !isArrowError(e)) assert.unreachable(`${f} (${mode}): ${(e as Error)?.stack ?? String(e)}`)
        const key = e === null ? 'read' : (e as CodecError).code
        outcomes[key] = (outcomes[key] ?? 0) + 1
      }
    }
    console.log(`# ${label}: ${files.length} files x 2 modes: ${JSON.stringify(outcomes)}`)
  })
}

test.run()
