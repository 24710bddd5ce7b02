// Property-based fuzzing of every byte-codec decoder (fast-check, fixed seeds):
// mutated valid streams (bit flips, truncations, insertions, deletions, swapped halves,
// junk after the end) and plain random bytes. Every outcome must be exactly the original
// data or a CodecError; for formats whose streams carry a checksum of the content
// (gzip CRC-32, zlib Adler-32, LZ4 content checksum, zstd XXH64 when written), never
// different output without an error; never another exception type; never a hang.
//
// FUZZ_RUNS sets the cases per property (default 10,000: CI runs that many per decoder).
// Soak locally with e.g. FUZZ_RUNS=1000000 node --import tsx test/fuzz.test.ts
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import { basicMutations, plainData as plain } from './_mutations.js'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { Machine } from '../lib/machine.js'
import { resolveEngine, type Engine } from '../lib/formats.js'
import { loadCodec, type CodecModule } from '../lib/registry.js'
import { concatBytes } from './_bytes.js'
import { runMachine } from './_machine.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)
const MAX_OUT = 1 << 20

/**
 * Formats, whether their encoder's output always carries a content checksum, and the
 * engines fuzzed besides the default one.
 */
const formats: Array<[Format, boolean, Engine[]]> = [
  ['gzip', true, ['wasm']],
  ['deflate', true, ['wasm']],
  ['deflate-raw', false, ['wasm']],
  ['lz4', true, []],
  ['zstd', true, []],
  ['brotli', false, []],
]

function run(mod: CodecModule, data: Uint8Array, split: number): Uint8Array | CodecError {
  const m = new Machine(mod.createDecoder({}), {
    format: 'fuzz',
    mode: 'decode',
    blockSize: 4096,
    maxOutputBytes: MAX_OUT,
    concatenated: mod.traits.concatenable,
  })
  return runMachine(m, data, split)
}

function encodeWith(mod: CodecModule, data: Uint8Array): Uint8Array {
  const m = new Machine(mod.createEncoder({}), { format: 'fuzz', mode: 'encode', blockSize: 1 << 16, maxOutputBytes: Infinity, concatenated: false })
  m.push(data)
  m.end()
  const parts: Uint8Array[] = []
  for (let c = m.next(); c; c = m.next()) parts.push(c.slice())
  m.dispose()
  return concatBytes(parts)
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i])


const mutation = fc.oneof(...basicMutations)

/** Verdict counts of the first engine fuzzed per format. */
const verdictsByFormat = new Map<Format, string>()

for (const [format, checksummed, also] of formats) for (const engine of [resolveEngine(format, undefined), ...also]) {
  const label = also.length > 0 ? `${format} (engine ${engine})` : format
  let mod: CodecModule | null = null
  let why = ''
  try {
    mod = await loadCodec(format, engine)
  } catch (e) {
    why = (e as Error).message.split('\n')[0]!
  }
  if (!mod) {
    console.log(`# skipped: fuzz ${label} (${why})`)
    test.skip(`fuzz ${label}`, () => {})
    continue
  }
  const m = mod

  test(`fuzz ${label}: ${RUNS} mutated streams give the original or a CodecError`, () => {
    let errors = 0
    let intact = 0
    let silentlyDifferent = 0
    fc.assert(
      fc.property(plain, mutation, fc.integer({ min: 1, max: 64 }), (data, mut, split) => {
        const packed = encodeWith(m, data)
        const bad = mut.apply(packed)
        const r = run(m, bad, split)
        if (r instanceof CodecError) {
          errors++
          return true
        }
        if (same(r, data)) {
          intact++
          return true
        }
        // Different output without an error: only possible without a content checksum.
        silentlyDifferent++
        return !checksummed
      }),
      { numRuns: RUNS, seed: 0x5eed + format.length },
    )
    console.log(`# fuzz ${label}: ${RUNS} cases: ${errors} CodecError, ${intact} intact, ${silentlyDifferent} different without error${checksummed ? '' : ' (no content checksum in this format)'}`)
    assert.ok(errors > 0)
    // Engines of one format see the same cases (same seed) and must agree on each verdict count.
    const verdicts = `${errors} errors, ${intact} intact, ${silentlyDifferent} different`
    const first = verdictsByFormat.get(format)
    if (first === undefined) verdictsByFormat.set(format, verdicts)
    else assert.is(verdicts, first, `engine ${engine} disagrees with the default engine`)
  })

  test(`fuzz ${label}: ${Math.round(RUNS / 4)} random byte strings never crash or hang`, () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.integer({ min: 1, max: 64 }), (data, split) => {
        const r = run(m, data, split)
        return r instanceof CodecError || r.length <= MAX_OUT
      }),
      { numRuns: Math.round(RUNS / 4), seed: 0xbad + format.length },
    )
  })

  test(`fuzz ${label}: round trip identity with random splits on both sides`, () => {
    fc.assert(
      fc.property(plain, fc.integer({ min: 1, max: 97 }), (data, split) => {
        const packed = encodeWith(m, data)
        const r = run(m, packed, split)
        return !(r instanceof CodecError) && same(r, data)
      }),
      { numRuns: Math.round(RUNS / 10), seed: 0x1d + format.length },
    )
  })
}

test.run()
