import { toBytes, type BinaryInput } from './bytes.js'
import type { Format } from './codec.js'
import type { Machine } from './machine.js'
import { prepareDecoder, prepareEncoder } from './prepare.js'
import type { CreateOptions } from './registry.js'

/**
 * One-shot helpers, built on the span codecs and the same machine the streams use (so
 * truncation, trailing data and limits are judged identically).
 */

/** Output blocks grow from 64 KiB up to this size, so large outputs take few blocks. */
const MAX_BLOCK = 16 * 1024 * 1024

function run(machine: Machine, data: Uint8Array): Uint8Array {
  machine.push(data)
  machine.end()
  const parts: Uint8Array[] = []
  let total = 0
  try {
    for (let out = machine.next(); out; out = machine.next()) {
      parts.push(out)
      total += out.length
    }
  } finally {
    machine.dispose()
  }
  // One part that fills most of its block is returned as is; otherwise copy to exact size
  // so a small result does not pin a large block.
  const only = parts[0]
  if (parts.length === 1 && only && only.length * 2 >= only.buffer.byteLength) return only
  const result = new Uint8Array(total)
  let at = 0
  for (const p of parts) {
    result.set(p, at)
    at += p.length
  }
  return result
}

function blockSizeFor(inputLength: number, factor: number): number {
  return Math.min(MAX_BLOCK, Math.max(64 * 1024, 2 ** Math.ceil(Math.log2(Math.max(1, inputLength * factor)))))
}

/** Decodes a whole buffer. Options: `engine`, `maxOutputBytes`, `concatenated`, codec options. */
export async function decode(format: Format, data: BinaryInput, options: CreateOptions & { concatenated?: boolean } = {}): Promise<Uint8Array> {
  const bytes = toBytes(data, true)
  const open = prepareDecoder(format, { ...options, chunkSize: blockSizeFor(bytes.length, 4) })
  let machine: Machine | null = null
  await open((m) => (machine = m))
  return run(machine!, bytes)
}

/** Encodes a whole buffer. Options: `engine`, `level`, codec options. */
export async function encode(format: Format, data: BinaryInput, options: CreateOptions = {}): Promise<Uint8Array> {
  const bytes = toBytes(data, true)
  const open = prepareEncoder(format, { ...options, chunkSize: blockSizeFor(bytes.length, 1) })
  let machine: Machine | null = null
  await open((m) => (machine = m))
  return run(machine!, bytes)
}
