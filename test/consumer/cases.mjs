// The consumer test's cases (scripts/consumer.mjs), plain JavaScript so that every
// runtime and bundler takes it as it is: each format the package's entries expose,
// round-tripped through the installed tarball. `m` holds the entries as the runtime or
// bundler resolved them: { index, fetch, hyparquet } always, { arrow, parquet }
// where the caller has them; `extra` holds [name, fn] cases of the caller's own
// (cases-node.mjs: Node's streams, which bundlers for the web must not see).

const text = 'sluice consumer test: the same line again and again, with a number. '
const plain = new TextEncoder().encode(Array.from({ length: 2000 }, (_, i) => `${text}${i}\n`).join(''))

const equal = (a, b) => a.length === b.length && a.every((v, i) => v === b[i])

async function collect(stream) {
  const parts = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parts.push(value)
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

const streamOf = (bytes) => new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) })

/** Runs the cases; `log` gets one `ok <name>` or `FAIL <name> | <error>` line each. */
export async function run(runtime, m, log = (line) => console.log(line), extra = []) {
  const counts = { passed: 0, failed: 0 }
  const test = async (name, fn) => {
    try {
      await fn()
      counts.passed++
      log(`ok ${runtime} | ${name}`)
    } catch (error) {
      counts.failed++
      log(`FAIL ${runtime} | ${name} | ${error?.code ? `[${error.code}] ` : ''}${error?.message ?? error}`)
    }
  }
  const check = (ok, what) => {
    if (!ok) throw new Error(what)
  }

  for (const format of ['gzip', 'deflate', 'deflate-raw', 'brotli', 'zstd', 'lz4']) {
    await test(`sluice: ${format} encode/decode round trip`, async () => {
      const packed = await m.index.encode(format, plain)
      check(packed.length < plain.length, `${format}: ${packed.length} bytes packed from ${plain.length}`)
      check(equal(await m.index.decode(format, packed), plain), `${format}: decoded bytes differ`)
    })
  }
  await test('sluice: CompressionStream/DecompressionStream zstd, brotli, lz4 streams', async () => {
    for (const format of ['zstd', 'brotli', 'lz4']) {
      const packed = await collect(streamOf(plain).pipeThrough(new m.index.CompressionStream(format)))
      check(equal(await collect(streamOf(packed).pipeThrough(new m.index.DecompressionStream(format))), plain), `${format}: stream round trip differs`)
    }
  })
  await test('sluice/fetch: decodeResponse of a zstd, br, gzip body', async () => {
    const zstd = await m.index.encode('zstd', await m.index.encode('brotli', await m.index.encode('gzip', plain)))
    const response = m.fetch.decodeResponse(new Response(zstd, { headers: { 'content-encoding': 'gzip, br, zstd' } }))
    check(equal(new Uint8Array(await response.arrayBuffer()), plain), 'decoded body differs')
  })
  await test('sluice/hyparquet: GZIP, ZSTD, BROTLI decompressors', async () => {
    const compressors = await m.hyparquet.loadParquetCompressors()
    for (const [codec, format] of [['GZIP', 'gzip'], ['ZSTD', 'zstd'], ['BROTLI', 'brotli']]) {
      const out = compressors[codec](await m.index.encode(format, plain), plain.length)
      check(equal(out, plain), `${codec}: decompressed bytes differ`)
    }
  })
  if (m.parquet) {
    await test('sluice/parquet: entry loads', () => {
      check(typeof m.parquet.parquetMetadata === 'function' && typeof m.parquet.decodeFileMetaData === 'function', 'parquetMetadata/decodeFileMetaData missing')
    })
  }
  if (m.arrow) {
    await test('sluice/arrow: entry loads', () => {
      check(typeof m.arrow.arrowDecode === 'function' && typeof m.arrow.arrowEncode === 'function' && typeof m.arrow.registerArrowCodecs === 'function', 'arrowDecode/arrowEncode/registerArrowCodecs missing')
    })
  }
  for (const [name, fn] of extra) await test(name, () => fn({ plain, equal, check }))
  log(`RESULT ${JSON.stringify({ runtime, ...counts })}`)
  return counts
}
