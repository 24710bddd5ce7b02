/**
 * Bundle sizes per entry point (browser build, minified, min+gzip), printed for the CI
 * log, with the budget that can fail: a gzip/deflate-only user loads at most 20 kB
 * min+gzip (1 kB = 1000 bytes) with its default engine (the embedded inflate kernel),
 * and never any zstd/brotli code or wasm. The ESM and browser builds embed only the
 * small kernels (inflate, LZ4, Snappy) as base64 and read / fetch the large engines' one `.wasm`
 * file; workerd imports every `.wasm` as a module (it refuses to compile bytes).
 */
import { build } from 'esbuild'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
// @ts-ignore: plain ESM build scripts without types
import { measureSizes, printSizes } from '../scripts/sizes.mjs'
// @ts-ignore: plain ESM build scripts without types
import { esmTarget } from '../esbuild.config.mjs'
import { root } from './_fixtures.js'

/**
 * The budget for a gzip/deflate-only import with its default codec loaded, min+gzip
 * bytes. 20,000 until issue 20 added about 210 bytes to it: the stream shell as a class
 * (its state in private fields, each use `this.#x`, where closure variables minified to
 * one letter: about 90) and gzip's reading of the bytes after the last member (zero
 * padding accepted, anything else TRAILING_DATA: about 120). Measured: 20,139.
 *
 * 20,500 since issue 22 gave the encoder factories `threads` and `blockSize`: their
 * checks at the call (the format table's block facts, `checkBlockSize`,
 * `checkThreadsForm`: about 330) and the pair that loads block mode on first use
 * (about 560); the codec's file hands block mode the deflate wrappers and checksums
 * (`blockTools`: about 160). Everything else of threads loads only when asked for.
 * Main was 19,342 before; measured with threads: 20,396.
 *
 * 20,600 since the decoding streams took `threads` too (parallel zstd and LZ4
 * decoding): their check at the call and the lazy pair they share with block mode
 * (about 130). Measured: 20,523.
 *
 * 20,700 since Arrow's buffers and LZ4 blocks became jobs too: the leaf chunk a
 * gzip-only user shares with them keeps `statusName` and a few more exports (about
 * 100). Measured: 20,626. Every other part of threads still loads only when asked for.
 * 20,750 since the threads implementation is loaded once per realm rather than by an
 * `import()` per stream (each resolved the module again: 0.3 ms a call under a loader's
 * hooks), and a failed load is tried again (about 70). Measured: 20,693.
 */
const GZIP_ONLY_BUDGET = 20_750

test('gzip-only import: within its min+gzip budget with its codec loaded, and no zstd/brotli module', async () => {
  const sizes = await measureSizes()
  printSizes(sizes)
  const g = sizes.gzipOnly
  assert.ok(g.codecLoaded, 'the gzip codec chunk was not found behind a dynamic import')
  assert.ok(g.gzip <= GZIP_ONLY_BUDGET, `gzip-only loads ${g.gzip} bytes min+gzip, over the ${GZIP_ONLY_BUDGET}-byte budget`)
  const heavy = (g.sources as string[]).filter((s) => /zstd|brotli|lz4/.test(s))
  assert.equal(heavy, [], `a gzip-only user loads ${heavy.join(', ')}`)
})

for (const kind of ['esm', 'browser', 'workerd'] as const) {
  test(`${kind} build: large engines come from their one .wasm file, only the small kernels are base64 in the JavaScript`, async () => {
    const target = esmTarget(kind, `${root}/.tmp/size-${kind}`)
    const result = await build({ ...target, write: false, metafile: true, logLevel: 'error' })
    const inputs = Object.keys(result.metafile!.inputs)
    const embedded = inputs.filter((i) => /\.b64\.(ts|js)$/.test(i)).map((i) => /([\w-]+)\.b64\./.exec(i)![1]).sort()
    assert.equal(embedded, kind === 'workerd' ? [] : ['inflate', 'inflate-markers', 'lz4', 'snappy'], `${kind} build embeds ${embedded.join(', ')}`)
    const js = result.outputFiles!.filter((f) => f.path.endsWith('.js')).map((f) => f.text).join('\n')
    // One file per engine and role: zstd and brotli each have a decoder and an encoder module,
    // the deflate family's encoder is zlib-ng's (its decoder is the small embedded kernel).
    for (const file of ['zstd-dec', 'zstd-enc', 'brotli-dec', 'brotli-enc', 'zlibng-deflate']) {
      const expected = {
        esm: new RegExp(`new URL\\("\\.\\./browser/${file}\\.wasm", import\\.meta\\.url\\)`),
        browser: new RegExp(`new URL\\("\\./${file}\\.wasm",\\s*import\\.meta\\.url\\)`),
        workerd: new RegExp(`from\\s*"\\.\\./browser/${file}\\.wasm"`),
      }[kind]
      assert.match(js, expected)
    }
  })
}

test.run()
