/**
 * The Pareto-optimal rows of a benchmark: a row is on the front of two measures (ratio
 * and encode speed, or ratio and decode speed) when no other row is at least as good on
 * both and better on one. Those are the rows worth choosing from: for every row off the
 * front, some row on it compresses as well or better and runs as fast or faster. Ties
 * (two rows equal on both) keep both on the front.
 */

/** For each row, whether it is on the front of `x` and `y` (both higher is better). */
export function paretoFront<T>(rows: readonly T[], x: (row: T) => number, y: (row: T) => number): boolean[] {
  return rows.map((row, i) => {
    const [xi, yi] = [x(row), y(row)]
    return !rows.some((other, j) => {
      if (j === i) return false
      const [xj, yj] = [x(other), y(other)]
      return xj >= xi && yj >= yi && (xj > xi || yj > yi)
    })
  })
}

/** What marking adds to a row: on the ratio/encode front, the ratio/decode front, either. */
export interface ParetoMarks {
  /** On either front. */
  pareto: boolean
  /** No other row has a ratio and an encode speed at least as high, one of them higher. */
  paretoEncode: boolean
  /** No other row has a ratio and a decode speed at least as high, one of them higher. */
  paretoDecode: boolean
}

/** The rows with their marks; rows of different inputs should be marked apart. */
export function markPareto<T extends { ratio: number; encodeMBps: number; decodeMBps: number }>(rows: readonly T[]): (T & ParetoMarks)[] {
  const encode = paretoFront(rows, (r) => r.ratio, (r) => r.encodeMBps)
  const decode = paretoFront(rows, (r) => r.ratio, (r) => r.decodeMBps)
  return rows.map((row, i) => ({ ...row, pareto: encode[i]! || decode[i]!, paretoEncode: encode[i]!, paretoDecode: decode[i]! }))
}
