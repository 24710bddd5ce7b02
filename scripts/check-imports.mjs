// Checks the layering that ARCHITECTURE.md's "Where things are" describes:
//   1. no import cycles (value imports; type-only imports are erased and do not count),
//      found by dpdm over every entry point;
//   2. imports point down only: lib/ never imports streams/ or adapters/, streams/ never
//      imports adapters/. (lib/registry.ts reaches node:zlib's engine through the
//      package's `#node-engine` import, which package.json maps by condition.)
//   3. the playground page (playground/src/) is an app on top of the package: it imports
//      the package's entry points (`sluice`, `sluice/<entry>`) and the measuring core it
//      shares with `sluice bench` (adapters/bench/), never lib/, streams/ or another
//      adapter's internals.
// Prints what it found and exits 1 on any problem.
//
//   node scripts/check-imports.mjs
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { entries } = await import('../esbuild.config.mjs')
let problems = 0

// 1. Cycles.
const dpdm = join(root, 'node_modules', 'dpdm', 'lib', 'bin', 'dpdm.js')
try {
  const out = execFileSync(process.execPath, [dpdm, '--transform', '--no-tree', '--no-warning', '--no-progress', '--exit-code', 'circular:1', ...Object.values(entries)], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  })
  console.log(out.trim())
} catch (error) {
  console.log(String(error.stdout ?? '').trim())
  console.log('import cycles found (type-only imports excluded)')
  problems += 1
}

// 2. Direction.
const layers = { lib: ['streams', 'adapters'], streams: ['adapters'] }
const specifier = /(?:^|[^.\w])(?:import|export)\s*(?:type\s+)?(?:[^'"`;]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g
function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'gen') continue
    const p = join(dir, e.name)
    if (e.isDirectory()) yield* files(p)
    else if (/\.(ts|mjs|js)$/.test(e.name)) yield p
  }
}
for (const [layer, above] of Object.entries(layers)) {
  for (const file of files(join(root, layer))) {
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(specifier)) {
      const spec = m[1] ?? m[2]
      if (!spec.startsWith('.')) continue
      const top = relative(root, resolve(dirname(file), spec)).split(/[\\/]/)[0]
      if (above.includes(top)) {
        console.log(`${relative(root, file)} imports ${spec}: ${layer}/ may not import ${top}/ (imports point down: adapters -> streams -> lib)`)
        problems += 1
      }
    }
  }
}
// 3. The playground page.
const entryNames = new Set(Object.keys(entries).map((name) => (name === 'index' ? 'sluice' : `sluice/${name}`)))
for (const file of files(join(root, 'playground', 'src'))) {
  const text = readFileSync(file, 'utf8')
  for (const m of text.matchAll(specifier)) {
    const spec = m[1] ?? m[2]
    const where = relative(root, resolve(dirname(file), spec)).split(/[\\/]/)
    const allowed = spec.startsWith('.') ? where[0] === 'playground' || (where[0] === 'adapters' && where[1] === 'bench') : entryNames.has(spec)
    if (!allowed) {
      console.log(`${relative(root, file)} imports ${spec}: the playground imports the package's entry points (${[...entryNames].join(', ')}) and adapters/bench/ only`)
      problems += 1
    }
  }
}
console.log(problems === 0 ? 'imports: no cycles, none pointing up' : `imports: ${problems} problem(s)`)
process.exitCode = problems === 0 ? 0 : 1
