// Drives lib/machine.ts the way the streams do, for suites that feed it bytes directly.
import { CodecError } from '../lib/errors.js'
import type { Machine } from '../lib/machine.js'
import { concatBytes } from './_bytes.js'

/**
 * Pushes `data` into `m` in pieces of `split` bytes, taking every chunk it has after
 * each piece and after `end()`; returns all output, or the CodecError it threw. Disposes
 * of `m` either way.
 */
export function runMachine(m: Machine, data: Uint8Array, split: number): Uint8Array | CodecError {
  const parts: Uint8Array[] = []
  try {
    for (let i = 0; i < data.length; i += split) {
      m.push(data.subarray(i, i + split))
      for (let c = m.next(); c; c = m.next()) parts.push(c.slice())
    }
    m.end()
    for (let c = m.next(); c; c = m.next()) parts.push(c.slice())
  } catch (e) {
    if (e instanceof CodecError) return e
    throw e
  } finally {
    m.dispose()
  }
  return concatBytes(parts)
}
