// Builds dist/, one build per kind of runtime, chosen by package.json `exports` conditions
// (never by probing or patching globals at run time):
//
//   dist/esm/      ESM, code-split: each engine is its own chunk, loaded by dynamic
//                  import() on first use. Conditions `node`, `deno`, `bun`, `import`,
//                  `default`. Large engines' wasm read from dist/browser/ (node:fs).
//   dist/browser/  ESM, code-split; wasm fetched beside the chunk with
//                  `fetch(new URL('./x.wasm', import.meta.url))` and compiled while it
//                  downloads (instantiateStreaming). Condition `browser`. Holds the
//                  package's one copy of each large engine's `.wasm`.
//   dist/workerd/  ESM, code-split; wasm imported as modules (`import m from
//                  '../browser/x.wasm'`), because workerd refuses to compile WebAssembly
//                  from bytes at run time. Wrangler and workerd configs turn such imports
//                  into `CompiledWasm` modules. Condition `workerd`.
//   dist/cjs/      CommonJS (`require`), code-split like the ESM builds (buildCjs);
//                  wasm read like dist/esm.
//   dist/types/    .d.ts (tsc) and a .d.cts twin of each, for `require` consumers.
//
// The wasm engines' glue is the same in every build; only each engine's
// `lib/codecs/wasm/*-wasm-source.ts` module is replaced (see wasmSourcePlugin). The
// small kernels (inflate, LZ4) stay embedded as base64 everywhere but in workerd.
//
//   node esbuild.config.mjs          build everything
//   node esbuild.config.mjs --sizes  also print min+gzip bytes per entry point
import { build, transform } from 'esbuild'
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
  hyparquet: 'adapters/hyparquet/index.ts',
  node: 'adapters/node/index.ts',
  hono: 'adapters/hono/index.ts',
}
/** The command-line tool (package.json `bin`): built on its own, see buildCli. */
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
}

/**
 * Our own kernels of a few kB (inflate 2 kB, its marker kernel for parallel decoding 2 kB, LZ4 3.5 kB, Snappy 1 kB), embedded as base64 in every
 * build but workerd's: a few kB inline cost less than a request, and no runtime or
 * bundler has to know about a file for the default deflate-family and LZ4 engines.
 * The large engines (zstd, brotli: hundreds of kB) ship once, as a `.wasm` file.
 */
export const EMBEDDED = new Set(['inflate', 'inflate-markers', 'lz4', 'snappy'])

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

/** Every engine a build took in (embedded or as a file): `.wasm` name -> its source path, for the notices. */
const shipped = new Map()

/**
 * Replaces each large engine's `lib/codecs/wasm/<engine>-wasm-source.ts` (whose default
 * embeds the wasm as base64) with one that obtains the engine's one `.wasm` file the way
 * the target runtime needs (build/wasm-files.ts), and copies that file into `wasmDir`,
 * the one place the package holds it (dist/browser/, beside the chunks that fetch it).
 * The small kernels (`EMBEDDED`) keep the embedded default, except in workerd.
 *
 * mode 'fetch':    browsers. `new URL('./x.wasm', import.meta.url)` is the pattern
 *                  bundlers (Vite, webpack 5, Parcel) recognise and rewrite.
 * mode 'import':   workerd, which refuses to compile bytes: every engine is an imported
 *                  module (`import m from '../browser/x.wasm'`), left for wrangler/workerd.
 * mode 'read':     Node, Deno, Bun ESM: read from disk beside `import.meta.url`.
 * mode 'read-cjs': Node CommonJS: read from disk beside `__filename`.
 */
export function wasmSourcePlugin(mode, outdir, wasmDir = outdir) {
  const rel = relative(outdir, wasmDir).split(sep).join('/')
  const at = (file) => (rel === '' ? `./${file}` : `${rel.startsWith('.') ? '' : './'}${rel}/${file}`)
  const helper = JSON.stringify(join(root, 'build', 'wasm-files.ts'))
  return {
    name: `sluice-wasm-source-${mode}`,
    setup(b) {
      b.onLoad({ filter: /[\\/]lib[\\/]codecs[\\/]wasm[\\/][\w-]+-wasm-source\.ts$/ }, (args) => {
        const { fn, wasm, file } = wasmFileOf(args.path)
        shipped.set(file, wasm)
        // workerd refuses to compile wasm from bytes, so there every engine is a module.
        if (mode !== 'import' && EMBEDDED.has(file.replace(/\.wasm$/, ''))) return undefined
        mkdirSync(wasmDir, { recursive: true })
        copyFileSync(wasm, join(wasmDir, file))
        const format = JSON.stringify(file.replace(/[-.].*$/, ''))
        const url = JSON.stringify(at(file))
        const head = `// Generated by esbuild.config.mjs (${mode} build) from ${basename(args.path)}.\n`
        const contents =
          mode === 'fetch'
            ? `${head}import { fetchWasm } from ${helper}\nexport async function ${fn}() {\n  return fetchWasm(${format}, ${JSON.stringify(file)}, () => new URL(${url}, import.meta.url))\n}\n`
            : mode === 'import'
              ? `${head}import wasmModule from ${url}\nexport async function ${fn}() {\n  return wasmModule\n}\n`
              : mode === 'read'
                ? `${head}import { readWasm } from ${helper}\nexport async function ${fn}() {\n  return readWasm(${format}, ${JSON.stringify(file)}, new URL(${url}, import.meta.url))\n}\n`
                : `${head}import { readWasm } from ${helper}\nimport { pathToFileURL } from 'node:url'\nexport async function ${fn}() {\n  return readWasm(${format}, ${JSON.stringify(file)}, new URL(${url}, pathToFileURL(__filename)))\n}\n`
        return { contents, loader: 'js', resolveDir: dirname(args.path) }
      })
      b.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: args.path, external: true }))
    },
  }
}

/**
 * The package's `#node-engine` import (package.json `imports`) is node:zlib's engine under
 * the `node` condition and a module that refuses to load elsewhere. The browser and
 * workerd builds resolve it by their conditions. The portable ESM build (Node, Deno, Bun)
 * takes the `node` target as a lazy chunk, without setting the `node` condition for every
 * other package it bundles (fflate's `node` build would pull in `module`).
 */
const nodeEnginePlugin = {
  name: 'sluice-node-engine',
  setup(b) {
    const imports = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).imports
    b.onResolve({ filter: /^#node-engine$/ }, () => ({ path: join(root, imports['#node-engine'].node) }))
    // The worker pool's host: node:worker_threads, which Deno and Bun implement too.
    b.onResolve({ filter: /^#worker-host$/ }, () => ({ path: join(root, imports['#worker-host'].node) }))
  },
}

/** The worker module (issue 22): `sluice-worker.js`, an entry of the ESM and browser builds that imports their chunks (dist/cjs's pool starts dist/esm's). */
export const WORKER_ENTRY = 'streams/worker-entry.ts'

/**
 * Replaces streams/worker-file.ts (which, from the sources, names the TypeScript entry)
 * with the URL of the build's own worker file: `new URL('./sluice-worker.js',
 * import.meta.url)`, the pattern bundlers recognise and ship; CommonJS resolves it
 * to the ESM build's worker file (a worker's realm is its own: the package ships one
 * Node worker, not a second CommonJS copy of every engine).
 */
function workerFilePlugin(mode) {
  const url =
    mode === 'cjs'
      ? `new URL('../esm/sluice-worker.js', require('node:url').pathToFileURL(__filename))`
      : `new URL('./sluice-worker.js', import.meta.url)`
  return {
    name: `sluice-worker-file-${mode}`,
    setup(b) {
      b.onLoad({ filter: /[\\/]streams[\\/]worker-file\.ts$/ }, () => ({
        contents: `// Generated by esbuild.config.mjs (${mode} build).\nexport function workerFile() {\n  return ${url}\n}\n`,
        loader: 'js',
      }))
    },
  }
}

/** Where the builds beside `outdir` find the engines' one copy of each `.wasm` file. */
const wasmDirFor = (outdir) => join(dirname(resolve(root, outdir)), 'browser')

/** The esbuild options of each ESM build, also used by the size check. */
export function esmTarget(kind, outdir = `dist/${kind}`) {
  const out = resolve(root, outdir)
  // Flat: every chunk sits at the same depth, so one relative path reaches the .wasm files.
  const flat = { format: 'esm', splitting: true, outdir, chunkNames: '[name]-[hash]' }
  if (kind === 'esm') {
    // The CLI is an entry here too (dist/esm/cli.js, not in `exports`), so that it shares
    // this build's chunks instead of carrying its own copy of the library (buildCli); so is
    // the worker file (dist/esm/sluice-worker.js, loaded from disk by Node, Deno and Bun
    // with its chunks beside it), a few KB instead of a self-contained copy (issue 22).
    const entryPoints = { ...entries, cli: cliEntry, 'sluice-worker': WORKER_ENTRY }
    return { ...common, ...flat, entryPoints, platform: 'neutral', mainFields: ['module', 'main'], plugins: [nodeEnginePlugin, workerFilePlugin('esm'), wasmSourcePlugin('read', out, wasmDirFor(outdir))] }
  }
  const plugins = [workerFilePlugin(kind), kind === 'browser' ? wasmSourcePlugin('fetch', out) : wasmSourcePlugin('import', out, wasmDirFor(outdir))]
  return {
    ...common,
    ...flat,
    // The browser's worker file is an entry too (a module worker importing this build's
    // chunks, issue 22): bundlers that follow `new Worker(new URL(...))` bundle it with
    // its imports; copying by hand means copying dist/browser's files. workerd has no
    // workers (threads > 1 is ENGINE_UNAVAILABLE there).
    entryPoints: kind === 'browser' ? { ...portable, 'sluice-worker': WORKER_ENTRY } : portable,
    // The bundler targets (a user's bundler or wrangler processes them again): whitespace
    // and syntax minified, names kept so stack traces still read, so that the package keeps
    // room under its 1.5 MB limit (issue 16). dist/esm and dist/cjs, which Node, Deno and
    // Bun run as they are, stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    platform: kind === 'browser' ? 'browser' : 'neutral',
    conditions: kind === 'browser' ? ['browser'] : ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    plugins,
  }
}

/**
 * The CommonJS build, code-split like the ESM ones: esbuild splits only ESM, so the
 * entries are built split as ESM (in memory), then each output file is turned into
 * CommonJS on its own, its chunk imports renamed `.cjs`. Without the split, each of the
 * six entries carries its own copy of everything it shares with the others.
 */
export async function buildCjs(outdir = 'dist/cjs') {
  const out = resolve(root, outdir)
  const split = await build({
    ...common,
    entryPoints: entries,
    outdir: out,
    format: 'esm',
    splitting: true,
    chunkNames: '[name]-[hash]',
    platform: 'node',
    write: false,
    metafile: true,
    // register.ts reads import.meta.url only in the ESM build and __filename otherwise.
    logOverride: { 'empty-import-meta': 'silent' },
    plugins: [workerFilePlugin('cjs'), wasmSourcePlugin('read-cjs', out, wasmDirFor(outdir))],
  })
  mkdirSync(out, { recursive: true })
  for (const file of split.outputFiles) {
    // Static chunk imports become require() calls in the transform; dynamic ones are
    // made require() calls here (a CommonJS module's import() would see module.exports
    // as `default`, so the chunks' own `default` exports would be lost).
    const esm = file.text
      .replace(/\bimport\(\s*["'](\.\/[\w.-]+)\.js["']\s*\)/g, 'Promise.resolve().then(() => require("$1.cjs"))')
      .replace(/(\b(?:from|import)\s*["']\.\/[\w.-]+)\.js(["'])/g, '$1.cjs$2')
    const { code } = await transform(esm, { format: 'cjs', target: common.target, platform: 'node', logLevel: 'error', logOverride: { 'empty-import-meta': 'silent' } })
    writeFileSync(file.path.replace(/\.js$/, '.cjs'), code)
  }
  return split
}

/**
 * Declarations: tsc's `.d.ts` tree in dist/types (ESM, as the package is
 * `"type": "module"`), and beside each a `.d.cts` twin whose relative imports name
 * `.cjs`, so that TypeScript reads the `require` condition's types as CommonJS (one file
 * for both is "masquerading as ESM" under node16). The generated base64 modules'
 * declarations (the wasm again, as a string literal type) are dropped: no public
 * declaration refers to them.
 */
function declarations() {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
  rmSync('dist/types/lib/codecs/wasm/gen', { recursive: true, force: true })
  const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]))
  for (const file of walk('dist/types')) {
    if (!file.endsWith('.d.ts')) continue
    const text = readFileSync(file, 'utf8')
    if (/['"]\.{1,2}\/[^'"]*\.b64\.js['"]/.test(text)) throw new Error(`${file} refers to a generated base64 module`)
    const cts = text.replace(/((?:from|import\()\s*['"]\.{1,2}\/[^'"]*?)\.js(['"])/g, '$1.cjs$2')
    writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), cts)
  }
}

/**
 * dist/bin/sluice.js, the `sluice` command: a Node ESM file with a shebang that imports
 * dist/esm/cli.js, the CLI's entry in the ESM build (esmTarget), so the package ships
 * the library once (the CLI bundled on its own was a 575 KB second copy). The large
 * engines are read from dist/browser/ as dist/esm reads them. `esm: true` (the default)
 * also builds the ESM build beside `outdir`, for a CLI built on its own (the CLI test);
 * the full build has just made it.
 */
export async function buildCli(outdir = 'dist/bin', { esm = true } = {}) {
  const out = resolve(root, outdir)
  const esmDir = join(dirname(out), 'esm')
  const result = esm ? await build({ ...esmTarget('esm', relative(root, esmDir)), metafile: true }) : { metafile: { inputs: {} } }
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

  await attempt('dist/esm', () => build({ ...esmTarget('esm'), metafile: true }).then(track))
  await attempt('dist/browser', () => build({ ...esmTarget('browser'), metafile: true }).then(track))
  await attempt('dist/workerd', () => build({ ...esmTarget('workerd'), metafile: true }).then(track))
  await attempt('dist/cjs', () => buildCjs().then(track))
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
