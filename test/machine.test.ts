import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Machine, type MachineOptions } from '../lib/machine.js'
import { CodecError } from '../lib/errors.js'
import type { Decoder } from '../lib/codec.js'
import { CodecStream } from '../streams/codec-stream.js'
import * as polyfill from 'web-streams-polyfill'
import { BombDecoder, FrameDecoder, WholeFrameDecoder } from './_toy-codecs.js'
import { Status } from '../lib/status.js'
import { concatBytes } from './_bytes.js'

const opts = (o: Partial<MachineOptions> = {}): MachineOptions => ({
  format: 'toy',
  mode: 'decode',
  blockSize: 64,
  maxOutputBytes: Infinity,
  concatenated: false,
  ...o,
})

function frame(payload: number[]): number[] {
  return [payload.length, ...payload]
}

/** Runs `input` through a machine in chunks of `split` bytes; returns output or the error. */
function runSplit(codec: Decoder, input: Uint8Array, split: number, o: Partial<MachineOptions> = {}) {
  const m = new Machine(codec, opts(o))
  const out: number[] = []
  try {
    for (let i = 0; i < input.length; i += split) {
      m.push(input.subarray(i, i + split))
      for (let c = m.next(); c; c = m.next()) out.push(...c)
      assert.ok(m.needsInput || m.finished)
    }
    m.end()
    for (let c = m.next(); c; c = m.next()) out.push(...c)
    assert.ok(m.finished)
    return { out, error: null as CodecError | null, machine: m }
  } catch (e) {
    if (!(e instanceof CodecError)) throw e
    return { out, error: e, machine: m }
  }
}

const payload = Array.from({ length: 200 }, (_, i) => (i * 7) & 0xff)
const one = new Uint8Array(frame(payload))
const two = new Uint8Array([...frame(payload), ...frame([1, 2, 3])])

for (const [name, make] of [
  ['state-consuming codec', () => new FrameDecoder()],
  ['tail-leaving codec', () => new WholeFrameDecoder()],
] as const) {
  test(`${name}: every split size gives the same output`, () => {
    for (const split of [1, 2, 3, 7, 64, 1000]) {
      const r = runSplit(make(), one, split)
      assert.is(r.error, null, `split ${split}`)
      assert.equal(r.out, payload, `split ${split}`)
    }
  })

  test(`${name}: bytes after the end are TRAILING_DATA unless concatenated`, () => {
    for (const split of [1, 5, 1000]) {
      const r = runSplit(make(), two, split)
      assert.is(r.error?.code, 'TRAILING_DATA', `split ${split}`)
      assert.is(r.error?.offset, 201)
      assert.equal(r.out.slice(0, 200), payload)
      const c = runSplit(make(), two, split, { concatenated: true })
      assert.is(c.error, null)
      assert.equal(c.out, [...payload, 1, 2, 3])
      assert.is(c.machine.members, 2)
    }
  })

  test(`${name}: truncation at every length is TRUNCATED, never output that looks complete`, () => {
    for (let cut = 0; cut < one.length; cut++) {
      const r = runSplit(make(), one.subarray(0, cut), 3)
      assert.is(r.error?.code, 'TRUNCATED', `cut ${cut}`)
      assert.ok(r.out.length < payload.length)
    }
  })

  test(`${name}: invalid data in a later member reports the absolute offset`, () => {
    const bad = new Uint8Array([...frame([9, 9]), 0xff, 1, 2])
    const r = runSplit(make(), bad, 1, { concatenated: true })
    assert.is(r.error?.code, 'INVALID_DATA')
    assert.is(r.error?.offset, 3)
    assert.equal(r.out, [9, 9])
  })
}

test('empty chunks are ignored and an empty stream is truncated', () => {
  const m = new Machine(new FrameDecoder(), opts())
  m.push(new Uint8Array(0))
  assert.is(m.next(), null)
  assert.ok(m.needsInput)
  m.end()
  assert.throws(() => m.next(), (e: CodecError) => e.code === 'TRUNCATED')
})

test('maxOutputBytes stops a bomb at the limit, before the memory is spent', () => {
  const m = new Machine(new BombDecoder(), opts({ blockSize: 65536, maxOutputBytes: 3_000_000 }))
  m.push(new Uint8Array([255])) // 255 MiB
  let total = 0
  const err = (() => {
    try {
      for (let c = m.next(); c; c = m.next()) total += c.length
    } catch (e) {
      return e as CodecError
    }
  })()
  assert.is(err?.code, 'LIMIT_EXCEEDED')
  assert.ok(total <= 3_000_000, `${total}`)
  assert.is(m.totalOut, 3_000_000)
})

test('each next() returns at most one block, so a caller can stop between them', () => {
  const m = new Machine(new BombDecoder(), opts({ blockSize: 4096 }))
  m.push(new Uint8Array([1, 2]))
  for (let k = 0; k < 10; k++) {
    const c = m.next()
    assert.ok(c && c.length <= 4096)
  }
  assert.ok(m.totalOut <= 10 * 4096)
})

test('chunks handed out are never written again', () => {
  const m = new Machine(new FrameDecoder(), opts({ blockSize: 1024, concatenated: true }))
  const kept: Array<[Uint8Array, number[]]> = []
  for (let f = 0; f < 50; f++) {
    m.push(new Uint8Array(frame([f, f, f, f, f])))
    for (let c = m.next(); c; c = m.next()) kept.push([c, [...c]])
  }
  m.end()
  for (let c = m.next(); c; c = m.next()) kept.push([c, [...c]])
  for (const [view, copy] of kept) assert.equal([...view], copy)
  // Several small outputs share one block instead of one allocation each.
  assert.ok(new Set(kept.map(([v]) => v.buffer)).size < kept.length)
})

test('a consumer that transfers an output buffer does not break the machine', () => {
  const m = new Machine(new FrameDecoder(), opts({ blockSize: 1024, concatenated: true }))
  const out: number[] = []
  for (let f = 0; f < 5; f++) {
    m.push(new Uint8Array(frame([f, f])))
    for (let c = m.next(); c; c = m.next()) {
      out.push(...c)
      structuredClone(c.buffer, { transfer: [c.buffer as ArrayBuffer] })
    }
  }
  m.end()
  for (let c = m.next(); c; c = m.next()) out.push(...c)
  assert.equal(out, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
})

/** A FrameDecoder (or tail-leaving WholeFrameDecoder) that records every `src` it is given. */
function spying<D extends Decoder>(codec: D): D & { srcs: Array<{ buffer: ArrayBufferLike; length: number }> } {
  // The buffer and length when called (a view of a buffer detached later reads as empty).
  const srcs: Array<{ buffer: ArrayBufferLike; length: number }> = []
  const transform = codec.transform.bind(codec)
  return Object.assign(codec, {
    srcs,
    transform(src: Uint8Array, dst: Uint8Array, final: boolean) {
      srcs.push({ buffer: src.buffer, length: src.length })
      return transform(src, dst, final)
    },
  })
}

/** `n` frames of 200 payload bytes each (201 bytes per frame), payload byte = frame index. */
function frames(n: number): Uint8Array {
  const out = new Uint8Array(n * 201)
  for (let f = 0; f < n; f++) {
    out[f * 201] = 200
    out.fill(f & 0xff, f * 201 + 1, f * 201 + 201)
  }
  return out
}

/** Checks that `out` is what `frames(n)` decodes to. */
function checkFrames(out: Uint8Array, n: number, label: string): void {
  assert.is(out.length, n * 200, `${label}: length`)
  for (let f = 0; f < n; f += 997) assert.is(out[f * 200 + 199], f & 0xff, `${label}: frame ${f}`)
}

test('input at a hand-out point: borrowed input is read in place, whatever its size', () => {
  const n = 400_000 // 80 MB in one chunk: more than the 64 MiB that once capped it
  const input = frames(n)
  const codec = spying(new FrameDecoder())
  const m = new Machine(codec, opts({ blockSize: 1 << 20, concatenated: true, borrowInput: true }))
  const out = runAll(m, [input])
  checkFrames(out, n, 'borrowed')
  // Every step read the caller's own buffer.
  assert.ok(codec.srcs.every((src) => src.length === 0 || src.buffer === input.buffer), 'a copy of the input was read')
})

test('input at a hand-out point: the WHATWG streams copy what is unconsumed, once, without a cap', () => {
  const n = 400_000
  const input = frames(n)
  const codec = spying(new FrameDecoder())
  const m = new Machine(codec, opts({ blockSize: 1 << 20, concatenated: true }))
  const parts: Uint8Array[] = []
  m.push(input)
  let first = true
  for (let c = m.next(); c; c = m.next()) {
    parts.push(c.slice())
    if (first) {
      // A consumer that detaches the caller's chunk once output is handed out (WPT's
      // compression tests do it from a patched `then`): the rest was copied before.
      structuredClone(input.buffer, { transfer: [input.buffer] })
      first = false
    }
  }
  m.end()
  for (let c = m.next(); c; c = m.next()) parts.push(c.slice())
  checkFrames(concatBytes(parts), n, 'copied')
  const buffers = new Set(codec.srcs.filter((s) => s.length > 0).map((s) => s.buffer))
  assert.is(buffers.size, 2, 'the caller\'s buffer, then one copy of the rest')
})

test("a codec's leftover joined by a large chunk: a small piece is copied, the rest read in place", () => {
  // The tail-leaving codec keeps a partial frame; the next chunk is 80 MB.
  const n = 400_000
  const input = frames(n)
  for (const cut of [1, 100, 200]) {
    const codec = spying(new WholeFrameDecoder())
    const m = new Machine(codec, opts({ blockSize: 1 << 20, concatenated: true, borrowInput: true }))
    const rest = input.subarray(cut)
    const out = runAll(m, [input.subarray(0, cut), rest])
    checkFrames(out, n, `cut ${cut}`)
    const copies = codec.srcs.filter((s) => s.length > 0 && s.buffer !== input.buffer)
    assert.ok(copies.length > 0, `cut ${cut}: the leftover was presented with the chunk joined`)
    assert.ok(copies.every((s) => s.length <= 256 * 1024), `cut ${cut}: a copy of ${Math.max(...copies.map((s) => s.length))} bytes`)
  }
})

test("a codec's own leftover stays capped at 64 MiB, with a message that says what to do", () => {
  // A codec that needs all of its input before the end (as the raw LZ4 block's does).
  const wholeInput: Decoder = {
    format: 'toy',
    consumed: 0,
    written: 0,
    failure: null,
    transform(src, _dst, final) {
      this.consumed = final ? src.length : 0
      this.written = 0
      return final ? Status.Done : Status.NeedMoreData
    },
    reset() {},
    dispose() {},
  }
  const m = new Machine(wholeInput, opts({ borrowInput: true }))
  const err = (() => {
    try {
      for (let k = 0; k < 3; k++) {
        m.push(new Uint8Array(40 << 20))
        while (m.next()) {
          /* nothing comes out */
        }
      }
    } catch (e) {
      return e as CodecError
    }
    return null
  })()
  assert.is(err?.code, 'LIMIT_EXCEEDED')
  assert.match(err!.message, /unconsumed, more than the 67108864 a codec may keep/)
  assert.match(err!.message, /decode\(\)/)
})

/** Pushes each chunk and takes all output after each and after `end()`. */
function runAll(m: Machine, chunks: Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = []
  for (const chunk of chunks) {
    m.push(chunk)
    for (let c = m.next(); c; c = m.next()) parts.push(c.slice())
  }
  m.end()
  for (let c = m.next(); c; c = m.next()) parts.push(c.slice())
  m.dispose()
  return concatBytes(parts)
}

function toyStream(codec: Decoder, o: Partial<MachineOptions> & { signal?: AbortSignal; streams?: any } = {}) {
  const machine = new Machine(codec, opts({ blockSize: 65536, ...o }))
  const pair = new CodecStream({ format: 'toy', allowShared: true, open: async (use) => use(machine), signal: o.signal, streams: o.streams })
  return { pair, machine }
}

test('stream: a slow reader bounds what a bomb produces (backpressure)', async () => {
  const bomb = new BombDecoder()
  const { pair, machine } = toyStream(bomb)
  const writer = pair.writable.getWriter()
  void writer.write(new Uint8Array([200])).catch(() => {}) // 200 MiB
  const reader = pair.readable.getReader()
  for (let k = 0; k < 5; k++) {
    const { value } = await reader.read()
    assert.ok(value && value.length === 65536)
    await new Promise((r) => setTimeout(r, 5))
  }
  // Five chunks read, at most the queue's high-water mark plus one ahead.
  assert.ok(machine.totalOut <= 7 * 65536, `${machine.totalOut}`)
  await reader.cancel('done')
  assert.ok(bomb.disposed)
  await writer.closed.then(
    () => assert.unreachable('writable should error after cancel'),
    (e) => assert.is(e, 'done'),
  )
})

test('stream: AbortSignal errors both sides and frees the codec', async () => {
  const bomb = new BombDecoder()
  const ac = new AbortController()
  const { pair } = toyStream(bomb, { signal: ac.signal })
  const writer = pair.writable.getWriter()
  const reader = pair.readable.getReader()
  const w = writer.write(new Uint8Array([50]))
  await reader.read()
  ac.abort(new Error('stop'))
  await w.then(() => assert.unreachable(), (e) => assert.is(e.message, 'stop'))
  await reader.read().then(() => assert.unreachable(), (e) => assert.is(e.message, 'stop'))
  assert.ok(bomb.disposed)
})

test('stream: works on web-streams-polyfill classes (no globals needed)', async () => {
  const { pair } = toyStream(new FrameDecoder(), { concatenated: true, streams: polyfill })
  assert.instance(pair.readable, polyfill.ReadableStream)
  const src = new polyfill.ReadableStream({
    start(c) {
      for (const b of two) c.enqueue(new Uint8Array([b]))
      c.close()
    },
  })
  const out: number[] = []
  await src.pipeThrough(pair as any).pipeTo(new polyfill.WritableStream({ write: (c: Uint8Array) => { out.push(...c) } }))
  assert.equal(out, [...payload, 1, 2, 3])
})

test('stream: errors reach both sides with the CodecError', async () => {
  const { pair } = toyStream(new FrameDecoder())
  const writer = pair.writable.getWriter()
  const reader = pair.readable.getReader()
  void writer.write(new Uint8Array([2, 1, 2, 0xff])).catch(() => {})
  void reader.read().catch(() => {})
  await writer.close().then(() => assert.unreachable(), (e) => assert.is(e.code, 'TRAILING_DATA'))
  await reader.closed.then(() => assert.unreachable(), (e) => assert.instance(e, CodecError))
})

test.run()
