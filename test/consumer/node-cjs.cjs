// The consumer test through require(): every entry, from the installed tarball's
// CommonJS build. Usage: <runtime> node-cjs.cjs <name>
const m = {
  index: require('sluice'),
  arrow: require('sluice/arrow'),
  fetch: require('sluice/fetch'),
  hyparquet: require('sluice/hyparquet'),
  node: require('sluice/node'),
  parquet: require('sluice/parquet'),
}
// Node takes the `require` condition; Bun its own `bun` one (the ESM build, which Bun
// can require()).
const resolved = require.resolve('sluice')
if (!process.versions.bun && !resolved.endsWith('.cjs')) throw new Error(`require('sluice') resolved to ${resolved}, not the CommonJS build`)
Promise.all([import('./cases.mjs'), import('./cases-node.mjs')])
  .then(([{ run }, { nodeCases }]) => run(process.argv[2] ?? 'node-cjs', m, undefined, nodeCases(m.node)))
  .then((counts) => {
    process.exitCode = counts.failed === 0 ? 0 : 1
  })
