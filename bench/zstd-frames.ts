// Many small zstd frames with a dictionary: 1,000 real documents of 2-5 KB (.d.ts,
// package.json and README.md files from node_modules), each its own frame, decoded
// through one decoder, as a service that receives small compressed documents does. The
// dictionary is trained by the `zstd` CLI (`zstd --train`, RFC 8878 section 5) on every
// 4th document and the frames are the others (repeated to 1,000); a raw-content
// dictionary (the same training documents concatenated) for comparison. What the rows
// measure is the per-frame cost around libzstd: setting up a frame, loading the
// dictionary, the staging.
//
// Rows: decodeStream over the concatenated frames in 64 KiB chunks; decode() of the
// concatenation; one span decoder, reset() between frames given one by one. CPU time of
// this process, best of N interleaved rounds, in frames per millisecond and MB/s of
// output.
//
// Usage: node --import tsx bench/zstd-frames.ts [rounds] [maxdict bytes, default 112640]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDecoder } from '../lib/registry.js'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import { Status } from '../lib/status.js'
import { decodeStream } from '../streams/index.js'
import { concatBytes } from './_bytes.js'
import { chunks, drain, root, streamOf } from './corpus.js'

const rounds = Number(process.argv[2] ?? 7)
const maxdict = Number(process.argv[3] ?? 112640)
const FRAMES = 1000

/** Files named like `match` of 2-5 KB under `dir`, sorted by path. */
function documents(dir: string, match: RegExp, out: Uint8Array[] = []): Uint8Array[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name)
    const st = statSync(p)
    if (st.isDirectory()) documents(p, match, out)
    else if (match.test(name) && st.size >= 2000 && st.size <= 5000) out.push(new Uint8Array(readFileSync(p)))
  }
  return out
}

const docs = documents(join(root, 'node_modules'), /(\.d\.ts|^package\.json|^README\.md)$/)
const samples = docs.filter((_, k) => k % 4 === 0)
const inputs = docs.filter((_, k) => k % 4 !== 0)

function train(): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'zstd-train-'))
  try {
    const paths = samples.map((s, k) => {
      const path = join(dir, `s${k}`)
      writeFileSync(path, s)
      return path
    })
    const out = join(dir, 'dict')
    const r = spawnSync('zstd', ['-q', '--train', ...paths, '-o', out, `--maxdict=${maxdict}`])
    if (r.status !== 0) throw new Error(`zstd --train: ${r.stderr}`)
    return new Uint8Array(readFileSync(out))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const dictionaries = { trained: train(), raw: concatBytes(samples).subarray(0, maxdict) }
console.log(`${docs.length} documents of 2-5 KB: ${samples.length} to train on, ${FRAMES} frames from the other ${inputs.length}; dictionaries: trained ${dictionaries.trained.length} B, raw ${dictionaries.raw.length} B`)

interface Row {
  name: string
  run: () => Promise<number>
  ms: number
}
const rows: Row[] = []
let content = 0

for (const [kind, dictionary] of Object.entries(dictionaries)) {
  const frames: Uint8Array[] = []
  content = 0
  for (let k = 0; k < FRAMES; k++) {
    const doc = inputs[k % inputs.length]!
    frames.push(await encode('zstd', doc, { dictionary }))
    content += doc.length
  }
  const all = concatBytes(frames)
  const parts = chunks(all, 64 * 1024)
  const expect = content
  const check = (n: number): number => {
    if (n !== expect) throw new Error(`${kind}: ${n} bytes decoded, expected ${expect}`)
    return n
  }
  rows.push({ name: `${kind}: decodeStream, 64 KiB chunks`, run: async () => check(await drain(streamOf(parts).pipeThrough(decodeStream('zstd', { dictionary })))), ms: Infinity })
  rows.push({ name: `${kind}: decode() of the concatenation`, run: async () => check((await decode('zstd', all, { dictionary })).length), ms: Infinity })
  const decoder = await createDecoder('zstd', { dictionary })
  const dst = new Uint8Array(64 * 1024)
  rows.push({
    name: `${kind}: span decoder, reset() per frame`,
    run: async () => {
      let n = 0
      for (const frame of frames) {
        decoder.reset()
        if (decoder.transform(frame, dst, true) !== Status.Done) throw new Error(`${kind}: ${decoder.failure?.message}`)
        n += decoder.written
      }
      return check(n)
    },
    ms: Infinity,
  })
}

for (const row of rows) await row.run() // checked, untimed
for (let round = 0; round < rounds; round++) {
  for (const row of rows) {
    const t0 = process.cpuUsage()
    await row.run()
    const used = process.cpuUsage(t0)
    row.ms = Math.min(row.ms, (used.user + used.system) / 1000)
  }
}
// Markdown (scripts/bench-docs.mjs writes it into docs/performance.md).
console.log(`\n| decoder, CPU time, best of ${rounds} rounds | frames/ms | MB/s |\n|---|---:|---:|`)
for (const row of rows) {
  console.log(`| ${row.name} | ${(FRAMES / row.ms).toFixed(1)} | ${(content / 1e3 / row.ms).toFixed(0)} |`)
}
