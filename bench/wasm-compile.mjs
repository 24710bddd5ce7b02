// Time to compile and instantiate each given wasm engine in a fresh process (a user's
// first call pays it once): `WebAssembly.compile` of the file's bytes, then
// `WebAssembly.instantiate` with no imports and wasi-libc's `_initialize`. Each file is
// measured in N new processes; prints the median, min and max in ms.
//
// Usage: node bench/wasm-compile.mjs [N] file.wasm...
// e.g.   node bench/wasm-compile.mjs 15 lib/codecs/wasm/zstd-dec.wasm lib/codecs/wasm/zstd-enc.wasm
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const CHILD = `
const bytes = require('node:fs').readFileSync(process.argv[1])
const t0 = performance.now()
WebAssembly.compile(bytes).then(async (module) => {
  const t1 = performance.now()
  const instance = await WebAssembly.instantiate(module, {})
  instance.exports._initialize?.()
  console.log(JSON.stringify({ compile: t1 - t0, instantiate: performance.now() - t1 }))
})`

const args = process.argv.slice(2)
const n = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 15
const ms = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return `${sorted[sorted.length >> 1].toFixed(2)} ms (${sorted[0].toFixed(2)}–${sorted[sorted.length - 1].toFixed(2)})`
}
for (const file of args) {
  const runs = Array.from({ length: n }, () => JSON.parse(execFileSync(process.execPath, ['-e', CHILD, file], { encoding: 'utf8' })))
  console.log(`${file}: ${readFileSync(file).length} bytes; compile ${ms(runs.map((r) => r.compile))}, instantiate ${ms(runs.map((r) => r.instantiate))} (median (min–max) of ${n} processes)`)
}
