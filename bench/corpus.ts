// The benches' inputs (real files from this checkout and the running node binary) and
// the streams around them. The test suites read their real samples through here too.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const MB = Number(process.env.BENCH_MB ?? 16)

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

/**
 * Real corpora of `BENCH_MB` MB each (default 16):
 * - `text`: TypeScript declaration and JavaScript files from node_modules;
 * - `json`: package.json files from node_modules;
 * - `binary`: the first bytes of the running node executable.
 */
export function corpus(name: string): Uint8Array {
  const n = MB * 1024 * 1024
  switch (name) {
    case 'text': {
      const out = filesCorpus(join(root, 'node_modules'), n, /\.(d\.ts|js)$/)
      return out
    }
    case 'json':
      return filesCorpus(join(root, 'node_modules'), n, /^package\.json$/)
    case 'binary':
      return binarySlice(0, Math.min(n, readFileSync(process.execPath).length))
    default:
      throw new Error(`unknown corpus ${name}`)
  }
}

/** Splits `data` into chunks of `size` bytes, as a network or file stream would deliver it. */
export function chunks(data: Uint8Array, size = 64 * 1024): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let i = 0; i < data.length; i += size) out.push(data.subarray(i, i + size))
  return out
}

/** A ReadableStream over pre-split chunks (each read hands out the next chunk). */
export function streamOf(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < parts.length) c.enqueue(parts[i++]!)
      else c.close()
    },
  }, { highWaterMark: 0 })
}

/** Reads a stream to the end; returns the byte count. */
export async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader()
  let n = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return n
    n += value.byteLength
  }
}

/** Every chunk of a stream, in order. */
export async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return out
    out.push(value)
  }
}

/**
 * The micro-benchmarks' text: the first `limit` bytes of the `.js` and `.d.ts` files
 * under node_modules (sorted, recursive; files of 4 MiB and more left out).
 */
export function nodeModulesText(limit: number): Uint8Array {
  const parts: Buffer[] = []
  let total = 0
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (total >= limit) return
      const p = join(dir, name)
      const st = statSync(p)
      if (st.isDirectory()) walk(p)
      else if (/\.(js|d\.ts)$/.test(name) && st.size < 4 * 2 ** 20) {
        const b = readFileSync(p)
        parts.push(b)
        total += b.length
      }
    }
  }
  // The bench's own packages follow when the root's run out (64 MiB inputs).
  for (const dir of [join(root, 'node_modules'), join(root, 'bench', 'node_modules')]) if (total < limit && existsSync(dir)) walk(dir)
  return new Uint8Array(Buffer.concat(parts).subarray(0, limit))
}

/**
 * Real small documents: the `package.json` files (or another file each package has,
 * such as `README.md`) of the packages in `node_modules` (top level and scoped, sorted
 * by path) whose size is in `[min, max]` bytes. They share their keys and much of their
 * vocabulary, as the small messages a dictionary is made for do
 * (bench/dictionary-sizes.ts, test/deflate-dictionary.test.ts).
 */
export function packageDocuments(min = 1_000, max = 50_000, file = 'package.json'): Array<{ name: string; bytes: Uint8Array }> {
  const dir = join(root, 'node_modules')
  const paths: string[] = []
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue
    if (name.startsWith('@')) for (const sub of readdirSync(join(dir, name)).sort()) paths.push(join(name, sub))
    else paths.push(name)
  }
  const docs: Array<{ name: string; bytes: Uint8Array }> = []
  for (const name of paths) {
    let bytes: Uint8Array
    try {
      bytes = readFileSync(join(dir, name, file))
    } catch {
      continue // not a package folder, or one without that file
    }
    if (bytes.length >= min && bytes.length <= max) docs.push({ name, bytes })
  }
  return docs
}

/**
 * Sibling files: those in `dir` itself (not below it, sorted by name) whose name matches
 * and whose size is in `[min, max]` bytes, e.g. the `.d.ts` files of one package.
 */
export function siblingDocuments(dir: string, match: RegExp, min = 1_000, max = 50_000): Array<{ name: string; bytes: Uint8Array }> {
  const docs: Array<{ name: string; bytes: Uint8Array }> = []
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (!match.test(name) || !statSync(path).isFile()) continue
    const bytes = readFileSync(path)
    if (bytes.length >= min && bytes.length <= max) docs.push({ name, bytes })
  }
  return docs
}
