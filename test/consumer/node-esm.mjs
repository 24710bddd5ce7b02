// The consumer test in Node, Deno and Bun (ESM): every entry as the runtime resolves it
// from the installed tarball. Usage: <runtime> node-esm.mjs <name>
import * as index from 'sluice'
import * as arrow from 'sluice/arrow'
import * as fetch from 'sluice/fetch'
import * as hyparquet from 'sluice/hyparquet'
import * as node from 'sluice/node'
import * as parquet from 'sluice/parquet'
import { nodeCases } from './cases-node.mjs'
import { run } from './cases.mjs'

const counts = await run(process.argv[2] ?? 'node-esm', { index, arrow, fetch, hyparquet, parquet }, undefined, nodeCases(node))
process.exitCode = counts.failed === 0 ? 0 : 1
