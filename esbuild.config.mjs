// Builds dist/: one JavaScript build that Node, Deno, Bun, browsers (through a bundler)
// and workerd (through wrangler) all run. What differs between runtimes is chosen by
// package.json `imports` conditions, never by probing or patching globals at run time:
//
//   dist/esm/       ESM, code-split: each engine is its own chunk, loaded by dynamic
//                   import() on first use. Every `exports` condition but `require` points
//                   here. Its modules reach the runtime-specific parts through `#`
//                   specifiers that the published package.json maps by condition
//                   (runtimeImports; Node, Deno, Bun, esbuild, wrangler, webpack 5, Vite
//                   and Rollup all resolve them):
//                     #worker-host     workerd: no workers; node: node:worker_threads
//                                      (Deno and Bun set `node` too); default: Web Workers
//                     #node-engine     node: node:zlib; default: a module that refuses to load
//                     #wasm/<engine>   how an engine's `.wasm` loads; the files ship once, in
//                                      dist/esm/wasm/ beside these modules. workerd: imported
//                                      as a module (it refuses to compile bytes; wrangler's
//                                      rule makes it a CompiledWasm module); node: read from
//                                      disk; default (browsers): fetched from
//                                      `new URL('./x.wasm', import.meta.url)`, the pattern
//                                      Vite and webpack 5 rewrite, and compiled while it
//                                      downloads. The small kernels (inflate, LZ4, Snappy: a
//                                      few kB) stay base64 in the JavaScript but in workerd.
//   dist/cjs/       `require()`: per entry, a file of a few lines that require()s the ESM
//                   entry (require(esm): Node 20.19+ and 22.12+, Bun), so CommonJS users get
//                   the same modules, not a second copy (buildCjs).
//   dist/types/     .d.ts (tsc); for each entry a small .d.cts, `require` consumers' view of
//                   the same declarations (cjsDeclarations).
//   dist/bin/       the `sluice` command: a shebang file importing dist/esm/cli.js.
//
// The repository's package.json maps the same `#` specifiers to the TypeScript sources
// (for tsx, the tests and tsc). The build turns that map into the built one (each
// source a condition names becomes an entry of the build; each large engine gets a
// generated loader per runtime), which scripts/publish-manifest.mjs puts in the
// published package.json and buildEsm in dist/esm/package.json, so that a checkout's
// dist/ runs as the published package does.
//
// esmTarget(runtime) builds what a user's bundler makes of the package for one runtime
// (the `#` specifiers resolved by its conditions), for the size check and the tests.
//
//   node esbuild.config.mjs          build everything
//   node esbuild.config.mjs --sizes  also print min+gzip bytes per entry point
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(fileURLToPath(import.meta.url))

/**
 * Entry points: name -> source. Every source must exist: a missing one would drop its
 * `exports` target from the package without a word, so it stops the build (below).
 */
export const entries = {
  index: 'index.ts',
  fetch: 'adapters/fetch/index.ts',
  arrow: 'adapters/arrow/index.ts',
  parquet: 'lib/parquet/index.ts',
  inspect: 'lib/inspect/index.ts',
  hyparquet: 'adapters/hyparquet/index.ts',
  node: 'adapters/node/index.ts',
  hono: 'adapters/hono/index.ts',
}
/** The command-line tool (package.json `bin`): an entry of the ESM build, see buildCli. */
export const cliEntry = 'adapters/node/cli/main.ts'

/** Entries that only make sense in Node (node:stream, node:fs). */
const nodeOnly = new Set(['node'])

const missing = Object.entries(entries).filter(([, file]) => !existsSync(join(root, file)))
if (missing.length > 0) {
  throw new Error(`esbuild.config.mjs: entry point source missing: ${missing.map(([name, file]) => `${name} -> ${file}`).join(', ')}; restore the file or remove the entry (and its package.json exports)`)
}
const portable = Object.fromEntries(Object.entries(entries).filter(([name]) => !nodeOnly.has(name)))

export const common = {
  bundle: true,
  target: 'es2022',
  // No source maps in the package: they would point at sources it does not ship (or
  // carry them, generated base64 included, as sourcesContent).
  sourcemap: false,
  legalComments: 'none',
  // Peers and runtime modules stay imports; everything else is bundled.
  external: ['apache-arrow', 'hyparquet', 'hono', 'node:*'],
  logLevel: 'warning',
  absWorkingDir: root,
  // Neutral: the bundled dependency (fflate) resolves as it does for every runtime (its
  // `import` build), and no runtime's conditions leak into it; our own runtime choices
  // are the `#` imports (runtimeImports).
  platform: 'neutral',
  mainFields: ['module', 'main'],
  format: 'esm',
  splitting: true,
  chunkNames: '[name]-[hash]',
}

/**
 * Our own kernels of a few kB (inflate 2 kB, its marker kernel for parallel decoding 2
 * kB, LZ4 3.5 kB, LZ4 HC 4 kB, Snappy 2 kB), embedded as base64 for every runtime but
 * workerd: a few kB inline cost less than a request, and no runtime or bundler has to
 * know about a file for the default deflate-family, LZ4 and Snappy engines (LZ4 HC is a
 * chunk of its own, loaded by LZ4 levels 3 to 12 only; the marker kernel one of the
 * parallel inflate's, loaded with `threads`). The large engines (zstd, brotli, zlib-ng:
 * 56 to 841 kB) ship once, as a `.wasm` file.
 */
export const EMBEDDED = new Set(['inflate', 'inflate-markers', 'lz4', 'lz4hc', 'snappy'])

/** The engines, each with a `lib/codecs/wasm/<engine>-wasm-source.ts` (its `#wasm/<engine>` import's portable default). */
export function wasmEngines() {
  return readdirSync(join(root, 'lib', 'codecs', 'wasm'))
    .map((f) => /^([\w-]+)-wasm-source\.ts$/.exec(f)?.[1])
    .filter(Boolean)
    .sort()
}

/** The engine's `.wasm` named by a `*-wasm-source.ts` module: its `./<path>.b64.js` import, with `.wasm` for `.b64.js`. */
export function wasmFileOf(sourcePath) {
  const text = readFileSync(sourcePath, 'utf8')
  const fn = /export async function (\w+)\s*\(/.exec(text)?.[1]
  const b64 = /['"](\.{1,2}\/[\w./-]+)\.b64\.js['"]/.exec(text)?.[1]
  if (!fn || !b64) throw new Error(`${sourcePath}: expected 'export async function <name>()' importing './<path>.b64.js'`)
  const wasm = resolve(dirname(sourcePath), `${b64}.wasm`)
  if (!existsSync(wasm)) throw new Error(`${wasm} is missing: run npm run prepare (scripts/extract-wasm.mjs, scripts/build-wasm-kernels.mjs)`)
  return { fn, wasm, file: basename(wasm) }
}

/** Where an engine's portable default lives, as the repository's `#wasm/*` import names it. */
const WASM_SOURCES = './lib/codecs/wasm/*-wasm-source.ts'

/** The conditions a bundler or runtime of each kind sets (esmTarget); in a map, the first key among them wins, as in Node. */
export const RUNTIME_CONDITIONS = {
  node: ['node', 'import', 'default'],
  browser: ['browser', 'import', 'default'],
  // wrangler's esbuild: `workerd`, `worker`, `browser`.
  workerd: ['workerd', 'worker', 'browser', 'import', 'default'],
}

/**
 * The package's runtime choices: each `#` specifier -> its [condition, target] pairs in
 * the order a resolver tries them. A target is `{ name, source }`, a module of the
 * repository built as an entry (`name` is its file in dist/esm, without `.js`), or
 * `{ name, engine, load }`, an engine's generated loader (`load`: 'import' | 'read' |
 * 'fetch', see loaderSource). From the repository's package.json `imports` (sources,
 * `types` left out) and, for `#wasm/<engine>`, from the engines and EMBEDDED.
 */
export function runtimeImports(imports = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).imports ?? {}) {
  if (imports['#wasm/*'] !== WASM_SOURCES) throw new Error(`package.json imports['#wasm/*'] must be ${JSON.stringify(WASM_SOURCES)} (the engines' portable defaults, which the build replaces per runtime)`)
  const table = {}
  for (const [specifier, map] of Object.entries(imports)) {
    if (specifier === '#wasm/*') continue
    if (specifier.includes('*')) throw new Error(`package.json imports: ${specifier}: only #wasm/* may be a pattern (esbuild.config.mjs runtimeImports)`)
    const pairs = typeof map === 'string' ? [['default', map]] : Object.entries(map).filter(([condition]) => condition !== 'types')
    table[specifier] = pairs.map(([condition, source]) => [condition, { name: `${specifier.slice(1)}.${condition}`, source: source.replace(/^\.\//, '') }])
  }
  for (const engine of wasmEngines()) {
    const name = (condition) => `wasm/${engine}.${condition}`
    table[`#wasm/${engine}`] = EMBEDDED.has(engine)
      ? [
          ['workerd', { name: name('workerd'), engine, load: 'import' }],
          ['default', { name: name('default'), source: WASM_SOURCES.slice(2).replace('*', engine) }],
        ]
      : [
          ['workerd', { name: name('workerd'), engine, load: 'import' }],
          ['node', { name: name('node'), engine, load: 'read' }],
          ['default', { name: name('default'), engine, load: 'fetch' }],
        ]
  }
  return table
}

/**
 * The built package's `imports`: the runtimeImports table with each target's file in
 * dist/esm, as seen from `base` ('./dist/esm/' for the published package.json,
 * scripts/publish-manifest.mjs; './' for the repository's dist/esm/package.json).
 */
export function distImports(base, table = runtimeImports()) {
  return Object.fromEntries(Object.entries(table).map(([specifier, pairs]) => [specifier, Object.fromEntries(pairs.map(([condition, t]) => [condition, `${base}${t.name}.js`]))]))
}

/** Every engine a build took in (embedded or as a file): `.wasm` name -> its source path, for the notices. */
const shipped = new Map()

/**
 * An engine's loader for one runtime, from its `*-wasm-source.ts` (whose exported
 * function it keeps): the `.wasm` is `./<file>` beside the loader, in dist/esm/wasm/ (or,
 * in esmTarget's bundles, beside the chunks, where users copy the files).
 *
 * 'import' (workerd): `import wasmModule from './x.wasm'`, left for wrangler / workerd.
 * 'read' (Node, Deno, Bun): build/wasm-read.ts reads the file beside import.meta.url.
 * 'fetch' (browsers): build/wasm-fetch.ts fetches `new URL('./x.wasm', import.meta.url)`,
 *   written out here so that bundlers see the pattern they rewrite.
 */
function loaderSource(engine, load) {
  const { fn, wasm, file } = wasmFileOf(join(root, 'lib', 'codecs', 'wasm', `${engine}-wasm-source.ts`))
  shipped.set(file, wasm)
  const format = JSON.stringify(file.replace(/[-.].*$/, ''))
  const url = JSON.stringify(`./${file}`)
  const head = `// #wasm/${engine} for ${{ import: 'workerd', read: 'Node, Deno and Bun', fetch: 'browsers' }[load]}: generated by esbuild.config.mjs from lib/codecs/wasm/${engine}-wasm-source.ts.\n`
  if (load === 'import') return `${head}import wasmModule from ${url}\nexport async function ${fn}() {\n  return wasmModule\n}\n`
  const helper = JSON.stringify(join(root, 'build', load === 'read' ? 'wasm-read.ts' : 'wasm-fetch.ts'))
  if (load === 'read') return `${head}import { readWasm } from ${helper}\nexport async function ${fn}() {\n  return readWasm(${format}, ${JSON.stringify(file)}, new URL(${url}, import.meta.url))\n}\n`
  return `${head}import { fetchWasm } from ${helper}\nexport async function ${fn}() {\n  return fetchWasm(${format}, ${JSON.stringify(file)}, () => new URL(${url}, import.meta.url))\n}\n`
}

/**
 * The `#` specifiers. With no `runtime` (the package's build) they stay imports, for
 * the built package.json to map (distImports); with one, each resolves as that runtime's bundler would
 * resolve it in the package (esmTarget). Engine loaders are the `sluice-wasm-loader:`
 * namespace (loaderSource); the `.wasm` files they name stay imports (workerd's) or URLs,
 * and are copied into `wasmOut`.
 */
function runtimeImportsPlugin({ runtime = null, wasmOut }) {
  const table = runtimeImports()
  const conditions = runtime && RUNTIME_CONDITIONS[runtime]
  if (runtime && !conditions) throw new Error(`unknown runtime ${runtime}: one of ${Object.keys(RUNTIME_CONDITIONS).join(', ')}`)
  const loaderPath = (t) => ({ path: `${t.engine}.${t.load}`, namespace: 'sluice-wasm-loader' })
  return {
    name: `sluice-runtime-imports${runtime ? `-${runtime}` : ''}`,
    setup(b) {
      b.onResolve({ filter: /^#/ }, (args) => {
        const pairs = table[args.path]
        if (!pairs) return { errors: [{ text: `${args.path} is not in package.json imports (esbuild.config.mjs runtimeImports)` }] }
        if (!runtime) return { path: args.path, external: true }
        const [, target] = pairs.find(([condition]) => conditions.includes(condition)) ?? []
        if (!target) return { errors: [{ text: `${args.path}: no target for ${runtime} (${conditions.join(', ')})` }] }
        return target.source ? { path: join(root, target.source) } : loaderPath(target)
      })
      b.onResolve({ filter: /^sluice-wasm-loader:/ }, (args) => ({ path: args.path.slice('sluice-wasm-loader:'.length), namespace: 'sluice-wasm-loader' }))
      b.onLoad({ filter: /.*/, namespace: 'sluice-wasm-loader' }, (args) => {
        const [engine, load] = args.path.split('.')
        const { wasm, file } = wasmFileOf(join(root, 'lib', 'codecs', 'wasm', `${engine}-wasm-source.ts`))
        mkdirSync(wasmOut, { recursive: true })
        copyFileSync(wasm, join(wasmOut, file))
        return { contents: loaderSource(engine, load), loader: 'js', resolveDir: join(root, 'lib', 'codecs', 'wasm') }
      })
      b.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: args.path, external: true }))
    },
  }
}

/** The worker module (issue 22): `sluice-worker.js`, an entry of the build that imports its chunks. */
export const WORKER_ENTRY = 'streams/worker-entry.ts'

/**
 * Replaces streams/worker-file.ts (which, from the sources, names the TypeScript entry)
 * with the URL of the build's own worker file, `new URL('./sluice-worker.js',
 * import.meta.url)`, beside the chunks: the pattern bundlers recognise and ship.
 */
const workerFilePlugin = {
  name: 'sluice-worker-file',
  setup(b) {
    b.onLoad({ filter: /[\\/]streams[\\/]worker-file\.ts$/ }, () => ({
      contents: `// Generated by esbuild.config.mjs.\nexport function workerFile() {\n  return new URL('./sluice-worker.js', import.meta.url)\n}\n`,
      loader: 'js',
    }))
  },
}

/**
 * The esbuild options of the package's one build. Besides the public entries: the CLI
 * (dist/esm/cli.js, not in `exports`: dist/bin/sluice.js imports it, so it shares the
 * library's chunks), the worker file (dist/esm/sluice-worker.js, issue 22), and every
 * target of runtimeImports, so that the built `imports` can name them and they share
 * the chunks (one CodecError class for all).
 */
export function esmBuildOptions(outdir = 'dist/esm') {
  const targets = {}
  for (const pairs of Object.values(runtimeImports())) {
    for (const [, t] of pairs) targets[t.name] = t.source ?? `sluice-wasm-loader:${t.engine}.${t.load}`
  }
  return {
    ...common,
    outdir,
    entryPoints: { ...entries, cli: cliEntry, 'sluice-worker': WORKER_ENTRY, ...targets },
    // Readable: Node, Deno and Bun run these files as they are (stack traces name lines),
    // and users' bundlers and wrangler minify what they ship.
    plugins: [workerFilePlugin, runtimeImportsPlugin({ wasmOut: join(resolve(root, outdir), 'wasm') })],
  }
}

/**
 * Builds dist/esm (or `outdir`), and writes beside it a package.json for running it from
 * the repository (the docs' tests, the runtime matrix, the CLI test, benchmarks): there
 * the root package.json's `imports` name the TypeScript sources, and the nearest
 * package.json is the one Node, Deno, Bun and the bundlers read a file's `imports` from.
 * It says `"type": "module"` and `"sideEffects": false` again for the same reason. The
 * published package does not ship it (package.json `files`): its root package.json
 * carries the same map (scripts/publish-manifest.mjs), as publint and most packages
 * expect.
 */
export async function buildEsm(outdir = 'dist/esm') {
  const result = await build({ ...esmBuildOptions(outdir), metafile: true })
  const manifest = {
    description: "sluice's build run from the repository: the `#` imports of the published package.json (scripts/publish-manifest.mjs), relative to this folder. Written by esbuild.config.mjs; not published.",
    type: 'module',
    sideEffects: false,
    imports: distImports('./'),
  }
  writeFileSync(join(resolve(root, outdir), 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  return result
}

/**
 * What a user's bundler makes of the package for one runtime ('node', 'browser' or
 * 'workerd'): the one build's sources with each `#` import resolved by that runtime's
 * conditions (RUNTIME_CONDITIONS), the `.wasm` files copied beside the chunks as the
 * bundling guide says. For the size check (scripts/sizes.mjs) and tests; the package
 * ships none of these.
 */
export function esmTarget(runtime, outdir) {
  const entryPoints = runtime === 'workerd' ? portable : { ...(runtime === 'node' ? entries : portable), 'sluice-worker': WORKER_ENTRY }
  return { ...common, outdir, entryPoints, plugins: [workerFilePlugin, runtimeImportsPlugin({ runtime, wasmOut: resolve(root, outdir) })] }
}

/**
 * dist/cjs: for each entry, `<name>.cjs`, which require()s the ESM entry. Node loads ES
 * modules from require() unflagged from 20.19 and 22.12 (package.json `engines`), Bun
 * always has; so CommonJS users run the same files as everyone else (one copy, one
 * CodecError class), and the package does not ship a second build. On an older Node the
 * require() fails with a message saying so (require-esm.cjs).
 */
export function buildCjs(outdir = 'dist/cjs', esmDir = 'dist/esm') {
  const out = resolve(root, outdir)
  mkdirSync(out, { recursive: true })
  const esm = relative(out, resolve(root, esmDir)).split(sep).join('/')
  writeFileSync(
    join(out, 'require-esm.cjs'),
    `'use strict'
// Loads an entry of the ES module build from require() (generated by esbuild.config.mjs,
// buildCjs): Node 20.19+ and 22.12+ do so unflagged; older ones throw ERR_REQUIRE_ESM,
// turned here into a message that says what to do.
exports.requireEsm = function requireEsm(load) {
  try {
    return load()
  } catch (error) {
    if (error && error.code === 'ERR_REQUIRE_ESM') {
      throw new Error('sluice: require() of this package needs Node 20.19+ or 22.12+, which load ES modules from require(); this is Node ' + process.version + '. Upgrade Node, or use import().', { cause: error })
    }
    throw error
  }
}
`,
  )
  for (const name of Object.keys(entries)) {
    writeFileSync(
      join(out, `${name}.cjs`),
      `'use strict'
// require('sluice${name === 'index' ? '' : `/${name}`}'): the ES module build's entry, through require(esm) (generated by esbuild.config.mjs, buildCjs).
module.exports = require('./require-esm.cjs').requireEsm(() => require('${esm}/${name}.js'))
`,
    )
  }
}

/**
 * Declarations: tsc's `.d.ts` tree in dist/types (ESM, as the package is
 * `"type": "module"`), and for each entry a `.d.cts` for `require` consumers
 * (cjsDeclarations). The generated base64 modules' declarations (the wasm again, as a
 * string literal type) are dropped: no public declaration refers to them.
 */
async function declarations() {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
  rmSync('dist/types/lib/codecs/wasm/gen', { recursive: true, force: true })
  const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]))
  for (const file of walk('dist/types')) {
    if (file.endsWith('.d.ts') && /['"]\.{1,2}\/[^'"]*\.b64\.js['"]/.test(readFileSync(file, 'utf8'))) throw new Error(`${file} refers to a generated base64 module`)
  }
  await cjsDeclarations(Object.values(entries).map((source) => join('dist/types', source.replace(/\.ts$/, '.d.ts'))))
}

/**
 * The `require` condition's types: beside each entry's `.d.ts`, a `.d.cts` that
 * TypeScript reads as CommonJS (a `.d.ts` there would be "masquerading as ESM" under
 * node16) and that takes every declaration from the ESM one through `resolution-mode:
 * import` (TypeScript 5.3+): `export type *` for the types, `declare const X:
 * Entry['X']` for each value, and for a name that is both (a class, `Status`) the value
 * and a type alias with the declaration's type parameters. So the package ships each
 * declaration once (a `.d.cts` twin of every file doubled dist/types: 427 of its 853 kB),
 * and `require` and `import` users see the same types. The consumer test type-checks a
 * CommonJS consumer against them (moduleResolution node16, skipLibCheck off); attw
 * checks them in the package check.
 */
async function cjsDeclarations(files) {
  const { default: ts } = await import('typescript')
  const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, types: ['node'] })
  const checker = program.getTypeChecker()
  for (const file of files) {
    const source = program.getSourceFile(file)
    const entry = checker.getSymbolAtLocation(source)
    const specifier = `./${basename(file).replace(/\.d\.ts$/, '.js')}`
    const from = `from '${specifier}' with { 'resolution-mode': 'import' }`
    const values = new Set(checker.getTypeOfSymbolAtLocation(entry, source).getProperties().map((p) => p.name))
    const exported = new Set(checker.getExportsOfModule(entry).map((s) => s.name))
    const lines = []
    const both = []
    const imported = new Set()
    for (const symbol of checker.getExportsOfModule(entry)) {
      if (!values.has(symbol.name)) continue // a type: `export type *` below
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
      if (!(target.flags & ts.SymbolFlags.Type)) {
        lines.push(`export declare const ${symbol.name}: Entry['${symbol.name}']`)
        continue
      }
      // Both a value and a type: the alias needs the declaration's type parameters, and
      // the types they name must be exports of the entry (imported here by name).
      const declaration = target.declarations.find((d) => d.typeParameters) ?? target.declarations[0]
      const parameters = declaration.typeParameters ?? []
      const visit = (node) => {
        if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) {
          const name = node.typeName.text
          const declared = checker.getSymbolAtLocation(node.typeName)?.declarations?.[0]
          const global = declared && program.isSourceFileDefaultLibrary(declared.getSourceFile())
          if (!global && !parameters.some((p) => p.name.text === name)) {
            if (!exported.has(name)) throw new Error(`${file}: ${symbol.name}'s type parameters name ${name}, which the entry does not export (cjsDeclarations)`)
            imported.add(name)
          }
        }
        ts.forEachChild(node, visit)
      }
      parameters.forEach(visit)
      const params = parameters.length > 0 ? `<${parameters.map((p) => p.getText()).join(', ')}>` : ''
      const args = parameters.length > 0 ? `<${parameters.map((p) => p.name.text).join(', ')}>` : ''
      const doc = ts.getJSDocCommentsAndTags(declaration).find((d) => ts.isJSDoc(d))?.getText()
      both.push(symbol.name)
      lines.push(...(doc ? [doc] : []), `declare const ${symbol.name}: Entry['${symbol.name}']`, `type ${symbol.name}${params} = ${symbol.name}_${args}`)
    }
    const head = [
      `// The \`require\` condition's types of ${specifier}: its declarations, read as CommonJS. Generated by esbuild.config.mjs (cjsDeclarations).`,
      `type Entry = typeof import('${specifier}', { with: { 'resolution-mode': 'import' } })`,
      `export type * ${from}`,
      ...(both.length + imported.size > 0 ? [`import type { ${[...both.map((n) => `${n} as ${n}_`), ...imported].join(', ')} } ${from}`] : []),
    ]
    const tail = both.length > 0 ? [`export { ${both.join(', ')} }`] : []
    writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), `${[...head, ...lines, ...tail].join('\n')}\n`)
  }
}

/**
 * dist/bin/sluice.js, the `sluice` command: a Node ESM file with a shebang that imports
 * dist/esm/cli.js, the CLI's entry in the one build, so the package ships the library
 * once. `esm: true` (the default) also builds the ESM build beside `outdir`, for a CLI
 * built on its own (the CLI test); the full build has just made it.
 */
export async function buildCli(outdir = 'dist/bin', { esm = true } = {}) {
  const out = resolve(root, outdir)
  const esmDir = join(dirname(out), 'esm')
  const result = esm ? await buildEsm(relative(root, esmDir)) : { metafile: { inputs: {} } }
  if (!existsSync(join(esmDir, 'cli.js'))) throw new Error(`buildCli: ${esmDir}/cli.js is missing; build dist/esm first`)
  mkdirSync(out, { recursive: true })
  const target = relative(out, join(esmDir, 'cli.js')).split(sep).join('/')
  writeFileSync(join(out, 'sluice.js'), `#!/usr/bin/env node
// The sluice command; its code is the ESM build's CLI entry.
import '${target.startsWith('.') ? target : `./${target}`}'
`)
  chmodSync(join(out, 'sluice.js'), 0o755)
  return result
}

/** The packages from node_modules that the builds bundled (fflate, ...): their folders. */
const bundled = new Set()
function track(result) {
  for (const input of Object.keys(result.metafile.inputs)) {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)
    if (m) bundled.add(join(root, input.slice(0, m.index + m[0].length)))
  }
}

/** A package's licence files (LICENSE, LICENCE, COPYING, NOTICE, any extension), as `{ file, text }`. */
function licenseTexts(dir, label) {
  const files = readdirSync(dir).filter((f) => /^(licen[cs]e|copying|notice)/i.test(f)).sort()
  if (files.length === 0) throw new Error(`${label}: no licence file in ${dir}`)
  return files.map((f) => ({ file: `${label}/${f}`, text: readFileSync(join(dir, f), 'utf8') }))
}

const section = (title, lines, texts) =>
  `## ${title}\n\n${lines.map((l) => `- ${l}`).join('\n')}\n\n` + texts.map((t) => `### ${t.file}\n\n\`\`\`text\n${t.text.trimEnd()}\n\`\`\`\n`).join('\n')

/**
 * dist/THIRD_PARTY_NOTICES.md: each shipped WebAssembly engine that is not the project's
 * own (a `.wat` beside it, under LICENSE) with its version, source package and licence
 * texts, from the `<engine>.notice.json` beside its `.wasm` (scripts/extract-wasm.mjs);
 * then each package the builds bundled as JavaScript, from its package.json and licence
 * files.
 */
function notices() {
  const own = []
  const parts = []
  for (const [file, wasm] of [...shipped].sort(([a], [b]) => a.localeCompare(b))) {
    const name = file.replace(/\.wasm$/, '')
    if (existsSync(join(root, 'lib', 'codecs', 'wasm', `${name}.wat`))) {
      own.push(`${file} (lib/codecs/wasm/${name}.wat)`)
      continue
    }
    const noticeFile = wasm.replace(/\.wasm$/, '.notice.json')
    if (!existsSync(noticeFile)) throw new Error(`${file} ships without ${noticeFile}: record its source package, version and licence texts there`)
    const n = JSON.parse(readFileSync(noticeFile, 'utf8'))
    parts.push(section(`${file} (WebAssembly)`, [`Source package: ${n.package} ${n.version} (${n.from})`, `Licence: ${n.license}`, `Contains: ${n.upstream}`, `sha256: ${n.sha256}`], n.licenseTexts))
  }
  for (const dir of [...bundled].sort()) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    parts.push(section(`${pkg.name} (JavaScript, bundled)`, [`Source package: ${pkg.name} ${pkg.version}`, `Licence: ${pkg.license}`], licenseTexts(dir, pkg.name)))
  }
  const text =
    `# Third-party notices\n\nThe third-party code this package ships: WebAssembly engines and bundled JavaScript (sluice itself is Apache-2.0, see LICENSE).\n` +
    (own.length > 0 ? `sluice's own kernels, under its licence: ${own.join(', ')}.\n` : '') +
    `\n${parts.join('\n')}`
  writeFileSync(join(root, 'dist', 'THIRD_PARTY_NOTICES.md'), text)
}

async function main() {
  process.chdir(root)
  rmSync('dist', { recursive: true, force: true })
  const failures = []
  const attempt = async (what, fn) => {
    try {
      await fn()
    } catch (error) {
      failures.push(what)
      console.error(`build ${what} failed: ${error.message.split('\n')[0]}`)
    }
  }

  await attempt('dist/esm', () => buildEsm('dist/esm').then(track))
  await attempt('dist/cjs', () => buildCjs('dist/cjs', 'dist/esm'))
  await attempt('dist/bin', () => buildCli('dist/bin', { esm: false }))
  await attempt('dist/types', declarations)
  await attempt('dist/THIRD_PARTY_NOTICES.md', notices)

  if (process.argv.includes('--sizes')) {
    // A child process: scripts/sizes.mjs imports this module, whose top-level await is
    // still pending here, so importing it in-process would wait forever.
    await attempt('sizes', () => execFileSync(process.execPath, ['scripts/sizes.mjs'], { stdio: 'inherit' }))
  }
  if (failures.length > 0) {
    console.error(`failed: ${failures.join(', ')}`)
    process.exitCode = 1
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main()
