// The zstd engine's dictionary and prefix entry points (lib/codecs/wasm/zstd-engine.ts),
// driven at the span level through libzstd's streaming calls, against the `zstd` CLI
// (Debian package `zstd`) as the oracle: trained dictionaries (`zstd --train`, magic
// 37 A4 30 EC), raw-content dictionaries (`zstd -D` on any other file) and prefixes
// (`zstd --patch-from`), both ways.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  loadZstdDecoderEngine,
  loadZstdEncoderEngine,
  ZSTD_c_checksumFlag,
  ZSTD_c_compressionLevel,
  ZSTD_e_continue,
  ZSTD_e_end,
  ZSTD_reset_session_only,
  zstdErrorCode,
  type ZstdEngine,
} from '../lib/codecs/wasm/zstd-engine.js'
import { root } from './_fixtures.js'
import { concatBytes as concat } from './_bytes.js'

const hasCli = (() => {
  try {
    execFileSync('zstd', ['--version'])
    return true
  } catch {
    return false
  }
})()
if (!hasCli) console.log('# skipped: the zstd CLI is not installed (apt-get install -y zstd)')
const cliTest = hasCli ? test : test.skip

// Two modules, two memories: the decoder's (x, heap) and the encoder's.
const decoderEngine = await loadZstdDecoderEngine()
const { exports: x, heap } = decoderEngine
const encoder = await loadZstdEncoderEngine()
const scratch = mkdtempSync(join(tmpdir(), 'sluice-zstd-dict-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0
const file = (name: string, bytes: Uint8Array): string => {
  const path = join(scratch, name)
  writeFileSync(path, bytes)
  return path
}
const cli = (args: string[]): Uint8Array => new Uint8Array(execFileSync('zstd', ['-q', '-c', ...args], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] }))

/** Samples: the project's own TypeScript sources, which share a lot of vocabulary. */
const libDir = join(root, 'lib', 'codecs')
const samples = readdirSync(libDir)
  .filter((n) => n.endsWith('.ts'))
  .sort()
  .map((n) => new Uint8Array(readFileSync(join(libDir, n))))
const message = new Uint8Array(readFileSync(join(root, 'lib', 'codecs', 'wasm', 'zstd-engine.ts'))).subarray(0, 3000)

/** Copies `bytes` into the memory of `into` (the decoder's by default); the caller frees the pointer. */
function copyIn(bytes: Uint8Array, into: ZstdEngine = decoderEngine): number {
  const pointer = into.exports.malloc(Math.max(1, bytes.length))
  into.heap.refresh()
  into.heap.bytes.set(bytes, pointer)
  return pointer
}

/** Which dictionary a stream call uses: none, a loaded (copied) one, or a referenced prefix. */
type Use = { kind: 'none' } | { kind: 'load' | 'prefix'; bytes: Uint8Array }

/**
 * Streams `input` through ZSTD_decompressStream_simpleArgs with 1-byte to 4 KiB input
 * pieces and a 1000-byte output room, the dictionary applied as `use` says.
 */
function decode(frame: Uint8Array, use: Use): { out: Uint8Array; error: number } {
  const dctx = x.ZSTD_createDStream()
  const dict = use.kind === 'none' ? 0 : copyIn(use.bytes)
  const io = x.malloc(8)
  const src = x.malloc(4096)
  const dst = x.malloc(1000)
  try {
    if (use.kind === 'load') assert.is(zstdErrorCode(x.ZSTD_DCtx_loadDictionary(dctx, dict, use.bytes.length)), 0)
    if (use.kind === 'prefix') assert.is(zstdErrorCode(x.ZSTD_DCtx_refPrefix(dctx, dict, use.bytes.length)), 0)
    const parts: Uint8Array[] = []
    let offset = 0
    let piece = 1
    for (;;) {
      const length = Math.min(piece, frame.length - offset)
      piece = Math.min(4096, piece * 3 + 1)
      heap.refresh()
      heap.bytes.set(frame.subarray(offset, offset + length), src)
      let pos = 0
      let last = 1
      do {
        heap.refresh()
        heap.words[io >>> 2] = 0
        heap.words[(io >>> 2) + 1] = pos
        last = x.ZSTD_decompressStream_simpleArgs(dctx, dst, 1000, io, src, length, io + 4)
        const error = zstdErrorCode(last)
        if (error !== 0) return { out: concat(parts), error }
        heap.refresh()
        const produced = heap.words[io >>> 2]!
        pos = heap.words[(io >>> 2) + 1]!
        parts.push(heap.bytes.slice(dst, dst + produced))
        if (last === 0) break
      } while (pos < length || heap.words[io >>> 2] === 1000)
      offset += pos
      if (last === 0) return { out: concat(parts), error: 0 }
      if (offset === frame.length) return { out: concat(parts), error: -1 } // truncated
    }
  } finally {
    x.free(src)
    x.free(dst)
    x.free(io)
    if (dict) x.free(dict)
    x.ZSTD_freeDStream(dctx)
  }
}

/** One frame of `input` at `level`, fed in 777-byte pieces (ZSTD_e_continue, then _end). */
function encode(input: Uint8Array, use: Use, level = 3): Uint8Array {
  const { exports: e, heap: h } = encoder
  const cctx = e.ZSTD_createCStream()
  const dict = use.kind === 'none' ? 0 : copyIn(use.bytes, encoder)
  const io = e.malloc(8)
  const src = copyIn(input, encoder)
  const room = 512
  const dst = e.malloc(room)
  try {
    assert.is(zstdErrorCode(e.ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)), 0)
    assert.is(zstdErrorCode(e.ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)), 0)
    if (use.kind === 'load') assert.is(zstdErrorCode(e.ZSTD_CCtx_loadDictionary(cctx, dict, use.bytes.length)), 0)
    if (use.kind === 'prefix') assert.is(zstdErrorCode(e.ZSTD_CCtx_refPrefix(cctx, dict, use.bytes.length)), 0)
    const parts: Uint8Array[] = []
    let offset = 0
    for (;;) {
      const end = Math.min(input.length, offset + 777)
      const op = end === input.length ? ZSTD_e_end : ZSTD_e_continue
      let pos = 0
      for (;;) {
        h.refresh()
        h.words[io >>> 2] = 0
        h.words[(io >>> 2) + 1] = pos
        const remaining = e.ZSTD_compressStream2_simpleArgs(cctx, dst, room, io, src + offset, end - offset, io + 4, op)
        assert.is(zstdErrorCode(remaining), 0)
        h.refresh()
        parts.push(h.bytes.slice(dst, dst + h.words[io >>> 2]!))
        pos = h.words[(io >>> 2) + 1]!
        if (op === ZSTD_e_end ? remaining === 0 : pos === end - offset) break
      }
      if (op === ZSTD_e_end) return concat(parts)
      offset = end
    }
  } finally {
    e.free(src)
    e.free(dst)
    e.free(io)
    if (dict) e.free(dict)
    e.ZSTD_freeCStream(cctx)
  }
}

/** A dictionary trained by the CLI on the samples (fixed seed: the same file every run). */
const trained = hasCli
  ? (() => {
      const paths = samples.map((s, i) => file(`sample-${i}`, s))
      const out = join(scratch, 'trained.dict')
      execFileSync('zstd', ['-q', '--train', ...paths, '--maxdict=8192', '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] })
      return new Uint8Array(readFileSync(out))
    })()
  : new Uint8Array(0)

cliTest('trained dictionary (magic 37 A4 30 EC): the ID is read, CLI frames decode, our frames decode in the CLI', () => {
  assert.equal([...trained.subarray(0, 4)], [0x37, 0xa4, 0x30, 0xec])
  const dict = copyIn(trained)
  const id = x.ZSTD_getDictID_fromDict(dict, trained.length)
  x.free(dict)
  assert.is(id >>> 0, new DataView(trained.buffer, trained.byteOffset).getUint32(4, true))
  const dictPath = file('trained', trained)
  const frame = cli(['-D', dictPath, file('message', message)])
  // The frame names the dictionary it needs.
  const f = copyIn(frame)
  assert.is(x.ZSTD_getDictID_fromFrame(f, frame.length) >>> 0, id >>> 0)
  x.free(f)
  const ours = decode(frame, { kind: 'load', bytes: trained })
  assert.is(ours.error, 0)
  assert.ok(equalBytes(ours.out, message))
  // Without it, libzstd refuses the frame (ZSTD_error_dictionary_wrong = 32).
  assert.is(decode(frame, { kind: 'none' }).error, 32)

  const encoded = encode(message, { kind: 'load', bytes: trained }, 19)
  assert.ok(equalBytes(cli(['-d', '-D', dictPath, file('encoded.zst', encoded)]), message))
  assert.ok(encoded.length < encode(message, { kind: 'none' }, 19).length, 'the dictionary shrinks a small message')
})

cliTest('raw-content dictionary: any bytes without the magic, both ways', () => {
  const content = concat(samples.slice(0, 3))
  assert.not.equal([...content.subarray(0, 4)], [0x37, 0xa4, 0x30, 0xec])
  const dictPath = file('raw.dict', content)
  const frame = cli(['-D', dictPath, file('message', message)])
  const ours = decode(frame, { kind: 'load', bytes: content })
  assert.is(ours.error, 0)
  assert.ok(equalBytes(ours.out, message))
  const encoded = encode(message, { kind: 'load', bytes: content })
  assert.ok(equalBytes(cli(['-d', '-D', dictPath, file('encoded-raw.zst', encoded)]), message))
})

cliTest('prefix (ZSTD_CCtx_refPrefix / ZSTD_DCtx_refPrefix): `zstd --patch-from` patches, both ways', () => {
  const old = concat(samples)
  // A new version: the old one with an insertion and a deletion.
  const cut = old.length >>> 1
  const updated = concat([old.subarray(0, cut), new TextEncoder().encode('// inserted line\n'), old.subarray(cut + 500)])
  const oldPath = file('old', old)
  const patch = cli(['--patch-from', oldPath, file('new', updated)])
  assert.ok(patch.length < updated.length / 20, `the patch (${patch.length} bytes) refers into the prefix`)
  const ours = decode(patch, { kind: 'prefix', bytes: old })
  assert.is(ours.error, 0)
  assert.ok(equalBytes(ours.out, updated))

  const encoded = encode(updated, { kind: 'prefix', bytes: old })
  assert.ok(encoded.length < updated.length / 20)
  assert.ok(equalBytes(cli(['-d', '--patch-from', oldPath, file('ours.patch', encoded)]), updated))
})

test('a prefix holds for one frame only; a loaded dictionary for every frame until cleared', () => {
  const content = concat(samples.slice(0, 2))
  const frame = encode(message, { kind: 'load', bytes: content })
  const dctx = x.ZSTD_createDStream()
  const dict = copyIn(content)
  const src = copyIn(frame)
  const capacity = message.length + 64
  const dst = x.malloc(capacity)
  const run = (): number => x.ZSTD_decompressDCtx(dctx, dst, capacity, src, frame.length)
  try {
    // refPrefix: the first frame decodes, the second (same context, no new prefix) fails.
    assert.is(zstdErrorCode(x.ZSTD_DCtx_refPrefix(dctx, dict, content.length)), 0)
    assert.is(run(), message.length)
    assert.is(zstdErrorCode(run()), 20) // corruption_detected: it refers to bytes it lacks
    // loadDictionary: every frame decodes, until a size-0 load clears it.
    x.ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only)
    assert.is(zstdErrorCode(x.ZSTD_DCtx_loadDictionary(dctx, dict, content.length)), 0)
    assert.is(run(), message.length)
    assert.is(run(), message.length)
    heap.refresh()
    assert.ok(equalBytes(heap.bytes.subarray(dst, dst + message.length), message))
    assert.is(zstdErrorCode(x.ZSTD_DCtx_loadDictionary(dctx, 0, 0)), 0)
    assert.is(zstdErrorCode(run()), 20)
  } finally {
    x.free(src)
    x.free(dst)
    x.free(dict)
    x.ZSTD_freeDStream(dctx)
  }
})

test.run()
