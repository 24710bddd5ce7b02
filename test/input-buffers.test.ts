// The worker pool's input memory (streams/input-buffers.ts): copies that never share the
// caller's memory, buffers handed back used again (the smallest that fits), the bounds
// on what is kept.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { InputBuffers } from '../streams/input-buffers.js'

const bytes = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff)

test('a copy holds exactly the input, in memory of its own with room to spare', () => {
  const inputs = new InputBuffers()
  const input = bytes(10_000, 1)
  const copy = inputs.copy(input)
  assert.equal(copy, input)
  assert.is(copy.byteOffset, 0)
  assert.ok(copy.buffer !== input.buffer)
  assert.ok(copy.buffer.byteLength >= 10_000 && copy.buffer.byteLength % 4096 === 0, String(copy.buffer.byteLength))
  assert.is(inputs.copy(new Uint8Array(0)).length, 0)
})

test('a buffer handed back serves the next input that fits: the smallest such', () => {
  const inputs = new InputBuffers()
  const small = inputs.copy(bytes(5_000, 2)).buffer
  const large = inputs.copy(bytes(50_000, 3)).buffer
  inputs.give(large)
  inputs.give(small)
  assert.is(inputs.kept, 2)
  const a = inputs.copy(bytes(4_000, 4))
  assert.is(a.buffer, small, 'the smallest buffer that holds it')
  assert.equal(a, bytes(4_000, 4))
  const b = inputs.copy(bytes(20_000, 5))
  assert.is(b.buffer, large)
  assert.equal(b, bytes(20_000, 5))
  assert.is(inputs.kept, 0)
  // Nothing fits: new memory.
  inputs.give(small)
  const c = inputs.copy(bytes(60_000, 6))
  assert.ok(c.buffer !== small && c.buffer !== large)
  assert.is(inputs.kept, 1)
})

test('what is kept is bounded: no empty buffer, none above 4 MiB, 16 MiB in all; clear() drops them', () => {
  const inputs = new InputBuffers()
  inputs.give(new ArrayBuffer(0))
  inputs.give(new ArrayBuffer(4 * 1024 * 1024 + 1))
  assert.is(inputs.kept, 0)
  for (let i = 0; i < 5; i++) inputs.give(new ArrayBuffer(4 * 1024 * 1024))
  assert.is(inputs.kept, 4)
  inputs.clear()
  assert.is(inputs.kept, 0)
})

test.run()
