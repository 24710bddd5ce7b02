/**
 * Bundle sizes per entry point (a browser bundle of the package, minified, min+gzip),
 * printed for the CI log, with the budget that can fail: a gzip/deflate-only user loads
 * at most 20 kB min+gzip (1 kB = 1000 bytes) with its default engine (the embedded
 * inflate kernel), and never any zstd/brotli code or wasm. Then the package's one build
 * (esbuild.config.mjs): what each runtime's bundler makes of it (esmTarget) embeds only
 * the small kernels (inflate and its marker kernel, LZ4, LZ4 HC, Snappy) as base64, but in workerd, and reads (Node,
 * Deno, Bun), fetches (browsers) or imports (workerd) each large engine's one `.wasm`
 * file; no browser or workerd bundle sees a `node:` import; and every target of the
 * built `imports` map is a file of the build.
 */
import { build } from 'esbuild'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
// @ts-ignore: plain ESM build scripts without types
import { measureSizes, printSizes } from '../scripts/sizes.mjs'
// @ts-ignore: plain ESM build scripts without types
import { distImports, esmBuildOptions, esmTarget, RUNTIME_CONDITIONS } from '../esbuild.config.mjs'
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
 * 20,900 since issue 29 gave the codecs in a wasm heap (zlib-ng's encoder, which this
 * user loads, zstd and brotli) one base for the contract's latch, failure offsets, the
 * stuck-engine guard and the heap's lifecycle (lib/codecs/wasm-codec.ts): what zlib-ng's
 * encoder wrote for itself moved into the small chunk the three share, which gzips less
 * well alone, and the base serves decoders too (about 180). A zstd user loads about 100
 * fewer. Measured: 20,861.
 * Issue 31 put one gzip, zlib or raw deflate stream on threads: the rule of when it runs
 * there (streams/threads-decision.ts: the format row's block family, the engine and
 * dictionary its kernels need, `index` and `onIndex`, with their error messages) and
 * the keys of its decoding streams (lib/codec-options.ts `threadsDecodeKeys`) are in
 * this user's code (about 330); the parallel inflate itself loads only with `threads`.
 * Measured in one tree: 19,304, main before it 18,975.
 */
const GZIP_ONLY_BUDGET = 20_900

test('gzip-only import: within its min+gzip budget with its codec loaded, and no zstd/brotli module', async () => {
  const sizes = await measureSizes()
  printSizes(sizes)
  const g = sizes.gzipOnly
  assert.ok(g.codecLoaded, 'the gzip codec chunk was not found behind a dynamic import')
  assert.ok(g.gzip <= GZIP_ONLY_BUDGET, `gzip-only loads ${g.gzip} bytes min+gzip, over the ${GZIP_ONLY_BUDGET}-byte budget`)
  const heavy = (g.sources as string[]).filter((s) => /zstd|brotli|lz4/.test(s))
  assert.equal(heavy, [], `a gzip-only user loads ${heavy.join(', ')}`)
})

/** How each runtime obtains zstd's, brotli's and zlib-ng's `.wasm` (one file per engine and role). */
const LOADS = {
  node: (file: string) => new RegExp(`readWasm\\("\\w+", "${file}\\.wasm", new URL\\("\\./${file}\\.wasm", import\\.meta\\.url\\)\\)`),
  browser: (file: string) => new RegExp(`fetchWasm\\("\\w+", "${file}\\.wasm", \\(\\) => new URL\\("\\./${file}\\.wasm", import\\.meta\\.url\\)\\)`),
  workerd: (file: string) => new RegExp(`import \\w+ from "\\./${file}\\.wasm"`),
}

for (const runtime of ['node', 'browser', 'workerd'] as const) {
  test(`${runtime}: large engines come from their one .wasm file, only the small kernels are base64 in the JavaScript${runtime === 'node' ? '' : ', no node: import'}`, async () => {
    const target = esmTarget(runtime, `${root}/.tmp/size-${runtime}`)
    const result = await build({ ...target, write: false, metafile: true, logLevel: 'error' })
    const inputs = Object.keys(result.metafile!.inputs)
    const embedded = inputs.filter((i) => /\.b64\.(ts|js)$/.test(i)).map((i) => /([\w-]+)\.b64\./.exec(i)![1]).sort()
    assert.equal(embedded, runtime === 'workerd' ? [] : ['inflate', 'inflate-markers', 'lz4', 'lz4hc', 'snappy'], `${runtime} embeds ${embedded.join(', ')}`)
    const js = result.outputFiles!.filter((f) => f.path.endsWith('.js')).map((f) => f.text).join('\n')
    // zstd and brotli each have a decoder and an encoder module; the deflate family's
    // encoder is zlib-ng's (its decoder is the small embedded kernel).
    for (const file of ['zstd-dec', 'zstd-enc', 'brotli-dec', 'brotli-enc', 'zlibng-deflate']) assert.match(js, LOADS[runtime](file))
    if (runtime === 'workerd') for (const kernel of ['inflate', 'inflate-markers', 'lz4', 'lz4hc', 'snappy']) assert.match(js, LOADS.workerd(kernel))
    if (runtime !== 'node') {
      const node = /(?:from\s*|import\s*\(\s*|import\s+)"node:[\w/]+"/.exec(js)
      assert.is(node, null, `a ${runtime} bundle imports ${node?.[0]}`)
    }
  })
}

test('the package build: the `#` imports stay imports, and each runtime\'s target in the built map is a file of the build', async () => {
  const options = esmBuildOptions(`${root}/.tmp/size-package`)
  const result = await build({ ...options, write: false, metafile: true, logLevel: 'error' })
  const outputs = new Set(Object.keys(result.metafile!.outputs).map((p) => p.replace(/^.*\.tmp\/size-package\//, './')))
  const imported = new Set(Object.values(result.metafile!.outputs).flatMap((o) => o.imports.filter((i) => i.path.startsWith('#')).map((i) => i.path)))
  const map = distImports('./') as Record<string, Record<string, string>>
  assert.equal([...imported].filter((s) => !(s in map)), [], 'imported but not in the map')
  for (const [specifier, byCondition] of Object.entries(map)) {
    for (const [runtime, conditions] of Object.entries(RUNTIME_CONDITIONS) as [string, string[]][]) {
      const condition = Object.keys(byCondition).find((c) => conditions.includes(c))
      assert.ok(condition, `${specifier}: no target for ${runtime}`)
      assert.ok(outputs.has(byCondition[condition!]!), `${specifier} (${runtime}): ${byCondition[condition!]} is not an output of the build`)
    }
  }
  assert.ok(['#worker-host', '#node-engine', '#wasm/zstd-dec', '#wasm/inflate'].every((s) => imported.has(s)), [...imported].join(', '))
})

test.run()
