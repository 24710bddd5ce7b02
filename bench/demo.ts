// `npm run demo`: decodes real files through every codec stream and prints what went in,
// what came out, the ratio and the speed. Compressed inputs come from the reference
// implementations where this machine has them (node:zlib for gzip/deflate/brotli, the
// `zstd` and `lz4` command-line tools), else from this library's own encoder (said so).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as zlib from 'node:zlib'
import type { Format } from '../lib/codec.js'
import { decodeStream, encode } from '../streams/index.js'
import { binarySlice, chunks, root, streamOf } from './corpus.js'

const files: Array<[string, Uint8Array]> = [
  ['typescript/lib/lib.dom.d.ts', new Uint8Array(readFileSync(join(root, 'node_modules/typescript/lib/lib.dom.d.ts')))],
  ['node executable (first 8 MB)', binarySlice(0, 8 << 20)],
  ['package-lock.json', new Uint8Array(readFileSync(join(root, 'package-lock.json')))],
]

function cli(tool: string, args: string[], input: Uint8Array): Uint8Array | null {
  try {
    return new Uint8Array(execFileSync(tool, args, { input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'ignore'] }))
  } catch {
    return null
  }
}

async function pack(format: Format, raw: Uint8Array): Promise<[Uint8Array, string]> {
  switch (format) {
    case 'gzip':
      return [new Uint8Array(zlib.gzipSync(raw)), 'node:zlib']
    case 'deflate':
      return [new Uint8Array(zlib.deflateSync(raw)), 'node:zlib']
    case 'deflate-raw':
      return [new Uint8Array(zlib.deflateRawSync(raw)), 'node:zlib']
    case 'brotli':
      return [new Uint8Array(zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } })), 'node:zlib']
    case 'zstd': {
      const out = cli('zstd', ['-3', '-c', '-q'], raw)
      return out ? [out, 'zstd CLI'] : [await encode('zstd', raw), 'sluice (no zstd CLI here)']
    }
    case 'lz4': {
      const out = cli('lz4', ['-1', '-c', '-q'], raw)
      return out ? [out, 'lz4 CLI'] : [await encode('lz4', raw), 'sluice (no lz4 CLI here)']
    }
    default:
      throw new Error(format)
  }
}

const formats: Format[] = ['gzip', 'deflate', 'deflate-raw', 'brotli', 'zstd', 'lz4']
const rows: string[][] = [['format', 'file', 'compressed by', 'in', 'out', 'ratio', 'MB/s', 'check']]
let failures = 0
for (const format of formats) {
  for (const [name, raw] of files) {
    const [packed, by] = await pack(format, raw)
    const parts = chunks(packed)
    // Best of three runs: the first also pays for loading the engine.
    let out: Uint8Array[] = []
    let ms = Infinity
    let check = 'identical'
    for (let run = 0; run < 3 && check === 'identical'; run++) {
      out = []
      const t0 = performance.now()
      try {
        await streamOf(parts)
          .pipeThrough(decodeStream(format))
          .pipeTo(new WritableStream({ write: (c) => void out.push(c) }))
      } catch (e) {
        check = `ERROR ${(e as Error).message}`
      }
      ms = Math.min(ms, performance.now() - t0)
    }
    const total = out.reduce((n, c) => n + c.length, 0)
    if (check === 'identical') {
      let at = 0
      for (const c of out) {
        for (let i = 0; i < c.length; i++) if (c[i] !== raw[at + i]) check = `DIFFERS at ${at + i}`
        at += c.length
      }
      if (total !== raw.length) check = `LENGTH ${total} != ${raw.length}`
    }
    if (check !== 'identical') failures++
    rows.push([format, name, by, `${packed.length}`, `${total}`, `${(raw.length / packed.length).toFixed(2)}`, `${(raw.length / 1e6 / (ms / 1000)).toFixed(0)}`, check])
  }
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
for (const r of rows) console.log(r.map((c, i) => (i >= 3 && i <= 6 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  '))
console.log(`\n${rows.length - 1 - failures} streams decoded and verified, ${failures} failed (64 KiB input chunks; MB/s of output, best of 3 runs)`)
process.exitCode = failures ? 1 : 0
