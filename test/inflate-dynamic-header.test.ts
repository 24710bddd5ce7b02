// The dynamic Huffman block header (RFC 1951 section 3.2.7), parsed by one module
// (lib/codecs/inflate-dynamic-header.ts) for both inflate engines: hand-built headers,
// each invalid in one way, give the same message and offset (the byte holding the last
// bit of the field that proved it) on the 'js' and the 'wasm' engine, whole and in
// pieces of every size up to the header's length (a header split across calls is
// gathered and parsed again); a valid header decodes to node:zlib's bytes.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import zlib from 'node:zlib'
import { loadDeflateWasm } from '../lib/codecs/deflate-wasm.js'
import { deflateRaw as jsDeflateRaw } from '../lib/codecs/deflate-js.js'
import type { CodecModule } from '../lib/registry.js'
import { Status } from '../lib/status.js'
import { decodeSpans } from './_span.js'

const wasm = await loadDeflateWasm()
const engines: Array<[string, CodecModule]> = [
  ['js', jsDeflateRaw],
  ['wasm', wasm.deflateRaw],
]

/** Writes bits LSB first, as DEFLATE packs them; `at` is the number of bits written. */
class Bits {
  readonly bytes: number[] = []
  at = 0
  put(value: number, n: number): this {
    for (let k = 0; k < n; k++) {
      if ((this.at & 7) === 0) this.bytes.push(0)
      this.bytes[this.bytes.length - 1]! |= ((value >>> k) & 1) << (this.at & 7)
      this.at++
    }
    return this
  }
  /** A Huffman code, its bits most significant first (RFC 1951 section 3.1.1). */
  code(value: number, length: number): this {
    for (let k = length - 1; k >= 0; k--) this.put((value >>> k) & 1, 1)
    return this
  }
  /** The byte holding the last bit written so far. */
  get lastByte(): number {
    return (this.at - 1) >>> 3
  }
}

/** BFINAL = 1, BTYPE = 2 (dynamic), then HLIT, HDIST, HCLEN. */
const start = (hlit: number, hdist: number, hclen: number): Bits => new Bits().put(1, 1).put(2, 2).put(hlit, 5).put(hdist, 5).put(hclen, 4)

/**
 * A code length code of two 1-bit codes, for symbols `a` < `b` (`a` is 0, `b` is 1):
 * HCLEN covers the order (16, 17, 18, 0, 8, ...) up to the later of the two.
 */
function twoSymbolCode(bits: Bits, a: number, b: number): Bits {
  const order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
  const count = Math.max(order.indexOf(a), order.indexOf(b)) + 1
  for (let k = 0; k < count; k++) bits.put(order[k] === a || order[k] === b ? 1 : 0, 3)
  return bits
}
const withCount = (hlit: number, hdist: number, a: number, b: number): Bits => {
  const order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
  const count = Math.max(order.indexOf(a), order.indexOf(b)) + 1
  return twoSymbolCode(start(hlit, hdist, count - 4), a, b)
}

/** The invalid headers: the bytes and the failure both engines must give. */
function cases(): Array<{ name: string; bytes: Uint8Array; message: string; offset: number }> {
  const out: Array<{ name: string; bytes: Uint8Array; message: string; offset: number }> = []
  const add = (name: string, bits: Bits, message: string): void => {
    // Zero bytes after it: the error is found before any of them could matter.
    out.push({ name, bytes: Uint8Array.from([...bits.bytes, ...new Array<number>(8).fill(0)]), message, offset: bits.lastByte })
  }
  let b = new Bits().put(1, 1).put(2, 2).put(30, 5)
  add('HLIT 30', b, 'dynamic block declares 287 literal/length codes; the maximum is 286')
  b = new Bits().put(1, 1).put(2, 2).put(0, 5).put(31, 5)
  add('HDIST 31', b, 'dynamic block declares 32 distance codes; the maximum is 30')
  b = start(0, 0, 0)
  for (let k = 0; k < 4; k++) b.put(1, 3)
  add('code length code over-subscribed', b, 'code length code is over-subscribed')
  b = start(0, 0, 0).put(1, 3)
  for (let k = 1; k < 4; k++) b.put(0, 3)
  add('code length code incomplete', b, 'code length code is incomplete')
  // Symbols 0 (code 0) and 16 (code 1): a 16 first repeats nothing.
  b = withCount(0, 0, 0, 16).code(1, 1)
  add('repeat 16 first', b, 'repeat code 16 with no previous code length')
  // Symbols 0 (code 0) and 18 (code 1): 18 with 7 extra bits 127 is 138 zeros; 2 x 138 > 258.
  b = withCount(0, 0, 0, 18).code(1, 1).put(127, 7).code(1, 1).put(127, 7)
  add('repeat past the end', b, 'code length repeat of 138 runs past the 258 declared lengths')
  // 138 + 120 zeros: all 258 lengths are 0, so symbol 256 has no code.
  b = withCount(0, 0, 0, 18).code(1, 1).put(127, 7).code(1, 1).put(109, 7)
  add('no end-of-block code', b, 'dynamic block has no end-of-block code')
  // Length 1 (code 1 of the code length code) for literals 0 and 1 and end-of-block 256,
  // 0 for the rest: three 1-bit codes, over-subscribed.
  b = withCount(0, 0, 0, 1)
  for (let k = 0; k < 258; k++) b.code(k === 0 || k === 1 || k === 256 ? 1 : 0, 1)
  add('literal/length code over-subscribed', b, 'literal/length code is over-subscribed')
  return out
}

test('invalid dynamic headers: the same message and offset on both engines, whole and in pieces', () => {
  for (const c of cases()) {
    for (const [engine, module] of engines) {
      for (let split = 1; split <= c.bytes.length; split++) {
        const r = decodeSpans(module.createDecoder({}), c.bytes, { split })
        const what = `${c.name}, engine ${engine}, pieces of ${split}`
        assert.is(r.status, Status.InvalidData, what)
        assert.is(r.failure?.message, c.message, what)
        assert.is(r.failure?.offset, c.offset, what)
      }
    }
  }
})

test('a header cut anywhere is NeedMoreData, never an error; every split decodes to the same bytes', () => {
  const text = new TextEncoder().encode('a dynamic header, then codes: '.repeat(300))
  const comp = new Uint8Array(zlib.deflateRawSync(text, { level: 9 }))
  assert.is((comp[0]! >>> 1) & 3, 2, 'the first block is dynamic')
  for (const [engine, module] of engines) {
    for (let cut = 1; cut < Math.min(comp.length, 120); cut++) {
      const r = decodeSpans(module.createDecoder({}), comp.subarray(0, cut), { split: 1 + (cut % 7) })
      assert.is(r.status, Status.NeedMoreData, `engine ${engine}, cut at ${cut}`)
    }
    for (const split of [1, 2, 3, 5, 64, 200]) {
      const r = decodeSpans(module.createDecoder({}), comp, { split })
      assert.is(r.status, Status.Done, `engine ${engine}, pieces of ${split}`)
      assert.equal(r.out, text, `engine ${engine}, pieces of ${split}`)
    }
  }
})

test.run()
