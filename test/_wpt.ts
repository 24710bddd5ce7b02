// Helpers for test/wpt-compression.test.ts: the WPT `compression/` fixtures restated for
// our formats, reference decoders (node:zlib and the reference CLIs) and small stream
// utilities. Written for this project; the WPT files were read as specification only.
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs'
import { join } from 'node:path'
import * as zlib from 'node:zlib'
import { root } from './_fixtures.js'
import { concatBytes as concat } from './_bytes.js'
import { cliMissing, hasCli, runCli } from './_cli.js'

export type WebFormat = 'gzip' | 'deflate' | 'deflate-raw' | 'brotli' | 'zstd' | 'lz4'

/** The three standard formats, the proposed `'brotli'`, then our extras. */
export const ALL_FORMATS: readonly WebFormat[] = ['deflate', 'deflate-raw', 'gzip', 'brotli', 'zstd', 'lz4']

const utf8 = new TextEncoder()
export const text = (s: string): Uint8Array => utf8.encode(s)

// ---------------------------------------------------------------------------------------
// Which formats can run now. Codec modules are being written in parallel; a format whose
// module file is absent is skipped with the reason printed, not failed.

const CODEC_FILE: Record<WebFormat, string> = {
  gzip: 'lib/codecs/deflate-js.ts',
  deflate: 'lib/codecs/deflate-js.ts',
  'deflate-raw': 'lib/codecs/deflate-js.ts',
  brotli: 'lib/codecs/brotli.ts',
  zstd: 'lib/codecs/zstd.ts',
  lz4: 'lib/codecs/lz4.ts',
}

/** Why `format` cannot be tested in this checkout, or null when it can. */
export function codecMissing(format: WebFormat): string | null {
  const file = CODEC_FILE[format]
  return existsSync(join(root, file)) ? null : `${file} is not in this checkout yet`
}

// ---------------------------------------------------------------------------------------
// Reference CLIs (test/_cli.ts). Absent -> the cases that need them skip.
export const HAS_ZSTD_CLI = hasCli('zstd')
export const HAS_LZ4_CLI = hasCli('lz4')

/** Compresses with the reference tool of `format` (node:zlib or the CLI). */
export function referenceCompress(format: WebFormat, data: Uint8Array): Uint8Array {
  switch (format) {
    case 'gzip': return zlib.gzipSync(data)
    case 'deflate': return zlib.deflateSync(data)
    case 'deflate-raw': return zlib.deflateRawSync(data)
    // Quality 5 (node:zlib defaults to 11, which takes seconds per MiB).
    case 'brotli': return zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } })
    case 'zstd': return runCli('zstd', ['-c', '-q', '-3'], data)
    case 'lz4': return runCli('lz4', ['-c', '-q', '-1'], data)
  }
}

/** Decompresses with the reference tool of `format`: the oracle for our encoders. */
export function referenceDecompress(format: WebFormat, data: Uint8Array): Uint8Array {
  switch (format) {
    case 'gzip': return zlib.gunzipSync(data)
    case 'deflate': return zlib.inflateSync(data)
    case 'deflate-raw': return zlib.inflateRawSync(data)
    case 'brotli': return zlib.brotliDecompressSync(data)
    case 'zstd': return runCli('zstd', ['-d', '-c', '-q'], data)
    case 'lz4': return runCli('lz4', ['-d', '-c', '-q'], data)
  }
}

/** Why the reference tool of `format` is unavailable, or null. */
export function referenceMissing(format: WebFormat): string | null {
  return format === 'zstd' || format === 'lz4' ? cliMissing(format) : null
}

// ---------------------------------------------------------------------------------------
// Fixtures. The first four come from WPT's resources/decompression-input.js,
// decompression-buffersource.any.js and decompression-empty-input.any.js (bytes are
// facts, restated here); zstd and lz4 are made by their reference CLIs.

export const EXPECTED = text('expected output')

/** 'expected output' compressed, per format (zstd/lz4: null without the CLI). */
export const COMPRESSED_EXPECTED: Record<WebFormat, Uint8Array | null> = {
  deflate: new Uint8Array([120, 156, 75, 173, 40, 72, 77, 46, 73, 77, 81, 200, 47, 45, 41, 40, 45, 1, 0, 48, 173, 6, 36]),
  gzip: new Uint8Array([31, 139, 8, 0, 0, 0, 0, 0, 0, 3, 75, 173, 40, 72, 77, 46, 73, 77, 81, 200, 47, 45, 41, 40, 45, 1, 0, 176, 1, 57, 179, 15, 0, 0, 0]),
  'deflate-raw': new Uint8Array([0x4b, 0xad, 0x28, 0x48, 0x4d, 0x2e, 0x49, 0x4d, 0x51, 0xc8, 0x2f, 0x2d, 0x29, 0x28, 0x2d, 0x01, 0x00]),
  brotli: new Uint8Array([0x21, 0x38, 0x00, 0x04, 0x65, 0x78, 0x70, 0x65, 0x63, 0x74, 0x65, 0x64, 0x20, 0x6f, 0x75, 0x74, 0x70, 0x75, 0x74, 0x03]),
  zstd: HAS_ZSTD_CLI ? referenceCompress('zstd', EXPECTED) : null,
  lz4: HAS_LZ4_CLI ? referenceCompress('lz4', EXPECTED) : null,
}

/** A compressed empty input, per format. */
export const COMPRESSED_EMPTY: Record<WebFormat, Uint8Array | null> = {
  gzip: new Uint8Array([31, 139, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
  deflate: new Uint8Array([120, 156, 3, 0, 0, 0, 0, 1]),
  'deflate-raw': new Uint8Array([1, 0, 0, 255, 255]),
  brotli: new Uint8Array([0xa1, 0x01]),
  zstd: HAS_ZSTD_CLI ? referenceCompress('zstd', new Uint8Array(0)) : null,
  lz4: HAS_LZ4_CLI ? referenceCompress('lz4', new Uint8Array(0)) : null,
}

/**
 * A skippable frame (zstd RFC 8878 §3.1.2 and the LZ4 frame format share the magic
 * range 0x184D2A50..5F): 8 header bytes plus `payload` bytes a decoder must ignore.
 */
export function skippableFrame(payload: number): Uint8Array {
  const f = new Uint8Array(8 + payload)
  const v = new DataView(f.buffer)
  v.setUint32(0, 0x184d2a5a, true)
  v.setUint32(4, payload, true)
  f.fill(0xee, 8)
  return f
}

/**
 * Inputs whose length is a multiple of 8 (so every typed array can view them) and what
 * they decode to. WPT's own bytes for the standard formats and brotli; for zstd and lz4
 * the CLI's frame of 'a0123456' padded with a skippable frame to a multiple of 8.
 */
export function bufferSourceInput(format: WebFormat): { bytes: Uint8Array; expected: Uint8Array } | null {
  switch (format) {
    case 'deflate': return { bytes: new Uint8Array([120, 156, 75, 52, 48, 52, 50, 54, 49, 53, 3, 0, 8, 136, 1, 199]), expected: text('a0123456') }
    case 'gzip': return { bytes: new Uint8Array([31, 139, 8, 0, 0, 0, 0, 0, 0, 3, 75, 52, 48, 52, 2, 0, 216, 252, 63, 136, 4, 0, 0, 0]), expected: text('a012') }
    case 'deflate-raw': return { bytes: new Uint8Array([0x00, 0x06, 0x00, 0xf9, 0xff, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x01, 0x00, 0x00, 0xff, 0xff]), expected: text('ABCDEF') }
    case 'brotli': return { bytes: new Uint8Array([0x21, 0x08, 0x00, 0x04, 0x66, 0x6f, 0x6f, 0x03]), expected: text('foo') }
    case 'zstd':
    case 'lz4': {
      if (referenceMissing(format)) return null
      const expected = text('a0123456')
      const frame = referenceCompress(format, expected)
      const pad = skippableFrame((8 - (frame.length % 8)) % 8)
      return { bytes: concat([frame, pad]), expected }
    }
  }
}

/** WPT decompression-bad-chunks' corrupt inputs (first byte of each header zeroed). */
export const INVALID_DEFLATE = new Uint8Array([0, 156, 75, 173, 40, 72, 77, 46, 73, 77, 81, 200, 47, 45, 41, 40, 45, 1, 0, 48, 173, 6, 36])
export const INVALID_GZIP = new Uint8Array([0, 139, 8, 0, 0, 0, 0, 0, 0, 3, 75, 173, 40, 72, 77, 46, 73, 77, 81, 200, 47, 45, 41, 40, 45, 1, 0, 176, 1, 57, 179, 15, 0, 0, 0])

/** Corpora: real files of this checkout (a text file and the start of the node binary). */
export function smallText(): Uint8Array {
  return new Uint8Array(readFileSync(join(root, 'tsconfig.json')))
}
export function largeText(): Uint8Array {
  return new Uint8Array(readFileSync(join(root, 'node_modules/typescript/lib/lib.dom.d.ts'))).subarray(0, 512 * 1024)
}
export function largeBinary(): Uint8Array {
  // The first 512 KiB of the running node binary: machine code, tables, strings.
  const out = new Uint8Array(512 * 1024)
  const fd = openSync(process.execPath, 'r')
  try {
    let n = 0
    while (n < out.length) {
      const got = readSync(fd, out, n, out.length - n, n)
      if (got === 0) break
      n += got
    }
    return out.subarray(0, n)
  } finally {
    closeSync(fd)
  }
}

// ---------------------------------------------------------------------------------------
// Stream utilities.

export { concat }

/** Reads a stream to its end; every chunk must be a Uint8Array. */
export async function readAll(readable: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = readable.getReader()
  const parts: Uint8Array[] = []
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    if (!(value instanceof Uint8Array)) throw new Error(`chunk is ${Object.prototype.toString.call(value)}, not a Uint8Array`)
    parts.push(value)
  }
  reader.releaseLock()
  return concat(parts)
}

/**
 * Rejects with a clear message when `p` does not settle in `ms`: a hang guard so that a
 * stream that never settles fails its test instead of stalling the file. It asserts
 * nothing about speed; the limit is far above any expected duration.
 */
export function guard<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: did not settle within ${ms / 1000} s (hang)`)), ms)
  })
  return Promise.race([p, hang]).finally(() => clearTimeout(timer))
}

/** Outcome of a promise, observed without swallowing: tests assert on it. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown }
export function observe<T>(p: Promise<T>): Promise<Outcome<T>> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )
}

export function describeError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code
    return `${e.constructor.name}${code ? ` [${String(code)}]` : ''}: ${e.message}`
  }
  return String(e)
}

/** Detaches `buffer` the way Node can: transferring it through structuredClone. */
export function detach(buffer: ArrayBuffer): boolean {
  if (buffer.byteLength === 0) return false
  structuredClone(buffer, { transfer: [buffer] })
  return buffer.byteLength === 0
}
