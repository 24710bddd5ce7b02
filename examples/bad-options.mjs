// Task: bad options and bad input. Mistakes throw a CodecError with a stable code where
// the call is made; corrupt input rejects with the code, format and byte offset.
// Docs: docs/errors-and-limits.md.
import { CodecError, decode, encode, gzipDecode, zstdDecode, zstdEncode } from 'sluice'

async function expect(code, what, fn) {
  try {
    await fn()
  } catch (e) {
    if (!(e instanceof CodecError)) throw new Error(`${what}: not a CodecError: ${e}`)
    if (e.code !== code) throw new Error(`${what}: expected ${code}, got ${e.code}: ${e.message}`)
    console.log(`ok: ${what} -> ${e.code}: ${e.message}`)
    return
  }
  throw new Error(`${what}: accepted`)
}

await expect('INVALID_OPTION', 'zstd level 42', () => zstdEncode({ level: 42 }))
await expect('INVALID_OPTION', 'a negative maxOutputBytes', () => gzipDecode({ maxOutputBytes: -1 }))
await expect('INVALID_OPTION', 'an engine gzip does not have', () => gzipDecode({ engine: 'native' }))
await expect('INVALID_OPTION', "a typo: zstd 'maxWindowLg'", () => zstdDecode({ maxWindowLg: 27 }))
await expect('INVALID_OPTION', 'a gzip dictionary', () => encode('gzip', new Uint8Array(10), { dictionary: new Uint8Array(10) }))
await expect('UNKNOWN_FORMAT', "format 'zip'", () => decode('zip', new Uint8Array(10)))
await expect('TRUNCATED', 'half a gzip stream', async () => decode('gzip', (await encode('gzip', new Uint8Array(1000).fill(65))).subarray(0, 10)))
await expect('LIMIT_EXCEEDED', 'a zstd bomb past maxOutputBytes', async () => decode('zstd', await encode('zstd', new Uint8Array(8 << 20)), { maxOutputBytes: 1 << 20 }))
