/**
 * The kernels the chunk decoder (inflate-chunk.ts) runs on: an instance of its own of
 * sluice's inflate kernel (lib/codecs/wasm/inflate.wat: `codes` into bytes, `crc32`) and
 * the marker kernel (lib/codecs/wasm/inflate-markers.wat: `codes16` into 16-bit symbols,
 * marker scans), the second importing the first's memory, so that both work on one
 * staged input, one set of tables and one output. One pair per realm (per worker),
 * created on the first chunk job.
 *
 * Memory, as inflate.wat fixes its start (where `codes` records where it stopped, and
 * the CRC-32 tables at 1024):
 *
 *     [0, 16)             where `codes`/`codes16` stopped (input byte, bit, output address)
 *     [1024, 17408)       CRC-32 tables (slicing-by-16)
 *     [17408, 19584)      fixed literal/length and distance tables (RFC 1951 3.2.6)
 *     [20480, 45056)      the current block's dynamic tables
 *     [IN, ...)           a chunk job's input, then the 16-bit region (markers, then
 *                         symbols), then the 8-bit region (history, then bytes), laid
 *                         out per job by `layout()`
 */
import { instantiateInflateKernel, type InflateExports } from '../codecs/inflate-wasm.js'
import { compile } from '../codecs/wasm/instantiate.js'
import { inflateMarkersWasm } from '#wasm/inflate-markers'

export { BAD_DIST, BAD_LIT, DYN_DIST, DYN_LIT, END, FAR, FIXED_DIST, FIXED_LIT, FULL, IN, NEED } from '../codecs/inflate-wasm.js'

/** The two kernels' exports; addresses are byte offsets in the shared memory. */
export interface ChunkKernel {
  readonly memory: WebAssembly.Memory
  codes(input: number, inEnd: number, bitOff: number, out: number, outLimit: number, hist: number, lit: number, litRoot: number, dist: number, distRoot: number): number
  codes16(input: number, inEnd: number, bitOff: number, out: number, outLimit: number, hist: number, lit: number, litRoot: number, dist: number, distRoot: number): number
  crc32(crc: number, p: number, n: number): number
  lastMarker(from: number, to: number): number
  widen(dst: number, src: number, n: number): void
  narrow(dst: number, src: number, n: number): void
  resolve(dst: number, src: number, n: number, win: number, shift: number): number
  scan(p: number, to: number, end: number): number
}

let loading: Promise<ChunkKernel> | null = null

/** The realm's kernel pair, instantiated once. */
export function chunkKernel(): Promise<ChunkKernel> {
  loading ??= (async () => {
    // Its memory grows per job (ensureMemory); the tables are written once.
    const bytes: InflateExports = await instantiateInflateKernel(1)
    const markers = await WebAssembly.instantiate(await compile(await inflateMarkersWasm()), { env: { memory: bytes.memory } })
    const wide = markers.exports as unknown as Pick<ChunkKernel, 'codes16' | 'lastMarker' | 'widen' | 'narrow' | 'resolve' | 'scan'>
    return {
      memory: bytes.memory,
      codes: bytes.codes,
      crc32: bytes.crc32,
      codes16: wide.codes16,
      lastMarker: wide.lastMarker,
      widen: wide.widen,
      narrow: wide.narrow,
      resolve: wide.resolve,
      scan: wide.scan,
    }
  })()
  loading.catch(() => (loading = null))
  return loading
}

/** Grows `kernel`'s memory to at least `bytes`; false when it cannot (the engine's limit). */
export function ensureMemory(kernel: ChunkKernel, bytes: number): boolean {
  const have = kernel.memory.buffer.byteLength
  if (bytes <= have) return true
  // Grown by at least half again, so that a job growing its output step by step copies
  // nothing and grows O(log n) times.
  const pages = Math.ceil(Math.max(bytes, have * 1.5) / 65536) - have / 65536
  try {
    kernel.memory.grow(pages)
    return true
  } catch {
    try {
      kernel.memory.grow(Math.ceil(bytes / 65536) - have / 65536)
      return true
    } catch {
      return false
    }
  }
}
