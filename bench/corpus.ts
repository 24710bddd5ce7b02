import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { binarySlice, filesCorpus } from '../test/_corpus.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const MB = Number(process.env.BENCH_MB ?? 16)

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
