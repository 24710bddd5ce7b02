// The consumer test's cases of sluice/node (Node, Deno, Bun only): [name, fn] pairs
// for cases.mjs's `run(..., extra)`.
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'

export const nodeCases = (node) => [
  [
    'sluice/node: nodeEncode/nodeDecode zstd round trip',
    async ({ plain, equal, check }) => {
      const packed = await buffer(Readable.from([plain]).pipe(node.nodeEncode('zstd')))
      check(equal(new Uint8Array(await buffer(Readable.from([packed]).pipe(node.nodeDecode('zstd')))), plain), 'decoded bytes differ')
    },
  ],
]
