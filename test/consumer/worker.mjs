// The consumer test as a Cloudflare Worker (`workerd test`), bundled from the installed
// tarball by wrangler (`wrangler deploy --dry-run --outdir`: the `workerd` condition,
// each `.wasm` import a module).
import * as index from 'sluice'
import * as fetch from 'sluice/fetch'
import * as hyparquet from 'sluice/hyparquet'
import * as parquet from 'sluice/parquet'
import { run } from './cases.mjs'

export default {
  async test() {
    const counts = await run('workerd', { index, fetch, hyparquet, parquet })
    if (counts.failed > 0) throw new Error(`${counts.failed} case(s) failed`)
  },
}
