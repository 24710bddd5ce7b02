// The package as npm publishes it: packs the tarball (`npm pack --json`, after
// `npm run build`), prints its packed and unpacked sizes per folder, and checks it:
//
//   size      packed <= 1.5 MB, unpacked <= 6 MB (1 MB = 1,000,000 bytes)
//   contents  dist/ only (plus package.json, README.md, LICENSE): no sources, no source
//             maps, each .wasm once
//   attw      @arethetypeswrong/cli on the tarball: types resolve for node10, node16
//             (ESM and CommonJS) and bundler resolution, no problem of any kind
//   publint   publint on the tarball, warnings counted as errors (--strict)
//
// Last line: `N passed, N failed` (one per check). The tarball stays in .tmp/pack/ for
// the consumer test (scripts/consumer.mjs).
//
// Usage: node scripts/pack-check.mjs
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, '.tmp', 'pack')
const bin = (name) => join(root, 'node_modules', '.bin', name)

/** The issue's targets, bytes. */
const MAX_PACKED = 1_500_000
const MAX_UNPACKED = 6_000_000

const results = []
const check = (name, ok, detail = '') => {
  results.push(ok)
  console.log(`${ok ? 'ok' : 'FAIL'} ${name}${detail ? ` | ${detail}` : ''}`)
}

/** Packs the package into .tmp/pack/ and returns npm's description of the tarball. */
export function pack() {
  if (!existsSync(join(root, 'dist', 'esm', 'index.js'))) execFileSync(process.execPath, ['esbuild.config.mjs'], { cwd: root, stdio: 'inherit' })
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  // --ignore-scripts: `prepare` (the wasm extraction) ran at install; dist/ is built.
  const json = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  const [info] = JSON.parse(json)
  return { ...info, tarball: join(out, info.filename) }
}

const kb = (n) => `${(n / 1000).toFixed(1)} kB`

function main() {
  const info = pack()
  console.log(`# ${info.filename}: packed ${info.size} bytes (${kb(info.size)}), unpacked ${info.unpackedSize} bytes (${kb(info.unpackedSize)}), ${info.entryCount} files`)
  const folders = new Map()
  for (const f of info.files) {
    const parts = f.path.split('/')
    const key = parts[0] === 'dist' && parts.length > 2 ? `${parts[0]}/${parts[1]}/` : f.path
    const row = folders.get(key) ?? { files: 0, bytes: 0 }
    row.files++
    row.bytes += f.size
    folders.set(key, row)
  }
  console.log('| folder | files | unpacked bytes |\n|---|---:|---:|')
  for (const [key, row] of [...folders].sort(([a], [b]) => a.localeCompare(b))) console.log(`| ${key} | ${row.files} | ${row.bytes} |`)

  check(`packed size <= ${MAX_PACKED} bytes`, info.size <= MAX_PACKED, `${info.size}`)
  check(`unpacked size <= ${MAX_UNPACKED} bytes`, info.unpackedSize <= MAX_UNPACKED, `${info.unpackedSize}`)

  const top = new Set(['package.json', 'README.md', 'LICENSE'])
  const stray = info.files.map((f) => f.path).filter((p) => !(top.has(p) || p.startsWith('dist/')) || p.endsWith('.map') || (/\.[cm]?ts$/.test(p) && !/\.d\.c?ts$/.test(p)))
  const wasm = info.files.map((f) => f.path.split('/').pop()).filter((p) => p.endsWith('.wasm'))
  const twice = wasm.filter((w, i) => wasm.indexOf(w) !== i)
  check('contents: dist/ only, no sources or source maps, each .wasm once', stray.length === 0 && twice.length === 0 && existsSync(join(root, 'dist', 'THIRD_PARTY_NOTICES.md')), [...stray, ...twice.map((w) => `${w} twice`)].join(', '))

  console.log('\n# attw (@arethetypeswrong/cli) on the tarball')
  const attw = spawnSync(bin('attw'), [info.tarball, '--format', 'table', '--no-emoji', '--no-color'], { cwd: root, encoding: 'utf8' })
  process.stdout.write(attw.stdout + attw.stderr)
  check('attw: no problems (node10, node16 ESM and CommonJS, bundler)', attw.status === 0, attw.status === 0 ? '' : `exit ${attw.status}`)

  console.log('\n# publint on the tarball (--strict: warnings are errors)')
  const publint = spawnSync(bin('publint'), ['run', info.tarball, '--strict'], { cwd: root, encoding: 'utf8' })
  process.stdout.write(publint.stdout + publint.stderr)
  check('publint: no errors, warnings or suggestions', publint.status === 0 && !/warning|suggestion/i.test(publint.stdout), publint.status === 0 ? '' : `exit ${publint.status}`)

  const passed = results.filter(Boolean).length
  console.log(`\n${passed} passed, ${results.length - passed} failed`)
  process.exitCode = passed === results.length ? 0 : 1
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
