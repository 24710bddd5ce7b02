// What every fuzz suite feeds its codecs: plain data to encode, and the byte mutations
// applied to valid inputs (bit flips, truncations, insertions, deletions, swapped halves
// and junk after the end).
import fc from 'fast-check'
import { concatBytes as join } from './_bytes.js'

/** Plain data with structure (runs, repeats) so encoders produce matches, not only literals. */
export const plainData = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 200 })), { maxLength: 20 }).map((runs) => {
    const out: number[] = []
    for (const [v, n] of runs) for (let i = 0; i < n; i++) out.push((v + (i % 3)) & 0xff)
    return new Uint8Array(out)
  }),
  fc.string({ maxLength: 400 }).map((s) => new TextEncoder().encode(s.repeat(3))),
)

export type Mutation = { kind: string; apply(b: Uint8Array, anchors?: readonly number[]): Uint8Array }

export const basicMutations: Array<fc.Arbitrary<Mutation>> = [
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })).map(([at, bit]) => ({
    kind: 'bit flip',
    apply: (b: Uint8Array) => {
      const c = b.slice()
      if (c.length) c[at % c.length]! ^= 1 << bit
      return c
    },
  })),
  fc.nat().map((at) => ({ kind: 'truncation', apply: (b: Uint8Array) => b.slice(0, b.length ? at % b.length : 0) })),
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, v]) => ({
    kind: 'insertion',
    apply: (b: Uint8Array) => {
      const i = b.length ? at % (b.length + 1) : 0
      return join([b.subarray(0, i), Uint8Array.of(v), b.subarray(i)])
    },
  })),
  fc.nat().map((at) => ({
    kind: 'deletion',
    apply: (b: Uint8Array) => {
      if (!b.length) return b
      const i = at % b.length
      return join([b.subarray(0, i), b.subarray(i + 1)])
    },
  })),
  fc.nat().map((at) => ({
    kind: 'swapped halves',
    apply: (b: Uint8Array) => {
      const i = b.length ? at % b.length : 0
      return join([b.subarray(i), b.subarray(0, i)])
    },
  })),
  fc.uint8Array({ minLength: 1, maxLength: 16 }).map((junk) => ({ kind: 'junk after the end', apply: (b: Uint8Array) => join([b, junk]) })),
]
