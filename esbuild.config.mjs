// Builds dist/: ESM (code-split, so each engine loads lazily as its own chunk) and CJS
// bundles per entry point, then .d.ts types with tsc.
//
//   node esbuild.config.mjs          build everything
//   node esbuild.config.mjs --sizes  also print min+gzip bytes per entry point
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'

const entries = {
  index: 'streams/index.ts',
  arrow: 'adapters/arrow/index.ts',
  parquet: 'lib/parquet/index.ts',
  node: 'adapters/node/index.ts',
}
const present = Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file)))

const common = {
  bundle: true,
  target: 'es2022',
  sourcemap: true,
  legalComments: 'none',
  // Peers and runtime modules stay imports; everything else is bundled.
  external: ['apache-arrow', 'hyparquet', 'node:*'],
  logLevel: 'warning',
}

rmSync('dist', { recursive: true, force: true })

await build({
  ...common,
  entryPoints: present,
  outdir: 'dist/esm',
  format: 'esm',
  splitting: true,
  platform: 'neutral',
  mainFields: ['module', 'main'],
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.js' },
})
await build({
  ...common,
  entryPoints: present,
  outdir: 'dist/cjs',
  format: 'cjs',
  platform: 'node',
  outExtension: { '.js': '.cjs' },
})
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n')

execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })

if (process.argv.includes('--sizes')) {
  for (const [name, file] of Object.entries(present)) {
    const r = await build({ ...common, entryPoints: [file], write: false, format: 'esm', minify: true, platform: 'neutral', mainFields: ['module', 'main'] })
    const bytes = r.outputFiles[0].contents
    console.log(`${name}: ${bytes.length} bytes min, ${gzipSync(bytes).length} bytes min+gzip`)
  }
}
