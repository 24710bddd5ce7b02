// Task: compress a file with Node streams, then check it decodes back. Docs: docs/node.md.
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { decodeFile, nodeEncode } from 'sluice/node'

const dir = await mkdtemp(join(tmpdir(), 'sluice-example-'))
try {
  const input = join(dir, 'access.log')
  await writeFile(input, Array.from({ length: 100_000 }, (_, i) => `10.0.0.${i % 256} - - "GET /item/${i % 1000} HTTP/1.1" 200 ${i % 5000}\n`).join(''))
  for (const [format, suffix, level] of [['zstd', 'zst', 19], ['gzip', 'gz', 9], ['brotli', 'br', 9], ['lz4', 'lz4', 1]]) {
    const output = `${input}.${suffix}`
    await pipeline(createReadStream(input), nodeEncode(format, { level }), createWriteStream(output))
    const chunks = []
    for await (const chunk of await decodeFile(output, format)) chunks.push(chunk)
    if (!Buffer.concat(chunks).equals(await readFile(input))) throw new Error(`${format}: round trip differs`)
    console.log(`ok: ${format} level ${level}: ${(await stat(input)).size} -> ${(await stat(output)).size} bytes`)
  }
} finally {
  await rm(dir, { recursive: true })
}
