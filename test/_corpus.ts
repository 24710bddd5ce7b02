import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { binarySlice, filesCorpus } from '../bench/corpus.js'
import { root } from './_fixtures.js'

// The real-file corpora are the benches' own (bench/corpus.ts); the suites read them too.
export { binarySlice, filesCorpus }

/** Deterministic pseudo-random bytes (xorshift32), incompressible. */
export function randomBytes(n: number, seed = 0x9e3779b9): Uint8Array {
  const out = new Uint8Array(n)
  let x = seed | 0 || 1
  for (let i = 0; i < n; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

/** Named real samples used across codec tests. */
export function samples(): Array<[string, Uint8Array]> {
  return [
    ['empty', new Uint8Array(0)],
    ['one byte', new Uint8Array([42])],
    ['project source', new Uint8Array(readFileSync(join(root, 'lib/machine.ts')))],
    ['node_modules text 300 KB', filesCorpus(join(root, 'node_modules/typescript/lib'), 300_000, /\.d\.ts$/)],
    ['node binary 200 KB', binarySlice(4_000_000, 200_000)],
    ['random 70 KB', randomBytes(70_000)],
    ['zeros 1 MB', new Uint8Array(1 << 20)],
  ]
}

/** Two releases of one real file: the older one serves as the dictionary for the newer. */
export interface ReleasePair {
  name: string
  /** The older release (TypeScript 5.6's, a dependency of a dev tool). */
  dictionary: Uint8Array<ArrayBuffer>
  /** The newer release (the project's own TypeScript). */
  body: Uint8Array<ArrayBuffer>
}

const OLDER_TYPESCRIPT = join(root, 'node_modules/@arethetypeswrong/core/node_modules/typescript/lib')
const NEWER_TYPESCRIPT = join(root, 'node_modules/typescript/lib')

/**
 * `file` (e.g. `lib.es5.d.ts`) of the two TypeScript releases in node_modules, or null
 * when the older one is not installed (it comes with @arethetypeswrong/cli).
 */
export function releasePair(file: string): ReleasePair | null {
  try {
    return { name: file, dictionary: new Uint8Array(readFileSync(join(OLDER_TYPESCRIPT, file))), body: new Uint8Array(readFileSync(join(NEWER_TYPESCRIPT, file))) }
  } catch {
    return null
  }
}
