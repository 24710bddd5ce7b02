/**
 * LZ4 HC on the wasm engine: sluice's hand-written HC kernel (wasm/lz4hc.wat, the block
 * compressor of levels 3 to 12), loaded by lz4-wasm.ts the first time an encoder asks for
 * such a level. It runs in the memory of the LZ4 kernel's encoder instance, which it
 * imports: the frame encoders stage their blocks there as for levels 1 and 2, and the
 * checksums stay the LZ4 kernel's.
 */
import { instantiate } from './wasm/instantiate.js'
import { lz4hcWasm } from '#wasm/lz4hc'

/** The kernel's export (wasm/lz4hc.wat); addresses are byte offsets in the shared memory. */
export interface Lz4HcExports {
  /**
   * Compresses [src, srcEnd) into [dst, dstEnd) at `level` (3..12), with its tables in
   * [work, work + HC_WORK_SIZE); returns the size, -1 when it does not fit, -4 for a
   * level or range it refuses.
   */
  compress(src: number, srcEnd: number, dst: number, dstEnd: number, work: number, level: number): number
}

/** Bytes of the kernel's tables: hash table 128 KiB, chain 128 KiB, the optimal parser's 4099 positions of 16 bytes. */
export const HC_WORK_SIZE = 0x40000 + 4099 * 16

/** Instantiates the HC kernel on `memory` (the LZ4 kernel's encoder instance's). */
export async function instantiateLz4Hc(memory: WebAssembly.Memory): Promise<Lz4HcExports> {
  const instance = await instantiate(lz4hcWasm(), { env: { memory } })
  return instance.exports as unknown as Lz4HcExports
}
