// Compressed sizes of small real documents with and without a preset dictionary: the
// package.json files in node_modules (1-50 KB each, bench/corpus.ts packageDocuments).
// Every 10th of them (sorted by path) is concatenated into the dictionary; the others
// are compressed one by one, each as its own stream, by our encoders (engine 'js' =
// 'wasm': fflate; engine 'node': node:zlib) at levels 1, 6 and 9, for 'deflate' (zlib
// with FDICT) and 'deflate-raw' (preset window). Each output is decoded back with the
// same dictionary and checked. Prints the total of the outputs, the median document,
// and the ratio with / without.
//
// Usage: node --import tsx bench/dictionary-sizes.ts [every, default 10]
import { decode, encode } from '../lib/oneshot.js'
import type { Engine } from '../lib/formats.js'
import { concatBytes } from './_bytes.js'
import { packageDocuments } from './corpus.js'

const every = Number(process.argv[2] ?? 10)
const docs = packageDocuments()
const dictionary = concatBytes(docs.filter((_, k) => k % every === 0).map((d) => d.bytes))
const sample = docs.filter((_, k) => k % every !== 0)
const inputBytes = sample.reduce((n, d) => n + d.bytes.length, 0)
console.log(
  `# ${sample.length} documents (${inputBytes} bytes, ${Math.min(...sample.map((d) => d.bytes.length))}-${Math.max(...sample.map((d) => d.bytes.length))} each); ` +
    `dictionary: ${docs.length - sample.length} others concatenated, ${dictionary.length} bytes`,
)

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, k) => x === b[k])

console.log('| format | engine | level | total without | total with | with / without | median doc without | median doc with |')
console.log('|---|---|---|---:|---:|---:|---:|---:|')
for (const format of ['deflate', 'deflate-raw'] as const) {
  for (const engine of ['js', 'node'] as Engine[]) {
    for (const level of [1, 6, 9]) {
      const plain: number[] = []
      const primed: number[] = []
      for (const { name, bytes } of sample) {
        const a = await encode(format, bytes, { engine, level })
        const b = await encode(format, bytes, { engine, level, dictionary })
        if (!same(await decode(format, b, { dictionary }), bytes)) throw new Error(`${format} ${engine} ${level}: ${name} does not decode back`)
        plain.push(a.length)
        primed.push(b.length)
      }
      const sum = (xs: number[]) => xs.reduce((n, x) => n + x, 0)
      const without = sum(plain)
      const withDict = sum(primed)
      console.log(`| ${format} | ${engine} | ${level} | ${without} | ${withDict} | ${(withDict / without).toFixed(3)} | ${median(plain)} | ${median(primed)} |`)
    }
  }
}
