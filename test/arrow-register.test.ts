import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import * as esm from 'apache-arrow'
import { CodecError } from '../lib/errors.js'
import { readArrow } from '../adapters/arrow/read.js'
import { arrowEncode, registerArrowCodecs } from '../adapters/arrow/index.js'
import { collect, diffTables } from './arrow-oracle.js'
import { fixture } from './_fixtures.js'

// Load apache-arrow's CommonJS build too: a second module instance with its own registry.
const cjs = createRequire(import.meta.url)('apache-arrow') as typeof esm
const { CompressionType } = esm

const compressionDir = fixture('arrow-testing', 'arrow-ipc-stream', 'integration', '2.0.0-compression')

test('unsupported codec names fail explicitly', async () => {
  try {
    await registerArrowCodecs({ codecs: ['snappy' as never] })
    assert.unreachable()
  } catch (e) {
    assert.instance(e, CodecError)
    assert.is((e as CodecError).code, 'INVALID_OPTION')
  }
  assert.is(esm.compressionRegistry.get(CompressionType.LZ4_FRAME), null, 'nothing was registered')
})

test('registers into both the ESM and the CommonJS instance', async () => {
  assert.ok(cjs.compressionRegistry !== esm.compressionRegistry, 'two registries')
  await registerArrowCodecs()
  for (const r of [esm.compressionRegistry, cjs.compressionRegistry]) {
    assert.ok(r.get(CompressionType.LZ4_FRAME)?.decode)
    assert.ok(r.get(CompressionType.ZSTD)?.encode)
  }
})

if (!compressionDir || !existsSync(compressionDir)) {
  console.log('# skipped: arrow-testing 2.0.0-compression fixtures not found')
  test.skip('apache-arrow reads the compressed integration files with our codecs')
} else {
  test('apache-arrow (ESM and CJS) reads the compressed integration files with our codecs', async () => {
    for (const name of ['generated_lz4', 'generated_zstd', 'generated_uncompressible_lz4', 'generated_uncompressible_zstd']) {
      for (const ext of ['.stream', '.arrow_file']) {
        const bytes = new Uint8Array(readFileSync(join(compressionDir, name + ext)))
        const ours = await readArrow(bytes)
        assert.is(diffTables(ours, esm.tableFromIPC(bytes)), null, `${name}${ext} (ESM)`)
        const viaCjs = cjs.tableFromIPC(bytes)
        assert.is(viaCjs.numRows, ours.numRows)
        assert.is(JSON.stringify(viaCjs.toArray(), (_, v) => (typeof v === 'bigint' ? `${v}` : v)), JSON.stringify(ours.toArray(), (_, v) => (typeof v === 'bigint' ? `${v}` : v)))
      }
    }
  })
}

function sample(): esm.Table {
  const n = 20000
  return new esm.Table({
    i: esm.vectorFromArray(Int32Array.from({ length: n }, (_, k) => k % 1000)),
    s: esm.vectorFromArray(Array.from({ length: n }, (_, k) => (k % 17 === 0 ? null : `name ${k % 300}`)), new esm.Utf8()),
  })
}

for (const [name, type] of [['lz4', CompressionType.LZ4_FRAME], ['zstd', CompressionType.ZSTD]] as const) {
  test(`${name}: apache-arrow's writer with our encoder -> apache-arrow's reader and ours`, async () => {
    const table = sample()
    // apache-arrow 21.2 writes the compressed length as the prefix; our decode copes.
    const bytes = esm.RecordBatchStreamWriter.writeAll(table, { compressionType: type } as never).toUint8Array(true)
    assert.is(diffTables(esm.tableFromIPC(bytes), table), null)
    assert.is(diffTables(await readArrow(bytes), table), null)
  })

  test(`${name}: our writer -> apache-arrow's reader with our decoder (exact-length path)`, async () => {
    const table = sample()
    const source = new ReadableStream<esm.Table>({ start(c) { c.enqueue(table); c.close() } })
    const parts = await collect(source.pipeThrough(arrowEncode({ compression: name })))
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
    let at = 0
    for (const p of parts) { bytes.set(p, at); at += p.length }
    assert.is(diffTables(esm.tableFromIPC(bytes), table), null)
  })

  test(`${name}: decode without a prefix before the data, and corrupt frames throw`, () => {
    const codec = esm.compressionRegistry.get(type)!
    const text = new TextEncoder().encode('sluice '.repeat(5000))
    const frame = codec.encode!(text)
    assert.ok(frame.length < text.length)
    // A fresh buffer: nothing precedes the frame, so the length comes from decoding.
    assert.equal(codec.decode!(frame.slice()), text)
    // A wrong prefix before the data is not trusted over the frame.
    const withPrefix = new Uint8Array(8 + frame.length)
    new DataView(withPrefix.buffer).setBigInt64(0, 10n, true)
    withPrefix.set(frame, 8)
    assert.equal(codec.decode!(withPrefix.subarray(8)), text)
    const corrupt = frame.slice()
    corrupt[Math.floor(corrupt.length / 2)]! ^= 0xff
    corrupt[corrupt.length - 2]! ^= 0xff
    assert.throws(() => codec.decode!(corrupt), (e: unknown) => e instanceof CodecError)
  })
}

test.run()
