/**
 * The one way sluice states how much a codec compressed: the ratio is original bytes
 * divided by compressed bytes (2.85: the output is 2.85 times smaller), as lzbench and
 * `zstd -b` print it (`x2.849`); beside it, the compressed size as a percent of the
 * original (35.10%), as `zstd -v` prints it. `sluice compress -v`, `decompress -v`,
 * `inspect` (text and JSON), `bench` (text, JSON and CSV) and the docs all use these two
 * functions, so a ratio never means "space saved" in one place and "of the original" in
 * another.
 */

/** original / compressed, rounded to 4 decimals; null when either size is unknown or zero. */
export function ratioOf(original: number | null | undefined, compressed: number | null | undefined): number | null {
  if (typeof original !== 'number' || typeof compressed !== 'number' || !(original > 0) || !(compressed > 0)) return null
  return Math.round((original / compressed) * 10000) / 10000
}

/** `×2.85 (35.10%)`: the ratio and the compressed size as a percent of the original; `unknown` without both sizes. */
export function formatRatio(original: number | null | undefined, compressed: number | null | undefined): string {
  const ratio = ratioOf(original, compressed)
  if (ratio === null) return 'unknown'
  return `×${ratio.toFixed(ratio < 10 ? 3 : 2)} (${((compressed! / original!) * 100).toFixed(2)}%)`
}
