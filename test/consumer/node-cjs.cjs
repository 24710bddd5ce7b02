// The consumer test through require(): every entry, from the installed tarball's
// CommonJS layer (dist/cjs: each entry require()s the ES module build, require(esm)).
// Usage: <runtime> node-cjs.cjs <name>
const m = {
  index: require('sluice'),
  arrow: require('sluice/arrow'),
  fetch: require('sluice/fetch'),
  hyparquet: require('sluice/hyparquet'),
  node: require('sluice/node'),
  parquet: require('sluice/parquet'),
}
// Node and Bun take the `require` condition: dist/cjs/index.cjs, which loads the same
// ES modules that import('sluice') does (one CodecError class for both).
const resolved = require.resolve('sluice')
if (!resolved.endsWith('.cjs')) throw new Error(`require('sluice') resolved to ${resolved}, not the CommonJS layer`)
Promise.all([import('./cases.mjs'), import('./cases-node.mjs')])
  .then(([{ run }, { nodeCases }]) => {
    const same = async ({ check }) => {
      const esm = await import('sluice')
      check(esm.CodecError === m.index.CodecError && esm.encode === m.index.encode, 'require() and import() loaded different copies of the package')
    }
    return run(process.argv[2] ?? 'node-cjs', m, undefined, [...nodeCases(m.node), ['require and import load the same modules (one CodecError class)', same]])
  })
  .then((counts) => {
    process.exitCode = counts.failed === 0 ? 0 : 1
  })
