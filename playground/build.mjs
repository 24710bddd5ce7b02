// Builds the playground page into playground/dist/ (or the folder given): a static
// folder any server can host (docs/playground.md). Not part of the package.
//
// The page is an app on top of the package: it imports the package's entry points
// (`sluice`, `sluice/inspect`) and the measuring core it shares with `sluice bench`
// (adapters/bench/). Both are bundled from the sources, so the page holds one copy of
// the library: `sluice` and `sluice/<entry>` resolve to the entries' sources
// (esbuild.config.mjs `entries`), the `#` imports as a browser bundler resolves them
// (esmTarget('browser'): Web Workers, fetched .wasm files copied beside the chunks).
// Entry points: the page (main.js), its worker (worker.js) and the library's pool worker
// (sluice-worker.js, for threads), sharing chunks, as docs/bundling.md says for esbuild.
//
//   node playground/build.mjs [outdir] [--no-minify]
import { build } from 'esbuild'
import { copyFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { entries, esmTarget, WORKER_ENTRY } from '../esbuild.config.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '..')

/** `sluice` and `sluice/<entry>` as the package's entry points, from their sources; anything else under `sluice/` is refused. */
const packageEntries = {
  name: 'sluice-entries',
  setup(b) {
    b.onResolve({ filter: /^sluice(\/|$)/ }, (args) => {
      const name = args.path === 'sluice' ? 'index' : args.path.slice('sluice/'.length)
      const source = Object.hasOwn(entries, name) ? entries[name] : undefined
      if (!source) return { errors: [{ text: `${args.path} is not an entry point of the package (esbuild.config.mjs entries)` }] }
      return { path: join(root, source) }
    })
  },
}

/** Builds the page into `outdir`; returns its files and their sizes. */
export async function buildPlayground(outdir = join(here, 'dist'), { minify = true } = {}) {
  const out = resolve(outdir)
  rmSync(out, { recursive: true, force: true })
  const target = esmTarget('browser', out)
  await build({
    ...target,
    entryPoints: { main: join(here, 'src/main.ts'), worker: join(here, 'src/worker.ts'), 'sluice-worker': join(root, WORKER_ENTRY) },
    plugins: [packageEntries, ...target.plugins],
    minify,
    logLevel: 'warning',
  })
  for (const file of ['index.html', 'style.css']) copyFileSync(join(here, file), join(out, file))
  return readdirSync(out).map((name) => ({ name, bytes: statSync(join(out, name)).size }))
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const outdir = args.find((a) => !a.startsWith('--')) ?? join(here, 'dist')
  const files = await buildPlayground(outdir, { minify: !args.includes('--no-minify') })
  const sum = (re) => files.filter((f) => re.test(f.name)).reduce((n, f) => n + f.bytes, 0)
  console.log(`playground: ${relative(process.cwd(), resolve(outdir)) || '.'}/index.html, ${files.filter((f) => f.name.endsWith('.js')).length} JavaScript files (${sum(/\.js$/)} bytes), ${files.filter((f) => f.name.endsWith('.wasm')).length} .wasm files (${sum(/\.wasm$/)} bytes); serve the folder with any static server`)
}
