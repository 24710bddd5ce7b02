// The consumer test as a web page: bundled by esbuild, Vite and webpack from the installed
// tarball (`browser` condition), run in headless Chromium under a Content-Security-Policy
// that allows WebAssembly ('wasm-unsafe-eval') and nothing inline. The page's title
// names the bundler; the result lands in globalThis.__result.
import * as index from 'sluice'
import * as fetch from 'sluice/fetch'
import * as hyparquet from 'sluice/hyparquet'
import * as parquet from 'sluice/parquet'
import { run } from './cases.mjs'

const lines = []
run(document.title, { index, fetch, hyparquet, parquet }, (line) => {
  lines.push(line)
  console.log(line)
}).then(
  (counts) => (globalThis.__result = { ...counts, lines }),
  (error) => (globalThis.__result = { passed: 0, failed: 1, lines: [...lines, `FAIL ${document.title} | ${error?.message ?? error}`] }),
)
