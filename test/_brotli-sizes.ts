// Input sizes on brotli's internal boundaries (brotli 1.1.0's c/enc/encode.c and
// quality.h), where the way an encoder ends its stream shows in the output: the suites
// that compare our brotli encoders with node:zlib's one-shot bytes share them.

/** encode.c ComputeLgBlock: bits of brotli's input block at `quality`, `lgwin` (lgblock unset). */
export function lgblock(quality: number, lgwin: number): number {
  if (quality <= 1) return lgwin
  if (quality < 4) return 14
  return quality >= 9 && lgwin > 16 ? Math.min(18, lgwin) : 16
}

/**
 * Input sizes on brotli's boundaries at `quality`, `lgwin`: one and two input blocks and
 * one and two of the largest meta-blocks (quality.h MaxMetablockSize: 2^min(max(lgwin,
 * lgblock) + 1, 24)), up to `most`; plus a size on none.
 */
export function boundaries(quality: number, lgwin: number, most: number): number[] {
  const block = 2 ** lgblock(quality, lgwin)
  const meta = 2 ** Math.min(Math.max(lgwin, lgblock(quality, lgwin)) + 1, 24)
  return [...new Set([block, 2 * block, meta, 2 * meta, block + 1000])].filter((n) => n <= most).sort((a, b) => a - b)
}
