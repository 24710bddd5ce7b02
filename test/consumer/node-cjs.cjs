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
    // On a Node without require(esm) (before 20.19 / 22.12) the layer says what to do.
    const oldNode = async ({ check }) => {
      const { requireEsm } = require(require('node:path').join(require('node:path').dirname(resolved), 'require-esm.cjs'))
      let message = ''
      try {
        requireEsm(() => {
          throw Object.assign(new Error('require() of ES Module not supported'), { code: 'ERR_REQUIRE_ESM' })
        })
      } catch (error) {
        message = error.message
      }
      check(/needs Node 20\.19\+ or 22\.12\+/.test(message) && message.includes(process.version), `message: ${message}`)
    }
    const extra = [['require and import load the same modules (one CodecError class)', same], ['require() on a Node without require(esm): a message naming the versions', oldNode]]
    return run(process.argv[2] ?? 'node-cjs', m, undefined, [...nodeCases(m.node), ...extra])
  })
  .then((counts) => {
    process.exitCode = counts.failed === 0 ? 0 : 1
  })
