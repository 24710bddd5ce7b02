// The package.json that npm publishes: the repository's, with what only makes sense in
// the repository replaced. `scripts` go (`prepare` extracts the wasm engines from files
// the package does not ship; the others build and test a checkout). `imports` are
// rewritten: the repository's map the `#` specifiers to the TypeScript sources (for tsx,
// the tests and tsc); the published ones map them to the build's files in dist/esm/, by
// condition (esbuild.config.mjs distImports: which worker host, node:zlib or not, how each
// `.wasm` loads). devDependencies stay: npm ignores them when installing a dependency.
//
//   node scripts/publish-manifest.mjs strip     package.json -> the published form
//                                               (the repository's kept in .tmp/)
//   node scripts/publish-manifest.mjs restore   puts the repository's back
//
// `npm pack` and `npm publish` run them as `prepack` and `postpack`. With
// `--ignore-scripts` npm runs neither, so scripts/pack-check.mjs's pack() calls them
// itself around `npm pack --ignore-scripts`, and checks the tarball's package.json.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { distImports, runtimeImports } from '../esbuild.config.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const manifest = join(root, 'package.json')
const saved = join(root, '.tmp', 'package.repository.json')

/** Fields of the repository's package.json that the published one leaves out. */
export const REPOSITORY_ONLY = Object.freeze(['scripts'])

/** Where the build's files are, as the published `imports` name them. */
export const BUILD_DIR = './dist/esm/'

/** The published form of a package.json object: no `scripts`, the `imports` of the build. */
export function published(pkg) {
  const out = { ...pkg }
  for (const key of REPOSITORY_ONLY) delete out[key]
  if (pkg.imports) out.imports = distImports(BUILD_DIR, runtimeImports(pkg.imports))
  return out
}

/** Writes the published package.json, keeping the repository's in .tmp/. */
export function strip() {
  if (existsSync(saved)) restore() // a pack that died before postpack
  mkdirSync(dirname(saved), { recursive: true })
  copyFileSync(manifest, saved)
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'))
  writeFileSync(manifest, `${JSON.stringify(published(pkg), null, 2)}\n`)
}

/** Puts the repository's package.json back (nothing to do when it is there). */
export function restore() {
  if (existsSync(saved)) renameSync(saved, manifest)
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const command = process.argv[2]
  if (command === 'strip') strip()
  else if (command === 'restore') restore()
  else {
    console.error('usage: node scripts/publish-manifest.mjs strip|restore')
    process.exitCode = 2
  }
}
