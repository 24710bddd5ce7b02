/**
 * Sizes for people, in binary units (`1.50 MiB`, `812 B`), as the CLI's progress bar,
 * `inspect` and `bench` and the playground page print them.
 */

/** `n` bytes as `812 B`, `1.50 MiB`, `12.3 GiB` (powers of 1024). */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let i = 0
  let v = n
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return i === 0 ? `${n} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`
}
