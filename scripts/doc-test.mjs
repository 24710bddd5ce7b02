// The doc test: every ```js and ```ts block of README.md and docs/*.md, run against the
// built package (`npm run build` first), so an example that does not work as shown (a
// missing `await`, a renamed option, a wrong import) fails CI.
//
//   ```js / ```ts        written to .tmp/doc-test/<file>-<line>.mjs (.mts) and run in this
//                        Node as an ES module (top-level await), cwd .tmp/doc-test/. `sluice`
//                        and its subpaths resolve to dist/ through the package's own
//                        `exports` (a module inside the package may import it by name);
//                        other packages from the repository's node_modules. A block passes
//                        when it exits 0 within 60 s: it makes its own inputs, starts and
//                        closes its own loopback servers and throws when a result is wrong.
//   ```js runtime=browser bundled by esbuild for the `browser` condition (as a user's esbuild
//                        would; the .wasm files copied beside it) and run in headless
//                        Chromium (playwright-core, /usr/bin/chromium) on a page served from
//                        127.0.0.1 with `Content-Security-Policy: default-src 'self';
//                        script-src 'self' 'wasm-unsafe-eval'`. The server also answers
//                        /hello.txt.zst (zstd), /hello.txt.br (Content-Encoding: br) and
//                        /table.arrows (an Arrow IPC stream, ZSTD bodies). A block passes
//                        when its module finishes without an error. Without Chromium, the
//                        bundle alone is checked and the run counted as skipped.
//   ```js runtime=worker bundled by esbuild for the `workerd` condition, .wasm imports left
//                        as modules (as wrangler does): proves the imports resolve; not run.
//   ```sh, ```text, ...  not run.
//
// A block that imports a package this checkout does not have (for example `express`) is
// counted as skipped, naming the package. Relative links between README.md,
// ARCHITECTURE.md and docs/*.md are checked too (one case per link). Last line:
// `N passed, N failed, N skipped`.
//
// Usage: node scripts/doc-test.mjs [regex on "file:line"]
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, extname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const work = join(root, '.tmp', 'doc-test')
const filter = process.argv[2] ? new RegExp(process.argv[2]) : null
const TIMEOUT = 60_000

if (!existsSync(join(root, 'dist', 'esm', 'index.js'))) {
  console.error('dist/ is missing: run `npm run build` first')
  console.log('0 passed, 1 failed, 0 skipped')
  process.exit(1)
}

/** Every fenced block of a Markdown file: { lang, attrs, code, line }. */
export function blocks(text) {
  const out = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*(.*)$/.exec(lines[i])
    if (!open) continue
    const [, indent, fence, lang, rest] = open
    const attrs = Object.fromEntries(rest.split(/\s+/).filter(Boolean).map((a) => a.split('=')))
    const body = []
    let j = i + 1
    for (; j < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[j]); j++) body.push(lines[j].slice(indent.length))
    out.push({ lang, attrs, code: body.join('\n'), line: i + 1 })
    i = j
  }
  return out
}

const docs = ['README.md', ...(existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`) : [])]
const cases = []
for (const file of docs) {
  for (const b of blocks(readFileSync(join(root, file), 'utf8'))) {
    if (b.lang !== 'js' && b.lang !== 'ts') continue
    const name = `${file}:${b.line}`
    if (filter && !filter.test(name)) continue
    cases.push({ ...b, file, name, runtime: b.attrs.runtime ?? 'node' })
  }
}

// Links between the documents: every relative link of README.md, ARCHITECTURE.md and
// docs/*.md names a file of the repository (docs/api/ is built by `npm run docs`).
const linkCases = []
for (const file of [...docs, 'ARCHITECTURE.md']) {
  if (!existsSync(join(root, file))) continue
  const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '')
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1].split('#')[0]
    if (!target || /^[a-z]+:/i.test(target)) continue
    const path = join(dirname(join(root, file)), target).slice(root.length + 1)
    linkCases.push({ file, target: m[1], path })
  }
}

rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })
const requireHere = createRequire(join(work, 'x.js'))

let passed = 0
let failed = 0
let skipped = 0
const tail = (text, n = 12) => String(text).trim().split('\n').slice(-n).join('\n')
const report = (kind, name, detail = '') => {
  if (kind === 'ok') passed++
  else if (kind === 'FAIL') failed++
  else skipped++
  console.log(`${kind} ${name}${detail ? ` | ${detail.replace(/\n/g, '\n    ')}` : ''}`)
}

/** Bare package names a block imports that do not resolve from the scratch folder. */
function missingPackages(code) {
  const names = new Set()
  for (const m of code.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm)) {
    const spec = m[1] ?? m[2] ?? m[3]
    if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || spec === 'sluice' || spec.startsWith('sluice/')) continue
    const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]
    try {
      requireHere.resolve(`${pkg}/package.json`)
    } catch {
      try {
        requireHere.resolve(pkg)
      } catch {
        names.add(pkg)
      }
    }
  }
  return [...names]
}

const slug = (c) => `${c.file.replace(/[/.]/g, '_')}-${c.line}`
const esbuild = await import(pathToFileURL(join(root, 'node_modules', 'esbuild', 'lib', 'main.js')).href).then((m) => m.default ?? m)

if (!filter) {
  const seen = new Set()
  for (const l of linkCases) {
    const key = `${l.file} -> ${l.path}`
    if (seen.has(key)) continue
    seen.add(key)
    if (existsSync(join(root, l.path)) || l.path.startsWith('docs/api/')) report('ok', `link ${key}`)
    else report('FAIL', `link ${key}`, `${l.target} does not exist`)
  }
}

// Node blocks: one process each, in turn (the machine's cores are shared).
for (const c of cases.filter((c) => c.runtime === 'node')) {
  const missing = missingPackages(c.code)
  if (missing.length > 0) {
    report('skip', c.name, `imports ${missing.join(', ')}, not installed here (examples/ runs it against the tarball)`)
    continue
  }
  const file = join(work, `${slug(c)}.${c.lang === 'ts' ? 'mts' : 'mjs'}`)
  writeFileSync(file, `${c.code}\n`)
  const args = c.lang === 'ts' ? ['--import', 'tsx', file] : [file]
  const t0 = Date.now()
  const r = spawnSync(process.execPath, args, { cwd: work, encoding: 'utf8', timeout: TIMEOUT, env: { ...process.env, NO_COLOR: '1' } })
  const ms = Date.now() - t0
  if (r.status === 0) report('ok', c.name, `${ms} ms`)
  else report('FAIL', c.name, r.error?.code === 'ETIMEDOUT' || r.signal ? `no exit within ${TIMEOUT / 1000} s (a server left open, a promise never settled?)\n${tail(r.stdout + r.stderr)}` : `exit ${r.status}\n${tail(r.stdout + r.stderr)}`)
}

// Worker blocks: bundled as wrangler would.
for (const c of cases.filter((c) => c.runtime === 'worker')) {
  const dir = join(work, slug(c))
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'worker.mjs'), `${c.code}\n`)
  try {
    await esbuild.build({ entryPoints: [join(dir, 'worker.mjs')], bundle: true, format: 'esm', platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'], splitting: true, outdir: join(dir, 'out'), external: ['*.wasm', 'node:*', 'cloudflare:*'], logLevel: 'silent', nodePaths: [join(root, 'node_modules')] })
    report('ok', c.name, 'bundled for workerd (not run)')
  } catch (e) {
    report('FAIL', c.name, e.message)
  }
}

// Browser blocks: bundled, then run in Chromium.
const pages = []
for (const c of cases.filter((c) => c.runtime === 'browser')) {
  const dir = join(work, slug(c))
  mkdirSync(dir, { recursive: true })
  // The block is one module; the page reports its end (or its error) to the test.
  writeFileSync(join(dir, 'block.mjs'), `${c.code}\n`)
  writeFileSync(join(dir, 'main.mjs'), `import('./block.mjs').then(() => { globalThis.__doc = { ok: true } }, (e) => { globalThis.__doc = { ok: false, error: String(e?.stack ?? e) + (e?.cause ? '\\ncause: ' + String(e.cause) : '') } })\n`)
  try {
    await esbuild.build({ entryPoints: [join(dir, 'main.mjs')], bundle: true, format: 'esm', platform: 'browser', splitting: true, outdir: join(dir, 'out'), logLevel: 'silent', nodePaths: [join(root, 'node_modules')] })
    for (const f of readdirSync(join(root, 'dist', 'esm', 'wasm'))) if (f.endsWith('.wasm')) copyFileSync(join(root, 'dist', 'esm', 'wasm', f), join(dir, 'out', f))
    writeFileSync(join(dir, 'out', 'index.html'), '<!doctype html><html><head><meta charset="utf-8"></head><body><script type="module" src="./main.js"></script></body></html>\n')
    pages.push({ c, dir: join(dir, 'out') })
  } catch (e) {
    report('FAIL', c.name, `esbuild: ${e.message}`)
  }
}
if (pages.length > 0) await runPages(pages)

console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exitCode = failed === 0 ? 0 : 1

/** Serves the pages and the sample files with a CSP that allows WebAssembly and nothing inline. */
async function sampleServer(pages) {
  const { encode } = await import(pathToFileURL(join(root, 'dist', 'esm', 'index.js')).href)
  const { tableFromArrays } = await import('apache-arrow')
  const { arrowEncode } = await import(pathToFileURL(join(root, 'dist', 'esm', 'arrow.js')).href)
  const hello = new TextEncoder().encode('hello, sluice\n'.repeat(1000))
  const table = tableFromArrays({ id: Int32Array.from({ length: 1000 }, (_, i) => i), name: Array.from({ length: 1000 }, (_, i) => `row ${i}`) })
  const arrows = new Uint8Array(await new Response(ReadableStream.from(table.batches).pipeThrough(arrowEncode({ compression: 'zstd' }))).arrayBuffer())
  const samples = {
    '/hello.txt.zst': { body: await encode('zstd', hello), type: 'application/zstd' },
    '/hello.txt.br': { body: await encode('brotli', hello), type: 'text/plain', encoding: 'br' },
    '/table.arrows': { body: arrows, type: 'application/vnd.apache.arrow.stream' },
  }
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' }
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname)
    const csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'"
    const sample = samples[path.replace(/^\/\d+/, '')]
    if (sample) {
      const headers = { 'content-type': sample.type, 'content-security-policy': csp, 'cache-control': 'no-store' }
      if (sample.encoding) headers['content-encoding'] = sample.encoding
      return void res.writeHead(200, headers).end(sample.body)
    }
    const m = /^\/(\d+)(\/.*)$/.exec(path)
    const page = m && pages[Number(m[1])]
    const file = page && join(page.dir, m[2])
    if (!file || !file.startsWith(page.dir) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end('not found')
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'content-security-policy': csp, 'cache-control': 'no-store' })
    res.end(readFileSync(file))
  })
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
  return server
}

async function runPages(pages) {
  const chromiumPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p))
  if (!chromiumPath) {
    for (const { c } of pages) report('skip', c.name, 'bundled; not run: /usr/bin/chromium is not installed')
    return
  }
  const { chromium } = await import(pathToFileURL(join(root, 'node_modules', 'playwright-core', 'index.mjs')).href)
  const server = await sampleServer(pages)
  const base = `http://127.0.0.1:${server.address().port}`
  const userDataDir = mkdtempSync(join(tmpdir(), 'sluice-doc-test-'))
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage']
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath, headless: true, args })
  try {
    for (let i = 0; i < pages.length; i++) {
      const { c } = pages[i]
      const page = await context.newPage()
      const notes = []
      page.on('pageerror', (e) => notes.push(`page error: ${e.message}`))
      page.on('console', (m) => m.type() === 'error' && notes.push(`console: ${m.text()}`))
      await page.goto(`${base}/${i}/index.html`)
      const r = await page
        .waitForFunction(() => globalThis.__doc, null, { timeout: TIMEOUT })
        .then((h) => h.jsonValue())
        .catch((e) => ({ ok: false, error: `no result: ${e.message.split('\n')[0]}` }))
      if (r.ok) report('ok', c.name, 'Chromium')
      else report('FAIL', c.name, `Chromium: ${r.error}${notes.length ? `\n${notes.join('\n')}` : ''}`)
      await page.close()
    }
  } finally {
    await context.close()
    server.close()
    rmSync(userDataDir, { recursive: true, force: true })
  }
}

