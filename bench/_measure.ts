// Timing for the Arrow benches: CPU time of alternating runs, and the memory one run holds.

const gc = (globalThis as { gc?: () => void }).gc

function heldBytes(): number {
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

/** CPU time of this process (all threads), in ms. */
export function cpuMs(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** The median of `xs`. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/**
 * Median CPU time of `runs` runs of each op (after a warm-up), the ops alternating run
 * by run (A B, B A, ...) so that both see the same machine load. CPU time rather than
 * wall time: the work is single-threaded and the machine is shared. Also the memory one
 * run leaves held (its result and garbage).
 */
export async function measure(ops: (() => unknown)[], runs: number): Promise<{ ms: number; mem: number }[]> {
  for (const op of ops) await op()
  const times: number[][] = ops.map(() => [])
  for (let r = 0; r < runs; r++) {
    // The order reverses every round, so that no op always runs right after another's
    // garbage (whose collection would then be billed to it).
    for (let k = 0; k < ops.length; k++) {
      const i = r % 2 ? ops.length - 1 - k : k
      const t0 = cpuMs()
      await ops[i]!()
      times[i]!.push(cpuMs() - t0)
    }
  }
  const out: { ms: number; mem: number }[] = []
  for (let i = 0; i < ops.length; i++) {
    gc?.()
    const before = heldBytes()
    const keep = await ops[i]!()
    out.push({ ms: median(times[i]!), mem: heldBytes() - before })
    void keep
  }
  return out
}
