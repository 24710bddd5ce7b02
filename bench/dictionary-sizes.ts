// Compressed sizes of small real documents (1-50 KB) without and with a dictionary, ours
// beside Node 26's node:zlib (test/node26, run as a child process: bench/_node26.ts)
// with the same dictionary at the same level: zstd (raw content), brotli (raw),
// deflate (zlib, FDICT), and RFC 9842's dcz and dcb (their 40- and 36-byte headers
// counted; Node 26 has no dcz/dcb, so its column is its zstd/brotli output plus the
// same header; their "without" is plain zstd/brotli, what a server sends otherwise).
//
// The documents come in families of similar files, each document compressed on its own:
// - siblings: package.json and README.md of the packages in node_modules, the .d.ts
//   files of @types/node and of typescript/lib; every 10th (by name) is concatenated
//   into the family's dictionary (the first 64 KiB of it), the others are the inputs;
// - versions (when ../shared/fixtures is present): arrow-testing's integration JSON files
//   as written by the C++ implementation 21.0.0, each with the same file as written for
//   1.0.0 as its dictionary (the delta case of RFC 9842).
// Inputs fall into size buckets 1-5, 5-20 and 20-50 KB. Each of our outputs is decoded
// back with the dictionary and checked. Prints the totals per bucket (all families) at
// two levels per format, then per family at the default levels, as ratios.
//
// Usage: node --import tsx bench/dictionary-sizes.ts
// (Node 26: npm ci --prefix test/node26; without it, only our columns are printed.)
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import { concatBytes } from './_bytes.js'
import { node26, node26Missing, type PeerJob } from './_node26.js'
import { packageDocuments, root, siblingDocuments } from './corpus.js'

const DICTIONARY_BYTES = 64 * 1024
const BUCKETS = [
  { name: '1-5 KB', min: 1_000, max: 5_000 },
  { name: '5-20 KB', min: 5_000, max: 20_000 },
  { name: '20-50 KB', min: 20_000, max: 50_001 },
] as const

interface Doc {
  family: string
  name: string
  bytes: Uint8Array
  dictionary: Uint8Array
}

/** Siblings: every 10th into the dictionary (its first 64 KiB), the others are inputs. */
function siblings(family: string, docs: Array<{ name: string; bytes: Uint8Array }>): Doc[] {
  const dictionary = concatBytes(docs.filter((_, k) => k % 10 === 0).map((d) => d.bytes)).slice(0, DICTIONARY_BYTES)
  return docs.filter((_, k) => k % 10 !== 0).map((d) => ({ family, name: d.name, bytes: d.bytes, dictionary }))
}

/** Versions: arrow-testing's cpp-21.0.0 integration JSON, each with its 1.0.0 version as the dictionary. */
function versions(): Doc[] {
  const dir = join(root, '..', 'shared', 'fixtures', 'arrow-testing', 'arrow-ipc-stream', 'integration')
  let names: string[]
  try {
    names = readdirSync(join(dir, 'cpp-21.0.0')).filter((n) => n.endsWith('.json.gz')).sort()
  } catch {
    console.log('- skipped: the versions family: ../shared/fixtures/arrow-testing not found')
    return []
  }
  const docs: Doc[] = []
  for (const name of names) {
    let old: Uint8Array
    try {
      old = new Uint8Array(gunzipSync(readFileSync(join(dir, '1.0.0-littleendian', name))))
    } catch {
      continue // no 1.0.0 version of this file
    }
    const bytes = new Uint8Array(gunzipSync(readFileSync(join(dir, 'cpp-21.0.0', name))))
    if (bytes.length >= 1_000 && bytes.length <= 50_000) docs.push({ family: 'arrow JSON, 21.0.0 vs 1.0.0', name, bytes, dictionary: old })
  }
  return docs
}

const nm = join(root, 'node_modules')
const docs: Doc[] = [
  ...siblings('package.json', packageDocuments()),
  ...siblings('README.md', packageDocuments(1_000, 50_000, 'README.md')),
  ...siblings('@types/node .d.ts', siblingDocuments(join(nm, '@types', 'node'), /\.d\.ts$/)),
  ...siblings('typescript/lib .d.ts', siblingDocuments(join(nm, 'typescript', 'lib'), /\.d\.ts$/)),
  ...versions(),
]

/** A format at a level: how we encode it, and what Node 26 runs for the same bytes. */
interface Codec {
  format: 'zstd' | 'brotli' | 'deflate' | 'dcz' | 'dcb'
  level: number
  /** The Node 26 op that makes the payload, and the header bytes we add to it. */
  op: PeerJob['op']
  header: number
  /** The format of the no-dictionary column. */
  plain: 'zstd' | 'brotli' | 'deflate'
}
const codec = (format: Codec['format'], level: number): Codec => {
  const plain = format === 'dcz' ? 'zstd' : format === 'dcb' ? 'brotli' : format
  return { format, level, plain, op: plain === 'zstd' ? 'zstdCompress' : plain === 'brotli' ? 'brotliCompress' : 'deflate', header: format === 'dcz' ? 40 : format === 'dcb' ? 36 : 0 }
}
const DEFAULTS = [codec('zstd', 3), codec('brotli', 5), codec('deflate', 6), codec('dcz', 3), codec('dcb', 5)]
const CODECS = [codec('zstd', 3), codec('zstd', 19), codec('brotli', 5), codec('brotli', 11), codec('deflate', 6), codec('deflate', 9), codec('dcz', 3), codec('dcz', 19), codec('dcb', 5), codec('dcb', 11)]
const key = (c: Codec): string => `${c.format} ${c.level}`

/** Sizes of one document under one codec: ours and Node 26's, without and with. */
interface Sizes {
  ours: [without: number, withDictionary: number]
  node: [without: number, withDictionary: number] | null
}
const sizes = new Map<Doc, Map<string, Sizes>>()

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0
for (const doc of docs) {
  const perCodec = new Map<string, Sizes>()
  for (const c of CODECS) {
    const without = await encode(c.plain, doc.bytes, { level: c.level })
    const withDictionary = await encode(c.format, doc.bytes, { level: c.level, dictionary: doc.dictionary })
    if (!same(await decode(c.format, withDictionary, { dictionary: doc.dictionary }), doc.bytes)) throw new Error(`${key(c)}: ${doc.family} ${doc.name} does not decode back`)
    perCodec.set(key(c), { ours: [without.length, withDictionary.length], node: null })
  }
  sizes.set(doc, perCodec)
}

const missing = node26Missing()
let nodeVersion = 'Node 26 not run'
if (missing) console.log(`- Node 26 columns left out: ${missing}`)
else {
  // One Node 26 process per codec, over every document, without and with the dictionary.
  for (const c of CODECS) {
    const jobs = docs.flatMap((d): PeerJob[] => [
      { op: c.op, data: d.bytes, level: c.level },
      { op: c.op, data: d.bytes, level: c.level, dictionary: d.dictionary },
    ])
    const { versions: v, results } = node26(jobs)
    nodeVersion = `Node ${v.node} (zstd ${v.zstd}, brotli ${v.brotli}, zlib ${v.zlib})`
    for (const [k, d] of docs.entries()) {
      const [a, b] = [results[2 * k]!, results[2 * k + 1]!]
      if (a.error || b.error) throw new Error(`Node 26 ${c.op}: ${(a.error ?? b.error)!.message}`)
      sizes.get(d)!.get(key(c))!.node = [a.out.length, b.out.length + c.header]
    }
  }
}

const families = [...new Set(docs.map((d) => d.family))]
console.log(`- ${docs.length} documents, each compressed on its own; ours (wasm engines) beside ${nodeVersion}, same dictionary, same level`)
console.log("- our zstd frames carry the content checksum (4 bytes a frame, our default), node:zlib's do not")
for (const f of families) {
  const of = docs.filter((d) => d.family === f)
  const dictionaries = new Set(of.map((d) => d.dictionary))
  const dictBytes = [...dictionaries].reduce((n, d) => n + d.length, 0)
  console.log(`- ${f}: ${of.length} documents, ${of.reduce((n, d) => n + d.bytes.length, 0)} bytes; ${dictionaries.size === 1 ? `one dictionary of ${dictBytes} bytes` : `a dictionary each, ${Math.round(dictBytes / dictionaries.size)} bytes on average`}`)
}

const sum = (xs: number[]): number => xs.reduce((n, x) => n + x, 0)
const ratio = (a: number, b: number): string => (a / b).toFixed(3)
function row(label: string, group: Doc[], c: Codec): string {
  const s = group.map((d) => sizes.get(d)!.get(key(c))!)
  const input = sum(group.map((d) => d.bytes.length))
  const ours = [sum(s.map((x) => x.ours[0])), sum(s.map((x) => x.ours[1]))] as const
  const node = s.every((x) => x.node) ? ([sum(s.map((x) => x.node![0])), sum(s.map((x) => x.node![1]))] as const) : null
  const n = node ? `${node[0]} | ${node[1]} | ${ratio(node[1], node[0])} | ${ratio(ours[1], node[1])}` : '— | — | — | —'
  return `| ${label} | ${group.length} | ${input} | ${c.format} | ${c.level} | ${ours[0]} | ${ours[1]} | ${ratio(ours[1], ours[0])} | ${n} |`
}
const HEAD = '| documents | n | input bytes | format | level | ours without | ours with | ours with / without | Node 26 without | Node 26 with | Node 26 with / without | ours with / Node 26 with |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|'

console.log('\n## by size, all families')
console.log(HEAD)
for (const b of BUCKETS) {
  const group = docs.filter((d) => d.bytes.length >= b.min && d.bytes.length < b.max)
  if (group.length) for (const c of CODECS) console.log(row(b.name, group, c))
}
console.log('\n## by family, all sizes, default levels')
console.log(HEAD)
for (const f of families) for (const c of DEFAULTS) console.log(row(f, docs.filter((d) => d.family === f), c))
