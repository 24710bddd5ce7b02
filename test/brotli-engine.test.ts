// The brotli engines' entry points beyond what the codecs use today
// (lib/codecs/wasm/brotli-engine.ts): raw dictionaries (prepared for the encoder,
// attached to the decoder), the large-window variant against the `brotli` CLI
// (`--large_window`, Debian package `brotli`), the FLUSH operation, and that settings
// outside the format are refused.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  type BrotliEncoderSetup,
  type BrotliStep,
  loadBrotliEngines,
  NEEDS_MORE_INPUT,
  OPERATION_FLUSH,
  RESULT_SUCCESS,
} from '../lib/codecs/wasm/brotli-engine.js'
import { root } from './_fixtures.js'
import { concatBytes as concat } from './_bytes.js'

const hasCli = (() => {
  try {
    execFileSync('brotli', ['--version'])
    return true
  } catch {
    return false
  }
})()
if (!hasCli) console.log('# skipped: the brotli CLI is not installed (apt-get install -y brotli)')
const cliTest = hasCli ? test : test.skip

const [decoder, encoder] = await loadBrotliEngines()
const scratch = mkdtempSync(join(tmpdir(), 'sluice-brotli-engine-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0
const read = (...path: string[]): Uint8Array => new Uint8Array(readFileSync(join(root, ...path)))
const dts = read('node_modules', 'typescript', 'lib', 'lib.dom.d.ts')
const sources = concat([read('lib', 'codecs', 'zstd-decode.ts'), read('lib', 'codecs', 'brotli.ts'), read('lib', 'codecs', 'lz4.ts')])
const step: BrotliStep = { code: 0, inputUsed: 0, produced: 0, error: '' }

/** Encodes `input` in 1000-byte pieces into 300-byte rooms, then finishes. */
function encode(input: Uint8Array, quality: number, setup?: BrotliEncoderSetup): Uint8Array {
  const state = encoder.create(quality, setup)
  assert.ok(state !== 0, 'encoder created')
  const parts: Uint8Array[] = []
  const room = new Uint8Array(300)
  let offset = 0
  while (offset < input.length) {
    encoder.step(state, input, offset, Math.min(input.length, offset + 1000), room, 0, room.length, step)
    assert.ok(step.code !== 0, step.error)
    offset += step.inputUsed
    parts.push(room.slice(0, step.produced))
  }
  do {
    encoder.step(state, null, 0, 0, room, 0, room.length, step)
    assert.ok(step.code !== 0, step.error)
    parts.push(room.slice(0, step.produced))
  } while (step.code !== RESULT_SUCCESS)
  encoder.free(state)
  return concat(parts)
}

/** Decodes `input` in 700-byte pieces; `error` is the decoder's message when it failed. */
function decode(input: Uint8Array, setup?: Parameters<typeof decoder.create>[0]): { out: Uint8Array; error: string } {
  const state = decoder.create(setup)
  assert.ok(state !== 0, 'decoder created')
  const parts: Uint8Array[] = []
  const room = new Uint8Array(4096)
  let offset = 0
  try {
    for (;;) {
      decoder.step(state, input, offset, Math.min(input.length, offset + 700), room, 0, room.length, step)
      if (step.code === 0) return { out: concat(parts), error: step.error }
      offset += step.inputUsed
      parts.push(room.slice(0, step.produced))
      if (step.code === RESULT_SUCCESS) return { out: concat(parts), error: '' }
      if (step.code === NEEDS_MORE_INPUT && offset === input.length) return { out: concat(parts), error: 'truncated' }
    }
  } finally {
    decoder.free(state)
  }
}

test('raw dictionary: a prepared dictionary shrinks the stream, which decodes with it attached and fails without it', () => {
  const message = read('lib', 'codecs', 'wasm', 'brotli-engine.ts')
  // Brotli 1.1.0 refers into raw dictionaries from quality 5 up.
  for (const quality of [5, 9, 11]) {
    const prepared = encoder.prepareDictionary(sources, quality)
    assert.ok(prepared !== null)
    const withDictionary = encode(message, quality, { dictionary: prepared! })
    const without = encode(message, quality)
    assert.ok(withDictionary.length < without.length * 0.9, `q${quality}: ${withDictionary.length} vs ${without.length} bytes`)
    const decoded = decode(withDictionary, { dictionary: sources })
    assert.is(decoded.error, '', `q${quality}`)
    assert.ok(equalBytes(decoded.out, message), `q${quality}`)
    // Without the dictionary the references point before the stream's start.
    assert.ok(decode(withDictionary).error !== '', `q${quality}: decodes without its dictionary`)
    // node:zlib knows no dictionaries: it must refuse the stream too.
    assert.throws(() => zlib.brotliDecompressSync(withDictionary))
    encoder.freeDictionary(prepared!)
    encoder.freeDictionary(prepared!) // idempotent
  }
})

cliTest('large window: the CLI\'s --large_window streams decode only with largeWindow, ours decode in the CLI', () => {
  const input = concat([dts, dts.subarray(0, 100000)])
  const path = join(scratch, 'input')
  writeFileSync(path, input)
  const fromCli = new Uint8Array(execFileSync('brotli', ['-q', '5', '--large_window=26', '-c', path], { maxBuffer: 1 << 28 }))
  const decoded = decode(fromCli, { largeWindow: true })
  assert.is(decoded.error, '')
  assert.ok(equalBytes(decoded.out, input))
  // RFC 7932 decoders refuse it: BROTLI_DECODER_ERROR_FORMAT_WINDOW_BITS (-13).
  assert.is(decode(fromCli).error, 'Error code -13')

  const ours = encode(input, 5, { largeWindow: true, lgwin: 26 })
  writeFileSync(join(scratch, 'ours.br'), ours)
  const cliOut = new Uint8Array(execFileSync('brotli', ['-d', '--large_window=26', '-c', join(scratch, 'ours.br')], { maxBuffer: 1 << 28 }))
  assert.ok(equalBytes(cliOut, input))
  // lgwin above 24 needs the large-window flag: the plain encoder refuses it.
  assert.is(encoder.create(5, { lgwin: 25 }), 0)
})

test('FLUSH: the output so far decodes to the input so far; the stream then ends as usual', () => {
  const state = encoder.create(5)
  const room = new Uint8Array(64)
  const parts: Uint8Array[] = []
  const cut = 50000
  let offset = 0
  while (offset < cut) {
    encoder.step(state, dts, offset, cut, room, 0, room.length, step)
    offset += step.inputUsed
    parts.push(room.slice(0, step.produced))
  }
  let calls = 0
  do {
    encoder.step(state, dts, cut, cut, room, 0, room.length, step, OPERATION_FLUSH)
    assert.ok(step.code !== 0, step.error)
    parts.push(room.slice(0, step.produced))
    calls++
  } while (step.code !== RESULT_SUCCESS)
  assert.ok(calls > 1, 'a 64-byte room takes several flush calls')
  const flushed = concat(parts)
  assert.is(decode(flushed).error, 'truncated')
  assert.ok(equalBytes(decode(flushed).out, dts.subarray(0, cut)))
  encoder.free(state)
})

test('settings outside the format are refused (create returns 0), the engines stay usable', () => {
  assert.is(encoder.create(12), 0)
  assert.is(encoder.create(-1), 0)
  assert.is(encoder.create(4.5), 0)
  assert.is(encoder.create(5, { lgwin: 9 }), 0)
  assert.is(encoder.create(5, { lgwin: 31, largeWindow: true }), 0)
  assert.ok(equalBytes(decode(encode(dts, 1)).out, dts))
})

test.run()
