/** lib/sha256-sync.ts against node:crypto, on the padding boundaries and real data. */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { sha256Sync } from '../lib/sha256-sync.js'
import { randomBytes } from './_corpus.js'
import { root } from './_fixtures.js'

test('sha256Sync matches node:crypto at every padding boundary and on a real file', () => {
  const inputs = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 65_537].map((n) => randomBytes(n, n + 1))
  inputs.push(new Uint8Array(readFileSync(join(root, 'node_modules/typescript/lib/lib.es5.d.ts'))))
  for (const data of inputs) {
    assert.is(Buffer.from(sha256Sync(data)).toString('hex'), createHash('sha256').update(data).digest('hex'), `${data.length} bytes`)
  }
  // A view into a larger buffer hashes only its own bytes.
  const big = randomBytes(1000)
  assert.is(Buffer.from(sha256Sync(big.subarray(100, 300))).toString('hex'), createHash('sha256').update(big.subarray(100, 300)).digest('hex'))
})

test.run()
