/**
 * LZ4 HC, levels 3 to 12 (lib/codecs/lz4hc-block.ts, the TypeScript compressor;
 * lib/codecs/wasm/lz4hc.wat, the wasm kernel): frames against `lz4 -N -B4 -BI` (sizes
 * within 1%, and byte for byte with lz4 1.9.4, the version the reference method was
 * read from), the two engines against each other, every level decoded by the lz4 CLI
 * and by our decoders, the block format's end conditions on every block, edge and fuzz
 * inputs, the kernel's memory contract, raw blocks, and the lazy loading of HC.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { decodeWhole as decode, encodeWhole as encode } from '../lib/whole-buffer.js'
import { lz4 } from '../lib/codecs/lz4.js'
import { loadLz4Wasm } from '../lib/codecs/lz4-wasm.js'
import { decodeBlock } from '../lib/codecs/lz4-block.js'
import { createHcState, encodeBlockHC } from '../lib/codecs/lz4hc-block.js'
import { HC_WORK_SIZE, instantiateLz4Hc } from '../lib/codecs/lz4hc-wasm.js'
import { binarySlice, filesCorpus, randomBytes } from './_corpus.js'
import { requireCli, runCli } from './_cli.js'
import { root } from './_fixtures.js'
import { statusName } from '../lib/status.js'

const LEVELS = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
const cli = requireCli('lz4', 'LZ4 HC against the lz4 CLI')
const cliTest = cli ? test : test.skip
/** The CLI's version: the frames are byte for byte the reference's with 1.9.4 (Debian 12's, CI's). */
const cliVersion = cli ? (/v(\d+\.\d+\.\d+)/.exec(spawnSync('lz4', ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? '') : ''

/** Real corpora: TypeScript declarations and JavaScript from node_modules, and machine code of the node binary. */
const text = filesCorpus(join(root, 'node_modules'), 300_000, /\.(d\.ts|js)$/)
const binary = binarySlice(4_000_000, 300_000)
/** Runs of one byte value, short periods and copies far apart: the search's special cases. */
function structured(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n)
  const noise = randomBytes(n, seed)
  let x = seed
  for (let i = 0; i < n; ) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    const kind = x % 5
    const len = Math.min(n - i, 1 + ((x >>> 8) % (kind === 0 ? 3000 : 300)))
    if (kind === 0) out.fill(x >>> 24, i, i + len)
    else if (kind === 1 && i > 70_000) out.copyWithin(i, i - 1 - ((x >>> 4) % 70_000), i - 1 - ((x >>> 4) % 70_000) + len)
    else if (kind === 2 && i > 8) for (let k = 0; k < len; k++) out[i + k] = out[i + k - 1 - ((x >>> 20) & 7)]!
    else if (kind === 3 && i > 0) out.copyWithin(i, Math.max(0, i - 1 - ((x >>> 4) % 2000)), Math.max(0, i - 1 - ((x >>> 4) % 2000)) + len)
    else out.set(noise.subarray(i, i + len), i)
    i += len
  }
  return out
}

const lz4cli = (args: string[], input: Uint8Array): Uint8Array => runCli('lz4', [...args, '-c', '-q'], input)

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}

/**
 * Walks a frame (lz4_Frame_format.md) and checks every compressed block against the
 * block format's end conditions (lz4_Block_format.md, "End of block conditions"): the
 * last 5 bytes are literals, and the last match starts at least 12 bytes before the
 * end. Returns the number of compressed blocks.
 */
function checkEndConditions(frame: Uint8Array, label: string): number {
  const flg = frame[4]!
  let p = 7 + (flg & 0x08 ? 8 : 0)
  const blockChecksum = (flg & 0x10) !== 0
  let compressed = 0
  for (;;) {
    const word = frame[p]! | (frame[p + 1]! << 8) | (frame[p + 2]! << 16) | (frame[p + 3]! << 24)
    p += 4
    if (word === 0) break
    const size = word & 0x7fffffff
    // The high bit marks a stored block.
    if ((word & 0x80000000) === 0) {
      compressed++
      checkBlock(frame.subarray(p, p + size), `${label}, block at ${p - 4}`)
    }
    p += size + (blockChecksum ? 4 : 0)
  }
  return compressed
}

/** The end conditions of one raw block (see checkEndConditions). */
function checkBlock(block: Uint8Array, label: string): void {
  let ip = 0
  let out = 0
  const matches: Array<[number, number]> = []
  for (;;) {
    const token = block[ip++]!
    let ll = token >> 4
    if (ll === 15) for (let b = 255; b === 255; ll += b) b = block[ip++]!
    ip += ll
    out += ll
    if (ip === block.length) break
    ip += 2
    let ml = (token & 15) + 4
    if ((token & 15) === 15) for (let b = 255; b === 255; ml += b) b = block[ip++]!
    matches.push([out, ml])
    out += ml
  }
  for (const [start, length] of matches) {
    if (start + 12 > out) assert.unreachable(`${label}: a match starts ${out - start} bytes before the end of a ${out}-byte block`)
    if (start + length + 5 > out) assert.unreachable(`${label}: a match ends ${out - start - length} bytes before the end of a ${out}-byte block`)
  }
}

const { lz4: lz4Wasm } = await loadLz4Wasm()

/** The wasm kernel on a memory of its own, with sentinels around every range. */
const memory = new WebAssembly.Memory({ initial: 40, maximum: 32768 })
const hc = await instantiateLz4Hc(memory)
const WORK = 1024
const SRC = WORK + HC_WORK_SIZE + 4096
const SENTINEL = 0xa5

/** Compresses `data` with the kernel into `room` bytes, checking that nothing outside dst and the work area is written. */
function memoryKernel(data: Uint8Array, room: number, level: number): { size: number; out: Uint8Array } {
  const DST = SRC + data.length + 4096
  const end = DST + room + 4096
  if (memory.buffer.byteLength < end) memory.grow(Math.ceil((end - memory.buffer.byteLength) / 65536))
  const mem = new Uint8Array(memory.buffer)
  mem.fill(SENTINEL, 0, end)
  mem.set(data, SRC)
  const size = hc.compress(SRC, SRC + data.length, DST, DST + room, WORK, level)
  assert.ok(mem.subarray(0, WORK).every((b) => b === SENTINEL), 'wrote before the work area')
  assert.ok(mem.subarray(WORK + HC_WORK_SIZE, SRC).every((b) => b === SENTINEL), 'wrote past the work area')
  assert.ok(same(mem.subarray(SRC, SRC + data.length), data), 'wrote into the input')
  assert.ok(mem.subarray(SRC + data.length, DST).every((b) => b === SENTINEL), 'wrote between input and output')
  assert.ok(mem.subarray(DST + room, end).every((b) => b === SENTINEL), `wrote past dstEnd (room ${room})`)
  return { size, out: mem.slice(DST, DST + Math.max(0, size)) }
}


cliTest('levels 3-12: our frames of independent 64 KiB blocks are within 1% of lz4 -N -B4 -BI on text and machine code (byte for byte with lz4 1.9.4)', async () => {
  const rows: string[] = []
  for (const [name, data] of [['text', text], ['binary', binary]] as const) {
    for (const level of LEVELS) {
      const ours = await encode('lz4', data, { level })
      const theirs = lz4cli([`-${level}`, '-B4', '-BI'], data)
      const diff = (ours.length / theirs.length - 1) * 100
      rows.push(`${name} -${level}: ${ours.length} vs ${theirs.length} (${diff.toFixed(3)}%)`)
      assert.ok(Math.abs(diff) <= 1, `${name} level ${level}: ${ours.length} bytes, lz4 -${level} ${theirs.length} (${diff.toFixed(2)}%)`)
      if (cliVersion === '1.9.4') assert.ok(same(ours, theirs), `${name} level ${level}: the frame differs from lz4 1.9.4's`)
    }
  }
  console.log(`# lz4 ${cliVersion}: ${rows.join('; ')}`)
})

test('levels 3-12: the TypeScript and wasm engines write the same frames (text, machine code, runs and copies, incompressible)', async () => {
  const inputs: Array<[string, Uint8Array]> = [
    ['text', text.subarray(0, 150_000)],
    ['binary', binary.subarray(0, 150_000)],
    ['structured', structured(200_000, 7)],
    ['random', randomBytes(70_000, 3)],
  ]
  for (const [name, data] of inputs) {
    for (const level of LEVELS) {
      const js = await encode('lz4', data, { level, engine: 'js' })
      const wasm = await encode('lz4', data, { level, engine: 'wasm' })
      assert.ok(same(js, wasm), `${name} level ${level}: the engines' frames differ (${js.length} vs ${wasm.length} bytes)`)
      assert.ok(same(await decode('lz4', wasm), data), `${name} level ${level}: round trip`)
      checkEndConditions(wasm, `${name} level ${level}`)
    }
  }
})

cliTest('every level, both engines: lz4 -d and our decoders read the frames (block sizes 64 KiB to 4 MiB, block checksums, content size)', async () => {
  const data = new Uint8Array(Buffer.concat([text.subarray(0, 200_000), structured(150_000, 11), binary.subarray(0, 100_000)]))
  const optionSets: Array<Record<string, unknown>> = [{}, { blockSize: 262144, blockChecksum: true }, { blockSize: 1048576, contentSize: data.length }, { blockSize: 4194304, contentChecksum: false }]
  for (const level of [1, 2, ...LEVELS]) {
    for (const [k, options] of optionSets.entries()) {
      // Each option set on one engine, alternating (the engines write the same bytes).
      const engine = (level + k) % 2 === 0 ? 'wasm' : 'js'
      const frame = await encode('lz4', data, { ...options, level, engine })
      const label = `level ${level} ${engine} ${JSON.stringify(options)}`
      assert.ok(same(runCli('lz4', ['-d', '-c', '-q'], frame), data), `${label}: lz4 -d`)
      for (const e of ['js', 'wasm'] as const) assert.ok(same(await decode('lz4', frame, { engine: e }), data), `${label}: our ${e} decoder`)
      if (level >= 3) checkEndConditions(frame, label)
    }
  }
})

cliTest('block sizes past 64 KiB: within 1% of lz4 -N with the same -B (byte for byte with lz4 1.9.4)', async () => {
  const data = new Uint8Array(Buffer.concat([text.subarray(0, 200_000), binary]))
  for (const [blockSize, id] of [[262144, 5], [1048576, 6]] as const) {
    for (const level of [3, 9, 10, 12]) {
      const ours = await encode('lz4', data, { level, blockSize })
      const theirs = lz4cli([`-${level}`, `-B${id}`, '-BI'], data)
      const diff = (ours.length / theirs.length - 1) * 100
      assert.ok(Math.abs(diff) <= 1, `-B${id} level ${level}: ${ours.length} vs ${theirs.length} (${diff.toFixed(2)}%)`)
      if (cliVersion === '1.9.4') assert.ok(same(ours, theirs), `-B${id} level ${level}: the frame differs from lz4 1.9.4's`)
    }
  }
})

test('edge inputs at every HC level: empty, 1 byte, 12 and 13 bytes, incompressible, all zero, runs, block boundaries', async () => {
  const inputs: Array<[string, Uint8Array]> = [
    ['empty', new Uint8Array(0)],
    ['1 byte', new Uint8Array([9])],
    ['12 zeros', new Uint8Array(12)],
    ['13 zeros', new Uint8Array(13)],
    ['16 bytes, one repeat', new TextEncoder().encode('abcdabcdabcdabcd')],
    ['incompressible 65536', randomBytes(65536, 5)],
    ['all zero 65536', new Uint8Array(65536)],
    ['all zero 65537', new Uint8Array(65537)],
    ['all zero 300000', new Uint8Array(300_000)],
    ['text 131072 (two whole blocks)', text.subarray(0, 131072)],
    ['text 131073 (a 1-byte third block)', text.subarray(0, 131073)],
    ['text 65535', text.subarray(0, 65535)],
    ['runs', structured(100_000, 21)],
  ]
  for (const [name, data] of inputs) {
    for (const level of LEVELS) {
      const frame = await encode('lz4', data, { level })
      assert.ok(same(await decode('lz4', frame), data), `${name} level ${level}: round trip`)
      assert.ok(same(await encode('lz4', data, { level, engine: 'js' }), frame), `${name} level ${level}: engines differ`)
      const compressed = checkEndConditions(frame, `${name} level ${level}`)
      // Blocks under 13 bytes hold no match, and incompressible blocks are stored.
      if (data.length < 13 || name.startsWith('incompressible')) assert.is(compressed, 0, `${name} level ${level}: compressed blocks`)
      if (cli) assert.ok(same(runCli('lz4', ['-d', '-c', '-q'], frame), data), `${name} level ${level}: lz4 -d`)
    }
  }
})

test('fuzz: structured and random inputs of random lengths at random levels; the engines agree, blocks decode and keep the end conditions', () => {
  const state = createHcState()
  let x = 0x2545f491
  const next = (): number => (x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x297a2d39) >>> 0)
  let compressed = 0
  for (let round = 0; round < 160; round++) {
    const n = next() % (round < 40 ? 64 : 70_000)
    const data = next() % 4 === 0 ? randomBytes(n, next() | 1) : structured(n, next())
    const level = LEVELS[next() % LEVELS.length]!
    // Room as the frame encoder gives it (n - 1: otherwise stored), or the worst case.
    const room = next() % 2 === 0 ? Math.max(0, n - 1) : n + (n / 255 | 0) + 16
    const out = new Uint8Array(room)
    const c = encodeBlockHC(data, 0, n, out, 0, room, level, state)
    const w = memoryKernel(data, room, level)
    const label = `round ${round}: ${n} bytes, level ${level}, room ${room}`
    assert.is(w.size, c, `${label}: sizes differ`)
    if (c < 0) continue
    compressed++
    assert.ok(same(w.out, out.subarray(0, c)), `${label}: bytes differ`)
    const back = new Uint8Array(n)
    assert.is(decodeBlock(out, 0, c, back, 0, n), n, `${label}: decode`)
    assert.ok(same(back, data), `${label}: round trip`)
    if (n >= 13) checkBlock(out.subarray(0, c), label)
  }
  assert.ok(compressed >= 80, `${compressed} blocks compressed`)
})

test('wasm kernel: refuses levels outside 3..12 and ranges outside memory, never traps', () => {
  const size = memory.buffer.byteLength
  const d = SRC + 200
  for (const level of [0, 1, 2, 13, -1]) assert.is(hc.compress(SRC, SRC + 100, d, d + 100, WORK, level), -4, `level ${level}`)
  assert.is(hc.compress(SRC + 100, SRC, d, d + 100, WORK, 9), -4, 'src > srcEnd')
  assert.is(hc.compress(SRC, SRC + 100, d + 100, d, WORK, 9), -4, 'dst > dstEnd')
  assert.is(hc.compress(SRC, size - 31, d, d + 100, WORK, 9), -4, 'srcEnd in the last 32 bytes')
  assert.is(hc.compress(SRC, SRC + 100, d, size, WORK, 9), -4, 'dstEnd at the end')
  assert.is(hc.compress(SRC, SRC + 100, d, d + 100, size - HC_WORK_SIZE, 9), -4, 'work area past the end')
  assert.is(hc.compress(SRC, SRC + 100, d, d + 100, -1, 9), -4, 'negative work address')
  // A 1-byte room: nothing fits.
  new Uint8Array(memory.buffer).set(text.subarray(0, 100), SRC)
  assert.is(hc.compress(SRC, SRC + 100, d, d + 1, WORK, 9), -1, 'room of 1 byte')
})

cliTest('lz4-block at levels 3-12: a 64 KiB block is the block lz4 -N writes for it', async () => {
  const data = text.subarray(100_000, 100_000 + 65536)
  for (const level of LEVELS) {
    const block = await encode('lz4-block', data, { level })
    assert.ok(same(await decode('lz4-block', block, { outputSize: data.length }), data), `level ${level}: round trip`)
    checkBlock(block, `lz4-block level ${level}`)
    const frame = lz4cli([`-${level}`, '-B4', '-BI', '--no-frame-crc'], data)
    const theirs = frame.subarray(11, frame.length - 4)
    const diff = (block.length / theirs.length - 1) * 100
    assert.ok(Math.abs(diff) <= 1, `level ${level}: ${block.length} vs ${theirs.length}`)
    if (cliVersion === '1.9.4') assert.ok(same(block, theirs), `level ${level}: the block differs from lz4 1.9.4's`)
  }
})

test('HC loads on first use: before prepare(), an encoder at levels 3-12 is refused (ENGINE_UNAVAILABLE), levels 1-2 are not', () => {
  // A fresh process: in this one the suites above loaded HC already.
  const script = `
    import { loadLz4Wasm } from './lib/codecs/lz4-wasm.ts'
    import { lz4, lz4Block } from './lib/codecs/lz4.ts'
    const { lz4: wasm, lz4Block: wasmBlock } = await loadLz4Wasm()
    const modules = [['js', lz4], ['wasm', wasm], ['js block', lz4Block], ['wasm block', wasmBlock]]
    const out = []
    for (const [name, mod] of modules) {
      mod.createEncoder({ level: 2 }).dispose()
      try { mod.createEncoder({ level: 9 }); out.push(name + ': created') } catch (e) { out.push(name + ': ' + e.code) }
    }
    for (const [, mod] of modules) {
      await mod.prepare('encode', { level: 9 })
      mod.createEncoder({ level: 12 }).dispose()
    }
    console.log(out.join(', '))`
  const p = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 120_000 })
  assert.is(p.status, 0, p.stderr)
  assert.is(p.stdout.trim(), 'js: ENGINE_UNAVAILABLE, wasm: ENGINE_UNAVAILABLE, js block: ENGINE_UNAVAILABLE, wasm block: ENGINE_UNAVAILABLE')
})

test('the modules after prepare(): the same frames as encode() writes, on both engines', async () => {
  const data = text.subarray(0, 100_000)
  for (const mod of [lz4, lz4Wasm]) {
    await mod.prepare!('encode', { level: 10 })
    const encoder = mod.createEncoder({ level: 10 })
    const dst = new Uint8Array(120_000)
    assert.is(statusName(encoder.transform(data, dst, true)), 'Done')
    assert.is(encoder.consumed, data.length)
    assert.ok(same(dst.subarray(0, encoder.written), await encode('lz4', data, { level: 10 })))
    encoder.dispose()
  }
})

test.run()
