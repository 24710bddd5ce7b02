// `npm run bench [filter]`: installs the benchmark's peers (bench/package.json, a package
// of its own so that `npm install` at the root compiles nothing) on first use, then runs
// bench/run.ts with the same arguments, then bench/threads.ts (the threads rows). The other bench/*.ts scripts need the same
// install: `npm run bench:install`.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const bench = join(root, 'bench')

/** Installed when every peer bench/package.json names has its folder in bench/node_modules. */
function installed() {
  const { devDependencies } = JSON.parse(readFileSync(join(bench, 'package.json'), 'utf8'))
  return Object.keys(devDependencies).every((name) => existsSync(join(bench, 'node_modules', name, 'package.json')))
}

if (!installed()) {
  console.log('# installing the benchmark peers (bench/package.json): npm ci --prefix bench')
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const r = spawnSync(npm, ['ci', '--prefix', bench, '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
const r = spawnSync(process.execPath, ['--import', 'tsx', join(bench, 'run.ts'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' })
if (r.status !== 0) process.exit(r.status ?? 1)
// The threads rows (bench/threads.ts, issue 22): ratios of their own, run after the
// table (unfiltered, or with a filter that names them).
const filter = process.argv[2]?.toLowerCase()
if (!filter || 'threads'.includes(filter)) {
  // The threads rows run the built package (its worker file): build it when missing.
  if (!existsSync(join(root, 'dist', 'esm', 'index.js'))) {
    const b = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
    if (b.status !== 0) process.exit(b.status ?? 1)
  }
  const t = spawnSync(process.execPath, ['--import', 'tsx', join(bench, 'threads.ts')], { cwd: root, stdio: 'inherit' })
  process.exit(t.status ?? 1)
}
