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

/** What a Node duplex (e.g. `nodeDecode`) turns `input` into. */
export async function nodeRun(duplex: NodeJS.ReadWriteStream, input: Uint8Array): Promise<Uint8Array> {
  const parts: Buffer[] = []
  await pipeline(Readable.from([Buffer.from(input)]), duplex, async function* (source) {
    for await (const c of source) parts.push(c as Buffer)
  })
  return new Uint8Array(Buffer.concat(parts))
}
