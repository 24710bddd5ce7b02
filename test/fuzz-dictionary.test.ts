// Property-based fuzzing of the decoders with a dictionary (fast-check, fixed seeds), as
// test/fuzz.test.ts does for the plain formats: zstd frames with a raw-content prefix
// and with a trained dictionary (Dictionary_ID in the header), zlib streams with FDICT,
// raw deflate with a preset window, brotli with a raw dictionary, and RFC 9842's dcz
// and dcb. Inputs are real documents (bench/corpus.ts packageDocuments; the dictionary is
// made of other ones) and generated data, encoded once each with the dictionary.
//
// Four properties per codec and engine:
// - mutated streams (bit flips, truncations, insertions, deletions, swapped halves, junk
//   after the end), decoded through the machine in random splits: the original or a
//   CodecError; where the stream carries a checksum of the content (zstd's XXH64 when
//   written, zlib's Adler-32, dcz's inner frame), never different output without one;
// - the right stream decoded with a wrong dictionary (one byte changed, cut short,
//   another one, none): a CodecError or the original; never different output where a
//   check covers it (zlib DICTID, dcz/dcb's SHA-256, zstd's XXH64 or Dictionary_ID);
// - random bodies behind a valid header (dcz/dcb's with the right hash, a zstd magic, a
//   zlib header with the right DICTID), so that they reach the engine with the
//   dictionary in use: a CodecError or bounded output, never another exception;
// - both at once through one-shot decode() and the WHATWG stream (decodeStream).
// Formats without any check (raw deflate, brotli, zstd without its checksum) may decode
// a wrong dictionary to wrong bytes silently: the counts are printed, never asserted 0.
//
// FUZZ_RUNS sets the cases per property (default 10,000, as test/fuzz.test.ts).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { basicMutations, plainData } from './_mutations.js'
import type { Format } from '../lib/codec.js'
import { CodecError } from '../lib/errors.js'
import { Machine } from '../lib/machine.js'
import { loadCodec, type CodecModule, type Engine } from '../lib/registry.js'
import { decodeWhole as oneShotDecode } from '../lib/whole-buffer.js'
import { decodeStream } from '../streams/index.js'
import { packageDocuments } from '../bench/corpus.js'
import { concatBytes } from './_bytes.js'
import { runMachine } from './_machine.js'
import { chunked, read } from './_streams.js'
import { requireCli } from './_cli.js'
import { adler32 } from '../lib/codecs/checksum.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)
const MAX_OUT = 1 << 20

const docs = packageDocuments(200)
const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes))
const held = docs.filter((_, k) => k % 10 !== 0).map((d) => d.bytes)
/** What is encoded: held-out documents and generated data (runs, repeats, text). */
const documents = held.filter((_, k) => k % 3 === 0).slice(0, 48)
const pool: Uint8Array[] = [...documents, ...fc.sample(plainData, { numRuns: 32, seed: 0xd1c7 })]
const otherDictionary = concatBytes(held.slice(0, 6))
const sha = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest())
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0

/** A dictionary trained by the `zstd` CLI on the documents (RFC 8878 section 5), or null. */
function train(): Uint8Array | null {
  if (!requireCli('zstd', 'the trained-dictionary fuzz case')) return null
  const dir = mkdtempSync(join(tmpdir(), 'sluice-fuzz-dict-'))
  try {
    const paths = docs.map((d, k) => {
      const p = join(dir, `${k}.json`)
      writeFileSync(p, d.bytes)
      return p
    })
    const out = join(dir, 'dict')
    const r = spawnSync('zstd', ['-q', '--train', ...paths, '-o', out, '--maxdict=16384', '--dictID=777'])
    return r.status === 0 ? new Uint8Array(readFileSync(out)) : null
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const trained = train()

interface Case {
  label: string
  format: Format
  engine: Engine
  dictionary: Uint8Array | null
  /** Encoder options besides the dictionary. */
  encode?: Record<string, unknown>
  /** The stream carries a checksum of the content: mutations never decode to other bytes. */
  contentChecked: boolean
  /** A check covers the dictionary (DICTID, SHA-256, Dictionary_ID or the content checksum). */
  dictionaryChecked: boolean
}

const cases: Case[] = [
  { label: 'zstd, raw-content prefix', format: 'zstd', engine: 'wasm', dictionary, contentChecked: true, dictionaryChecked: true },
  // Without XXH64 nothing checks a raw prefix (its frames carry no Dictionary_ID).
  { label: 'zstd, raw-content prefix, no checksum', format: 'zstd', engine: 'wasm', dictionary, encode: { checksum: false }, contentChecked: false, dictionaryChecked: false },
  { label: 'zstd, trained dictionary (ID 777)', format: 'zstd', engine: 'wasm', dictionary: trained, contentChecked: true, dictionaryChecked: true },
  { label: 'zstd, raw-content prefix (engine node)', format: 'zstd', engine: 'node', dictionary, contentChecked: true, dictionaryChecked: true },
  { label: 'deflate (zlib FDICT)', format: 'deflate', engine: 'wasm', dictionary, contentChecked: true, dictionaryChecked: true },
  { label: 'deflate (zlib FDICT, engine js)', format: 'deflate', engine: 'js', dictionary, contentChecked: true, dictionaryChecked: true },
  { label: 'deflate (zlib FDICT, engine node)', format: 'deflate', engine: 'node', dictionary, contentChecked: true, dictionaryChecked: true },
  { label: 'deflate-raw, preset window', format: 'deflate-raw', engine: 'wasm', dictionary, contentChecked: false, dictionaryChecked: false },
  { label: 'deflate-raw, preset window (engine node)', format: 'deflate-raw', engine: 'node', dictionary, contentChecked: false, dictionaryChecked: false },
  // Quality 5: brotli 1.1.0 refers into a raw dictionary from there up.
  { label: 'brotli, raw dictionary', format: 'brotli', engine: 'wasm', dictionary, encode: { level: 5 }, contentChecked: false, dictionaryChecked: false },
  { label: 'brotli, raw dictionary (engine node)', format: 'brotli', engine: 'node', dictionary, encode: { level: 5 }, contentChecked: false, dictionaryChecked: false },
  { label: 'dcz', format: 'dcz', engine: 'wasm', dictionary, contentChecked: true, dictionaryChecked: true },
  // dcb's SHA-256 covers the dictionary; brotli has no checksum of the content.
  { label: 'dcb', format: 'dcb', engine: 'wasm', dictionary, encode: { level: 5 }, contentChecked: false, dictionaryChecked: true },
]

/** Codec options: the dictionary, and for the transports the digest the registry would add. */
function codecOptions(c: Case, dict: Uint8Array | undefined): Record<string, unknown> {
  const options: Record<string, unknown> = {}
  if (dict !== undefined) options.dictionary = dict
  if ((c.format === 'dcz' || c.format === 'dcb') && dict !== undefined) options.dictionaryDigest = sha(dict)
  return options
}

function encodeWith(mod: CodecModule, c: Case, data: Uint8Array): Uint8Array {
  const m = new Machine(mod.createEncoder({ ...codecOptions(c, c.dictionary!), ...c.encode }), { format: c.format, mode: 'encode', blockSize: 1 << 16, maxOutputBytes: Infinity, concatenated: false })
  const parts: Uint8Array[] = []
  try {
    m.push(data)
    m.end()
    for (let chunk = m.next(); chunk; chunk = m.next()) parts.push(chunk.slice())
  } finally {
    m.dispose()
  }
  return concatBytes(parts)
}

function decodeWith(mod: CodecModule, c: Case, data: Uint8Array, split: number, dict: Uint8Array | undefined): Uint8Array | CodecError {
  let codec
  try {
    codec = mod.createDecoder({ ...codecOptions(c, dict), maxOutputBytes: MAX_OUT })
  } catch (e) {
    // A transport without a dictionary is refused when the codec is made.
    if (e instanceof CodecError) return e
    throw e
  }
  const m = new Machine(codec, { format: c.format, mode: 'decode', blockSize: 4096, maxOutputBytes: MAX_OUT, concatenated: mod.traits.concatenable })
  return runMachine(m, data, split)
}

/**
 * What random bytes follow so that they reach the engine with the dictionary loaded:
 * dcz/dcb's header (right hash), a zstd frame magic, a zlib header with FDICT and the
 * dictionary's DICTID (RFC 1950 section 2.2); raw deflate and brotli start at once.
 */
function entryFor(c: Case, dict: Uint8Array): Uint8Array {
  const zstdMagic = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd)
  const transport = (magic: number[]) => concatBytes([Uint8Array.from(magic), sha(dict)])
  switch (c.format) {
    case 'dcz':
      return concatBytes([transport([0x5e, 0x2a, 0x4d, 0x18, 0x20, 0, 0, 0]), zstdMagic])
    case 'dcb':
      return transport([0xff, 0x44, 0x43, 0x42])
    case 'zstd':
      return zstdMagic
    case 'deflate': {
      const id = adler32(dict)
      // CMF 78 (deflate, 32 KiB window); FLG with FDICT, level bits 2, FCHECK making CMF*256+FLG a multiple of 31.
      let flg = 0x20 | 0x80
      flg += 31 - ((0x78 * 256 + flg) % 31)
      return Uint8Array.of(0x78, flg, id >>> 24, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff)
    }
    default:
      return new Uint8Array(0)
  }
}

/** Wrong dictionaries: one byte changed, the last byte cut, another one, none. */
const wrongDictionary = fc.oneof(
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, x]) => ({
    kind: 'one byte changed',
    of: (d: Uint8Array) => {
      const w = d.slice()
      w[at % w.length]! ^= x
      return w
    },
  })),
  fc.constant({ kind: 'cut short', of: (d: Uint8Array) => d.slice(0, d.length - 1) }),
  fc.constant({ kind: 'another', of: (_: Uint8Array) => otherDictionary }),
  fc.constant({ kind: 'none', of: (_: Uint8Array): Uint8Array | undefined => undefined }),
)

/** How an outcome compares with the input, tallied per property. */
type Verdict = 'error' | 'intact' | 'different'
const verdictOf = (r: Uint8Array | CodecError, data: Uint8Array): Verdict => (r instanceof CodecError ? 'error' : same(r, data) ? 'intact' : 'different')
const tally = () => ({ error: 0, intact: 0, different: 0 }) satisfies Record<Verdict, number>
/** Error codes of the mutated-stream property, over every case. */
const codes = new Map<string, number>()
const count = (r: unknown) => {
  if (r instanceof CodecError) codes.set(r.code, (codes.get(r.code) ?? 0) + 1)
}

for (const c of cases) {
  let mod: CodecModule | null = null
  let why = c.dictionary === null ? 'no trained dictionary (needs the zstd CLI)' : ''
  if (!why) {
    try {
      mod = await loadCodec(c.format, c.engine)
      // The engine must take the dictionary (node:zlib's brotli and zstd need a recent Node).
      mod.createDecoder(codecOptions(c, c.dictionary!)).dispose()
    } catch (e) {
      mod = null
      why = (e as Error).message.split('\n')[0]!
    }
  }
  if (!mod) {
    console.log(`# skipped: fuzz ${c.label} (${why})`)
    test.skip(`fuzz ${c.label}`, () => {})
    continue
  }
  const m = mod
  const encoded = pool.map((data) => encodeWith(m, c, data))
  const dict = c.dictionary!

  test(`fuzz ${c.label}: every pool input round trips, and needs its dictionary`, () => {
    let needed = 0
    for (let k = 0; k < pool.length; k++) {
      const r = decodeWith(m, c, encoded[k]!, 7 + k, dict)
      assert.ok(!(r instanceof CodecError) && same(r, pool[k]!), `input ${k}: ${r instanceof CodecError ? r.message : 'different'}`)
      if (k < documents.length && verdictOf(decodeWith(m, c, encoded[k]!, 1 << 20, undefined), pool[k]!) !== 'intact') needed++
    }
    // The documents resemble the dictionary: their streams refer into it.
    assert.ok(needed >= documents.length / 2, `only ${needed} of ${documents.length} documents' streams need the dictionary`)
  })

  test(`fuzz ${c.label}: ${RUNS} mutated streams give the original or a CodecError`, () => {
    const v = tally()
    fc.assert(
      fc.property(fc.nat({ max: pool.length - 1 }), fc.oneof(...basicMutations), fc.integer({ min: 1, max: 64 }), (k, mutation, split) => {
        const r = decodeWith(m, c, mutation.apply(encoded[k]!), split, dict)
        count(r)
        const verdict = verdictOf(r, pool[k]!)
        v[verdict]++
        return verdict !== 'different' || !c.contentChecked
      }),
      { numRuns: RUNS, seed: 0xd1c + c.label.length },
    )
    console.log(`# fuzz ${c.label}: ${RUNS} mutated: ${v.error} CodecError, ${v.intact} intact, ${v.different} different without error${c.contentChecked ? '' : ' (no content checksum)'}`)
    assert.ok(v.error > RUNS / 4, `only ${v.error} errors`)
  })

  test(`fuzz ${c.label}: ${Math.round(RUNS / 4)} decodes with a wrong dictionary never give other bytes unchecked`, () => {
    const v = tally()
    fc.assert(
      fc.property(fc.nat({ max: pool.length - 1 }), wrongDictionary, fc.integer({ min: 1, max: 64 }), (k, wrong, split) => {
        const r = decodeWith(m, c, encoded[k]!, split, wrong.of(dict))
        const verdict = verdictOf(r, pool[k]!)
        v[verdict]++
        return verdict !== 'different' || !c.dictionaryChecked
      }),
      { numRuns: Math.round(RUNS / 4), seed: 0xbadd1c + c.label.length },
    )
    console.log(`# fuzz ${c.label}: ${Math.round(RUNS / 4)} wrong dictionaries: ${v.error} CodecError, ${v.intact} intact, ${v.different} different without error${c.dictionaryChecked ? '' : ' (nothing checks the dictionary)'}`)
    assert.ok(v.error > 0)
  })

  test(`fuzz ${c.label}: ${Math.round(RUNS / 4)} random bodies behind a valid header never crash or hang`, () => {
    const entry = entryFor(c, dict)
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.integer({ min: 1, max: 64 }), (body, split) => {
        const r = decodeWith(m, c, concatBytes([entry, body]), split, dict)
        count(r)
        return r instanceof CodecError || r.length <= MAX_OUT
      }),
      { numRuns: Math.round(RUNS / 4), seed: 0xe7 + c.label.length },
    )
  })

  test(`fuzz ${c.label}: one-shot decode() and decodeStream agree with the machine`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: pool.length - 1 }), fc.oneof(...basicMutations), fc.boolean(), fc.integer({ min: 1, max: 200 }), async (k, mutation, wrong, split) => {
        const bad = mutation.apply(encoded[k]!)
        const d = wrong ? otherDictionary : dict
        const options = { engine: c.engine, dictionary: d, maxOutputBytes: MAX_OUT }
        const machine = decodeWith(m, c, bad, split, d)
        for (const run of [() => oneShotDecode(c.format, bad, options), () => read(chunked(bad, split).pipeThrough(decodeStream(c.format, options)))]) {
          let r: Uint8Array | CodecError
          try {
            r = await run()
          } catch (e) {
            // Streams surface the CodecError itself (not the DecompressionStream TypeError).
            if (!(e instanceof CodecError)) throw e
            r = e
          }
          const verdict = verdictOf(r, pool[k]!)
          if (verdict === 'different' && (wrong ? c.dictionaryChecked : c.contentChecked)) return false
          // The same judgement as the machine's: an error there is an error here, with its code.
          if ((r instanceof CodecError) !== (machine instanceof CodecError)) return false
          if (r instanceof CodecError && machine instanceof CodecError && r.code !== machine.code) return false
        }
        return true
      }),
      { numRuns: Math.max(1, Math.round(RUNS / 20)), seed: 0x1d1c + c.label.length },
    )
  })
}

test('error codes of the mutated streams are input errors', () => {
  console.log(`# fuzz dictionaries: error codes of mutated streams: ${[...codes].map(([k, n]) => `${k} ${n}`).join(', ')}`)
  // Never INVALID_OPTION or ENGINE_UNAVAILABLE for bad input: those blame the caller.
  assert.ok(codes.size > 0)
  for (const code of codes.keys()) assert.ok(['INVALID_DATA', 'CHECKSUM_MISMATCH', 'TRUNCATED', 'TRAILING_DATA', 'LIMIT_EXCEEDED', 'UNSUPPORTED'].includes(code), code)
})

test.run()
