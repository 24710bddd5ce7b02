// Task: an esbuild browser bundle. Bundles app.mjs as docs/bundling.md says (ESM,
// --splitting, the .wasm files copied beside it), writes index.html and a sample
// hello.txt.zst, and prints the JavaScript sizes. Serve the folder with any static
// server (Content-Security-Policy: script-src 'self' 'wasm-unsafe-eval') and open it.
//
//   node examples/esbuild-browser/build.mjs [outdir]     (default: examples/esbuild-browser/out)
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'
import { encode } from 'sluice'

const here = dirname(fileURLToPath(import.meta.url))
const outdir = resolve(process.argv[2] ?? join(here, 'out'))
rmSync(outdir, { recursive: true, force: true })

// esbuild --bundle --format=esm --splitting --minify --outdir=...
await esbuild.build({ entryPoints: [join(here, 'app.mjs')], bundle: true, format: 'esm', splitting: true, minify: true, platform: 'browser', outdir, logLevel: 'warning' })

// cp node_modules/sluice/dist/esm/wasm/*.wasm <outdir>/
const browserDist = join(dirname(createRequire(import.meta.url).resolve('sluice/package.json')), 'dist', 'esm', 'wasm')
const wasm = readdirSync(browserDist).filter((f) => f.endsWith('.wasm'))
for (const f of wasm) copyFileSync(join(browserDist, f), join(outdir, f))

writeFileSync(join(outdir, 'index.html'), '<!doctype html><html><head><meta charset="utf-8"><title>sluice + esbuild</title></head><body><p id="out">decoding...</p><script type="module" src="./app.js"></script></body></html>\n')
mkdirSync(outdir, { recursive: true })
writeFileSync(join(outdir, 'hello.txt.zst'), await encode('zstd', new TextEncoder().encode('hello from an esbuild bundle\n'.repeat(1000))))

const js = readdirSync(outdir).filter((f) => f.endsWith('.js'))
const bytes = js.reduce((n, f) => n + statSync(join(outdir, f)).size, 0)
// Every .wasm file the bundle names must be beside it.
const named = new Set(js.flatMap((f) => readFileSync(join(outdir, f), 'utf8').match(/[\w-]+\.wasm/g) ?? []))
const missing = [...named].filter((f) => !wasm.includes(f))
if (named.size === 0 || missing.length > 0) throw new Error(`the bundle names ${[...named].join(', ') || 'no .wasm file'}; not in ${browserDist}: ${missing.join(', ')}`)
console.log(`ok: ${outdir}: app.js ${statSync(join(outdir, 'app.js')).size} bytes, ${js.length} chunks ${bytes} bytes in all (loaded on demand), ${wasm.length} .wasm files copied`)
