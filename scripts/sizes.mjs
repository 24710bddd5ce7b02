// Bundle sizes per entry point, as a user's bundler would ship them for browsers: the
// package's build with its `#` imports resolved by the `browser` conditions
// (esbuild.config.mjs esmTarget), minified, code-split; min+gzip bytes of each output
// file (each file is compressed on its own, as a server sends it), summed over what loads.
//
//   initial   the entry and the chunks it imports statically (loaded up front)
//   <format>  what the first use of a codec adds (its lazily imported chunk and the
//             chunks that one imports, minus what is loaded already)
//
// Also measures "gzip-only": a module importing only the deflate-family factories
// from the root entry, with its default gzip codec loaded (the budget: test/bundle-size.test.ts), and
// lists which source files that user loads, so a test can check that no zstd/brotli/
// wasm module is among them.
//
// Usage: node scripts/sizes.mjs   (prints a table; the test is test/bundle-size.test.ts)
import { build } from 'esbuild'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { esmTarget } from '../esbuild.config.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** The deflate-family user: imports nothing else from the root entry. */
const GZIP_ONLY = `export { gzipDecode, gzipEncode, deflateDecode, deflateEncode, deflateRawDecode, deflateRawEncode } from './streams/index.ts'\n`

const codecSources = {
  gzip: 'lib/codecs/inflate-wasm.ts', // the default engine (wasm); 'js' is lib/codecs/deflate-js.ts
  lz4: 'lib/codecs/lz4.ts',
  zstd: 'lib/codecs/zstd.ts',
  brotli: 'lib/codecs/brotli.ts',
}

export async function measureSizes() {
  const base = esmTarget('browser', join(root, '.tmp', 'sizes'))
  const virtualEntry = {
    name: 'sluice-gzip-only-entry',
    setup(b) {
      b.onResolve({ filter: /^sluice-gzip-only$/ }, () => ({ path: 'gzip-only', namespace: 'sluice-virtual' }))
      b.onLoad({ filter: /.*/, namespace: 'sluice-virtual' }, () => ({ contents: GZIP_ONLY, loader: 'ts', resolveDir: root }))
    },
  }
  // The package's entries together (shared chunks as a user importing several gets them),
  // and the gzip-only user alone (otherwise chunks shared with other entries blur it).
  const all = await analyze(base, base.entryPoints, [])
  const alone = await analyze(base, { 'gzip-only': 'sluice-gzip-only' }, [virtualEntry])
  const gzipOnly = alone.rows[0]
  const gzipLoaded = new Set([...gzipOnly.files, ...(gzipOnly.codecs.gzip?.files ?? [])])
  return {
    rows: [...all.rows, gzipOnly],
    gzipOnly: {
      gzip: gzipOnly.gzip + (gzipOnly.codecs.gzip?.gzip ?? 0),
      min: gzipOnly.min + (gzipOnly.codecs.gzip?.min ?? 0),
      // The same files gzipped as one (what a size badge over one concatenated bundle shows).
      joinedGzip: gzipSync(Buffer.concat([...gzipLoaded].map((p) => alone.bytesOf(p))), { level: 9 }).length,
      sources: alone.sources(gzipLoaded),
      codecLoaded: Boolean(gzipOnly.codecs.gzip),
    },
  }
}

async function analyze(base, entryPoints, plugins) {
  const result = await build({ ...base, entryPoints, minify: true, sourcemap: false, write: false, metafile: true, plugins: [...plugins, ...base.plugins], logLevel: 'error' })
  const outputs = result.metafile.outputs
  const files = new Map(result.outputFiles.map((f) => [f.path, f.contents]))
  const bytesOf = (p) => files.get(resolve(root, p)) ?? new Uint8Array(0)
  const gz = (p) => gzipSync(bytesOf(p), { level: 9 }).length
  const min = (p) => bytesOf(p).length

  /** Output files loaded when `start` loads: itself and its static imports, transitively. */
  const closure = (start, have = new Set()) => {
    const todo = [start]
    const got = new Set()
    while (todo.length) {
      const p = todo.pop()
      if (have.has(p) || got.has(p)) continue
      got.add(p)
      for (const imp of outputs[p]?.imports ?? []) if (imp.kind === 'import-statement' && !imp.external) todo.push(imp.path)
    }
    return got
  }
  const chunkOf = (source) => Object.keys(outputs).find((p) => p.endsWith('.js') && (outputs[p].inputs[source]?.bytesInOutput ?? 0) > 0)
  const sum = (set, f) => [...set].reduce((n, p) => n + f(p), 0)

  const rows = []
  for (const [name, source] of Object.entries(entryPoints)) {
    const want = source === 'sluice-gzip-only' ? 'sluice-virtual:gzip-only' : source
    const out = Object.keys(outputs).find((p) => outputs[p].entryPoint === want)
    if (!out) continue
    const initial = closure(out)
    const row = { entry: name, files: initial, min: sum(initial, min), gzip: sum(initial, gz), codecs: {} }
    for (const [format, codecSource] of Object.entries(codecSources)) {
      const chunk = chunkOf(codecSource)
      // Only codecs this entry can reach through a dynamic import.
      const reachable = chunk && [...initial].some((p) => (outputs[p].imports ?? []).some((i) => i.kind === 'dynamic-import' && closure(i.path).has(chunk)))
      if (!reachable) continue
      const added = closure(chunk, initial)
      row.codecs[format] = { files: added, min: sum(added, min), gzip: sum(added, gz) }
    }
    rows.push(row)
  }
  const sources = (set) => [...set].flatMap((p) => Object.entries(outputs[p].inputs).filter(([, i]) => i.bytesInOutput > 0).map(([n]) => n))
  return { rows, bytesOf, sources }
}

export function printSizes({ rows, gzipOnly }) {
  console.log('bundle sizes (bundled for browsers, minified; bytes min / min+gzip, each file gzipped alone):')
  for (const r of rows) {
    const codecs = Object.entries(r.codecs).map(([f, c]) => `${f} +${c.min}/+${c.gzip}`).join(', ')
    console.log(`  ${r.entry}: initial ${r.min} / ${r.gzip}${codecs ? `; first use adds ${codecs}` : ''}`)
  }
  if (gzipOnly) {
    console.log(`  gzip-only import with its codec loaded: ${gzipOnly.min} / ${gzipOnly.gzip} bytes min / min+gzip (code-split files, each gzipped)`)
    console.log(`  the same files gzipped together: ${gzipOnly.joinedGzip} bytes`)
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) printSizes(await measureSizes())
