// The playground page (playground/, docs/playground.md) in headless Chromium (Debian's,
// driven by playwright-core): built by playground/build.mjs into a scratch folder and
// served from a loopback static server with nothing but the built files. A user's steps:
// choose 2 MB of real text in the file input, wait for every row of the default grid,
// the two charts and the table; the table's sizes must be those `sluice bench --json`
// prints for the same file (the CLI from source, in child processes); one row's download
// is decoded by the zstd CLI. Then a zstd CLI frame and a gzip member are dropped into
// the inspect panel: the kind, the decoded bytes and the text `sluice inspect` prints
// for the same files. A screenshot of the page is written to .tmp/playground/ (ignored
// by git), its path printed.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { extname, join, normalize } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { hasCli } from './_cli.js'
import { filesCorpus } from './_corpus.js'
import { root } from './_fixtures.js'
import { CHROMIUM, HAS_CHROMIUM, listen } from './_http.js'
import { sluiceIn } from './_sluice.js'
// @ts-ignore: plain ESM build script without types
import { buildPlayground } from '../playground/build.mjs'

const HAS_TOOLS = hasCli('zstd') && hasCli('gzip')
if (!HAS_CHROMIUM) console.log('# skipped: the playground page: /usr/bin/chromium is not installed (apt-get install -y chromium)')
else if (!HAS_TOOLS) console.log('# skipped: the playground page: the zstd and gzip CLIs make its inspect samples (apt-get install -y zstd gzip)')

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' }
const SCREENSHOT = join(root, '.tmp', 'playground', 'playground.png')

interface PageRow {
  format: string
  level: number
  threads: string
  bytes: number
}

;(HAS_CHROMIUM && HAS_TOOLS ? test : test.skip)('the page benches a chosen file as sluice bench --json does, downloads a row, and detects, decodes and inspects dropped files as sluice inspect does', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-playground-'))
  const site = join(dir, 'site')
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  })
  try {
    await buildPlayground(site)
    // A static server: the built files and nothing else.
    const server = await listen((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      const file = normalize(join(site, path === '/' ? 'index.html' : path))
      try {
        if (!file.startsWith(site)) throw new Error('outside the site')
        const body = readFileSync(file)
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
        res.end(body)
      } catch {
        res.writeHead(404)
        res.end()
      }
    })
    try {
      const sample = filesCorpus(join(root, 'node_modules/typescript/lib'), 2_000_000, /\.d\.ts$/)
      writeFileSync(join(dir, 'sample.txt'), sample)
      execFileSync('sh', ['-c', 'zstd -q -3 -c sample.txt > sample.txt.zst && gzip -c -9 -N sample.txt > sample.txt.gz'], { cwd: dir })

      const page = await browser.newPage({ acceptDownloads: true, viewport: { width: 1200, height: 900 } })
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(String(error)))
      await page.goto(server.url)
      await page.waitForSelector('body[data-ready=true]')

      // The bench: the default grid, one timed round a row (sizes do not depend on it).
      await page.fill('#rounds', '1')
      await page.setInputFiles('#bench-file', join(dir, 'sample.txt'))
      await page.waitForFunction(() => document.querySelectorAll('#results tbody tr').length > 0 && !document.querySelector('#results tbody tr[data-state=queued], #results tbody tr[data-state=running]') && document.querySelector('#bench-stop')!.hasAttribute('hidden'), null, { timeout: 15 * 60_000, polling: 500 })
      const rows: PageRow[] = await page.$$eval('#results tbody tr', (trs) =>
        trs.map((tr) => {
          const d = (tr as HTMLElement).dataset
          if (d.state !== 'done') throw new Error(`row ${tr.id}: ${tr.textContent}`)
          return { format: d.format!, level: Number(d.level), threads: d.threads!, bytes: Number(d.bytes) }
        }),
      )

      const cli = sluiceIn(dir, ['bench', '--json', '--rounds=1', 'sample.txt'])
      assert.is(cli.status, 0, cli.stderr)
      const bench = JSON.parse(cli.stdout.toString()) as Array<{ format: string; level: number; threads: number | string; outputBytes: number; inputBytes: number }>
      assert.is(bench.length, rows.length, 'the page runs the rows sluice bench runs')
      assert.ok(bench.length >= 10, `the default grid has ${bench.length} rows`)
      for (const b of bench) {
        const row = rows.find((r) => r.format === b.format && r.level === b.level && r.threads === String(b.threads))
        assert.ok(row, `the page has no row ${b.format} -${b.level}`)
        assert.is(b.inputBytes, sample.length)
        assert.is(row!.bytes, b.outputBytes, `${b.format} -${b.level}: the page's size is sluice bench's`)
      }

      // The charts: encode and decode, a focusable, labelled point per row, a front each.
      const charts = await page.$$eval('#charts svg', (svgs) =>
        svgs.map((svg) => ({
          title: svg.querySelector('title')?.textContent ?? '',
          desc: svg.querySelector('desc')?.textContent ?? '',
          points: [...svg.querySelectorAll('.point')].map((p) => ({ tabindex: p.getAttribute('tabindex'), label: p.getAttribute('aria-label') ?? '' })),
          onFront: svg.querySelectorAll('.point.on-front').length,
        })),
      )
      assert.is(charts.length, 2)
      for (const [i, chart] of charts.entries()) {
        assert.match(chart.title, i === 0 ? /encode speed/ : /decode speed/)
        assert.match(chart.desc, /Pareto front/)
        assert.is(chart.points.length, rows.length)
        assert.ok(chart.points.every((p) => p.tabindex === '0' && /ratio ×[\d.]+, (en|de)code [\d.]+ MB\/s/.test(p.label)), JSON.stringify(chart.points[0]))
        assert.ok(chart.onFront >= 1 && chart.onFront < rows.length, `${chart.onFront} of ${rows.length} on the front`)
      }
      // Focusing a point highlights its table row.
      await page.focus('#charts svg .point')
      assert.is(await page.$$eval('#results tr.highlight', (trs) => trs.length), 1)

      // One row's download: the bytes `sluice compress -3` writes, read by the zstd CLI.
      const zstd3 = rows.find((r) => r.format === 'zstd' && r.level === 3)!
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#row-zstd-3-1 button.download')])
      assert.is(download.suggestedFilename(), 'sample.txt.zst')
      const saved = join(dir, 'downloaded.zst')
      await download.saveAs(saved)
      assert.is(readFileSync(saved).length, zstd3.bytes)
      assert.ok(execFileSync('zstd', ['-q', '-dc', saved], { maxBuffer: 1 << 26 }).equals(Buffer.from(sample)), 'zstd -d of the download is the sample')

      // Inspect: a zstd CLI frame and a gzip member, as `sluice inspect` shows them.
      for (const [file, kind] of [['sample.txt.zst', 'zstd'], ['sample.txt.gz', 'gzip']] as const) {
        await page.setInputFiles('#inspect-file', join(dir, file))
        await page.waitForFunction((name) => document.querySelector('#inspect-status')!.textContent === `${name}: done.`, file, { timeout: 120_000 })
        assert.is(await page.textContent('#inspect-kind'), kind)
        assert.is(await page.getAttribute('#inspect-decoded-bytes', 'data-bytes'), String(sample.length), `${file}: decoded size`)
        const text = sluiceIn(dir, ['inspect', file])
        assert.is(text.status, 0, text.stderr)
        assert.is(`${await page.textContent('#inspect-text')}\n`, text.stdout.toString(), `${file}: the page's report is sluice inspect's`)
        assert.ok((await page.textContent('#inspect-decoded pre.preview'))!.startsWith(new TextDecoder().decode(sample.subarray(0, 100))), `${file}: the decoded text's start`)
      }

      mkdirSync(join(root, '.tmp', 'playground'), { recursive: true })
      await page.screenshot({ path: SCREENSHOT, fullPage: true })
      console.log(`# screenshot: ${SCREENSHOT}`)
      assert.equal(problems, [])
    } finally {
      await server.close()
    }
  } finally {
    await browser.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
