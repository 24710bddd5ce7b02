import { toBytes, type BinaryInput } from './bytes.js'
import type { Format } from './codec.js'
import { Machine } from './machine.js'
import { checkLevel, checkMaxOutput, loadCodec, resolveEngine, type CreateOptions } from './registry.js'

/**
 * One-shot helpers, built on the span codecs and the same machine the streams use (so
 * truncation, trailing data and limits are judged identically).
 */

/** Output blocks grow from 64 KiB up to this size, so large outputs take few blocks. */
const MAX_BLOCK = 16 * 1024 * 1024

function run(machine: Machine, data: BinaryInput): Uint8Array {
  machine.push(toBytes(data, true))
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
  const engine = resolveEngine(format, options.engine)
  const maxOutputBytes = checkMaxOutput(format, options.maxOutputBytes)
  const mod = await loadCodec(format, engine, 'decode')
  const machine = new Machine(mod.createDecoder(options), {
    format,
    mode: 'decode',
    blockSize: blockSizeFor(data.byteLength, 4),
    maxOutputBytes,
    concatenated: options.concatenated ?? mod.traits.concatenable,
  })
  return run(machine, data)
}

/** Encodes a whole buffer. Options: `engine`, `level`, codec options. */
export async function encode(format: Format, data: BinaryInput, options: CreateOptions = {}): Promise<Uint8Array> {
  const engine = resolveEngine(format, options.engine)
  checkLevel(format, options.level)
  const mod = await loadCodec(format, engine, 'encode')
  const machine = new Machine(mod.createEncoder(options), {
    format,
    mode: 'encode',
    blockSize: blockSizeFor(data.byteLength, 1),
    maxOutputBytes: Infinity,
    concatenated: false,
  })
  return run(machine, data)
}
