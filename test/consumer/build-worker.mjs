// Bundles worker.mjs as wrangler does (its esbuild, the `workerd` condition, and its
// CompiledWasm rule: each imported .wasm becomes a module of its own), into the folder
// given; prints the .wasm module names, one a line, for the workerd config.
// Usage: node build-worker.mjs <outdir>
import { build } from 'esbuild'
import { copyFileSync, mkdirSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'

const outdir = resolve(process.argv[2])
const wasm = new Set()
mkdirSync(outdir, { recursive: true })
await build({
  entryPoints: { worker: 'worker.mjs' },
  bundle: true,
  format: 'esm',
  splitting: true,
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['browser', 'module', 'main'],
  outdir,
  logLevel: 'error',
  plugins: [
    {
      name: 'compiled-wasm',
      setup(b) {
        b.onResolve({ filter: /\.wasm$/ }, (args) => {
          const file = resolve(args.resolveDir, args.path)
          copyFileSync(file, join(outdir, basename(file)))
          wasm.add(basename(file))
          return { path: `./${basename(file)}`, external: true }
        })
      },
    },
  ],
})
console.log([...wasm].join('\n'))
