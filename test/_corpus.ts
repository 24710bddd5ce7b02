import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { root } from './_fixtures.js'

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

/** The first `n` bytes of real files under `dir` (sorted, recursive), concatenated. */
export function filesCorpus(dir: string, n: number, match = /\.(js|ts|json|md)$/): Uint8Array {
  const out = new Uint8Array(n)
  let at = 0
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (at >= n) return
      const p = join(d, name)
      const st = statSync(p)
      if (st.isDirectory()) walk(p)
      else if (match.test(name)) {
        const b = readFileSync(p)
        const k = Math.min(b.length, n - at)
        out.set(b.subarray(0, k), at)
        at += k
      }
    }
  }
  walk(dir)
  return out.subarray(0, at)
}

/** A slice of the running node binary: real machine code and data. */
export function binarySlice(offset: number, n: number): Uint8Array {
  const b = readFileSync(process.execPath)
  return new Uint8Array(b.buffer, b.byteOffset + Math.min(offset, b.length - n), n)
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
