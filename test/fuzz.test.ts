// Property-based fuzzing of every byte-codec decoder (fast-check, fixed seeds):
// mutated valid streams (bit flips, truncations, insertions, deletions, swapped halves,
// junk after the end) and plain random bytes. Every outcome must be exactly the original
// data or a CodecError; for formats whose streams carry a checksum of the content
// (gzip CRC-32, zlib Adler-32, LZ4 content checksum, zstd XXH64 when written), never
// different output without an error; never another exception type; never a hang.
//
// Every engine of every format is fuzzed (the matrix is the format table's, enginesOf), and
// where a format has several engines a separate property makes them agree case by case:
// each engine's encoding decodes, through every other engine, to the original, and one
// mutated stream gets the same verdict (the same bytes, or a CodecError) from each.
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
import { enginesOf, type Engine } from '../lib/formats.js'
import { loadCodec, type CodecModule } from '../lib/registry.js'
import { concatBytes } from './_bytes.js'
import { runMachine } from './_machine.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)
const MAX_OUT = 1 << 20

/**
 * Formats and whether their encoder's output always carries a content checksum; each is
 * fuzzed on every engine the format table gives it (`enginesOf`).
 */
const formats: Array<[Format, boolean]> = [
  ['gzip', true],
  ['deflate', true],
  ['deflate-raw', false],
  ['lz4', true],
  ['zstd', true],
  ['brotli', false],
  // Snappy framing: every chunk is checksummed, but a stream cut at a chunk boundary is a
  // valid shorter stream (the format has no end marker), so not the content as a whole.
  ['snappy', false],
  ['snappy-raw', false],
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

/** A decoding result in words, for the agreement check's messages. */
const verdict = (r: Uint8Array | CodecError) => (r instanceof CodecError ? `${r.code}` : `${r.length} bytes`)

const mutation = fc.oneof(...basicMutations)

/** The engines of each format that load here, for the agreement checks. */
const loadedByFormat = new Map<Format, Array<{ engine: Engine; mod: CodecModule }>>()

for (const [format, checksummed] of formats) for (const engine of enginesOf(format)) {
  const label = `${format} (engine ${engine})`
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
  loadedByFormat.set(format, [...(loadedByFormat.get(format) ?? []), { engine, mod: m }])

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

for (const [format] of formats) {
  const engines = loadedByFormat.get(format) ?? []
  if (engines.length < 2) {
    const names = enginesOf(format).join(', ')
    console.log(`# skipped: fuzz ${format}: engines agree (${engines.length} of its engines (${names}) load here; nothing to compare)`)
    test.skip(`fuzz ${format}: engines agree`, () => {})
    continue
  }
  const names = engines.map((e) => e.engine).join(', ')
  test(`fuzz ${format}: engines ${names} agree on ${Math.round(RUNS / 10)} cases`, () => {
    let compared = 0
    fc.assert(
      fc.property(plain, mutation, fc.integer({ min: 1, max: 64 }), (data, mut, split) => {
        // Encoders: each engine's output decodes to the original through every other engine.
        const packed = engines.map((e) => encodeWith(e.mod, data))
        for (const [i, from] of engines.entries()) {
          for (const to of engines) {
            if (to === from) continue
            const r = run(to.mod, packed[i]!, split)
            if (r instanceof CodecError || !same(r, data)) {
              throw new Error(`${from.engine}'s encoding decoded by ${to.engine}: ${verdict(r)}, expected the original ${data.length} bytes`)
            }
          }
        }
        // Decoders: the same mutated stream gives each engine the same bytes, or each a CodecError.
        for (const [i, source] of engines.entries()) {
          const bad = mut.apply(packed[i]!)
          const results = engines.map((e) => run(e.mod, bad, split))
          const first = results[0]!
          for (const [k, r] of results.entries()) {
            const agree = first instanceof CodecError ? r instanceof CodecError : !(r instanceof CodecError) && same(r, first)
            if (!agree) {
              throw new Error(`a mutated ${source.engine} stream: ${engines[0]!.engine} gives ${verdict(first)}, ${engines[k]!.engine} gives ${verdict(r)}`)
            }
            compared++
          }
        }
        return true
      }),
      { numRuns: Math.round(RUNS / 10), seed: 0xa9 + format.length },
    )
    console.log(`# fuzz ${format}: engines ${names} agree on ${Math.round(RUNS / 10)} cases (${compared} decodes compared)`)
  })
}

test.run()
