/**
 * Bundle sizes per entry point (browser build, minified, min+gzip), printed for the CI
 * log, with the budget that can fail: a gzip/deflate-only user loads at most 15 kB
 * min+gzip (1 kB = 1000 bytes), and never any zstd/brotli code or wasm. The browser and
 * workerd builds must not embed wasm as base64 (they fetch / import `.wasm` files).
 */
import { build } from 'esbuild'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
// @ts-ignore: plain ESM build scripts without types
import { measureSizes, printSizes } from '../scripts/sizes.mjs'
// @ts-ignore: plain ESM build scripts without types
import { esmTarget } from '../esbuild.config.mjs'
import { root } from './_fixtures.js'

/** The budget for a gzip/deflate-only import, min+gzip bytes. */
const GZIP_ONLY_BUDGET = 15_000

test('gzip-only import: within 15 kB min+gzip with its codec loaded, and no zstd/brotli/wasm module', async () => {
  const sizes = await measureSizes()
  printSizes(sizes)
  const g = sizes.gzipOnly
  assert.ok(g.codecLoaded, 'the gzip codec chunk was not found behind a dynamic import')
  assert.ok(g.gzip <= GZIP_ONLY_BUDGET, `gzip-only loads ${g.gzip} bytes min+gzip, over the ${GZIP_ONLY_BUDGET}-byte budget`)
  const heavy = (g.sources as string[]).filter((s) => /zstd|brotli|wasm/.test(s))
  assert.equal(heavy, [], `a gzip-only user loads ${heavy.join(', ')}`)
})

for (const kind of ['browser', 'workerd'] as const) {
  test(`${kind} build: wasm comes from .wasm files, never base64 in the JavaScript`, async () => {
    const target = esmTarget(kind, `${root}/.tmp/size-${kind}`)
    const result = await build({ ...target, write: false, metafile: true, logLevel: 'error' })
    const inputs = Object.keys(result.metafile!.inputs)
    const embedded = inputs.filter((i) => /\.b64\.(ts|js)$/.test(i))
    assert.equal(embedded, [], `${kind} build embeds ${embedded.join(', ')}`)
    const js = result.outputFiles!.filter((f) => f.path.endsWith('.js')).map((f) => f.text).join('\n')
    assert.match(js, kind === 'browser' ? /new URL\("\.\/zstd\.wasm", import\.meta\.url\)/ : /from "\.\/zstd\.wasm"/)
  })
}

test.run()
