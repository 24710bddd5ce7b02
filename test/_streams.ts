// Small stream helpers the suites share: a WHATWG stream of fixed-size pieces, all of a
// readable's bytes, and a Node duplex run over one input.
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

/** All bytes a readable produces. */
export const read = async (readable: ReadableStream<Uint8Array>): Promise<Uint8Array> => new Uint8Array(await new Response(readable).arrayBuffer())

/** `data` as a stream of `n`-byte pieces (copies, so nothing aliases the input). */
export const chunked = (data: Uint8Array, n: number): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < data.length; i += n) c.enqueue(data.slice(i, i + n))
      c.close()
    },
  })

/** Cuts `bytes` into views of pseudo-random sizes from 1 to `most` (a fixed sequence per `seed`). */
export function randomChunks(bytes: Uint8Array, most: number, seed = 7): Uint8Array[] {
  const out: Uint8Array[] = []
  let x = seed
  for (let at = 0; at < bytes.length; ) {
    x = (x * 1103515245 + 12345) >>> 0
    const n = Math.min(bytes.length - at, 1 + (x % most))
    out.push(bytes.subarray(at, at + n))
    at += n
  }
  return out
}

/** What a Node duplex (e.g. `nodeDecode`) turns `input` into. */
export async function nodeRun(duplex: NodeJS.ReadWriteStream, input: Uint8Array): Promise<Uint8Array> {
  const parts: Buffer[] = []
  await pipeline(Readable.from([Buffer.from(input)]), duplex, async function* (source) {
    for await (const c of source) parts.push(c as Buffer)
  })
  return new Uint8Array(Buffer.concat(parts))
}
